import { readFileSync } from 'node:fs';
import { type Browser, type Locator, type Page, expect, test } from '@playwright/test';
import { type Credentials, admin, apiToken, createEnterprise, createStaff, signIn, socketReady } from './support';

/**
 * System monitoring against the real server, which places sessions with MaxMind's test GeoIP
 * database (playwright.config.ts). A browser context "comes from" an address through
 * X-Forwarded-For, which the server trusts from the loopback proxy. The test database's places:
 */
const PLACES = {
  london: { ip: '81.2.69.142', text: 'London, United Kingdom' },
  linkoping: { ip: '89.160.20.112', text: 'Linköping, Sweden' },
  milton: { ip: '216.160.83.56', text: 'Milton, United States' },
  boxford: { ip: '2.125.160.216', text: 'Boxford, United Kingdom' },
} as const;

/** Unique per run, so that the suite can run again against the same database. */
const runId = `${Date.now()}-${Math.random().toString(36).slice(2, 6)}`;
type Person = Credentials & { fullName: string };
const person = (name: string, key: string): Person => ({ fullName: `${name} ${runId}`, email: `mon-${key}-${runId}@e2e.test`, password: `${key}-password-1` });

const acme = { name: `Monitored ${runId}`, ceo: person('Cleo Ceo', 'ceo-a') };
const globex = { name: `Elsewhere ${runId}`, ceo: person('Gil Ceo', 'ceo-b') };
const lena = person('Lena London', 'lena');
const lars = person('Lars Linkoping', 'lars');
const mia = person('Mia Milton', 'mia');
const bo = person('Bo Boxford', 'bo');
const bea = person('Bea Boxford', 'bea');
const gus = person('Gus Globex', 'gus');
/** Globex's traveller: Linköping, then London at once, a session with both flags. */
const fay = person('Fay Farflung', 'fay');

test.beforeAll(async ({ request }) => {
  const adminToken = await apiToken(request, admin);
  await createEnterprise(request, adminToken, acme.name, acme.ceo);
  await createEnterprise(request, adminToken, globex.name, globex.ceo);
  const acmeCeo = await apiToken(request, acme.ceo);
  for (const staff of [lena, lars, mia, bo, bea]) await createStaff(request, acmeCeo, staff);
  const globexCeo = await apiToken(request, globex.ceo);
  await createStaff(request, globexCeo, gus);
  await createStaff(request, globexCeo, fay);
  // Three of Acme's people are signed in somewhere; Bo and Bea sign in during the tests, in a browser.
  await apiToken(request, lena, PLACES.london.ip);
  await apiToken(request, lars, PLACES.linkoping.ip);
  await apiToken(request, mia, PLACES.milton.ip);
  await apiToken(request, gus, PLACES.milton.ip);
  await apiToken(request, fay, PLACES.linkoping.ip);
  await apiToken(request, fay, PLACES.london.ip);
});

/** A browser of its own, signed in as `who` from `ip`, with its real-time socket ready. */
async function signedInFrom(browser: Browser, who: Person, ip: string): Promise<Page> {
  const context = await browser.newContext({ extraHTTPHeaders: { 'X-Forwarded-For': ip } });
  const page = await context.newPage();
  const ready = socketReady(page);
  await signIn(page, who);
  await ready;
  return page;
}

const sessionRow = (page: Page, name: string) => page.getByTestId('session-row').filter({ hasText: name });

/** A place's marker, by the name it gives screen readers ("London, United Kingdom: 2 sessions"). */
const marker = (map: Locator, name: string) => map.getByRole('button', { name, exact: true });
/** The number drawn on a marker (its name is for screen readers only). */
const drawnCount = (marker: Locator) => marker.locator('[aria-hidden="true"]').first();

