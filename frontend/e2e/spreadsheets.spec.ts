import { readFileSync } from 'node:fs';
import { type APIRequestContext, type Page, type Request, type WebSocketRoute, expect, test } from '@playwright/test';
import { expectBarChart } from './charts';
import { admin, apiToken, bearer, createEnterprise, createStaff, departmentId, signIn, signInInFrench } from './support';
import { settle } from './screens';
import { readXlsx, readXlsxFormulas } from './xlsx';

/**
 * The spreadsheet builder against the real server: a department user builds a workbook in the
 * grid (the IronCalc engine in the browser), it saves itself, downloads as XLSX with its formula,
 * comes back in through an import, and a range of it becomes a report whose chart shows its
 * figures; a save over someone else's is refused and kept as a copy; the CEO reads it.
 */

const runId = `${Date.now()}-${Math.random().toString(36).slice(2, 6)}`;
const ceo = { fullName: `Sheila Ceo ${runId}`, email: `sheets-ceo-${runId}@e2e.test`, password: 'ceo-password-1' };
const staff = { fullName: `Cal Culator ${runId}`, email: `sheets-user-${runId}@e2e.test`, password: 'user-password-1' };
const ids = { finance: '' };

test.beforeAll(async ({ request }) => {
  const adminToken = await apiToken(request, admin);
  const enterprise = await createEnterprise(request, adminToken, `Sheets ${runId}`, ceo);
  const ceoToken = await apiToken(request, ceo);
  ids.finance = await departmentId(request, ceoToken, enterprise, 'finance');
  await createStaff(request, ceoToken, staff, ids.finance);
});

const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const listPath = () => `/department/${ids.finance}/spreadsheet`;

/** Keys at a person's pace (25 ms each); typing at any speed is spreadsheet-typing.spec.ts's. */
const PACE = { delay: 25 };

/** A cell of the grid as its accessible table shows it (`B4`: the value as displayed). */
function cell(page: Page, ref: string) {
  const [, letters, digits] = /^([A-Z])(\d+)$/.exec(ref)!;
  // Column 0 of the grid is the row numbers.
  return page.getByTestId(`glide-cell-${letters.charCodeAt(0) - 64}-${Number(digits) - 1}`);
}

/** Moves the selection to a cell with the keyboard, from A1 (Ctrl+Home) as a user would. */
async function goTo(page: Page, ref: string) {
  const [, letters, digits] = /^([A-Z])(\d+)$/.exec(ref)!;
  await page.keyboard.press('Control+Home', PACE);
  for (let row = 1; row < Number(digits); row++) await page.keyboard.press('ArrowDown', PACE);
  for (let column = 1; column < letters.charCodeAt(0) - 64; column++) await page.keyboard.press('ArrowRight', PACE);
  await expect(page.getByTestId('cell-address')).toHaveText(ref);
}

/** Types into a cell as a user does: select it, type (which starts editing), Enter. */
async function typeInto(page: Page, ref: string, text: string) {
  await goTo(page, ref);
  await page.keyboard.type(text, PACE);
  await page.keyboard.press('Enter', PACE);
}

const saved = (page: Page) => expect(page.getByTestId('save-state')).toHaveAttribute('data-status', 'saved', { timeout: 15_000 });

async function openEditor(page: Page, name: string) {
  await page.goto(listPath());
  await page.getByRole('link', { name }).click();
  await expect(page.getByRole('heading', { level: 1, name })).toBeVisible();
  await expect(cell(page, 'A1')).toBeAttached({ timeout: 20_000 });
}

async function spreadsheetId(request: APIRequestContext, token: string, name: string): Promise<string> {
  const list = (await (await request.get(`/api/v1/departments/${ids.finance}/spreadsheets`, { headers: bearer(token) })).json()) as {
    items: { id: string; name: string }[];
  };
  return list.items.find((item) => item.name === name)!.id;
}

test.describe.configure({ mode: 'serial' });

