import { readFileSync } from 'node:fs';
import { type APIRequestContext, type Page, expect, test } from '@playwright/test';
import { expectBarChart } from './charts';
import { admin, apiToken, bearer, createEnterprise, signIn } from './support';
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
  const departments = (await (await request.get(`/api/v1/enterprises/${enterprise}/departments`, { headers: bearer(ceoToken) })).json()) as {
    id: string;
    type: string;
  }[];
  ids.finance = departments.find((department) => department.type === 'finance')!.id;
  const created = await request.post('/api/v1/users', {
    headers: bearer(ceoToken),
    data: { fullName: staff.fullName, email: staff.email, password: staff.password, role: 'DepartmentUser', departmentId: ids.finance },
  });
  expect(created.status(), await created.text()).toBe(201);
});

const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const listPath = () => `/department/${ids.finance}/spreadsheet`;

/**
 * Keys at a person's pace (25 ms each). Sent with no pause at all, a key that follows Tab or
 * Enter in the same instant reaches the cell editor that is closing, which no typist can do.
 */
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
  await page.addInitScript(() => window.localStorage.setItem('locale', 'fr'));
  await page.goto('/login');
  await page.getByLabel(/^E-mail/).fill(ceo.email);
  await page.getByLabel(/^Mot de passe/).fill(ceo.password);
  await page.getByRole('button', { name: 'Se connecter' }).click();
  await expect(page).toHaveURL(/\/dashboard$/);

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
