import type { CellStyle, Model } from '@ironcalc/wasm';
import { parseTsv, toQuotedTsv, widthOf } from './tsv';

/** The engine's model class (`@ironcalc/wasm`), once its WebAssembly is initialised. */
export type Engine = typeof Model;

/** A rectangle of cells, 1-based as in the engine (row 1, column 1 is A1). */
export type Area = { sheet: number; row: number; column: number; width: number; height: number };

export type CellKind = 'empty' | 'number' | 'text' | 'boolean' | 'error';

/** What the grid shows of one cell. */
export type CellView = {
  /** The value as displayed (number format applied). */
  text: string;
  /** What the user typed: a formula (`=SUM(A1:A3)`) or a value. */
  input: string;
  kind: CellKind;
  bold: boolean;
  italic: boolean;
  underline: boolean;
  /** CSS colours, absent when automatic. */
  color?: string;
  fill?: string;
  align?: 'left' | 'center' | 'right';
  /** The number format (`general`, `#,##0.00`, `0%`...). */
  format: string;
};

export type SheetInfo = { index: number; name: string };

/** A copy of a range, to paste back into the workbook with its formulas moved (and its styles). */
export type InternalClipboard = {
  /** What went to the system clipboard: the values as displayed, tab-separated. */
  text: string;
  sheet: number;
  range: [number, number, number, number];
  data: ReturnType<Model['copyToClipboard']>['data'];
  cut: boolean;
};

// The engine's cell types (IronCalc's `CellType`).
const KINDS: Record<number, CellKind> = { 1: 'number', 2: 'text', 4: 'boolean', 16: 'error', 64: 'number', 128: 'number' };

/** The style paths the toolbar changes, with the values the engine takes. */
export type StyleChange =
  | { path: 'font.b' | 'font.i' | 'font.u'; value: boolean }
  | { path: 'font.color' | 'fill.color'; value: string | null }
  | { path: 'num_fmt'; value: string }
  | { path: 'alignment.horizontal'; value: 'left' | 'center' | 'right' | 'general' };

/**
 * A workbook in IronCalc, the engine the server runs too: cells, formulas (recomputed on every
 * change), sheets, styles, column widths, undo and redo, clipboard, and its bytes. Rows and
 * columns are 1-based; sheets are indexes in the workbook's order.
 */
export class Workbook {
  private constructor(private readonly model: Model) {}

  /** A new workbook with one sheet (the server makes new ones; this is for tests and tools). */
  static create(engine: Engine, name: string): Workbook {
    return new Workbook(new engine(name, 'en', 'UTC', 'en'));
  }

  /** A workbook from the engine's bytes, as the server stores them. */
  static fromBytes(engine: Engine, bytes: Uint8Array): Workbook {
    const workbook = new Workbook(engine.from_bytes(bytes, 'en'));
    workbook.model.evaluate();
    return workbook;
  }

  toBytes(): Uint8Array {
    return this.model.toBytes();
  }

  free(): void {
    this.model.free();
  }

  sheets(): SheetInfo[] {
    return this.model
      .getWorksheetsProperties()
      .map((sheet, index) => ({ index, name: sheet.name, visible: sheet.state === 'visible' }))
      .filter((sheet) => sheet.visible)
      .map(({ index, name }) => ({ index, name }));
  }

  cell(sheet: number, row: number, column: number): CellView {
    const model = this.model;
    const input = model.getCellContent(sheet, row, column);
    const text = model.getFormattedCellValue(sheet, row, column);
    const { style } = model.getCellStyle(sheet, row, column);
    const kind = input === '' && text === '' ? 'empty' : (KINDS[model.getCellType(sheet, row, column)] ?? 'text');
    const horizontal = style.alignment?.horizontal;
    return {
      text,
      input,
      kind,
      bold: style.font.b === true,
      italic: style.font.i === true,
      underline: style.font.u === true,
      color: this.colour(style.font.color),
      fill: this.colour(style.fill.color),
      align: horizontal === 'left' || horizontal === 'center' || horizontal === 'right' ? horizontal : undefined,
      format: style.num_fmt,
    };
  }

  private colour(value: CellStyle['fill']['color']): string | undefined {
    if (value === undefined) return undefined;
    return this.model.resolveColor(value) || undefined;
  }

  /** Sets what the user typed in a cell; dependent cells recompute. One step of undo. */
  setInput(sheet: number, row: number, column: number, input: string): void {
    this.model.setUserInput(sheet, row, column, input);
  }

  /**
   * Many inputs at once, computed once at the end (a cell at a time, 4,000 inputs take seconds;
   * batched, a fraction of one). Each input is its own step of undo.
   */
  setInputs(inputs: readonly { sheet: number; row: number; column: number; input: string }[]): void {
    this.model.pauseEvaluation();
    try {
      for (const { sheet, row, column, input } of inputs) this.model.setUserInput(sheet, row, column, input);
    } finally {
      this.model.resumeEvaluation();
      this.model.evaluate();
    }
  }

  /** Empties the cells of an area (their styles stay). */
  clear(area: Area): void {
    this.model.rangeClearContents(area.sheet, area.row, area.column, area.row + area.height - 1, area.column + area.width - 1);
  }

