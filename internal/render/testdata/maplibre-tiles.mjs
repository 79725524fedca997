// Logs which vector tiles MapLibre GL JS requests for each of a list of
// views, in Debian's headless Chromium (software GL), as the harness of
// maplibre-reference.mjs runs it: what docs/rendering.md ("Tile choice
// under a tilted camera") records, observed rather than read from GL's
// source, and what TestTileChoiceAgainstMapLibre compares with Tessera's
// choice.
//
// usage: node maplibre-tiles.mjs VIEWS.json > TILES.json
// (testdata/tilechoice: node ../maplibre-tiles.mjs views.json > maplibre.json)
// VIEWS.json is an array of views: {"width", "height" (CSS pixels, ratio
// 1), "zoom", "center": [lon, lat], "bearing", "pitch", "step"} and
// optionally "maxzoom" of the one vector source (14 by default). The
// output is the same array, one view a line, each with "requested": the
// "z/x/y" of every tile GL requested from a fresh map (fadeDuration 0,
// maxPitch 85) until it was idle, and "drawn": the tiles whose square
// queryRenderedFeatures finds under a grid of points every "step" (4 by
// default) CSS pixels, i.e. the tiles GL draws (a sliver narrower than
// the step may be missed). Every tile holds one square over the whole
// tile, so GL needs no other tile to stand in for a missing one.
// Packages and Chromium as in maplibre-reference.mjs (TESSERA_NODE_PATH,
// PLAYWRIGHT_CORE_DIR, MAPLIBRE_DIR, CHROMIUM).
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
for (const [what, file] of [['playwright-core', path.join(playwrightDir, 'package.json')],
  ['maplibre-gl', path.join(maplibreDir, 'dist/maplibre-gl.mjs')]]) {
  if (!fs.existsSync(file)) {
    console.error(`maplibre-tiles: ${what} is not at ${file}: run scripts/test-tools-npm.sh (or set its variable)`);
    process.exit(2);
  }
}
const require = createRequire(path.join(playwrightDir, 'package.json'));
const { chromium } = require(playwrightDir);
const views = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));

// squareTile returns a vector tile whose layer "x" holds one square over
// the whole tile with the property t = name ("z/x/y"): what
// queryRenderedFeatures finds tells which tiles GL drew.
function squareTile(name) {
  const varint = (n) => { const b = []; while (n > 127) { b.push((n & 127) | 128); n >>>= 7; } b.push(n); return b; };
  const zz = (n) => (n << 1) ^ (n >> 31);
  const field = (num, bytes) => [...varint((num << 3) | 2), ...varint(bytes.length), ...bytes];
  const str = (s) => [...Buffer.from(s)];
  const e = 4096;
  const geom = [...varint((1 << 3) | 1), ...varint(zz(0)), ...varint(zz(0)),
    ...varint((3 << 3) | 2), ...varint(zz(e)), ...varint(zz(0)), ...varint(zz(0)), ...varint(zz(e)), ...varint(zz(-e)), ...varint(zz(0)),
    ...varint((1 << 3) | 7)];
  const feature = [...field(2, [0, 0]), 3 << 3, 3, ...field(4, geom)];
  const layer = [(15 << 3), 2, ...field(1, str('x')), ...field(2, feature), ...field(3, str('t')),
    ...field(4, field(1, str(name))), (5 << 3), ...varint(e)];
  return Buffer.from(field(3, layer));
}

const server = http.createServer((req, res) => {
  const u = decodeURIComponent(new URL(req.url, 'http://x').pathname);
  if (u === '/') {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(mapPage(100, 100));
    return;
  }
  if (u.startsWith('/tiles/')) {
    res.writeHead(200, { 'content-type': 'application/x-protobuf', 'cache-control': 'no-store', 'access-control-allow-origin': '*' });
    res.end(squareTile(u.slice('/tiles/'.length, -'.pbf'.length)));
    return;
  }
  if (!u.startsWith('/maplibre/')) { res.writeHead(404); res.end(); return; }
  fs.readFile(path.join(maplibreDir, u.slice('/maplibre/'.length)), (err, body) => {
    if (err) { res.writeHead(404); res.end(); return; }
    res.writeHead(200, { 'content-type': u.endsWith('js') ? 'text/javascript' : 'application/octet-stream' });
    res.end(body);
  });
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const base = `http://127.0.0.1:${server.address().port}`;

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--use-angle=swiftshader', '--enable-unsafe-swiftshader'],
});
try {
  const page = await browser.newPage({ viewport: { width: 2000, height: 2000 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(base + '/', { waitUntil: 'load' });
  await page.waitForFunction(() => window.maplibregl && window.maplibregl.Map);
  for (const v of views) {
    const style = {
      version: 8,
      sources: { v: { type: 'vector', tiles: [base + '/tiles/{z}/{x}/{y}.pbf'], maxzoom: v.maxzoom ?? 14 } },
      layers: [{ id: 'bg', type: 'background', paint: { 'background-color': '#fff' } },
        { id: 'f', type: 'fill', source: 'v', 'source-layer': 'x', paint: { 'fill-color': '#000' } }],
    };
    const got = await page.evaluate(async ({ style, v }) => {
      const el = document.getElementById('map');
      el.style.width = `${v.width}px`;
      el.style.height = `${v.height}px`;
      const seen = new Set();
      const map = new maplibregl.Map({ container: 'map', style, interactive: false, fadeDuration: 0, maxPitch: 85,
        attributionControl: false, center: v.center, zoom: v.zoom, bearing: v.bearing || 0, pitch: v.pitch || 0,
        transformRequest: (url, type) => {
          const m = /\/tiles\/(\d+\/\d+\/\d+)\.pbf$/.exec(url);
          if (m) seen.add(m[1]);
          return { url };
        } });
      const failed = [];
      map.on('error', (e) => failed.push(e.error ? e.error.message : String(e)));
      await new Promise((resolve, reject) => {
        map.once('idle', resolve);
        setTimeout(() => reject(new Error(`not idle after 60 s: ${failed.join('; ')}`)), 60000);
      });
      // Which tile draws the ground under each point of a grid (a query
      // of the whole canvas fails once the horizon is in view).
      const drawn = new Set();
      for (let y = 0.5; y < v.height; y += v.step || 4) {
        for (let x = 0.5; x < v.width; x += v.step || 4) {
          for (const f of map.queryRenderedFeatures([x, y], { layers: ['f'] })) drawn.add(f.properties.t);
        }
      }
      if (Math.abs(map.getPitch() - (v.pitch || 0)) > 1e-9) throw new Error(`pitch ${v.pitch} became ${map.getPitch()}`);
      map.remove();
      const order = (a, b) => a.localeCompare(b, 'en', { numeric: true });
      return { requested: [...seen].sort(order), drawn: [...drawn].sort(order) };
    }, { style, v });
    v.requested = got.requested;
    v.drawn = got.drawn;
  }
  if (errors.length) throw new Error(errors.join('; '));
  process.stdout.write('[\n' + views.map((v) => JSON.stringify(v)).join(',\n') + '\n]\n');
} finally {
  await browser.close();
  server.close();
}
