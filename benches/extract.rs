//! `extract`: what a key expression costs a load of DynamoDB JSON (issue 14's target: re-keying
//! 2,000,000 export items by an expression takes at most 1.5× the plain load). One uncompressed file of
//! export lines shaped like `benches/gen_export.py`'s (~230 bytes an item), read from the page cache, loaded
//!
//! 1. plainly (keys only: the fast path skips every other attribute),
//! 2. keyed by three key expressions (`--key-expr`: the fast path cuts each attribute out and reads it with
//!    serde, the sink evaluates the expression),
//! 3. extracting the same roots through serde alone (what bypassing the fast path would cost),
//!
//! each followed by the analysis (the report the histogram shows); medians of 9 interleaved runs, and how far
//! each median is above its best run (a few per cent on a quiet host).

use std::io::{BufRead as _, BufWriter, Write as _};
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use serde::de::DeserializeSeed as _;
use shardlens::model::design::{Design, parse_key};
use shardlens::source::json::dialect::Typed;
use shardlens::source::json::item::{ItemSeed, RecordSeed, Scratch};
use shardlens::source::read::Sink;
use shardlens::source::{FormatIn, LoadOptions};

const ITEMS: usize = 2_000_000;
const RUNS: usize = 9;

fn write_export(path: &Path) -> std::io::Result<()> {
    let mut out = BufWriter::with_capacity(1 << 20, std::fs::File::create(path)?);
    let mut x = 0x9E37_79B9_7F4A_7C15_u64;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for i in 0..ITEMS {
        let r = next() % 200_000;
        writeln!(
            out,
            r#"{{"Item":{{"pk":{{"S":"user#{r:06}"}},"sk":{{"S":"2024-05-{:02}T{:02}:{:02}:{:02}.{:03}Z#{i:07}"}},"status":{{"S":"{}"}},"amount":{{"N":"{}.{:02}"}},"tags":{{"SS":["t{}","t{}"]}},"payload":{{"S":"{:032x}{:024x}"}}}}}}"#,
            1 + i % 28,
            i % 24,
            i % 60,
            (i * 7) % 60,
            i % 1000,
            ["ACTIVE", "PENDING", "CLOSED"][i % 3],
            next() % 10_000,
            next() % 100,
            i % 50,
            i % 7,
            next(),
            next() >> 16
        )?;
    }
    out.flush()
}

/// A load keyed by `expr` (`--key-expr`): the new histogram.
fn design(expr: &str) -> LoadOptions {
    LoadOptions {
        format: FormatIn::DynamodbJson,
        design: Design {
            key: parse_key(expr).ok(),
            ..Design::default()
        },
        ..LoadOptions::default()
    }
}

/// Loads and analyses (the report the histogram shows); the items keyed.
fn load(path: &Path, opts: &LoadOptions) -> u64 {
    let cancel = AtomicBool::new(false);
    shardlens::source::load(&[path.to_path_buf()], opts, &cancel, &mut |_| {}).map_or(0, |l| {
        let report = shardlens::model::report(&l.keys, &shardlens::model::ViewSettings::default());
        std::hint::black_box(report.analysis.total);
        l.items
    })
}

/// The serde path alone: every line through `RecordSeed`, extracting what `opts` says.
fn serde_only(path: &Path, opts: &LoadOptions) -> u64 {
    let Ok(file) = std::fs::File::open(path) else {
        return 0;
    };
    let mut reader = std::io::BufReader::with_capacity(256 << 10, file);
    let mut sink = Sink::new(opts);
    let mut scratch = Scratch::for_load(opts);
    let mut line = Vec::new();
    while reader.read_until(b'\n', &mut line).is_ok_and(|n| n > 0) {
        let mut de = serde_json::Deserializer::from_slice(line.trim_ascii_end());
        let seed = RecordSeed {
            field: "Item",
            item: ItemSeed {
                names: sink.names.as_ref(),
                scratch: &mut scratch,
                dialect: Typed,
            },
        };
        if seed.deserialize(&mut de).is_ok() {
            if sink.names.is_none() && sink.resolve_from_first(&mut scratch, opts).is_err() {
                return 0;
            }
            let _ = sink.add_scratch(&scratch, 1);
        }
        line.clear();
    }
    sink.items
}

/// Median of `samples`.
fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

