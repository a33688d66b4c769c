import { describe, expect, it } from 'vitest';
import { parseTsv, toQuotedTsv } from './tsv';

describe('parseTsv: clipboard text from Excel, LibreOffice and the web', () => {
  it('splits rows on CRLF, LF or CR and cells on tabs; the final line end closes the last row', () => {
    expect(parseTsv('a\tb\r\nc\td\r\n')).toEqual([
      ['a', 'b'],
      ['c', 'd'],
    ]);
    expect(parseTsv('a\tb\nc\td')).toEqual([
      ['a', 'b'],
      ['c', 'd'],
    ]);
    expect(parseTsv('a\rb\r')).toEqual([['a'], ['b']]);
  });

  it('keeps empty cells and empty rows inside the range', () => {
    expect(parseTsv('a\t\tc\n\n\tb\t\n')).toEqual([['a', '', 'c'], [''], ['', 'b', '']]);
  });

  it('unquotes quoted cells: tabs, line breaks and doubled quotes inside', () => {
    expect(parseTsv('"two\r\nlines"\t"a\tb"\t"say ""hi"""\r\nnext\r\n')).toEqual([['two\r\nlines', 'a\tb', 'say "hi"'], ['next']]);
  });

  it('takes a quote that does not open a cell as written', () => {
    expect(parseTsv('5" pipe\t"open\nx')).toEqual([['5" pipe', '"open'], ['x']]);
  });

  it('reads nothing from empty text', () => {
    expect(parseTsv('')).toEqual([]);
  });
});

describe('toQuotedTsv', () => {
  it('quotes every cell and pads rows to the same width, so it reads back the same', () => {
    const rows = [['a"b', 'two\nlines'], ['c']];
    const text = toQuotedTsv(rows);
    expect(text).toBe('"a""b"\t"two\nlines"\n"c"\t""');
    expect(parseTsv(text)).toEqual([
      ['a"b', 'two\nlines'],
      ['c', ''],
    ]);
  });
});
