//! One large, uncompressed file of DynamoDB JSON lines on every core: the file is cut at line ends into one
//! stretch per thread, each stretch loads into a [`Sink::fork`] of its own, and the forks are merged in file
//! order, so keys keep the order in which they first appear and every count is what one reader would have
//! found. Anything a merge cannot give exactly sends the file back to one reader from the start (see
//! [`load_json_lines_split`]).
//!
//! Measured (`benches/json_lines.sh`: the 2,000,000 items of `benches/gen_export.py`'s export as one 466 MB
//! file, page cache warm, this 2-core machine, best of 5 interleaved runs): 0.43 s on both cores against 0.71 s
//! on one, DuckDB's `GROUP BY` over the file 0.50 s (its query alone); peak RSS 109 → 177 MB. The same items
//! with 147,983 written twice across the halves (the stretch holding them is read again): 0.77–0.84 s against
//! one reader's 0.83–0.89 s. Keyed by `{pk}#{status}#{tags.0}` (1.9 million keys): 0.79 s against 1.21 s, of
//! which the merge is about 0.16 s on one core.

use std::sync::atomic::AtomicU64;

use super::load_json_lines;
use crate::source::lines::cut_points;
use crate::source::read::{Compression, Ctx, FileLoad, Sink, SplitFile};
use crate::source::s3_export::resolve_names;
use crate::source::stretches::{FileStretches, Stretch, load_in_stretches};
use crate::source::{FormatIn, SourceError};

/// Loads `file`, a regular, uncompressed file of DynamoDB JSON lines (`{"Item":…}`), into `sink` on its
/// threads (as many as the machine has cores, up to four: the caller asks
/// [`crate::source::lines::stretch_threads`]).
///
/// Returns `Ok(false)`, with `sink` as it was but for the key attributes and the TTL attribute its first item
/// decides (as one reader would have decided them), when the file is better read by one reader from the
/// start: a sink that already holds items or follows them beyond the key set ([`Sink::splits`]), or any bad
/// line or warning past the first stretch (one reader then names its line in the whole file). A stretch that
/// holds an item of the stretches before it is read again after them (one reader counts the item once).
pub fn load_json_lines_split(
    file: &SplitFile<'_>,
    sink: &mut Sink,
    ctx: &mut Ctx<'_, '_>,
) -> Result<bool, SourceError> {
    if !sink.splits() {
        return Ok(false);
    }
    let Some(cuts) = cut_points(file)? else {
        return Ok(false);
    };
    // The first item fixes the key attributes and the TTL attribute for every stretch.
    let Some(ttl) = resolve_names(file.path, FormatIn::DynamodbJson, sink, ctx.opts, ctx.bytes)?
    else {
        return Ok(false);
    };
    load_in_stretches(file, &cuts, sink, ctx, &ttl, &read_lines, None)
}

