import { describe, expect, it } from 'vitest';
import {
  addColumn,
  parseNumber,
  addRow,
  emptyTable,
  parseCell,
  removeColumn,
  removeRow,
  renameColumn,
  serialiseTable,
  setCell,
  tableFromData,
  textInNumberColumns,
} from './report-table';

describe('parseCell', () => {
  it.each([
    ['', null],
    ['   ', null],
    ['42', 42],
    [' -3.5 ', -3.5],
    ['1e3', '1e3'],
    ['.5', 0.5],
    ['12abc', '12abc'],
    ['North', 'North'],
    ['1,5', '1,5'],
  ])('%j → %j', (text, cell) => expect(parseCell(text)).toBe(cell));
});

describe('the table draft', () => {
  it('builds a table with the editor operations and serialises it', () => {
    let draft = addColumn(addColumn(emptyTable()));
    draft = renameColumn(renameColumn(draft, 0, ' Region '), 1, 'Revenue');
    draft = addRow(addRow(addRow(draft)));
    draft = setCell(draft, 0, 0, 'North');
    draft = setCell(draft, 0, 1, '120');
    draft = setCell(draft, 1, 0, 'South');
    draft = setCell(draft, 2, 1, '');
    expect(serialiseTable(draft)).toEqual({
      columns: ['Region', 'Revenue'],
      rows: [
        ['North', 120],
        ['South', null],
      ],
    });
  });

  it('has no table without columns, and drops a last column with its rows', () => {
    expect(serialiseTable(emptyTable())).toBeNull();
    const one = addRow(addColumn(emptyTable()));
    expect(removeColumn(one, 0)).toEqual(emptyTable());
  });

  it('removes a row and a middle column', () => {
    let draft = tableFromData({
      columns: ['a', 'b', 'c'],
      rows: [
        [1, 'x', null],
        [2, 'y', 3],
      ],
    });
    expect(draft.rows).toEqual([
      ['1', 'x', ''],
      ['2', 'y', '3'],
    ]);
    draft = removeRow(removeColumn(draft, 1), 0);
    expect(draft).toEqual({ columns: ['a', 'c'], rows: [['2', '3']] });
  });

  it('round-trips a stored table', () => {
    const data = {
      columns: ['Month', 'Sales', 'Note'],
      rows: [
        ['Jan', 10.5, null],
        ['Feb', 0, 'ok'],
      ],
    };
    expect(serialiseTable(tableFromData(data))).toEqual(data);
  });
});

describe('textInNumberColumns', () => {
  it('names the text cells of columns that hold a number, never the labels or a text column', () => {
    const draft = {
      columns: ['Month', 'Revenue', 'Note', 'Cost'],
      rows: [
        ['Jan', '10', 'ok', ''],
        ['abc', 'abc', 'twelve', ''],
        ['Mar', '', 'fine', 'n/a'],
        ['Apr', '1e3', 'x', '-2.5'],
      ],
    };
    // '1e3' is text: a typing slip in a column of amounts, not a thousand.
    expect(textInNumberColumns(draft)).toEqual(['1:1', '3:1', '2:3']);
    expect(textInNumberColumns({ columns: ['A', 'B'], rows: [['x', 'y']] })).toEqual([]);
  });

  it('reads numbers as the interface language writes them, grouped or not, and no exponents', () => {
    for (const [text, value] of [
      ['1,250.50', 1250.5],
      ['1250.5', 1250.5],
      ['-1,000,000', -1000000],
      ['\u22123', -3],
      ['+7', 7],
      ['.5', 0.5],
    ] as const) {
      expect(parseNumber(text, 'en'), text).toBe(value);
    }
    for (const [text, value] of [
      ['1 250,50', 1250.5],
      ['1\u202f250,50', 1250.5],
      ['1\u00a0000\u00a0000', 1000000],
      ['1250,5', 1250.5],
      ['1250.5', 1250.5],
      ['\u22122,5', -2.5],
    ] as const) {
      expect(parseNumber(text, 'fr'), text).toBe(value);
    }
    // Not numbers: an exponent, groups that are not of three, the other language's grouping.
    for (const text of ['1e3', '1,25,0', '12,50', '1 250.50', 'abc', '']) expect(parseNumber(text, 'en'), text).toBeNull();
    for (const text of ['1e3', '1,250.50', '12 50', '1 2500', 'abc']) expect(parseNumber(text, 'fr'), text).toBeNull();
    expect(serialiseTable({ columns: ['Poste', 'Montant'], rows: [['Loyer', '1 250,50']] }, 'fr')).toEqual({
      columns: ['Poste', 'Montant'],
      rows: [['Loyer', 1250.5]],
    });
    expect(
      textInNumberColumns(
        {
          columns: ['Item', 'Amount'],
          rows: [
            ['Rent', '1,250.50'],
            ['Fees', '1e3'],
          ],
        },
        'en',
      ),
    ).toEqual(['1:1']);
  });
});
