//! A report as a file: XLSX (fields, the data table and a native chart), CSV (the data table)
//! and PDF (title, department, period, status, content, the data table, review notes).

use std::{sync::LazyLock, time::Duration};

use chrono::{DateTime, NaiveDate, Utc};
use printpdf::{
    BuiltinFont, Color, Line, LinePoint, Mm, Op, PaintMode, PdfDocument, PdfFontHandle, PdfPage, PdfSaveOptions, Point, Pt, Rect, Rgb, TextItem,
};
use rust_xlsxwriter::{Chart, ChartType, Format, Workbook};
use serde_json::Value;
use tokio::sync::{Semaphore, SemaphorePermit};

use crate::domain::{DepartmentType, ReportStatus};

/// Files being built at once: one per core. An export holds its report's data and the file it
/// builds in memory (tens of MB for the largest report allowed), so the number in flight is what
/// bounds the server's memory; the rest wait their turn.
static EXPORT_SLOTS: LazyLock<Semaphore> = LazyLock::new(|| Semaphore::new(std::thread::available_parallelism().map_or(2, |n| n.get())));

/// How long an export waits for a slot before it is told to come back (503 with Retry-After).
const EXPORT_WAIT: Duration = Duration::from_secs(10);

/// A slot to build one file in, or `None` when every slot stayed busy for `EXPORT_WAIT`.
pub async fn slot() -> Option<SemaphorePermit<'static>> {
    tokio::time::timeout(EXPORT_WAIT, EXPORT_SLOTS.acquire()).await.ok()?.ok()
}

/// Everything a file shows of a report.
pub struct ReportFile<'a> {
    pub title: &'a str,
    pub department: DepartmentType,
    pub period_start: NaiveDate,
    pub period_end: NaiveDate,
    pub status: ReportStatus,
    pub author: &'a str,
    pub created_at: DateTime<Utc>,
    pub submitted_at: Option<DateTime<Utc>>,
    pub reviewer: Option<&'a str>,
    pub reviewed_at: Option<DateTime<Utc>>,
    pub review_notes: Option<&'a str>,
    pub content: &'a str,
    pub columns: &'a [String],
    pub rows: &'a [Vec<Value>],
    pub lang: Lang,
}

pub use crate::domain::Lang;

/// The department's name, as the screens write it.
pub fn department_label(d: DepartmentType, lang: Lang) -> &'static str {
    match d {
        DepartmentType::Finance => "Finance",
        DepartmentType::Operations => lang.pick("Operations", "Opérations"),
        DepartmentType::SalesMarketing => lang.pick("Sales and marketing", "Ventes et marketing"),
        DepartmentType::HumanResources => lang.pick("Human resources", "Ressources humaines"),
        DepartmentType::InformationTechnology => lang.pick("Information technology", "Informatique"),
    }
}

/// The status's name, as the screens write it.
pub fn status_label(s: ReportStatus, lang: Lang) -> &'static str {
    match s {
        ReportStatus::Draft => lang.pick("Draft", "Brouillon"),
        ReportStatus::Submitted => lang.pick("Submitted", "Soumis"),
        ReportStatus::Reviewed => lang.pick("Reviewed", "Examiné"),
        ReportStatus::Approved => lang.pick("Approved", "Approuvé"),
        ReportStatus::Rejected => lang.pick("Rejected", "Rejeté"),
    }
}

struct Labels {
    title: &'static str,
    department: &'static str,
    period: &'static str,
    to: &'static str,
    status: &'static str,
    author: &'static str,
    created: &'static str,
    submitted: &'static str,
    reviewed_by: &'static str,
    reviewed: &'static str,
    review_notes: &'static str,
    content: &'static str,
    report_sheet: &'static str,
    data: &'static str,
}

fn labels(lang: Lang) -> Labels {
    Labels {
        title: lang.pick("Title", "Titre"),
        department: lang.pick("Department", "Département"),
        period: lang.pick("Period", "Période"),
        to: lang.pick("to", "au"),
        status: lang.pick("Status", "Statut"),
        author: lang.pick("Author", "Auteur"),
        created: lang.pick("Created", "Créé le"),
        submitted: lang.pick("Submitted", "Soumis le"),
        reviewed_by: lang.pick("Reviewed by", "Examiné par"),
        reviewed: lang.pick("Reviewed", "Examiné le"),
        review_notes: lang.pick("Review notes", "Notes d'examen"),
        content: lang.pick("Content", "Contenu"),
        report_sheet: lang.pick("Report", "Rapport"),
        data: lang.pick("Data", "Données"),
    }
}