test('a department user builds a workbook: typed figures and =SUM recompute, a pasted Excel range, and all of it is there after a reload', async ({ page }) => {
  await signIn(page, staff);
  await page.goto(listPath());
  await expect(page.getByRole('heading', { level: 1, name: 'Spreadsheets' })).toBeVisible();
  await expect(page.getByText('No spreadsheets yet')).toBeVisible();

  await page.getByRole('button', { name: 'New spreadsheet' }).first().click();
  const dialog = page.getByRole('dialog', { name: 'New spreadsheet' });
  await dialog.getByLabel(/^Name/).fill('Quarterly sales');
  await dialog.getByRole('button', { name: 'Create' }).click();
  await expect(page).toHaveURL(/\/spreadsheet\/[0-9a-f-]{36}$/);
  await expect(page.getByRole('heading', { level: 1, name: 'Quarterly sales' })).toBeVisible();
  await expect(cell(page, 'A1')).toBeAttached({ timeout: 20_000 });

  // The grid has the keyboard from the start: the first keys typed are not lost.
  await page.keyboard.type('Month', PACE);
  await page.keyboard.press('Tab', PACE);
  await page.keyboard.type('Sales', PACE);
  await page.keyboard.press('Enter', PACE);
  await expect(cell(page, 'A1')).toHaveText('Month');
  await expect(cell(page, 'B1')).toHaveText('Sales');

  await typeInto(page, 'A2', 'Jan');
  await typeInto(page, 'B2', '10');
  await typeInto(page, 'A3', 'Feb');
  await typeInto(page, 'B3', '32');
  await typeInto(page, 'A4', 'Total');
  await typeInto(page, 'B4', '=SUM(B2:B3)');
  await expect(cell(page, 'B4')).toHaveText('42');

  // An edit recomputes what depends on it.
  await typeInto(page, 'B2', '15');
  await expect(cell(page, 'B4')).toHaveText('47');

  // Undo and redo, from the keyboard.
  await page.keyboard.press('Control+z', PACE);
  await expect(cell(page, 'B4')).toHaveText('42');
  await page.keyboard.press('Control+y', PACE);
  await expect(cell(page, 'B4')).toHaveText('47');
  await page.keyboard.press('Control+z', PACE);
  await expect(cell(page, 'B4')).toHaveText('42');

  // Two rows copied in Excel (tab-separated, CRLF) pasted at D1.
  await goTo(page, 'D1');
  await page.evaluate((text) => {
    const data = new DataTransfer();
    data.setData('text/plain', text);
    document.activeElement!.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
  }, 'Mar\t20\r\nApr\t=E1+5\r\n');
  await expect(cell(page, 'D1')).toHaveText('Mar');
  await expect(cell(page, 'E2')).toHaveText('25');

  // Ctrl+C, Ctrl+V inside the grid: the formula moves with its cell, as in any spreadsheet.
  await goTo(page, 'B4');
  await page.keyboard.press('Control+c', PACE);
  await goTo(page, 'E4');
  await page.keyboard.press('Control+v', PACE);
  await expect(page.getByTestId('formula-bar')).toHaveValue('=SUM(E2:E3)');
  await expect(cell(page, 'E4')).toHaveText('25');
  await page.keyboard.press('Delete', PACE);
  await expect(cell(page, 'E4')).toHaveText('');

  // Bold from the toolbar, then the formula bar shows what B4 holds.
  await goTo(page, 'A1');
  await page.getByRole('button', { name: 'Bold (Ctrl+B)' }).click();
  await expect(page.getByRole('button', { name: 'Bold (Ctrl+B)' })).toHaveAttribute('aria-pressed', 'true');
  await goTo(page, 'B4');
  await expect(page.getByTestId('formula-bar')).toHaveValue('=SUM(B2:B3)');

  await saved(page);
  await expect(page.getByTestId('save-state')).toHaveText('All changes saved');
  await page.reload();
  await expect(cell(page, 'B4')).toHaveText('42', { timeout: 20_000 });
  await expect(cell(page, 'A1')).toHaveText('Month');
  await expect(cell(page, 'E2')).toHaveText('25');
  await goTo(page, 'B4');
  await expect(page.getByTestId('formula-bar')).toHaveValue('=SUM(B2:B3)');
  await goTo(page, 'A1');
  await expect(page.getByRole('button', { name: 'Bold (Ctrl+B)' })).toHaveAttribute('aria-pressed', 'true');
});

