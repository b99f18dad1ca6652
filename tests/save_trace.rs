//! `shardlens stream --save-trace` loses nothing (issue 61): the real binary reads a moto table's stream while
//! writes flow, and is killed (SIGKILL) at 20 seeded random points; each time the file reads back with
//! `simulate --trace` to its last whole record, every record the process said it had read is in it, and the
//! trailing bytes of an unfinished record are said. Ctrl+C saves every record read, whole. A full disk (a
//! 64 KB tmpfs, and `/dev/full`) ends the watch with an error naming the file, and the file reads back.
//! `tests/moto.sh` installs moto; the seed is printed (`SHARDLENS_SAVE_SEED` repeats a run).
#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers: a failed step fails the test

#[path = "support/cbor_shim.rs"]
mod cbor_shim;
#[path = "support/moto.rs"]
mod moto;
#[path = "support/cli.rs"]
mod support;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;

use moto::Moto;
use support::{bin, temp_dir};

/// Items written before a watch starts (read from the trim horizon): about 500 bytes a record saved, so the
/// history alone is three times the 64 KB disk.
const HISTORY: u32 = 400;

/// A table `name` with a stream of new and old images, and `HISTORY` items in it.
fn table_with_history(moto: &Moto, name: &str) {
    moto.boto(&format!(
        "ddb.create_table(TableName='{name}', BillingMode='PAY_PER_REQUEST',
    StreamSpecification={{'StreamEnabled': True, 'StreamViewType': 'NEW_AND_OLD_IMAGES'}},
    KeySchema=[{{'AttributeName': 'pk', 'KeyType': 'HASH'}}, {{'AttributeName': 'sk', 'KeyType': 'RANGE'}}],
    AttributeDefinitions=[{{'AttributeName': 'pk', 'AttributeType': 'S'}}, {{'AttributeName': 'sk', 'AttributeType': 'N'}}])
for start in range(0, {HISTORY}, 25):
    ddb.batch_write_item(RequestItems={{'{name}': [
        {{'PutRequest': {{'Item': {{'pk': {{'S': 'K#%d' % (i % 40)}}, 'sk': {{'N': str(i)}}, 'v': {{'S': 'x' * 100}}}}}}}}
        for i in range(start, min(start + 25, {HISTORY}))]}})"
    ));
}

/// Writes flowing into `name` until dropped: a boto3 loop of small batches (about 50 writes a second).
struct Writer(Child);

impl Writer {
    fn start(moto: &Moto, name: &str) -> Self {
        let python =
            std::env::var("SHARDLENS_MOTO_PYTHON").unwrap_or_else(|_| "python3".to_owned());
        let script = format!(
            "import boto3, time
ddb = boto3.client('dynamodb', endpoint_url='{}', region_name='us-east-1', aws_access_key_id='testing',
    aws_secret_access_key='testing')
i = 1000000
while True:
    ddb.batch_write_item(RequestItems={{'{name}': [
        {{'PutRequest': {{'Item': {{'pk': {{'S': 'FLOW#%d' % (j % 7)}}, 'sk': {{'N': str(j)}}, 'v': {{'S': 'y' * 100}}}}}}}}
        for j in range(i, i + 5)]}})
    i += 5
    time.sleep(0.1)",
            moto.endpoint()
        );
        let child = Command::new(python)
            .arg("-c")
            .arg(script)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        Self(child)
    }
}

