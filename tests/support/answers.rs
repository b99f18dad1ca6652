//! A proxy on 127.0.0.1 in front of a local server (moto behind its CBOR shim) that answers what the server does
//! not, from recorded answers: a DynamoDB operation (by `X-Amz-Target`) or a CloudWatch one (by the RPC v2 CBOR
//! path) is answered with a fixed JSON document (CBOR for CloudWatch, through [`crate::cbor_shim::json_to_cbor`]),
//! or forwarded with fields merged into the server's answer (DescribeTable's `OnDemandThroughput`, which moto
//! does not keep). Everything else is forwarded as it is. Include `support/cbor_shim.rs` as `cbor_shim` beside it.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;

use serde_json::Value;

const CLOUDWATCH: &str = "/service/GraniteServiceVersion20100801/operation/";

/// What the proxy does with one operation.
#[derive(Debug, Clone)]
pub enum Answer {
    /// Answers with this document (HTTP 200), without asking the server.
    Fixed(Value),
    /// Forwards, then merges this object into the answer's object at `pointer` (a JSON pointer, "" = the root).
    Merge(&'static str, Value),
}

/// Starts the proxy in front of `upstream` with `answers` by operation name; returns its port.
pub fn start(upstream: u16, answers: Vec<(&'static str, Answer)>) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("no free port on 127.0.0.1");
    let port = listener.local_addr().expect("a bound address").port();
    let answers = Arc::new(answers);
    std::thread::spawn(move || {
        for client in listener.incoming() {
            let Ok(client) = client else { return };
            let answers = answers.clone();
            std::thread::spawn(move || serve(client, upstream, &answers));
        }
    });
    port
}

struct Request {
    head: Vec<String>,
    body: Vec<u8>,
}

fn read_request(r: &mut BufReader<TcpStream>) -> Option<Request> {
    let mut head = Vec::new();
    loop {
        let mut line = String::new();
        if r.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end().to_owned();
        if line.is_empty() {
            break;
        }
        head.push(line);
    }
    let len: usize = head
        .iter()
        .find_map(|h| {
            let (k, v) = h.split_once(':')?;
            k.trim()
                .eq_ignore_ascii_case("content-length")
                .then(|| v.trim().parse().ok())?
        })
        .unwrap_or(0);
    let mut body = vec![0; len];
    r.read_exact(&mut body).ok()?;
    Some(Request { head, body })
}

/// The operation: `X-Amz-Target`'s after the dot, else the CloudWatch path's; and whether it is CloudWatch's.
fn operation(req: &Request) -> Option<(String, bool)> {
    let target = req.head.iter().find_map(|h| {
        let (k, v) = h.split_once(':')?;
        k.trim()
            .eq_ignore_ascii_case("x-amz-target")
            .then(|| v.rsplit('.').next().map(|op| op.trim().to_owned()))?
    });
    target.map(|t| (t, false)).or_else(|| {
        let path = req.head.first()?.split_whitespace().nth(1)?;
        path.strip_prefix(CLOUDWATCH)
            .map(|op| (op.trim_end_matches('/').to_owned(), true))
    })
}

fn serve(client: TcpStream, upstream: u16, answers: &[(&'static str, Answer)]) {
    let Ok(mut to_client) = client.try_clone() else {
        return;
    };
    let mut from_client = BufReader::new(client);
    while let Some(req) = read_request(&mut from_client) {
        let op = operation(&req);
        let answer = op
            .as_ref()
            .and_then(|(op, _)| answers.iter().find(|(name, _)| name == op))
            .map(|(_, a)| a);
        let cloudwatch = op.as_ref().is_some_and(|(_, cw)| *cw);
        let reply = match answer {
            Some(Answer::Fixed(doc)) if cloudwatch => http(
                "200 OK",
                &[
                    ("Content-Type", "application/cbor"),
                    ("smithy-protocol", "rpc-v2-cbor"),
                ],
                &crate::cbor_shim::json_to_cbor(doc),
            ),
            Some(Answer::Fixed(doc)) => http(
                "200 OK",
                &[("Content-Type", "application/x-amz-json-1.0")],
                &serde_json::to_vec(doc).unwrap_or_default(),
            ),
            Some(Answer::Merge(pointer, extra)) => {
                let Some((status, headers, body)) = forward(&req, upstream) else {
                    return;
                };
                let mut doc: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
                if let (Some(Value::Object(at)), Value::Object(extra)) =
                    (doc.pointer_mut(pointer), extra)
                {
                    for (k, v) in extra {
                        at.insert(k.clone(), v.clone());
                    }
                }
                let keep = kept(&headers);
                http(
                    &status,
                    &keep,
                    &serde_json::to_vec(&doc).unwrap_or_default(),
                )
            }
            None => {
                let Some((status, headers, body)) = forward(&req, upstream) else {
                    return;
                };
                http(&status, &kept(&headers), &body)
            }
        };
        if to_client.write_all(&reply).is_err() {
            return;
        }
    }
}

/// The answer's headers but those the proxy writes itself.
fn kept(headers: &[(String, String)]) -> Vec<(&str, &str)> {
    headers
        .iter()
        .filter(|(k, _)| {
            !["content-length", "connection", "transfer-encoding"]
                .contains(&k.to_ascii_lowercase().as_str())
        })
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect()
}

type Answered = (String, Vec<(String, String)>, Vec<u8>);

/// Sends `req` upstream on a connection of its own (closed after the answer) and reads the whole answer.
fn forward(req: &Request, upstream: u16) -> Option<Answered> {
    let mut server = TcpStream::connect(("127.0.0.1", upstream)).ok()?;
    let mut out = String::new();
    for h in &req.head {
        let name = h
            .split(':')
            .next()
            .unwrap_or_default()
            .trim()
            .to_ascii_lowercase();
        if !["content-length", "connection"].contains(&name.as_str()) {
            out.push_str(h);
            out.push_str("\r\n");
        }
    }
    out.push_str(&format!(
        "Content-Length: {}\r\nConnection: close\r\n\r\n",
        req.body.len()
    ));
    server.write_all(out.as_bytes()).ok()?;
    server.write_all(&req.body).ok()?;
    // The answer by its Content-Length: the CBOR shim keeps its connections open.
    let mut from = BufReader::new(server);
    let mut status = String::new();
    from.read_line(&mut status).ok()?;
    let status = status.trim_end().split_once(' ')?.1.to_owned();
    let mut headers = Vec::new();
    loop {
        let mut line = String::new();
        if from.read_line(&mut line).ok()? == 0 {
            break;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((k, v)) = line.split_once(':') {
            headers.push((k.trim().to_owned(), v.trim().to_owned()));
        }
    }
    let len = headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.parse::<usize>().ok());
    let mut body = Vec::new();
    match len {
        Some(n) => {
            body.resize(n, 0);
            from.read_exact(&mut body).ok()?;
        }
        None => {
            from.read_to_end(&mut body).ok()?;
        }
    }
    Some((status, headers, body))
}

fn http(status: &str, headers: &[(&str, &str)], body: &[u8]) -> Vec<u8> {
    let mut out = format!("HTTP/1.1 {status}\r\n");
    for (k, v) in headers {
        out.push_str(&format!("{k}: {v}\r\n"));
    }
    out.push_str(&format!("Content-Length: {}\r\n\r\n", body.len()));
    let mut bytes = out.into_bytes();
    bytes.extend_from_slice(body);
    bytes
}

/// A recorded answer of `tests/fixtures/live/`.
pub fn fixture(name: &str) -> Value {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/live")
        .join(name);
    serde_json::from_str(&std::fs::read_to_string(&path).expect("a fixture")).expect("JSON")
}

/// Contributor Insights on in THROTTLED_KEYS mode, as recorded answers (moto has none): DescribeContributorInsights
/// names one -PKT- rule, whose report has user#1 600 nine minutes before `base` (a Unix minute), then user#1 300
/// and user#2 120.
pub fn throttled_keys_mode(base: i64) -> Vec<(&'static str, Answer)> {
    let report = serde_json::to_string(&fixture("insight-rule-report-pkt.json"))
        .expect("JSON")
        .replace("\"MINUTE_9\"", &(base - 9 * 60).to_string())
        .replace("\"MINUTE_8\"", &(base - 8 * 60).to_string());
    vec![
        (
            "DescribeContributorInsights",
            Answer::Fixed(fixture("describe-contributor-insights-throttled.json")),
        ),
        (
            "GetInsightRuleReport",
            Answer::Fixed(serde_json::from_str(&report).expect("JSON")),
        ),
    ]
}