test('downloads the workbook as XLSX with its formula and value, and imports that file as a new spreadsheet', async ({ page }) => {
  await signIn(page, staff);
  await openEditor(page, 'Quarterly sales');

  await page.getByRole('button', { name: 'Download' }).click();
  const download = page.waitForEvent('download');
  await page.getByRole('menuitem', { name: 'Excel workbook (XLSX)' }).click();
  const file = await download;
  expect(file.suggestedFilename()).toBe('quarterly-sales.xlsx');
  const path = (await file.path())!;
  const book = readXlsx(path);
  expect(Object.keys(book)).toEqual(['Sheet1']);
  expect(book.Sheet1.slice(0, 4).map((row) => row.slice(0, 2))).toEqual([
    ['Month', 'Sales'],
    ['Jan', '10'],
    ['Feb', '32'],
    ['Total', '42'],
  ]);
  expect(readXlsxFormulas(path).Sheet1).toMatchObject({ B4: 'SUM(B2:B3)' });

  await page.goto(listPath());
  const chooser = page.waitForEvent('filechooser');
  await page.getByRole('button', { name: 'Import XLSX' }).click();
  await (await chooser).setFiles({ name: file.suggestedFilename(), mimeType: XLSX, buffer: readFileSync(path) });
  await expect(page).toHaveURL(/\/spreadsheet\/[0-9a-f-]{36}$/);
  await expect(page.getByRole('heading', { level: 1, name: 'quarterly-sales' })).toBeVisible();
  await expect(cell(page, 'B4')).toHaveText('42', { timeout: 20_000 });
  await expect(cell(page, 'A2')).toHaveText('Jan');
  await goTo(page, 'B4');
  await expect(page.getByTestId('formula-bar')).toHaveValue('=SUM(B2:B3)');

  await page.goto(listPath());
  await expect(page.getByTestId('spreadsheet-row')).toHaveCount(2);
});

test("a range becomes a report whose chart and table show the spreadsheet's figures", async ({ page }) => {
  await signIn(page, staff);
  await openEditor(page, 'Quarterly sales');

  await page.getByRole('button', { name: 'Use in a report' }).click();
  const dialog = page.getByRole('dialog', { name: 'Use in a report' });
  await dialog.getByLabel(/^Range/).fill('A1:B3');
  await dialog.getByLabel(/^Title/).fill(`Sales from the sheet ${runId}`);
  await dialog.getByLabel(/^Period start/).fill('2026-01-01');
  await dialog.getByLabel(/^Period end/).fill('2026-03-31');
  await dialog.getByRole('button', { name: 'Create report' }).click();

  await expect(page).toHaveURL(new RegExp(`/department/${ids.finance}/reports/[0-9a-f-]{36}$`));
  await expect(page.getByRole('heading', { level: 1, name: `Sales from the sheet ${runId}` })).toBeVisible();
  await expectBarChart(page.getByTestId('report-chart'), ['Jan', 'Feb'], { Jan: { Sales: 10 }, Feb: { Sales: 32 } });
  const table = page.getByTestId('report-table');
  await expect(table.getByRole('columnheader')).toHaveText(['Month', 'Sales']);
  await expect(table.getByRole('row')).toHaveText([/Month\s*Sales/, /Jan\s*10/, /Feb\s*32/]);
});

test("a range replaces a draft report's table", async ({ page, request }) => {
  const token = await apiToken(request, staff);
  const draft = await request.post(`/api/v1/departments/${ids.finance}/reports`, {
    headers: bearer(token),
    data: { title: `Draft ${runId}`, content: 'Figures to come.', periodStart: '2026-01-01', periodEnd: '2026-01-31' },
  });
  expect(draft.status(), await draft.text()).toBe(201);
  const draftId = ((await draft.json()) as { id: string }).id;

  await signIn(page, staff);
  await openEditor(page, 'Quarterly sales');
  await page.getByRole('button', { name: 'Use in a report' }).click();
  const dialog = page.getByRole('dialog', { name: 'Use in a report' });
  await dialog.getByLabel(/^Range/).fill('A1:B4');
  await dialog.getByText("A draft's table").click();
  await dialog.getByRole('combobox', { name: /^Draft report/ }).click();
  await page.getByRole('option', { name: `Draft ${runId}` }).click();
  await dialog.getByRole('button', { name: 'Update draft' }).click();

  await expect(page).toHaveURL(new RegExp(`/reports/${draftId}$`));
  const table = page.getByTestId('report-table');
  await expect(table.getByRole('row')).toHaveText([/Month\s*Sales/, /Jan\s*10/, /Feb\s*32/, /Total\s*42/]);
  await expectBarChart(page.getByTestId('report-chart'), ['Jan', 'Feb', 'Total'], {
    Jan: { Sales: 10 },
    Feb: { Sales: 32 },
    Total: { Sales: 42 },
  });
});