test("sessions show at their places on the CEO's map and in the table, and a new one appears live", async ({ page, browser }) => {
  // Everything works under the server's Content-Security-Policy: nothing refused.
  const refused: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) refused.push(message.text());
  });
  await signIn(page, acme.ceo);
  await page.goto('/ceo/monitoring');
  await expect(page.getByRole('heading', { level: 1, name: 'System monitoring' })).toBeVisible();

  for (const [who, place] of [
    [lena, PLACES.london],
    [lars, PLACES.linkoping],
    [mia, PLACES.milton],
  ] as const) {
    await expect(sessionRow(page, who.fullName)).toContainText(place.text);
    await expect(sessionRow(page, who.fullName)).toContainText(place.ip);
  }
  // Every live session of Acme's, counted per place: Lena, Lars and Mia at theirs, and the CEO's
  // two (beforeAll's and this browser's) from the loopback address, which has no place.
  const map = page.getByRole('region', { name: 'Map of the sessions' });
  const summary = page.getByTestId('map-summary');
  await expect(summary).toHaveText('5 sessions in 3 places');
  await expect(page.getByText('Showing 1–5 of 5')).toBeVisible();
  await expect(page.getByTestId('map-notes')).toHaveText('2 sessions have no known place (a private or unknown address) and are not on the map.');
  await expect(map.locator('.session-map-marker')).toHaveCount(3);
  await expect(drawnCount(marker(map, `${PLACES.london.text}: 1 session`))).toHaveText('1');
  await expect(marker(map, `${PLACES.linkoping.text}: 1 session`)).toBeVisible();
  await expect(marker(map, `${PLACES.milton.text}: 1 session`)).toBeVisible();
  // The offline base layer: Natural Earth's country outlines, drawn from the app's own file.
  await expect.poll(() => map.locator('.leaflet-overlay-pane path').count()).toBeGreaterThan(100);
  await expect(map).toContainText('Natural Earth');
  // The view fits the markers: every one of them is inside the map.
  const box = (await map.boundingBox())!;
  for (const icon of await map.locator('.leaflet-marker-icon').all()) {
    const at = (await icon.boundingBox())!;
    expect(at.x).toBeGreaterThanOrEqual(box.x);
    expect(at.y).toBeGreaterThanOrEqual(box.y);
    expect(at.x + at.width).toBeLessThanOrEqual(box.x + box.width);
    expect(at.y + at.height).toBeLessThanOrEqual(box.y + box.height);
  }

  // Opening Milton's marker lists its sessions in a side panel, which Escape closes.
  await marker(map, `${PLACES.milton.text}: 1 session`).click();
  const panel = page.getByRole('dialog', { name: `Sessions in ${PLACES.milton.text}` });
  await expect(panel.getByTestId('place-total')).toHaveText('1 session');
  await expect(panel.getByTestId('session-row')).toHaveCount(1);
  await expect(panel.getByTestId('session-row')).toContainText(mia.fullName);
  await expect(panel.getByTestId('session-row')).toContainText(PLACES.milton.ip);
  await page.keyboard.press('Escape');
  await expect(panel).toHaveCount(0);

  // Bo signs in from Boxford while the CEO watches: the row and the marker come without a reload.
  const boPage = await signedInFrom(browser, bo, PLACES.boxford.ip);
  await expect(sessionRow(page, bo.fullName)).toContainText(PLACES.boxford.text);
  await expect(sessionRow(page, bo.fullName)).toContainText(/Chrome [\d.]+ on \w+/);
  // Boxford is close to London: at this zoom they share a marker.
  await expect(summary).toHaveText('6 sessions in 3 places');
  await expect(drawnCount(marker(map, 'United Kingdom, several places: 2 sessions'))).toHaveText('2');
  await boPage.context().close();
  expect(refused).toEqual([]);
});