impl Drop for Writer {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn stream_args(moto: &Moto, table: &str, saved: &Path, more: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = [
        "stream",
        "--table",
        table,
        "--from",
        "trim-horizon",
        "--max-rps",
        "100",
        "--format",
        "json",
        "--endpoint-url",
        &moto.endpoint(),
        "--region",
        "us-east-1",
        "--timeout",
        "10",
        "--save-trace",
    ]
    .map(str::to_owned)
    .to_vec();
    args.push(saved.display().to_string());
    args.extend(more.iter().map(|s| (*s).to_owned()));
    args
}

/// The binary under test; `SHARDLENS_TEST_BIN` names a copy of it (a target folder shared by several
/// worktrees may have its `debug/shardlens` rebuilt by another while these tests run).
fn shardlens(args: &[String]) -> Command {
    let mut cmd = match std::env::var_os("SHARDLENS_TEST_BIN") {
        Some(path) => Command::new(path),
        None => bin(),
    };
    moto::hermetic(cmd.args(args));
    cmd
}

/// A child's standard error, collected line by line on a thread.
fn collect_stderr(child: &mut Child) -> Arc<Mutex<Vec<String>>> {
    let lines = Arc::new(Mutex::new(Vec::new()));
    let err = child.stderr.take().unwrap();
    let into = Arc::clone(&lines);
    std::thread::spawn(move || {
        for line in BufReader::new(err).lines().map_while(Result::ok) {
            into.lock().unwrap().push(line);
        }
    });
    lines
}

/// The records a watch's progress lines last said it had read ("shardlens: 1,200 records · …").
fn said_records(lines: &[String]) -> u64 {
    lines
        .iter()
        .filter_map(|l| {
            let n = l.strip_prefix("shardlens: ")?.split(" record").next()?;
            n.replace(',', "").parse::<u64>().ok()
        })
        .max()
        .unwrap_or(0)
}

/// A saved file as bytes: its size, its whole records (each checked to be one Streams record; the last one
/// may lack its newline) and its trailing bytes (an unfinished last line).
fn whole_lines(path: &Path) -> (u64, u64, u64) {
    let bytes = std::fs::read(path).unwrap_or_default();
    let mut whole = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    if serde_json::from_slice::<Value>(&bytes[whole..]).is_ok() {
        whole = bytes.len();
    }
    let mut n = 0;
    for line in bytes[..whole]
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
    {
        let record: Value = serde_json::from_slice(line)
            .unwrap_or_else(|e| panic!("{}: a whole line is not a record: {e}", path.display()));
        assert!(record["dynamodb"]["Keys"].is_object(), "{record}");
        n += 1;
    }
    (bytes.len() as u64, n, (bytes.len() - whole) as u64)
}

/// `simulate --trace FILE --format json`.
fn replay(path: &Path) -> Output {
    shardlens(&[
        "simulate".to_owned(),
        "--trace".to_owned(),
        path.display().to_string(),
        "--format".to_owned(),
        "json".to_owned(),
    ])
    .output()
    .unwrap()
}

/// Checks that `path` reads back with `simulate --trace`: every whole line a record, the trailing bytes said.
/// Returns the records read back.
fn reads_back(path: &Path) -> u64 {
    let (_, lines, trailing) = whole_lines(path);
    let out = replay(path);
    let stderr = String::from_utf8_lossy(&out.stderr);
    if lines == 0 {
        assert!(!out.status.success(), "nothing whole to replay: {stderr}");
        if trailing > 0 {
            assert!(
                stderr.contains(&format!("holds no whole record: its {trailing} bytes")),
                "{stderr}"
            );
        }
        return 0;
    }
    assert!(out.status.success(), "{}: {stderr}", path.display());
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let source = &doc["source"][0];
    assert_eq!(source["records"], lines, "{source}");
    assert_eq!(source["ignored_trailing_bytes"], trailing, "{source}");
    // As the product says a count: "1 trailing byte", "37 trailing bytes", "1,234 trailing bytes".
    let digits = trailing.to_string();
    let grouped: String = digits
        .chars()
        .enumerate()
        .flat_map(|(i, c)| {
            let sep = i > 0 && (digits.len() - i).is_multiple_of(3);
            sep.then_some(',').into_iter().chain([c])
        })
        .collect();
    let bytes = if trailing == 1 { "byte" } else { "bytes" };
    let note =
        format!("ignored {grouped} trailing {bytes} (an unfinished last record: the save was cut)");
    assert_eq!(stderr.contains(&note), trailing > 0, "{stderr}");
    lines
}

/// A small seeded generator (splitmix64): the kill points.
struct Seeded(u64);

impl Seeded {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        (z ^ (z >> 31)) % n
    }
}

/// One kill: what the file held and what was read back, and the same for a copy cut at a byte.
struct KillRow {
    run: usize,
    after: Duration,
    bytes: u64,
    whole: u64,
    said: u64,
    read: u64,
    trailing: u64,
    cut_at: u64,
    cut_read: u64,
    cut_trailing: u64,
}