fn date(d: NaiveDate, lang: Lang) -> String {
    d.format(lang.pick("%Y-%m-%d", "%d/%m/%Y")).to_string()
}

/// `finance-q1-budget-2026-01-01.xlsx`; a title that starts with its department's name does not
/// repeat it (`Finance Q4 close` gives `finance-q4-close-…`).
pub fn file_name(r: &ReportFile<'_>, extension: &str) -> String {
    let department = r.department.as_str().replace('_', "-");
    let title = slug::slugify(r.title);
    let title = title.strip_prefix(&department).and_then(|rest| rest.strip_prefix('-')).map_or(title.as_str(), |rest| rest);
    let title: String = if title.is_empty() || title == department { "report".to_owned() } else { title.chars().take(60).collect() };
    format!("{department}-{title}-{}.{extension}", r.period_start)
}

fn cell_text(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn time(t: Option<DateTime<Utc>>, lang: Lang) -> String {
    t.map(|t| t.format(lang.pick("%Y-%m-%d %H:%M UTC", "%d/%m/%Y %H:%M UTC")).to_string()).unwrap_or_default()
}

fn fields<'a>(r: &'a ReportFile<'a>) -> Vec<(&'static str, String)> {
    let (l, lang) = (labels(r.lang), r.lang);
    vec![
        (l.title, r.title.to_owned()),
        (l.department, department_label(r.department, lang).to_owned()),
        (l.period, format!("{} {} {}", date(r.period_start, lang), l.to, date(r.period_end, lang))),
        (l.status, status_label(r.status, lang).to_owned()),
        (l.author, r.author.to_owned()),
        (l.created, time(Some(r.created_at), lang)),
        (l.submitted, time(r.submitted_at, lang)),
        (l.reviewed_by, r.reviewer.unwrap_or_default().to_owned()),
        (l.reviewed, time(r.reviewed_at, lang)),
        (l.review_notes, r.review_notes.unwrap_or_default().to_owned()),
    ]
}

/// The data table as CSV (RFC 4180), header first. Text that a spreadsheet program would run
/// as a formula is neutralised (`csv_safe`); numbers stay numbers.
pub fn csv(r: &ReportFile<'_>) -> anyhow::Result<Vec<u8>> {
    let mut w = csv::Writer::from_writer(Vec::new());
    if !r.columns.is_empty() {
        w.write_record(r.columns.iter().map(|c| csv_safe(c)))?;
    }
    for row in r.rows {
        w.write_record(row.iter().map(|cell| match cell {
            Value::String(s) => csv_safe(s),
            other => cell_text(other),
        }))?;
    }
    Ok(w.into_inner()?)
}

/// OWASP's advice against CSV injection: text starting with `=`, `+`, `-`, `@`, a tab or a
/// carriage return is prefixed with a single quote, so spreadsheet programs show it as text
/// instead of evaluating it. Text that is a plain number (`-5`, `+3.2`) is left alone: it is
/// data, and no program runs it.
pub fn csv_safe(text: &str) -> String {
    let risky = text.starts_with(['=', '+', '-', '@', '\t', '\r']);
    let number = text.trim().parse::<f64>().is_ok_and(f64::is_finite);
    if risky && !number { format!("'{text}") } else { text.to_owned() }
}

/// Columns whose every non-empty cell is a number: the chart's series.
fn numeric_columns(r: &ReportFile<'_>) -> Vec<usize> {
    (1..r.columns.len())
        .filter(|&c| {
            let cells: Vec<&Value> = r.rows.iter().filter_map(|row| row.get(c)).filter(|v| !v.is_null()).collect();
            !cells.is_empty() && cells.iter().all(|v| v.is_number())
        })
        .collect()
}

