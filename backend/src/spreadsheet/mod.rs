//! Spreadsheets on the server: the same IronCalc engine version the browser runs (`ironcalc`
//! pinned to match `@ironcalc/wasm`), to make empty workbooks, check what browsers save, and
//! evaluate for XLSX and CSV downloads, XLSX imports and report data. The server never trusts a
//! value the browser computed: it evaluates the formulas itself. The server runs all of it in a
//! worker process with a deadline and a memory bound (`worker.rs`), after the checks of
//! `limits.rs`.

pub mod limits;
pub mod worker;

use std::io::Cursor;

use ironcalc::{
    base::{Model, cell::CellValue, expressions::utils::parse_reference_a1},
    export::save_xlsx_to_writer,
    import::load_from_xlsx_bytes,
};
use serde_json::Value;

/// Stored beside every workbook's bytes: the byte format changes between engine versions, so an
/// engine upgrade is a data migration.
pub const ENGINE_VERSION: &str = "ironcalc-0.8.3";
/// Most non-empty cells a workbook may hold.
pub const MAX_CELLS: usize = 200_000;
/// Most sheets.
pub const MAX_SHEETS: usize = 50;

const LANGUAGE: &str = "en";
const LOCALE: &str = "en";
const TIMEZONE: &str = "UTC";

#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum SheetError {
    /// Not a workbook of this engine version.
    #[error("not a workbook")]
    Invalid,
    /// Over `MAX_CELLS`, `MAX_SHEETS`, or an XLSX past one of the import limits (`limits.rs`).
    #[error("too large")]
    TooLarge,
    /// No sheet of that name.
    #[error("no such sheet")]
    NoSuchSheet,
    /// A range that is not `A1:C10` inside the sheet's limits.
    #[error("invalid range")]
    InvalidRange,
    /// Formulas whose ranges read more cells than allowed: which one, in words.
    #[error("{0}")]
    TooComplex(String),
    /// The work ran past the deadline (`SPREADSHEET_TIMEOUT_SECS`).
    #[error("the workbook takes too long to compute")]
    TooSlow,
    /// The work needed more memory than allowed (`SPREADSHEET_MAX_MEMORY_MB`).
    #[error("the workbook needs too much memory")]
    OutOfMemory,
}

fn load(bytes: &[u8]) -> Result<Model<'static>, SheetError> {
    let model = Model::from_bytes(bytes, LANGUAGE).map_err(|_| SheetError::Invalid)?;
    check_size(&model)?;
    limits::check_ranges(&model)?;
    Ok(model)
}

fn check_size(model: &Model<'_>) -> Result<(), SheetError> {
    let sheets = &model.workbook.worksheets;
    let cells: usize = sheets.iter().map(|s| s.sheet_data.values().map(|row| row.len()).sum::<usize>()).sum();
    let strings = model.workbook.shared_strings.len() as u64;
    if sheets.len() > MAX_SHEETS || cells > MAX_CELLS || strings > limits::MAX_SHARED_STRINGS { Err(SheetError::TooLarge) } else { Ok(()) }
}

/// A new workbook with one empty sheet, as the engine's bytes.
pub fn empty(name: &str) -> Vec<u8> {
    Model::new_empty(name, LOCALE, TIMEZONE, LANGUAGE).expect("the engine's own locale, timezone and language").to_bytes()
}

/// A workbook of `rows` x `columns` numbers, each row ending with its SUM (benchmarks).
pub fn sample(rows: i32, columns: i32) -> Vec<u8> {
    let mut model = Model::new_empty("Sample", LOCALE, TIMEZONE, LANGUAGE).expect("the engine's own locale, timezone and language");
    for row in 1..=rows {
        for column in 1..columns {
            model.set_user_input(0, row, column, ((row * 31 + column * 17) % 1000).to_string()).expect("a cell inside the sheet");
        }
        model
            .set_user_input(
                0,
                row,
                columns,
                format!("=SUM(A{row}:{}{row})", ironcalc::base::expressions::utils::number_to_column(columns - 1).unwrap_or_default()),
            )
            .expect("a cell inside the sheet");
    }
    model.evaluate();
    model.to_bytes()
}

