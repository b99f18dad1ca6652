//! A TCP proxy on 127.0.0.1 in front of a local server that keeps the bytes every client sends, so a test can
//! check the requests themselves (operation, projection) rather than only their effects. One thread per
//! direction of each connection; the threads end when either side closes.

#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::{Arc, Mutex};

type Connections = Arc<Mutex<Vec<Arc<Mutex<Vec<u8>>>>>>;

pub struct Recorder {
    pub port: u16,
    connections: Connections,
}

/// One HTTP request as sent: its `X-Amz-Target` operation (`Scan`, `DescribeTable`, …) and JSON body.
#[derive(Debug)]
pub struct Request {
    pub operation: String,
    pub body: serde_json::Value,
}

impl Recorder {
    /// Listens on a free port and forwards every connection to `127.0.0.1:upstream`.
    pub fn start(upstream: u16) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("no free port on 127.0.0.1");
        let port = listener.local_addr().expect("a bound address").port();
        let connections: Connections = Arc::default();
        let seen = connections.clone();
        std::thread::spawn(move || {
            for client in listener.incoming() {
                let Ok(client) = client else { return };
                let Ok(server) = TcpStream::connect(("127.0.0.1", upstream)) else {
                    let _ = client.shutdown(Shutdown::Both);
                    continue;
                };
                let record = Arc::new(Mutex::new(Vec::new()));
                seen.lock().unwrap().push(record.clone());
                pipe(&client, &server, Some(record));
                pipe(&server, &client, None);
            }
        });
        Self { port, connections }
    }

    pub fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Every request sent so far, connection by connection.
    pub fn requests(&self) -> Vec<Request> {
        let connections = self.connections.lock().unwrap();
        connections
            .iter()
            .flat_map(|c| parse(&c.lock().unwrap()))
            .collect()
    }
}

/// Copies `from` to `to` on a thread of its own (keeping the bytes in `record`), then closes both.
fn pipe(from: &TcpStream, to: &TcpStream, record: Option<Arc<Mutex<Vec<u8>>>>) {
    let (Ok(mut from), Ok(mut to)) = (from.try_clone(), to.try_clone()) else {
        return;
    };
    std::thread::spawn(move || {
        let mut buf = [0u8; 16 * 1024];
        while let Ok(n) = from.read(&mut buf) {
            if n == 0 {
                break;
            }
            if let Some(r) = &record {
                r.lock().unwrap().extend_from_slice(&buf[..n]);
            }
            if to.write_all(&buf[..n]).is_err() {
                break;
            }
        }
        let _ = to.shutdown(Shutdown::Both);
        let _ = from.shutdown(Shutdown::Both);
    });
}

/// The HTTP/1.1 requests in one connection's bytes (bodies by `Content-Length`).
fn parse(mut bytes: &[u8]) -> Vec<Request> {
    let mut out = Vec::new();
    while let Some(end) = bytes.windows(4).position(|w| w == b"\r\n\r\n") {
        let head = String::from_utf8_lossy(&bytes[..end]).to_ascii_lowercase();
        let header = |name: &str| {
            head.lines()
                .find_map(|l| l.strip_prefix(name).map(|v| v.trim().to_owned()))
        };
        let len: usize = header("content-length:")
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        let body_end = (end + 4 + len).min(bytes.len());
        let body = serde_json::from_slice(&bytes[end + 4..body_end]).unwrap_or_default();
        // The target is `DynamoDB_20120810.Scan`: the operation after the dot, as sent (not lower-cased).
        let operation = body_operation(&bytes[..end]).unwrap_or_default();
        out.push(Request { operation, body });
        bytes = &bytes[body_end..];
    }
    out
}

/// The operation of a request: `X-Amz-Target`'s after the dot (DynamoDB, DynamoDB Streams), else the path's
/// after `/operation/` (CloudWatch's RPC v2 CBOR protocol).
fn body_operation(head: &[u8]) -> Option<String> {
    let head = String::from_utf8_lossy(head);
    let target = head
        .lines()
        .find(|l| l.to_ascii_lowercase().starts_with("x-amz-target:"))
        .and_then(|l| l.rsplit('.').next())
        .map(|op| op.trim().to_owned());
    target.or_else(|| {
        let path = head.lines().next()?.split_whitespace().nth(1)?;
        path.split_once("/operation/")
            .map(|(_, op)| op.trim_end_matches('/').to_owned())
    })
}
