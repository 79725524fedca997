// Time to first map in the map viewer (issue 24): loads /maps/{id}/ in
// headless Chromium and reports when the map first shows pixels of the map
// (not only the page's background), in raster mode (the default without a
// hardware WebGL) and in vector mode (MapLibre GL JS), under software WebGL
// (SwiftShader) and with WebGL disabled.
//
// usage: node bench/viewer-first-map.mjs URL_OF_MAP_PAGE [runs]
//   e.g. node bench/viewer-first-map.mjs http://127.0.0.1:8080/maps/world/ 3
// env: PLAYWRIGHT_CORE_DIR (default .cache/npm-test/node_modules/playwright-core),
//      CHROMIUM (default /usr/bin/chromium)
import { createRequire } from 'node:module';
import path from 'node:path';

const pwDir = process.env.PLAYWRIGHT_CORE_DIR || path.resolve('.cache/npm-test/node_modules/playwright-core');
const require = createRequire(path.join(pwDir, 'package.json'));
const { chromium } = require(pwDir);
const [pageURL, runsArg] = process.argv.slice(2);
const runs = Number(runsArg || 3);
const base = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'];
const browsers = {
  'software WebGL (SwiftShader)': base.concat(['--use-angle=swiftshader', '--enable-unsafe-swiftshader']),
  'no WebGL': base.concat(['--disable-webgl', '--disable-3d-apis']),
};

// firstMap resolves with the time from navigation until the viewer shows
// map pixels: in raster mode the first tile image decoded and visible, in
// vector mode the first frame of MapLibre with its tiles drawn ('load').
async function firstMap(page, url) {
  const t0 = Date.now();
  await page.goto(url, { waitUntil: 'commit' });
  await page.waitForFunction(() => {
    const t = window.tessera;
    if (!t) return false;
    if (t.mode === 'raster') return [...document.querySelectorAll('.raster-tiles img')].some((i) => i.complete && i.naturalWidth > 0);
    return t.map && t.map.loaded() && t.map.areTilesLoaded();
  }, null, { timeout: 120000, polling: 50 });
  const first = Date.now() - t0;
  await page.waitForFunction(() => document.body.dataset.state === 'loaded', null, { timeout: 120000, polling: 50 });
  return { first, complete: Date.now() - t0, mode: await page.evaluate(() => window.tessera.mode || 'vector') };
}

const rows = [];
for (const [name, args] of Object.entries(browsers)) {
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true, args });
  for (const mode of ['', 'raster', 'vector']) {
    if (name === 'no WebGL' && mode === 'vector') continue; // MapLibre cannot start
    const times = [];
    for (let i = 0; i < runs; i++) {
      const ctx = await browser.newContext({ viewport: { width: 1000, height: 700 } });
      const page = await ctx.newPage();
      const u = new URL(pageURL);
      if (mode) u.searchParams.set('mode', mode);
      try {
        times.push(await firstMap(page, u.toString()));
      } catch (e) {
        times.push({ error: e.message.split('\n')[0] });
      }
      await ctx.close();
    }
    rows.push({ browser: name, mode: mode || 'default', runs: times });
  }
  await browser.close();
}
for (const r of rows) {
  const ok = r.runs.filter((x) => !x.error);
  const med = (k) => { const v = ok.map((x) => x[k]).sort((a, b) => a - b); return v.length ? v[Math.floor(v.length / 2)] : NaN; };
  console.log(`${r.browser} | ?mode=${r.mode} (${ok.length ? ok[0].mode : '-'}) | first map median ${med('first')} ms | all tiles median ${med('complete')} ms | runs ${JSON.stringify(r.runs.map((x) => x.error ? 'error' : x.first))}`);
}
