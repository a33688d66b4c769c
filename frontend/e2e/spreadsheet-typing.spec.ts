import { type APIRequestContext, type Page, expect, test } from '@playwright/test';
import { admin, apiToken, bearer, createEnterprise, createStaff, departmentId, signIn } from './support';

/**
 * Typing a table into a new spreadsheet as fast as keys come (issue 27): every key lands in the
 * cell selected when it was typed, Tab moves right, Enter goes to the next row under the cell
 * where that row's typing began (as in Excel or LibreOffice), and the saved workbook holds exactly
 * what was typed. Before the fix, a key that followed Tab or Enter within a few tens of
 * milliseconds went into the cell being left ("MonthalesJan10…") while the header said saved.
 */

const runId = `${Date.now()}-${Math.random().toString(36).slice(2, 6)}`;
const ceo = { fullName: `Tina Typist Ceo ${runId}`, email: `typing-ceo-${runId}@e2e.test`, password: 'ceo-password-1' };
const staff = { fullName: `Tom Typist ${runId}`, email: `typing-user-${runId}@e2e.test`, password: 'user-password-1' };
const ids = { finance: '' };

test.beforeAll(async ({ request }) => {
  const adminToken = await apiToken(request, admin);
  const enterprise = await createEnterprise(request, adminToken, `Typing ${runId}`, ceo);
  const ceoToken = await apiToken(request, ceo);
  ids.finance = await departmentId(request, ceoToken, enterprise, 'finance');
  await createStaff(request, ceoToken, staff, ids.finance);
});

const TABLE = 'Month\tSales\nJan\t10\nFeb\t20\n';
const TYPED = { A1: 'Month', B1: 'Sales', A2: 'Jan', B2: '10', A3: 'Feb', B3: '20' };
/** The cells around the table stay empty: nothing typed went anywhere else. */
const AROUND = { C1: '', D1: '', C2: '', D2: '', C3: '', D3: '', A4: '', B4: '', C4: '', D4: '' };

/** A cell of the grid as its accessible table shows it (`B3`: the value as displayed). */
function cell(page: Page, ref: string) {
  const [, letters, digits] = /^([A-Z])(\d+)$/.exec(ref)!;
  // Column 0 of the grid is the row numbers.
  return page.getByTestId(`glide-cell-${letters.charCodeAt(0) - 64}-${Number(digits) - 1}`);
}

/** A1:D4 as the server reads it from the saved workbook. */
async function savedCells(request: APIRequestContext, token: string, id: string): Promise<Record<string, string>> {
  const response = await request.get(`/api/v1/spreadsheets/${id}/range?range=A1:D4`, { headers: bearer(token) });
  expect(response.status(), await response.text()).toBe(200);
  const { columns, rows } = (await response.json()) as { columns: string[]; rows: unknown[][] };
  const table = [columns, ...rows];
  const cells: Record<string, string> = {};
  table.forEach((row, index) => row.forEach((value, column) => (cells[`${'ABCD'[column]}${index + 1}`] = value === null ? '' : String(value))));
  return cells;
}

const keyOf = (char: string) => (char === '\t' ? 'Tab' : char === '\n' ? 'Enter' : char);

/**
 * Types text key by key, `delay` ms from one key to the next (`\t` presses Tab, `\n` Enter:
 * `keyboard.type` would insert a tab as text, Tab not being one of its keys). Each key waits for
 * the page to have taken the one before.
 */
async function typeKeys(page: Page, text: string, delay: number) {
  for (const char of text) await page.keyboard.press(keyOf(char), { delay });
}

/**
 * Sends every key at once, without waiting for the page to take any: the keys queue up and the
 * page takes them one after another, as it does keys typed while it was busy, or a paste-like
 * burst (a text expander, a barcode scanner). The grid's own editor ended an edit on a timer,
 * which these keys all came before.
 */
