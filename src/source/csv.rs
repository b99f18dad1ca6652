//! CSV (RFC 4180): fields separated by commas, optionally in double quotes, which may hold commas, doubled
//! quotes (`""`) and line breaks; rows end in `\n` or `\r\n`. Read with the `csv` crate (flexible rows, no
//! allocation per row), which replaced a hand-written byte-at-a-time reader because it is faster: on the same
//! 1,000,000-row file (58 MB, `pk,count` and three text columns with quoted fields; `benches/csv_load.sh`,
//! release build, best of 3) the `csv` crate loads in 0.21–0.23 s, the hand-written reader took 0.30–0.31 s.
//!
//! The first row is the header, unless `--csv-columns a,b,c` names the columns (as DynamoDB's Import from S3
//! takes a header list for files without one): then every row is data. The key column is `--key COLUMN`, else
//! the first column named like a key (`pk`, `PK`, `id`, …, or ending in `id`), else the first column. An
//! optional `count` column makes each row that many writes of its key, so `key,count` aggregates (from logs,
//! Contributor Insights, a `GROUP BY`) load exactly. An optional sort key column (`--sort-key`, or named like
//! `sk`) feeds the per-key item facts. Keys are read as `--key-type` (default S).
//!
//! **Ragged rows** (more or fewer fields than the header) are read when the key, sort key and count columns are
//! there, and reported once as a warning with counts ("84 rows have 11 fields, the header has 10"); a row too
//! short to hold them is a bad record. A file that ends inside a quoted field is an error (the quote count
//! is odd); a row is at most [`MAX_LINE_BYTES`] long.

use super::item::{PK_NAMES, SK_NAMES};
use super::read::Compression;
use std::collections::BTreeMap;
use std::io::{BufRead, Read};
use std::path::Path;

use super::item::{KeyNames, Scratch};
use super::read::{FileLoad, MAX_LINE_BYTES, Sink, TICK_LINES};
use super::{At, LoadOptions, SourceError};
use crate::model::keyexpr::Value;

/// The columns a CSV file's header (or `--csv-columns`) picks.
struct Columns {
    names: Vec<String>,
    key: usize,
    sort_key: Option<usize>,
    count: Option<usize>,
    /// The column of each attribute the design extracts ([`Scratch::extract`]), when the file has it.
    extract: Vec<Option<usize>>,
}

impl Columns {
    fn width(&self) -> usize {
        self.names.len()
    }

    /// The last field a row must have.
    fn needed(&self) -> usize {
        self.key
            .max(self.sort_key.unwrap_or(0))
            .max(self.count.unwrap_or(0))
    }
}

fn columns(
    names: Vec<String>,
    from: &str,
    opts: &LoadOptions,
    sink: &mut Sink,
) -> Result<Columns, String> {
    let find = |want: &str| {
        names
            .iter()
            .position(|n| n == want)
            .or_else(|| names.iter().position(|n| n.eq_ignore_ascii_case(want)))
    };
    let listed = || names.join(", ");
    let (key, guessed) = match opts.key.as_deref() {
        Some(k) => (
            find(k).ok_or_else(|| {
                format!(
                    "no column named {k:?}; expected one of the {from}: {}",
                    listed()
                )
            })?,
            false,
        ),
        None => {
            let by_name = PK_NAMES.iter().find_map(|k| find(k)).or_else(|| {
                names
                    .iter()
                    .position(|n| n.len() > 2 && n.to_ascii_lowercase().ends_with("id"))
            });
            (by_name.unwrap_or(0), true)
        }
    };
    let sort_key = match opts.sort_key.as_deref() {
        Some(s) => Some(find(s).ok_or_else(|| {
            format!(
                "no column named {s:?}; expected one of the {from}: {}",
                listed()
            )
        })?),
        None => SK_NAMES.iter().find_map(|k| find(k)).filter(|&i| i != key),
    };
    let count = find("count").filter(|&i| i != key && Some(i) != sort_key);
    if guessed && names.len() > 1 {
        sink.warn(format!(
            "CSV key column guessed: {:?}{} (pass --key COLUMN to choose)",
            names[key],
            sort_key.map_or_else(String::new, |s| format!(", sort key column {:?}", names[s]))
        ));
    }
    sink.names = Some(KeyNames {
        pk: names[key].clone(),
        sk: sort_key.map(|s| names[s].clone()),
        guessed,
    });
    let extract = opts
        .design
        .roots()
        .iter()
        .map(|root| names.iter().position(|n| n == root))
        .collect();
    Ok(Columns {
        names,
        key,
        sort_key,
        count,
        extract,
    })
}

