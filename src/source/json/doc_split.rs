//! Large, uncompressed JSON documents of items on every core ([`crate::source::stretches`]): a JSON array of
//! items, a scan output page, and items one after another (`json-items`).
//!
//! **An array** is cut where an item seems to begin, each stretch is cut into items and read on a thread of
//! its own, and each stretch checks that the one after it really begins where it was cut. Where an array's
//! element begins cannot be known from the middle of a file without reading it from the start (a string may
//! hold anything, a nested list of maps looks like the array). So a cut is a guess: the first place after the
//! cut's offset that reads `,`, then the white space the array puts before its items, then the first item's
//! opening up to its first attribute name (`{\n        "pk"` in a file pretty-printed with four spaces), after
//! a `}`. Each stretch reads its items from its start, through its end, to the start of the item after its
//! last: that must be exactly where the next stretch began, else the guess was wrong and the whole file goes
//! to one reader. The first stretch starts at the file's start, so by induction every stretch is read as one
//! reader would read it.
//!
//! Within a stretch, each element the splitter cuts out is followed by as many as the CPU's SIMD kernel takes
//! ([`JsonStream::take_elements`]), up to what the stretch's reader claimed. A thread that has read its
//! stretch takes the back half of what is left of the longest other one, cut the same way (a guess checked
//! the same way: [`crate::source::stretches`]), so that a core slower than the other for a while (a busy host,
//! an efficiency core) does not leave the other idle.
//!
//! **Items one a line** are cut at line ends, as DynamoDB JSON lines are, and each line read as one item: a
//! line that is not one whole item (two on a line) sends the file to one reader. **Items pretty-printed back
//! to back** (as `jq '.Items[]'` prints a scan's) are read as an array is, with no `[`, no commas and the end of
//! the file for its `]`: cut where the first item's opening up to its first attribute name is found after a
//! `}`, checked the same way. **A scan output page** whose first field is its `Items` array (as the AWS CLI
//! prints a scan) is read as that array, the last stretch reading the page's other fields after it.
//!
//! Measured (`benches/json_array.sh`, page cache warm, this 2-core machine): see `docs/performance.md`.
//!
//! Over 600 lines: the three documents read in stretches (arrays, scan pages, items back to back) share one cut, read and check of a stretch (`load_document`, `read_items`, `Reach`); where to cut is apart, in `cuts`.

use std::cell::Cell;
use std::io::{BufRead, Read};
use std::path::Path;
use std::sync::atomic::AtomicU64;

use shardlens_simd::Kernel;

use super::json_doc::{
    BATCH_BYTES, BATCH_ITEMS, Batch, ItemReader, Typing, array_goes_on, truncated,
};
use super::json_stream::{End, JsonStream};
use crate::source::key_ahead::KeyAhead;

mod cuts;
#[cfg(doc)]
use crate::source::lines::stretch_threads;
use crate::source::read::{
    Compression, Ctx, Sink, SplitFile, TICK_LINES, for_each_line_ahead, read_full,
};
use crate::source::s3_export::adopt_first;
use crate::source::stretches::{FileStretches, Stretch, load_in_stretches};
use crate::source::{At, LoadOptions, SourceError};
use cuts::{
    array_cut_points, back_to_back_pattern, item_start_pattern, next_cut, scan_start_pattern,
};

/// Loads `file`, a regular, uncompressed JSON array of items, into `sink` on its threads
/// ([`stretch_threads`]). `Ok(false)`, with `sink` as it was but for the key attributes its
/// first item decides, when the file is better read by one reader (from the start): a sink that does not
/// split ([`Sink::splits`]), a file that is not one array of objects, a cut whose guess was wrong, or anything
/// past the first stretch that one reader would report (a bad item, a warning).
pub fn load_json_array_split(
    file: &SplitFile<'_>,
    sink: &mut Sink,
    ctx: &mut Ctx<'_, '_>,
) -> Result<bool, SourceError> {
    let Some((typing, ..)) = load_document(file, sink, ctx, Layout::Array, item_start_pattern)?
    else {
        return Ok(false);
    };
    sink.shape = Some(format!("JSON array of {}", typing.describe()).into());
    Ok(true)
}

/// Loads the document of items laid out as `layout` says in `to_split`, cut where the pattern
/// `pattern_of` finds in its first bytes begins an item ([`load_cut`]): how its items are written, how many
/// a first reading read and a scan page's `Count`; `None` when it is better read by one reader (a sink that
/// does not split, no pattern, a first item not read from the first bytes, or what [`load_cut`] gives up on).
fn load_document(
    to_split: &SplitFile<'_>,
    sink: &mut Sink,
    ctx: &mut Ctx<'_, '_>,
    layout: Layout,
    pattern_of: fn(&[u8]) -> Option<Vec<u8>>,
) -> Result<Option<(Typing, u64, Option<u64>)>, SourceError> {
    let &SplitFile { path, name, .. } = to_split;
    if !sink.splits() {
        return Ok(None);
    }
    let io_err = |error| SourceError::Io {
        name: name.to_path_buf(),
        error,
    };
    let mut file = std::fs::File::open(path).map_err(io_err)?;
    let head = read_head(&mut file).map_err(io_err)?;
    let Some(pattern) = pattern_of(&head) else {
        return Ok(None);
    };
    let Some((typing, ttl)) = first_item(&head, layout, name, sink, ctx.opts) else {
        return Ok(None);
    };
    let cut = Cut::new(pattern, typing, ttl, layout);
    let Some(items) = load_cut(to_split, sink, ctx, &mut file, &cut)? else {
        return Ok(None);
    };
    let count = cut.count.lock().ok().and_then(|c| *c);
    Ok(Some((typing, items, count)))
}

