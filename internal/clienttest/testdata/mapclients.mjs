// Drives Debian's Chromium with playwright-core through pages that show a
// Tessera map with OpenLayers or Leaflet, and prints one JSON result per
// page on stdout. A page sets window.tesseraDone when its map has drawn
// (or failed) and window.tesseraInfo with what it wants reported.
//
// usage: node mapclients.mjs '<json config>'
//   config: {"pages": [{"name", "url", "imagePattern", "screenshot"}]}
//   imagePattern: a regular expression of the URLs of the map's images
//   (tiles or GetMap) whose requests and responses are counted.
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

const results = [];
try {
  for (const p of cfg.pages) {
    const r = { name: p.name, errors: [], images: [], info: null };
    const context = await browser.newContext({ viewport: { width: 900, height: 600 } });
    const page = await context.newPage();
    const imageRe = new RegExp(p.imagePattern);
    const pending = new Set();
    page.on('console', (m) => { if (m.type() === 'error') r.errors.push('console: ' + m.text()); });
    page.on('pageerror', (e) => r.errors.push('pageerror: ' + e.message));
    page.on('requestfailed', (q) => {
      pending.delete(q.url());
      r.errors.push('requestfailed: ' + q.url() + ' ' + (q.failure() || {}).errorText);
    });
    page.on('request', (q) => { if (imageRe.test(q.url())) pending.add(q.url()); });
    page.on('response', (s) => {
      if (s.status() >= 400) r.errors.push('HTTP ' + s.status() + ' ' + s.url());
      if (imageRe.test(s.url())) {
        pending.delete(s.url());
        r.images.push({ url: s.url(), status: s.status(), type: s.headers()['content-type'] || '' });
      }
    });
    try {
      await page.goto(p.url, { waitUntil: 'load', timeout: 60000 });
      await page.waitForFunction(() => window.tesseraDone === true, null, { timeout: 120000, polling: 100 });
      // let the last images be decoded and composed
      await page.waitForTimeout(300);
      r.info = await page.evaluate(() => window.tesseraInfo || null);
      r.pending = [...pending];
      await page.locator('#map').screenshot({ path: p.screenshot });
    } catch (e) {
      r.errors.push('driver: ' + e.message);
      await page.screenshot({ path: p.screenshot }).catch(() => {});
    }
    results.push(r);
    await context.close();
  }
} finally {
  await browser.close();
}
process.stdout.write(JSON.stringify(results) + '\n');
