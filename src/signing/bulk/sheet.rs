//! A bulk send's CSV file, read within bounds: UTF-8 (a byte-order mark is dropped), the first
//! line the header, separated by commas, or by semicolons or tabs when the header has more of
//! those (as spreadsheets write it in some locales), quoted as RFC 4180 says. Rows whose cells
//! are all empty are passed over; a row with a different number of cells than the header is
//! kept, for the preview to refuse with its line number.

use crate::core::error::{AppError, FieldError};

/// Largest file taken (the request is refused past it, 413).
pub const MAX_BYTES: u64 = 1 << 20;
/// Most columns a header may have.
pub const MAX_COLUMNS: usize = 200;
/// Longest cell, in characters.
pub const MAX_CELL: usize = 2_000;

/// The file's header and its rows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sheet {
    pub header: Vec<String>,
    pub rows: Vec<Line>,
}

/// A data row: the line of the file it starts on (the header is line 1) and its cells,
/// trimmed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    pub line: u64,
    pub cells: Vec<String>,
}

/// The sheet in `bytes`, with at most `max_rows` rows (a 400 beyond, saying how many there
/// are): a 400 naming the problem when it is not a CSV file with a header and a row.
pub fn read(bytes: &[u8], max_rows: usize) -> Result<Sheet, AppError> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let text = std::str::from_utf8(bytes).map_err(|e| {
        refused(format!(
            "the file is not UTF-8 text (a byte at offset {} is not): save it as \"CSV UTF-8\"",
            e.valid_up_to()
        ))
    })?;
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(delimiter(text))
        .has_headers(false)
        .flexible(true)
        .trim(csv::Trim::All)
        .from_reader(text.as_bytes());
    let mut header: Option<Vec<String>> = None;
    let mut rows = Vec::new();
    let mut record = csv::StringRecord::new();
    loop {
        match reader.read_record(&mut record) {
            Ok(false) => break,
            Ok(true) => {}
            Err(e) => {
                let at = e.position().map(|p| p.line()).unwrap_or(0);
                return Err(refused(format!(
                    "line {at} cannot be read as CSV: {}",
                    e.kind_text()
                )));
            }
        }
        let line = record
            .position()
            .map(|p| line_at(text, p.byte() as usize))
            .unwrap_or(0);
        if record.iter().all(str::is_empty) {
            continue;
        }
        if let Some(long) = record.iter().find(|c| c.chars().count() > MAX_CELL) {
            let start: String = long.chars().take(20).collect();
            return Err(refused(format!(
                "line {line}: a cell (\"{start}...\") is longer than {MAX_CELL} characters"
            )));
        }
        let cells: Vec<String> = record.iter().map(String::from).collect();
        match &header {
            None => {
                if cells.len() > MAX_COLUMNS {
                    return Err(refused(format!(
                        "the header has {} columns; at most {MAX_COLUMNS}",
                        cells.len()
                    )));
                }
                header = Some(cells);
            }
            Some(_) => {
                if rows.len() == max_rows {
                    let total = max_rows + 1 + count_rest(&mut reader);
                    return Err(refused(format!(
                        "the file has {total} rows; a bulk send takes at most {max_rows}: split it"
                    )));
                }
                rows.push(Line { line, cells });
            }
        }
    }
    let Some(header) = header else {
        return Err(refused(
            "the file is empty: the first line names the columns",
        ));
    };
    if rows.is_empty() {
        return Err(refused(
            "the file has a header and no rows: one row for each document to send",
        ));
    }
    Ok(Sheet { header, rows })
}

/// The line (from 1) of the first text at or after byte `at`: the reader's record positions
/// start before the blank lines it passes over.
fn line_at(text: &str, at: usize) -> u64 {
    let head = &text.as_bytes()[..at.min(text.len())];
    let mut line = 1 + head.iter().filter(|b| **b == b'\n').count() as u64;
    for b in &text.as_bytes()[at.min(text.len())..] {
        match b {
            b'\n' => line += 1,
            b'\r' => {}
            _ => break,
        }
    }
    line
}

/// The rows left after the one that passed the maximum (those with a cell that is not empty).
fn count_rest(reader: &mut csv::Reader<&[u8]>) -> usize {
    let mut record = csv::StringRecord::new();
    let mut n = 0;
    while let Ok(true) = reader.read_record(&mut record) {
        n += usize::from(!record.iter().all(str::is_empty));
    }
    n
}

