//! Benchmarks that print figures, run by hand:
//!
//! ```sh
//! cargo build --release --no-default-features --features bench --bins
//! target/release/shardlens-bench            # or: shardlens-bench rebucket | analyze
//! ```
//!
//! 1. Re-bucketing 1,000,000 distinct keys after a change of bucket count or shard setting (target ≤ 20 ms).
//! 3. `simulate`: 24 hours of a table at 1 s steps over 1,000 partitions and 100,000 keys (target ≤ 1 s).
//! 4. `extract`: loading 2,000,000 export lines with and without extracting a design's attributes
//!    (`extract.rs`; target ≤ 1.5× the plain load).
//! 2. `shardlens analyze` on 10,000,000 lines with 1,000,000 distinct keys against `sort | uniq -c` on the same
//!    file in the same run (target ≥ 10× faster), with peak memory against the distinct keys' bytes
//!    (target ≤ 3× + 64 MB). Wall time and peak RSS come from GNU time (`/usr/bin/time`).
//! 5. `soak` and `watch`, only when named (`scripts/soak.sh`): a simulated day of a stream read by the watch's
//!    reader and feed, RSS each hour; the app's frames while it watches that stream (`soak.rs`).

// No unsafe code in shardlens: it lives in crates/ (see the root Cargo.toml's lints).
#![forbid(unsafe_code)]

use std::io::{BufWriter, Write as _};
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

mod extract;
mod soak;
#[path = "../tests/support/stream_sim.rs"]
mod stream_sim;

use shardlens::model::{KeySet, KeyType, Scope, ShardPlan, Strategy, ViewSettings, report};

const DISTINCT: usize = 1_000_000;
const LINES: usize = 10_000_000;

