//! A dynalite server (a local DynamoDB on Node.js) for one test: its own process on a free 127.0.0.1 port,
//! killed on drop. Install it with `tests/dynalite.sh`; `SHARDLENS_DYNALITE_DIR` points at the install
//! (default `$HOME/.cache/shardlens-dynalite`). A server that cannot start fails the test with the reason.

#![allow(dead_code)]

use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub struct Dynalite {
    child: Child,
    pub port: u16,
    stopped: bool,
}

fn install_dir() -> PathBuf {
    std::env::var_os("SHARDLENS_DYNALITE_DIR")
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/shardlens-dynalite"))
        })
        .expect("neither SHARDLENS_DYNALITE_DIR nor HOME is set")
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("no free port on 127.0.0.1")
}

impl Dynalite {
    pub fn start() -> Self {
        let cli = install_dir().join("node_modules/dynalite/cli.js");
        assert!(
            cli.is_file(),
            "dynalite is not installed (no {}): run tests/dynalite.sh first (needs node and npm), or set \
             SHARDLENS_DYNALITE_DIR",
            cli.display()
        );
        let mut last_error = String::new();
        for _ in 0..3 {
            let port = free_port();
            let mut child = Command::new("node")
                .arg(&cli)
                .args(["--host", "127.0.0.1", "--port", &port.to_string()])
                .args([
                    "--createTableMs",
                    "0",
                    "--deleteTableMs",
                    "0",
                    "--updateTableMs",
                    "0",
                ])
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap_or_else(|e| panic!("cannot start node (is Node.js installed?): {e}"));
            let deadline = Instant::now() + Duration::from_secs(20);
            loop {
                if let Ok(Some(status)) = child.try_wait() {
                    last_error = format!("dynalite exited with {status} on port {port}");
                    break;
                }
                if TcpStream::connect(("127.0.0.1", port)).is_ok() {
                    return Self {
                        child,
                        port,
                        stopped: false,
                    };
                }
                if Instant::now() > deadline {
                    let _ = child.kill();
                    let _ = child.wait();
                    last_error = format!("dynalite did not listen on port {port} within 20 s");
                    break;
                }
                std::thread::sleep(Duration::from_millis(25));
            }
        }
        panic!("cannot start dynalite: {last_error}");
    }

    pub fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Kills the server (as a crash would).
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    fn signal(&self, sig: &str) {
        let status = Command::new("kill")
            .args([sig, &self.child.id().to_string()])
            .status()
            .expect("cannot run kill");
        assert!(status.success(), "kill {sig} failed");
    }

    /// Freezes the server (SIGSTOP): connections are accepted by the kernel, nothing answers.
    pub fn freeze(&mut self) {
        self.signal("-STOP");
        self.stopped = true;
    }
}

impl Drop for Dynalite {
    fn drop(&mut self) {
        if self.stopped {
            self.signal("-CONT");
        }
        self.kill();
    }
}
