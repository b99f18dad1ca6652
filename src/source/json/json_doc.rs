//! Whole JSON documents of items, streamed: nothing but the current item is held, so a multi-GB file loads in
//! constant memory.
//!
//! | shape | `--format-in` | example |
//! |---|---|---|
//! | an array of items | `json-array` | `[{"pk":{"S":"a"}},…]` or `[{"pk":"a"},…]` |
//! | scan / query output, pages back to back | `scan-json` | `{"Items":[…],"Count":2,"ScannedCount":2}` |
//! | BatchWriteItem request file | `batch-write` | `{"T":[{"PutRequest":{"Item":{…}}},{"DeleteRequest":{"Key":{…}}}]}` |
//! | items one after another (one a line, or pretty-printed) | `json-items` | `{"pk":{"S":"a"}}` (put-item input) or `{"pk":"a"}` |
//!
//! Each element is cut out by [`JsonStream`] as compact bytes and read like a DynamoDB JSON line
//! ([`ItemReader`]): the hand-written fast path first ([`super::fast_json`]), then serde for the exact result
//! or message. Items are
//! **typed** DynamoDB JSON (`{"pk":{"S":"a"}}`), **plain** JSON (`{"pk":"a","n":1}`, as DocumentClient,
//! boto3's resource API and seed scripts write them: a string is `S`, a number `N` by value, as the SDKs map
//! them) or wrapped (`{"Item":{…}}`); the first item decides, and every later item is read the same way. An
//! item's size is DynamoDB's ([`super::size`]), measured as for a line of an export.
//!
//! Errors: an element that is not an item (not an object, invalid JSON inside it, no key, a key of the wrong
//! type, a request with neither `PutRequest` nor `DeleteRequest`) is a bad record, named by its item number and
//! the line it starts on, which `--skip-bad` may skip. A broken document (truncated, a missing comma, the
//! wrong bracket between items) stops the load whatever the policy: where the next item starts cannot be
//! trusted.

use serde::Deserialize;
use serde_json::value::RawValue;
use shardlens_simd::{Elements, Kernel};

pub use super::item_reader::{ItemReader, Typing};
use super::json_stream::{End, JsonStream, describe_byte, kind_of};
use crate::source::key_ahead::KeyAhead;
use crate::source::read::{FileLoad, LINES_AHEAD, Sink, TICK_LINES, Tick, invalid_json_line};
use crate::source::threads::handed_over;
use crate::source::{At, FormatIn, LoadOptions, SourceError};
use crate::source::{Hint, Message};

/// A request element of a BatchWriteItem file.
#[derive(Deserialize)]
struct Request<'a> {
    #[serde(rename = "PutRequest", borrow, default)]
    put: Option<Put<'a>>,
    #[serde(rename = "DeleteRequest", borrow, default)]
    delete: Option<Delete<'a>>,
}

#[derive(Deserialize)]
struct Put<'a> {
    #[serde(rename = "Item", borrow)]
    item: &'a RawValue,
}

#[derive(Deserialize)]
struct Delete<'a> {
    #[serde(rename = "Key", borrow)]
    key: &'a RawValue,
}

struct Doc<'r, 'a, 't> {
    js: JsonStream<'r>,
    items: ItemReader,
    /// Elements read (items and requests), for messages and progress.
    n: u64,
    sink: &'a mut Sink,
    opts: &'a LoadOptions,
    tick: &'a mut Tick<'t>,
}

