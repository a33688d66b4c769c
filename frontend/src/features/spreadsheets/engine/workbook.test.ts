import { beforeAll, describe, expect, it } from 'vitest';
import { engineForTests } from './engine-for-tests';
import { type Engine, Workbook, areaName, columnName, parseArea } from './workbook';

let engine: Engine;
beforeAll(() => {
  engine = engineForTests();
});

const A = 1;
const B = 2;
const C = 3;

/** A workbook with inputs typed into its first sheet, `[row, column, input]`. */
function workbookWith(inputs: [number, number, string][]): Workbook {
  const book = Workbook.create(engine, 'Test');
  book.setInputs(inputs.map(([row, column, input]) => ({ sheet: 0, row, column, input })));
  return book;
}

const shown = (book: Workbook, row: number, column: number, sheet = 0) => book.cell(sheet, row, column).text;

describe('formulas recompute after an edit', () => {
  it('SUM, AVERAGE, MIN, MAX and COUNT follow the cells they read', () => {
    const book = workbookWith([
      [1, A, '10'],
      [2, A, '32'],
      [3, A, 'text'],
      [1, B, '=SUM(A1:A3)'],
      [2, B, '=AVERAGE(A1:A2)'],
      [3, B, '=MIN(A1:A2)'],
      [4, B, '=MAX(A1:A2)'],
      [5, B, '=COUNT(A1:A3)'],
    ]);
    expect([1, 2, 3, 4, 5].map((row) => shown(book, row, B))).toEqual(['42', '21', '10', '32', '2']);

    book.setInput(0, 2, A, '50');
    expect([1, 2, 3, 4, 5].map((row) => shown(book, row, B))).toEqual(['60', '30', '10', '50', '2']);
    expect(book.cell(0, 1, B)).toMatchObject({ input: '=SUM(A1:A3)', kind: 'number' });
  });

  it('IF and ROUND recompute, and a batch of inputs is computed at its end', () => {
    const book = workbookWith([
      [1, A, '2.345'],
      [1, B, '=ROUND(A1,2)'],
      [2, B, '=IF(A1>5,"high","low")'],
    ]);
    expect([shown(book, 1, B), shown(book, 2, B)]).toEqual(['2.35', 'low']);

    book.setInputs([
      { sheet: 0, row: 1, column: A, input: '7.891' },
      { sheet: 0, row: 3, column: B, input: '=B1*2' },
    ]);
    expect([shown(book, 1, B), shown(book, 2, B), shown(book, 3, B)]).toEqual(['7.89', 'high', '15.78']);
  });

  it('a reference to another sheet follows that sheet, and its renaming', () => {
    const book = workbookWith([[1, A, '5']]);
    const second = book.addSheet();
    expect(book.sheets().map((sheet) => sheet.name)).toEqual(['Sheet1', 'Sheet2']);
    book.setInput(second, 1, A, '=Sheet1!A1*10');
    expect(shown(book, 1, A, second)).toBe('50');

    book.setInput(0, 1, A, '6');
    expect(shown(book, 1, A, second)).toBe('60');

    book.renameSheet(0, 'Figures');
    expect(book.cell(second, 1, A).input).toBe('=Figures!A1*10');
    expect(shown(book, 1, A, second)).toBe('60');
    expect(() => book.renameSheet(second, 'Figures')).toThrow();
  });

  it('shows errors as errors', () => {
    const book = workbookWith([
      [1, A, '=1/0'],
      [2, A, '=NOSUCH(1)'],
    ]);
    expect(book.cell(0, 1, A)).toMatchObject({ text: '#DIV/0!', kind: 'error' });
    expect(book.cell(0, 2, A).kind).toBe('error');
  });
});

describe('undo and redo', () => {
  it('step back through inputs and styles, recomputing, and forward again', () => {
    const book = workbookWith([
      [1, A, '1'],
      [2, A, '=A1+1'],
    ]);
    book.setInput(0, 1, A, '10');
    book.style({ sheet: 0, row: 1, column: A, width: 1, height: 1 }, { path: 'font.b', value: true });
    expect(book.cell(0, 1, A).bold).toBe(true);

    book.undo();
    expect(book.cell(0, 1, A).bold).toBe(false);
    expect(shown(book, 2, A)).toBe('11');
    book.undo();
    expect(shown(book, 1, A)).toBe('1');
    expect(shown(book, 2, A)).toBe('2');
    expect(book.canRedo()).toBe(true);

    book.redo();
    expect(shown(book, 2, A)).toBe('11');
    book.redo();
    expect(book.cell(0, 1, A).bold).toBe(true);
    expect(book.canRedo()).toBe(false);
  });

  it('undoes a whole paste in one step', () => {
    const book = workbookWith([[1, A, 'kept']]);
    book.pasteText(0, 1, A, 'a\tb\r\nc\td\r\n');
    expect([shown(book, 1, A), shown(book, 2, B)]).toEqual(['a', 'd']);
    book.undo();
    expect([shown(book, 1, A), shown(book, 2, B)]).toEqual(['kept', '']);
  });
});