/// A workbook with a "Report" sheet (fields and content) and, when there is data, a "Data"
/// sheet with the table and a native column chart of its numeric columns.
pub fn xlsx(r: &ReportFile<'_>) -> anyhow::Result<Vec<u8>> {
    let mut book = Workbook::new();
    let bold = Format::new().set_bold();
    let wrap = Format::new().set_text_wrap();
    let l = labels(r.lang);
    let sheet = book.add_worksheet().set_name(l.report_sheet)?;
    sheet.set_column_width(0, 16)?;
    sheet.set_column_width(1, 80)?;
    let fields = fields(r);
    for (i, (label, value)) in fields.iter().enumerate() {
        sheet.write_string_with_format(i as u32, 0, *label, &bold)?;
        sheet.write_string(i as u32, 1, value)?;
    }
    let content_row = fields.len() as u32 + 1;
    sheet.write_string_with_format(content_row, 0, l.content, &bold)?;
    sheet.write_string_with_format(content_row, 1, r.content, &wrap)?;

    if !r.columns.is_empty() {
        let data = book.add_worksheet().set_name(l.data)?;
        for (c, name) in r.columns.iter().enumerate() {
            data.write_string_with_format(0, c as u16, name, &bold)?;
            data.set_column_width(c as u16, 16)?;
        }
        for (i, row) in r.rows.iter().enumerate() {
            for (c, cell) in row.iter().enumerate() {
                let (row_n, col_n) = (i as u32 + 1, c as u16);
                match cell {
                    Value::Number(n) => {
                        data.write_number(row_n, col_n, n.as_f64().unwrap_or_default())?;
                    }
                    Value::String(s) => {
                        data.write_string(row_n, col_n, s)?;
                    }
                    _ => {}
                }
            }
        }
        let series = numeric_columns(r);
        if !series.is_empty() && !r.rows.is_empty() {
            let last = r.rows.len() as u32;
            let mut chart = Chart::new(ChartType::Column);
            chart.title().set_name(r.title);
            for c in series.into_iter().take(8) {
                chart
                    .add_series()
                    .set_name((l.data, 0, c as u16))
                    .set_categories((l.data, 1, 0, last, 0))
                    .set_values((l.data, 1, c as u16, last, c as u16));
            }
            data.insert_chart(1, r.columns.len() as u16 + 1, &chart)?;
        }
    }
    Ok(book.save_to_buffer()?)
}

/// Lays text out on A4 pages, top to bottom, starting a new page when one is full.
struct Pages {
    pages: Vec<Vec<Op>>,
    y: f32,
}

const PAGE_W: f32 = 210.0;
const PAGE_H: f32 = 297.0;
const MARGIN: f32 = 18.0;
/// The most of a data table a PDF shows (`Pages::table`).
const PDF_MAX_ROWS: usize = 1000;
const PDF_MAX_COLUMNS: usize = 12;

impl Pages {
    fn new() -> Self {
        Self { pages: vec![Vec::new()], y: PAGE_H - MARGIN }
    }

    fn space(&mut self, mm: f32) {
        self.y -= mm;
    }

    /// One line of text at `x` mm from the left, in the given font and size (pt).
    fn text_at(&mut self, x: f32, text: &str, font: BuiltinFont, size: f32) {
        let page = self.pages.last_mut().expect("one page at least");
        page.extend([
            Op::StartTextSection,
            Op::SetTextCursor { pos: Point::new(Mm(x), Mm(self.y)) },
            Op::SetFont { font: PdfFontHandle::Builtin(font), size: Pt(size) },
            Op::ShowText { items: vec![TextItem::Text(text.to_owned())] },
            Op::EndTextSection,
        ]);
    }

    fn fill(&mut self, color: [f32; 3], x: f32, y: f32, width: f32, height: f32) {
        let page = self.pages.last_mut().expect("one page at least");
        page.extend([
            Op::SetFillColor { col: Color::Rgb(Rgb { r: color[0], g: color[1], b: color[2], icc_profile: None }) },
            Op::DrawRectangle {
                rectangle: Rect {
                    x: Mm(x).into(),
                    y: Mm(y).into(),
                    width: Mm(width).into(),
                    height: Mm(height).into(),
                    mode: Some(PaintMode::Fill),
                    winding_order: None,
                },
            },
        ]);
    }