/// Starts a watch that saves, kills it (SIGKILL) `after` its first page reached the file, and checks that the
/// file reads back; then cuts a copy at byte `cut` (modulo its size) and checks that it reads back too.
fn kill_once(moto: &Moto, dir: &Path, run: usize, (after, cut): (Duration, u64)) -> KillRow {
    let saved = dir.join(format!("kill-{run:02}.jsonl"));
    let mut child = shardlens(&stream_args(moto, "flow", &saved, &[]))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let lines = collect_stderr(&mut child);
    let deadline = Instant::now() + Duration::from_secs(30);
    while std::fs::metadata(&saved).map_or(0, |m| m.len()) == 0 {
        assert!(Instant::now() < deadline, "{:#?}", lines.lock().unwrap());
        std::thread::sleep(Duration::from_millis(5));
    }
    std::thread::sleep(after);
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    // The stderr thread ends with the pipe; what it has is what the process said.
    std::thread::sleep(Duration::from_millis(20));
    let said = said_records(&lines.lock().unwrap());
    let (bytes, whole, trailing) = whole_lines(&saved);
    let read = reads_back(&saved);
    assert_eq!(read, whole);
    assert!(
        read >= said,
        "run {run}: the process said {said} records were read, the file holds {read}"
    );
    // The same file cut anywhere (a kill in the middle of a write): its whole records, the rest said.
    let copy = dir.join(format!("kill-{run:02}-cut.jsonl"));
    let bytes_of = std::fs::read(&saved).unwrap();
    let cut_at = cut % (bytes_of.len() as u64 + 1);
    std::fs::write(&copy, &bytes_of[..cut_at as usize]).unwrap();
    let (_, cut_whole, cut_trailing) = whole_lines(&copy);
    let cut_read = reads_back(&copy);
    assert_eq!(cut_read, cut_whole);
    KillRow {
        run,
        after,
        bytes,
        whole,
        said,
        read,
        trailing,
        cut_at,
        cut_read,
        cut_trailing,
    }
}

#[test]
fn killed_at_twenty_random_points_the_save_reads_back_and_ctrl_c_saves_every_record() {
    let moto = Moto::start();
    table_with_history(&moto, "flow");
    let _writes = Writer::start(&moto, "flow");
    let dir = temp_dir("save-trace", "kills");
    let seed = std::env::var("SHARDLENS_SAVE_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos() as u64
        });
    eprintln!("kill points from seed {seed} (SHARDLENS_SAVE_SEED={seed} repeats them)");
    let mut rng = Seeded(seed);
    // Each run's kill point (after its first page reached the file) and a byte to cut a copy of its file at.
    let points: Vec<(Duration, u64)> = (0..20)
        .map(|_| (Duration::from_millis(rng.below(1_500)), rng.below(u64::MAX)))
        .collect();
    // Four at a time: a run mostly waits for moto.
    let rows = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for lane in 0..4 {
            let (moto, dir, points, rows) = (&moto, &dir, &points, &rows);
            s.spawn(move || {
                for run in (lane..20).step_by(4) {
                    let row = kill_once(moto, dir, run, points[run]);
                    rows.lock().unwrap().push(row);
                }
            });
        }
    });
    let mut rows = rows.into_inner().unwrap();
    rows.sort_by_key(|r| r.run);
    let (mut said, mut read, mut cut_runs, mut trailing) = (0, 0, 0, 0);
    for r in &rows {
        eprintln!(
            "kill {:2} {:4} ms after the first page: {:7} bytes, {:5} whole records (the process had said {}), \
             {:5} read back, {} trailing bytes ignored; cut at byte {:7}: {:5} read back, {:5} trailing bytes ignored",
            r.run,
            r.after.as_millis(),
            r.bytes,
            r.whole,
            r.said,
            r.read,
            r.trailing,
            r.cut_at,
            r.cut_read,
            r.cut_trailing
        );
        said += r.said;
        read += r.read;
        trailing += r.trailing;
        cut_runs += u64::from(r.trailing > 0);
    }
    eprintln!(
        "20 kills: {read} records read back, {said} said read by the killed processes before they died; \
         {cut_runs} files ended in an unfinished record ({trailing} trailing bytes ignored)"
    );

    ctrl_c_saves_every_record_whole(&moto, &dir);
}

