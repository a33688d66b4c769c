//! What a workbook may cost before the engine is trusted with it: the cells its formulas' ranges
//! read (counted before anything is evaluated), and, for an XLSX import, the cells, shared strings,
//! styles and sheet XML it holds (counted by streaming through the zip, before the engine builds
//! anything). The deadline and memory bound of the work itself are the worker's (`worker.rs`).

use std::io::{BufReader, Cursor, Read};

use ironcalc::base::{Model, expressions::parser::Node, expressions::utils::number_to_column};
use quick_xml::events::Event;

use super::SheetError;

/// Most cells the ranges of a workbook's formulas may read, all formulas together: a whole
/// column is 1,048,576 cells, a whole sheet 17 billion.
pub const MAX_RANGE_CELLS: u64 = 20_000_000;
/// Most cells (`<c>` elements, empty or not) an imported XLSX may hold.
pub const MAX_IMPORT_CELLS: u64 = super::MAX_CELLS as u64;
/// Most shared strings (`<si>`) and cell styles (`<xf>`) an imported XLSX may hold.
pub const MAX_SHARED_STRINGS: u64 = 200_000;
pub const MAX_STYLES: u64 = 20_000;
/// Most bytes of worksheet XML an imported XLSX may expand to.
pub const MAX_SHEET_XML_BYTES: u64 = 48 * 1024 * 1024;
/// Most files in an XLSX (a zip), and most bytes they may expand to: a zip bomb is refused
/// before anything is decompressed.
const MAX_ZIP_ENTRIES: usize = 2_000;
const MAX_UNZIPPED_BYTES: u64 = 64 * 1024 * 1024;

/// Refuses a workbook whose formulas' ranges read more than `MAX_RANGE_CELLS` cells, naming the
/// formula that crossed the limit. Ranges built at evaluation time (INDIRECT, OFFSET) cannot be
/// counted here; the worker's deadline bounds them.
pub fn check_ranges(model: &Model<'_>) -> Result<(), SheetError> {
    let mut total = 0u64;
    for (index, sheet) in model.workbook.worksheets.iter().enumerate() {
        let Some(formulas) = model.parsed_formulas.get(index) else { continue };
        for (&row, columns) in &sheet.sheet_data {
            for (&column, cell) in columns {
                let Some((node, _)) = cell.get_formula().and_then(|f| formulas.get(f as usize)) else { continue };
                total = total.saturating_add(range_cells(node, row, column));
                if total > MAX_RANGE_CELLS {
                    let formula = model.get_cell_formula(index as u32, row, column).ok().flatten().unwrap_or_default();
                    let cell = format!("{}!{}{row}", sheet.name, number_to_column(column).unwrap_or_default());
                    return Err(SheetError::TooComplex(format!(
                        "{cell} {formula} reads too many cells: a workbook's formulas may read at most {MAX_RANGE_CELLS} cells in all"
                    )));
                }
            }
        }
    }
    Ok(())
}

/// The cells the ranges of one formula read, in the cell at `row`, `column` (relative
/// references are offsets from it).
fn range_cells(node: &Node, row: i32, column: i32) -> u64 {
    let at = |absolute: bool, value: i32, origin: i32| i64::from(if absolute { value } else { value.saturating_add(origin) });
    let area = |r1: i64, c1: i64, r2: i64, c2: i64| (r1.abs_diff(r2) + 1).saturating_mul(c1.abs_diff(c2) + 1);
    let children = |nodes: &[&Node]| nodes.iter().map(|n| range_cells(n, row, column)).fold(0u64, u64::saturating_add);
    match node {
        Node::RangeKind { absolute_row1, absolute_column1, row1, column1, absolute_row2, absolute_column2, row2, column2, .. } => area(
            at(*absolute_row1, *row1, row),
            at(*absolute_column1, *column1, column),
            at(*absolute_row2, *row2, row),
            at(*absolute_column2, *column2, column),
        ),
        Node::OpRangeKind { left, right } => match (left.as_ref(), right.as_ref()) {
            (
                Node::ReferenceKind { absolute_row: ar1, absolute_column: ac1, row: r1, column: c1, .. },
                Node::ReferenceKind { absolute_row: ar2, absolute_column: ac2, row: r2, column: c2, .. },
            ) => area(at(*ar1, *r1, row), at(*ac1, *c1, column), at(*ar2, *r2, row), at(*ac2, *c2, column)),
            (l, r) => children(&[l, r]),
        },
        Node::OpConcatenateKind { left, right }
        | Node::OpSumKind { left, right, .. }
        | Node::OpProductKind { left, right, .. }
        | Node::OpPowerKind { left, right }
        | Node::CompareKind { left, right, .. } => children(&[left, right]),
        Node::FunctionKind { args, .. } | Node::NamedFunctionKind { args, .. } => children(&args.iter().collect::<Vec<_>>()),
        Node::LambdaCallKind { lambda, args } => {
            let mut all: Vec<&Node> = args.iter().collect();
            all.push(lambda);
            children(&all)
        }
        Node::LambdaDefKind { body, .. } => range_cells(body, row, column),
        Node::ImplicitIntersection { child, .. } | Node::SpillRangeOperator { child } => range_cells(child, row, column),
        Node::UnaryKind { right, .. } => range_cells(right, row, column),
        _ => 0,
    }
}