    fn rule(&mut self, color: [f32; 3], from: (f32, f32), to: (f32, f32)) {
        let page = self.pages.last_mut().expect("one page at least");
        let point = |(x, y): (f32, f32)| LinePoint { p: Point::new(Mm(x), Mm(y)), bezier: false };
        page.extend([
            Op::SetOutlineColor { col: Color::Rgb(Rgb { r: color[0], g: color[1], b: color[2], icc_profile: None }) },
            Op::DrawLine { line: Line { points: vec![point(from), point(to)], is_closed: false } },
        ]);
    }

    /// Text in black again after a colour was set for shapes.
    fn ink(&mut self) {
        self.pages
            .last_mut()
            .expect("one page at least")
            .push(Op::SetFillColor { col: Color::Rgb(Rgb { r: 0.0, g: 0.0, b: 0.0, icc_profile: None }) });
    }

    /// The report's chart as the screen draws it (`reportBarOption`): the first column's values
    /// along the bottom, one bar per number column for each row, a legend, the scale's top and
    /// zero. At most `CHART_MAX_ROWS` rows and `CHART_MAX_SERIES` columns: past that a bar is
    /// thinner than a line (the table below has every row).
    fn chart(&mut self, columns: &[String], rows: &[Vec<Value>], series: &[usize]) {
        let rows = &rows[..rows.len().min(CHART_MAX_ROWS)];
        let series = &series[..series.len().min(CHART_MAX_SERIES)];
        let value = |row: &Vec<Value>, c: usize| row.get(c).and_then(Value::as_f64).filter(|v| v.is_finite());
        let values: Vec<f64> = rows.iter().flat_map(|row| series.iter().filter_map(move |&c| value(row, c))).collect();
        if rows.is_empty() || values.is_empty() {
            return;
        }
        let (low, high) = (values.iter().copied().fold(0.0, f64::min), values.iter().copied().fold(0.0, f64::max));
        let span = if high - low > 0.0 { high - low } else { 1.0 };
        let (height, left, width) = (55.0_f32, MARGIN + 14.0, PAGE_W - 2.0 * MARGIN - 14.0);
        self.ensure(height + 18.0);
        // The legend.
        self.space(5.0);
        for (i, &c) in series.iter().enumerate() {
            let x = left + i as f32 * (width / series.len() as f32);
            self.fill(CHART_COLORS[i % CHART_COLORS.len()], x, self.y, 3.0, 3.0);
            self.ink();
            let name: String = columns[c].chars().take(28).collect();
            self.text_at(x + 4.5, &name, BuiltinFont::Helvetica, 8.0);
        }
        self.space(4.0);
        let top = self.y;
        let bottom = top - height;
        let at = |v: f64| bottom + ((v - low) / span) as f32 * height;
        let zero = at(0.0);
        // The scale: its top, zero and (when below zero) its bottom, with light rules.
        let marks = [(high > 0.0).then_some(high), Some(0.0), (low < 0.0).then_some(low)];
        for mark in marks.into_iter().flatten() {
            let y = at(mark);
            self.rule([0.85, 0.85, 0.85], (left, y), (left + width, y));
            let (saved, label) = (self.y, number_label(mark));
            self.y = y - 1.0;
            self.text_at(MARGIN, &label, BuiltinFont::Helvetica, 7.0);
            self.y = saved;
        }
        let group = width / rows.len() as f32;
        let bar = (group * 0.8 / series.len() as f32).max(0.3);
        for (r, row) in rows.iter().enumerate() {
            let x0 = left + r as f32 * group + group * 0.1;
            for (i, &c) in series.iter().enumerate() {
                if let Some(v) = value(row, c) {
                    let y = at(v);
                    self.fill(CHART_COLORS[i % CHART_COLORS.len()], x0 + i as f32 * bar, zero.min(y), bar, (y - zero).abs().max(0.2));
                }
            }
            self.ink();
            let fit = ((group / (7.0 * 0.3528 * 0.5)) as usize).max(1);
            let label = row.first().map(cell_text).unwrap_or_default();
            let label =
                if label.chars().count() > fit { format!("{}…", label.chars().take(fit.saturating_sub(1)).collect::<String>()) } else { label };
            let saved = self.y;
            self.y = bottom - 4.0;
            self.text_at(x0, &label, BuiltinFont::Helvetica, 7.0);
            self.y = saved;
        }
        self.rule([0.4, 0.4, 0.4], (left, zero), (left + width, zero));
        self.y = bottom - 6.0;
    }