/// Ctrl+C: the watch stops, says how many records it saved, and the file holds them all, whole.
fn ctrl_c_saves_every_record_whole(moto: &Moto, dir: &Path) {
    let saved = dir.join("ctrl-c.jsonl");
    let mut child = shardlens(&stream_args(moto, "flow", &saved, &[]))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let lines = collect_stderr(&mut child);
    let deadline = Instant::now() + Duration::from_secs(30);
    while said_records(&lines.lock().unwrap()) < u64::from(HISTORY) {
        assert!(Instant::now() < deadline, "{:#?}", lines.lock().unwrap());
        std::thread::sleep(Duration::from_millis(50));
    }
    let int = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(int.success());
    let status = child.wait().unwrap();
    std::thread::sleep(Duration::from_millis(20));
    let lines = lines.lock().unwrap().clone();
    assert!(status.success(), "{status:?} {lines:#?}");
    let saved_line = lines
        .iter()
        .find(|l| l.starts_with("shardlens: saved "))
        .unwrap_or_else(|| panic!("{lines:#?}"));
    let n: u64 = saved_line["shardlens: saved ".len()..]
        .split(" record")
        .next()
        .unwrap()
        .replace(',', "")
        .parse()
        .unwrap();
    let (bytes, whole, trailing) = whole_lines(&saved);
    assert_eq!((whole, trailing), (n, 0), "{saved_line}");
    assert_eq!(reads_back(&saved), n);
    eprintln!(
        "Ctrl+C: {saved_line:?}; the file: {bytes} bytes, {whole} whole records, read back whole"
    );
}

/// Unmounts a tmpfs when dropped.
struct Mounted(PathBuf);

impl Drop for Mounted {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

/// Runs a watch that saves to `saved` on a disk too small for it: it must end (well before its 30 s) with
/// the error naming the file. Returns standard error.
fn watch_onto_a_full_disk(moto: &Moto, saved: &Path) -> String {
    let started = Instant::now();
    let out = shardlens(&stream_args(moto, "disk", saved, &["--for", "30s"]))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!out.status.success(), "{stderr}");
    assert!(
        started.elapsed() < Duration::from_secs(25),
        "the write error ends the watch: {stderr}"
    );
    let said = format!(
        "shardlens: cannot write the saved trace {}: No space left on device (os error 28)",
        saved.display()
    );
    assert!(stderr.lines().any(|l| l == said), "{stderr}");
    stderr
}

#[test]
fn a_full_disk_ends_the_watch_with_an_error_naming_the_file_and_the_file_reads_back() {
    let moto = Moto::start();
    table_with_history(&moto, "disk");

    // /dev/full: every write fails; nothing needs mounting.
    let stderr = watch_onto_a_full_disk(&moto, Path::new("/dev/full"));
    eprintln!("/dev/full:\n{stderr}");

    // A 64 KB tmpfs: the whole records that fit, and the error.
    let dir = temp_dir("save-trace", "tmpfs");
    let mount = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=64k", "tmpfs"])
        .arg(&dir)
        .output();
    match mount {
        Ok(out) if out.status.success() => {
            let _mounted = Mounted(dir.clone());
            let saved = dir.join("saved.jsonl");
            let stderr = watch_onto_a_full_disk(&moto, &saved);
            let (bytes, whole, trailing) = whole_lines(&saved);
            assert!(
                whole > 0 && bytes <= 64 << 10,
                "{bytes} bytes, {whole} records"
            );
            assert!(
                stderr.contains(&format!(
                    "shardlens: saved {whole} records to {}",
                    saved.display()
                )),
                "{stderr}"
            );
            assert_eq!(reads_back(&saved), whole);
            eprintln!(
                "64 KB tmpfs: {bytes} bytes, {whole} whole records read back, {trailing} trailing bytes;\n{stderr}"
            );
        }
        Ok(out) => eprintln!(
            "SKIPPED the 64 KB tmpfs case: mount failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ),
        Err(e) => eprintln!("SKIPPED the 64 KB tmpfs case: cannot run mount: {e}"),
    }
}
