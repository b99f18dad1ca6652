//! A fault-injecting HTTP proxy on 127.0.0.1 in front of a local DynamoDB server (dynalite, moto): request by
//! request, a schedule decides whether a `Scan` (or another operation: [`FaultProxy::start_on`]) is forwarded
//! or answered with a fault — DynamoDB's throttling
//! errors (HTTP 400 with the service's JSON error shape), HTTP 500 and 503, an answer slower than the client's
//! timeout, or a connection dropped in the middle of the response. Everything else is forwarded as it is.

#![allow(dead_code)]

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// What the proxy does to one `Scan` request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// 400 `ProvisionedThroughputExceededException`.
    ProvisionedThroughput,
    /// 400 `ThrottlingException`.
    Throttling,
    /// 500 `InternalServerError`.
    Internal,
    /// 503 `ServiceUnavailable`.
    Unavailable,
    /// Forwarded after this long (past the client's timeout).
    Slow(Duration),
    /// Forwarded, then half the response is sent and the connection closed.
    Drop,
    /// 400 `LimitExceededException` (DynamoDB Streams' throttling of GetRecords).
    LimitExceeded,
    /// 400 `ExpiredIteratorException` (a shard iterator older than 15 minutes).
    ExpiredIterator,
}

/// One `Scan` request as the schedule sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScanRequest {
    /// The `n`-th `Scan` the proxy has seen (from 0), over all segments.
    pub n: u64,
    /// The request's `Segment` (0 for a scan that is not parallel).
    pub segment: u32,
    /// The `nth`-th request of that segment (from 0), retries included. Unlike `n`, it does not depend on
    /// how the segments' requests interleave, so a schedule on it is the same on every run.
    pub nth: u64,
}

type Schedule = dyn Fn(ScanRequest) -> Option<Fault> + Send + Sync;

/// Requests seen so far: in all, and per segment.
#[derive(Default)]
struct Seen {
    all: u64,
    per_segment: HashMap<u32, u64>,
}

impl Seen {
    fn next(&mut self, segment: u32) -> ScanRequest {
        let nth = self.per_segment.entry(segment).or_default();
        let request = ScanRequest {
            n: self.all,
            segment,
            nth: *nth,
        };
        self.all += 1;
        *nth += 1;
        request
    }
}

pub struct FaultProxy {
    pub port: u16,
    /// `Scan` requests seen, and faults injected.
    scans: Arc<Mutex<Seen>>,
    faults: Arc<AtomicU64>,
}

impl FaultProxy {
    /// Listens on a free port; `schedule(request)` decides the fate of each `Scan` request.
    pub fn start(
        upstream: u16,
        schedule: impl Fn(ScanRequest) -> Option<Fault> + Send + Sync + 'static,
    ) -> Self {
        Self::start_on(upstream, "Scan", schedule)
    }

    /// Like [`Self::start`] for the requests of `operation` (`GetRecords`); their `segment` is 0.
    pub fn start_on(
        upstream: u16,
        operation: &'static str,
        schedule: impl Fn(ScanRequest) -> Option<Fault> + Send + Sync + 'static,
    ) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("no free port on 127.0.0.1");
        let port = listener.local_addr().expect("a bound address").port();
        let scans = Arc::new(Mutex::new(Seen::default()));
        let faults = Arc::new(AtomicU64::new(0));
        let schedule: Arc<Schedule> = Arc::new(schedule);
        let (s, f) = (scans.clone(), faults.clone());
        std::thread::spawn(move || {
            for client in listener.incoming() {
                let Ok(client) = client else { return };
                let (schedule, s, f) = (schedule.clone(), s.clone(), f.clone());
                std::thread::spawn(move || serve(client, upstream, operation, &*schedule, &s, &f));
            }
        });
        Self {
            port,
            scans,
            faults,
        }
    }

    pub fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    pub fn scans(&self) -> u64 {
        self.scans.lock().map_or(0, |s| s.all)
    }

    pub fn faults(&self) -> u64 {
        self.faults.load(Ordering::SeqCst)
    }
}

/// One HTTP/1.1 message: its head (up to and with the blank line) and body.
struct Message {
    head: Vec<u8>,
    body: Vec<u8>,
}

impl Message {
    fn header(&self, name: &str) -> Option<String> {
        String::from_utf8_lossy(&self.head).lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.trim()
                .eq_ignore_ascii_case(name)
                .then(|| v.trim().to_owned())
        })
    }

    fn bytes(&self) -> Vec<u8> {
        [self.head.as_slice(), self.body.as_slice()].concat()
    }
}