pub fn extract() -> std::io::Result<()> {
    let path = std::env::temp_dir().join(format!("shardlens-extract-{ITEMS}.json"));
    if !path.exists() {
        write_export(&path)?;
    }
    let size = std::fs::metadata(&path)?.len();
    println!(
        "\nextracting a design's attributes: {ITEMS} export lines, {:.0} MB ({}), medians of {RUNS} interleaved runs",
        size as f64 / 1e6,
        path.display()
    );
    let _ = std::fs::read(&path);
    let plain = LoadOptions {
        format: FormatIn::DynamodbJson,
        ..LoadOptions::default()
    };
    let designs: Vec<LoadOptions> = [
        "{status}#{sk:first 10}",
        "AMT#{amount:hash 10}",
        "{pk}#{status}#{tags.0}",
    ]
    .iter()
    .map(|e| design(e))
    .collect();
    // Interleaved so that the load of the other builders on the machine hits every variant alike.
    let mut base = Vec::new();
    let mut fast = vec![Vec::new(); designs.len()];
    let mut slow = vec![Vec::new(); designs.len()];
    let timed = |f: &dyn Fn() -> u64, out: &mut Vec<Duration>| {
        let t = Instant::now();
        let n = f();
        out.push(t.elapsed());
        if n != ITEMS as u64 {
            eprintln!("  only {n} items read");
        }
    };
    for _ in 0..RUNS {
        timed(&|| load(&path, &plain), &mut base);
        for (i, opts) in designs.iter().enumerate() {
            timed(&|| load(&path, opts), &mut fast[i]);
            timed(&|| serde_only(&path, opts), &mut slow[i]);
        }
    }
    let above = |runs: &[Duration]| {
        let best = runs.iter().min().copied().unwrap_or_default().as_secs_f64();
        (median(runs.to_vec()).as_secs_f64() / best - 1.0) * 100.0
    };
    let base_above = above(&base);
    let base = median(base).as_secs_f64();
    println!(
        "  plain load + analysis (keys only)            {base:>6.2} s  (median +{base_above:.0} % above best)"
    );
    for (i, opts) in designs.iter().enumerate() {
        let (f, s) = (
            median(fast[i].clone()).as_secs_f64(),
            median(slow[i].clone()).as_secs_f64(),
        );
        let expr = opts
            .design
            .key
            .as_ref()
            .map(ToString::to_string)
            .unwrap_or_default();
        println!(
            "  --key-expr {expr:<32}  {f:>6.2} s  {:.2}x plain (fast path, median +{:.0} % above best)   serde only {s:>6.2} s  {:.2}x",
            f / base,
            above(&fast[i]),
            s / base,
        );
    }
    Ok(())
}

/// The app's Key design preview: re-keying 100,000 kept items by three candidates and a GSI, and the
/// comparison's figures (what runs off the UI thread after the 30 ms debounce; target: on screen within
/// 100 ms of the last keystroke). Best and median of 20 runs.
pub fn preview() {
    use shardlens::model::design::{GsiSpec, Items, figures};
    use shardlens::model::keyexpr::Value;
    const N: usize = 100_000;
    let roots: Vec<String> = ["createdAt", "customerId", "status"]
        .map(String::from)
        .to_vec();
    let mut items = Items::new(roots);
    let mut keys = shardlens::model::KeySet::new(shardlens::model::KeyType::S);
    for i in 0..N {
        let pk = format!("ORDER#{i:07}");
        let idx = keys.add(pk.as_bytes(), 1);
        let values = [
            Some(Value::S(format!(
                "2026-11-{:02}T{:02}:00:00Z",
                1 + i % 28,
                i % 24
            ))),
            Some(Value::S(format!("C{}", (i * 7919) % 5000))),
            Some(Value::S(["OPEN", "SHIPPED", "CLOSED"][i % 3].to_owned())),
        ];
        items.push(&values, idx, None, 1, i as u64);
    }
    let design = Design {
        candidates: [
            "{status}",
            "CUST#{customerId}",
            "CUST#{customerId}#{createdAt:day}",
        ]
        .iter()
        .filter_map(|e| parse_key(e).ok())
        .collect(),
        gsis: GsiSpec::parse("byStatus=status").into_iter().collect(),
        ..Design::default()
    };
    let one = Design {
        candidates: design.candidates[2..].to_vec(),
        ..Design::default()
    };
    let view = shardlens::model::ViewSettings::default();
    let answers = shardlens::model::UserAnswers::default();
    // Everything (the first comparison), or one edited box (the app reuses the other rows and the current
    // key's: one re-key and one row of figures).
    let run = |d: &Design, with_current: bool| {
        let t = Instant::now();
        let r = items.rekey(d);
        let current = shardlens::model::design::DesignKeys {
            kind: shardlens::model::design::DesignKind::Current,
            expr: "{pk}".to_owned(),
            fan_out: 1,
            keys: if with_current {
                keys.clone()
            } else {
                shardlens::model::KeySet::default()
            },
            absent: 0,
            projection: None,
        };
        let mut rows = Vec::new();
        if with_current {
            rows.push((&current, 0));
        }
        rows.extend(r.designs.iter().map(|d| (&d.keys, d.skipped)));
        std::hint::black_box(figures(&rows, keys.total(), &view, &answers));
        t.elapsed()
    };
    println!("\nKey design preview: {N} kept items, re-keyed and compared (best / median of 20)");
    for (name, d, all) in [
        ("an edit of one candidate", &one, false),
        ("all: current, 3 candidates, a GSI", &design, true),
    ] {
        let mut times: Vec<Duration> = (0..20).map(|_| run(d, all)).collect();
        times.sort();
        println!(
            "  {name:<36} {:>6.1} ms / {:>6.1} ms (+ the debounce)",
            times[0].as_secs_f64() * 1e3,
            times[10].as_secs_f64() * 1e3
        );
    }
}