fn key(i: usize) -> String {
    format!(
        "USER#{:08x}-{i}",
        (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 32
    )
}

/// Zipf(s = 1) ranks over `DISTINCT` keys by inverse CDF on a fixed LCG: reproducible without a crate.
struct Zipf {
    cdf: Vec<f64>,
    state: u64,
}

impl Zipf {
    fn new(n: usize) -> Self {
        let mut cdf = Vec::with_capacity(n);
        let mut sum = 0.0;
        for r in 1..=n {
            sum += 1.0 / r as f64;
            cdf.push(sum);
        }
        for c in &mut cdf {
            *c /= sum;
        }
        Self { cdf, state: 42 }
    }
    fn next(&mut self) -> usize {
        self.state = self
            .state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let u = (self.state >> 11) as f64 / (1u64 << 53) as f64;
        self.cdf.partition_point(|&c| c < u).min(self.cdf.len() - 1)
    }
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn time<T>(runs: usize, mut f: impl FnMut() -> T) -> Duration {
    let mut samples = Vec::with_capacity(runs);
    for _ in 0..runs {
        let start = Instant::now();
        std::hint::black_box(f());
        samples.push(start.elapsed());
    }
    median(samples)
}

fn rebucketing() {
    let mut keys = KeySet::new(KeyType::S);
    let mut zipf = Zipf::new(DISTINCT);
    for i in 0..DISTINCT {
        keys.add(key(i).as_bytes(), 1);
    }
    for _ in 0..(LINES - DISTINCT) {
        keys.add(key(zipf.next()).as_bytes(), 1);
    }
    println!(
        "key set: {} distinct keys, {} writes, {:.1} MB of key bytes, {:.1} MB held",
        keys.len(),
        keys.total(),
        keys.key_bytes_total() as f64 / 1e6,
        keys.heap_bytes() as f64 / 1e6
    );
    let view = |buckets, shard: ShardPlan| ViewSettings {
        buckets,
        shard,
        top_n: 10,
        workload: None,
    };
    let hot = |shards, strategy| ShardPlan {
        shards,
        strategy,
        scope: Scope::default(),
        ..ShardPlan::default()
    };
    let cases: Vec<(&str, ViewSettings)> = vec![
        (
            "bucket count 8 → 16, no sharding",
            view(16, ShardPlan::none()),
        ),
        ("bucket count 64, no sharding", view(64, ShardPlan::none())),
        (
            "shard hot keys ×10 (random)",
            view(8, hot(10, Strategy::Random)),
        ),
        (
            "shard hot keys ×10 (calculated)",
            view(8, hot(10, Strategy::Calculated)),
        ),
        (
            "shard hot keys ×1% share ×200 (round-robin)",
            view(
                8,
                ShardPlan {
                    scope: Scope::Hot { threshold: 0.001 },
                    ..hot(200, Strategy::RoundRobin)
                },
            ),
        ),
        (
            "shard ALL keys ×10 (random)",
            view(
                8,
                ShardPlan {
                    scope: Scope::All,
                    ..hot(10, Strategy::Random)
                },
            ),
        ),
    ];
    println!("\nre-bucketing {DISTINCT} distinct keys (median of 7; target ≤ 20 ms):");
    for (name, v) in cases {
        let d = time(7, || report(&keys, &v));
        println!("  {name:<45} {:>8.1} ms", d.as_secs_f64() * 1e3);
    }
}

fn write_lines(path: &Path) -> std::io::Result<usize> {
    let mut out = BufWriter::with_capacity(1 << 20, std::fs::File::create(path)?);
    let mut zipf = Zipf::new(DISTINCT);
    let mut distinct_bytes = 0;
    // Every key once (so there are exactly DISTINCT), then Zipf draws.
    for i in 0..DISTINCT {
        let k = key(i);
        distinct_bytes += k.len();
        writeln!(out, "{k}")?;
    }
    for _ in 0..(LINES - DISTINCT) {
        writeln!(out, "{}", key(zipf.next()))?;
    }
    out.flush()?;
    Ok(distinct_bytes)
}

/// Runs `sh -c script` under GNU time; returns (wall seconds, peak RSS in MB).
fn timed(script: &str) -> Option<(f64, f64)> {
    let out = Command::new("/usr/bin/time")
        .args(["-f", "TIME %e %M", "sh", "-c", script])
        .output()
        .ok()?;
    if !out.status.success() {
        eprintln!("failed: {script}\n{}", String::from_utf8_lossy(&out.stderr));
        return None;
    }
    let err = String::from_utf8_lossy(&out.stderr);
    let line = err.lines().rev().find(|l| l.starts_with("TIME "))?;
    let mut parts = line.split_whitespace().skip(1);
    let secs: f64 = parts.next()?.parse().ok()?;
    let kb: f64 = parts.next()?.parse().ok()?;
    Some((secs, kb / 1024.0))
}

fn analyze_vs_sort() -> std::io::Result<()> {
    let exe = std::env::current_exe()?;
    let dir = exe
        .parent()
        .map_or_else(std::env::temp_dir, Path::to_path_buf);
    let file = dir.join("bench-10m-lines.txt");
    let start = Instant::now();
    let distinct_bytes = write_lines(&file)?;
    let size = std::fs::metadata(&file)?.len();
    println!(
        "\n{LINES} lines ({:.0} MB, {DISTINCT} distinct keys, {:.1} MB of distinct key bytes) written in {:.1} s",
        size as f64 / 1e6,
        distinct_bytes as f64 / 1e6,
        start.elapsed().as_secs_f64()
    );
    let bin = dir.join("shardlens");
    let bin = bin.display();
    let f = file.display();
    // Warm the page cache so both read from memory.
    let _ = timed(&format!("cat {f} > /dev/null"));
    let ours = timed(&format!("{bin} analyze {f} --format json > /dev/null"));
    let sort_c = timed(&format!("LC_ALL=C sort {f} | uniq -c > /dev/null"));
    let sort_locale = timed(&format!("sort {f} | uniq -c > /dev/null"));
    if let Some((secs, mb)) = ours {
        let limit = 3.0 * distinct_bytes as f64 / 1e6 / 1.048_576 + 64.0;
        println!(
            "  shardlens analyze             {secs:>6.2} s   peak {mb:>6.1} MB (target ≤ {limit:.0} MB)"
        );
        for (name, peer) in [
            ("LC_ALL=C sort | uniq -c", sort_c),
            ("sort | uniq -c (C.UTF-8)", sort_locale),
        ] {
            if let Some((p, pmb)) = peer {
                println!(
                    "  {name:<29} {p:>6.2} s   peak {pmb:>6.1} MB   → shardlens is {:.1}× faster",
                    p / secs.max(0.001)
                );
            }
        }
    }
    let _ = std::fs::remove_file(&file);
    Ok(())
}

/// The process's peak resident memory (Linux `VmHWM`), in MB; 0 where it cannot be read.
fn peak_rss_mb() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        })
        .map_or(0.0, |kb| kb / 1024.0)
}