/// Reads one message (body by `Content-Length`, or chunked); `None` at the end of the stream.
fn read_message(r: &mut BufReader<TcpStream>) -> Option<Message> {
    let mut head = Vec::new();
    loop {
        let mut line = Vec::new();
        if r.read_until(b'\n', &mut line).ok()? == 0 {
            return None;
        }
        head.extend_from_slice(&line);
        if line == b"\r\n" {
            break;
        }
    }
    let mut m = Message {
        head,
        body: Vec::new(),
    };
    if let Some(len) = m
        .header("content-length")
        .and_then(|v| v.parse::<usize>().ok())
    {
        m.body = vec![0; len];
        r.read_exact(&mut m.body).ok()?;
    } else if m
        .header("transfer-encoding")
        .is_some_and(|v| v.eq_ignore_ascii_case("chunked"))
    {
        loop {
            let mut size = Vec::new();
            r.read_until(b'\n', &mut size).ok()?;
            m.body.extend_from_slice(&size);
            let n = usize::from_str_radix(String::from_utf8_lossy(&size).trim(), 16).ok()?;
            let mut chunk = vec![0; n + 2];
            r.read_exact(&mut chunk).ok()?;
            m.body.extend_from_slice(&chunk);
            if n == 0 {
                break;
            }
        }
    }
    Some(m)
}

/// A DynamoDB error answer: `status`, the `__type` and the message, as the service sends them.
fn error_answer(status: &str, kind: &str, message: &str) -> Vec<u8> {
    let body = format!(r#"{{"__type":"{kind}","message":"{message}"}}"#);
    format!(
        "HTTP/1.1 {status}\r\nContent-Type: application/x-amz-json-1.0\r\nx-amzn-RequestId: fault\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

fn serve(
    client: TcpStream,
    upstream: u16,
    operation: &str,
    schedule: &Schedule,
    scans: &Mutex<Seen>,
    faults: &AtomicU64,
) {
    let Ok(server) = TcpStream::connect(("127.0.0.1", upstream)) else {
        let _ = client.shutdown(Shutdown::Both);
        return;
    };
    let (Ok(mut to_client), Ok(mut to_server)) = (client.try_clone(), server.try_clone()) else {
        return;
    };
    let mut from_client = BufReader::new(client);
    let mut from_server = BufReader::new(server);
    while let Some(request) = read_message(&mut from_client) {
        let is_scan = request
            .header("x-amz-target")
            .is_some_and(|t| t.rsplit('.').next() == Some(operation));
        let fault = if is_scan {
            let segment = serde_json::from_slice::<serde_json::Value>(&request.body)
                .ok()
                .and_then(|b| b.get("Segment")?.as_u64())
                .and_then(|s| u32::try_from(s).ok())
                .unwrap_or(0);
            let Ok(mut seen) = scans.lock() else { return };
            let request = seen.next(segment);
            drop(seen);
            schedule(request)
        } else {
            None
        };
        if fault.is_some() {
            faults.fetch_add(1, Ordering::SeqCst);
        }
        let canned = fault.and_then(canned);
        if let Some(answer) = canned {
            if to_client.write_all(&answer).is_err() {
                return;
            }
            continue;
        }
        if let Some(Fault::Slow(d)) = fault {
            std::thread::sleep(d);
        }
        if to_server.write_all(&request.bytes()).is_err() {
            return;
        }
        let Some(response) = read_message(&mut from_server) else {
            return;
        };
        let bytes = response.bytes();
        if fault == Some(Fault::Drop) {
            let _ = to_client.write_all(&bytes[..bytes.len() / 2]);
            let _ = to_client.shutdown(Shutdown::Both);
            return;
        }
        if to_client.write_all(&bytes).is_err() {
            return;
        }
    }
}

/// The answer a fault sends instead of the server's, if it is an error answer.
fn canned(fault: Fault) -> Option<Vec<u8>> {
    match fault {
        Fault::ProvisionedThroughput => Some(error_answer(
            "400 Bad Request",
            "com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException",
            "The level of configured provisioned throughput for the table was exceeded.",
        )),
        Fault::Throttling => Some(error_answer(
            "400 Bad Request",
            "com.amazon.coral.availability#ThrottlingException",
            "Rate of requests exceeds the allowed throughput.",
        )),
        Fault::Internal => Some(error_answer(
            "500 Internal Server Error",
            "com.amazonaws.dynamodb.v20120810#InternalServerError",
            "Internal server error",
        )),
        Fault::LimitExceeded => Some(error_answer(
            "400 Bad Request",
            "com.amazonaws.dynamodb.v20120810#LimitExceededException",
            "Too many requests for this shard.",
        )),
        Fault::ExpiredIterator => Some(error_answer(
            "400 Bad Request",
            "com.amazonaws.dynamodb.v20120810#ExpiredIteratorException",
            "Iterator expired",
        )),
        Fault::Unavailable => Some(error_answer(
            "503 Service Unavailable",
            "com.amazonaws.dynamodb.v20120810#ServiceUnavailable",
            "Service unavailable",
        )),
        Fault::Slow(_) | Fault::Drop => None,
    }
}