impl Doc<'_, '_, '_> {
    /// An array (its `[` next) whose elements go to `f`; `what` names it in messages.
    ///
    /// Two threads: this one cuts the elements out (the splitter is about half the work of a pretty-printed
    /// file) and hands them over in batches through a bounded channel; a scoped worker reads them into the
    /// sink in order. An item error from the worker stops the splitter; it wins over a later structural error.
    fn array(
        &mut self,
        what: &str,
        f: impl FnMut(&mut ItemReader, &[u8], &mut Sink, &LoadOptions) -> Result<(), Message> + Send,
    ) -> Result<(), SourceError> {
        self.js.expect(b'[', &format!("to open {what}"))?;
        if self.js.peek()? == Some(b']') {
            self.js.bump();
            return Ok(());
        }
        self.elements(f, Kernel::detect(), 1, |js, n| array_goes_on(js, n, what))
    }

    /// Elements from the next one on to `f`, cut out on this thread and read on a worker ([`Self::array`]);
    /// after each, `goes_on` says whether another follows (an array's `,`, or more than white space before the
    /// end of a file of items). `kernel` (the CPU's SIMD kernel) cuts out the elements that follow each one this
    /// thread cut out, while it is sure of them, with `commas` between two (1 in an array, 0 for items back to
    /// back).
    fn elements(
        &mut self,
        mut f: impl FnMut(&mut ItemReader, &[u8], &mut Sink, &LoadOptions) -> Result<(), Message> + Send,
        kernel: Option<Kernel>,
        commas: u32,
        mut goes_on: impl FnMut(&mut JsonStream<'_>, u64) -> Result<bool, SourceError>,
    ) -> Result<(), SourceError> {
        let Doc {
            js,
            items,
            n,
            sink,
            opts,
            tick,
            ..
        } = self;
        let name = js.name;
        let (opts, items, sink): (&LoadOptions, &mut ItemReader, &mut Sink) = (opts, items, sink);
        // Each item's key is asked for from memory a few items before it is read, as for lines.
        let mut ahead = KeyAhead::new(sink);
        let read_batch = |batch: &mut Batch| -> Result<(), SourceError> {
            batch.each(&mut ahead, sink, |sink, text, item, line| {
                let at = At::Item {
                    item,
                    line: Some(line),
                };
                let result =
                    f(items, text, sink, opts).map_err(|what| SourceError::record(name, at, what));
                sink.check(result)
            })
        };
        let (split, worked) = handed_over(4, read_batch, |handoff| {
            let mut batch = Batch::default();
            let mut next_tick = (*n / TICK_LINES + 1) * TICK_LINES;
            let split = (|| -> Result<(), SourceError> {
                loop {
                    js.peek()?;
                    let line = js.line;
                    *n += 1;
                    let from = batch.data.len();
                    if js.capture(&mut batch.data, true)? == End::Truncated {
                        return Err(truncated(name, *n, line));
                    }
                    batch.items.push((from, batch.data.len(), *n, line));
                    if let Some(kernel) = kernel {
                        *n += batch.take_elements(js, kernel, u64::MAX, *n, commas)?;
                    }
                    if *n >= next_tick {
                        next_tick = (*n / TICK_LINES + 1) * TICK_LINES;
                        tick(js.line, *n)?;
                    }
                    let end = !goes_on(js, *n)?;
                    if end || batch.items.len() >= BATCH_ITEMS || batch.data.len() >= BATCH_BYTES {
                        let full =
                            std::mem::replace(&mut batch, handoff.spare().unwrap_or_default());
                        batch.data.clear();
                        batch.items.clear();
                        // The worker stopped on an item error: it is returned below.
                        if !handoff.send(full) || end {
                            return Ok(());
                        }
                    }
                }
            })();
            // The items before a structural error are read first: their errors come first in the file.
            if !batch.items.is_empty() {
                handoff.send(batch);
            }
            split
        });
        let worked = worked.unwrap_or_else(|| {
            Err(SourceError::record(
                name,
                At::File,
                "a loader thread panicked",
            ))
        });
        worked.and(split)
    }

    /// Top-level arrays of items (several back to back are read one after the other).
    fn arrays(&mut self) -> Result<(), SourceError> {
        while let Some(b) = self.js.peek()? {
            if b != b'[' {
                return Err(self.js.broken(format!(
                    "found {} after the array of items; expected the end of the file",
                    describe_byte(b)
                )));
            }
            self.array("the array of items", ItemReader::item)?;
        }
        Ok(())
    }

    /// Items one after another at the top level (JSON lines, or pretty-printed items back to back), cut out
    /// and read on two threads as an array's are.
    fn stream(&mut self) -> Result<(), SourceError> {
        if self.js.peek()?.is_none() {
            return Ok(());
        }
        self.elements(ItemReader::item, Kernel::detect(), 0, |js, _| {
            Ok(js.peek()?.is_some())
        })
    }

    /// Scan output pages `{"Items":[…],"Count":…}` back to back.
    fn pages(&mut self) -> Result<(), SourceError> {
        let mut page = 0u64;
        let mut field = Vec::new();
        while let Some(b) = self.js.peek()? {
            if b != b'{' {
                return Err(self.js.broken(format!(
                    "found {}; expected a scan output page {{\"Items\":[…],…}}",
                    describe_byte(b)
                )));
            }
            self.js.bump();
            page += 1;
            let before = self.n;
            let (mut has_items, mut count) = (false, None);
            if self.js.peek()? == Some(b'}') {
                self.js.bump();
            } else {
                loop {
                    let name = self.js.field_name(&mut field)?;
                    match name.as_str() {
                        "Items" => {
                            has_items = true;
                            self.array("the Items array", ItemReader::item)?;
                        }
                        "Count" => {
                            field.clear();
                            self.js.capture(&mut field, true)?;
                            count = std::str::from_utf8(&field)
                                .ok()
                                .and_then(|t| t.parse::<u64>().ok());
                        }
                        _ => {
                            if self.js.skip()? == End::Truncated {
                                return Err(self
                                    .js
                                    .broken("the file ends inside a scan page (truncated file?)"));
                            }
                        }
                    }
                    if !self.js.next_or_close(b'}', "in a scan output page")? {
                        break;
                    }
                }
            }
            if !has_items {
                return Err(SourceError::record(
                    self.js.name,
                    At::Item {
                        item: self.n + 1,
                        line: Some(self.js.line),
                    },
                    format!(
                        "page {page} has no \"Items\"; expected scan output {{\"Items\":[…],\"Count\":…}}"
                    ),
                ));
            }
            let items = self.n - before;
            if let Some(count) = count
                && count != items
            {
                self.sink.warn(format!(
                    "page {page} holds {items} items, but its Count says {count} (in {})",
                    self.js.name.display()
                ));
            }
        }
        Ok(())
    }

    /// A BatchWriteItem request file `{"Table":[{"PutRequest":…},…],…}` (several back to back are read too):
    /// the table `--table` names, else the first, with a warning naming the others.
    fn requests(&mut self) -> Result<(), SourceError> {
        let mut tables: Vec<String> = Vec::new();
        let mut chosen: Option<String> = None;
        let (mut puts, mut deletes) = (0u64, 0u64);
        let mut field = Vec::new();
        while let Some(b) = self.js.peek()? {
            if b != b'{' {
                return Err(self.js.broken(format!(
                    "found {}; expected a request file {{\"TableName\":[{{\"PutRequest\":…}}]}}",
                    describe_byte(b)
                )));
            }
            self.js.bump();
            if self.js.peek()? == Some(b'}') {
                self.js.bump();
                continue;
            }
            loop {
                let table = self.js.field_name(&mut field)?;
                if !tables.contains(&table) {
                    tables.push(table.clone());
                }
                let wanted = match (&self.opts.table, &chosen) {
                    (Some(t), _) => *t == table,
                    (None, None) => true,
                    (None, Some(c)) => *c == table,
                };
                if wanted {
                    chosen = Some(table.clone());
                    let what = format!("the requests of table {table:?}");
                    self.array(&what, |r, text, sink, opts| {
                        read_request(r, text, sink, opts, [&mut puts, &mut deletes])
                    })?;
                } else if self.js.skip()? == End::Truncated {
                    return Err(self
                        .js
                        .broken("the file ends inside a table's requests (truncated file?)"));
                }
                if !self.js.next_or_close(b'}', "in a request file")? {
                    break;
                }
            }
        }
        let name = self.js.name;
        if let Some(want) = &self.opts.table
            && chosen.is_none()
        {
            return Err(SourceError::record(
                name,
                At::File,
                format!(
                    "no table {want:?} in the request file; it has {}",
                    list_or_none(&tables)
                ),
            ));
        }
        if tables.len() > 1 && self.opts.table.is_none() {
            let others: Vec<&str> = tables
                .iter()
                .filter(|t| Some(*t) != chosen.as_ref())
                .map(String::as_str)
                .collect();
            self.sink.warn(other_tables(
                "the request file",
                tables.len(),
                chosen.as_deref().unwrap_or_default(),
                &others,
                name,
            ));
        }
        self.sink.changes.puts += puts;
        self.sink.changes.deletes += deletes;
        self.sink.tables = tables;
        self.sink.table = chosen.clone();
        let shape = format!(
            "BatchWriteItem request file, table {:?}: {puts} put and {deletes} delete requests",
            chosen.unwrap_or_default()
        );
        self.sink.shape = Some(shape.into());
        Ok(())
    }
}

