//! CSV with a header row (RFC 4180): fields separated by commas, optionally in double quotes, which may hold
//! commas, doubled quotes (`""`) and line breaks; rows end in `\n` or `\r\n`.
//!
//! The key column is `--key COLUMN`, else the first column named like a key (`pk`, `PK`, `id`, …, or ending in
//! `id`), else the first column. An optional `count` column makes each row that many writes of its key, so
//! `key,count` aggregates (from logs, Contributor Insights, a `GROUP BY`) load exactly. An optional sort key
//! column (`--sort-key`, or named like `sk`) feeds the per-key item facts. Every row must have as many fields
//! as the header. Keys are read as `--key-type` (default S). Streaming: a row is at most
//! [`MAX_LINE_BYTES`] long.

use super::item::{PK_NAMES, SK_NAMES};
use super::read::Compression;
use std::io::BufRead;
use std::path::Path;

use super::item::KeyNames;
use super::read::{MAX_LINE_BYTES, Sink, TICK_LINES, Tick};
use super::{At, LoadOptions, SourceError};

/// One parsed row: field bytes back to back, and where each field ends.
#[derive(Debug, Default)]
struct Row {
    data: Vec<u8>,
    ends: Vec<usize>,
    /// Line the row starts on.
    line: u64,
}

impl Row {
    fn field(&self, i: usize) -> &[u8] {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.data[start..self.ends[i]]
    }
    fn len(&self) -> usize {
        self.ends.len()
    }
    fn is_blank(&self) -> bool {
        self.ends.len() == 1 && self.data.is_empty()
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    FieldStart,
    Unquoted,
    Quoted,
    /// A quote inside a quoted field: either the closing quote or the first of `""`.
    QuoteInQuoted,
}

/// The columns a CSV file's header picks.
struct Columns {
    key: usize,
    sort_key: Option<usize>,
    count: Option<usize>,
    width: usize,
}

fn columns(header: &Row, opts: &LoadOptions, sink: &mut Sink) -> Result<Columns, String> {
    let names: Vec<String> = (0..header.len())
        .map(|i| {
            String::from_utf8_lossy(header.field(i))
                .trim()
                .trim_start_matches('\u{feff}')
                .to_owned()
        })
        .collect();
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
                    "no column named {k:?}; expected one of the header's: {}",
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
                "no column named {s:?}; expected one of the header's: {}",
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
    Ok(Columns {
        key,
        sort_key,
        count,
        width: names.len(),
    })
}

/// Loads a CSV file with a header.
pub fn load_csv(
    reader: &mut dyn BufRead,
    compression: Compression,
    name: &Path,
    sink: &mut Sink,
    opts: &LoadOptions,
    tick: &mut Tick<'_>,
) -> Result<(), SourceError> {
    if sink.key_type.is_none() {
        sink.key_type = Some(sink.keys.key_type());
    }
    let mut cols: Option<Columns> = None;
    let mut rows = 0u64;
    let lines = read_rows(reader, name, compression, |row| {
        if row.is_blank() {
            return Ok(());
        }
        let Some(c) = cols.as_ref() else {
            cols = Some(
                columns(row, opts, sink)
                    .map_err(|what| SourceError::record(name, At::Line(row.line), what))?,
            );
            return Ok(());
        };
        rows += 1;
        if rows.is_multiple_of(TICK_LINES) {
            tick(row.line, rows)?;
        }
        let result = csv_row(row, c, sink)
            .map_err(|what| SourceError::record(name, At::Line(row.line), what));
        sink.check(result)
    })?;
    sink.lines += lines;
    Ok(())
}

fn csv_row(row: &Row, c: &Columns, sink: &mut Sink) -> Result<(), String> {
    if row.len() != c.width {
        return Err(format!(
            "row has {} field{}; expected {} like the header",
            row.len(),
            if row.len() == 1 { "" } else { "s" },
            c.width
        ));
    }
    let count = match c.count {
        None => 1,
        Some(i) => {
            let text = String::from_utf8_lossy(row.field(i));
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
    let pk = row.field(c.key);
    let sk = c.sort_key.map(|i| row.field(i));
    sink.add_text(pk, sk, count)
        .map_err(|e| format!("key column: {e}"))
}

/// Splits `reader` into rows, calling `f` for each; returns the number of lines.
fn read_rows(
    reader: &mut dyn BufRead,
    name: &Path,
    compression: Compression,
    mut f: impl FnMut(&Row) -> Result<(), SourceError>,
) -> Result<u64, SourceError> {
    let mut row = Row {
        line: 1,
        ..Row::default()
    };
    let mut state = State::FieldStart;
    let mut line = 1u64;
    let mut any = false;
    loop {
        let chunk = match reader.fill_buf() {
            Ok(c) => c,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) if compression != Compression::None => {
                return Err(compression.corrupt(name, Some(line - 1), &e));
            }
            Err(source) => {
                return Err(SourceError::Io {
                    name: name.to_path_buf(),
                    source,
                });
            }
        };
        if chunk.is_empty() {
            break;
        }
        let len = chunk.len();
        for &b in chunk {
            any = true;
            match (state, b) {
                (State::Quoted, b'"') => state = State::QuoteInQuoted,
                (State::Quoted, _) => {
                    if b == b'\n' {
                        line += 1;
                    }
                    row.data.push(b);
                }
                (State::QuoteInQuoted, b'"') => {
                    row.data.push(b'"');
                    state = State::Quoted;
                }
                (State::FieldStart, b'"') => state = State::Quoted,
                (_, b',') => {
                    row.ends.push(row.data.len());
                    state = State::FieldStart;
                }
                (_, b'\n') => {
                    if state != State::QuoteInQuoted && row.data.last() == Some(&b'\r') {
                        row.data.pop();
                    }
                    row.ends.push(row.data.len());
                    f(&row)?;
                    line += 1;
                    row.data.clear();
                    row.ends.clear();
                    row.line = line;
                    state = State::FieldStart;
                }
                (State::QuoteInQuoted, b'\r') => {}
                (State::QuoteInQuoted, _) => {
                    return Err(SourceError::record(
                        name,
                        At::Line(line),
                        format!(
                            "unexpected {:?} after a closing quote; expected a comma or the end of the row",
                            char::from(b)
                        ),
                    ));
                }
                (State::FieldStart | State::Unquoted, _) => {
                    row.data.push(b);
                    state = State::Unquoted;
                }
            }
            if row.data.len() > MAX_LINE_BYTES {
                return Err(SourceError::record(
                    name,
                    At::Line(row.line),
                    format!("row is over {MAX_LINE_BYTES} bytes; expected rows of keys"),
                ));
            }
        }
        reader.consume(len);
    }
    if state == State::Quoted {
        return Err(SourceError::record(
            name,
            At::Line(row.line),
            "a quoted field is never closed; expected a closing '\"'",
        ));
    }
    if !row.data.is_empty() || !row.ends.is_empty() {
        if row.data.last() == Some(&b'\r') {
            row.data.pop();
        }
        row.ends.push(row.data.len());
        f(&row)?;
    } else if any {
        line -= 1;
    }
    Ok(line)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::KeyType;

    fn load(text: &str, opts: &LoadOptions) -> Result<Sink, SourceError> {
        let mut sink = Sink::new(opts);
        load_csv(
            &mut text.as_bytes(),
            Compression::None,
            Path::new("k.csv"),
            &mut sink,
            opts,
            &mut |_, _| Ok(()),
        )?;
        Ok(sink)
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
    fn errors() {
        let opts = LoadOptions::default();
        let e = load("pk,v\na,1\nb\n", &opts).unwrap_err();
        assert_eq!(
            e.to_string(),
            "line 3: row has 1 field; expected 2 like the header (in k.csv)"
        );
        let e = load("pk,count\na,x\n", &opts).unwrap_err();
        assert!(e.to_string().starts_with("line 2: count \"x\""), "{e}");
        let e = load("pk\n\"a\n", &opts).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("line 2: a quoted field is never closed"),
            "{e}"
        );
        let e = load("pk\n\"a\"b\n", &opts).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("line 2: unexpected 'b' after a closing quote"),
            "{e}"
        );
        let opts = LoadOptions {
            key: Some("nope".into()),
            ..LoadOptions::default()
        };
        let e = load("pk,v\n", &opts).unwrap_err();
        assert!(e.to_string().contains("no column named \"nope\""), "{e}");
    }
}
