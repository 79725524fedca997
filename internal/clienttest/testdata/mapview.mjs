// Opens Tessera map viewer pages (/maps/{id}/) in Debian's Chromium with
// playwright-core and prints one JSON result per page on stdout: browser
// errors, every response (URL and status), what MapLibre GL JS rendered and
// two screenshots of the map (with the symbol layers shown, then hidden).
//
// usage: node mapview.mjs '<json config>'
//   config: {"pages": [{"name", "url", "scale", "symbolLayers": [ids],
//            "labelProperty", "screenshot", "screenshotHidden"}]}
// env: PLAYWRIGHT_CORE_DIR (folder of the playwright-core package),
//      CHROMIUM (browser executable, default /usr/bin/chromium)
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(path.join(process.env.PLAYWRIGHT_CORE_DIR, 'package.json'));
const { chromium } = require(process.env.PLAYWRIGHT_CORE_DIR);

const cfg = JSON.parse(process.argv[2]);
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync',
    '--use-angle=swiftshader', '--enable-unsafe-swiftshader'],
});

// waitIdle waits until the map's style, sources and tiles are loaded, then
// for one more idle event (symbol placement and fading done).
async function waitIdle(page) {
  await page.waitForFunction(() => window.tessera && window.tessera.map && window.tessera.map.loaded() &&
    window.tessera.map.isStyleLoaded() && window.tessera.map.areTilesLoaded(), null, { timeout: 30000, polling: 100 });
  await page.evaluate(() => new Promise((resolve) => {
    const m = window.tessera.map;
    m.once('idle', resolve);
    m.triggerRepaint();
  }));
}

const results = [];
try {
  for (const p of cfg.pages) {
    const r = { name: p.name, errors: [], warnings: [], responses: [] };
    const context = await browser.newContext({ viewport: { width: 900, height: 600 }, deviceScaleFactor: p.scale || 1 });
    const page = await context.newPage();
    page.on('console', (m) => {
      if (m.type() === 'error') r.errors.push('console: ' + m.text());
      if (m.type() === 'warning') r.warnings.push(m.text());
    });
    page.on('pageerror', (e) => r.errors.push('pageerror: ' + e.message));
    page.on('requestfailed', (q) => r.errors.push('requestfailed: ' + q.url() + ' ' + (q.failure() || {}).errorText));
    page.on('response', (s) => r.responses.push({ url: s.url(), status: s.status() }));
    try {
      await page.goto(p.url, { waitUntil: 'load', timeout: 30000 });
      await waitIdle(page);
      Object.assign(r, await page.evaluate(({ symbolLayers, labelProperty }) => {
        const m = window.tessera.map;
        const style = m.getStyle();
        const byLayer = {};
        for (const f of m.queryRenderedFeatures()) byLayer[f.layer.id] = (byLayer[f.layer.id] || 0) + 1;
        const labels = {};
        for (const id of symbolLayers) {
          const fs = m.queryRenderedFeatures({ layers: [id] });
          labels[id] = [...new Set(fs.map((f) => String((f.properties || {})[labelProperty])))].sort();
        }
        return {
          loaded: m.loaded(),
          devicePixelRatio: window.devicePixelRatio,
          status: (document.getElementById('status') || {}).textContent || '',
          styleName: style.name || '',
          sprite: style.sprite === undefined ? null : style.sprite,
          glyphs: style.glyphs || '',
          sources: Object.keys(style.sources || {}).sort(),
          images: m.listImages().slice().sort(),
          renderedByLayer: byLayer,
          labels,
        };
      }, { symbolLayers: p.symbolLayers || [], labelProperty: p.labelProperty || 'name' }));
      // Screenshots of the map alone: the controls hidden, then the symbol
      // layers hidden as well.
      await page.addStyleTag({ content: '.maplibregl-control-container{display:none!important}' });
      await waitIdle(page);
      if (p.screenshot) await page.locator('#map').screenshot({ path: p.screenshot });
      if (p.screenshotHidden) {
        await page.evaluate((ids) => {
          for (const id of ids) window.tessera.map.setLayoutProperty(id, 'visibility', 'none');
        }, p.symbolLayers || []);
        await waitIdle(page);
        r.renderedAfterHide = await page.evaluate((ids) =>
          window.tessera.map.queryRenderedFeatures({ layers: ids }).length, p.symbolLayers || []);
        await page.locator('#map').screenshot({ path: p.screenshotHidden });
      }
    } catch (e) {
      r.errors.push('driver: ' + e.message);
      if (p.screenshot) await page.screenshot({ path: p.screenshot }).catch(() => {});
    }
    results.push(r);
    await context.close();
  }
} finally {
  await browser.close();
}
process.stdout.write(JSON.stringify(results) + '\n');
