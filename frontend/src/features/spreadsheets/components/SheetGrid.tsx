import '@glideapps/glide-data-grid/dist/index.css';
import {
  AllCellRenderers,
  CompactSelection,
  DataEditor,
  type DataEditorRef,
  type EditableGridCell,
  type GridCell,
  GridCellKind,
  type GridColumn,
  type GridKeyEventArgs,
  type GridSelection,
  type Item,
  type TextCell,
  type Theme,
  textCellRenderer,
} from '@glideapps/glide-data-grid';
import { type ClipboardEvent, type Ref, type RefObject, useCallback, useEffect, useImperativeHandle, useMemo, useRef, useState } from 'react';
import { createPortal } from 'react-dom';
import { type Area, type InternalClipboard, type Workbook, columnName } from '../engine/workbook';
import classes from './spreadsheet.module.css';

/** Rows and columns shown beyond the last one in use, and at least. */
const MIN_ROWS = 200;
const MIN_COLUMNS = 26;
const SPARE_ROWS = 100;
const SPARE_COLUMNS = 10;

const FONT = 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, "Noto Sans", sans-serif';
const GRID_THEME: Partial<Theme> = {
  fontFamily: FONT,
  baseFontStyle: '13px',
  headerFontStyle: '600 12px',
  markerFontStyle: '12px',
  editorFontSize: '13px',
  accentColor: '#1971c2',
  accentLight: 'rgba(25, 113, 194, 0.12)',
  textDark: '#212529',
  textMedium: '#495057',
  textLight: '#495057',
  textHeader: '#343a40',
  textHeaderSelected: '#ffffff',
  bgHeader: '#f1f3f5',
  bgHeaderHasFocus: '#dee2e6',
  bgHeaderHovered: '#e9ecef',
  borderColor: '#dee2e6',
  horizontalBorderColor: '#dee2e6',
  cellHorizontalPadding: 6,
};

/** The grid's cell renderers, but assistive technology reads a cell's value as shown (`42`), not its formula. */
const RENDERERS = AllCellRenderers.map((renderer) =>
  renderer.kind === GridCellKind.Text ? { ...textCellRenderer, getAccessibilityString: (cell: TextCell) => cell.displayData } : renderer,
) as typeof AllCellRenderers;

export type GridHandle = { focus: () => void };

export type SheetGridProps = {
  workbook: Workbook;
  sheet: number;
  /** Goes up with every change of the workbook: the grid draws again. */
  revision: number;
  editable: boolean;
  selection: GridSelection;
  onSelectionChange: (selection: GridSelection) => void;
  /** After the grid changed the workbook (an edit, a paste, a clear, a column width). */
  onChanged: () => void;
  onUndo: () => void;
  onRedo: () => void;
  onToggleStyle: (style: 'bold' | 'italic') => void;
  /** The grid's name for assistive technology. */
  label: string;
  handle?: Ref<GridHandle>;
};

/** The selected area (1-based, as the engine counts), or null when nothing is selected. */
export function selectionArea(selection: GridSelection, sheet: number, rows: number, columns: number): Area | null {
  const range = selection.current?.range;
  if (range) return { sheet, row: range.y + 1, column: range.x + 1, width: range.width, height: range.height };
  const selectedColumns = selection.columns.toArray();
  if (selectedColumns.length > 0) {
    const first = Math.min(...selectedColumns);
    return { sheet, row: 1, column: first + 1, width: Math.max(...selectedColumns) - first + 1, height: rows };
  }
  const selectedRows = selection.rows.toArray();
  if (selectedRows.length > 0) {
    const first = Math.min(...selectedRows);
    return { sheet, row: first + 1, column: 1, width: columns, height: Math.max(...selectedRows) - first + 1 };
  }
  return null;
}

/** A selection of one cell (0-based column and row), or of an area (1-based, from the engine). */
export function cellSelection(column: number, row: number): GridSelection {
  return {
    current: { cell: [column, row], range: { x: column, y: row, width: 1, height: 1 }, rangeStack: [] },
    columns: CompactSelection.empty(),
    rows: CompactSelection.empty(),
  };
}

export function areaSelection(area: Area): GridSelection {
  return {
    current: {
      cell: [area.column - 1, area.row - 1],
      range: { x: area.column - 1, y: area.row - 1, width: area.width, height: area.height },
      rangeStack: [],
    },
    columns: CompactSelection.empty(),
    rows: CompactSelection.empty(),
  };
}