/// Frame times of the real app on a bare `egui::Context` (no GPU): layout plus tessellation per frame.
#[cfg(feature = "gui")]
fn frames() {
    use shardlens::app::{App, Command};
    use shardlens::model::decision::Action;
    // `SHARDLENS_FRAMES_DISTINCT=10000000` measures the app with 10,000,000 distinct keys (issue 15).
    let env = |name: &str, default: usize| {
        std::env::var(name)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let frame_distinct = env("SHARDLENS_FRAMES_DISTINCT", 100_000).max(1);
    let frame_writes = env("SHARDLENS_FRAMES_WRITES", 1_000_000).max(frame_distinct);
    let ctx = egui::Context::default();
    let mut keys = KeySet::new(KeyType::S);
    let mut zipf = Zipf::new(frame_distinct);
    for i in 0..frame_distinct {
        keys.add(key(i).as_bytes(), 1);
    }
    for _ in 0..(frame_writes - frame_distinct) {
        keys.add(key(zipf.next()).as_bytes(), 1);
    }
    let mut app = App::with_settings(ctx.clone(), None);
    app.set_key_set(keys, shardlens::source::Source::Paste);
    let input = || egui::RawInput {
        screen_rect: Some(egui::Rect::from_min_size(
            egui::Pos2::ZERO,
            egui::vec2(1280.0, 800.0),
        )),
        ..Default::default()
    };
    let mut frame = |app: &mut App| {
        let start = Instant::now();
        let out = ctx.run_ui(input(), |ui| {
            app.tick(ui.ctx());
            app.draw(ui);
        });
        let mut out = out;
        let _ = ctx.tessellate(std::mem::take(&mut out.shapes), out.pixels_per_point);
        // No GPU to upload the font atlas to: the texture changes are dropped on purpose.
        out.textures_delta.clear();
        start.elapsed()
    };
    let settle = |app: &mut App, frame: &mut dyn FnMut(&mut App) -> Duration| {
        let start = Instant::now();
        let mut frames = 0;
        loop {
            frame(app);
            frames += 1;
            if !app.busy() || start.elapsed() > Duration::from_secs(30) {
                return (start.elapsed(), frames);
            }
            std::thread::sleep(Duration::from_millis(1));
        }
    };
    let (first, _) = settle(&mut app, &mut frame);
    let mut samples: Vec<Duration> = (0..400).map(|_| frame(&mut app)).collect();
    samples.sort();
    let pct = |p: f64| samples[((samples.len() - 1) as f64 * p) as usize].as_secs_f64() * 1e3;
    println!(
        "\nframes with {frame_writes} keys ({frame_distinct} distinct) held as data, 1280×800, 400 frames:"
    );
    println!(
        "  first report ready after {:.0} ms; peak RSS {:.0} MB",
        first.as_secs_f64() * 1e3,
        peak_rss_mb()
    );
    println!(
        "  frame time p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms (target p99 ≤ 8 ms)",
        pct(0.5),
        pct(0.99),
        pct(1.0)
    );
    app.apply(Command::Apply(Action::ShardHotKeys));
    let (latency, n) = settle(&mut app, &mut frame);
    println!(
        "  shard toggle reflected on screen after {:.1} ms ({n} frames; target ≤ 100 ms)",
        latency.as_secs_f64() * 1e3
    );
    timeline_frames(&mut app, &mut frame);
}

/// The Timeline playing the simulation benchmark's 24 h result (1,000 partitions) at 600×.
#[cfg(feature = "gui")]
fn timeline_frames(
    app: &mut shardlens::app::App,
    frame: &mut dyn FnMut(&mut shardlens::app::App) -> Duration,
) {
    let scenario = shardlens::model::sim_file::Scenario {
        name: "24 h, 1,000 partitions".to_owned(),
        description: String::new(),
        setup: day_setup(),
        keys: Vec::new(),
    };
    let started = Instant::now();
    app.start_scenario(scenario, String::new());
    let mut first_column = None;
    while app.simulation().is_some_and(|s| s.diagnosis.is_none())
        && started.elapsed() < Duration::from_secs(120)
    {
        frame(app);
        if first_column.is_none()
            && app
                .simulation()
                .is_some_and(|s| !s.timeline.columns.is_empty())
        {
            first_column = Some(started.elapsed());
        }
    }
    let done = started.elapsed();
    if let Some(sim) = app.simulation_mut() {
        use shardlens::app::timeline::TimelineCommand;
        sim.apply(TimelineCommand::Speed(600.0));
        sim.apply(TimelineCommand::TogglePlay);
    }
    let mut samples: Vec<Duration> = (0..400).map(|_| frame(app)).collect();
    samples.sort();
    let pct = |p: f64| samples[((samples.len() - 1) as f64 * p) as usize].as_secs_f64() * 1e3;
    let columns = app.simulation().map_or(0, |s| s.timeline.columns.len());
    println!(
        "\nTimeline playing 24 h at 1 s over 1,000 partitions ({columns} columns), 1280×800, 400 frames at 600×:"
    );
    println!(
        "  first columns on screen after {:.0} ms; whole run in {:.2} s (frames drawn meanwhile)",
        first_column.unwrap_or(done).as_secs_f64() * 1e3,
        done.as_secs_f64()
    );
    println!(
        "  frame time p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms (target p99 ≤ 8 ms)",
        pct(0.5),
        pct(0.99),
        pct(1.0)
    );
}

/// The simulation benchmark's table: 24 h at 1 s over 1,000 partitions, 100,000 keys and one hot key.
fn day_setup() -> shardlens::model::simulate::Setup {
    use shardlens::model::simulate::{
        Billing, Keys, Params, Schedule, Setup, SortKey, Stream, Table,
    };
    Setup {
        table: Table {
            billing: Billing::OnDemand {
                previous_peak: [250_000.0, 500_000.0],
                quota: [1e7, 1e7],
                max: [0.0, 0.0],
            },
            partitions: Some(1_000),
            ..Table::default()
        },
        traffic: vec![
            Stream {
                keys: Keys::Uniform(100_000),
                writes_per_sec: Schedule(vec![
                    (0, 300_000.0),
                    (6 * 3_600, 600_000.0),
                    (18 * 3_600, 200_000.0),
                ]),
                reads_per_sec: Schedule::constant(500_000.0),
                ..Stream::default()
            },
            Stream {
                keys: Keys::One("ARENA#7f3a".into()),
                writes_per_sec: Schedule::constant(4_000.0),
                sort_key: SortKey::Random,
                ..Stream::default()
            },
        ],
        duration: 86_400,
        step: 1,
        start: 1_782_172_800,
        seed: 1,
        params: Params::default(),
        trace: None,
    }
}

/// The near-limit day (issue 26): a provisioned table of 1,000 partitions following a day's schedule
/// (200,000 → 900,000 → 300,000 writes/s over 100,000 keys), so that most partitions run near their limit for
/// hours, throttle, draw on their banks and split (874 splits): most seconds are computed afresh.
fn busy_setup() -> shardlens::model::simulate::Setup {
    use shardlens::model::simulate::{Billing, Keys, Schedule, Setup, Stream, Table};
    Setup {
        table: Table {
            billing: Billing::Provisioned {
                units: [1_000.0, 1_000_000.0],
            },
            partitions: Some(1_000),
            ..Table::default()
        },
        traffic: vec![Stream {
            keys: Keys::Uniform(100_000),
            writes_per_sec: Schedule(vec![
                (0, 200_000.0),
                (6 * 3_600, 900_000.0),
                (12 * 3_600, 300_000.0),
            ]),
            item_size: 1024,
            ..Stream::default()
        }],
        ..day_setup()
    }
}

/// A trace replay at scale (issue 23): 10,000,000 writes over 24 hours and 1,000,000 keys (a Zipf-like
/// spread: key `i` drawn with weight 1/(i+1)^0.8, in no time order, as an export's files are), built into a
/// trace and replayed on an on-demand table. Run it alone: the peak RSS is the process's.
fn trace_replay() {
    use shardlens::model::simulate::{Table, run};
    use shardlens::model::trace::{Dim, TraceBuilder, replay_setup};
    const WRITES: u64 = 10_000_000;
    const KEYS: u64 = 1_000_000;
    println!("trace replay: {WRITES} writes over 24 h and {KEYS} keys, on-demand:");
    // Inverse-CDF sampling of a power law over the keys (deterministic, no allocation per write).
    let exponent = 0.8_f64;
    let total = |n: f64| (n.powf(1.0 - exponent) - 1.0) / (1.0 - exponent);
    let all = total(KEYS as f64 + 1.0);
    let mut x = 0x9E37_79B9_7F4A_7C15_u64;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    // The records are made a million at a time, outside the timing: only adding them and building count.
    const CHUNK: u64 = 1_000_000;
    let t0 = 1_782_172_800_i64 * 1_000_000;
    let mut built = Duration::ZERO;
    let mut b = TraceBuilder::new();
    let (mut text, mut records) = (String::new(), Vec::with_capacity(CHUNK as usize));
    for _ in 0..WRITES / CHUNK {
        text.clear();
        records.clear();
        for _ in 0..CHUNK {
            let u = (next() >> 11) as f64 / (1u64 << 53) as f64;
            let i = ((u * all * (1.0 - exponent) + 1.0).powf(1.0 / (1.0 - exponent)) - 1.0) as u64;
            let micros = t0 + (next() % 86_400_000_000) as i64;
            let start = text.len();
            use std::fmt::Write as _;
            let _ = write!(text, "user#{}", i.min(KEYS - 1));
            records.push((micros, start, text.len()));
        }
        let started = Instant::now();
        for &(micros, start, end) in &records {
            if let Err(e) = b.add(micros, &text.as_bytes()[start..end], None, Dim::Write, 1.0) {
                eprintln!("  trace: {e}");
                return;
            }
        }
        built += started.elapsed();
    }
    let started = Instant::now();
    let trace = match b.build() {
        Ok(t) => t,
        Err(e) => {
            eprintln!("  trace: {e}");
            return;
        }
    };
    let built = built + started.elapsed();
    let keys = trace.keys.len();
    let setup = replay_setup(trace, Table::default());
    let started = Instant::now();
    let out = run(&setup);
    let replayed = started.elapsed();
    println!(
        "  built in {:.2} s ({keys} keys), replayed in {:.2} s (target ≤ 10 s); peak RSS {:.0} MB (target ≤ 500 \
         MB); {} partitions at the end, {:.0} units throttled",
        built.as_secs_f64(),
        replayed.as_secs_f64(),
        peak_rss_mb(),
        out.final_partitions.len(),
        out.series.write_throttled_units.iter().sum::<f64>()
    );
}

/// The time simulation, steady and near the limit: 24 hours at 1 s over 1,000 partitions and 100,000 keys
/// (target ≤ 1 s, release).
fn simulation() {
    println!(
        "simulate 24 h at 1 s steps, 1,000 partitions, 100,000 keys (+ one hot key), on-demand, steady:"
    );
    simulate_one(&day_setup());
    println!(
        "simulate 24 h at 1 s steps, 1,000 partitions, 100,000 keys, provisioned, near the limit (200,000 → \
         900,000 → 300,000 writes/s):"
    );
    simulate_one(&busy_setup());
}

fn simulate_one(setup: &shardlens::model::simulate::Setup) {
    use shardlens::model::simulate::{run, run_streaming};
    let mut times = Vec::new();
    let mut last = None;
    for _ in 0..3 {
        let started = Instant::now();
        last = Some(run(setup));
        times.push(started.elapsed());
    }
    times.sort();
    let out = last.unwrap_or_default();
    println!(
        "  run: best of 3: {:.2} s (median {:.2} s; target ≤ 1 s); {} events, {} partitions at the end",
        times[0].as_secs_f64(),
        times[1].as_secs_f64(),
        out.events.len(),
        out.final_partitions.len()
    );
    // The same run recorded as a timeline and streamed in chunks (what the app's Timeline view receives).
    let mut times = Vec::new();
    let mut first = Duration::ZERO;
    let mut chunks = 0usize;
    let mut columns = 0usize;
    let mut layouts = 0usize;
    for _ in 0..3 {
        let started = Instant::now();
        let mut seen = 0usize;
        let mut first_at = None;
        let done = run_streaming(setup, &mut |_chunk| {
            seen += 1;
            first_at.get_or_insert_with(|| started.elapsed());
            true
        });
        times.push(started.elapsed());
        first = first_at.unwrap_or_default();
        chunks = seen;
        if let Some((_, timeline)) = done {
            columns = timeline.columns.len();
            layouts = timeline.layouts.len();
        }
    }
    times.sort();
    println!(
        "  run_streaming: best of 3: {:.2} s (median {:.2} s); {chunks} chunks, the first after {:.3} s; {columns} \
         columns of {} s, {layouts} layouts",
        times[0].as_secs_f64(),
        times[1].as_secs_f64(),
        first.as_secs_f64(),
        shardlens::model::simulate::column_seconds(setup.duration, setup.step)
    );
}

fn main() -> std::process::ExitCode {
    // A filter word picks one part.
    let filter: Option<String> = std::env::args().skip(1).find(|a| !a.starts_with("--"));
    let want = |name: &str| filter.as_deref().is_none_or(|f| name.contains(f));
    // The soak and the frames of a watch take minutes: only when named.
    let named = |name: &str| filter.as_deref() == Some(name);
    if named("soak") && !soak::soak() {
        return std::process::ExitCode::FAILURE;
    }
    #[cfg(feature = "gui")]
    if named("watch") {
        soak::watch_frames();
    }
    if want("rebucket") {
        rebucketing();
    }
    #[cfg(feature = "gui")]
    if want("frames") {
        frames();
    }
    if want("simulate") {
        simulation();
    }
    if want("trace") {
        trace_replay();
    }
    if want("extract")
        && let Err(e) = extract::extract()
    {
        eprintln!("extract benchmark failed: {e}");
    }
    if want("preview") {
        extract::preview();
    }
    if want("analyze")
        && let Err(e) = analyze_vs_sort()
    {
        eprintln!("analyze benchmark failed: {e}");
    }
    std::process::ExitCode::SUCCESS
}
