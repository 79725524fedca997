// Draws a style with MapLibre GL JS in Debian's headless Chromium (software
// GL) and writes the canvas as a PNG: the reference pictures of what the
// shared conformance suite lacks (testdata/layers and testdata/hillshade:
// hillshade, image sources, heatmap, fill-extrusion, clusters, gradients,
// sort keys, overlap modes, images in text).
//
// usage: node maplibre-reference.mjs STYLE.json WIDTH HEIGHT OUT.png [PIXEL_RATIO]
// (the style's local:// URLs name files beside it)
// env: PLAYWRIGHT_CORE_DIR (the playwright-core package folder),
//      MAPLIBRE_DIR (the maplibre-gl package folder),
//      CHROMIUM (default /usr/bin/chromium),
//      RTL_TEXT_PLUGIN (optional: the file dist/mapbox-gl-rtl-text.js of the
//      npm package @mapbox/mapbox-gl-rtl-text, loaded with setRTLTextPlugin
//      before the map is made, so that GL shapes and orders right-to-left
//      text)
import { createRequire } from 'node:module';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';

const require = createRequire(path.join(process.env.PLAYWRIGHT_CORE_DIR, 'package.json'));
const { chromium } = require(process.env.PLAYWRIGHT_CORE_DIR);
const [stylePath, width, height, out, ratioArg] = process.argv.slice(2);
const ratio = Number(ratioArg || 1);
const maplibreDir = process.env.MAPLIBRE_DIR;
const rtlPlugin = process.env.RTL_TEXT_PLUGIN || '';

const server = http.createServer((req, res) => {
  const u = decodeURIComponent(new URL(req.url, 'http://x').pathname);
  if (u === '/') {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(`<!doctype html><html><head>
<script type="module">import * as m from '/maplibre/dist/maplibre-gl.mjs'; window.maplibregl = m;</script></head>
<body style="margin:0"><div id="map" style="width:${width}px;height:${height}px"></div></body></html>`);
    return;
  }
  let file = '';
  if (u === '/rtl-text-plugin.js' && rtlPlugin) file = rtlPlugin;
  else if (u.startsWith('/maplibre/')) file = path.join(maplibreDir, u.slice('/maplibre/'.length));
  else if (u.startsWith('/local/')) file = path.join(path.dirname(stylePath), u.slice('/local/'.length));
  fs.readFile(file, (err, body) => {
    if (err) { res.writeHead(404); res.end(); return; }
    const type = file.endsWith('js') ? 'text/javascript' : file.endsWith('.png') ? 'image/png' :
      file.endsWith('.json') ? 'application/json' : 'application/octet-stream';
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
try {
  const page = await browser.newPage({ viewport: { width: Number(width), height: Number(height) }, deviceScaleFactor: ratio });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(base + '/', { waitUntil: 'load' });
  await page.waitForFunction(() => window.maplibregl && window.maplibregl.Map);
  const png = await page.evaluate(async ({ style, ratio, rtl }) => {
    if (rtl) await maplibregl.setRTLTextPlugin(rtl, false);
    // localIdeographFontFamily false: CJK glyphs come from the style's
    // glyph ranges (as in the conformance suite), not from a local font.
    const map = new maplibregl.Map({ container: 'map', style, interactive: false, fadeDuration: 0, pixelRatio: ratio,
      localIdeographFontFamily: false,
      attributionControl: false, canvasContextAttributes: { preserveDrawingBuffer: true }, preserveDrawingBuffer: true });
    await new Promise((resolve) => map.once('idle', resolve));
    return map.getCanvas().toDataURL('image/png');
  }, { style, ratio, rtl: rtlPlugin ? base + '/rtl-text-plugin.js' : '' });
  if (errors.length) throw new Error(errors.join('; '));
  fs.writeFileSync(out, Buffer.from(png.slice(png.indexOf(',') + 1), 'base64'));
} finally {
  await browser.close();
  server.close();
}
