import { readFileSync } from 'node:fs';
import { inflateRawSync } from 'node:zlib';

/** A workbook's sheets, by name: rows of cells as text (numbers as written, e.g. "95.5"). */
export type Workbook = Record<string, string[][]>;

/** The files of a ZIP archive, from its central directory (stored or deflated entries). */
function unzip(zip: Buffer): Map<string, Buffer> {
  if (zip.readUInt32LE(0) !== 0x04034b50) throw new Error('not a ZIP archive (no PK\\x03\\x04 signature)');
  let end = zip.length - 22;
  while (end >= 0 && zip.readUInt32LE(end) !== 0x06054b50) end--;
  if (end < 0) throw new Error('ZIP archive without an end of central directory');
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  const files = new Map<string, Buffer>();
  for (let i = 0; i < count; i++) {
    if (zip.readUInt32LE(at) !== 0x02014b50) throw new Error('damaged ZIP central directory');
    const method = zip.readUInt16LE(at + 10);
    const compressedSize = zip.readUInt32LE(at + 20);
    const nameLength = zip.readUInt16LE(at + 28);
    const extraLength = zip.readUInt16LE(at + 30);
    const commentLength = zip.readUInt16LE(at + 32);
    const localHeader = zip.readUInt32LE(at + 42);
    const name = zip.toString('utf8', at + 46, at + 46 + nameLength);
    const dataStart = localHeader + 30 + zip.readUInt16LE(localHeader + 26) + zip.readUInt16LE(localHeader + 28);
    const data = zip.subarray(dataStart, dataStart + compressedSize);
    if (method !== 0 && method !== 8) throw new Error(`${name}: ZIP compression method ${method}`);
    files.set(name, method === 8 ? inflateRawSync(data) : Buffer.from(data));
    at += 46 + nameLength + extraLength + commentLength;
  }
  return files;
}

const unescapeXml = (text: string) =>
  text.replace(/&(lt|gt|quot|apos|amp|#\d+|#x[\da-f]+);/gi, (_, entity: string) => {
    const named: Record<string, string> = { lt: '<', gt: '>', quot: '"', apos: "'", amp: '&' };
    if (named[entity]) return named[entity];
    return String.fromCodePoint(entity[1].toLowerCase() === 'x' ? parseInt(entity.slice(2), 16) : parseInt(entity.slice(1), 10));
  });

const columnIndex = (letters: string) => [...letters].reduce((n, letter) => n * 26 + letter.charCodeAt(0) - 64, 0) - 1;

/** A workbook's formulas, by sheet then cell (`{ Sheet1: { B4: 'SUM(B2:B3)' } }`, without the `=`). */
export type Formulas = Record<string, Record<string, string>>;

/** The formulas an .xlsx file holds (the cells' `<f>` elements), sheet by sheet. */
export function readXlsxFormulas(path: string): Formulas {
  const formulas: Formulas = {};
  for (const [name, xml] of sheetXml(unzip(readFileSync(path)))) {
    formulas[name] = Object.fromEntries(
      [...xml.matchAll(/<c r="([A-Z]+\d+)"[^>]*?(?:\/>|>([\s\S]*?)<\/c>)/g)].flatMap(([, ref, body]) => {
        const formula = body === undefined ? undefined : /<f(?:\s[^>]*)?>([\s\S]*?)<\/f>/.exec(body)?.[1];
        return formula === undefined ? [] : [[ref, unescapeXml(formula)]];
      }),
    );
  }
  return formulas;
}

/** Each sheet's name and XML, in workbook order. */
function sheetXml(files: Map<string, Buffer>): [string, string][] {
  const text = (name: string) => {
    const file = files.get(name);
    if (!file) throw new Error(`xlsx: no ${name}`);
    return file.toString('utf8');
  };
  const relationships = new Map(
    [...text('xl/_rels/workbook.xml.rels').matchAll(/<Relationship\b[^>]*>/g)].map(([tag]) => [
      /\bId="([^"]+)"/.exec(tag)![1],
      /\bTarget="([^"]+)"/.exec(tag)![1],
    ]),
  );
  return [...text('xl/workbook.xml').matchAll(/<sheet\b[^>]*>/g)].map(([tag]) => {
    const target = relationships.get(/\br:id="([^"]+)"/.exec(tag)![1])!;
    return [unescapeXml(/\bname="([^"]*)"/.exec(tag)![1]), text(`xl/${target.replace(/^\/?xl\//, '')}`)];
  });
}

/**
 * Reads an .xlsx file (Office Open XML): the sheets in workbook order, each cell's text; enough
 * to check what a downloaded report holds.
 */
export function readXlsx(path: string): Workbook {
  const files = unzip(readFileSync(path));
  const text = (name: string) => {
    const file = files.get(name);
    if (!file) throw new Error(`xlsx: no ${name}`);
    return file.toString('utf8');
  };
  const shared = files.has('xl/sharedStrings.xml')
    ? [...text('xl/sharedStrings.xml').matchAll(/<si>([\s\S]*?)<\/si>/g)].map(([, si]) =>
        [...si.matchAll(/<t(?:\s[^>]*)?>([\s\S]*?)<\/t>/g)].map(([, t]) => unescapeXml(t)).join(''),
      )
    : [];
  const relationships = new Map(
    [...text('xl/_rels/workbook.xml.rels').matchAll(/<Relationship\b[^>]*>/g)].map(([tag]) => [
      /\bId="([^"]+)"/.exec(tag)![1],
      /\bTarget="([^"]+)"/.exec(tag)![1],
    ]),
  );
  const book: Workbook = {};
  for (const [tag] of text('xl/workbook.xml').matchAll(/<sheet\b[^>]*>/g)) {
    const name = unescapeXml(/\bname="([^"]*)"/.exec(tag)![1]);
    const target = relationships.get(/\br:id="([^"]+)"/.exec(tag)![1])!;
    const rows: string[][] = [];
    for (const [, ref, attributes, body] of text(`xl/${target.replace(/^\/?xl\//, '')}`).matchAll(/<c r="([A-Z]+\d+)"([^>]*?)(?:\/>|>([\s\S]*?)<\/c>)/g)) {
      const [, letters, digits] = /^([A-Z]+)(\d+)$/.exec(ref)!;
      const type = /\bt="([^"]+)"/.exec(attributes)?.[1];
      const raw = body ? (/<v>([\s\S]*?)<\/v>/.exec(body)?.[1] ?? /<t[^>]*>([\s\S]*?)<\/t>/.exec(body)?.[1] ?? '') : '';
      const value = type === 's' ? shared[Number(raw)] : unescapeXml(raw);
      const row = (rows[Number(digits) - 1] ??= []);
      row[columnIndex(letters)] = value;
    }
    book[name] = Array.from(rows, (row) => Array.from(row ?? [], (cell) => cell ?? ''));
  }
  return book;
}
