import type { ReportData } from '@/api/generated/model';

export type Cell = string | number | null;

/** The table editor's state: every cell as the text typed. */
export type TableDraft = { columns: string[]; rows: string[][] };

export const emptyTable = (): TableDraft => ({ columns: [], rows: [] });

const NUMBER = /^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/;

/** A typed cell: empty → null, a number → that number, anything else the text. */
export function parseCell(text: string): Cell {
  const trimmed = text.trim();
  if (trimmed === '') return null;
  return NUMBER.test(trimmed) ? Number(trimmed) : text;
}

/**
 * The cells (`row:column`) holding text in a number column: a column after the first (the
 * labels) where some cell is a number must hold only numbers and empty cells, as the server
 * requires, or the chart would silently drop that bar.
 */
export function textInNumberColumns(draft: TableDraft): string[] {
  const out: string[] = [];
  for (let c = 1; c < draft.columns.length; c += 1) {
    const cells = draft.rows.map((row) => parseCell(row[c] ?? ''));
    if (!cells.some((cell) => typeof cell === 'number')) continue;
    cells.forEach((cell, r) => {
      if (typeof cell === 'string') out.push(`${r}:${c}`);
    });
  }
  return out;
}

/** The table to send; null when there is none (no columns). Blank rows are dropped. */
export function serialiseTable(draft: TableDraft): ReportData | null {
  if (draft.columns.length === 0) return null;
  const rows = draft.rows.map((row) => draft.columns.map((_, index) => parseCell(row[index] ?? ''))).filter((row) => row.some((cell) => cell !== null));
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
