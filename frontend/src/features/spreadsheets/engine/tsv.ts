/**
 * Tab-separated text as Excel, LibreOffice Calc and Google Sheets put it on the clipboard: rows
 * end with CRLF, LF or CR (the last one usually with a line end too), cells holding a tab, a line
 * break or a leading quote are quoted with `"` and their quotes doubled. Any other cell is taken
 * as written, quotes included (`5" pipe`).
 */
export function parseTsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let i = 0;
  const endCell = () => {
    row.push(cell);
    cell = '';
  };
  const endRow = () => {
    endCell();
    rows.push(row);
    row = [];
  };
  let atCellStart = true;
  while (i < text.length) {
    const char = text[i];
    if (atCellStart && char === '"') {
      // A quoted cell: up to the quote that is not doubled; what follows it up to the next tab
      // or line end (nothing, in well-formed text) is kept as written.
      let j = i + 1;
      let value = '';
      let closed = false;
      while (j < text.length) {
        if (text[j] === '"') {
          if (text[j + 1] === '"') {
            value += '"';
            j += 2;
            continue;
          }
          closed = true;
          j += 1;
          break;
        }
        value += text[j];
        j += 1;
      }
      if (!closed) {
        // An opening quote never closed: the cell was not quoted after all.
        const end = nextBreak(text, i);
        cell = text.slice(i, end);
        i = end;
      } else {
        cell = value;
        const end = nextBreak(text, j);
        cell += text.slice(j, end);
        i = end;
      }
      atCellStart = false;
      continue;
    }
    atCellStart = false;
    if (char === '\t') {
      endCell();
      atCellStart = true;
      i += 1;
    } else if (char === '\r' || char === '\n') {
      endRow();
      atCellStart = true;
      i += char === '\r' && text[i + 1] === '\n' ? 2 : 1;
    } else {
      cell += char;
      i += 1;
    }
  }
  // The text's last line end closes the last row; without one, the last row is still open.
  if (!atCellStart || cell !== '' || row.length > 0) endRow();
  return rows;
}

function nextBreak(text: string, from: number): number {
  let end = from;
  while (end < text.length && text[end] !== '\t' && text[end] !== '\n' && text[end] !== '\r') end += 1;
  return end;
}

/** The widest row's number of cells. */
export const widthOf = (rows: readonly (readonly string[])[]) => rows.reduce((width, row) => Math.max(width, row.length), 0);

/**
 * Rows as unambiguous tab-separated text: every cell quoted, quotes doubled, every row padded to
 * the same width, LF between rows. What the engine's own reader takes without guessing.
 */
export function toQuotedTsv(rows: readonly (readonly string[])[]): string {
  const width = widthOf(rows);
  return rows.map((row) => Array.from({ length: width }, (_, column) => `"${(row[column] ?? '').replaceAll('"', '""')}"`).join('\t')).join('\n');
}