/// How [`load_cut`] cuts a document of items and reads them.
struct Cut {
    /// The bytes that begin an item, found after a `}`.
    pattern: Vec<u8>,
    typing: Typing,
    ttl: crate::source::json::ttl::TtlProbe,
    layout: Layout,
    /// A scan page's `Count`, as the last stretch read it.
    count: std::sync::Mutex<Option<u64>>,
}

impl Cut {
    /// After the items: the rest of the document ([`Layout::close`]), a scan page's `Count` noted. Only the
    /// last stretch (`last`) holds the array's end and the rest of a scan page, and nothing may follow it (one
    /// reader reads a second array or page after it).
    fn close(&self, js: &mut JsonStream<'_>, last: bool) -> Result<(), SourceError> {
        if !last {
            return Err(js.broken(MISMATCH));
        }
        let count = self.layout.close(js)?;
        if let Ok(mut c) = self.count.lock() {
            *c = count;
        }
        Ok(())
    }

    fn new(
        pattern: Vec<u8>,
        typing: Typing,
        ttl: crate::source::json::ttl::TtlProbe,
        layout: Layout,
    ) -> Self {
        Cut {
            pattern,
            typing,
            ttl,
            layout,
            count: std::sync::Mutex::new(None),
        }
    }
}

/// Loads the items of `to_split` (open as `file`), laid out as `cut` says, in stretches cut where its pattern is found
/// after a `}` (each guess checked by the stretch before): the items a first reading read, or `None` when
/// the file is better read by one reader.
fn load_cut(
    to_split: &SplitFile<'_>,
    sink: &mut Sink,
    ctx: &mut Ctx<'_, '_>,
    file: &mut std::fs::File,
    cut: &Cut,
) -> Result<Option<u64>, SourceError> {
    let &SplitFile {
        path,
        name,
        size,
        threads,
        ..
    } = to_split;
    let io_err = |error| SourceError::Io {
        name: name.to_path_buf(),
        error,
    };
    let Some(cuts) = array_cut_points(file, size, threads, &cut.pattern).map_err(io_err)? else {
        return Ok(None);
    };
    let items = AtomicU64::new(0);
    let read = |on: &FileStretches<'_>, stretch: Stretch, sink: &mut Sink, first: bool| {
        read_items(on, stretch, sink, first, cut, &items)
    };
    // The back of a stretch is cut as the stretches were: where the pattern is found after a `}`.
    let cutter = |at: u64, to: u64| -> Option<u64> {
        let mut file = std::fs::File::open(path).ok()?;
        next_cut(&mut file, at, &cut.pattern)
            .ok()
            .flatten()
            .filter(|&c| c > at && c < to)
    };
    let split = load_in_stretches(to_split, &cuts, sink, ctx, &cut.ttl, &read, Some(&cutter))?;
    Ok(split.then(|| items.load(std::sync::atomic::Ordering::Relaxed)))
}

/// Loads `file`, a regular, uncompressed scan output page whose first field is its `"Items"` array (as
/// `aws dynamodb scan` prints one, whatever its size), into `sink` on its threads,
/// its items cut as an array's are; `Ok(false)` as for [`load_json_array_split`] (a file of several pages
/// among them: one reader reads it).
pub fn load_scan_split(
    file: &SplitFile<'_>,
    sink: &mut Sink,
    ctx: &mut Ctx<'_, '_>,
) -> Result<bool, SourceError> {
    let Some((typing, items, count)) =
        load_document(file, sink, ctx, Layout::ScanPage, scan_start_pattern)?
    else {
        return Ok(false);
    };
    // As one reader warns at the page's end, after every item.
    if let Some(count) = count
        && count != items
    {
        sink.warn(format!(
            "page 1 holds {items} items, but its Count says {count} (in {})",
            file.name.display()
        ));
    }
    sink.shape = Some(format!("scan output {{\"Items\":[…]}} of {}", typing.describe()).into());
    Ok(true)
}

/// The file's first bytes (up to 1 MB: the first item is at most 400 KB).
fn read_head(file: &mut std::fs::File) -> std::io::Result<Vec<u8>> {
    let mut head = vec![0u8; 1 << 20];
    let n = read_full(file, &mut head)?;
    head.truncate(n);
    Ok(head)
}

/// Loads `file`, a regular, uncompressed file of JSON items one a line (`json-items`: typed or plain items,
/// as `jq -c '.Items[]'` or a DocumentClient dump writes them), into `sink` on its threads
/// ([`stretch_threads`]), cut at line ends. `Ok(false)`, with `sink` as it was but for the key
/// attributes its first item decides, when the file is better read by one reader (from the start): a sink
/// that does not split ([`Sink::splits`]), a line that is not one whole item, or anything past the first
/// stretch that one reader would report.
pub fn load_json_items_split(
    to_split: &SplitFile<'_>,
    sink: &mut Sink,
    ctx: &mut Ctx<'_, '_>,
) -> Result<bool, SourceError> {
    use std::io::{Seek as _, SeekFrom};
    let &SplitFile {
        path, name, size, ..
    } = to_split;
    if !sink.splits() || size == 0 {
        return Ok(false);
    }
    let io_err = |error| SourceError::Io {
        name: name.to_path_buf(),
        error,
    };
    let mut file = std::fs::File::open(path).map_err(io_err)?;
    let head = read_head(&mut file).map_err(io_err)?;
    let Some((typing, ttl)) = first_item(&head, Layout::BackToBack, name, sink, ctx.opts) else {
        return Ok(false);
    };
    if let Some(pattern) = back_to_back_pattern(&head) {
        let cut = Cut::new(pattern, typing, ttl, Layout::BackToBack);
        let split = load_cut(to_split, sink, ctx, &mut file, &cut)?;
        if let Some(n) = split {
            sink.shape = Some(format!("{} one after another ({n} read)", typing.describe()).into());
        }
        return Ok(split.is_some());
    }
    let Some(cuts) = crate::source::lines::cut_points(to_split)? else {
        return Ok(false);
    };
    let mut last = [0u8];
    file.seek(SeekFrom::Start(size - 1)).map_err(io_err)?;
    read_full(&mut file, &mut last).map_err(io_err)?;
    let items = AtomicU64::new(0);
    let read = |on: &FileStretches<'_>, stretch: Stretch, sink: &mut Sink, first: bool| {
        read_item_lines(on, stretch, sink, first, typing, &items)
    };
    let split = load_in_stretches(to_split, &cuts, sink, ctx, &ttl, &read, None)?;
    if split {
        // One reader counts lines from 1, and the line after the file's last newline.
        sink.lines += u64::from(last[0] == b'\n');
        sink.shape = Some(
            format!(
                "{} one after another ({} read)",
                typing.describe(),
                items.load(std::sync::atomic::Ordering::Relaxed)
            )
            .into(),
        );
    }
    Ok(split)
}