describe('the bytes round trip', () => {
  it('keeps values, formulas, styles, column widths and sheets', () => {
    const book = workbookWith([
      [1, A, 'Region'],
      [1, B, 'Sales'],
      [2, A, 'North'],
      [2, B, '1234.5'],
      [3, B, '=B2*2'],
    ]);
    const header = { sheet: 0, row: 1, column: A, width: 2, height: 1 };
    book.style(header, { path: 'font.b', value: true });
    book.style(header, { path: 'font.i', value: true });
    book.style(header, { path: 'font.color', value: '#C92A2A' });
    book.style(header, { path: 'fill.color', value: '#FFF3BF' });
    book.style({ sheet: 0, row: 2, column: B, width: 1, height: 2 }, { path: 'num_fmt', value: '#,##0.00' });
    book.setColumnWidth(0, A, 160);
    const second = book.addSheet();
    book.renameSheet(second, 'Totals');
    book.setInput(second, 1, A, '=SUM(Sheet1!B2:B3)');

    const back = Workbook.fromBytes(engine, book.toBytes());

    expect(back.sheets()).toEqual([
      { index: 0, name: 'Sheet1' },
      { index: 1, name: 'Totals' },
    ]);
    expect(back.cell(0, 1, B)).toMatchObject({ text: 'Sales', bold: true, italic: true, color: '#C92A2A', fill: '#FFF3BF' });
    expect(back.cell(0, 2, B)).toMatchObject({ text: '1,234.50', input: '1234.5', format: '#,##0.00' });
    expect(back.cell(0, 3, B)).toMatchObject({ text: '2,469.00', input: '=B2*2' });
    // A formula shows its figures in the format of the cells it adds up, as in Excel.
    expect(back.cell(1, 1, A)).toMatchObject({ text: '3,703.50', input: '=SUM(Sheet1!B2:B3)' });
    expect(back.columnWidth(0, A)).toBe(160);
    expect(back.extent(0)).toEqual({ rows: 3, columns: 2 });

    // Still a live workbook: an edit after loading recomputes.
    back.setInput(0, 2, B, '1000');
    expect(shown(back, 1, A, 1)).toBe('3,000.00');
  });

  it('refuses bytes that are not a workbook', () => {
    expect(() => Workbook.fromBytes(engine, new Uint8Array([1, 2, 3, 4]))).toThrow();
  });
});

describe('pasting tab-separated text', () => {
  it('fills a range from its top left cell, numbers and formulas typed as such', () => {
    const book = workbookWith([]);
    // As Excel puts it on the clipboard: CRLF, a quoted cell with a line break and quotes, a final line end.
    const area = book.pasteText(0, 2, B, 'Month\tSales\tNote\r\nJan\t1,200\t"two\r\nlines, ""quoted"""\r\nFeb\t=C3*2\t\r\n');

    expect(area).toEqual({ sheet: 0, row: 2, column: B, width: 3, height: 3 });
    expect(book.cell(0, 3, C)).toMatchObject({ text: '1,200', input: '1200', kind: 'number' });
    expect(book.cell(0, 3, 4).input).toBe('two\r\nlines, "quoted"');
    expect(book.cell(0, 4, C)).toMatchObject({ text: '2,400', input: '=C3*2' });
    expect(shown(book, 1, A)).toBe('');
  });

  it('takes ragged rows (LibreOffice drops trailing empty cells) without losing any', () => {
    const book = workbookWith([]);
    const area = book.pasteText(0, 1, A, 'a\tb\tc\nd\ne\tf\n');
    expect(area).toMatchObject({ width: 3, height: 3 });
    expect([shown(book, 2, A), shown(book, 3, B), shown(book, 1, C)]).toEqual(['d', 'f', 'c']);
  });

  it('copies a range inside the workbook with its formulas moved, and a cut empties the source', () => {
    const book = workbookWith([
      [1, A, '1'],
      [2, A, '=A1+1'],
    ]);
    book.style({ sheet: 0, row: 1, column: A, width: 1, height: 1 }, { path: 'font.b', value: true });
    const copied = book.copy({ sheet: 0, row: 1, column: A, width: 1, height: 2 });
    expect(copied.text).toBe('1\n2');

    book.paste(copied, 0, 1, C);
    expect(book.cell(0, 2, C)).toMatchObject({ input: '=C1+1', text: '2' });
    expect(book.cell(0, 1, C).bold).toBe(true);

    const cut = book.copy({ sheet: 0, row: 1, column: C, width: 1, height: 2 }, true);
    book.paste(cut, 0, 5, C);
    expect(book.cell(0, 6, C)).toMatchObject({ input: '=C5+1', text: '2' });
    expect(book.cell(0, 1, C).input).toBe('');
  });
});

describe('names of cells and areas', () => {
  it('names columns and areas as a spreadsheet does, and reads them back', () => {
    expect([1, 26, 27, 52, 702, 703].map(columnName)).toEqual(['A', 'Z', 'AA', 'AZ', 'ZZ', 'AAA']);
    expect(areaName({ row: 3, column: 2, width: 1, height: 1 })).toBe('B3');
    expect(areaName({ row: 1, column: 1, width: 3, height: 4 })).toBe('A1:C4');
    expect(parseArea('c4:a1', 0)).toEqual({ sheet: 0, row: 1, column: 1, width: 3, height: 4 });
    expect(parseArea('$B$3', 2)).toEqual({ sheet: 2, row: 3, column: 2, width: 1, height: 1 });
    expect(parseArea('A1:', 0)).toBeNull();
    expect(parseArea('A0', 0)).toBeNull();
  });
});
