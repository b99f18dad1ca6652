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

use super::json::item::{PK_NAMES, SK_NAMES};
use super::read::Compression;
use crate::source::{Hint, Message};
use std::collections::{BTreeMap, VecDeque};
use std::io::{BufRead, Read};
use std::path::Path;

use super::json::item::{KeyNames, Scratch};
use super::read::{FileLoad, MAX_LINE_BYTES, Sink, TICK_LINES};
use super::{At, CsvHeader, LoadOptions, SourceError};
use crate::model::keyexpr::Value;
use header::{SAMPLE_ROWS, first_row_is_data};

mod header;

/// The columns a CSV file's header (or `--csv-columns`) picks.
struct Columns {
    names: Vec<String>,
    key: usize,
    sort_key: Option<usize>,
    count: Option<usize>,
    /// The column of each attribute the design extracts ([`Scratch::extract`]), when the file has it.
    extract: Vec<Option<usize>>,
    /// Rows are items (columns besides the key columns, and no count column), so they are sized.
    items: bool,
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

/// The columns of `names` the load reads; `from` says where the names came from ("header's", or the CSV
/// columns the user named) in a column that is not there.
fn columns(
    names: Vec<String>,
    from: impl Into<Message>,
    opts: &LoadOptions,
    sink: &mut Sink,
) -> Result<Columns, Message> {
    let from = from.into();
    let find = |want: &str| {
        names
            .iter()
            .position(|n| n == want)
            .or_else(|| names.iter().position(|n| n.eq_ignore_ascii_case(want)))
    };
    let missing = |want: &str| {
        let mut m = Message::new(format!("no column named {want:?}; expected one of the "));
        m.push(&from);
        m.push_str(&format!(": {}", names.join(", ")));
        m
    };
    let (key, guessed) = match opts.key.as_deref() {
        Some(k) => (find(k).ok_or_else(|| missing(k))?, false),
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
        Some(s) => Some(find(s).ok_or_else(|| missing(s))?),
        None => SK_NAMES.iter().find_map(|k| find(k)).filter(|&i| i != key),
    };
    let count = find("count").filter(|&i| i != key && Some(i) != sort_key);
    if guessed && names.len() > 1 {
        let sk = sort_key.map_or_else(String::new, |s| format!(", sort key column {:?}", names[s]));
        sink.warn(Message::hinted(
            format!("CSV key column guessed: {:?}{sk} (", names[key]),
            Hint::ChooseKeyColumn,
            " to choose)",
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
    let items = count.is_none() && names.len() > 1 + usize::from(sort_key.is_some());
    Ok(Columns {
        names,
        key,
        sort_key,
        count,
        extract,
        items,
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
            columns(
                names.clone(),
                Message::hinted("", Hint::CsvColumns, ""),
                opts,
                sink,
            )
            .map_err(|what| SourceError::record(name, At::File, what))?,
        ),
        None => None,
    };
    let mut csv = csv_reader(reader);
    let mut row = csv::ByteRecord::new();
    let mut scratch = Scratch::for_load(opts);
    let mut rows = 0u64;
    let mut line = 0u64;
    // Rows read whose width is not the header's: width → rows.
    let mut ragged: BTreeMap<usize, u64> = BTreeMap::new();
    // The first rows, read ahead to tell whether the first is a header; then loaded as any other row.
    let mut sample: VecDeque<(csv::ByteRecord, u64)> = VecDeque::new();
    let mut header_less = None;
    if cols.is_none() && opts.csv_header != CsvHeader::Yes {
        let first_is_data;
        (sample, first_is_data) = read_ahead(&mut csv, &mut line, name, compression, opts, sink)?;
        if let Some((c, listed)) = first_is_data {
            cols = Some(c);
            header_less = Some(listed);
        }
    }
    loop {
        if let Some((r, l)) = sample.pop_front() {
            (row, line) = (r, l);
        } else if !read_row(&mut csv, &mut row, &mut line, name, compression)? {
            break;
        } else if blank(&row) {
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
        let against = ragged_against(opts, header_less.is_some());
        warn_ragged(&ragged, c, name, sink, &against);
    }
    sink.lines += line;
    sink.shape = Some(shape(opts, header_less));
    Ok(())
}

/// The CSV reader (RFC 4180, rows of any width, no header: the loader decides) over [`Quotes`].
fn csv_reader(reader: &mut dyn BufRead) -> csv::Reader<Quotes<'_>> {
    let quotes = Quotes {
        inner: reader,
        quotes: 0,
        row_bytes: 0,
        lines: 0,
        row_line: 1,
        too_long: None,
    };
    csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .buffer_capacity(256 << 10)
        .from_reader(quotes)
}

/// What the file was read as, for the load's summary; `header_less` lists the columns of a first row read as
/// data.
fn shape(opts: &LoadOptions, header_less: Option<String>) -> Message {
    match header_less {
        _ if opts.csv_columns.is_some() => Message::hinted(
            "CSV without a header (columns from ",
            Hint::CsvColumnsSetting,
            ")",
        ),
        Some(listed) => format!("CSV without a header (columns {listed})").into(),
        None => "CSV with a header".into(),
    }
}

/// What [`read_ahead`] gives: the rows read ahead (with their lines), and when the first row is data, its
/// columns (`col1, col2, …`) with their names listed for messages.
type ReadAhead = (VecDeque<(csv::ByteRecord, u64)>, Option<(Columns, String)>);

/// Reads the first rows ahead (up to [`SAMPLE_ROWS`] below the first) to tell whether the first is a header:
/// it is data when told so (`--csv-header no`) or, under `auto`, when it is shaped like the rows below it
/// (with a warning that says so).
fn read_ahead(
    csv: &mut csv::Reader<Quotes<'_>>,
    line: &mut u64,
    name: &Path,
    compression: Compression,
    opts: &LoadOptions,
    sink: &mut Sink,
) -> Result<ReadAhead, SourceError> {
    let mut row = csv::ByteRecord::new();
    let mut sample = VecDeque::new();
    while sample.len() <= SAMPLE_ROWS && read_row(csv, &mut row, line, name, compression)? {
        if !blank(&row) {
            sample.push_back((row.clone(), *line));
        }
    }
    let cells: Vec<Vec<String>> = sample.iter().map(|(r, _)| header_names(r)).collect();
    let guessed = opts.csv_header == CsvHeader::Auto;
    if let Some((first, below)) = cells.split_first()
        && (!guessed || first_row_is_data(first, below))
    {
        let names: Vec<String> = (1..=first.len()).map(|i| format!("col{i}")).collect();
        let listed = short_list(&names);
        if guessed {
            sink.warn(Message::hinted(
                format!(
                    "CSV first row read as data, not a header (it is shaped like the rows below it): columns \
                     named {listed} ("
                ),
                Hint::CsvHeaderOrColumns,
                &format!(") (in {})", name.display()),
            ));
        }
        let cols = columns(names, "columns of a CSV file without a header", opts, sink)
            .map_err(|what| SourceError::record(name, At::File, what))?;
        return Ok((sample, Some((cols, listed))));
    }
    Ok((sample, None))
}

/// Reads the next row into `row` and its line into `line`; `false` at the end of the file.
fn read_row(
    csv: &mut csv::Reader<Quotes<'_>>,
    row: &mut csv::ByteRecord,
    line: &mut u64,
    name: &Path,
    compression: Compression,
) -> Result<bool, SourceError> {
    match csv.read_byte_record(row) {
        Ok(true) => {}
        Ok(false) => return Ok(false),
        Err(_) if let Some(at) = csv.get_ref().too_long => return Err(row_too_long(name, at)),
        Err(e) => return Err(csv_error(e, name, compression, *line)),
    }
    *line = row.position().map_or(*line + 1, csv::Position::line);
    if row.as_slice().len() > MAX_LINE_BYTES {
        return Err(row_too_long(name, *line));
    }
    Ok(true)
}

/// An empty line.
fn blank(row: &csv::ByteRecord) -> bool {
    row.len() == 1 && row.as_slice().is_empty()
}

/// `col1, col2, col3`, or `col1, col2, …, col10` for many.
fn short_list(names: &[String]) -> String {
    match names {
        [first, second, .., last] if names.len() > 4 => format!("{first}, {second}, …, {last}"),
        _ => names.join(", "),
    }
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
/// What the rows of a ragged file are compared with: the columns named, the first row, or the header.
fn ragged_against(opts: &LoadOptions, header_less: bool) -> Message {
    if opts.csv_columns.is_some() {
        Message::hinted("", Hint::CsvColumnsList, " has")
    } else if header_less {
        "first row has".into()
    } else {
        "header has".into()
    }
}

fn warn_ragged(
    ragged: &BTreeMap<usize, u64>,
    c: &Columns,
    name: &Path,
    sink: &mut Sink,
    against: &Message,
) {
    for (&width, &n) in ragged {
        let mut m = Message::new(format!(
            "{n} row{} {} {width} field{}, the ",
            if n == 1 { "" } else { "s" },
            if n == 1 { "has" } else { "have" },
            if width == 1 { "" } else { "s" },
        ));
        m.push(against);
        m.push_str(&format!(
            " {}; read by the key column {:?} (in {})",
            c.width(),
            c.names[c.key],
            name.display()
        ));
        sink.warn(m);
    }
}

fn csv_error(e: csv::Error, name: &Path, compression: Compression, line: u64) -> SourceError {
    match e.into_kind() {
        csv::ErrorKind::Io(io) if compression != Compression::None => {
            compression.corrupt(name, Some(line), &io)
        }
        csv::ErrorKind::Io(error) => SourceError::Io {
            name: name.to_path_buf(),
            error,
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
) -> Result<(), Message> {
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
        )
        .into());
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
    scratch.item_bytes = c.items.then(|| row_size(row, &c.names));
    sink.add_text_with(pk, sk, count, scratch)
}

/// A row's size as DynamoDB would count the item, every cell a string (CSV has no types) and an empty cell
/// an absent attribute: each column name's bytes plus its cell's.
fn row_size(row: &csv::ByteRecord, names: &[String]) -> u64 {
    row.iter()
        .zip(names)
        .filter(|(cell, _)| !cell.is_empty())
        .map(|(cell, name)| (cell.len() + name.len()) as u64)
        .sum()
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
    fn a_header_less_file_is_read_from_its_first_row() {
        let opts = LoadOptions::default();
        let sink = load("1,Ann,TX\n2,Bob,CA\n3,Cy,TX\n", &opts).unwrap();
        assert_eq!(sink.keys.total(), 3);
        assert_eq!(sink.names.as_ref().unwrap().pk, "col1");
        assert!(
            sink.warnings.iter().any(|w| w.starts_with(
                "CSV first row read as data, not a header (it is shaped like the rows below it): columns named col1, col2, col3 (pass --csv-header yes"
            )),
            "{:?}",
            sink.warnings
        );
        assert_eq!(
            sink.shape.as_deref(),
            Some("CSV without a header (columns col1, col2, col3)")
        );
        // --key names a column by its number's name; --csv-header yes reads the first row as the header.
        let by_state = LoadOptions {
            key: Some("col3".into()),
            ..LoadOptions::default()
        };
        let sink = load("1,Ann,TX\n2,Bob,CA\n3,Cy,TX\n", &by_state).unwrap();
        assert_eq!(sink.keys.count(sink.keys.find(b"TX").unwrap()), 2);
        let yes = LoadOptions {
            csv_header: CsvHeader::Yes,
            ..LoadOptions::default()
        };
        let sink = load("1,Ann,TX\n2,Bob,CA\n3,Cy,TX\n", &yes).unwrap();
        assert_eq!(sink.keys.total(), 2);
        assert_eq!(sink.names.as_ref().unwrap().pk, "1");
        // --csv-header no reads all-text rows as data.
        let no = LoadOptions {
            csv_header: CsvHeader::No,
            ..LoadOptions::default()
        };
        let sink = load("alice,admin\nbob,user\n", &no).unwrap();
        assert_eq!(sink.keys.total(), 2);
        assert!(
            sink.warnings.iter().all(|w| !w.contains("first row")),
            "{:?}",
            sink.warnings
        );
        // A header stays a header; ragged rows of a header-less file are counted against its first row.
        let sink = load("pk,v\na,1\nb,2\n", &opts).unwrap();
        assert_eq!(sink.keys.total(), 2);
        let sink = load("1,a\n2,b,x\n3,c\n", &opts).unwrap();
        assert_eq!(sink.keys.total(), 3);
        assert!(
            sink.warnings
                .iter()
                .any(|w| w.starts_with("1 row has 3 fields, the first row has 2")),
            "{:?}",
            sink.warnings
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
                    key: crate::model::keyexpr::KeyTuple::one(
                        parse_key("{status}#{amount}#{nope}").unwrap(),
                    ),
                    sort_key: Vec::new(),
                    projection: crate::model::design::Projection::All,
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
