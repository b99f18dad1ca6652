//! A moto server (a local AWS in Python: DynamoDB with Streams, CloudWatch metrics) for one test: its own
//! process on a free 127.0.0.1 port, killed on drop. Install it with `tests/moto.sh`;
//! `SHARDLENS_MOTO_PYTHON` names the Python that has `moto[server]` and boto3 (default `python3`).
//! [`Moto::boto`] runs a boto3 script against the server, to set up or inspect what a test needs.

#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
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

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("no free port on 127.0.0.1")
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
    pub fn start() -> Self {
        let python = python();
        let port = free_port();
        let mut child = Command::new(&python)
            .args(["-m", "moto.server", "-H", "127.0.0.1", "-p", &port.to_string()])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| {
                panic!("cannot start {python} for moto: {e} (run tests/moto.sh, or set SHARDLENS_MOTO_PYTHON)")
            });
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if let Ok(Some(status)) = child.try_wait() {
                panic!(
                    "moto exited with {status} on port {port}: is moto[server] installed for {python}? \
                     Run tests/moto.sh first, or set SHARDLENS_MOTO_PYTHON"
                );
            }
            if answers(port) {
                // Tests talk to moto through the CloudWatch protocol shim (the Rust SDK speaks CBOR).
                let port = crate::cbor_shim::start(port);
                return Self { port, child };
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                let _ = child.wait();
                panic!("moto did not answer on port {port} within 60 s (see tests/moto.sh)");
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

impl Drop for Moto {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
