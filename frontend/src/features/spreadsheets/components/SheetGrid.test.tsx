import type { GridSelection } from '@glideapps/glide-data-grid';
import { act, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { engineForTests } from '../engine/engine-for-tests';
import { Workbook, areaName } from '../engine/workbook';
import { SheetGrid, cellSelection, selectionArea } from './SheetGrid';

/**
 * The grid (Glide Data Grid, drawn on a canvas) driven by the keyboard in jsdom, over the real
 * engine: every key typed lands in the cell selected when it was typed, however fast the keys
 * come. jsdom draws nothing and measures nothing: the canvas gets a context that does nothing,
 * and every element measures 1000 × 600.
 */

/** A 2D context that draws nothing: each method does nothing, text measures 7 px a character. */
function silentContext(canvas: HTMLCanvasElement): CanvasRenderingContext2D {
  const state = new Map<PropertyKey, unknown>([['canvas', canvas]]);
  const nothing: object = new Proxy(() => nothing, { get: (_, key) => (key === 'then' ? undefined : nothing), apply: () => nothing });
  const measure = (text: string) => ({
    width: text.length * 7,
    actualBoundingBoxAscent: 9,
    actualBoundingBoxDescent: 3,
    fontBoundingBoxAscent: 10,
    fontBoundingBoxDescent: 3,
  });
  return new Proxy({} as CanvasRenderingContext2D, {
    get: (_, key) =>
      key === 'measureText' ? measure : key === 'getImageData' ? () => ({ data: new Uint8ClampedArray(4) }) : state.has(key) ? state.get(key) : nothing,
    set: (_, key, value) => {
      state.set(key, value);
      return true;
    },
  });
}

class SizedResizeObserver {
  constructor(private readonly callback: ResizeObserverCallback) {}
  observe(target: Element) {
    this.callback([{ target, contentRect: { width: 1000, height: 600 } } as unknown as ResizeObserverEntry], this as unknown as ResizeObserver);
  }
  unobserve() {}
  disconnect() {}
}

beforeEach(() => {
  vi.stubGlobal('ResizeObserver', SizedResizeObserver);
  vi.spyOn(HTMLCanvasElement.prototype, 'getContext').mockImplementation(function (this: HTMLCanvasElement) {
    return silentContext(this);
  } as unknown as HTMLCanvasElement['getContext']);
  vi.spyOn(HTMLElement.prototype, 'clientWidth', 'get').mockReturnValue(1000);
  vi.spyOn(HTMLElement.prototype, 'clientHeight', 'get').mockReturnValue(600);
  vi.spyOn(HTMLElement.prototype, 'offsetWidth', 'get').mockReturnValue(1000);
  vi.spyOn(HTMLElement.prototype, 'offsetHeight', 'get').mockReturnValue(600);
  vi.spyOn(Element.prototype, 'getBoundingClientRect').mockReturnValue(DOMRect.fromRect({ x: 0, y: 0, width: 1000, height: 600 }));
  Element.prototype.scrollTo ??= () => {};
});

let engine: ReturnType<typeof engineForTests> | undefined;

/** The grid as the editor screen holds it: the selection in its state, a new revision at each change. */
function Sheet({ workbook }: { workbook: Workbook }) {
  const [selection, setSelection] = useState<GridSelection>(() => cellSelection(0, 0));
  const [revision, setRevision] = useState(0);
  const area = selectionArea(selection, 0, 200, 26);
  return (
    <>
      <output data-testid="address">{area ? areaName(area) : ''}</output>
      <div style={{ width: 1000, height: 600 }}>
        <SheetGrid
          workbook={workbook}
          sheet={0}
          revision={revision}
          editable
          selection={selection}
          onSelectionChange={setSelection}
          onChanged={() => setRevision((value) => value + 1)}
          onUndo={() => {}}
          onRedo={() => {}}
          onToggleStyle={() => {}}
          label="Sheet1"
        />
      </div>
    </>
  );
}

async function openSheet() {
  engine ??= engineForTests();
  const workbook = Workbook.create(engine, 'Typing');
  render(<Sheet workbook={workbook} />);
  const canvas = await screen.findByTestId('data-grid-canvas');
  // The grid takes the keyboard by itself once drawn.
  await waitFor(() => expect(canvas.contains(document.activeElement)).toBe(true));
  return workbook;
}

/** Every cell of the sheet holding something, by name, as typed. */
function contents(workbook: Workbook): Record<string, string> {
  const { rows, columns } = workbook.extent(0);
  const found: Record<string, string> = {};
  for (let row = 1; row <= rows; row++)
    for (let column = 1; column <= columns; column++) {
      const { input } = workbook.cell(0, row, column);
      if (input !== '') found[areaName({ row, column, width: 1, height: 1 })] = input;
    }
  return found;
}

const TABLE = 'Month{Tab}Sales{Enter}Jan{Tab}10{Enter}Feb{Tab}20{Enter}';
const TYPED = { A1: 'Month', B1: 'Sales', A2: 'Jan', B2: '10', A3: 'Feb', B3: '20' };

describe('typing into the grid', () => {
  // `delay: null`: each key follows the one before at once, with no turn of the event loop
  // between them (keys queued while the page was busy, or a paste-like burst). `delay: 0`: a
  // turn of the event loop between keys.
  it.each([
    ['in one burst', null],
    ['key after key', 0],
  ])('a table typed %s lands key by key in its cells: Tab goes right, Enter to the next row under its first cell', async (_, delay) => {
    const workbook = await openSheet();
    const user = userEvent.setup({ delay });
    await user.keyboard(TABLE);
    // What a timer of the grid's would still do, done.
    await act(() => new Promise((resolve) => setTimeout(resolve, 20)));

    expect(contents(workbook)).toEqual(TYPED);
    expect(screen.getByTestId('address')).toHaveTextContent('A4');
  });

  it('a column typed in one burst, Enter after Enter, fills the column cell by cell', async () => {
    const workbook = await openSheet();
    const user = userEvent.setup({ delay: null });
    await user.keyboard('Jan{Enter}Feb{Enter}Mar{Enter}Apr{Enter}');
    await act(() => new Promise((resolve) => setTimeout(resolve, 20)));

    expect(contents(workbook)).toEqual({ A1: 'Jan', A2: 'Feb', A3: 'Mar', A4: 'Apr' });
    expect(screen.getByTestId('address')).toHaveTextContent('A5');
  });

  it('Escape gives the edit up, and the next key starts again in the same cell', async () => {
    const workbook = await openSheet();
    const user = userEvent.setup({ delay: null });
    await user.keyboard('Wrong{Escape}Right{Tab}');
    await act(() => new Promise((resolve) => setTimeout(resolve, 20)));

    expect(contents(workbook)).toEqual({ A1: 'Right' });
    expect(screen.getByTestId('address')).toHaveTextContent('B1');
  });

  it('an arrow key between Tabs starts a new row of typing where it lands', async () => {
    const workbook = await openSheet();
    const user = userEvent.setup({ delay: null });
    // Tab from A1 to B1, then down to B2 with the arrow: Enter from C2 goes back to B3, not A3.
    await user.keyboard('a{Tab}{ArrowDown}b{Tab}c{Enter}d{Enter}');
    await act(() => new Promise((resolve) => setTimeout(resolve, 20)));

    expect(contents(workbook)).toEqual({ A1: 'a', B2: 'b', C2: 'c', B3: 'd' });
    expect(screen.getByTestId('address')).toHaveTextContent('B4');
  });
});