  style(area: Area, change: StyleChange): void {
    const value = typeof change.value === 'boolean' ? String(change.value) : (change.value ?? '');
    this.model.updateRangeStyle(area, change.path, value);
  }

  columnWidth(sheet: number, column: number): number {
    return this.model.getColumnWidth(sheet, column);
  }

  setColumnWidth(sheet: number, column: number, width: number): void {
    this.model.setColumnsWidth(sheet, column, column, width);
  }

  canUndo(): boolean {
    return this.model.canUndo();
  }

  canRedo(): boolean {
    return this.model.canRedo();
  }

  undo(): void {
    this.model.undo();
  }

  redo(): void {
    this.model.redo();
  }

  /** Adds a sheet at the end; returns its index. */
  addSheet(): number {
    this.model.newSheet();
    return this.model.getWorksheetsProperties().length - 1;
  }

  /** Renames a sheet; the engine refuses a name in use or not allowed (it throws). */
  renameSheet(sheet: number, name: string): void {
    this.model.renameSheet(sheet, name);
  }

  deleteSheet(sheet: number): void {
    this.model.deleteSheet(sheet);
  }

  /** The last row and column holding something (0 when the sheet is empty), looking at columns A to ZZ. */
  extent(sheet: number): { rows: number; columns: number } {
    let rows = 0;
    let columns = 0;
    for (let column = 1; column <= 702; column++) {
      const used = this.model.getRowsWithData(sheet, column);
      if (used.length === 0) continue;
      columns = column;
      for (const row of used) rows = Math.max(rows, row);
    }
    return { rows, columns };
  }

  private select(area: Area): void {
    this.model.setSelectedSheet(area.sheet);
    this.model.setSelectedCell(area.row, area.column);
    this.model.setSelectedRange(area.row, area.column, area.row + area.height - 1, area.column + area.width - 1);
  }

  /**
   * Tab-separated text (from Excel, LibreOffice, a web page or this grid) pasted with its top
   * left cell at `row`, `column`: each cell as if typed there. One step of undo. Returns the area
   * it filled.
   */
  pasteText(sheet: number, row: number, column: number, text: string): Area | null {
    const rows = parseTsv(text);
    const width = widthOf(rows);
    if (rows.length === 0 || width === 0) return null;
    this.select({ sheet, row, column, width: 1, height: 1 });
    this.model.pasteCsvText({ sheet, row, column, width: 1, height: 1 }, toQuotedTsv(rows));
    return { sheet, row, column, width, height: rows.length };
  }

  /** Copies an area: its displayed values as text for other programs, and its cells for this workbook. */
  copy(area: Area, cut = false): InternalClipboard {
    this.select(area);
    const copied = this.model.copyToClipboard();
    return { text: copied.csv, sheet: area.sheet, range: copied.range, data: copied.data, cut };
  }

  /**
   * Pastes what `copy` took, its top left cell at `row`, `column`: formulas move with the cells
   * (`=A1+1` copied one column right is `=B1+1`), styles come along, a cut empties the source.
   * One step of undo. Returns the area it filled.
   */
  paste(clipboard: InternalClipboard, sheet: number, row: number, column: number): Area {
    this.select({ sheet, row, column, width: 1, height: 1 });
    this.model.pasteFromClipboard(clipboard.sheet, clipboard.range, clipboard.data, clipboard.cut);
    const [top, left, bottom, right] = clipboard.range;
    return { sheet, row, column, width: right - left + 1, height: bottom - top + 1 };
  }
}

/** `A`, `B`, ... `Z`, `AA`: the name of a 1-based column. */
export function columnName(column: number): string {
  let name = '';
  for (let n = column; n > 0; n = Math.floor((n - 1) / 26)) name = String.fromCharCode(65 + ((n - 1) % 26)) + name;
  return name;
}

/** `B3`, or `A1:C4` for an area of more than one cell. */
export function areaName(area: Pick<Area, 'row' | 'column' | 'width' | 'height'>): string {
  const first = `${columnName(area.column)}${area.row}`;
  if (area.width === 1 && area.height === 1) return first;
  return `${first}:${columnName(area.column + area.width - 1)}${area.row + area.height - 1}`;
}

/** `A1:C4` → an area of the sheet (a single cell `B3` is a 1×1 area); null when it is not a range. */
export function parseArea(text: string, sheet: number): Area | null {
  const match = /^\s*\$?([A-Za-z]{1,3})\$?(\d{1,7})(?::\$?([A-Za-z]{1,3})\$?(\d{1,7}))?\s*$/.exec(text);
  if (!match) return null;
  const columnOf = (letters: string) => [...letters.toUpperCase()].reduce((n, letter) => n * 26 + letter.charCodeAt(0) - 64, 0);
  const [a, b] = [
    { column: columnOf(match[1]), row: Number(match[2]) },
    { column: columnOf(match[3] ?? match[1]), row: Number(match[4] ?? match[2]) },
  ];
  if (a.row < 1 || b.row < 1) return null;
  const row = Math.min(a.row, b.row);
  const column = Math.min(a.column, b.column);
  return { sheet, row, column, width: Math.abs(a.column - b.column) + 1, height: Math.abs(a.row - b.row) + 1 };
}
