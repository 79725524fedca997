// Draws a style with MapLibre GL JS in Debian's headless Chromium (software
// GL) and writes the canvas as a PNG: the reference pictures of what the
// shared conformance suite lacks (testdata/layers and testdata/hillshade:
// hillshade, image sources, heatmap, fill-extrusion, clusters, gradients,
// sort keys, overlap modes, images in text).
//
// usage: node maplibre-reference.mjs STYLE.json WIDTH HEIGHT OUT.png [PIXEL_RATIO]
// (the style's local:// URLs name files beside it)
// The packages come from the test tools' node_modules (TESSERA_NODE_PATH,
// else NODE_PATH, else .cache/npm-test/node_modules of this checkout, where
// scripts/test-tools-npm.sh installs the pinned versions); env overrides:
//      PLAYWRIGHT_CORE_DIR (the playwright-core package folder),
//      MAPLIBRE_DIR (the maplibre-gl package folder),
//      CHROMIUM (default /usr/bin/chromium),
//      RTL_TEXT_PLUGIN (the file dist/mapbox-gl-rtl-text.js of the npm
//      package @mapbox/mapbox-gl-rtl-text, loaded with setRTLTextPlugin
//      before the map is made, so that GL shapes and orders right-to-left
//      text; "none" draws without it)
import { createRequire } from 'node:module';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { mapPage } from './maplibre-page.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const modules = process.env.TESSERA_NODE_PATH || process.env.NODE_PATH || path.join(repo, '.cache/npm-test/node_modules');
const playwrightDir = process.env.PLAYWRIGHT_CORE_DIR || path.join(modules, 'playwright-core');
const maplibreDir = process.env.MAPLIBRE_DIR || path.join(modules, 'maplibre-gl');
let rtlPlugin = process.env.RTL_TEXT_PLUGIN || path.join(modules, '@mapbox/mapbox-gl-rtl-text/dist/mapbox-gl-rtl-text.js');
if (rtlPlugin === 'none') rtlPlugin = '';
for (const [what, file] of [['playwright-core', path.join(playwrightDir, 'package.json')],
  ['maplibre-gl', path.join(maplibreDir, 'dist/maplibre-gl.mjs')], ['the RTL text plugin', rtlPlugin]]) {
  if (file && !fs.existsSync(file)) {
    console.error(`maplibre-reference: ${what} is not at ${file}: run scripts/test-tools-npm.sh (or set its variable)`);
    process.exit(2);
  }
}

const require = createRequire(path.join(playwrightDir, 'package.json'));
const { chromium } = require(playwrightDir);
const [stylePath, width, height, out, ratioArg] = process.argv.slice(2);
const ratio = Number(ratioArg || 1);

const server = http.createServer((req, res) => {
  const u = decodeURIComponent(new URL(req.url, 'http://x').pathname);
  if (u === '/') {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(mapPage(width, height));
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
    if (rtl) {
      await maplibregl.setRTLTextPlugin(rtl, false);
      const status = maplibregl.getRTLTextPluginStatus();
      if (status !== 'loaded') throw new Error(`the RTL text plugin is ${status}, not loaded`);
    }
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
