//! A moto server (a local AWS in Python: DynamoDB with Streams, CloudWatch metrics) for one test: its own
//! process on a free 127.0.0.1 port, killed on drop. Install it with `tests/moto.sh`;
//! `SHARDLENS_MOTO_PYTHON` names the Python that has `moto[server]` and boto3 (default `python3`).
//! [`Moto::boto`] runs a boto3 script against the server, to set up or inspect what a test needs.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub struct Moto {
    /// The port tests talk to: moto behind [`crate::cbor_shim`] (include `support/cbor_shim.rs` as
    /// `cbor_shim` beside this file).
    pub port: u16,
    child: Child,
}

fn python() -> String {
    std::env::var("SHARDLENS_MOTO_PYTHON").unwrap_or_else(|_| "python3".to_owned())
}

/// Whether the server answers HTTP on `port`: any status line will do.
fn answers(port: u16) -> bool {
    let Ok(mut stream) = TcpStream::connect(("127.0.0.1", port)) else {
        return false;
    };
    let _ = stream.set_read_timeout(Some(Duration::from_secs(2)));
    let _ = stream.set_write_timeout(Some(Duration::from_secs(2)));
    if stream
        .write_all(b"GET /moto-api/ HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
        .is_err()
    {
        return false;
    }
    let mut head = [0u8; 12];
    let mut got = 0;
    while got < head.len() {
        match stream.read(&mut head[got..]) {
            Ok(0) | Err(_) => break,
            Ok(n) => got += n,
        }
    }
    head[..got].starts_with(b"HTTP/")
}

impl Moto {
    /// Starts moto on a port of its own choosing (`-p 0`; the port is read from its "Running on" line, so no
    /// other server can take it between a probe and moto's bind), waits until it answers, and puts the
    /// CloudWatch protocol shim in front of it.
    pub fn start() -> Self {
        let python = python();
        let mut child = Command::new(&python)
            .args(["-m", "moto.server", "-H", "127.0.0.1", "-p", "0"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| {
                panic!("cannot start {python} for moto: {e} (run tests/moto.sh, or set SHARDLENS_MOTO_PYTHON)")
            });
        let (tx, rx) = std::sync::mpsc::channel();
        let stderr = child.stderr.take().expect("piped stderr");
        std::thread::spawn(move || {
            // Read to the end, so that moto never blocks on a full pipe.
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Some(port) = line
                    .split("Running on http://127.0.0.1:")
                    .nth(1)
                    .and_then(|p| p.trim().parse::<u16>().ok())
                {
                    let _ = tx.send(port);
                }
            }
        });
        let deadline = Instant::now() + Duration::from_secs(60);
        let mut port = None;
        loop {
            if let Ok(Some(status)) = child.try_wait() {
                panic!(
                    "moto exited with {status}: is moto[server] installed for {python}? Run tests/moto.sh \
                     first, or set SHARDLENS_MOTO_PYTHON"
                );
            }
            if port.is_none() {
                port = rx.try_recv().ok();
            }
            if let Some(port) = port
                && answers(port)
            {
                // Tests talk to moto through the CloudWatch protocol shim (the Rust SDK speaks CBOR).
                let port = crate::cbor_shim::start(port);
                return Self { port, child };
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                let _ = child.wait();
                panic!("moto did not answer within 60 s (port {port:?}; see tests/moto.sh)");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    pub fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Runs a boto3 `script` against this server and returns its stdout. The script sees `ddb`, `streams`
    /// and `cw` (DynamoDB, DynamoDB Streams and CloudWatch clients), `kw` (their arguments) and `boto3`,
    /// `json`, `sys`, `time`. A failing script fails the test with its stderr.
    pub fn boto(&self, script: &str) -> String {
        let prelude = format!(
            "import boto3, json, sys, time\n\
             kw = dict(endpoint_url='{}', region_name='us-east-1', aws_access_key_id='testing', \
             aws_secret_access_key='testing')\n\
             ddb = boto3.client('dynamodb', **kw)\n\
             streams = boto3.client('dynamodbstreams', **kw)\n\
             cw = boto3.client('cloudwatch', **kw)\n",
            self.endpoint()
        );
        let out = Command::new(python())
            .arg("-c")
            .arg(format!("{prelude}{script}"))
            .stdin(Stdio::null())
            .output()
            .unwrap_or_else(|e| {
                panic!("cannot run {} for boto3: {e} (see tests/moto.sh)", python())
            });
        assert!(
            out.status.success(),
            "boto3 script failed ({}):\n{}\n--- script:\n{script}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Puts CloudWatch datapoints (namespace `AWS/DynamoDB`) for `table`: (minutes ago, metric, value), each at
    /// the start of its minute. Returns the Unix second of the current minute.
    pub fn put_metrics(&self, table: &str, points: &[(i64, &str, f64)]) -> i64 {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs() as i64;
        let base = now.div_euclid(60) * 60;
        let data: Vec<String> = points
            .iter()
            .map(|(ago, metric, v)| {
                format!(
                    "{{'MetricName': '{metric}', 'Dimensions': [{{'Name': 'TableName', 'Value': '{table}'}}], \
                     'Timestamp': datetime.datetime.fromtimestamp({}, datetime.timezone.utc), 'Value': {v}, 'Unit': 'Count'}}",
                    base - ago * 60
                )
            })
            .collect();
        self.boto(&format!(
            "import datetime\ncw.put_metric_data(Namespace='AWS/DynamoDB', MetricData=[{}])",
            data.join(", ")
        ));
        base
    }
}

/// `cmd` with moto's access keys and nothing of the machine's own AWS set-up (profiles, config files,
/// instance metadata, endpoint and region variables).
pub fn hermetic(cmd: &mut Command) -> &mut Command {
    cmd.env("AWS_ACCESS_KEY_ID", "testing")
        .env("AWS_SECRET_ACCESS_KEY", "testing")
        .env("AWS_EC2_METADATA_DISABLED", "true")
        .env("AWS_CONFIG_FILE", "/nonexistent/shardlens-test")
        .env("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent/shardlens-test")
        .env_remove("AWS_PROFILE")
        .env_remove("AWS_REGION")
        .env_remove("AWS_ENDPOINT_URL")
        .env_remove("AWS_ENDPOINT_URL_DYNAMODB")
}

impl Drop for Moto {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