test('a place close to another shares its marker until the map zooms in; the user filter searches as one types and narrows map and table; in English and French', async ({
  page,
}) => {
  // Bo's session in Boxford (the first test's) is some 80 km from Lena's in London.
  await signIn(page, acme.ceo);
  await page.goto(`/ceo/monitoring?q=${encodeURIComponent(runId)}`);
  const map = page.getByRole('region', { name: 'Map of the sessions' });
  const summary = page.getByTestId('map-summary');
  await expect(map.locator('.session-map-marker').first()).toBeVisible();

  // The whole world (zoom 1): London and Boxford are one cell of the grid, one marker for both.
  await expect(async () => {
    await map.getByRole('button', { name: 'Zoom out' }).click();
    await expect(map).toHaveAttribute('data-zoom', '1', { timeout: 1000 });
  }).toPass();
  const together = marker(map, 'United Kingdom, several places: 2 sessions');
  await expect(drawnCount(together)).toHaveText('2');
  // Opening it zooms in on it (three levels at a time) until they come apart; then each lists its own sessions.
  await together.click();
  await expect(map).toHaveAttribute('data-zoom', '4');
  await marker(map, 'United Kingdom, several places: 2 sessions').click();
  await expect(map).toHaveAttribute('data-zoom', '7');
  await expect(marker(map, `${PLACES.london.text}: 1 session`)).toBeVisible();
  await marker(map, `${PLACES.boxford.text}: 1 session`).press('Enter');
  const panel = page.getByRole('dialog', { name: `Sessions in ${PLACES.boxford.text}` });
  await expect(panel.getByTestId('session-row')).toHaveCount(1);
  await expect(panel.getByTestId('session-row')).toContainText(bo.fullName);
  await panel.getByRole('button', { name: 'Close' }).click();
  await expect(panel).toHaveCount(0);

  // The user filter asks the server as one types part of a name.
  const userFilter = page.getByRole('combobox', { name: 'User' });
  await userFilter.fill('Lars Link');
  await page.getByRole('option', { name: lars.fullName }).click();
  await expect(page).toHaveURL(/userId=/);
  await expect(page.getByTestId('session-row')).toHaveCount(1);
  await expect(sessionRow(page, lars.fullName)).toContainText(PLACES.linkoping.text);
  await expect(summary).toHaveText('1 session in 1 place');
  await expect(map.locator('.session-map-marker')).toHaveCount(1);
  await expect(marker(map, `${PLACES.linkoping.text}: 1 session`)).toBeVisible();
  await userFilter.fill('nobody by this name');
  await expect(page.getByText('No user matches')).toBeVisible();

  // In French: the same map, its counts and its panel.
  await page.evaluate(() => window.localStorage.setItem('locale', 'fr'));
  await page.reload();
  await expect(summary).toHaveText('1 session dans 1 lieu');
  await expect(page.getByRole('combobox', { name: 'Utilisateur' })).toHaveValue(lars.fullName);
  await marker(page.getByRole('region', { name: 'Carte des sessions' }), 'Linköping, Suède\u00a0: 1 session').click();
  const panneau = page.getByRole('dialog', { name: 'Sessions à Linköping, Suède' });
  await expect(panneau.getByTestId('place-total')).toHaveText('1 session');
  await expect(panneau.getByTestId('session-row')).toContainText(lars.fullName);
  await page.keyboard.press('Escape');
  await expect(panneau).toHaveCount(0);
  await page.evaluate(() => window.localStorage.setItem('locale', 'en'));
});

test('the CEO logs a session out from the screen, after a confirmation naming the user, and that browser lands on /login at once', async ({
  page,
  browser,
}) => {
  const beaPage = await signedInFrom(browser, bea, PLACES.boxford.ip);
  await signIn(page, acme.ceo);
  await page.goto('/ceo/monitoring');

  const row = sessionRow(page, bea.fullName);
  await row.getByRole('button', { name: new RegExp(`^Actions for the session of ${bea.fullName}`) }).click();
  await page.getByRole('menuitem', { name: 'Log out session' }).click();
  const dialog = page.getByRole('dialog', { name: 'Log out session' });
  await expect(dialog).toContainText(`Log out ${bea.fullName} (${bea.email})`);
  await expect(dialog).toContainText(PLACES.boxford.text);
  await dialog.getByRole('button', { name: 'Log out session' }).click();
  await expect(page.getByText(`The session of ${bea.fullName} was logged out.`)).toBeVisible();

  await expect(beaPage).toHaveURL(/\/login$/, { timeout: 5000 });
  await expect(beaPage.getByText('Your session was ended. Please sign in again.')).toBeVisible();
  // The screen shows live sessions by default: the ended one leaves the table.
  await expect(row).toHaveCount(0);
  await beaPage.context().close();
});

