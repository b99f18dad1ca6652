//! Credentials never leak: with an access key, secret and session token in the environment, and others in a
//! profile file, the real CLI's `tables` and `scan` fail against servers that refuse, break or answer badly
//! (one echoes the request's headers, credentials included, into its error message) with `RUST_LOG=trace`,
//! and no marker appears in what it prints. `Debug` of the connection options, and the app's saved settings,
//! session and on-screen error after a failed connect, hold none either.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed step fails the test

#[cfg(feature = "gui")]
#[path = "support/kittest.rs"]
mod kittest;
use std::io::{Read as _, Write as _};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use shardlens::source::dynamo::{ConnectOptions, DynamoClient, StaticKeys};

#[path = "support/cli.rs"]
mod support;

const ENV_KEY: &str = "AKIAENVMARKERQ7X2K4";
const ENV_SECRET: &str = "envSecretMarkerQ7X2/k4+Zz";
const ENV_TOKEN: &str = "envTokenMarkerQ7X2k4";
const PROFILE_KEY: &str = "AKIAPROFILEMARKERZ9";
const PROFILE_SECRET: &str = "profileSecretMarkerZ9/w+Yy";
const PROFILE_TOKEN: &str = "profileTokenMarkerZ9w";
const PROFILE: &str = "leaky";

const MARKERS: [&str; 6] = [
    ENV_KEY,
    ENV_SECRET,
    ENV_TOKEN,
    PROFILE_KEY,
    PROFILE_SECRET,
    PROFILE_TOKEN,
];

/// The markers `text` holds.
fn leaked(text: &str) -> Vec<&'static str> {
    MARKERS.into_iter().filter(|m| text.contains(m)).collect()
}

/// A home with `~/.aws/config` and `~/.aws/credentials` naming the profile, also given as
/// `AWS_CONFIG_FILE` / `AWS_SHARED_CREDENTIALS_FILE`.
fn aws_home() -> PathBuf {
    let home = support::temp_dir("secrets", "home");
    let aws = home.join(".aws");
    std::fs::create_dir_all(&aws).unwrap();
    std::fs::write(
        aws.join("config"),
        format!("[profile {PROFILE}]\nregion = us-east-1\n"),
    )
    .unwrap();
    std::fs::write(
        aws.join("credentials"),
        format!(
            "[{PROFILE}]\naws_access_key_id = {PROFILE_KEY}\naws_secret_access_key = {PROFILE_SECRET}\n\
             aws_session_token = {PROFILE_TOKEN}\n"
        ),
    )
    .unwrap();
    home
}

/// Sets the credentials' environment on `cmd`: the markers in the environment (`env_keys`) or only the
/// profile files, trace logging, and nothing of the machine's own AWS setup.
fn with_credentials(cmd: &mut Command, home: &Path, env_keys: bool) {
    for var in [
        "AWS_PROFILE",
        "AWS_DEFAULT_PROFILE",
        "AWS_REGION",
        "AWS_DEFAULT_REGION",
        "AWS_ENDPOINT_URL",
        "AWS_ENDPOINT_URL_DYNAMODB",
        "AWS_WEB_IDENTITY_TOKEN_FILE",
        "AWS_ROLE_ARN",
        "AWS_CONTAINER_CREDENTIALS_FULL_URI",
        "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
        "AWS_ACCESS_KEY_ID",
        "AWS_SECRET_ACCESS_KEY",
        "AWS_SESSION_TOKEN",
    ] {
        cmd.env_remove(var);
    }
    cmd.env("HOME", home)
        .env("AWS_CONFIG_FILE", home.join(".aws/config"))
        .env("AWS_SHARED_CREDENTIALS_FILE", home.join(".aws/credentials"))
        // No instance metadata lookups from a test machine.
        .env("AWS_EC2_METADATA_DISABLED", "true")
        .env("RUST_LOG", "trace")
        .env("RUST_BACKTRACE", "1");
    if env_keys {
        cmd.env("AWS_ACCESS_KEY_ID", ENV_KEY)
            .env("AWS_SECRET_ACCESS_KEY", ENV_SECRET)
            .env("AWS_SESSION_TOKEN", ENV_TOKEN);
    }
}

/// How a fake server answers every request.
#[derive(Clone, Copy, Debug)]
enum Answer {
    /// HTTP 500 with a JSON error body.
    Status500,
    /// Bytes that are not HTTP.
    Garbage,
    /// Closes the connection without a word.
    Hangup,
    /// HTTP 400 `UnrecognizedClientException` whose message is the request's headers: a server (or a
    /// proxy) that echoes the `Authorization` and `X-Amz-Security-Token` headers back.
    EchoHeaders,
}

/// A server on 127.0.0.1 answering every connection as `answer` says, recording the requests' heads.
fn serve(answer: Answer) -> (String, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { continue };
            let log = Arc::clone(&log);
            std::thread::spawn(move || answer_one(stream, answer, &log));
        }
    });
    (url, seen)
}

