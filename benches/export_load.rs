//! Loading an S3 export folder: `shardlens analyze FOLDER` against `zcat` and DuckDB, in one run.
//!
//! Generates (once, under `CARGO_TARGET_TMPDIR`) a DynamoDB JSON export of 2,000,000 items in 8 gzip data files
//! with Zipf-distributed partition keys (~400 MB of JSON uncompressed), then times with
//! `/usr/bin/time -f "%e %M"` (wall seconds, peak RSS):
//!
//! - `shardlens analyze FOLDER --format json` (this build's binary),
//! - `zcat data/*.json.gz > /dev/null` (decompression alone, one core),
//! - DuckDB, when `python3 -c "import duckdb"` works:
//!   `SELECT Item.pk.S, count(*) FROM read_json('data/*.json.gz') GROUP BY 1`.
//!
//! Run: `cargo bench --no-default-features --bench export_load` (builds without the GUI in ~2 minutes).
//! Goals: wall ≤ 0.75 × zcat, ≥ 5 × faster than DuckDB, peak RSS ≤ 200 MB.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)] // a benchmark script

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

const ITEMS: u64 = 2_000_000;
const FILES: usize = 8;
const KEYS: usize = 200_000;
const ZIPF_S: f64 = 1.1;
const RUNS: usize = 3;