test("the admin sees every enterprise's sessions, with the enterprise; a CEO only their own", async ({ page, browser }) => {
  await signIn(page, admin);
  await page.goto(`/admin/monitoring?q=${encodeURIComponent(runId)}`);
  await expect(sessionRow(page, lena.fullName).first()).toContainText(acme.name);
  await expect(sessionRow(page, gus.fullName)).toContainText(globex.name);
  await expect(sessionRow(page, gus.fullName)).toContainText(PLACES.milton.text);

  const enterprise = page.getByRole('combobox', { name: 'Enterprise' });
  await enterprise.fill(globex.name);
  await page.getByRole('option', { name: globex.name }).click();
  await expect(sessionRow(page, lena.fullName)).toHaveCount(0);
  await expect(sessionRow(page, gus.fullName)).toHaveCount(1);
  await expect(page.getByTestId('session-row').filter({ hasNotText: globex.name })).toHaveCount(0);

  // The CEO, in a browser of their own.
  const ceoPage = await (await browser.newContext()).newPage();
  await signIn(ceoPage, acme.ceo);
  await ceoPage.goto(`/ceo/monitoring?q=${encodeURIComponent(runId)}`);
  await expect(sessionRow(ceoPage, lena.fullName).first()).toBeVisible();
  await expect(sessionRow(ceoPage, gus.fullName)).toHaveCount(0);
  await expect(ceoPage.getByRole('columnheader', { name: 'Enterprise' })).toHaveCount(0);
  // Guarded both ways: the CEO's monitoring is not the admin's.
  await ceoPage.goto('/admin/monitoring');
  await expect(ceoPage).toHaveURL(/\/ceo$/);
  await ceoPage.context().close();
});

test('"Your sessions" lists the user\'s sessions with this one marked, follows sign-ins and sign-outs elsewhere live, and ending another signs that browser out', async ({
  browser,
}) => {
  const inLinkoping = await signedInFrom(browser, lars, PLACES.linkoping.ip);
  const inLondon = await signedInFrom(browser, lars, PLACES.london.ip);

  await inLinkoping.getByRole('button', { name: /^Account menu/ }).click();
  await inLinkoping.getByRole('menuitem', { name: 'Your sessions' }).click();
  const dialog = inLinkoping.getByRole('dialog', { name: 'Your sessions' });
  const entries = dialog.getByTestId('your-session');
  // Lars's sessions: the one from beforeAll (API, Linköping) and these two browsers.
  await expect(entries).toHaveCount(3);
  const here = entries.filter({ has: inLinkoping.getByTestId('current-session') });
  await expect(here).toHaveCount(1);
  await expect(here).toContainText('This device');
  await expect(here).toContainText(PLACES.linkoping.text);
  await expect(here).toContainText(/Chrome [\d.]+ on \w+/);
  await expect(entries.first()).toContainText('This device');

  // A sign-in elsewhere appears while the list is open (own_sessions.changed), with no reload.
  const another = await signedInFrom(browser, lars, PLACES.linkoping.ip);
  await expect(entries).toHaveCount(4);

  await dialog.getByRole('button', { name: new RegExp(`^End session on .* in ${PLACES.london.text}$`) }).click();
  await expect(inLondon).toHaveURL(/\/login$/, { timeout: 5000 });
  await expect(inLondon.getByText('Your session was ended. Please sign in again.')).toBeVisible();
  await expect(entries).toHaveCount(3);
  // Its line is gone, and the dialog says so itself (toasts lie under dialogs).
  await expect(entries.filter({ hasText: PLACES.london.text })).toHaveCount(0);
  await expect(dialog.getByRole('status').filter({ hasText: `in ${PLACES.london.text} was ended.` })).toBeVisible();
  // Signing out in another browser takes its line away too.
  await another.getByRole('button', { name: /^Account menu/ }).click();
  await another.getByRole('menuitem', { name: 'Sign out' }).click();
  await expect(entries).toHaveCount(2);
  await inLinkoping.context().close();
  await inLondon.context().close();
  await another.context().close();
});