/// The separator the header line uses the most of: a comma, a semicolon or a tab (commas
/// when none).
fn delimiter(text: &str) -> u8 {
    let first = text.lines().next().unwrap_or("");
    let mut quoted = false;
    let mut counts = [0usize; 3];
    for c in first.chars() {
        match c {
            '"' => quoted = !quoted,
            ',' if !quoted => counts[0] += 1,
            ';' if !quoted => counts[1] += 1,
            '\t' if !quoted => counts[2] += 1,
            _ => {}
        }
    }
    let seps = [b',', b';', b'\t'];
    let best = (0..3)
        .max_by_key(|&i| (counts[i], usize::from(i == 0)))
        .unwrap_or(0);
    seps[best]
}

/// A 400 about the file as a whole.
pub fn refused(message: impl Into<String>) -> AppError {
    let message = message.into();
    AppError::BadRequest {
        code: "invalid_csv",
        message: format!("the CSV file cannot be used: {message}"),
        details: vec![FieldError::new("file", message)],
    }
}

trait KindText {
    fn kind_text(&self) -> String;
}

impl KindText for csv::Error {
    /// The problem without the position (the message gives the line).
    fn kind_text(&self) -> String {
        match self.kind() {
            csv::ErrorKind::Utf8 { .. } => "it is not UTF-8 text".into(),
            _ => "unexpected text".into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(r: Result<Sheet, AppError>) -> String {
        r.unwrap_err().to_string()
    }

    #[test]
    fn reads_quoted_cells_skips_empty_rows_and_numbers_lines() {
        let text = "\u{feff}recipient_1_name,recipient_1_email,Address\n\
                    Ann,ann@example.com,\"1 Main St, Springfield\"\n\
                    ,,\n\
                    \n\
                    \"Bo \"\"B\"\"\", bo@example.com ,\"two\nlines\"\n\
                    Cy,cy@example.com\n";
        let s = read(text.as_bytes(), 10).unwrap();
        assert_eq!(
            s.header,
            ["recipient_1_name", "recipient_1_email", "Address"]
        );
        let lines: Vec<(u64, Vec<&str>)> = s
            .rows
            .iter()
            .map(|l| (l.line, l.cells.iter().map(String::as_str).collect()))
            .collect();
        assert_eq!(
            lines,
            [
                (2, vec!["Ann", "ann@example.com", "1 Main St, Springfield"]),
                (5, vec!["Bo \"B\"", "bo@example.com", "two\nlines"]),
                (7, vec!["Cy", "cy@example.com"]),
            ]
        );
    }

    #[test]
    fn takes_the_separator_the_header_uses() {
        let s = read(
            b"recipient_1_name;recipient_1_email\nAnn, Jr;ann@example.com\n",
            10,
        )
        .unwrap();
        assert_eq!(s.rows[0].cells, ["Ann, Jr", "ann@example.com"]);
        let s = read(b"a\tb\n1\t2\n", 10).unwrap();
        assert_eq!(s.rows[0].cells, ["1", "2"]);
        let s = read(b"\"a;b\",c\n1,2\n", 10).unwrap();
        assert_eq!(s.header, ["a;b", "c"]);
    }

    #[test]
    fn refuses_what_is_no_usable_file() {
        assert!(message(read(b"", 10)).contains("empty"));
        assert!(message(read(b"a,b\n\n,\n", 10)).contains("no rows"));
        assert!(message(read(b"a,b\n\xff\xfe,1\n", 10)).contains("UTF-8"));
        let many = format!("a\n{}", "x\n".repeat(12));
        let m = message(read(many.as_bytes(), 10));
        assert!(m.contains("has 12 rows") && m.contains("at most 10"), "{m}");
        let wide = vec!["c"; MAX_COLUMNS + 1].join(",");
        assert!(message(read(format!("{wide}\n1\n").as_bytes(), 10)).contains("columns"));
        let long = format!("a\n{}\n", "y".repeat(MAX_CELL + 1));
        assert!(message(read(long.as_bytes(), 10)).contains("longer than"));
        // An unclosed quote runs to the end: one cell, which the preview refuses for the row.
        let s = read(b"a,b\n\"open,1\n", 10).unwrap();
        assert_eq!(s.rows[0].cells, ["open,1"]);
    }
}