/// Reads the lines of `stretch` into `sink`, each line one whole item (blank lines skipped); counts the items
/// of a first reading in `items`. Any line that is not read cleanly is an error (one reader then reads the
/// file and reports it).
fn read_item_lines(
    on: &FileStretches<'_>,
    stretch: Stretch,
    sink: &mut Sink,
    first: bool,
    typing: Typing,
    items: &AtomicU64,
) -> Result<(), SourceError> {
    let uncounted = AtomicU64::new(0);
    let mut reader = on.open_at(stretch.from, stretch.to - stretch.from, first, &uncounted)?;
    let mut tick = on.tick(first);
    let (name, opts) = (on.name, on.opts);
    let reader_of_items = ItemReader::for_stretch(typing, opts, sink.ttl_seed.as_ref());
    let mut state = (KeyAhead::new(sink), sink, reader_of_items, 0u64);
    let lines = for_each_line_ahead(
        &mut reader,
        name,
        Compression::None,
        &mut tick,
        &mut state,
        |(ahead, sink, ..), line| ahead.ahead(sink, line),
        |(ahead, sink, reader, n), line, at| {
            if line.trim_ascii().is_empty() {
                return Ok(());
            }
            *n += 1;
            let result = reader
                .item(line, sink, opts)
                .map_err(|what| SourceError::record(name, At::Line(at), what));
            ahead.after(sink);
            result
        },
    )?;
    let (_, sink, _, n) = state;
    sink.lines += lines;
    if first {
        items.fetch_add(n, std::sync::atomic::Ordering::Relaxed);
    }
    Ok(())
}

/// Reads the first item (from `head`, the file's first bytes, after what `layout` opens with) into a probe and takes what it decides
/// into `sink` ([`adopt_first`]): how items are written and the TTL attribute every stretch starts from.
/// `None` when it cannot be read from `head` (one reader reports what is wrong with it).
fn first_item(
    head: &[u8],
    layout: Layout,
    name: &Path,
    sink: &mut Sink,
    opts: &LoadOptions,
) -> Option<(Typing, crate::source::json::ttl::TtlProbe)> {
    let mut reader = head;
    let mut js = JsonStream::new(&mut reader, name, Compression::None);
    layout.open(&mut js).ok()?;
    let mut item = Vec::new();
    if js.capture(&mut item, true).ok()? != End::Complete {
        return None;
    }
    let mut probe = Sink::new(opts);
    let mut items = ItemReader::new(opts);
    items.item(&item, &mut probe, opts).ok()?;
    probe.names.as_ref()?;
    let typing = items.typing?;
    Some((typing, adopt_first(sink, probe, items.into_ttl())))
}

/// Counts the bytes a [`JsonStream`] consumes (where in the file its next byte is).
struct Tracked<'a> {
    inner: &'a mut dyn BufRead,
    consumed: &'a Cell<u64>,
}

impl Read for Tracked<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.consumed.set(self.consumed.get() + n as u64);
        Ok(n)
    }
}

impl BufRead for Tracked<'_> {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        self.inner.fill_buf()
    }

    fn consume(&mut self, amt: usize) {
        self.inner.consume(amt);
        self.consumed.set(self.consumed.get() + amt as u64);
    }
}

/// How a document's items follow one another.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Layout {
    /// In an array: `[`, items separated by commas, `]`.
    Array,
    /// Back to back, white space between them, to the end of the file.
    BackToBack,
    /// In a scan output page's `"Items"` array, its first field (`{"Items": [`, as the AWS CLI prints a
    /// scan): after the array's `]`, the page's other fields and its `}` end the file.
    ScanPage,
}

impl Layout {
    /// At the file's start: the array's `[`, the page's `{"Items": [`, or nothing before the first item.
    fn open(self, js: &mut JsonStream<'_>) -> Result<(), SourceError> {
        match self {
            Layout::Array => js.expect(b'[', "to open the array of items"),
            Layout::BackToBack => Ok(()),
            Layout::ScanPage => {
                js.expect(b'{', "")?;
                if js.field_name(&mut Vec::new())? != "Items" {
                    return Err(js.broken(MISMATCH));
                }
                js.expect(b'[', "")
            }
        }
    }

    /// After item `n`: whether another follows (an array's `,`; anything but the end of the file), its `,`
    /// consumed; at the array's end, its `]`.
    fn goes_on(self, js: &mut JsonStream<'_>, n: u64) -> Result<bool, SourceError> {
        match self {
            Layout::Array => array_goes_on(js, n, "the array of items"),
            Layout::BackToBack => Ok(js.peek()?.is_some()),
            Layout::ScanPage => array_goes_on(js, n, "the Items array"),
        }
    }

    /// Commas between two items.
    fn commas(self) -> u32 {
        match self {
            Layout::Array | Layout::ScanPage => 1,
            Layout::BackToBack => 0,
        }
    }