test('a save over a version someone saved since is refused, and the user keeps theirs as a copy', async ({ page, request }) => {
  await signIn(page, staff);
  await openEditor(page, 'Quarterly sales');

  // Someone else saves the spreadsheet meanwhile (the same content, a new version).
  const token = await apiToken(request, staff);
  const id = await spreadsheetId(request, token, 'Quarterly sales');
  const current = (await (await request.get(`/api/v1/spreadsheets/${id}`, { headers: bearer(token) })).json()) as { content: string; version: number };
  const other = await request.put(`/api/v1/spreadsheets/${id}`, { headers: bearer(token), data: { content: current.content, version: current.version } });
  expect(other.status(), await other.text()).toBe(200);

  await cell(page, 'A1').waitFor({ state: 'attached' });
  await page.keyboard.press('Control+Home', PACE);
  await typeInto(page, 'C1', 'Mine');
  const dialog = page.getByRole('dialog', { name: 'Someone else saved this spreadsheet' });
  await expect(dialog).toBeVisible({ timeout: 15_000 });
  await expect(page.getByTestId('save-state')).toHaveAttribute('data-status', 'conflict');
  await expect(dialog.getByRole('button', { name: 'Reload their version' })).toBeVisible();
  await dialog.getByRole('button', { name: 'Keep my version as a copy' }).click();

  await expect(page.getByRole('heading', { level: 1, name: 'Quarterly sales (my copy)' })).toBeVisible();
  await expect(page).not.toHaveURL(new RegExp(id));
  await expect(cell(page, 'C1')).toHaveText('Mine', { timeout: 20_000 });
  await expect(page.getByTestId('save-state')).toHaveAttribute('data-status', 'saved');

  // The original has the other save, without this change.
  await page.goto(listPath());
  await page.getByRole('link', { name: 'Quarterly sales', exact: true }).click();
  await expect(cell(page, 'B4')).toHaveText('42', { timeout: 20_000 });
  await expect(cell(page, 'C1')).toHaveText('');
});