    fn ensure(&mut self, mm: f32) {
        if self.y - mm < MARGIN {
            self.pages.push(Vec::new());
            self.y = PAGE_H - MARGIN;
        }
    }

    fn line(&mut self, text: &str, font: BuiltinFont, size: f32) {
        let height = size * 0.3528 * 1.45;
        self.ensure(height);
        self.space(height);
        self.text_at(MARGIN, text, font, size);
    }

    /// Wraps a paragraph to the page width (Helvetica averages about half an em a character).
    fn paragraph(&mut self, text: &str, size: f32) {
        let chars = ((PAGE_W - 2.0 * MARGIN) / (size * 0.3528 * 0.5)) as usize;
        for raw in text.lines() {
            if raw.trim().is_empty() {
                self.space(size * 0.3528);
                continue;
            }
            for l in textwrap::wrap(raw, chars) {
                self.line(&l, BuiltinFont::Helvetica, size);
            }
        }
    }

    /// The table's first `PDF_MAX_ROWS` rows and `PDF_MAX_COLUMNS` columns, and a line saying
    /// what was left out: past that a page is unreadable (a column narrower than a word), and
    /// the document's size would grow with the table (a 10,000 x 50 table took ~400 MB to lay
    /// out). The XLSX and CSV files carry the whole table.
    fn table(&mut self, columns: &[String], rows: &[Vec<Value>], lang: Lang) {
        let (all_rows, all_columns) = (rows.len(), columns.len());
        let columns = &columns[..all_columns.min(PDF_MAX_COLUMNS)];
        let rows = &rows[..all_rows.min(PDF_MAX_ROWS)];
        self.table_cells(columns, rows);
        if rows.len() < all_rows || columns.len() < all_columns {
            self.space(2.0);
            let (shown_rows, shown_columns) = (rows.len(), columns.len());
            self.line(
                &match lang {
                    Lang::En => format!(
                        "Showing {shown_rows} of {all_rows} rows and {shown_columns} of {all_columns} columns: the XLSX and CSV downloads hold the whole table."
                    ),
                    Lang::Fr => format!(
                        "{shown_rows} lignes sur {all_rows} et {shown_columns} colonnes sur {all_columns} : les téléchargements XLSX et CSV contiennent tout le tableau."
                    ),
                },
                BuiltinFont::HelveticaOblique,
                9.0,
            );
        }
    }

    fn table_cells(&mut self, columns: &[String], rows: &[Vec<Value>]) {
        let width = (PAGE_W - 2.0 * MARGIN) / columns.len().max(1) as f32;
        let fit = (width / (9.0 * 0.3528 * 0.5)) as usize;
        let clip = |s: String| if s.chars().count() > fit { format!("{}…", s.chars().take(fit.saturating_sub(1)).collect::<String>()) } else { s };
        let row_line = |pages: &mut Self, cells: Vec<String>, font: BuiltinFont| {
            pages.ensure(5.0);
            pages.space(5.0);
            for (i, cell) in cells.into_iter().enumerate() {
                pages.text_at(MARGIN + i as f32 * width, &clip(cell), font, 9.0);
            }
        };
        row_line(self, columns.to_vec(), BuiltinFont::HelveticaBold);
        for row in rows {
            row_line(self, row.iter().take(columns.len()).map(cell_text).collect(), BuiltinFont::Helvetica);
        }
    }
}

/// The bars' colours, the screen chart's first four (ECharts' default palette).
const CHART_COLORS: [[f32; 3]; 4] = [[0.329, 0.439, 0.776], [0.569, 0.800, 0.459], [0.980, 0.784, 0.345], [0.933, 0.400, 0.400]];
const CHART_MAX_ROWS: usize = 24;
const CHART_MAX_SERIES: usize = 4;
/// The product's colour, on the band at the top of every report.
const BRAND: [f32; 3] = [0.133, 0.545, 0.902];

/// A number on the chart's scale: whole when it is, else two decimals at most.
fn number_label(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 { format!("{v:.0}") } else { format!("{:.2}", v).trim_end_matches('0').trim_end_matches('.').to_owned() }
}