/// Reads one element of a table's requests: a `PutRequest`'s item or a `DeleteRequest`'s key, counted in
/// `puts` or `deletes`.
fn read_request(
    r: &mut ItemReader,
    text: &[u8],
    sink: &mut Sink,
    opts: &LoadOptions,
    [puts, deletes]: [&mut u64; 2],
) -> Result<(), Message> {
    let req: Request<'_> = serde_json::from_slice(text).map_err(|e| {
        if text.first() == Some(&b'{') {
            format!(
                "{}; expected {{\"PutRequest\":{{\"Item\":{{…}}}}}} or {{\"DeleteRequest\":{{\"Key\":{{…}}}}}}",
                invalid_json_line(text, &e)
            )
        } else {
            format!(
                "{}, not a request; expected {{\"PutRequest\":{{\"Item\":{{…}}}}}} or {{\"DeleteRequest\":{{\"Key\":{{…}}}}}}",
                kind_of(text.first().copied())
            )
        }
    })?;
    match (req.put, req.delete) {
        (Some(p), _) => {
            *puts += 1;
            r.item(p.item.get().as_bytes(), sink, opts)
        }
        (None, Some(d)) => {
            *deletes += 1;
            r.item(d.key.get().as_bytes(), sink, opts)
        }
        (None, None) => Err(
            "a request with neither PutRequest nor DeleteRequest; expected {\"PutRequest\":{\"Item\":{…}}} or {\"DeleteRequest\":{\"Key\":{…}}}"
                .into(),
        ),
    }
}