type Messages = { [key: string]: string | Messages };
const messages = {
  en: JSON.parse(readFileSync(new URL('../src/i18n/locales/en.json', import.meta.url), 'utf8')) as Messages,
  fr: JSON.parse(readFileSync(new URL('../src/i18n/locales/fr.json', import.meta.url), 'utf8')) as Messages,
};
const message = (language: keyof typeof messages, key: string) =>
  key.split('.').reduce<string | Messages>((node, part) => (node as Messages)[part], messages[language]) as string;

/**
 * How an element's text is laid out: its visible characters (spaces left out), each with the
 * number of the line it is drawn on; where each line starts; and where the table cell the element
 * is in (if any) starts its content.
 */
function laidOut(element: Locator): Promise<{ text: string; lines: number[]; starts: number[]; cellStart: number | null }> {
  return element.evaluate((root) => {
    const chars: { char: string; top: number; height: number; left: number }[] = [];
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    while (walker.nextNode()) {
      const node = walker.currentNode as Text;
      for (let i = 0; i < node.data.length; i += 1) {
        if (/\s/.test(node.data[i])) continue;
        const range = document.createRange();
        range.setStart(node, i);
        range.setEnd(node, i + 1);
        const rect = range.getBoundingClientRect();
        if (rect.width > 0) chars.push({ char: node.data[i], top: rect.top, height: rect.height, left: rect.left });
      }
    }
    const lines: number[] = [];
    const starts: number[] = [];
    chars.forEach((char, i) => {
      const line = i === 0 ? 0 : char.top > chars[i - 1].top + chars[i - 1].height / 2 ? lines[i - 1] + 1 : lines[i - 1];
      if (i === 0 || line !== lines[i - 1]) starts.push(char.left);
      lines.push(line);
    });
    const cell = root.closest('td');
    const cellStart = cell ? cell.getBoundingClientRect().left + parseFloat(getComputedStyle(cell).paddingLeft) : null;
    return { text: chars.map((char) => char.char).join(''), lines, starts, cellStart };
  });
}

/**
 * The sessions table at this width: whole (no sideways scrolling, every header cell in view),
 * e-mail addresses broken only after the "@" or before a dot, dates on two lines at most.
 */
async function expectTableWhole(page: Page, language: keyof typeof messages, emails: readonly string[]) {
  const table = page.locator('table').filter({ has: page.getByTestId('session-row') });
  const layout = await table.evaluate((element) => {
    let scroller: HTMLElement | null = element.parentElement;
    while (scroller && getComputedStyle(scroller).overflowX === 'visible') scroller = scroller.parentElement;
    const box = (scroller ?? element).getBoundingClientRect();
    return {
      scrollWidth: scroller?.scrollWidth ?? 0,
      clientWidth: scroller?.clientWidth ?? 0,
      pageScrollWidth: document.documentElement.scrollWidth,
      pageClientWidth: document.documentElement.clientWidth,
      box: { left: box.left, right: box.right },
      headers: [...element.querySelectorAll('thead th')].map((th) => {
        const rect = th.getBoundingClientRect();
        return { name: th.textContent ?? '', left: rect.left, right: rect.right };
      }),
    };
  });
  expect(layout.scrollWidth, 'the table does not scroll sideways').toBeLessThanOrEqual(layout.clientWidth);
  expect(layout.pageScrollWidth).toBeLessThanOrEqual(layout.pageClientWidth);
  for (const header of layout.headers) {
    expect(header.left, `"${header.name}" starts in view`).toBeGreaterThanOrEqual(layout.box.left - 0.5);
    expect(header.right, `"${header.name}" ends in view`).toBeLessThanOrEqual(layout.box.right + 0.5);
  }
  const names = layout.headers.map((header) => header.name);
  expect(names).toContain(message(language, 'monitoring.fields.flags'));
  expect(names).toContain(message(language, 'common.actions'));

  for (const email of emails) {
    const { text, lines } = await laidOut(page.getByTestId('session-row').filter({ hasText: email }).first().locator('td').first());
    const at = text.indexOf(email);
    expect(at, `${email} is in its row`).toBeGreaterThanOrEqual(0);
    for (let i = at + 1; i < at + email.length; i += 1) {
      if (lines[i] !== lines[i - 1]) expect(`${text[i - 1]}|${text[i]}`, `${email} breaks after "@" or before "." only`).toMatch(/^@\||\|\.$/);
    }
  }

  for (const key of ['monitoring.fields.started', 'monitoring.fields.lastSeen']) {
    const column = names.indexOf(message(language, key)) + 1;
    expect(column, key).toBeGreaterThan(0);
    for (const cell of await page.locator(`[data-testid="session-row"] > td:nth-child(${column})`).all()) {
      const { text, lines } = await laidOut(cell);
      expect(new Set(lines).size, `"${text}" takes two lines at most`).toBeLessThanOrEqual(2);
    }
  }
}