fn answer_one(mut stream: TcpStream, answer: Answer, log: &Mutex<Vec<String>>) {
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") && stream.read(&mut byte).is_ok_and(|n| n == 1) {
        head.push(byte[0]);
    }
    let head = String::from_utf8_lossy(&head).into_owned();
    log.lock().unwrap().push(head.clone());
    let reply = match answer {
        Answer::Status500 => {
            let body = r#"{"__type":"com.amazonaws.dynamodb.v20120810#InternalServerError","message":"boom"}"#;
            format!(
                "HTTP/1.1 500 Internal Server Error\r\nContent-Type: application/x-amz-json-1.0\r\n\
                 Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            )
            .into_bytes()
        }
        Answer::Garbage => b"\x00\xffSSH-2.0-not-http\r\n\x1b[31m garbage \x07\r\n\r\n".to_vec(),
        Answer::Hangup => Vec::new(),
        Answer::EchoHeaders => {
            let message = head
                .replace('\r', "")
                .replace('\n', " | ")
                .replace('"', "'");
            let body = format!(
                r#"{{"__type":"com.amazonaws.dynamodb.v20120810#UnrecognizedClientException","message":"{message}"}}"#
            );
            format!(
                "HTTP/1.1 400 Bad Request\r\nContent-Type: application/x-amz-json-1.0\r\n\
                 x-amzn-ErrorMessage: {message}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            )
            .into_bytes()
        }
    };
    let _ = stream.write_all(&reply);
    let _ = stream.flush();
}

/// A port nothing listens on.
fn closed_port() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    url
}

/// Runs the CLI with the credentials' environment.
fn run(home: &Path, env_keys: bool, args: &[&str]) -> std::process::Child {
    let mut cmd = support::bin();
    with_credentials(&mut cmd, home, env_keys);
    cmd.args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap()
}

