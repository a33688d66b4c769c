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
  type ProvideEditorCallback,
  type ProvideEditorComponent,
  type TextCell,
  type Theme,
  isObjectEditorCallbackResult,
  textCellRenderer,
} from '@glideapps/glide-data-grid';
import {
  type ClipboardEvent,
  type KeyboardEvent,
  type Ref,
  type RefObject,
  useCallback,
  useEffect,
  useImperativeHandle,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
} from 'react';
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

/** Where a key that ends an edit takes the selection: Tab, Shift+Tab, Enter; Escape stays. */
type Move = 'right' | 'left' | 'down' | 'stay';

/** The key ending a cell's edit, if this one does (Enter with Shift is a new line in the cell). */
function editEnd(event: KeyboardEvent): Move | null {
  if (event.nativeEvent.isComposing || event.altKey || event.ctrlKey || event.metaKey) return null;
  if (event.key === 'Tab') return event.shiftKey ? 'left' : 'right';
  if (event.key === 'Enter' && !event.shiftKey) return 'down';
  if (event.key === 'Escape') return 'stay';
  return null;
}

type EditorProps = Parameters<ProvideEditorComponent<TextCell>>[0];
/** Ends the edit of a cell: its input (undefined: given up), then where the selection goes. */
type EndEdit = (editor: EditorProps, input: string | undefined, move: Move) => void;

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
  // The cell whose editor is open: the grid activates a cell (typing, Enter, F2, a double click)
  // right before it opens the editor there.
  const editing = useRef<Item | null>(null);
  // Typing a table: Tab goes right, and Enter one row down under the cell where the Tabs began
  // (as in Excel and LibreOffice). Forgotten once the selection moves any other way.
  const tabStart = useRef<{ column: number; row: number } | null>(null);
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

  const select = useCallback(
    (next: GridSelection) => {
      // Reaching the last rows or columns brings more.
      const cell = next.current?.cell;
      if (cell && (cell[1] >= rows - 10 || cell[0] >= columnCount - 3)) setReach({ rows: cell[1] + 1, columns: cell[0] + 1 });
      onSelectionChange(next);
    },
    [rows, columnCount, onSelectionChange],
  );

  // A click, an arrow key, a paste: not a Tab along a row.
  const onGridSelectionChange = useCallback(
    (next: GridSelection) => {
      tabStart.current = null;
      select(next);
    },
    [select],
  );

  /** Moves the selection from a cell with Tab, Shift+Tab or Enter. */
  const step = useCallback(
    ([column, row]: Item, move: Move) => {
      if (move === 'stay') return;
      if (move === 'down') {
        const start = tabStart.current?.row === row ? tabStart.current.column : column;
        tabStart.current = null;
        select(cellSelection(start, Math.min(row + 1, rows - 1)));
        return;
      }
      if (tabStart.current?.row !== row) tabStart.current = { column, row };
      select(cellSelection(move === 'right' ? Math.min(column + 1, columnCount - 1) : Math.max(column - 1, 0), row));
    },
    [rows, columnCount, select],
  );

  /**
   * Tab, Enter and Escape in a cell's editor end the edit in that key's own event: the input goes
   * into the cell, the editor closes, the grid takes the keyboard back and the selection moves,
   * all drawn before the browser hands over the next key. The grid's own editor did it later (a
   * timer, with the input as last drawn), so keys typed meanwhile went into the cell being left, or
   * were lost, at any speed the page could not keep up with ("MonthalesJan10…").
   */
  const endEdit = useCallback<EndEdit>(
    (editor, input, move) => {
      const cell = editing.current ?? selection.current?.cell;
      editing.current = null;
      // The grid writes the cell through onCellEdited, closes its editor and focuses itself.
      editor.onFinishedEditing(input === undefined ? undefined : { ...editor.value, data: input }, [0, 0]);
      if (cell && input !== undefined) step(cell, move);
    },
    [selection, step],
  );
  // The editor, open across renders, calls the latest (a new one each time would reopen it).
  const endEditRef = useRef(endEdit);
  useLayoutEffect(() => {
    endEditRef.current = endEdit;
  }, [endEdit]);

  const provideEditor = useCallback<ProvideEditorCallback<GridCell>>((cell) => {
    if (cell.kind !== GridCellKind.Text) return undefined;
    const provided = textCellRenderer.provideEditor?.(cell);
    if (!provided || !isObjectEditorCallbackResult(provided)) return undefined;
    const TextEditor = provided.editor;
    const editor: ProvideEditorComponent<TextCell> = (props) => (
      <div
        style={{ display: 'contents' }}
        onKeyDownCapture={(event) => {
          const move = editEnd(event);
          if (move === null) return;
          // Before the grid's editor sees the key (its handler ends the edit on a timer).
          event.preventDefault();
          event.stopPropagation();
          // What the field holds now, not as last drawn.
          const field = event.target;
          const input = move === 'stay' ? undefined : field instanceof HTMLTextAreaElement ? field.value : props.value.data;
          endEditRef.current(props, input, move);
        }}
      >
        <TextEditor {...props} />
      </div>
    );
    return { ...provided, editor } as { editor: ProvideEditorComponent<GridCell> };
  }, []);

  const onKeyDown = useCallback(
    (event: GridKeyEventArgs) => {
      if (event.key === 'Tab' && !(event.ctrlKey || event.metaKey || event.altKey) && event.location) {
        // Along a row, remembering where the Tabs began; at the sheet's edge the keyboard leaves the grid.
        const [column] = event.location;
        if (event.shiftKey ? column === 0 : column === columnCount - 1) return;
        event.cancel();
        event.preventDefault();
        step(event.location, event.shiftKey ? 'left' : 'right');
        return;
      }
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
    [editable, onUndo, onRedo, onToggleStyle, columnCount, step],
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
    onGridSelectionChange(areaSelection(filled));
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
        onCellActivated={(cell) => {
          editing.current = cell;
        }}
        provideEditor={provideEditor}
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