test("at a laptop's width the sessions table is whole, in English and French, for the admin and a CEO", async ({ page, browser }) => {
  // Five screens measured at two widths in two languages: more than the default 30 s on a busy machine.
  test.setTimeout(90_000);
  await signIn(page, admin);
  const adminScreen = `/admin/monitoring?q=${encodeURIComponent(runId)}`;
  const adminEmails = [lena.email, fay.email, gus.email];
  for (const width of [1280, 1440]) {
    await page.setViewportSize({ width, height: 800 });
    await page.goto(adminScreen);
    // Every column holds its content: the enterprise's name, and Fay's two flags.
    const flagged = sessionRow(page, fay.fullName).filter({ hasText: PLACES.london.ip });
    await expect(flagged).toContainText(globex.name);
    await expect(flagged.getByTestId('session-flag')).toHaveCount(2);
    await expectTableWhole(page, 'en', adminEmails);
  }

  await page.setViewportSize({ width: 1280, height: 800 });
  await page.evaluate(() => window.localStorage.setItem('locale', 'fr'));
  await page.goto(adminScreen);
  await expect(page.getByRole('heading', { level: 1, name: 'Supervision du système' })).toBeVisible();
  await expect(sessionRow(page, fay.fullName).filter({ hasText: PLACES.london.ip }).getByTestId('session-flag')).toHaveCount(2);
  await expectTableWhole(page, 'fr', adminEmails);

  const ceoPage = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
  await signIn(ceoPage, acme.ceo);
  for (const language of ['en', 'fr'] as const) {
    await ceoPage.evaluate((locale) => window.localStorage.setItem('locale', locale), language);
    await ceoPage.goto(`/ceo/monitoring?q=${encodeURIComponent(runId)}`);
    await expect(sessionRow(ceoPage, lena.fullName).first()).toBeVisible();
    await expectTableWhole(ceoPage, language, [lena.email, mia.email]);
  }
  await ceoPage.context().close();
});