    /// After the items, in the last stretch: the rest of a scan page, read as one reader reads it (its
    /// `Count`, other fields skipped, its `}`); nothing may follow (one reader reads the pages after it).
    fn close(self, js: &mut JsonStream<'_>) -> Result<Option<u64>, SourceError> {
        let mut count = None;
        if self == Layout::ScanPage {
            let mut field = Vec::new();
            while js.next_or_close(b'}', "in a scan output page")? {
                let name = js.field_name(&mut field)?;
                field.clear();
                let end = if name == "Count" {
                    let end = js.capture(&mut field, true)?;
                    count = std::str::from_utf8(&field)
                        .ok()
                        .and_then(|t| t.parse::<u64>().ok());
                    end
                } else {
                    js.skip()?
                };
                if end == End::Truncated || name == "Items" {
                    return Err(js.broken(MISMATCH));
                }
            }
        }
        if js.peek()?.is_some() {
            return Err(js.broken(MISMATCH));
        }
        Ok(count)
    }
}

/// Reads the items of `stretch` into `sink`: from its start (the file's first stretch opens the array, when
/// they are in one), through its end, to the start of the item after its last, which must be the stretch's
/// end (where the next stretch began); the last stretch reads to the array's `]` and the end of the file (to
/// the end of the file, items back to back). Items are cut out compact, in batches, and read as one reader's
/// item thread reads them ([`Batch::each`]); a first reading counts them in `items_read`.
fn read_items(
    on: &FileStretches<'_>,
    stretch: Stretch,
    sink: &mut Sink,
    first: bool,
    cut: &Cut,
    items_read: &AtomicU64,
) -> Result<(), SourceError> {
    let uncounted = AtomicU64::new(0);
    let mut file = on.open_at(stretch.from, u64::MAX, false, &uncounted)?;
    let consumed = Cell::new(0u64);
    let mut tracked = Tracked {
        inner: &mut file,
        consumed: &consumed,
    };
    let mut js = JsonStream::new(&mut tracked, on.name, Compression::None);
    let (name, opts) = (on.name, on.opts);
    let mut tick = on.tick(first);
    let mut items = ItemReader::for_stretch(cut.typing, opts, sink.ttl_seed.as_ref());
    let mut ahead = KeyAhead::new(sink);
    let mut batch = Batch::default();
    let mut read_batch = |batch: &mut Batch, sink: &mut Sink| {
        let r = batch.each(&mut ahead, sink, |sink, text, item, line| {
            let at = At::Item {
                item,
                line: Some(line),
            };
            let result = items
                .item(text, sink, opts)
                .map_err(|what| SourceError::record(name, at, what));
            sink.check(result)
        });
        batch.data.clear();
        batch.items.clear();
        r
    };
    if stretch.from == 0 {
        cut.layout.open(&mut js)?;
    }
    let (mut n, mut counted, mut next_tick, kernel) = (0u64, 0u64, TICK_LINES, Kernel::detect());
    let mut reach = Reach::of(stretch);
    loop {
        js.peek()?;
        let at = stretch.from + consumed.get();
        if !reach.takes(on, at, n, &js)? {
            break;
        }
        let line = js.line;
        n += 1;
        let start = batch.data.len();
        if js.capture(&mut batch.data, true)? == End::Truncated {
            return Err(truncated(name, n, line));
        }
        batch.items.push((start, batch.data.len(), n, line));
        // The kernel takes whole elements from where the one just cut out ended, up to the claim.
        let limit = reach.until.saturating_sub(stretch.from + consumed.get());
        n += take_elements(&mut js, kernel, limit, &mut batch, n, cut.layout.commas())?;
        if n >= next_tick {
            next_tick = (n / TICK_LINES + 1) * TICK_LINES;
            let so_far = consumed.get().min(reach.now.to - stretch.from);
            if first {
                on.add_read(so_far.saturating_sub(counted));
            }
            counted = counted.max(so_far);
            tick(js.line, n)?;
        }
        let goes_on = cut.layout.goes_on(&mut js, n)?;
        if !goes_on || batch.items.len() >= BATCH_ITEMS || batch.data.len() >= BATCH_BYTES {
            read_batch(&mut batch, sink)?;
        }
        if !goes_on {
            cut.close(&mut js, reach.holds_the_end(on))?;
            break;
        }
    }
    read_batch(&mut batch, sink)?;
    if first {
        reach.count_the_rest(on, stretch.from, counted);
        items_read.fetch_add(n, std::sync::atomic::Ordering::Relaxed);
    }
    // Lines are counted from 1 at the file's start; a later stretch's first line is its first stretch's last.
    sink.lines += if stretch.from == 0 {
        js.line
    } else {
        js.line - 1
    };
    Ok(())
}

/// A stretch's reader's view of its stretch: as it stands (another thread may take its back), and where its
/// items may begin, before `until`, the bytes it claimed ([`FileStretches::claim`]).
struct Reach {
    now: Stretch,
    until: u64,
}

impl Reach {
    /// Nothing claimed yet.
    fn of(stretch: Stretch) -> Reach {
        Reach {
            now: stretch,
            until: stretch.from,
        }
    }

    /// Whether the item that begins at `at` (after `n` read) is the stretch's to read: `Ok(false)` at its end
    /// (where the next stretch began, exactly, or the guess of a cut was wrong: an error).
    fn takes(
        &mut self,
        on: &FileStretches<'_>,
        at: u64,
        n: u64,
        js: &JsonStream<'_>,
    ) -> Result<bool, SourceError> {
        let mismatch = || js.broken(MISMATCH);
        if at >= self.until {
            (self.now, self.until) = on.claim(self.now.piece, at).ok_or_else(mismatch)?;
        }
        if n > 0 && !self.now.last && at >= self.now.to {
            return if at == self.now.to {
                Ok(false)
            } else {
                Err(mismatch())
            };
        }
        if at >= self.until {
            // An item at or past its end as the first: not a stretch this reader can read.
            return Err(mismatch());
        }
        Ok(true)
    }