/// xorshift64*: fast, deterministic.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Writes the export; returns (items of the hottest key, distinct keys used).
fn generate(root: &Path) -> (u64, usize) {
    let data = root.join("data");
    std::fs::create_dir_all(&data).unwrap();
    // Zipf CDF over ranks 1..=KEYS.
    let mut cdf = Vec::with_capacity(KEYS);
    let mut acc = 0.0;
    for r in 1..=KEYS {
        acc += 1.0 / (r as f64).powf(ZIPF_S);
        cdf.push(acc);
    }
    let per_file = ITEMS / FILES as u64;
    let results: Vec<Vec<u64>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..FILES)
            .map(|f| {
                let (cdf, data) = (&cdf, &data);
                s.spawn(move || {
                    let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ (f as u64 + 1));
                    let mut counts = vec![0u64; KEYS];
                    let name = format!("{:08x}-{f:02}.json.gz", 0x5eed_u32 + f as u32);
                    let file = std::fs::File::create(data.join(&name)).unwrap();
                    let mut gz = flate2::write::GzEncoder::new(
                        std::io::BufWriter::with_capacity(1 << 20, file),
                        flate2::Compression::new(6),
                    );
                    let mut line = String::with_capacity(512);
                    for i in 0..per_file {
                        let u = rng.unit() * acc;
                        let rank = cdf.partition_point(|&c| c < u).min(KEYS - 1);
                        counts[rank] += 1;
                        line.clear();
                        use std::fmt::Write as _;
                        writeln!(
                            line,
                            "{{\"Item\":{{\"pk\":{{\"S\":\"user#{rank:06}\"}},\"sk\":{{\"S\":\"2024-05-{:02}T{:02}:{:02}:{:02}.{:03}Z#{i:07}\"}},\"status\":{{\"S\":\"{}\"}},\"amount\":{{\"N\":\"{}.{:02}\"}},\"tags\":{{\"SS\":[\"t{}\",\"t{}\"]}},\"payload\":{{\"S\":\"{:016x}{:016x}{:016x}{:016x}\"}}}}}}",
                            1 + rng.next() % 28,
                            rng.next() % 24,
                            rng.next() % 60,
                            rng.next() % 60,
                            rng.next() % 1000,
                            ["ACTIVE", "PENDING", "CLOSED"][(rng.next() % 3) as usize],
                            rng.next() % 10_000,
                            rng.next() % 100,
                            rng.next() % 50,
                            rng.next() % 50,
                            rng.next(),
                            rng.next(),
                            rng.next() & 0xffff_ffff,
                            rng.next() & 0xffff,
                        )
                        .unwrap();
                        gz.write_all(line.as_bytes()).unwrap();
                    }
                    gz.finish().unwrap().flush().unwrap();
                    counts
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    // Manifests (written in file order).
    let mut manifest = String::new();
    let mut names: Vec<_> = std::fs::read_dir(&data)
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    names.sort();
    for n in &names {
        manifest.push_str(&format!(
            "{{\"itemCount\":{per_file},\"md5Checksum\":\"-\",\"etag\":\"-\",\"dataFileS3Key\":\"AWSDynamoDB/bench/data/{}\"}}\n",
            n.to_string_lossy()
        ));
    }
    std::fs::write(root.join("manifest-files.json"), manifest).unwrap();
    std::fs::write(
        root.join("manifest-summary.json"),
        format!("{{\"itemCount\":{},\"outputFormat\":\"DYNAMODB_JSON\",\"exportType\":\"FULL_EXPORT\"}}", per_file * FILES as u64),
    )
    .unwrap();
    let mut total = vec![0u64; KEYS];
    for c in &results {
        for (t, x) in total.iter_mut().zip(c) {
            *t += x;
        }
    }
    let distinct = total.iter().filter(|&&c| c > 0).count();
    (total[0], distinct)
}

/// Runs `sh -c script` under `/usr/bin/time`; returns (wall seconds, peak RSS in MB), best wall of RUNS.
fn measure(script: &str) -> Option<(f64, f64)> {
    let mut best: Option<(f64, f64)> = None;
    for _ in 0..RUNS {
        let out = Command::new("/usr/bin/time")
            .args(["-f", "%e %M", "sh", "-c", script])
            .output()
            .ok()?;
        if !out.status.success() {
            eprintln!("failed: {script}\n{}", String::from_utf8_lossy(&out.stderr));
            return None;
        }
        let stderr = String::from_utf8_lossy(&out.stderr);
        let last = stderr.lines().last()?;
        let mut parts = last.split_whitespace();
        let wall: f64 = parts.next()?.parse().ok()?;
        let rss_kb: f64 = parts.next()?.parse().ok()?;
        let m = (wall, rss_kb / 1024.0);
        if best.is_none_or(|b| m.0 < b.0) {
            best = Some(m);
        }
    }
    best
}

fn main() {
    let root = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("export-bench");
    let marker = root.join(".complete");
    let (hot, distinct) = if marker.exists() {
        let text = std::fs::read_to_string(&marker).unwrap();
        let mut p = text.split_whitespace().map(|x| x.parse::<u64>().unwrap());
        (p.next().unwrap(), p.next().unwrap() as usize)
    } else {
        let _ = std::fs::remove_dir_all(&root);
        println!(
            "generating {ITEMS} items in {FILES} gzip files under {}",
            root.display()
        );
        let (hot, distinct) = generate(&root);
        std::fs::write(&marker, format!("{hot} {distinct}")).unwrap();
        (hot, distinct)
    };
    let data = root.join("data");
    let gz_bytes: u64 = std::fs::read_dir(&data)
        .unwrap()
        .flatten()
        .map(|e| e.metadata().unwrap().len())
        .sum();
    let json_bytes = Command::new("sh")
        .args(["-c", &format!("zcat {}/*.json.gz | wc -c", data.display())])
        .output()
        .ok()
        .and_then(|o| {
            String::from_utf8_lossy(&o.stdout)
                .trim()
                .parse::<u64>()
                .ok()
        })
        .unwrap_or(0);
    println!(
        "export: {ITEMS} items, {distinct} distinct keys, {FILES} files, {:.0} MB gzip, {:.0} MB JSON",
        gz_bytes as f64 / 1e6,
        json_bytes as f64 / 1e6
    );

    // Correctness first: the total and the hottest key must be exact.
    let bin = env!("CARGO_BIN_EXE_shardlens");
    let out = Command::new(bin)
        .args([
            "analyze",
            root.to_str().unwrap(),
            "--format",
            "json",
            "--top",
            "1",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["total"], ITEMS);
    assert_eq!(doc["distinct"], distinct);
    assert_eq!(doc["top_keys"][0]["key"], "user#000000");
    assert_eq!(doc["top_keys"][0]["count"], hot);
    println!(
        "shardlens result checked: total {ITEMS}, distinct {distinct}, hottest key {hot} items"
    );

    let shardlens = format!("{bin} analyze {} --format json > /dev/null", root.display());
    let zcat = format!("zcat {}/*.json.gz > /dev/null", data.display());
    let duck_ok = Command::new("python3")
        .args(["-c", "import duckdb"])
        .status()
        .is_ok_and(|s| s.success());
    let duck = format!(
        "python3 -c \"import duckdb; duckdb.sql(\\\"SELECT Item.pk.S, count(*) FROM read_json('{}/*.json.gz', format='newline_delimited') GROUP BY 1\\\").fetchall()\"",
        data.display()
    );
    println!("\nbest of {RUNS} runs, wall seconds and peak RSS (/usr/bin/time -f \"%e %M\"):");
    let s = measure(&shardlens);
    let z = measure(&zcat);
    let d = if duck_ok { measure(&duck) } else { None };
    let show = |name: &str, m: Option<(f64, f64)>| match m {
        Some((w, r)) => println!("  {name:<40} {w:>7.2} s  {r:>8.1} MB"),
        None => println!("  {name:<40} (not available)"),
    };
    show("shardlens analyze FOLDER --format json", s);
    show("zcat data/*.json.gz > /dev/null", z);
    show("duckdb read_json … GROUP BY pk", d);
    if let Some((sw, sr)) = s {
        println!();
        if let Some((zw, _)) = z {
            println!(
                "  shardlens / zcat wall:   {:.2}×  (goal ≤ 0.75×)  {}",
                sw / zw,
                if sw / zw <= 0.75 { "met" } else { "NOT met" }
            );
        }
        if let Some((dw, _)) = d {
            println!(
                "  duckdb / shardlens wall: {:.2}×  (goal ≥ 5×)     {}",
                dw / sw,
                if dw / sw >= 5.0 { "met" } else { "NOT met" }
            );
        }
        println!(
            "  shardlens peak RSS:      {sr:.1} MB (goal ≤ 200 MB) {}",
            if sr <= 200.0 { "met" } else { "NOT met" }
        );
        println!(
            "  throughput:              {:.0} MB/s of JSON, {:.2} M items/s",
            json_bytes as f64 / 1e6 / sw,
            ITEMS as f64 / 1e6 / sw
        );
    }
}