test('the CEO opens the department spreadsheets read-only, in French', async ({ page }) => {
  await signInInFrench(page, ceo);

  await page.goto('/ceo');
  await page.getByRole('link', { name: 'Classeurs de Finance' }).click();
  await expect(page).toHaveURL(listPath());
  await expect(page.getByRole('heading', { level: 1, name: 'Classeurs' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Nouveau classeur' })).toHaveCount(0);
  await page.getByRole('link', { name: 'Quarterly sales', exact: true }).click();
  await expect(page.getByTestId('save-state')).toHaveText('Lecture seule');
  await expect(cell(page, 'B4')).toHaveText('42', { timeout: 20_000 });
  await expect(page.getByRole('toolbar', { name: 'Mise en forme' })).toHaveCount(0);

  // Typing changes nothing.
  await goTo(page, 'B2');
  await page.keyboard.type('99', PACE);
  await page.keyboard.press('Enter', PACE);
  await expect(cell(page, 'B2')).toHaveText('10');
  await expect(page.getByTestId('formula-bar')).toHaveAttribute('readonly', '');
});

test('in French at 1280 × 800 the editor fits the window: the toolbar is one row, the header one line, the page does not scroll', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await signInInFrench(page, staff);
  await page.goto(listPath());
  await page.getByRole('link', { name: 'Quarterly sales', exact: true }).click();
  await expect(cell(page, 'B4')).toHaveText('42', { timeout: 20_000 });
  // Saved: the state the editor rests in.
  await expect(page.getByTestId('save-state')).toHaveAttribute('data-status', 'saved');
  expect.soft(await page.getByTestId('save-state').innerText()).toBe('Modifications enregistrées');
  await settle(page);

  // The formatting toolbar: every control on one row.
  const toolbar = page.getByRole('toolbar', { name: 'Mise en forme' });
  const controls = toolbar.locator('button, input:not([type="hidden"])');
  const names = ['Annuler (Ctrl+Z)', 'Rétablir (Ctrl+Y)', 'Gras (Ctrl+B)', 'Italique (Ctrl+I)', 'Couleur du texte', 'Couleur de remplissage'];
  for (const name of [...names, 'Aligner à gauche', 'Centrer', 'Aligner à droite']) await expect(toolbar.getByRole('button', { name })).toBeVisible();
  await expect(toolbar.getByRole('combobox', { name: 'Format des nombres' })).toHaveValue('Standard');
  const boxes = await Promise.all((await controls.all()).map(async (control) => (await control.boundingBox())!));
  expect(boxes.length).toBeGreaterThanOrEqual(10);
  const middle = (box: { y: number; height: number }) => box.y + box.height / 2;
  for (const box of boxes) expect.soft(Math.abs(middle(box) - middle(boxes[0])), 'a toolbar control off the first row').toBeLessThanOrEqual(2);
  const tallest = Math.max(...boxes.map((box) => box.height));
  expect.soft((await toolbar.boundingBox())!.height, 'the toolbar is one row high').toBeLessThanOrEqual(tallest + 1);

  // The header's actions beside the title, not on a line of their own below it.
  const title = (await page.getByRole('heading', { level: 1, name: 'Quarterly sales' }).boundingBox())!;
  for (const action of [
    page.getByTestId('save-state'),
    page.getByRole('button', { name: 'Utiliser dans un rapport' }),
    page.getByRole('button', { name: 'Télécharger' }),
  ]) {
    const box = (await action.boundingBox())!;
    expect.soft(box.y, `${await action.innerText()}: below the title`).toBeLessThan(title.y + title.height);
  }

  // And the whole editor, its sheet tabs included, is in the window: nothing to scroll to.
  const scrolling = await page.evaluate(() => ({ height: document.scrollingElement!.scrollHeight, window: document.scrollingElement!.clientHeight }));
  expect(scrolling.height, 'the page scrolls').toBeLessThanOrEqual(scrolling.window);
  await expect(page.getByRole('tab', { name: 'Sheet1' })).toBeInViewport({ ratio: 1 });
});

/** Creates a spreadsheet from the list's "New spreadsheet" dialog; returns its id once its grid is up. */
async function createFromList(page: Page, name: string): Promise<string> {
  await expect(page.getByRole('heading', { level: 1, name: 'Spreadsheets' })).toBeVisible();
  await page.getByRole('button', { name: 'New spreadsheet' }).first().click();
  const dialog = page.getByRole('dialog', { name: 'New spreadsheet' });
  await dialog.getByLabel(/^Name/).fill(name);
  await dialog.getByRole('button', { name: 'Create' }).click();
  await expect(page).toHaveURL(/\/spreadsheet\/[0-9a-f-]{36}$/);
  await expect(page.getByRole('heading', { level: 1, name })).toBeVisible();
  await expect(cell(page, 'A1')).toBeAttached({ timeout: 20_000 });
  return /\/spreadsheet\/([0-9a-f-]{36})$/.exec(page.url())![1];
}

/**
 * A value typed as a person types it into the selected cell (`address`): a key every 40 ms, Enter,
 * then the grid shows it (`shown`: what a formula computes), which is when a person goes on.
 */
async function typeValue(page: Page, address: string, text: string, shown = text) {
  await page.keyboard.type(text, { delay: 40 });
  await page.keyboard.press('Enter');
  await expect(cell(page, address)).toHaveText(shown);
}

const isSave = (id: string) => (request: Request) => request.method() === 'PUT' && request.url().endsWith(`/api/v1/spreadsheets/${id}`);

/** The first sheet as the server has it (CSV export), one line per row. */
async function serverRows(request: APIRequestContext, token: string, id: string): Promise<string[]> {
  const response = await request.get(`/api/v1/spreadsheets/${id}/export?format=csv&sheet=Sheet1`, { headers: bearer(token) });
  expect(response.status(), await response.text()).toBe(200);
  return (await response.text()).split(/\r?\n/).filter((line) => line !== '');
}

/**
 * Closes the page as a user closing the tab does (beforeunload handlers run). Returns whether
 * the browser asked first; the question is dismissed (the user stays), so the page stays open.
 */
async function leavingAsks(page: Page): Promise<boolean> {
  const asked = page.waitForEvent('dialog').then(
    async (dialog) => {
      expect(dialog.type()).toBe('beforeunload');
      await dialog.dismiss();
      return true;
    },
    () => false, // the page closed without asking
  );
  await page.close({ runBeforeUnload: true });
  return asked;
}

test('typing in a new spreadsheet is saved within seconds of the last key, every time, and is there after a reload', async ({ page }) => {
  test.setTimeout(180_000);
  await signIn(page, staff);
  await page.goto(listPath());
  for (let round = 1; round <= 5; round++) {
    if (round > 1) await page.getByRole('link', { name: 'Back to the spreadsheets' }).click();
    const id = await createFromList(page, `Autosave ${round} ${runId}`);
    await typeValue(page, 'A1', '17');
    await typeValue(page, 'A2', '25');
    await page.keyboard.type('=SUM(A1:A2)*2', { delay: 40 });
    await page.keyboard.press('Enter');
    // Nothing is saved at the instant of a key (saves wait for a pause), so a save sent from now
    // on holds every value typed.
    const save = page.waitForRequest(isSave(id), { timeout: 10_000 });
    await expect(cell(page, 'A3')).toHaveText('84');
    // Fails after 10 s if no save went out.
    const answer = await (await save).response();
    expect(answer?.status(), `round ${round}`).toBe(200);
    await expect(page.getByTestId('save-state')).toHaveAttribute('data-status', 'saved');
    await expect(page.getByTestId('save-state')).toHaveText('All changes saved');

    await page.reload();
    await expect(cell(page, 'A3')).toHaveText('84', { timeout: 20_000 });
    await expect(cell(page, 'A1')).toHaveText('17');
    await expect(cell(page, 'A2')).toHaveText('25');
  }
});

test('leaving the page with unsaved typing never drops it silently: the browser asks, also while the save of an editor just left is on its way', async ({
  page,
  request,
}) => {
  test.setTimeout(120_000);
  const token = await apiToken(request, staff);
  await signIn(page, staff);
  await page.goto(listPath());

  // A value typed a moment ago waits for a pause before it is saved: closing the tab asks first.
  const typed = await createFromList(page, `Leaving ${runId}`);
  await page.keyboard.type('17', { delay: 40 });
  await page.keyboard.press('Enter');
  const asked = await leavingAsks(page);
  expect(asked || (await serverRows(request, token, typed)).includes('17'), 'neither asked nor saved before the page went').toBe(true);
  if (asked) {
    await expect(page.getByTestId('save-state')).toHaveAttribute('data-status', 'saved', { timeout: 15_000 });
    expect(await serverRows(request, token, typed)).toEqual(['17']);
  }
  if (page.isClosed()) {
    page = await page.context().newPage();
    await signIn(page, staff);
  }

  // Back to the list: the editor sends what is pending as it closes. While that save is on its
  // way (held in the page here, as a busy server holds it), closing the tab must ask: a request
  // still on its way when its page goes dies with it (and the server drops a save whose client
  // hung up while its engine checked the workbook).
  await page.goto(listPath());
  const left = await createFromList(page, `Left ${runId}`);
  await page.evaluate(() => {
    const send = window.fetch.bind(window);
    const slow = window as unknown as { held: number; release: () => void };
    const released = new Promise<void>((resolve) => (slow.release = resolve));
    slow.held = 0;
    window.fetch = async (input, init) => {
      if (init?.method === 'PUT') {
        slow.held += 1;
        await released;
      }
      return send(input, init);
    };
  });
  await typeValue(page, 'A1', '25');
  await page.getByRole('link', { name: 'Back to the spreadsheets' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Spreadsheets' })).toBeVisible();
  await expect.poll(() => page.evaluate(() => (window as unknown as { held: number }).held)).toBe(1);
  const askedAgain = await leavingAsks(page);
  if (askedAgain) await page.evaluate(() => (window as unknown as { release: () => void }).release());
  await expect.poll(() => serverRows(request, token, left), { message: askedAgain ? 'the save went on' : 'the page went without asking' }).toEqual(['25']);
});

test('the live socket reconnecting while the user types does not reopen the editor: what was typed stays, is saved, and nothing conflicts', async ({
  page,
}) => {
  test.setTimeout(90_000);
  // The page's socket goes through the test, which can drop it as the server does when it cannot
  // check the session (1013): the app reconnects, then reads again what it may have missed.
  const sockets: { page: WebSocketRoute; server: WebSocketRoute }[] = [];
  let ready = 0;
  await page.routeWebSocket(/\/api\/v1\/ws$/, (socket) => {
    const server = socket.connectToServer();
    server.onMessage((message) => {
      if (String(message).includes('"ready"')) ready += 1;
      socket.send(message);
    });
    sockets.push({ page: socket, server });
  });
  const refused: string[] = [];
  page.on('response', (response) => {
    if (response.status() === 409) refused.push(response.url());
  });
  await signIn(page, staff);
  await expect.poll(() => ready).toBe(1);
  await page.goto(listPath());
  await expect.poll(() => ready).toBe(2);
  const id = await createFromList(page, `Reconnect ${runId}`);

  const firstSave = page.waitForResponse((response) => isSave(id)(response.request()));
  await typeValue(page, 'A1', '17');
  expect((await firstSave).status()).toBe(200);
  await typeValue(page, 'A2', '25');

  const reread = page.waitForResponse((response) => response.url().includes('/api/v1/messaging/unread'));
  const { page: socket, server } = sockets.at(-1)!;
  await server.close();
  await socket.close({ code: 1013, reason: 'reconnect' });
  await expect.poll(() => ready, { timeout: 15_000 }).toBe(3);
  await reread;
  await expect(cell(page, 'A2')).toHaveText('25');
  await expect(cell(page, 'A1')).toHaveText('17');

  await typeValue(page, 'A3', '=SUM(A1:A2)*2', '84');
  await expect(page.getByTestId('save-state')).toHaveAttribute('data-status', 'saved', { timeout: 15_000 });
  expect(refused).toEqual([]);
  await page.reload();
  await expect(cell(page, 'A3')).toHaveText('84', { timeout: 20_000 });
  await expect(cell(page, 'A1')).toHaveText('17');
  await expect(cell(page, 'A2')).toHaveText('25');
});

for (const locale of ['en', 'fr'] as const) {
  test(`a failed import is said at the import, not in a toast over the page's actions, at 1280 and 800 px (${locale})`, async ({ page }) => {
    const words = {
      en: {
        create: 'New spreadsheet',
        import: 'Import XLSX',
        failed: 'Failed to import the file',
        unreadable: 'This file is not an Excel workbook (.xlsx) that can be read.',
      },
      fr: {
        create: 'Nouveau classeur',
        import: 'Importer un XLSX',
        failed: "Échec de l'importation du fichier",
        unreadable: "Ce fichier n'est pas un classeur Excel (.xlsx) lisible.",
      },
    }[locale];
    if (locale === 'fr') await signInInFrench(page, staff);
    else await signIn(page, staff);
    for (const width of [1280, 800]) {
      await page.setViewportSize({ width, height: 800 });
      await page.goto(listPath());
      const chooser = page.waitForEvent('filechooser');
      // Both the header and an empty list's message offer the import: the header's.
      await page.getByRole('button', { name: words.import }).first().click();
      await (await chooser).setFiles({ name: 'notes.xlsx', mimeType: XLSX, buffer: Buffer.from('these are notes, not a workbook') });
      const failure = page.getByRole('alert').filter({ hasText: words.failed });
      await expect(failure).toContainText(words.unreadable);
      // No toast: the page's actions take a click at once (a toast over them intercepted it).
      await expect(page.locator('.mantine-Notification-root')).toHaveCount(0);
      for (const action of [words.import, words.create]) {
        for (const button of await page.getByRole('button', { name: action }).all()) await button.click({ trial: true, timeout: 2000 });
      }
      await failure.getByRole('button').click();
      await expect(failure).toHaveCount(0);
    }
  });
}