/// Counts the double quotes read (an odd count at the end means the file ends inside a quoted field), and
/// stops a row that grows past [`MAX_ROW_TEXT`] bytes before the `csv` crate holds it all: the crate grows its
/// record buffer until the row ends, so `/dev/zero`, or a quote never closed followed by endless lines, took
/// memory until an allocation failed and the process aborted. A row ends at a line break read with an even
/// count of quotes so far (`""` inside a quoted field keeps it even; a stray quote in an unquoted field, which
/// the crate takes as text, makes the rows up to the next one count as one here, so the limit is generous).
struct Quotes<'r> {
    inner: &'r mut dyn BufRead,
    quotes: u64,
    /// Bytes read of the current row.
    row_bytes: u64,
    /// Line feeds read, and the line the current row began on.
    lines: u64,
    row_line: u64,
    /// The line a row over the limit began on.
    too_long: Option<u64>,
}

/// The most text one CSV row may take with its separators and quotes before it is refused unread: twice
/// [`MAX_LINE_BYTES`], which [`load_csv`] checks exactly on the row's fields.
const MAX_ROW_TEXT: u64 = 2 * MAX_LINE_BYTES as u64;

impl Read for Quotes<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        let data = buf.get(..n).unwrap_or_default();
        let mut row_start = 0;
        for i in memchr::memchr3_iter(b'"', b'\n', b'\r', data) {
            match data.get(i) {
                Some(b'"') => self.quotes += 1,
                Some(&c) if self.quotes.is_multiple_of(2) => {
                    self.row_bytes += (i - row_start) as u64;
                    self.check()?;
                    self.row_bytes = 0;
                    row_start = i + 1;
                    if c == b'\n' {
                        self.lines += 1;
                    }
                    self.row_line = self.lines + 1;
                }
                Some(b'\n') => self.lines += 1,
                _ => {}
            }
        }
        self.row_bytes += (n - row_start) as u64;
        self.check()?;
        Ok(n)
    }
}

impl Quotes<'_> {
    fn check(&mut self) -> std::io::Result<()> {
        if self.row_bytes > MAX_ROW_TEXT {
            self.too_long = Some(self.row_line);
            return Err(std::io::Error::other("row too long"));
        }
        Ok(())
    }
}

fn row_too_long(name: &Path, line: u64) -> SourceError {
    SourceError::record(
        name,
        At::Line(line),
        format!("row is over {MAX_LINE_BYTES} bytes; expected rows of keys"),
    )
}

/// Loads a CSV file.
pub fn load_csv(cx: FileLoad<'_, '_>) -> Result<(), SourceError> {
    let (reader, compression, name, opts, sink, tick) = cx.into_parts();
    if sink.key_type.is_none() {
        sink.key_type = Some(sink.keys.key_type());
    }
    let mut cols = match &opts.csv_columns {
        Some(names) => Some(
            columns(names.clone(), "--csv-columns", opts, sink)
                .map_err(|what| SourceError::record(name, At::File, what))?,
        ),
        None => None,
    };
    let quotes = Quotes {
        inner: reader,
        quotes: 0,
        row_bytes: 0,
        lines: 0,
        row_line: 1,
        too_long: None,
    };
    let mut csv = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .buffer_capacity(256 << 10)
        .from_reader(quotes);
    let mut row = csv::ByteRecord::new();
    let mut scratch = Scratch::for_load(opts);
    let mut rows = 0u64;
    let mut line = 0u64;
    // Rows read whose width is not the header's: width → rows.
    let mut ragged: BTreeMap<usize, u64> = BTreeMap::new();
    loop {
        match csv.read_byte_record(&mut row) {
            Ok(true) => {}
            Ok(false) => break,
            Err(_) if let Some(at) = csv.get_ref().too_long => return Err(row_too_long(name, at)),
            Err(e) => return Err(csv_error(e, name, compression, line)),
        }
        line = row.position().map_or(line + 1, csv::Position::line);
        if row.as_slice().len() > MAX_LINE_BYTES {
            return Err(row_too_long(name, line));
        }
        if row.len() == 1 && row.as_slice().is_empty() {
            continue;
        }
        let Some(c) = cols.as_ref() else {
            cols = Some(
                columns(header_names(&row), "header's", opts, sink)
                    .map_err(|what| SourceError::record(name, At::Line(line), what))?,
            );
            continue;
        };
        rows += 1;
        if rows.is_multiple_of(TICK_LINES) {
            tick(line, rows)?;
        }
        if row.len() != c.width() && row.len() > c.needed() {
            *ragged.entry(row.len()).or_default() += 1;
        }
        if !scratch.extract.is_empty() && !scratch.names_done {
            scratch.names.clone_from(&c.names);
            scratch.names_done = true;
        }
        let result = csv_row(&row, c, sink, &mut scratch)
            .map_err(|what| SourceError::record(name, At::Line(line), what));
        sink.check(result)?;
    }
    if csv.get_ref().quotes % 2 == 1 {
        return Err(SourceError::record(
            name,
            At::Line(line),
            "a quoted field is never closed; expected a closing '\"'",
        ));
    }
    if let Some(c) = &cols {
        warn_ragged(&ragged, c, name, sink, opts);
    }
    sink.lines += line;
    sink.shape = Some(if opts.csv_columns.is_some() {
        "CSV without a header (columns from --csv-columns)".to_owned()
    } else {
        "CSV with a header".to_owned()
    });
    Ok(())
}