    /// Counts for progress the bytes of the stretch (from `from`) past the `counted` ones, to its end as it
    /// stands: no back is taken once its reader claimed it to the end, as it did before reading the item there.
    fn count_the_rest(&self, on: &FileStretches<'_>, from: u64, counted: u64) {
        let to = on
            .stretch_now(self.now.piece)
            .map_or(self.now.to, |now| now.to);
        on.add_read((to - from).saturating_sub(counted));
    }

    /// Whether the stretch, as it stands, holds the array's end.
    fn holds_the_end(&self, on: &FileStretches<'_>) -> bool {
        on.stretch_now(self.now.piece).is_some_and(|now| now.last)
    }
}

/// The elements after element `n` (just cut out) with the CPU's SIMD kernel, from at most `limit` bytes
/// (up to what the stretch's reader claimed: the element that begins past it is another's, or claimed
/// next), `commas` between two: how many it took.
fn take_elements(
    js: &mut JsonStream<'_>,
    kernel: Option<Kernel>,
    limit: u64,
    batch: &mut Batch,
    n: u64,
    commas: u32,
) -> Result<u64, SourceError> {
    let Some(kernel) = kernel else {
        return Ok(0);
    };
    batch.take_elements(js, kernel, limit, n, commas)
}

/// What a stretch that is not read as one reader reads it says (never shown: one reader reads the file then).
const MISMATCH: &str = "a stretch does not end where the next one begins";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::json::json_doc::load_json_doc;
    use crate::source::read::SplitLoad;
    use crate::source::read::load_text;
    use crate::source::stretches::{load_in_stretches_or_one, summary, test_numbers};
    use crate::source::{FormatIn, OnBad};

    /// Typed items, compact, one string each: keys with one item and with many, items written again
    /// (`repeat` of them, anywhere), a TTL attribute on the first and on some others, and some items whose
    /// first attribute is not the key (the cuts' pattern does not match them).
    fn items(n: usize, seed: u64, repeat: usize) -> Vec<String> {
        let mut next = test_numbers(seed);
        let mut items = Vec::new();
        for i in 0..n {
            let pk = if next().is_multiple_of(3) {
                format!("solo#{i}")
            } else {
                format!("user#{}", next() % 40)
            };
            let sk = format!(r#""sk":{{"S":"{:06}"}}"#, next() % 50_000);
            let ttl = if i == 0 || next().is_multiple_of(4) {
                format!(
                    r#","expires":{{"N":"{}"}}"#,
                    1_700_000_000 + next() % 100_000
                )
            } else {
                String::new()
            };
            let v = format!(
                r#""v":{{"L":[{{"S":"{}"}},{{"M":{{"n":{{"N":"{}"}}}}}}]}}"#,
                "x".repeat((next() % 200) as usize),
                next() % 1000
            );
            items.push(if next().is_multiple_of(5) {
                format!(r#"{{{v},"pk":{{"S":"{pk}"}},{sk}{ttl}}}"#)
            } else {
                format!(r#"{{"pk":{{"S":"{pk}"}},{sk},{v}{ttl}}}"#)
            });
        }
        for _ in 0..repeat {
            let from = (next() as usize) % items.len();
            let to = (next() as usize) % items.len();
            let again = items[from].clone();
            items.insert(to, again);
        }
        items
    }

    /// Compact JSON re-indented as pretty printers write it: `indent` spaces a level, `": "` after names.
    fn pretty(compact: &str, indent: usize) -> String {
        let mut out = String::new();
        let (mut depth, mut in_str, mut escaped) = (0usize, false, false);
        let newline = |out: &mut String, depth: usize| {
            out.push('\n');
            out.push_str(&" ".repeat(depth * indent));
        };
        for c in compact.chars() {
            if in_str {
                out.push(c);
                match c {
                    _ if escaped => escaped = false,
                    '\\' => escaped = true,
                    '"' => in_str = false,
                    _ => {}
                }
                continue;
            }
            match c {
                '"' => {
                    in_str = true;
                    out.push(c);
                }
                '{' | '[' => {
                    depth += 1;
                    out.push(c);
                    newline(&mut out, depth);
                }
                '}' | ']' => {
                    depth -= 1;
                    newline(&mut out, depth);
                    out.push(c);
                }
                ',' => {
                    out.push(c);
                    newline(&mut out, depth);
                }
                ':' => out.push_str(": "),
                _ => out.push(c),
            }
        }
        out.push('\n');
        out
    }

    /// The items as one array: compact, or pretty-printed with `indent` spaces.
    fn array(items: &[String], indent: Option<usize>) -> String {
        let compact = format!("[{}]", items.join(","));
        indent.map_or(compact.clone(), |n| pretty(&compact, n))
    }

    /// `text`, an array, loaded as a file in `threads` stretches (falling back to one reader as `load_file`
    /// does); whether it loaded in stretches.
    fn split(text: &str, threads: usize, opts: &LoadOptions) -> (Result<Sink, SourceError>, bool) {
        split_as(
            text,
            threads,
            opts,
            load_json_array_split,
            FormatIn::JsonArray,
        )
    }

    /// `text` loaded as a file of `format` by `splitter` in `threads` stretches, falling back to one reader.
    fn split_as(
        text: &str,
        threads: usize,
        opts: &LoadOptions,
        splitter: SplitLoad,
        format: FormatIn,
    ) -> (Result<Sink, SourceError>, bool) {
        load_in_stretches_or_one(text, threads, opts, Sink::new(opts), splitter, |cx| {
            load_json_doc(cx, format)
        })
    }

    fn one_reader(text: &str, opts: &LoadOptions) -> Result<Sink, SourceError> {
        one_reader_as(text, opts, FormatIn::JsonArray)
    }

    fn one_reader_as(
        text: &str,
        opts: &LoadOptions,
        format: FormatIn,
    ) -> Result<Sink, SourceError> {
        load_text(text, "items.json", opts, |cx| load_json_doc(cx, format))
    }

    /// The items one a line: compact, or with a space after each `:` and `,` (as Python's `json.dumps`
    /// writes), with CRLF line ends and blank lines here and there, and a last line with or without its
    /// newline.
    fn item_lines(items: &[String], spaced: bool, last_newline: bool) -> String {
        let mut text = String::new();
        for (i, item) in items.iter().enumerate() {
            if spaced {
                text.push_str(&item.replace("\":", "\": ").replace(",\"", ", \""));
            } else {
                text.push_str(item);
            }
            text.push_str(match i % 97 {
                0 => "\r\n",
                1 => "\n\n",
                _ => "\n",
            });
        }
        if !last_newline {
            text.truncate(text.trim_end().len());
        }
        text
    }

    fn split_items(
        text: &str,
        threads: usize,
        opts: &LoadOptions,
    ) -> (Result<Sink, SourceError>, bool) {
        split_as(
            text,
            threads,
            opts,
            load_json_items_split,
            FormatIn::JsonItems,
        )
    }

    #[test]
    fn item_lines_load_in_stretches_what_one_reader_loads() {
        let opts = LoadOptions::default();
        for (seed, repeat) in [(21, 0), (22, 150)] {
            let items = items(3_000, seed, repeat);
            for (spaced, last_newline) in [(false, true), (true, true), (false, false)] {
                let text = item_lines(&items, spaced, last_newline);
                let want = report(&one_reader_as(&text, &opts, FormatIn::JsonItems).unwrap());
                assert!(want.contains("expires"), "the TTL attribute is found");
                for threads in 2..=4 {
                    let (got, in_stretches) = split_items(&text, threads, &opts);
                    let what = format!(
                        "seed {seed}, spaced {spaced}, newline {last_newline}, {threads} threads"
                    );
                    assert!(in_stretches, "{what}: loaded in stretches");
                    assert_eq!(report(&got.unwrap()), want, "{what}");
                }
            }
        }
        // Plain JSON items, as a DocumentClient dump writes them.
        let plain: Vec<String> = (0..3_000)
            .map(|i| format!(r#"{{"pk":"user#{}","sk":"{i:05}","n":{i}}}"#, i % 70))
            .collect();
        let text = item_lines(&plain, false, true);
        let want = report(&one_reader_as(&text, &opts, FormatIn::JsonItems).unwrap());
        let (got, in_stretches) = split_items(&text, 2, &opts);
        assert!(in_stretches);
        assert_eq!(report(&got.unwrap()), want);
    }

    /// Pretty-printed items back to back (as `jq '.Items[]'` prints them) load in stretches, cut as an array
    /// is, and give what one reader gives; also when threads take the backs of each other's stretches.
    #[test]
    fn pretty_items_back_to_back_load_in_stretches_what_one_reader_loads() {
        use crate::source::stretches::{TEST_STEALING, TEST_STEALS};
        let opts = LoadOptions::default();
        for (seed, repeat) in [(23, 0), (24, 150)] {
            for indent in [2, 4] {
                let pretty: String = items(3_000, seed, repeat)
                    .iter()
                    .map(|i| pretty(i, indent))
                    .collect();
                let want = report(&one_reader_as(&pretty, &opts, FormatIn::JsonItems).unwrap());
                assert!(want.contains("one after another (3"), "{want}");
                for threads in 2..=4 {
                    let what = format!("seed {seed}, indent {indent}, {threads} threads");
                    let (got, in_stretches) = split_items(&pretty, threads, &opts);
                    assert!(in_stretches, "{what}: loaded in stretches");
                    assert_eq!(report(&got.unwrap()), want, "{what}");
                    TEST_STEALING.set(Some((4 << 10, 8 << 10, Some(threads - 1))));
                    TEST_STEALS.set(0);
                    let (got, in_stretches) = split_items(&pretty, threads, &opts);
                    TEST_STEALING.set(None);
                    assert!(in_stretches, "{what}, backs taken: loaded in stretches");
                    assert!(TEST_STEALS.get() >= 1, "{what}: a back was taken");
                    assert_eq!(report(&got.unwrap()), want, "{what}, backs taken");
                }
            }
        }
    }

    /// A bad item, a value that is not an item, and the file's end inside an item, past the first stretch of
    /// pretty-printed items back to back: reported (or skipped) as one reader reports them.
    #[test]
    fn bad_items_back_to_back_are_reported_as_one_reader_reports_them() {
        let mut items = items(3_000, 25, 0);
        items[2_500] = r#"{"pk":{"S":"a"},"sk":{"N":"x"}}"#.to_owned();
        items[2_600] = r#""not an item""#.to_owned();
        let text: String = items.iter().map(|i| pretty(i, 2)).collect();
        let cut = text[..text.len() - 40].to_owned();
        let skip = LoadOptions {
            on_bad: OnBad::Skip,
            ..LoadOptions::default()
        };
        for (what, text) in [("bad items", &text), ("cut short", &cut)] {
            for opts in [LoadOptions::default(), skip.clone()] {
                let want = one_reader_as(text, &opts, FormatIn::JsonItems).map(|s| report(&s));
                let (got, _) = split_items(text, 2, &opts);
                let got = got.map(|s| report(&s));
                assert_eq!(
                    got.as_ref().map_err(ToString::to_string),
                    want.as_ref().map_err(ToString::to_string),
                    "{what}, {:?}",
                    opts.on_bad
                );
            }
        }
    }

    /// A scan output page (`{"Items": [...], "Count": …}`, as the AWS CLI prints a scan) loads in stretches
    /// and gives what one reader gives, its Count's warning included; several pages go to one reader.
    #[test]
    fn a_scan_page_loads_in_stretches_what_one_reader_loads() {
        let opts = LoadOptions::default();
        let items = items(3_000, 26, 40);
        for (count, indent) in [(3_040, 4), (17, 2)] {
            let page = format!(
                r#"{{"Items":{},"Count":{count},"ScannedCount":9,"ConsumedCapacity":null}}"#,
                array(&items, None)
            );
            let text = pretty(&page, indent);
            let want = report(&one_reader_as(&text, &opts, FormatIn::ScanJson).unwrap());
            assert_eq!(want.contains("Count says 17"), count == 17, "{want}");
            for threads in 2..=4 {
                let what = format!("Count {count}, {threads} threads");
                let (got, in_stretches) =
                    split_as(&text, threads, &opts, load_scan_split, FormatIn::ScanJson);
                assert!(in_stretches, "{what}: loaded in stretches");
                assert_eq!(report(&got.unwrap()), want, "{what}");
            }
            let two = format!("{text}{text}");
            let want = report(&one_reader_as(&two, &opts, FormatIn::ScanJson).unwrap());
            let (got, in_stretches) = split_as(&two, 2, &opts, load_scan_split, FormatIn::ScanJson);
            assert!(!in_stretches, "two pages: one reader");
            assert_eq!(report(&got.unwrap()), want);
        }
    }

    /// Two items on one line, where a cut ends: one reader reads the file.
    #[test]
    fn items_not_one_a_line_are_read_by_one_reader() {
        let opts = LoadOptions::default();
        let items = items(2_000, 23, 0);
        let mut text = item_lines(&items, false, true);
        let middle = text[text.len() / 2..].find('\n').unwrap() + text.len() / 2;
        text.replace_range(middle..=middle, " ");
        let want = report(&one_reader_as(&text, &opts, FormatIn::JsonItems).unwrap());
        let (got, in_stretches) = split_items(&text, 2, &opts);
        assert!(!in_stretches);
        assert_eq!(report(&got.unwrap()), want);
    }

    #[test]
    fn a_bad_item_line_past_the_first_stretch_is_reported_as_one_reader_reports_it() {
        let mut items = items(3_000, 24, 0);
        items[2_500] = r#"{"pk":{"S":"a"},"sk":{"N":"x"}}"#.to_owned();
        let text = item_lines(&items, false, true);
        let fail = LoadOptions::default();
        let want = one_reader_as(&text, &fail, FormatIn::JsonItems)
            .err()
            .map(|e| e.to_string());
        assert!(want.is_some(), "the bad item is an error");
        let (got, in_stretches) = split_items(&text, 2, &fail);
        assert!(!in_stretches);
        assert_eq!(got.err().map(|e| e.to_string()), want);
        let skip = LoadOptions {
            on_bad: OnBad::Skip,
            ..LoadOptions::default()
        };
        let want = report(&one_reader_as(&text, &skip, FormatIn::JsonItems).unwrap());
        assert!(want.contains("skipped 1"), "{want}");
        let (got, in_stretches) = split_items(&text, 2, &skip);
        assert!(!in_stretches);
        assert_eq!(report(&got.unwrap()), want);
    }

    /// What a report reads, and the shape the load names.
    fn report(s: &Sink) -> String {
        format!("{}\nshape {:?}", summary(s), s.shape)
    }

    #[test]
    fn stretches_load_what_one_reader_loads() {
        let opts = LoadOptions::default();
        for (seed, repeat) in [(1, 0), (2, 0), (3, 5), (4, 200)] {
            for indent in [None, Some(2), Some(4)] {
                let text = array(&items(3_000, seed, repeat), indent);
                let want = report(&one_reader(&text, &opts).unwrap());
                assert!(want.contains("expires"), "the TTL attribute is found");
                for threads in 2..=4 {
                    let (got, in_stretches) = split(&text, threads, &opts);
                    let what = format!("seed {seed}, indent {indent:?}, {threads} threads");
                    assert!(in_stretches, "{what}: loaded in stretches");
                    assert_eq!(report(&got.unwrap()), want, "{what}");
                }
            }
        }
    }

    /// Threads that end first take the backs of the other stretches (claims of 4 KiB, backs of 8 KiB or more;
    /// the last stretch's reader waits until a back of it was taken), and the load is still one reader's.
    #[test]
    fn backs_taken_from_stretches_load_what_one_reader_loads() {
        use crate::source::stretches::{TEST_STEALING, TEST_STEALS};
        let opts = LoadOptions::default();
        for (seed, repeat) in [(31, 0), (32, 120)] {
            for indent in [None, Some(4)] {
                let text = array(&items(3_000, seed, repeat), indent);
                let want = report(&one_reader(&text, &opts).unwrap());
                for threads in 2..=4 {
                    TEST_STEALING.set(Some((4 << 10, 8 << 10, Some(threads - 1))));
                    TEST_STEALS.set(0);
                    let (got, in_stretches) = split(&text, threads, &opts);
                    TEST_STEALING.set(None);
                    let what = format!("seed {seed}, indent {indent:?}, {threads} threads");
                    assert!(in_stretches, "{what}: loaded in stretches");
                    assert!(TEST_STEALS.get() >= 1, "{what}: a back was taken");
                    assert_eq!(report(&got.unwrap()), want, "{what}");
                }
            }
        }
    }

    #[test]
    fn a_key_expression_alone_loads_in_stretches() {
        let opts = LoadOptions {
            design: crate::model::design::Design {
                key: crate::model::design::parse_key("{pk}#{sk:first 3}").ok(),
                ..crate::model::design::Design::default()
            },
            ..LoadOptions::default()
        };
        let text = array(&items(3_000, 7, 40), Some(4));
        let want = report(&one_reader(&text, &opts).unwrap());
        let (got, in_stretches) = split(&text, 3, &opts);
        assert!(in_stretches);
        assert_eq!(report(&got.unwrap()), want);
    }

    /// Plain JSON items holding long lists of objects that begin as the items do (`},{"pk"`): a cut lands
    /// inside a list, its guess is wrong, and one reader reads the file.
    #[test]
    fn a_cut_inside_a_nested_list_sends_the_file_to_one_reader() {
        let items: Vec<String> = (0..200)
            .map(|i| {
                let kids: Vec<String> =
                    (0..100).map(|j| format!(r#"{{"pk":"kid#{j}"}}"#)).collect();
                format!(r#"{{"pk":"user#{}","kids":[{}]}}"#, i % 17, kids.join(","))
            })
            .collect();
        let text = array(&items, None);
        let opts = LoadOptions::default();
        let want = report(&one_reader(&text, &opts).unwrap());
        for threads in 2..=4 {
            let (got, in_stretches) = split(&text, threads, &opts);
            assert!(
                !in_stretches,
                "{threads} threads: a wrong guess is not kept"
            );
            assert_eq!(report(&got.unwrap()), want, "{threads} threads");
        }
    }

    /// A back whose cut lands inside an item (the pattern found in a nested list, where the stretches' own
    /// cut found an item) is a wrong guess like any other: one reader reads the file.
    #[test]
    fn a_back_cut_inside_a_nested_list_sends_the_file_to_one_reader() {
        use crate::source::stretches::{TEST_STEALING, TEST_STEALS};
        // Plain items first, over half the bytes; then items holding lists of objects that open as items do.
        let mut items: Vec<String> = (0..3_000)
            .map(|i| format!(r#"{{"pk":"user#{}","n":"{}"}}"#, i % 17, "x".repeat(40)))
            .collect();
        items.extend((0..100).map(|i| {
            let kids: Vec<String> = (0..50).map(|j| format!(r#"{{"pk":"kid#{j}"}}"#)).collect();
            format!(r#"{{"pk":"user#{}","kids":[{}]}}"#, i % 17, kids.join(","))
        }));
        let text = array(&items, None);
        let nested_from = text.find("kids").unwrap();
        assert!(nested_from > text.len() / 2 + 1000 && nested_from < text.len() * 3 / 4);
        let opts = LoadOptions::default();
        let want = report(&one_reader(&text, &opts).unwrap());
        TEST_STEALING.set(Some((1 << 10, 2 << 10, Some(1))));
        let (got, in_stretches) = split(&text, 2, &opts);
        TEST_STEALING.set(None);
        assert!(TEST_STEALS.get() >= 1, "a back was taken");
        assert!(!in_stretches, "a wrong cut is not kept");
        assert_eq!(report(&got.unwrap()), want);
    }

    #[test]
    fn a_bad_item_past_the_first_stretch_is_reported_as_one_reader_reports_it() {
        let mut items = items(3_000, 9, 0);
        items[2_500] = r#"{"pk":{"S":"a"},"sk":{"N":"x"}}"#.to_owned();
        items[2_600] = r#""not an item""#.to_owned();
        for indent in [None, Some(4)] {
            let text = array(&items, indent);
            let fail = LoadOptions::default();
            let want = one_reader(&text, &fail).err().map(|e| e.to_string());
            assert!(want.is_some(), "the bad item is an error");
            let (got, in_stretches) = split(&text, 2, &fail);
            assert!(!in_stretches);
            assert_eq!(got.err().map(|e| e.to_string()), want, "{indent:?}");
            let skip = LoadOptions {
                on_bad: OnBad::Skip,
                ..LoadOptions::default()
            };
            let want = report(&one_reader(&text, &skip).unwrap());
            assert!(want.contains("skipped 2"), "{want}");
            let (got, in_stretches) = split(&text, 2, &skip);
            assert!(!in_stretches);
            assert_eq!(report(&got.unwrap()), want);
        }
    }

    #[test]
    fn a_second_array_or_a_truncated_one_is_read_as_one_reader_reads_it() {
        let items = items(2_000, 11, 0);
        let opts = LoadOptions::default();
        let twice = format!(
            "{}\n{}",
            array(&items[..1_000], Some(2)),
            array(&items[1_000..], Some(2))
        );
        let want = report(&one_reader(&twice, &opts).unwrap());
        let (got, in_stretches) = split(&twice, 2, &opts);
        assert!(!in_stretches);
        assert_eq!(report(&got.unwrap()), want);
        let whole = array(&items, Some(2));
        let cut = &whole[..whole.len() - 40];
        let want = one_reader(cut, &opts).err().map(|e| e.to_string());
        assert!(want.is_some());
        let (got, in_stretches) = split(cut, 2, &opts);
        assert!(!in_stretches);
        assert_eq!(got.err().map(|e| e.to_string()), want);
    }

    #[test]
    fn the_pattern_is_the_first_item_s_opening_after_the_array_s_white_space() {
        let p =
            |head: &str| item_start_pattern(head.as_bytes()).map(|p| String::from_utf8(p).unwrap());
        assert_eq!(p(r#"[{"pk":{"S":"a"}}]"#).as_deref(), Some(r#",{"pk""#));
        assert_eq!(
            p("[\n    {\n        \"pk\": {").as_deref(),
            Some(",\n    {\n        \"pk\"")
        );
        assert_eq!(p(" [ {\"Item\":{").as_deref(), Some(", {\"Item\""));
        for not in [
            "{\"Items\":[",
            "[[1]]",
            "[{}]",
            "[{\"a\\\"b\":1}]",
            "\u{feff}[{\"pk\":1}]",
            "[1,2]",
        ] {
            assert_eq!(p(not), None, "{not}");
        }
    }
}