#[test]
fn no_credential_reaches_the_cli_output_on_any_error_path() {
    let home = aws_home();
    let (s500, _) = serve(Answer::Status500);
    let (garbage, _) = serve(Answer::Garbage);
    let (hangup, _) = serve(Answer::Hangup);
    let (echo, echo_seen) = serve(Answer::EchoHeaders);
    let closed = closed_port();
    let endpoints = [
        ("refused", closed.as_str()),
        ("500", s500.as_str()),
        ("garbage", garbage.as_str()),
        ("hangup", hangup.as_str()),
        ("echo", echo.as_str()),
    ];
    let mut runs = Vec::new();
    for (what, url) in endpoints {
        for (command, op) in [
            (&["tables"][..], "ListTables"),
            (&["scan", "--table", "t"][..], "DescribeTable"),
            (&["stream", "--table", "t"][..], "DescribeTable"),
            (&["metrics", "--table", "t"][..], "GetMetricData"),
        ] {
            for env_keys in [true, false] {
                let mut args: Vec<&str> = command.to_vec();
                args.extend([
                    "--endpoint-url",
                    url,
                    "--timeout",
                    "2",
                    "--connect-timeout",
                    "1",
                ]);
                if env_keys {
                    args.extend(["--region", "us-east-1"]);
                } else {
                    args.extend(["--profile", PROFILE]);
                }
                let label = format!(
                    "{what} {} ({})",
                    args.join(" "),
                    if env_keys { "environment" } else { "profile" }
                );
                runs.push((label, op, run(&home, env_keys, &args)));
            }
        }
    }
    let mut failures = Vec::new();
    for (label, op, child) in runs {
        let out: Output = child.wait_with_output().unwrap();
        let (stdout, stderr) = (
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
        );
        let found = leaked(&format!("{stdout}{stderr}"));
        if !found.is_empty() {
            failures.push(format!("{label}: printed {found:?}:\n{stderr}"));
        }
        // The error path was taken: a failed run naming the operation.
        if out.status.code() != Some(1) || !stderr.starts_with(&format!("shardlens: {op}: ")) {
            failures.push(format!(
                "{label}: exit {:?}, stderr {stderr:?}",
                out.status.code()
            ));
        }
    }
    // The credentials were really sent (signed requests with each session token), so the test saw them.
    let seen = echo_seen.lock().unwrap().join("\n").to_ascii_lowercase();
    for token in [ENV_TOKEN, PROFILE_TOKEN] {
        assert!(
            seen.contains(&format!(
                "x-amz-security-token: {}",
                token.to_ascii_lowercase()
            )),
            "the echo server never saw {token}: {seen}"
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn debug_output_holds_no_credential() {
    let opts = ConnectOptions {
        credentials: Some(StaticKeys {
            access_key_id: ENV_KEY.into(),
            secret_access_key: ENV_SECRET.into(),
        }),
        profile: Some(PROFILE.into()),
        endpoint: Some("http://127.0.0.1:9".into()),
        region: Some("us-east-1".into()),
        ..ConnectOptions::default()
    };
    for shown in [format!("{opts:?}"), format!("{opts:#?}")] {
        assert_eq!(leaked(&shown), Vec::<&str>::new(), "{shown}");
        assert!(
            shown.contains(PROFILE) && shown.contains("127.0.0.1:9"),
            "{shown}"
        );
    }
    let client = DynamoClient::connect(&opts).unwrap();
    let shown = format!("{client:?}");
    assert_eq!(leaked(&shown), Vec::<&str>::new(), "{shown}");
}

/// Marks the child run of [`the_app_saves_and_shows_no_credential`]; its value is the endpoint to connect to.
#[cfg(feature = "gui")]
const CHILD: &str = "SHARDLENS_SECRETS_APP_ENDPOINT";

/// The app, with credentials in its environment (set on a child run of this test binary: tests cannot set
/// their own environment), connects through the dialog with the profile to a server echoing the request's
/// headers, then saves its settings (as eframe stores them) and a session. Neither the error on screen, the
/// notices, the stored settings nor the session holds a marker; the settings keep the profile's name.
#[cfg(feature = "gui")]
#[test]
fn the_app_saves_and_shows_no_credential() {
    if let Ok(endpoint) = std::env::var(CHILD) {
        app_child(&endpoint);
        return;
    }
    let home = aws_home();
    let (echo, seen) = serve(Answer::EchoHeaders);
    for env_keys in [true, false] {
        let mut cmd = Command::new(std::env::current_exe().unwrap());
        with_credentials(&mut cmd, &home, env_keys);
        let out = cmd
            .env(CHILD, &echo)
            .args([
                "--exact",
                "the_app_saves_and_shows_no_credential",
                "--nocapture",
                "--test-threads=1",
            ])
            .output()
            .unwrap();
        let printed = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.status.success(), "the app run failed:\n{printed}");
        assert!(printed.contains("SAVED SETTINGS"), "{printed}");
        assert_eq!(leaked(&printed), Vec::<&str>::new(), "{printed}");
    }
    let seen = seen.lock().unwrap().join("\n").to_ascii_lowercase();
    for token in [ENV_TOKEN, PROFILE_TOKEN] {
        assert!(
            seen.contains(&token.to_ascii_lowercase()),
            "the app's request never carried {token}: {seen}"
        );
    }
}

/// eframe's storage, in memory: what `App::save` writes.
#[cfg(feature = "gui")]
#[derive(Default)]
struct Stored(std::collections::BTreeMap<String, String>);

#[cfg(feature = "gui")]
impl eframe::Storage for Stored {
    fn get_string(&self, key: &str) -> Option<String> {
        self.0.get(key).cloned()
    }
    fn set_string(&mut self, key: &str, value: String) {
        self.0.insert(key.to_owned(), value);
    }
    fn remove_string(&mut self, key: &str) {
        self.0.remove(key);
    }
    fn flush(&mut self) {}
}

#[cfg(feature = "gui")]
fn app_child(endpoint: &str) {
    use eframe::App as _;
    use egui_kittest::kittest::{NodeT as _, Queryable as _};
    use shardlens::app::connect::ConnectSettings;
    use shardlens::app::{App, Command};

    let with_profile = std::env::var_os("AWS_ACCESS_KEY_ID").is_none();
    let mut h = egui_kittest::Harness::builder()
        .with_size([1400.0, 900.0])
        .build_eframe(|cc| App::with_settings(cc.egui_ctx.clone(), None));
    h.state_mut()
        .apply(Command::SetConnectSettings(ConnectSettings {
            profile: if with_profile {
                PROFILE.into()
            } else {
                String::new()
            },
            region: "us-east-1".into(),
            endpoint: endpoint.into(),
        }));
    kittest::Settle::settle(&mut h);
    h.get_by_label("File").click();
    kittest::Settle::settle(&mut h);
    h.get_by_label("Connect to DynamoDB…").click();
    kittest::Settle::settle(&mut h);
    h.get_by_label("List tables").click();
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while h.query_by_label_contains("ListTables: ").is_none() {
        assert!(
            std::time::Instant::now() < deadline,
            "no ListTables error shown"
        );
        h.step();
        std::thread::sleep(Duration::from_millis(10));
    }
    kittest::Settle::settle(&mut h);
    // The server's message reached the screen, scrubbed.
    let shown = h.get_by_label_contains("ListTables: UnrecognizedClientException: ");
    let node = shown.accesskit_node();
    let label = node.label().or_else(|| node.value()).unwrap_or_default();
    println!("SHOWN {label}");
    assert!(
        label.contains("x-amz-security-token: [redacted]"),
        "{label}"
    );
    for marker in MARKERS {
        assert!(
            h.query_by_label_contains(marker).is_none(),
            "{marker} on screen"
        );
    }
    for notice in h.state().notices().history() {
        println!("NOTICE {}", notice.text);
    }
    let mut stored = Stored::default();
    h.state_mut().save(&mut stored);
    for (key, value) in &stored.0 {
        println!("SAVED SETTINGS {key} = {value}");
    }
    let settings = stored.0.get(eframe::APP_KEY).expect("settings saved");
    assert!(settings.contains(endpoint), "{settings}");
    if with_profile {
        assert!(settings.contains(PROFILE), "{settings}");
    }
    println!("SESSION {}", h.state().session().to_json().unwrap());
}