/// The column names of a header row, trimmed (and without a byte order mark).
fn header_names(row: &csv::ByteRecord) -> Vec<String> {
    row.iter()
        .map(|f| {
            String::from_utf8_lossy(f)
                .trim()
                .trim_start_matches('\u{feff}')
                .to_owned()
        })
        .collect()
}

/// One warning per row width that is not the header's (`ragged`: width → rows).
fn warn_ragged(
    ragged: &BTreeMap<usize, u64>,
    c: &Columns,
    name: &Path,
    sink: &mut Sink,
    opts: &LoadOptions,
) {
    for (&width, &n) in ragged {
        sink.warn(format!(
            "{n} row{} {} {width} field{}, the {} {}; read by the key column {:?} (in {})",
            if n == 1 { "" } else { "s" },
            if n == 1 { "has" } else { "have" },
            if width == 1 { "" } else { "s" },
            if opts.csv_columns.is_some() {
                "--csv-columns list has"
            } else {
                "header has"
            },
            c.width(),
            c.names[c.key],
            name.display()
        ));
    }
}

fn csv_error(e: csv::Error, name: &Path, compression: Compression, line: u64) -> SourceError {
    match e.into_kind() {
        csv::ErrorKind::Io(io) if compression != Compression::None => {
            compression.corrupt(name, Some(line), &io)
        }
        csv::ErrorKind::Io(source) => SourceError::Io {
            name: name.to_path_buf(),
            source,
        },
        other => SourceError::record(name, At::Line(line + 1), format!("invalid CSV: {other:?}")),
    }
}

/// The row's cells of the columns the design extracts into `scratch.values`, as strings (an empty cell or a
/// missing one is no value, as DynamoDB's Import from S3 leaves the attribute out).
fn row_values(row: &csv::ByteRecord, c: &Columns, scratch: &mut Scratch) -> Result<(), String> {
    for (slot, col) in scratch.values.iter_mut().zip(&c.extract) {
        let cell = col
            .and_then(|i| Some((i, row.get(i)?)))
            .filter(|(_, cell)| !cell.is_empty());
        *slot = match cell {
            None => None,
            Some((i, cell)) => Some(Value::S(String::from_utf8(cell.to_vec()).map_err(
                |_| {
                    format!(
                        "column {:?} is not valid UTF-8",
                        c.names.get(i).map_or("", String::as_str)
                    )
                },
            )?)),
        };
    }
    Ok(())
}