async function burstKeys(page: Page, text: string) {
  const cdp = await page.context().newCDPSession(page);
  const sent: Promise<unknown>[] = [];
  for (const char of text) {
    const key = keyOf(char);
    const [code, keyCode, typed] =
      key === 'Tab'
        ? ['Tab', 9, undefined]
        : key === 'Enter'
          ? ['Enter', 13, '\r']
          : /\d/.test(char)
            ? [`Digit${char}`, char.charCodeAt(0), char]
            : [`Key${char.toUpperCase()}`, char.toUpperCase().charCodeAt(0), char];
    const event = { key, code, windowsVirtualKeyCode: keyCode };
    sent.push(cdp.send('Input.dispatchKeyEvent', { ...event, type: typed ? 'keyDown' : 'rawKeyDown', text: typed, unmodifiedText: typed }));
    sent.push(cdp.send('Input.dispatchKeyEvent', { ...event, type: 'keyUp' }));
  }
  await Promise.all(sent);
  await cdp.detach();
}

/** What a cell holds, as the formula bar shows it once the cell is selected with the keyboard. */
async function input(page: Page, ref: string): Promise<string> {
  const [, letters, digits] = /^([A-Z])(\d+)$/.exec(ref)!;
  await page.keyboard.press('Control+Home');
  for (let row = 1; row < Number(digits); row++) await page.keyboard.press('ArrowDown');
  for (let column = 1; column < letters.charCodeAt(0) - 64; column++) await page.keyboard.press('ArrowRight');
  await expect(page.getByTestId('cell-address')).toHaveText(ref);
  return page.getByTestId('formula-bar').inputValue();
}

const SPEEDS = [
  { name: 'in one burst of keys', type: (page: Page) => burstKeys(page, TABLE) },
  { name: 'key after key with no pause', type: (page: Page) => typeKeys(page, TABLE, 0) },
  { name: 'with 40 ms between keys', type: (page: Page) => typeKeys(page, TABLE, 40) },
];

for (const speed of SPEEDS) {
  test(`a table typed ${speed.name} lands key by key in its cells, and is saved as typed`, async ({ page, request }) => {
    await signIn(page, staff);
    const token = await apiToken(request, staff);
    const name = `Typed ${speed.name}`;
    const created = await request.post(`/api/v1/departments/${ids.finance}/spreadsheets`, { headers: bearer(token), data: { name } });
    expect(created.status(), await created.text()).toBe(201);
    const { id } = (await created.json()) as { id: string };

    await page.goto(`/department/${ids.finance}/spreadsheet/${id}`);
    await expect(page.getByRole('heading', { level: 1, name })).toBeVisible();
    await expect(cell(page, 'A1')).toBeAttached({ timeout: 20_000 });
    // The grid takes the keyboard by itself once drawn: typing goes straight into A1.
    await expect.poll(() => page.evaluate(() => document.querySelector('[data-testid="sheet-grid"]')?.contains(document.activeElement) ?? false)).toBe(true);

    await speed.type(page);

    await expect.poll(() => savedCells(request, token, id), { timeout: 15_000 }).toEqual({ ...TYPED, ...AROUND });
    // The last Enter leaves the selection under the first cell of the last row typed.
    await expect(page.getByTestId('cell-address')).toHaveText('A4');
    await expect(page.getByTestId('save-state')).toHaveAttribute('data-status', 'saved', { timeout: 15_000 });
    await expect(page.getByTestId('save-state')).toHaveText('All changes saved');
    // The grid shows the same cells, and nothing went anywhere else.
    const shown: Record<string, string> = {};
    for (const ref of Object.keys(TYPED)) shown[ref] = await input(page, ref);
    expect(shown).toEqual(TYPED);
    for (const ref of Object.keys(AROUND)) await expect(cell(page, ref)).toHaveText('');
    expect(await savedCells(request, token, id)).toEqual({ ...TYPED, ...AROUND });
  });
}