/// Item `n`, starting on `line`, is cut off by the end of the file.
pub(super) fn truncated(name: &std::path::Path, n: u64, line: u64) -> SourceError {
    SourceError::record(
        name,
        At::Item {
            item: n,
            line: Some(line),
        },
        "the file ends inside this item; expected the rest of it (truncated file?)",
    )
}

/// After item `n` of an array (`what` in messages): `true` on `,` (another item follows), `false` on `]`
/// (the array ends); anything else breaks the document.
pub(super) fn array_goes_on(
    js: &mut JsonStream<'_>,
    n: u64,
    what: &str,
) -> Result<bool, SourceError> {
    match js.peek()? {
        Some(b',') => {
            js.bump();
            Ok(true)
        }
        Some(b']') => {
            js.bump();
            Ok(false)
        }
        Some(b) => Err(js.broken(format!(
            "invalid JSON after item {n}: found {}; expected ',' or ']' in {what}",
            describe_byte(b)
        ))),
        None => Err(js.broken(format!(
            "{what} is never closed: the file ends after item {n}; expected ',' or ']' (truncated file?)"
        ))),
    }
}

/// Elements a batch holds before it is read.
pub(super) const BATCH_ITEMS: usize = 2048;
/// Bytes a batch holds before it is read.
pub(super) const BATCH_BYTES: usize = 1 << 20;

/// Elements cut out by the splitter: their bytes back to back, and each one's range, item number and line.
#[derive(Default)]
pub(super) struct Batch {
    pub(super) data: Vec<u8>,
    pub(super) items: Vec<(usize, usize, u64, u64)>,
}

impl Batch {
    /// Takes the elements that follow element `n`, just cut out into this batch, with the CPU's SIMD kernel
    /// ([`JsonStream::take_elements`]) from at most `limit` bytes, as many as a batch holds, with `commas`
    /// between two (1 in an array, 0 for items back to back): how many it took.
    pub(super) fn take_elements(
        &mut self,
        js: &mut JsonStream<'_>,
        kernel: Kernel,
        limit: u64,
        n: u64,
        commas: u32,
    ) -> Result<u64, SourceError> {
        let mut out = Elements {
            commas,
            data: &mut self.data,
            items: &mut self.items,
            max_items: BATCH_ITEMS,
            max_bytes: BATCH_BYTES,
        };
        js.take_elements(kernel, limit, &mut out, n + 1)
    }