const normalised = (text: string) => text.replace(/\r\n?/g, '\n').trim();
const isTextField = (target: EventTarget) => target instanceof HTMLElement && (target.isContentEditable || target.matches('input, textarea, select'));

/**
 * One sheet of the workbook in Glide Data Grid (a canvas grid): values as the engine formats
 * them, formulas to edit, styles, column widths; keyboard navigation, selection and editing as
 * in a desktop spreadsheet (type to replace, Enter or F2 to edit, Delete to clear, Ctrl+Z/Y,
 * Ctrl+B/I). The clipboard goes through the engine: a copy inside the workbook pastes formulas
 * moved with their cells, text from other programs (Excel, LibreOffice) pastes as typed cells.
 */
export function SheetGrid({
  workbook,
  sheet,
  revision,
  editable,
  selection,
  onSelectionChange,
  onChanged,
  onUndo,
  onRedo,
  onToggleStyle,
  label,
  handle,
}: SheetGridProps) {
  const gridRef = useRef<DataEditorRef>(null);
  // Where the grid opens its cell editor: over everything, at the page's origin.
  const portal = useRef<HTMLDivElement>(null);
  const clipboard = useRef<InternalClipboard | null>(null);
  const [resizing, setResizing] = useState<{ index: number; width: number } | null>(null);
  const [reach, setReach] = useState({ rows: 0, columns: 0 });

  const wrapper = useRef<HTMLDivElement>(null);
  useImperativeHandle(handle, () => ({ focus: () => gridRef.current?.focus() }), []);

  // The grid takes the keyboard as it opens (typing goes straight into A1), once it can: its
  // focusable cells appear a moment after the first drawing. Never taken from another element.
  useEffect(() => {
    let tries = 0;
    const timer = setInterval(() => {
      const active = document.activeElement;
      const free = active === null || active === document.body;
      if (wrapper.current?.contains(active) || !free || ++tries > 40) {
        clearInterval(timer);
        return;
      }
      gridRef.current?.focus();
    }, 50);
    return () => clearInterval(timer);
  }, []);

  // How far the sheet goes: what is in use, plus room to grow into.
  const extent = useMemo(() => workbook.extent(sheet), [workbook, sheet, revision]); // eslint-disable-line react-hooks/exhaustive-deps
  const rows = Math.max(MIN_ROWS, extent.rows + SPARE_ROWS, reach.rows + SPARE_ROWS);
  const columnCount = Math.max(MIN_COLUMNS, extent.columns + SPARE_COLUMNS, reach.columns + SPARE_COLUMNS);

  const columns = useMemo<GridColumn[]>(
    () =>
      Array.from({ length: columnCount }, (_, index) => ({
        id: String(index + 1),
        title: columnName(index + 1),
        width: resizing?.index === index ? resizing.width : workbook.columnWidth(sheet, index + 1),
      })),
    [columnCount, workbook, sheet, resizing, revision], // eslint-disable-line react-hooks/exhaustive-deps
  );

  // Cells are read from the engine once per revision (a new getCellContent redraws the grid).
  const cache = useRef({ version: '', cells: new Map<number, GridCell>() });
  const getCellContent = useCallback(
    ([column, row]: Item): GridCell => {
      const version = `${sheet}:${revision}:${editable}`;
      if (cache.current.version !== version) cache.current = { version, cells: new Map() };
      const key = row * 20_000 + column;
      const cached = cache.current.cells.get(key);
      if (cached) return cached;
      const cell = workbook.cell(sheet, row + 1, column + 1);
      const font = `${cell.italic ? 'italic ' : ''}${cell.bold ? 'bold ' : ''}13px`;
      const defaultAlign = cell.kind === 'number' ? 'right' : cell.kind === 'boolean' || cell.kind === 'error' ? 'center' : 'left';
      const content: GridCell = {
        kind: GridCellKind.Text,
        data: cell.input,
        displayData: cell.text,
        allowOverlay: editable,
        readonly: !editable,
        contentAlign: cell.align ?? defaultAlign,
        themeOverride:
          cell.bold || cell.italic || cell.color || cell.fill
            ? { baseFontStyle: font, ...(cell.color ? { textDark: cell.color } : {}), ...(cell.fill ? { bgCell: cell.fill } : {}) }
            : undefined,
      };
      cache.current.cells.set(key, content);
      return content;
    },
    [workbook, sheet, revision, editable],
  );

  const onCellEdited = useCallback(
    ([column, row]: Item, value: EditableGridCell) => {
      if (value.kind !== GridCellKind.Text) return;
      if (workbook.cell(sheet, row + 1, column + 1).input === value.data) return;
      workbook.setInput(sheet, row + 1, column + 1, value.data);
      onChanged();
    },
    [workbook, sheet, onChanged],
  );

  const onDelete = useCallback(
    (selected: GridSelection) => {
      const area = selectionArea(selected, sheet, rows, columnCount);
      if (area && editable) {
        workbook.clear(area);
        onChanged();
      }
      return false;
    },
    [workbook, sheet, rows, columnCount, editable, onChanged],
  );

  const onKeyDown = useCallback(
    (event: GridKeyEventArgs) => {
      if (!(event.ctrlKey || event.metaKey) || event.altKey) return;
      const key = event.key.toLowerCase();
      const act = (action: () => void) => {
        event.cancel();
        event.preventDefault();
        action();
      };
      if (key === 'z' && !event.shiftKey) act(onUndo);
      else if (key === 'y' || (key === 'z' && event.shiftKey)) act(onRedo);
      else if (key === 'b' && editable) act(() => onToggleStyle('bold'));
      else if (key === 'i' && editable) act(() => onToggleStyle('italic'));
    },
    [editable, onUndo, onRedo, onToggleStyle],
  );

  const onGridSelectionChange = useCallback(
    (next: GridSelection) => {
      // Reaching the last rows or columns brings more.
      const cell = next.current?.cell;
      if (cell && (cell[1] >= rows - 10 || cell[0] >= columnCount - 3)) setReach({ rows: cell[1] + 1, columns: cell[0] + 1 });
      onSelectionChange(next);
    },
    [rows, columnCount, onSelectionChange],
  );

  const copy = (event: ClipboardEvent<HTMLDivElement>, cut: boolean) => {
    if (isTextField(event.target)) return;
    const area = selectionArea(selection, sheet, rows, columnCount);
    if (!area) return;
    event.preventDefault();
    const copied = workbook.copy(area, cut && editable);
    event.clipboardData.setData('text/plain', copied.text);
    clipboard.current = copied;
  };

  const paste = (event: ClipboardEvent<HTMLDivElement>) => {
    if (isTextField(event.target) || !editable) return;
    const anchor = selection.current?.range;
    if (!anchor) return;
    event.preventDefault();
    const text = event.clipboardData.getData('text/plain');
    const own = clipboard.current;
    let filled: Area | null;
    if (own && normalised(own.text) === normalised(text)) {
      filled = workbook.paste(own, sheet, anchor.y + 1, anchor.x + 1);
      // A cut moves its cells once.
      if (own.cut) clipboard.current = null;
    } else {
      filled = workbook.pasteText(sheet, anchor.y + 1, anchor.x + 1, text);
    }
    if (!filled) return;
    onSelectionChange(areaSelection(filled));
    onChanged();
  };

  return (
    <div
      ref={wrapper}
      role="region"
      aria-label={label}
      style={{ height: '100%', width: '100%' }}
      onCopy={(event) => copy(event, false)}
      onCut={(event) => copy(event, true)}
      onPaste={paste}
      data-testid="sheet-grid"
    >
      <DataEditor
        ref={gridRef}
        columns={columns}
        rows={rows}
        getCellContent={getCellContent}
        rowMarkers="clickable-number"
        rowMarkerWidth={48}
        rangeSelect="rect"
        columnSelect="multi"
        rowSelect="multi"
        gridSelection={selection}
        onGridSelectionChange={onGridSelectionChange}
        onCellEdited={editable ? onCellEdited : undefined}
        onDelete={onDelete}
        onKeyDown={onKeyDown}
        editOnType={editable}
        keybindings={{ copy: false, cut: false, paste: false, search: false, activateCell: ' |Enter|shift+Enter|F2', delete: 'Delete|Backspace' }}
        onColumnResize={editable ? (_column, width, index) => setResizing({ index, width: Math.round(width) }) : undefined}
        onColumnResizeEnd={
          editable
            ? (_column, width, index) => {
                setResizing(null);
                workbook.setColumnWidth(sheet, index + 1, Math.round(width));
                onChanged();
              }
            : undefined
        }
        minColumnWidth={32}
        maxColumnWidth={800}
        rowHeight={24}
        headerHeight={26}
        smoothScrollX
        smoothScrollY
        theme={GRID_THEME}
        renderers={RENDERERS}
        width="100%"
        height="100%"
        portalElementRef={portal as RefObject<HTMLElement>}
      />
      {createPortal(<div ref={portal} className={classes.editorPortal} />, document.body)}
    </div>
  );
}
