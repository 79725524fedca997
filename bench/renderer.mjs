// Times MapLibre GL JS drawing a style in headless Chromium with software GL,
// the reference of the renderer benchmark: for each run a new map in the
// loaded page, until its first idle event, plus PNG encoding of the canvas.
// Prints one JSON object: {"version", "runs": [ms...]} (the first run, a
// warm-up, is not in "runs").
//
// usage: node renderer.mjs STYLE.json LOCAL_ROOT WIDTH HEIGHT RUNS
// env: PLAYWRIGHT_CORE_DIR, MAPLIBRE_DIR (the maplibre-gl package folder),
//      CHROMIUM (default /usr/bin/chromium)
import { createRequire } from 'node:module';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';

const require = createRequire(path.join(process.env.PLAYWRIGHT_CORE_DIR, 'package.json'));
const { chromium } = require(process.env.PLAYWRIGHT_CORE_DIR);
const [stylePath, localRoot, width, height, runs] = process.argv.slice(2);
const maplibreDir = process.env.MAPLIBRE_DIR;

// A static server: /local/... from LOCAL_ROOT, /maplibre/... from the package.
const server = http.createServer((req, res) => {
  const u = decodeURIComponent(new URL(req.url, 'http://x').pathname);
  let file;
  if (u === '/') {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(`<!doctype html><html><head><link rel="stylesheet" href="/maplibre/dist/maplibre-gl.css">
<script type="module">import * as m from '/maplibre/dist/maplibre-gl.mjs'; window.maplibregl = m;</script></head>
<body style="margin:0"><div id="map" style="width:${width}px;height:${height}px"></div></body></html>`);
    return;
  } else if (u.startsWith('/local/')) {
    file = path.join(localRoot, u.slice('/local/'.length));
  } else if (u.startsWith('/maplibre/')) {
    file = path.join(maplibreDir, u.slice('/maplibre/'.length));
  }
  fs.readFile(file || '', (err, body) => {
    if (err) { res.writeHead(404); res.end(); return; }
    const type = file.endsWith('.js') || file.endsWith('.mjs') ? 'text/javascript' : file.endsWith('.css') ? 'text/css' :
      file.endsWith('.png') ? 'image/png' : file.endsWith('.json') ? 'application/json' : 'application/octet-stream';
    res.writeHead(200, { 'content-type': type, 'access-control-allow-origin': '*' });
    res.end(body);
  });
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const base = `http://127.0.0.1:${server.address().port}`;
const style = JSON.parse(fs.readFileSync(stylePath, 'utf8').replaceAll('local://', base + '/local/'));

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--use-angle=swiftshader', '--enable-unsafe-swiftshader'],
});
const page = await browser.newPage({ viewport: { width: Number(width), height: Number(height) } });
const errors = [];
page.on('pageerror', (e) => errors.push(e.message));
await page.goto(base + '/', { waitUntil: 'load' });
await page.waitForFunction(() => window.maplibregl && window.maplibregl.Map);
const out = {
  version: await page.evaluate(() => (maplibregl.getVersion ? maplibregl.getVersion() : maplibregl.version) || 'unknown'),
  runs: [],
};
for (let i = 0; i <= Number(runs); i++) {
  const ms = await page.evaluate(async (style) => {
    const t0 = performance.now();
    const map = new maplibregl.Map({ container: 'map', style, interactive: false, fadeDuration: 0,
      attributionControl: false, canvasContextAttributes: { preserveDrawingBuffer: true }, preserveDrawingBuffer: true });
    await new Promise((resolve) => map.once('idle', resolve));
    const png = map.getCanvas().toDataURL('image/png');
    const t1 = performance.now();
    map.remove();
    if (png.length < 1000) throw new Error('empty canvas');
    return t1 - t0;
  }, style);
  if (i > 0) out.runs.push(Math.round(ms));
}
if (errors.length) out.errors = errors;
console.log(JSON.stringify(out));
await browser.close();
server.close();