/// Checks bytes a browser saved: a workbook of this engine version within the limits.
pub fn check(bytes: &[u8]) -> Result<(), SheetError> {
    load(bytes).map(drop)
}

/// The workbook as an XLSX file, evaluated by the server.
pub fn to_xlsx(bytes: &[u8]) -> Result<Vec<u8>, SheetError> {
    let mut model = load(bytes)?;
    model.evaluate();
    let cursor = save_xlsx_to_writer(&model, Cursor::new(Vec::new())).map_err(|_| SheetError::Invalid)?;
    Ok(cursor.into_inner())
}

fn sheet_index(model: &Model<'_>, sheet: Option<&str>) -> Result<u32, SheetError> {
    match sheet {
        None => Ok(0),
        Some(name) => model.workbook.worksheets.iter().position(|s| s.name == name).map(|i| i as u32).ok_or(SheetError::NoSuchSheet),
    }
}

/// One sheet's evaluated values as CSV (the first sheet unless named), as displayed (number
/// formats applied); text that a spreadsheet program would run as a formula is neutralised.
pub fn to_csv(bytes: &[u8], sheet: Option<&str>) -> Result<Vec<u8>, SheetError> {
    let mut model = load(bytes)?;
    model.evaluate();
    let index = sheet_index(&model, sheet)?;
    let worksheet = &model.workbook.worksheets[index as usize];
    let mut writer = csv::Writer::from_writer(Vec::new());
    if !worksheet.sheet_data.is_empty() {
        let d = worksheet.dimension();
        for row in 1..=d.max_row {
            let record: Vec<String> = (1..=d.max_column)
                .map(|column| model.get_formatted_cell_value(index, row, column).map(|v| crate::export::csv_safe(&v)).unwrap_or_default())
                .collect();
            writer.write_record(&record).map_err(|_| SheetError::Invalid)?;
        }
    }
    writer.into_inner().map_err(|_| SheetError::Invalid)
}

/// A workbook from an XLSX file: refused (never a panic, never unbounded memory) when it is not
/// a readable XLSX, expands past the limits, or holds too much; evaluated, as the engine's bytes.
pub fn from_xlsx(file: &[u8], name: &str) -> Result<Vec<u8>, SheetError> {
    limits::check_xlsx(file)?;
    let workbook = std::panic::catch_unwind(|| load_from_xlsx_bytes(file, name, LOCALE, TIMEZONE))
        .map_err(|_| SheetError::Invalid)?
        .map_err(|_| SheetError::Invalid)?;
    let mut model = Model::from_workbook(workbook, LANGUAGE).map_err(|_| SheetError::Invalid)?;
    check_size(&model)?;
    limits::check_ranges(&model)?;
    model.evaluate();
    Ok(model.to_bytes())
}

