//! moto answers CloudWatch in the AWS JSON 1.0 protocol (what boto3 sends); the Rust SDK's CloudWatch client
//! (aws-sdk-cloudwatch ≥ 1.60) speaks Smithy RPC v2 CBOR, which moto does not implement (getmoto/moto#9195).
//! This proxy on 127.0.0.1 translates: a `POST /service/GraniteServiceVersion20100801/operation/OP` with a
//! CBOR body goes to moto as JSON with `X-Amz-Target: GraniteServiceVersion20100801.OP`, and moto's JSON
//! answer comes back as CBOR (timestamps, the `Timestamp`/`Timestamps`/`StartTime`/`EndTime` fields, as
//! tag 1). Every other request is forwarded as it is. The request's and answer's content are not changed
//! otherwise: the SDK's own encoder and decoder are tested, moto's CloudWatch behind them.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};

use minicbor::data::{Tag, Type};
use minicbor::{Decoder, Encoder};
use serde_json::{Map, Value};

const CLOUDWATCH: &str = "/service/GraniteServiceVersion20100801/operation/";

/// Starts the proxy in front of `upstream`; returns its port.
pub fn start(upstream: u16) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("no free port on 127.0.0.1");
    let port = listener.local_addr().expect("a bound address").port();
    std::thread::spawn(move || {
        for client in listener.incoming() {
            let Ok(client) = client else { return };
            std::thread::spawn(move || serve(client, upstream));
        }
    });
    port
}

/// One HTTP request: its request line, headers and body.
struct Request {
    line: String,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

fn read_request(r: &mut BufReader<TcpStream>) -> Option<Request> {
    let mut line = String::new();
    if r.read_line(&mut line).ok()? == 0 {
        return None;
    }
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        r.read_line(&mut h).ok()?;
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        let (k, v) = h.split_once(':')?;
        headers.push((k.trim().to_owned(), v.trim().to_owned()));
    }
    let len: usize = headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; len];
    r.read_exact(&mut body).ok()?;
    Some(Request {
        line: line.trim_end().to_owned(),
        headers,
        body,
    })
}

fn serve(client: TcpStream, upstream: u16) {
    let Ok(mut to_client) = client.try_clone() else {
        return;
    };
    let mut from_client = BufReader::new(client);
    while let Some(mut req) = read_request(&mut from_client) {
        let op = req
            .line
            .split_whitespace()
            .nth(1)
            .and_then(|p| p.strip_prefix(CLOUDWATCH))
            .map(str::to_owned);
        if let Some(op) = &op {
            let json = cbor_to_json(&req.body).unwrap_or(Value::Object(Map::new()));
            req.line = "POST / HTTP/1.1".to_owned();
            req.headers.retain(|(k, _)| {
                ![
                    "content-type",
                    "content-length",
                    "smithy-protocol",
                    "accept",
                ]
                .contains(&k.to_ascii_lowercase().as_str())
            });
            req.headers
                .push(("Content-Type".into(), "application/x-amz-json-1.0".into()));
            req.headers.push((
                "X-Amz-Target".into(),
                format!("GraniteServiceVersion20100801.{op}"),
            ));
            req.body = serde_json::to_vec(&json).unwrap_or_default();
        }
        let Some((status, headers, body)) = forward(&req, upstream) else {
            return;
        };
        let answer = match op {
            Some(_) => {
                let json: Option<Value> = serde_json::from_slice(&body).ok();
                match json {
                    Some(v) => http(
                        &status,
                        &[
                            ("Content-Type", "application/cbor"),
                            ("smithy-protocol", "rpc-v2-cbor"),
                        ],
                        &json_to_cbor(&v),
                    ),
                    None => http(&status, &[("Content-Type", "text/html")], &body),
                }
            }
            None => {
                let keep: Vec<(&str, &str)> = headers
                    .iter()
                    .filter(|(k, _)| {
                        !["content-length", "connection", "transfer-encoding"]
                            .contains(&k.to_ascii_lowercase().as_str())
                    })
                    .map(|(k, v)| (k.as_str(), v.as_str()))
                    .collect();
                http(&status, &keep, &body)
            }
        };
        if to_client.write_all(&answer).is_err() {
            return;
        }
    }
}

type Answer = (String, Vec<(String, String)>, Vec<u8>);