fn csv_row(
    row: &csv::ByteRecord,
    c: &Columns,
    sink: &mut Sink,
    scratch: &mut Scratch,
) -> Result<(), String> {
    if row.len() <= c.needed() {
        let (what, i) = [
            Some(("key", c.key)),
            c.sort_key.map(|i| ("sort key", i)),
            c.count.map(|i| ("count", i)),
        ]
        .into_iter()
        .flatten()
        .find(|&(_, i)| i >= row.len())
        .unwrap_or(("key", c.key));
        return Err(format!(
            "row has {} field{}; expected at least {} for the {what} column {:?} (the {} {})",
            row.len(),
            if row.len() == 1 { "" } else { "s" },
            i + 1,
            c.names[i],
            "header has",
            c.width()
        ));
    }
    let field = |i: usize| row.get(i).unwrap_or_default();
    let count = match c.count {
        None => 1,
        Some(i) => {
            let text = String::from_utf8_lossy(field(i));
            text.trim().parse::<u64>().map_err(|_| {
                format!(
                    "count {:?} is not a whole number of writes (0 or more)",
                    text.trim()
                )
            })?
        }
    };
    if count == 0 {
        return Ok(());
    }
    let pk = field(c.key);
    let sk = c.sort_key.map(field);
    if !scratch.extract.is_empty() {
        row_values(row, c, scratch)?;
    }
    sink.add_text_with(pk, sk, count, scratch)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::KeyType;
    use crate::source::read::load_text;

    fn load(text: &str, opts: &LoadOptions) -> Result<Sink, SourceError> {
        load_text(text, "k.csv", opts, load_csv)
    }

    #[test]
    fn quoting_counts_and_columns() {
        let text = "name,PK,count\r\n\"x, y\",\"a,\"\"b\"\"\",3\r\nz,\"multi\nline\",2\r\nq,\"a,\"\"b\"\"\",1";
        let sink = load(text, &LoadOptions::default()).unwrap();
        assert_eq!(sink.keys.total(), 6);
        assert_eq!(sink.keys.count(sink.keys.find(b"a,\"b\"").unwrap()), 4);
        assert_eq!(sink.keys.count(sink.keys.find(b"multi\nline").unwrap()), 2);
        assert_eq!(sink.names.as_ref().unwrap().pk, "PK");
        let opts = LoadOptions {
            key: Some("name".into()),
            ..LoadOptions::default()
        };
        let sink = load(text, &opts).unwrap();
        assert_eq!(sink.keys.count(sink.keys.find(b"x, y").unwrap()), 3);
    }

    #[test]
    fn ragged_rows_are_read_by_the_key_column_and_counted() {
        let sink = load("pk,v\na,1\nb\nc,1,x\nd,1,y\n", &LoadOptions::default()).unwrap();
        assert_eq!(sink.keys.total(), 4);
        assert!(
            sink.warnings
                .iter()
                .any(|w| w.starts_with("2 rows have 3 fields, the header has 2")),
            "{:?}",
            sink.warnings
        );
        assert!(
            sink.warnings
                .iter()
                .any(|w| w.starts_with("1 row has 1 field, the header has 2")),
            "{:?}",
            sink.warnings
        );
    }

    #[test]
    fn columns_named_on_the_command_line() {
        let opts = LoadOptions {
            csv_columns: Some(vec!["id".into(), "name".into(), "state".into()]),
            key: Some("state".into()),
            ..LoadOptions::default()
        };
        let sink = load("1,a,TX\n2,b,CA\n3,c,TX,extra\n", &opts).unwrap();
        assert_eq!(sink.keys.total(), 3);
        assert_eq!(sink.keys.count(sink.keys.find(b"TX").unwrap()), 2);
        assert!(
            sink.warnings
                .iter()
                .any(|w| w.starts_with("1 row has 4 fields, the --csv-columns list has 3")),
            "{:?}",
            sink.warnings
        );
        let opts = LoadOptions {
            key: Some("nope".into()),
            ..opts
        };
        let e = load("1,a,TX\n", &opts).unwrap_err();
        assert!(
            e.to_string().contains(
                "no column named \"nope\"; expected one of the --csv-columns: id, name, state"
            ),
            "{e}"
        );
    }

    #[test]
    fn number_keys_and_sort_keys() {
        let opts = LoadOptions {
            key_type: Some(KeyType::N),
            ..LoadOptions::default()
        };
        let sink = load("id,sk\n1,a\n1.0,b\n2,a\n", &opts).unwrap();
        assert_eq!(sink.keys.len(), 2);
        let facts = sink
            .keys
            .sort_key_facts(sink.keys.find(b"1").unwrap())
            .unwrap();
        assert_eq!(facts.items, 2);
    }

    #[test]
    fn extracted_columns_are_strings_and_empty_cells_are_missing() {
        use crate::model::design::{Design, parse_key};
        let opts = LoadOptions {
            design: Design {
                // A sparse index only extracts: no record is bad for lacking an attribute.
                gsis: vec![crate::model::design::GsiSpec {
                    name: "t".into(),
                    key: parse_key("{status}#{amount}#{nope}").unwrap(),
                    sort_key: None,
                }],
                ..Design::default()
            },
            ..LoadOptions::default()
        };
        let mut sink = Sink::new(&opts);
        let header = ["pk", "status", "amount"].map(String::from).to_vec();
        let c = columns(header, "header's", &opts, &mut sink).unwrap();
        let mut sc = Scratch::for_load(&opts);
        assert_eq!(sc.extract, ["amount", "nope", "status"]);
        row_values(&csv::ByteRecord::from(vec!["a", "ACTIVE", ""]), &c, &mut sc).unwrap();
        assert_eq!(sc.values, [None, None, Some(Value::S("ACTIVE".into()))]);
        row_values(
            &csv::ByteRecord::from(vec!["a", " x ", "1.50"]),
            &c,
            &mut sc,
        )
        .unwrap();
        assert_eq!(
            sc.values,
            [
                Some(Value::S("1.50".into())),
                None,
                Some(Value::S(" x ".into()))
            ],
            "cells are text, as they are"
        );
        row_values(&csv::ByteRecord::from(vec!["b"]), &c, &mut sc).unwrap();
        assert_eq!(sc.values, [None, None, None], "a short row has none");
        let bad = csv::ByteRecord::from(vec![&b"a"[..], b"\xff", b"1"]);
        let e = row_values(&bad, &c, &mut sc).unwrap_err();
        assert_eq!(e, "column \"status\" is not valid UTF-8");
        let sink = load("pk,status\na,X\nb,\n", &opts).unwrap();
        assert_eq!(sink.keys.total(), 2);
    }

    #[test]
    fn errors() {
        let opts = LoadOptions::default();
        let e = load("v,pk\n1,a\n2\n", &opts).unwrap_err();
        assert_eq!(
            e.to_string(),
            "line 3: row has 1 field; expected at least 2 for the key column \"pk\" (the header has 2) (in k.csv)"
        );
        let e = load("pk,count\na,x\n", &opts).unwrap_err();
        assert!(e.to_string().starts_with("line 2: count \"x\""), "{e}");
        let e = load("pk\n\"a\n", &opts).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("line 2: a quoted field is never closed"),
            "{e}"
        );
        // The csv crate reads a quote inside a field as text, as most CSV readers do.
        let sink = load("pk\n\"a\"b\n", &opts).unwrap();
        assert_eq!(sink.keys.find(b"ab").map(|i| sink.keys.count(i)), Some(1));
        let opts = LoadOptions {
            key: Some("nope".into()),
            ..LoadOptions::default()
        };
        let e = load("pk,v\n", &opts).unwrap_err();
        assert!(e.to_string().contains("no column named \"nope\""), "{e}");
    }

    #[test]
    fn a_row_that_never_ends_stops_at_the_limit() {
        let opts = LoadOptions::default();
        let too_long =
            format!("line 2: row is over {MAX_LINE_BYTES} bytes; expected rows of keys (in k.csv)");
        // A quote never closed, then short lines: one row, stopped while it is read.
        let lines = "a\n".repeat(MAX_ROW_TEXT as usize / 2 + 1);
        let e = load(&format!("pk\n\"{lines}"), &opts).unwrap_err();
        assert_eq!(e.to_string(), too_long);
        // One long line with no line break at all.
        let e = load(
            &format!("pk\n{}", "a".repeat(MAX_ROW_TEXT as usize + 1)),
            &opts,
        )
        .unwrap_err();
        assert_eq!(e.to_string(), too_long);
        // Quoted line breaks within the limit are one row, and rows after it are counted on their own.
        let quoted = format!(
            "pk,v\n\"{}\",1\n{}b,2\n",
            "x\n".repeat(1000),
            format!("c,{}\n", "v".repeat(1021)).repeat(MAX_ROW_TEXT as usize / 1024 + 1)
        );
        let sink = load(&quoted, &opts).unwrap();
        assert_eq!(sink.keys.len(), 3);
    }
}