/// A range's evaluated values as a report's data table: the first row names the columns, the
/// others are the rows (numbers stay numbers, empty cells are null). At most 50 columns and
/// 10,001 rows.
pub fn range(bytes: &[u8], sheet: Option<&str>, range: &str) -> Result<(Vec<String>, Vec<Vec<Value>>), SheetError> {
    let (from, to) = range.split_once(':').ok_or(SheetError::InvalidRange)?;
    let (from, to) = (parse_reference_a1(from).ok_or(SheetError::InvalidRange)?, parse_reference_a1(to).ok_or(SheetError::InvalidRange)?);
    let (top, bottom) = (from.row.min(to.row), from.row.max(to.row));
    let (left, right) = (from.column.min(to.column), from.column.max(to.column));
    if top < 1 || left < 1 || right - left >= 50 || bottom - top > 10_000 || bottom == top {
        return Err(SheetError::InvalidRange);
    }
    let mut model = load(bytes)?;
    model.evaluate();
    let index = sheet_index(&model, sheet)?;
    let columns = (left..=right).map(|c| model.get_formatted_cell_value(index, top, c).unwrap_or_default()).collect();
    let rows = (top + 1..=bottom)
        .map(|r| {
            (left..=right)
                .map(|c| match model.get_cell_value_by_index(index, r, c).unwrap_or(CellValue::None) {
                    CellValue::None => Value::Null,
                    CellValue::Number(n) => serde_json::Number::from_f64(n).map_or(Value::Null, Value::Number),
                    CellValue::String(s) => Value::String(s),
                    CellValue::Boolean(b) => Value::String(if b { "TRUE" } else { "FALSE" }.into()),
                })
                .collect()
        })
        .collect();
    Ok((columns, rows))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn workbook(inputs: &[(i32, i32, &str)]) -> Vec<u8> {
        let mut model = Model::new_empty("Test", LOCALE, TIMEZONE, LANGUAGE).unwrap();
        for (row, column, input) in inputs {
            model.set_user_input(0, *row, *column, (*input).to_owned()).unwrap();
        }
        model.evaluate();
        model.to_bytes()
    }

    #[test]
    fn formulas_survive_xlsx_and_back_with_the_server_s_values() {
        let bytes = workbook(&[(1, 1, "Month"), (1, 2, "Sales"), (2, 1, "Jan"), (2, 2, "10"), (3, 1, "Feb"), (3, 2, "32"), (4, 2, "=SUM(B2:B3)")]);
        let xlsx = to_xlsx(&bytes).unwrap();
        let back = from_xlsx(&xlsx, "Back").unwrap();
        let model = Model::from_bytes(&back, LANGUAGE).unwrap();
        assert_eq!(model.get_cell_value_by_index(0, 4, 2).unwrap(), CellValue::Number(42.0));
        let csv = String::from_utf8(to_csv(&back, None).unwrap()).unwrap();
        assert_eq!(csv, "Month,Sales\nJan,10\nFeb,32\n,42\n");
        let (columns, rows) = range(&back, None, "A1:B3").unwrap();
        assert_eq!(columns, ["Month", "Sales"]);
        assert_eq!(rows, vec![vec![Value::from("Jan"), Value::from(10.0)], vec![Value::from("Feb"), Value::from(32.0)]]);
    }

    #[test]
    fn bad_bytes_files_and_ranges_are_refused() {
        assert_eq!(check(b"not a workbook"), Err(SheetError::Invalid));
        assert_eq!(from_xlsx(b"PK not a zip", "x"), Err(SheetError::Invalid));
        let bytes = empty("Blank");
        assert_eq!(check(&bytes), Ok(()));
        assert_eq!(to_csv(&bytes, Some("Nope")), Err(SheetError::NoSuchSheet));
        for bad in ["A1", "A1:A1", "1A:B2", "A1:BZ2", "A1:B20000", "a1:b2"] {
            assert_eq!(range(&bytes, None, bad).map(drop), Err(SheetError::InvalidRange), "{bad}");
        }
    }

    #[test]
    fn a_zip_bomb_is_refused_before_it_expands() {
        use std::io::Write;
        let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
        let options = zip::write::FileOptions::default().compression_method(zip::CompressionMethod::Deflated);
        zip.start_file("xl/worksheets/sheet1.xml", options).unwrap();
        let chunk = vec![b' '; 1024 * 1024];
        for _ in 0..80 {
            zip.write_all(&chunk).unwrap();
        }
        let bomb = zip.finish().unwrap().into_inner();
        assert!(bomb.len() < 1024 * 1024, "{} bytes", bomb.len());
        assert_eq!(from_xlsx(&bomb, "bomb"), Err(SheetError::TooLarge));
    }
}
