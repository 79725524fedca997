// Drives Debian's Chromium with playwright-core through Tessera viewer pages
// and prints one JSON result per page on stdout.
//
// usage: node run.mjs '<json config>'
//   config: {"pages": [{"name", "url", "kind", "tilePattern", "screenshot", "browser"}]}
//   kind "map-raster": the map viewer in raster mode; browser "nowebgl":
//   Chromium without WebGL
// env: PLAYWRIGHT_CORE_DIR (folder of the playwright-core package),
//      CHROMIUM (browser executable, default /usr/bin/chromium)
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(path.join(process.env.PLAYWRIGHT_CORE_DIR, 'package.json'));
const { chromium } = require(process.env.PLAYWRIGHT_CORE_DIR);

const cfg = JSON.parse(process.argv[2]);
const common = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];
function launch(extra) {
  return chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true, args: common.concat(extra) });
}
// The browser of the pages: WebGL drawn in software (SwiftShader); pages
// with "browser": "nowebgl" run in a second one without WebGL.
const browser = await launch(['--use-angle=swiftshader', '--enable-unsafe-swiftshader']);
let noWebGL = null;

// waitRaster waits until the map viewer in raster mode has loaded every
// tile image it shows (a generous bound: the machine may be busy).
async function waitRaster(page) {
  await page.waitForFunction(() => window.tessera && window.tessera.mode === 'raster' &&
    document.body.dataset.state === 'loaded' && document.querySelectorAll('.raster-tiles img').length > 0,
  null, { timeout: 60000, polling: 100 });
}

async function waitIdle(page) {
  await page.waitForFunction(() => window.tessera && window.tessera.map && window.tessera.map.loaded() &&
    window.tessera.map.areTilesLoaded(), null, { timeout: 30000, polling: 100 });
  // one more idle event so that the last tiles are drawn
  await page.evaluate(() => new Promise((resolve) => {
    const m = window.tessera.map;
    if (!m.isMoving() && m.loaded()) { m.once('idle', resolve); m.triggerRepaint(); } else { m.once('idle', resolve); }
  }));
}

const results = [];
try {
  for (const p of cfg.pages) {
    const r = { name: p.name, errors: [], tileRequests: 0, tileResponses: 0 };
    if (p.browser === 'nowebgl' && !noWebGL) noWebGL = await launch(['--disable-webgl', '--disable-3d-apis']);
    const context = await (p.browser === 'nowebgl' ? noWebGL : browser).newContext({ viewport: { width: 900, height: 600 } });
    const page = await context.newPage();
    const tileRe = new RegExp(p.tilePattern);
    page.on('console', (m) => { if (m.type() === 'error') r.errors.push('console: ' + m.text()); });
    page.on('pageerror', (e) => r.errors.push('pageerror: ' + e.message));
    page.on('requestfailed', (q) => r.errors.push('requestfailed: ' + q.url() + ' ' + (q.failure() || {}).errorText));
    page.on('request', (q) => { if (tileRe.test(q.url())) r.tileRequests++; });
    page.on('response', (s) => {
      if (s.status() >= 400) r.errors.push('HTTP ' + s.status() + ' ' + s.url());
      if (tileRe.test(s.url()) && s.status() === 200) r.tileResponses++;
    });
    try {
      await page.goto(p.url, { waitUntil: 'load', timeout: 30000 });
      if (p.kind === 'map-raster') {
        await waitRaster(page);
        Object.assign(r, await page.evaluate(() => {
          const imgs = [...document.querySelectorAll('.raster-tiles img')];
          // pixels of the map: drawn from the tile images, not the page
          const c = document.createElement('canvas');
          c.width = c.height = 64;
          const g = c.getContext('2d');
          let mapPixels = 0;
          for (const i of imgs) {
            if (!i.complete || i.naturalWidth === 0) continue;
            g.clearRect(0, 0, 64, 64);
            g.drawImage(i, 0, 0, 64, 64);
            const d = g.getImageData(0, 0, 64, 64).data;
            for (let k = 3; k < d.length; k += 4) if (d[k] > 0) mapPixels++;
          }
          const b = document.getElementById('mode-switch');
          return {
            loaded: true, mode: window.tessera.mode, images: imgs.length, mapPixels,
            switchText: b.textContent, switchDisabled: b.disabled, switchHidden: b.hidden,
            status: document.getElementById('status').textContent,
          };
        }));
        // zoom in with the button: the view's zoom grows by one, new tiles load
        const z0 = await page.evaluate(() => window.tessera.view().zoom);
        await page.locator('.raster-nav button').first().click();
        await waitRaster(page);
        r.zoomAfterClick = (await page.evaluate(() => window.tessera.view().zoom)) - z0;
        if (p.screenshot) await page.screenshot({ path: p.screenshot });
        results.push(r);
        await context.close();
        continue;
      }
      await waitIdle(page);
      Object.assign(r, await page.evaluate(() => {
        const m = window.tessera.map;
        const fs = m.queryRenderedFeatures();
        return {
          loaded: m.loaded(),
          renderedFeatures: fs.length,
          sourceLayers: [...new Set(fs.map((f) => f.sourceLayer).filter(Boolean))].sort(),
          styleLayers: m.getStyle().layers.length,
          checkboxes: document.querySelectorAll('#layers input[type=checkbox]').length,
          panelVisible: !document.getElementById('panel').hidden,
          status: document.getElementById('status').textContent,
        };
      }));
      if (p.kind === 'vector' && r.checkboxes > 0) {
        // toggle the first layer off: its features disappear; then back on
        await page.locator('#layers input[type=checkbox]').first().uncheck();
        await waitIdle(page);
        r.renderedAfterHide = await page.evaluate(() => window.tessera.map.queryRenderedFeatures().length);
        await page.locator('#layers input[type=checkbox]').first().check();
        await waitIdle(page);
        r.renderedAfterShow = await page.evaluate(() => window.tessera.map.queryRenderedFeatures().length);
        // click a rendered point feature and read the popup
        const pt = await page.evaluate(() => {
          const m = window.tessera.map;
          const f = m.queryRenderedFeatures().find((x) => x.geometry.type === 'Point');
          if (!f) return null;
          const px = m.project(f.geometry.coordinates);
          const box = m.getCanvas().getBoundingClientRect();
          return { x: box.left + px.x, y: box.top + px.y, props: f.properties };
        });
        if (pt) {
          await page.mouse.click(pt.x, pt.y);
          await page.waitForSelector('.tessera-popup h2', { timeout: 5000 });
          r.popupTitle = await page.locator('.tessera-popup h2').first().textContent();
          r.popupText = await page.locator('.tessera-popup dl').first().textContent();
          r.clickedProps = pt.props;
        }
      }
      if (p.screenshot) await page.screenshot({ path: p.screenshot });
    } catch (e) {
      r.errors.push('driver: ' + e.message);
      if (p.screenshot) await page.screenshot({ path: p.screenshot }).catch(() => {});
    }
    results.push(r);
    await context.close();
  }
} finally {
  await browser.close();
  if (noWebGL) await noWebGL.close();
}
process.stdout.write(JSON.stringify(results) + '\n');
