import type { ReportData } from '@/api/generated/model';

export type Cell = string | number | null;

/** The table editor's state: every cell as the text typed. */
export type TableDraft = { columns: string[]; rows: string[][] };

export const emptyTable = (): TableDraft => ({ columns: [], rows: [] });

/** The languages whose way of writing numbers the table reads. */
export type NumberLocale = 'en' | 'fr';

// How people write a number in each language, as the app itself prints them: digits, with or
// without groups of three (en `1,250.5`, fr `1 250,5` with a space, a no-break or a narrow
// no-break space), and a decimal point (en) or comma (fr; a point too, as in `1250.5`). No
// exponents: `1e3` in a table of money is a typing slip, not a thousand.
const SPACES = /[ \u00a0\u202f]/g;
const SHAPES: Record<NumberLocale, readonly RegExp[]> = {
  en: [/^(\d+(\.\d*)?|\.\d+)$/, /^\d{1,3}(,\d{3})+(\.\d*)?$/],
  fr: [/^(\d+([,.]\d*)?|[,.]\d+)$/, /^\d{1,3}([ \u00a0\u202f]\d{3})+(,\d*)?$/],
};

/** The number `text` writes in `locale`'s way, or null when it is not one. */
export function parseNumber(text: string, locale: NumberLocale = 'en'): number | null {
  const trimmed = text.trim();
  const negative = /^[-\u2212]/.test(trimmed);
  const digits = /^[-+\u2212]/.test(trimmed) ? trimmed.slice(1) : trimmed;
  if (!SHAPES[locale].some((shape) => shape.test(digits))) return null;
  const plain = locale === 'fr' ? digits.replace(SPACES, '').replace(',', '.') : digits.replace(/,/g, '');
  const value = Number(plain);
  return negative ? -value : value;
}

/** A typed cell: empty → null, a number (written as `locale` writes them) → that number, anything else the text. */
export function parseCell(text: string, locale: NumberLocale = 'en'): Cell {
  if (text.trim() === '') return null;
  return parseNumber(text, locale) ?? text;
}

/**
 * The cells (`row:column`) holding text in a number column: a column after the first (the
 * labels) where some cell is a number must hold only numbers and empty cells, as the server
 * requires, or the chart would silently drop that bar.
 */
export function textInNumberColumns(draft: TableDraft, locale: NumberLocale = 'en'): string[] {
  const out: string[] = [];
  for (let c = 1; c < draft.columns.length; c += 1) {
    const cells = draft.rows.map((row) => parseCell(row[c] ?? '', locale));
    if (!cells.some((cell) => typeof cell === 'number')) continue;
    cells.forEach((cell, r) => {
      if (typeof cell === 'string') out.push(`${r}:${c}`);
    });
  }
  return out;
}

/** The table to send; null when there is none (no columns). Blank rows are dropped. */
export function serialiseTable(draft: TableDraft, locale: NumberLocale = 'en'): ReportData | null {
  if (draft.columns.length === 0) return null;
  const rows = draft.rows.map((row) => draft.columns.map((_, index) => parseCell(row[index] ?? '', locale))).filter((row) => row.some((cell) => cell !== null));
  return { columns: draft.columns.map((name) => name.trim()), rows };
}

/** The editor's state for a stored table. */
export function tableFromData(data: ReportData | null | undefined): TableDraft {
  if (!data) return emptyTable();
  return {
    columns: [...data.columns],
    rows: data.rows.map((row) => data.columns.map((_, index) => (row[index] === null || row[index] === undefined ? '' : String(row[index])))),
  };
}

export const addColumn = (draft: TableDraft): TableDraft => ({
  columns: [...draft.columns, ''],
  rows: draft.rows.map((row) => [...row, '']),
});

export const removeColumn = (draft: TableDraft, index: number): TableDraft => ({
  columns: draft.columns.filter((_, i) => i !== index),
  rows: draft.columns.length === 1 ? [] : draft.rows.map((row) => row.filter((_, i) => i !== index)),
});

export const addRow = (draft: TableDraft): TableDraft => ({ ...draft, rows: [...draft.rows, draft.columns.map(() => '')] });

export const removeRow = (draft: TableDraft, index: number): TableDraft => ({ ...draft, rows: draft.rows.filter((_, i) => i !== index) });

export const setCell = (draft: TableDraft, row: number, column: number, value: string): TableDraft => ({
  ...draft,
  rows: draft.rows.map((cells, r) => (r === row ? cells.map((cell, c) => (c === column ? value : cell)) : cells)),
});

export const renameColumn = (draft: TableDraft, index: number, name: string): TableDraft => ({
  ...draft,
  columns: draft.columns.map((column, i) => (i === index ? name : column)),
});