test('"Activity per user" starts a long name\'s every line where its cell does, and breaks an e-mail address only after the "@" or before a dot; the sessions table keeps no column wider than its content; in English and French, at 1280 and 800 px', async ({
  page,
  request,
}) => {
  // An enterprise of its own, out of the other tests' filter (their run id is not in its names).
  const tag = `wrap${Math.random().toString(36).slice(2, 8)}`;
  const ceo = { fullName: `Wren Ceo ${tag}`, email: `mon-wren-${tag}@e2e.test`, password: 'wren-password-1' };
  const long = {
    fullName: `Maximilienne-Éléonore de La Tour d’Auvergne-Lauraguais ${tag}`,
    email: `maximilienne.de-la-tour-dauvergne-${tag}@subsidiary.long-enterprise-name.e2e.test`,
    password: 'long-password-1',
  };
  await createEnterprise(request, await apiToken(request, admin), `Wrapping ${tag}`, ceo);
  await createStaff(request, await apiToken(request, ceo), long);
  await apiToken(request, long, PLACES.london.ip);
  await signIn(page, ceo);
  for (const language of ['en', 'fr'] as const) {
    for (const width of [1280, 800]) {
      await page.setViewportSize({ width, height: 900 });
      await page.evaluate((locale) => window.localStorage.setItem('locale', locale), language);
      await page.goto(`/ceo/monitoring?q=${tag}`);
      const row = page.getByTestId('activity-row').filter({ hasText: long.email });
      await expect(row).toBeVisible();
      const { starts, cellStart } = await laidOut(row.getByRole('button', { name: long.fullName }));
      if (width === 800) expect(starts.length, `the name wraps at ${width} px (${language})`).toBeGreaterThan(1);
      for (const [line, start] of starts.entries()) {
        expect(Math.abs(start - cellStart!), `line ${line + 1} of the name starts where the cell does (${width} px, ${language})`).toBeLessThan(1.5);
      }
      const { text, lines } = await laidOut(row.locator('td').first().locator('p').filter({ hasText: long.email }));
      expect(text).toBe(long.email);
      if (width === 800) expect(new Set(lines).size, `the address wraps at ${width} px`).toBeGreaterThan(1);
      for (let i = 1; i < text.length; i += 1) {
        if (lines[i] !== lines[i - 1]) expect(`${text[i - 1]}|${text[i]}`, `${long.email} breaks after "@" or before "." only`).toMatch(/^@\||\|\.$/);
      }
      // The sessions table gives no column room it has nothing to put in (the walk saw an empty
      // gap before the row menu while addresses wrapped): each column is as wide as its widest
      // content, header included, and its cell padding.
      const slack = await page
        .locator('table')
        .filter({ has: page.getByTestId('session-row').filter({ hasText: long.fullName }) })
        .evaluate((table) => {
          const rows = [...table.querySelectorAll('tr')].map((tr) => [...tr.children] as HTMLElement[]);
          return rows[0].map((head, column) => {
            const cells = rows.map((row) => row[column]).filter(Boolean);
            const widest = Math.max(
              ...cells.map((cell) => {
                const range = document.createRange();
                range.selectNodeContents(cell);
                // A visually hidden header (the row menu's) is 1 px: it takes no room.
                return [...range.getClientRects()].reduce((right, box) => Math.max(right, box.right), 0) - cell.getBoundingClientRect().left;
              }),
            );
            const padding = parseFloat(getComputedStyle(head).paddingRight);
            return { column, slack: Math.round(head.getBoundingClientRect().width - widest - padding) };
          });
        });
      expect(
        slack.filter(({ slack }) => slack > 2),
        `columns of the sessions table wider than their content at ${width} px (${language})`,
      ).toEqual([]);
    }
  }
  await page.evaluate(() => window.localStorage.removeItem('locale'));
});

test('the map says it is loading until its outlines are drawn, and one session is not zoomed into blocks', async ({ page }) => {
  await signIn(page, admin);
  // The outlines come late: the map says so meanwhile, in place of a blank box.
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  await page.route(/countries-110m[^/]*\.json$/, async (route) => {
    await released;
    await route.continue();
  });
  // Gus alone: one session, in Milton.
  await page.goto(`/admin/monitoring?q=${encodeURIComponent(gus.fullName)}`);
  const loading = page.getByRole('status').filter({ hasText: 'Loading the map' });
  await expect(loading).toBeVisible();
  const map = page.getByRole('region', { name: 'Map of the sessions' });
  await expect(map).toBeVisible();
  await expect(loading).toBeVisible();
  release();
  await expect(loading).toHaveCount(0);
  await expect.poll(() => map.locator('.leaflet-overlay-pane path').count()).toBeGreaterThan(100);

  // The view fits the one marker, but stops at a regional view: the 1:110m outlines say nothing closer in.
  await expect(map.locator('.session-map-marker')).toHaveCount(1);
  await expect(map).toHaveAttribute('data-zoom', /^\d+(\.\d+)?$/);
  const zoom = Number(await map.getAttribute('data-zoom'));
  expect(zoom).toBeLessThanOrEqual(5);
  expect(zoom).toBeGreaterThanOrEqual(3);

  // In French, the same notice in French.
  await page.evaluate(() => window.localStorage.setItem('locale', 'fr'));
  await page.unroute(/countries-110m[^/]*\.json$/);
  let releaseFr: () => void = () => {};
  const releasedFr = new Promise<void>((resolve) => (releaseFr = resolve));
  await page.route(/countries-110m[^/]*\.json$/, async (route) => {
    await releasedFr;
    await route.continue();
  });
  await page.reload();
  const chargement = page.getByRole('status').filter({ hasText: 'Chargement de la carte' });
  await expect(chargement).toBeVisible();
  releaseFr();
  await expect(chargement).toHaveCount(0);
});