/// Sends `req` to moto on a connection of its own (closed after the answer) and reads the whole answer.
fn forward(req: &Request, upstream: u16) -> Option<Answer> {
    let mut server = TcpStream::connect(("127.0.0.1", upstream)).ok()?;
    let mut out = format!("{}\r\n", req.line);
    for (k, v) in &req.headers {
        if !["content-length", "connection"].contains(&k.to_ascii_lowercase().as_str()) {
            out.push_str(&format!("{k}: {v}\r\n"));
        }
    }
    out.push_str(&format!(
        "Content-Length: {}\r\nConnection: close\r\n\r\n",
        req.body.len()
    ));
    server.write_all(out.as_bytes()).ok()?;
    server.write_all(&req.body).ok()?;
    let mut all = Vec::new();
    server.read_to_end(&mut all).ok()?;
    let end = all.windows(4).position(|w| w == b"\r\n\r\n")?;
    let head = String::from_utf8_lossy(&all[..end]).into_owned();
    let mut lines = head.lines();
    let status = lines.next()?.split_once(' ')?.1.to_owned();
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned()))
        .collect();
    Some((status, headers, all[end + 4..].to_vec()))
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

fn cbor_to_json(bytes: &[u8]) -> Option<Value> {
    if bytes.is_empty() {
        return Some(Value::Object(Map::new()));
    }
    decode(&mut Decoder::new(bytes))
}

fn decode(d: &mut Decoder<'_>) -> Option<Value> {
    Some(match d.datatype().ok()? {
        Type::Bool => Value::Bool(d.bool().ok()?),
        Type::Null | Type::Undefined => {
            d.skip().ok()?;
            Value::Null
        }
        Type::U8 | Type::U16 | Type::U32 | Type::U64 => Value::from(d.u64().ok()?),
        Type::I8 | Type::I16 | Type::I32 | Type::I64 | Type::Int => Value::from(d.i64().ok()?),
        Type::F16 | Type::F32 | Type::F64 => {
            let v = match d.datatype().ok()? {
                Type::F16 => f64::from(d.f16().ok()?),
                Type::F32 => f64::from(d.f32().ok()?),
                _ => d.f64().ok()?,
            };
            serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number)
        }
        Type::String => Value::String(d.str().ok()?.to_owned()),
        Type::Array | Type::ArrayIndef => {
            let n = d.array().ok()?;
            let mut out = Vec::new();
            loop {
                if n.is_some_and(|n| out.len() as u64 == n) {
                    break;
                }
                if n.is_none() && d.datatype().ok()? == Type::Break {
                    d.skip().ok()?;
                    break;
                }
                out.push(decode(d)?);
            }
            Value::Array(out)
        }
        Type::Map | Type::MapIndef => {
            let n = d.map().ok()?;
            let mut out = Map::new();
            loop {
                if n.is_some_and(|n| out.len() as u64 == n) {
                    break;
                }
                if n.is_none() && d.datatype().ok()? == Type::Break {
                    d.skip().ok()?;
                    break;
                }
                let k = d.str().ok()?.to_owned();
                out.insert(k, decode(d)?);
            }
            Value::Object(out)
        }
        // Timestamps (tag 1): epoch seconds, as the JSON protocol sends them.
        Type::Tag => {
            d.tag().ok()?;
            decode(d)?
        }
        _ => return None,
    })
}

pub fn json_to_cbor(v: &Value) -> Vec<u8> {
    let mut e = Encoder::new(Vec::new());
    encode(&mut e, v, false);
    e.into_writer()
}

/// Fields that hold timestamps (or lists of them) in CloudWatch's answers.
fn is_time(key: &str) -> bool {
    matches!(key, "Timestamp" | "Timestamps" | "StartTime" | "EndTime")
}

fn encode(e: &mut Encoder<Vec<u8>>, v: &Value, time: bool) {
    let _ = match v {
        Value::Null => e.null().map(|_| ()),
        Value::Bool(b) => e.bool(*b).map(|_| ()),
        Value::Number(n) if time => e
            .tag(Tag::new(1))
            .and_then(|e| e.f64(n.as_f64().unwrap_or(0.0)))
            .map(|_| ()),
        // CloudWatch's figures are doubles (`Values`), whatever moto's JSON spelled them as.
        Value::Number(n) => e.f64(n.as_f64().unwrap_or(0.0)).map(|_| ()),
        Value::String(s) => e.str(s).map(|_| ()),
        Value::Array(a) => {
            let _ = e.array(a.len() as u64);
            for x in a {
                encode(e, x, time);
            }
            Ok(())
        }
        Value::Object(o) => {
            let _ = e.map(o.len() as u64);
            for (k, x) in o {
                let _ = e.str(k);
                encode(e, x, is_time(k));
            }
            Ok(())
        }
    };
}
