// The monitoring screen at platform scale, in a browser (issue 28), run by bench/places.sh once
// its sessions are in: Debian's Chromium, headless, through Playwright. For the admin and for a
// CEO, RUNS times each: load /<role>/monitoring afresh in a signed-in tab and time until the map's
// summary is drawn ("N sessions in M places") with its markers, and until the sessions table
// shows its first row. Prints one table row per screen: p50 and max in ms.
//
//   BASE, ADMIN_EMAIL, ADMIN_PASSWORD, CEO_EMAIL, CEO_PASSWORD, RUNS (default 5)
import { createRequire } from 'node:module';

const require = createRequire(new URL('../frontend/package.json', import.meta.url));
const { chromium } = require('@playwright/test');

const base = process.env.BASE;
const runs = Number(process.env.RUNS ?? 5);

async function signIn(page, email, password) {
  await page.goto(`${base}/login`);
  await page.getByLabel(/^Email/).fill(email);
  await page.getByLabel(/^Password/).fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(/\/dashboard$/, { timeout: 30_000 });
}

async function measure(browser, label, email, password, path) {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, locale: 'en-GB' });
  const page = await context.newPage();
  await signIn(page, email, password);
  const map = [];
  const table = [];
  let summary = '';
  let markers = 0;
  for (let run = 0; run < runs; run++) {
    // A cold start of the web app on that page, as when it is opened or reloaded.
    await page.goto('about:blank');
    const start = Date.now();
    await page.goto(`${base}${path}`);
    await page.getByTestId('map-summary').filter({ hasText: / in \d/ }).waitFor({ timeout: 60_000 });
    await page.locator('.leaflet-marker-icon').first().waitFor({ timeout: 60_000 });
    map.push(Date.now() - start);
    await page.getByRole('table', { name: /^Sessions/ }).locator('tbody tr').first().waitFor({ timeout: 60_000 });
    table.push(Date.now() - start);
    summary = await page.getByTestId('map-summary').innerText();
    markers = await page.locator('.leaflet-marker-icon').count();
  }
  await context.close();
  const p50 = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const max = (xs) => Math.max(...xs);
  console.log(`| ${label} | ${runs} | ${p50(map)} | ${max(map)} | ${p50(table)} | ${max(table)} | ${summary.replace(/\s+/g, ' ')}; ${markers} markers |`);
}

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
});
try {
  console.log('| screen | runs | map drawn p50 ms | max ms | table drawn p50 ms | max ms | what it showed |');
  console.log('|---|---|---|---|---|---|---|');
  await measure(browser, 'admin, /admin/monitoring', process.env.ADMIN_EMAIL, process.env.ADMIN_PASSWORD, '/admin/monitoring');
  await measure(browser, 'CEO, /ceo/monitoring', process.env.CEO_EMAIL, process.env.CEO_PASSWORD, '/ceo/monitoring');
} finally {
  await browser.close();
}
