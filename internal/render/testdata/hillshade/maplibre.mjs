// Draws a style with MapLibre GL JS in headless Chromium (software GL) and
// writes the canvas as PNG: the reference pictures of the hillshade test
// (TestHillshadeMapLibre). Styles name their data local://..., served from
// ROOT.
//
// usage: node maplibre.mjs STYLE.json ROOT WIDTH HEIGHT OUT.png
// env: PLAYWRIGHT_CORE_DIR, MAPLIBRE_DIR (the maplibre-gl package folder),
//      CHROMIUM (default /usr/bin/chromium)
//
// Made with MapLibre GL JS 6.17.0 and playwright-core 1.65.1:
//   d=/path/to/node_modules
//   for s in standard multidirectional combined; do
//     PLAYWRIGHT_CORE_DIR=$d/playwright-core MAPLIBRE_DIR=$d/maplibre-gl \
//       node maplibre.mjs $s.json . 256 256 $s-maplibre.png
//   done
import { createRequire } from 'node:module';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';

const require = createRequire(path.join(process.env.PLAYWRIGHT_CORE_DIR, 'package.json'));
const { chromium } = require(process.env.PLAYWRIGHT_CORE_DIR);
const [stylePath, localRoot, width, height, outPath] = process.argv.slice(2);
const maplibreDir = process.env.MAPLIBRE_DIR;

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
page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
await page.goto(base + '/', { waitUntil: 'load' });
await page.waitForFunction(() => window.maplibregl && window.maplibregl.Map);
const png = await page.evaluate(async (style) => {
  const map = new maplibregl.Map({ container: 'map', style, interactive: false, fadeDuration: 0, pixelRatio: 1,
    attributionControl: false, canvasContextAttributes: { preserveDrawingBuffer: true } });
  await new Promise((resolve) => map.once('idle', resolve));
  return map.getCanvas().toDataURL('image/png');
}, style);
fs.writeFileSync(outPath, Buffer.from(png.replace(/^data:image\/png;base64,/, ''), 'base64'));
if (errors.length) console.error(errors.join('\n'));
await browser.close();
server.close();