/// A day as a reader of the language writes it in a document: "31 March 2026", "31 mars 2026".
pub fn long_date(d: NaiveDate, lang: Lang) -> String {
    use chrono::Datelike;
    const EN: [&str; 12] = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];
    const FR: [&str; 12] = ["janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août", "septembre", "octobre", "novembre", "décembre"];
    let month = d.month0() as usize;
    match lang {
        Lang::En => format!("{} {} {}", d.day(), EN[month], d.year()),
        Lang::Fr => format!("{}{} {} {}", d.day(), if d.day() == 1 { "er" } else { "" }, FR[month], d.year()),
    }
}

/// A moment as a reader of the language writes it: "1 March 2026, 14:05 UTC", "1er mars 2026 à 14:05 UTC".
pub fn long_time(t: DateTime<Utc>, lang: Lang) -> String {
    match lang {
        Lang::En => format!("{}, {} UTC", long_date(t.date_naive(), lang), t.format("%H:%M")),
        Lang::Fr => format!("{} à {} UTC", long_date(t.date_naive(), lang), t.format("%H:%M")),
    }
}

/// A file's size as people read it: `12.4 MB`, `12,4 Mo`.
pub fn file_size(bytes: i64, lang: Lang) -> String {
    let (value, unit) = match bytes {
        b if b >= 1_000_000_000 => (b as f64 / 1e9, ["GB", "Go"]),
        b if b >= 1_000_000 => (b as f64 / 1e6, ["MB", "Mo"]),
        b if b >= 1_000 => (b as f64 / 1e3, ["kB", "ko"]),
        b => {
            return match lang {
                Lang::En => format!("{b} bytes"),
                Lang::Fr => format!("{b}\u{a0}octets"),
            };
        }
    };
    match lang {
        Lang::En => format!("{value:.1} {}", unit[0]),
        Lang::Fr => format!("{}\u{a0}{}", format!("{value:.1}").replace('.', ","), unit[1]),
    }
}

/// `Label: value`, with French typography's (no-break) space before the colon.
fn labelled(label: &str, value: &str, lang: Lang) -> String {
    match lang {
        Lang::En => format!("{label}: {value}"),
        Lang::Fr => format!("{label}\u{a0}: {value}"),
    }
}

