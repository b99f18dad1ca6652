//! The long soak of a watch (issue 61; `scripts/soak.sh`): the stream reader over the simulated DynamoDB
//! Streams service of `tests/support/stream_sim.rs` (on tokio's paused clock, so a day passes in a minute or
//! so), every record checked and read into the watch's feed, with RSS each simulated hour; and the app's frames
//! while its watch reads the same simulated stream (`watch`), through the app's own watch path
//! (`App::start_watch_reading`: the watch's threads, its snapshots, the keys replaced, the Timeline's replays).

#[cfg(feature = "gui")]
use std::time::{Duration, Instant};

use crate::stream_sim::{self, Script};

fn env(name: &str, default: f64) -> f64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The script: `SHARDLENS_SOAK_RATE` records a second (default 40) over `SHARDLENS_SOAK_KEYS` keys (default
/// 1,000,000), a day of history and `SHARDLENS_SOAK_HOURS` watched (default 24).
fn script() -> Script {
    Script {
        hours: env("SHARDLENS_SOAK_HOURS", 24.0) as u64,
        ..Script::day(
            env("SHARDLENS_SOAK_RATE", 40.0),
            env("SHARDLENS_SOAK_KEYS", 1_000_000.0) as u64,
        )
    }
}

/// The stream reader and the watch's feed over a simulated day: figures each simulated hour, then whether
/// every record was read once and the counts are the script's.
pub fn soak() -> bool {
    let script = script();
    println!(
        "soak: {} h of history, {} h watched at {} records/s over {} keys, {}–{} shards, the reader's defaults",
        script.history_hours,
        script.hours,
        script.rate,
        script.keys,
        script.shards,
        script.max_shards
    );
    println!("  hour   records read   distinct keys   RSS MB   wall s   trace built in");
    let soaked = stream_sim::soak(script, &mut |h| {
        println!(
            "  {:>4}   {:>12}   {:>13}   {:>6.0}   {:>6.1}   {:>8.0} ms",
            h.hour,
            h.records,
            h.distinct_keys,
            h.rss_mb,
            h.wall.as_secs_f64(),
            h.trace_build.as_secs_f64() * 1e3
        );
    });
    let soaked = match soaked {
        Ok(s) => s,
        Err(e) => {
            eprintln!("soak failed: {e}");
            return false;
        }
    };
    let (read, check, sim) = (&soaked.read, &soaked.check, &soaked.sim);
    let counts = sim.counts();
    let (written, unread, per_key) = sim.expected();
    let keys = soaked.feed.keys();
    let keys_match = keys.is_some_and(|k| same_counts(k, &per_key));
    let ok = read.status == shardlens::source::dynamo::StreamStatus::Closed
        && check.clean()
        && counts.violations.is_empty()
        && check.delivered == written - unread
        && soaked.feed.records() == written - unread
        && keys_match;
    println!(
        "  {}: {} simulated hours ({} of history) in {:.1} s wall; {}",
        read.status.describe(),
        sim.script.history_hours + sim.script.hours,
        sim.script.history_hours,
        soaked.wall.as_secs_f64(),
        read.progress.summary()
    );
    println!(
        "  written {written}, read {} ({} distinct keys), trimmed before they could be read {unread}; \
         duplicates {}, lost {}, out of order {}; per-key counts {}",
        check.delivered,
        keys.map_or(0, shardlens::model::KeySet::len),
        check.duplicates,
        check.lost,
        check.out_of_order,
        if keys_match { "match" } else { "DIFFER" }
    );
    println!(
        "  service: {} GetRecords, {} iterators, {} DescribeStream; expired {} by age, {} scripted; {} \
         throttled; {} trimmed; peak RSS {:.0} MB",
        counts.calls,
        counts.iterators,
        counts.describes,
        counts.expired_by_age,
        counts.expired_scripted,
        counts.throttled,
        counts.trimmed,
        peak_rss_mb()
    );
    for said in check.said.iter().chain(&counts.violations) {
        println!("  ! {said}");
    }
    println!("  {}", if ok { "PASS" } else { "FAIL" });
    ok
}

/// Whether the key set counted each key's writes as the script wrote them.
fn same_counts(keys: &shardlens::model::KeySet, per_key: &[u32]) -> bool {
    let written: u64 = per_key.iter().map(|&n| u64::from(n)).sum();
    let distinct = per_key.iter().filter(|&&n| n > 0).count();
    keys.total() == written
        && keys.len() == distinct
        && per_key
            .iter()
            .enumerate()
            .filter(|(_, n)| **n > 0)
            .all(|(k, &n)| {
                keys.find(stream_sim::key_name(k as u64).as_bytes())
                    .is_some_and(|i| keys.count(i) == u64::from(n))
            })
}

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

/// The app's frames while its watch reads the simulated stream (no history: every key arrives while
/// watched), then 400 frames of what it read.
#[cfg(feature = "gui")]
pub fn watch_frames() {
    use shardlens::app::App;

    let script = Script {
        history_hours: 0,
        ..script()
    };
    let what = format!(
        "{} h watched at {} records/s over {} keys",
        script.hours, script.rate, script.keys
    );
    let ctx = egui::Context::default();
    let mut app = App::with_settings(ctx.clone(), None);
    watch_simulated(&mut app, script);
    let frame = |app: &mut App| draw_frame(&ctx, app);
    let started = Instant::now();
    let mut during = Vec::new();
    // The frames that took a snapshot (the keys replaced), and the others.
    let (mut at_snapshot, mut between) = (Vec::new(), Vec::new());
    let mut shown = Vec::new();
    let mut last_keys = 0;
    let mut last_set = 0usize;
    while app.watching() && started.elapsed() < Duration::from_secs(600) {
        let took = frame(&mut app);
        during.push(took);
        let set = app.key_set().map_or(0, |k| std::ptr::from_ref(k) as usize);
        if set == last_set {
            between.push(took);
        } else {
            at_snapshot.push(took);
            last_set = set;
        }
        let keys = app.key_set().map_or(0, shardlens::model::KeySet::len);
        if keys != last_keys {
            shown.push((started.elapsed(), keys));
            last_keys = keys;
        }
        // About 60 frames a second at most, as a window would draw them.
        std::thread::sleep(Duration::from_millis(16));
    }
    let watched = started.elapsed();
    let _ = (0..50).map(|_| frame(&mut app)).count();
    let after: Vec<Duration> = (0..400).map(|_| frame(&mut app)).collect();
    let (d50, d99, dmax) = percentiles(&during);
    let (s50, _, smax) = percentiles(&at_snapshot);
    let (b50, b99, bmax) = percentiles(&between);
    let (a50, a99, amax) = percentiles(&after);
    println!("\nframes while the app watches a simulated stream ({what}), 1280×800:");
    println!(
        "  the watch ran {:.1} s wall, {} snapshots shown; keys shown at the end: {}; {}",
        watched.as_secs_f64(),
        shown.len(),
        last_keys,
        app.watch_progress().map_or_else(
            String::new,
            shardlens::source::dynamo::StreamProgress::summary
        )
    );
    println!(
        "  {} frames while watching: p50 {d50:.2} ms, p99 {d99:.2} ms, max {dmax:.2} ms (target p99 ≤ 8 ms)",
        during.len(),
    );
    println!(
        "  of which {} took a snapshot (the keys replaced): p50 {s50:.2} ms, max {smax:.2} ms; the other {}: \
         p50 {b50:.2} ms, p99 {b99:.2} ms, max {bmax:.2} ms",
        at_snapshot.len(),
        between.len(),
    );
    println!(
        "  400 frames after, {} keys held: p50 {a50:.2} ms, p99 {a99:.2} ms, max {amax:.2} ms; peak RSS {:.0} MB",
        app.key_set().map_or(0, shardlens::model::KeySet::len),
        peak_rss_mb()
    );
}

/// One frame of the app at 1280×800 on a bare context (no GPU): layout and tessellation; its time.
#[cfg(feature = "gui")]
fn draw_frame(ctx: &egui::Context, app: &mut shardlens::app::App) -> Duration {
    let input = egui::RawInput {
        screen_rect: Some(egui::Rect::from_min_size(
            egui::Pos2::ZERO,
            egui::vec2(1280.0, 800.0),
        )),
        ..Default::default()
    };
    let start = Instant::now();
    let mut out = ctx.run_ui(input, |ui| {
        app.tick(ui.ctx());
        app.draw(ui);
    });
    let _ = ctx.tessellate(std::mem::take(&mut out.shapes), out.pixels_per_point);
    // No GPU to upload the font atlas to: the texture changes are dropped on purpose.
    out.textures_delta.clear();
    start.elapsed()
}

/// Starts the app's watch of the simulated stream, read on a paused runtime of its own.
#[cfg(feature = "gui")]
fn watch_simulated(app: &mut shardlens::app::App, script: Script) {
    use crate::stream_sim::Sim;
    use shardlens::source::dynamo::{DynamoError, StreamStart, run_stream};
    use std::sync::Arc;
    let opts = stream_sim::options(&script);
    app.start_watch_reading(
        stream_sim::table(),
        StreamStart::TrimHorizon,
        move |cancel, on_event| {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_time()
                .start_paused(true)
                .build()
                .map_err(|e| DynamoError::Config(e.to_string().into()))?;
            Ok(rt.block_on(async {
                let sim = Arc::new(Sim::new(script));
                run_stream(sim, &opts, cancel, on_event).await
            }))
        },
    );
}

/// p50, p99 and max of `v` in ms.
#[cfg(feature = "gui")]
fn percentiles(v: &[Duration]) -> (f64, f64, f64) {
    let mut v = v.to_vec();
    v.sort();
    let at = |p: f64| {
        v.get(((v.len().max(1) - 1) as f64 * p) as usize)
            .map_or(0.0, |d| d.as_secs_f64() * 1e3)
    };
    (at(0.5), at(0.99), at(1.0))
}