/// Reads the lines of `stretch` into `sink` (a stretch of lines ends where the next begins).
fn read_lines(
    on: &FileStretches<'_>,
    stretch: Stretch,
    sink: &mut Sink,
    first: bool,
) -> Result<(), SourceError> {
    let uncounted = AtomicU64::new(0);
    let mut reader = on.open_at(stretch.from, stretch.to - stretch.from, first, &uncounted)?;
    let mut tick = on.tick(first);
    load_json_lines(
        FileLoad {
            reader: &mut reader,
            compression: Compression::None,
            name: on.name,
            opts: on.opts,
            sink,
            tick: &mut tick,
        },
        "Item",
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::read::load_text;
    use crate::source::stretches::{load_in_stretches_or_one, summary, test_numbers};
    use crate::source::{LoadOptions, OnBad};
    use std::path::Path;

    /// Items of a table: keys with one item and with many, items written again (`repeat` of them, anywhere in
    /// the file), a TTL attribute on some, blank and CRLF lines.
    fn items(n: usize, seed: u64, repeat: usize) -> String {
        let mut next = test_numbers(seed);
        let mut lines = Vec::new();
        for i in 0..n {
            let pk = if next().is_multiple_of(3) {
                format!("solo#{i}")
            } else {
                format!("user#{}", next() % 40)
            };
            let ttl = if next().is_multiple_of(4) {
                format!(
                    r#","expires":{{"N":"{}"}}"#,
                    1_700_000_000 + next() % 100_000
                )
            } else {
                String::new()
            };
            let pad = "x".repeat((next() % 300) as usize);
            lines.push(format!(
                r#"{{"Item":{{"pk":{{"S":"{pk}"}},"sk":{{"S":"{:06}"}},"v":{{"S":"{pad}"}}{ttl}}}}}"#,
                next() % 50_000
            ));
        }
        for _ in 0..repeat {
            let from = (next() as usize) % lines.len();
            let to = (next() as usize) % lines.len();
            let again = lines[from].clone();
            lines.insert(to, again);
        }
        let mut text = String::new();
        for (i, l) in lines.iter().enumerate() {
            text.push_str(l);
            text.push_str(match i % 97 {
                0 => "\r\n",
                1 => "\n\n",
                _ => "\n",
            });
        }
        text
    }

    /// `text` loaded as a file in `threads` stretches (falling back to one reader as `load_file` does), into a
    /// sink keeping `budget` bytes of sort keys; whether it loaded in stretches.
    fn split_kept(
        text: &str,
        threads: usize,
        opts: &LoadOptions,
        budget: usize,
    ) -> (Result<Sink, SourceError>, bool) {
        let mut sink = Sink::new(opts);
        sink.keys.set_kept_budget(budget);
        load_in_stretches_or_one(text, threads, opts, sink, load_json_lines_split, |cx| {
            load_json_lines(cx, "Item")
        })
    }

    fn split(text: &str, threads: usize, opts: &LoadOptions) -> (Result<Sink, SourceError>, bool) {
        split_kept(
            text,
            threads,
            opts,
            crate::model::keyset::MAX_KEPT_SORT_KEY_BYTES,
        )
    }

    fn one_reader_kept(text: &str, opts: &LoadOptions, budget: usize) -> Result<Sink, SourceError> {
        let mut sink = Sink::new(opts);
        sink.keys.set_kept_budget(budget);
        let mut reader = text.as_bytes();
        load_json_lines(
            FileLoad {
                reader: &mut reader,
                compression: Compression::None,
                name: Path::new("items.json"),
                opts,
                sink: &mut sink,
                tick: &mut |_, _| Ok(()),
            },
            "Item",
        )
        .map(|()| sink)
    }

    fn one_reader(text: &str, opts: &LoadOptions) -> Result<Sink, SourceError> {
        let sink = load_text(text, "items.json", opts, |cx| load_json_lines(cx, "Item"))?;
        Ok(sink)
    }

    #[test]
    fn stretches_load_what_one_reader_loads() {
        let opts = LoadOptions::default();
        for (seed, repeat) in [(1, 0), (2, 0), (3, 5), (4, 200)] {
            let text = items(3_000, seed, repeat);
            let want = summary(&one_reader(&text, &opts).unwrap());
            for threads in 2..=4 {
                let (got, split) = split(&text, threads, &opts);
                assert!(split, "seed {seed}, {threads} threads: loaded in stretches");
                assert_eq!(
                    summary(&got.unwrap()),
                    want,
                    "seed {seed}, {threads} threads"
                );
            }
        }
    }

    #[test]
    fn a_key_expression_alone_loads_in_stretches_and_a_random_one_does_not() {
        let keyed = |expr: &str| LoadOptions {
            design: crate::model::design::Design {
                key: crate::model::design::parse_key(expr).ok(),
                ..crate::model::design::Design::default()
            },
            ..LoadOptions::default()
        };
        let text = items(3_000, 7, 40);
        for (expr, in_stretches) in [
            ("{pk}#{sk:first 3}", true),
            ("V#{v:first 2}", true),
            ("{pk}#{random 4}", false),
        ] {
            let opts = keyed(expr);
            assert!(opts.design.key.is_some(), "{expr}");
            let want = summary(&one_reader(&text, &opts).unwrap());
            for threads in 2..=3 {
                let (got, split) = split(&text, threads, &opts);
                assert_eq!(split, in_stretches, "{expr}");
                assert_eq!(summary(&got.unwrap()), want, "{expr}, {threads} threads");
            }
        }
    }

    #[test]
    fn kept_sort_keys_over_the_budget_are_the_first_ones_as_one_reader_keeps_them() {
        // A small budget, as a very large file fills the real one; with and without items written again.
        let opts = LoadOptions::default();
        for (seed, repeat) in [(5, 0), (6, 100)] {
            let text = items(2_000, seed, repeat);
            for budget in [500, 3_000, 9_000] {
                let want = summary(&one_reader_kept(&text, &opts, budget).unwrap());
                assert!(want.contains("false)"), "over the budget: {budget}");
                for threads in 2..=4 {
                    let (got, _) = split_kept(&text, threads, &opts, budget);
                    assert_eq!(
                        summary(&got.unwrap()),
                        want,
                        "seed {seed}, budget {budget}, {threads} threads"
                    );
                }
            }
        }
    }

    #[test]
    fn a_bad_line_past_the_first_stretch_is_named_by_its_line_in_the_file() {
        let mut text = items(2_000, 6, 0);
        let at = text.len() * 3 / 4;
        let nl = at + text[at..].find('\n').unwrap() + 1;
        text.insert_str(nl, "{\"Item\":{\"pk\":{\"S\":\"a\"}\n");
        let line = text[..nl].lines().count() + 1;
        let opts = LoadOptions::default();
        let want = one_reader(&text, &opts).unwrap_err().to_string();
        assert!(want.contains(&format!("line {line}:")), "{want}");
        for threads in 2..=4 {
            let (got, split) = split(&text, threads, &opts);
            assert!(!split);
            assert_eq!(got.unwrap_err().to_string(), want);
        }
        // Skipped, it is a warning naming its line: one reader's too.
        let skip = LoadOptions {
            on_bad: OnBad::Skip,
            ..LoadOptions::default()
        };
        let want = summary(&one_reader(&text, &skip).unwrap());
        assert!(want.contains(&format!("line {line}")), "{want}");
        let (got, split) = split(&text, 2, &skip);
        assert!(!split);
        assert_eq!(summary(&got.unwrap()), want);
        // In the first stretch, its line in the stretch is its line in the file: the stretches stand.
        let mut early = items(2_000, 8, 0);
        let nl = early.find('\n').unwrap() * 3;
        let nl = nl + early[nl..].find('\n').unwrap() + 1;
        early.insert_str(nl, "{\"Item\":{\"pk\":{\"N\":\"x\"}}}\n");
        let want = summary(&one_reader(&early, &skip).unwrap());
        assert!(want.contains("skipped 1"), "{want}");
        let (got, in_stretches) = self::split(&early, 3, &skip);
        assert!(in_stretches);
        assert_eq!(summary(&got.unwrap()), want);
    }

    #[test]
    fn a_ttl_attribute_is_decided_by_the_first_item_for_every_stretch() {
        // The first item has no TTL-like attribute; later ones do: one reader guesses none.
        let mut text = String::from("{\"Item\":{\"pk\":{\"S\":\"first\"}}}\n");
        for i in 0..3_000 {
            text.push_str(&format!(
                "{{\"Item\":{{\"pk\":{{\"S\":\"k{}\"}},\"ttl\":{{\"N\":\"{}\"}}}}}}\n",
                i % 50,
                1_700_000_000 + i
            ));
        }
        let opts = LoadOptions::default();
        let want = summary(&one_reader(&text, &opts).unwrap());
        assert!(want.contains("ttl None"), "{want}");
        let (got, split) = split(&text, 3, &opts);
        assert!(split);
        assert_eq!(summary(&got.unwrap()), want);
    }
}