/// An A4 document with the product's band, the report's fields, content, chart, data table and
/// review notes, in the reader's language.
pub fn pdf(r: &ReportFile<'_>) -> Vec<u8> {
    let mut p = Pages::new();
    let l = labels(r.lang);
    // The band: the product's name over a coloured rule.
    p.fill(BRAND, 0.0, PAGE_H - 8.0, PAGE_W, 8.0);
    p.ink();
    p.space(2.0);
    p.line(&format!("Enterprise Platform · {}", department_label(r.department, r.lang)), BuiltinFont::HelveticaBold, 9.0);
    p.space(3.0);
    p.line(r.title, BuiltinFont::HelveticaBold, 18.0);
    p.space(2.0);
    let period = format!("{} {} {}", long_date(r.period_start, r.lang), l.to, long_date(r.period_end, r.lang));
    let when = |t: DateTime<Utc>| long_time(t, r.lang);
    for (label, value) in fields(r).into_iter().skip(1).filter(|(label, v)| *label != l.review_notes && !v.is_empty()) {
        let value = match label {
            _ if label == l.period => period.clone(),
            _ if label == l.created => when(r.created_at),
            _ if label == l.submitted => r.submitted_at.map(when).unwrap_or(value),
            _ if label == l.reviewed => r.reviewed_at.map(when).unwrap_or(value),
            _ => value,
        };
        p.line(&labelled(label, &value, r.lang), BuiltinFont::Helvetica, 10.0);
    }
    if !r.content.trim().is_empty() {
        p.space(4.0);
        p.line(l.content, BuiltinFont::HelveticaBold, 12.0);
        p.paragraph(r.content, 10.0);
    }
    if !r.columns.is_empty() {
        p.space(4.0);
        p.line(l.data, BuiltinFont::HelveticaBold, 12.0);
        p.chart(r.columns, r.rows, &numeric_columns(r));
        p.table(r.columns, r.rows, r.lang);
    }
    if let Some(notes) = r.review_notes.filter(|n| !n.trim().is_empty()) {
        p.space(4.0);
        p.line(l.review_notes, BuiltinFont::HelveticaBold, 12.0);
        p.paragraph(notes, 10.0);
    }
    let pages = p.pages.into_iter().map(|ops| PdfPage::new(Mm(PAGE_W), Mm(PAGE_H), ops)).collect();
    let mut doc = PdfDocument::new(r.title);
    // Made now, by its author (printpdf leaves the dates at 1970-01-01).
    let now = printpdf::OffsetDateTime::from_unix_timestamp(Utc::now().timestamp()).unwrap_or_else(|_| printpdf::OffsetDateTime::epoch());
    let info = &mut doc.metadata.info;
    (info.creation_date, info.modification_date, info.metadata_date) = (now, now, now);
    r.author.clone_into(&mut info.author);
    doc.with_pages(pages).save(&PdfSaveOptions::default(), &mut Vec::new())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample<'a>(columns: &'a [String], rows: &'a [Vec<Value>]) -> ReportFile<'a> {
        ReportFile {
            title: "Q1 Budget: Revenue & Costs",
            department: DepartmentType::SalesMarketing,
            period_start: NaiveDate::from_ymd_opt(2026, 1, 1).unwrap(),
            period_end: NaiveDate::from_ymd_opt(2026, 3, 31).unwrap(),
            status: ReportStatus::Approved,
            author: "Ann Author",
            created_at: Utc::now(),
            submitted_at: None,
            reviewer: None,
            reviewed_at: None,
            review_notes: None,
            content: "Line one",
            columns,
            rows,
            lang: Lang::En,
        }
    }

    #[test]
    fn files_speak_the_reader_s_language_with_the_screens_labels() {
        let r = ReportFile { lang: Lang::Fr, ..sample(&[], &[]) };
        let fields = fields(&r);
        assert!(fields.contains(&("Statut", "Approuvé".into())), "{fields:?}");
        assert!(fields.contains(&("Département", "Ventes et marketing".into())));
        assert!(fields.contains(&("Période", "01/01/2026 au 31/03/2026".into())));
        let english = fields_of(Lang::En);
        assert!(english.contains(&("Status", "Approved".into())), "not the raw code: {english:?}");
        assert_eq!(Lang::from_accept_language("fr-CA,fr;q=0.9,en;q=0.8"), Lang::Fr);
        assert_eq!(Lang::from_accept_language("de-DE,en;q=0.5,fr;q=0.4"), Lang::En);
        assert_eq!(Lang::from_accept_language(""), Lang::En);
    }

    #[test]
    fn documents_write_dates_and_labels_as_their_reader_does() {
        let day = NaiveDate::from_ymd_opt(2026, 3, 1).unwrap();
        assert_eq!(long_date(day, Lang::En), "1 March 2026");
        assert_eq!(long_date(day, Lang::Fr), "1er mars 2026");
        assert_eq!(long_date(NaiveDate::from_ymd_opt(2026, 8, 31).unwrap(), Lang::Fr), "31 août 2026");
        assert_eq!(labelled("Département", "Finance", Lang::Fr), "Département\u{a0}: Finance");
        assert_eq!(labelled("Department", "Finance", Lang::En), "Department: Finance");
        assert_eq!((number_label(1200.0), number_label(95.5), number_label(-2.25)), ("1200".into(), "95.5".into(), "-2.25".into()));
    }

    fn fields_of(lang: Lang) -> Vec<(&'static str, String)> {
        fields(&ReportFile { lang, ..sample(&[], &[]) })
    }

    #[test]
    fn file_names_are_safe_and_descriptive() {
        let r = sample(&[], &[]);
        assert_eq!(file_name(&r, "xlsx"), "sales-marketing-q1-budget-revenue-costs-2026-01-01.xlsx");
        let named = |title| file_name(&ReportFile { title, department: DepartmentType::Finance, ..sample(&[], &[]) }, "pdf");
        assert_eq!(named("Finance Q4 close"), "finance-q4-close-2026-01-01.pdf", "the department once");
        assert_eq!(named("Financement"), "finance-financement-2026-01-01.pdf", "a word that only starts like it stays");
        assert_eq!(named("Finance"), "finance-report-2026-01-01.pdf");
    }

    #[test]
    fn a_pdf_says_when_it_was_made_and_by_whom() {
        use chrono::Datelike;
        let before = Utc::now().timestamp();
        let bytes = pdf(&sample(&[], &[]));
        let text = String::from_utf8_lossy(&bytes);
        let stamp = text.split("/CreationDate").nth(1).and_then(|rest| rest.split("(D:").nth(1)).expect("a creation date");
        let year: i32 = stamp[..4].parse().unwrap();
        assert_eq!(year, chrono::DateTime::from_timestamp(before, 0).unwrap().year(), "not 1970: {}", &stamp[..14]);
        let author = text.split("/Author").nth(1).expect("an author");
        // A text string in UTF-16BE, hexadecimal (PDF 1.7, 7.9.2.2).
        let written: String = "Ann Author".encode_utf16().map(|unit| format!("{unit:04X}")).collect();
        assert!(author.trim_start().starts_with(&format!("<FEFF{written}>")), "{}", &author[..author.len().min(60)]);
    }

    #[test]
    fn csv_quotes_what_needs_quoting() {
        let columns = vec!["Name".to_owned(), "Value".to_owned()];
        let rows = vec![vec![Value::from("a, \"b\""), Value::from(1.5)], vec![Value::Null, Value::from(2)]];
        let out = String::from_utf8(csv(&sample(&columns, &rows)).unwrap()).unwrap();
        assert_eq!(out, "Name,Value\n\"a, \"\"b\"\"\",1.5\n,2\n");
    }

    #[test]
    fn csv_cells_that_would_run_as_formulas_are_neutralised() {
        let columns = vec!["=cmd|' /C calc'!A0".to_owned(), "Value".to_owned()];
        let rows = vec![
            vec![Value::from("=HYPERLINK(\"http://evil.example\",\"click\")"), Value::from(-5)],
            vec![Value::from("+1+cmd"), Value::from("-5")],
            vec![Value::from("@SUM(A1)"), Value::from("\t=1")],
            vec![Value::from("\r=1"), Value::from("-1e3")],
            vec![Value::from("plain"), Value::from("- not a number")],
        ];
        let out = String::from_utf8(csv(&sample(&columns, &rows)).unwrap()).unwrap();
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0], "'=cmd|' /C calc'!A0,Value");
        assert_eq!(lines[1], "\"'=HYPERLINK(\"\"http://evil.example\"\",\"\"click\"\")\",-5");
        assert_eq!(lines[2], "'+1+cmd,-5");
        assert_eq!(lines[3], "'@SUM(A1),'\t=1");
        assert!(out.contains("\"'\r=1\",-1e3"), "{out:?}");
        assert_eq!(lines.last().unwrap(), &"plain,'- not a number");
    }

    #[test]
    fn a_pdf_shows_a_bounded_part_of_a_huge_table_and_says_so() {
        let columns: Vec<String> = (0..50).map(|c| format!("C{c}")).collect();
        let rows: Vec<Vec<Value>> = (0..10_000).map(|r| (0..50).map(|c| Value::from(r * 50 + c)).collect()).collect();
        let mut pages = Pages::new();
        pages.table(&columns, &rows, Lang::En);
        let ops: usize = pages.pages.iter().map(Vec::len).sum();
        // 1,001 lines of 12 cells, five operations a cell, and the note.
        assert!(ops <= 1001 * 12 * 5 + 10, "{ops} operations");
        let note = pages.pages.last().unwrap().iter().rev().find_map(|op| match op {
            Op::ShowText { items } => items.iter().find_map(|i| if let TextItem::Text(t) = i { Some(t.clone()) } else { None }),
            _ => None,
        });
        assert_eq!(note.as_deref(), Some("Showing 1000 of 10000 rows and 12 of 50 columns: the XLSX and CSV downloads hold the whole table."));
    }

    #[test]
    fn only_all_number_columns_are_charted() {
        let columns = vec!["Month".to_owned(), "Revenue".to_owned(), "Note".to_owned()];
        let rows = vec![vec![Value::from("Jan"), Value::from(1), Value::from("x")], vec![Value::from("Feb"), Value::Null, Value::from(3)]];
        assert_eq!(numeric_columns(&sample(&columns, &rows)), vec![1]);
    }
}