    /// Each element in order to `f` (with its item and line number), each shown to `ahead` up to
    /// [`LINES_AHEAD`] elements before; stops at `f`'s first error.
    pub(super) fn each(
        &self,
        ahead: &mut KeyAhead,
        sink: &mut Sink,
        mut f: impl FnMut(&mut Sink, &[u8], u64, u64) -> Result<(), SourceError>,
    ) -> Result<(), SourceError> {
        let text = |j: usize| {
            self.items
                .get(j)
                .map(|&(from, to, ..)| &self.data[from..to])
        };
        for j in 0..LINES_AHEAD {
            if let Some(coming) = text(j) {
                ahead.ahead(sink, coming);
            }
        }
        for (j, &(from, to, item, line)) in self.items.iter().enumerate() {
            if let Some(coming) = text(j + LINES_AHEAD) {
                ahead.ahead(sink, coming);
            }
            let result = f(sink, &self.data[from..to], item, line);
            ahead.after(sink);
            result?;
        }
        Ok(())
    }
}

/// The warning for a file of several tables (a request file, a Workbench model) loaded without naming one:
/// `what` has `count` tables; `loaded` was, `others` were not.
pub fn other_tables(
    what: &str,
    count: usize,
    loaded: &str,
    others: &[&str],
    name: &std::path::Path,
) -> Message {
    Message::hinted(
        format!(
            "{what} has {count} tables; loaded {loaded:?}, not {} (",
            others.join(", ")
        ),
        Hint::ChooseTable,
        &format!(") (in {})", name.display()),
    )
}

/// Names for a message: `A, B` or `none`.
pub fn list_or_none(names: &[String]) -> String {
    if names.is_empty() {
        "none".to_owned()
    } else {
        names.join(", ")
    }
}

/// Loads a JSON document of one of the shapes above (`format` is one of `JsonArray`, `ScanJson`,
/// `BatchWrite`, `JsonItems`).
pub fn load_json_doc(cx: FileLoad<'_, '_>, format: FormatIn) -> Result<(), SourceError> {
    let (reader, compression, name, opts, sink, tick) = cx.into_parts();
    let mut doc = Doc {
        js: JsonStream::new(reader, name, compression),
        items: if format == FormatIn::BatchWrite {
            ItemReader::typed(opts)
        } else {
            ItemReader::new(opts)
        },
        n: 0,
        sink,
        opts,
        tick,
    };
    match format {
        FormatIn::JsonArray => doc.arrays()?,
        FormatIn::ScanJson => doc.pages()?,
        FormatIn::BatchWrite => doc.requests()?,
        _ => doc.stream()?,
    }
    let lines = doc.js.line;
    let typing = doc.items.typing;
    let n = doc.n;
    let sink = doc.sink;
    sink.lines += lines;
    let of = typing.map_or("items", Typing::describe);
    match format {
        FormatIn::JsonArray => sink.shape = Some(format!("JSON array of {of}").into()),
        FormatIn::ScanJson => {
            sink.shape = Some(format!("scan output {{\"Items\":[…]}} of {of}").into());
        }
        FormatIn::BatchWrite => {}
        _ => sink.shape = Some(format!("{of} one after another ({n} read)").into()),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stray `}`, `]` or `,` between items is a broken document even when skipping bad items: it used to be
    /// read as an empty bad item, skipped, and read again for ever (found by the `json_doc` fuzz target).
    #[test]
    fn a_stray_closing_bracket_between_items_stops_when_skipping() {
        let opts = LoadOptions {
            on_bad: crate::source::OnBad::Skip,
            ..LoadOptions::default()
        };
        for text in [
            r#"{"pk":"a"}}"#,
            r#"{"pk":"a"} ]"#,
            r#"{"pk":"a"},{"pk":"b"}"#,
            "}",
        ] {
            let err = crate::source::read::load_text(text, "x.json", &opts, |cx| {
                load_json_doc(cx, FormatIn::JsonItems)
            })
            .err()
            .unwrap_or_else(|| panic!("{text} loads"));
            assert!(
                err.to_string().contains("expected a JSON value"),
                "{text}: {err}"
            );
        }
    }
}