/// Refuses an XLSX that is not a zip, is a zip bomb, or holds more cells, shared strings, styles
/// or worksheet XML than allowed, by streaming through its parts: nothing large is built, and a
/// file stops being read at the first count past its limit.
pub fn check_xlsx(file: &[u8]) -> Result<(), SheetError> {
    let mut zip = zip::ZipArchive::new(Cursor::new(file)).map_err(|_| SheetError::Invalid)?;
    if zip.len() > MAX_ZIP_ENTRIES {
        return Err(SheetError::TooLarge);
    }
    let (mut unzipped, mut sheet_xml, mut cells, mut strings, mut styles) = (0u64, 0u64, 0u64, 0u64, 0u64);
    for i in 0..zip.len() {
        let entry = zip.by_index(i).map_err(|_| SheetError::Invalid)?;
        let name = entry.name().to_ascii_lowercase();
        // The declared size may lie: count what each entry really expands to, and stop at the limit.
        let mut reader = CountingReader { inner: entry.take(MAX_UNZIPPED_BYTES - unzipped + 1), read: 0 };
        let counted = if name.starts_with("xl/worksheets/") && name.ends_with(".xml") {
            count_elements(&mut reader, b"c", MAX_IMPORT_CELLS - cells)?
        } else if name == "xl/sharedstrings.xml" {
            count_elements(&mut reader, b"si", MAX_SHARED_STRINGS - strings)?
        } else if name == "xl/styles.xml" {
            count_elements(&mut reader, b"xf", MAX_STYLES - styles)?
        } else {
            std::io::copy(&mut reader, &mut std::io::sink()).map_err(|_| SheetError::Invalid)?;
            0
        };
        if name.starts_with("xl/worksheets/") {
            cells += counted;
            sheet_xml += reader.read;
        } else if name == "xl/sharedstrings.xml" {
            strings += counted;
        } else if name == "xl/styles.xml" {
            styles += counted;
        }
        unzipped += reader.read;
        if unzipped > MAX_UNZIPPED_BYTES || sheet_xml > MAX_SHEET_XML_BYTES {
            return Err(SheetError::TooLarge);
        }
    }
    Ok(())
}

/// Counts the elements of this local name (`<c>`, `<x:c>`) in an XML stream, refusing past `max`.
/// The rest of the stream is read (and counted by the caller) so that the zip's sizes hold.
fn count_elements(reader: &mut impl Read, local: &[u8], max: u64) -> Result<u64, SheetError> {
    let mut xml = quick_xml::Reader::from_reader(BufReader::new(reader));
    let mut buf = Vec::new();
    let mut count = 0u64;
    loop {
        match xml.read_event_into(&mut buf) {
            Ok(Event::Start(e) | Event::Empty(e)) if e.local_name().as_ref() == local => {
                count += 1;
                if count > max {
                    return Err(SheetError::TooLarge);
                }
            }
            Ok(Event::Eof) => return Ok(count),
            Ok(_) => {}
            // Not XML: IronCalc's own reader refuses the file.
            Err(_) => return Err(SheetError::Invalid),
        }
        buf.clear();
    }
}

struct CountingReader<R> {
    inner: R,
    read: u64,
}

impl<R: Read> Read for CountingReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read += n as u64;
        Ok(n)
    }
}
