//! Drives the real binary through pipes, as a manager would.
#![allow(dead_code)]

pub mod http;

use std::ops::Deref;
use std::path::{Path, PathBuf};

/// A test's own scratch folder under the temporary directory, made empty
/// when the test begins and removed when it ends, unless the test failed
/// (then its files stay for a look).
pub struct Scratch(PathBuf);

impl Scratch {
    /// `PREFIX-NAME-PID`, empty.
    pub fn new(prefix: &str, name: &str) -> Scratch {
        let d = std::env::temp_dir().join(format!("{prefix}-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        Scratch(d)
    }
}

impl Deref for Scratch {
    type Target = PathBuf;
    fn deref(&self) -> &PathBuf {
        &self.0
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<std::ffi::OsStr> for Scratch {
    fn as_ref(&self) -> &std::ffi::OsStr {
        self.0.as_os_str()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::thread;
use std::time::{Duration, Instant};

pub struct Engine {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
}

impl Engine {
    pub fn spawn() -> Engine {
        let mut child = Command::new(env!("CARGO_BIN_EXE_pbrain-tengen"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn pbrain-tengen");
        let stdout = child.stdout.take().expect("stdout");
        let stdin = child.stdin.take();
        let (tx, rx) = channel();
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Engine {
            child,
            stdin,
            lines: rx,
        }
    }

    pub fn send(&mut self, text: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(text.as_bytes()).expect("write");
        if !text.ends_with('\n') {
            stdin.write_all(b"\n").expect("write");
        }
        stdin.flush().expect("flush");
    }

    /// The next line that is not a MESSAGE/DEBUG line, within `t`.
    pub fn reply_within(&mut self, t: Duration) -> Option<String> {
        let deadline = Instant::now() + t;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    if line.starts_with("MESSAGE") || line.starts_with("DEBUG") {
                        continue;
                    }
                    return Some(line);
                }
                Err(RecvTimeoutError::Timeout) | Err(RecvTimeoutError::Disconnected) => {
                    return None
                }
            }
        }
    }

    pub fn reply(&mut self) -> String {
        self.reply_within(Duration::from_secs(10))
            .expect("a reply within 10 s")
    }

    /// Every line (MESSAGE ones too) within `t`.
    pub fn raw_line_within(&mut self, t: Duration) -> Option<String> {
        self.lines.recv_timeout(t).ok()
    }

    /// Asserts nothing is printed for `t`.
    pub fn silent_for(&mut self, t: Duration) -> Option<String> {
        self.reply_within(t)
    }

    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// Waits for the process to exit; true if it did within `t`.
    pub fn exits_within(&mut self, t: Duration) -> bool {
        let deadline = Instant::now() + t;
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return true;
            }
            thread::sleep(Duration::from_millis(10));
        }
        false
    }

    /// The engine's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn is_running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Parses an "x,y" move reply.
pub fn parse_move(s: &str) -> Option<(usize, usize)> {
    let (a, b) = s.split_once(',')?;
    Some((a.trim().parse().ok()?, b.trim().parse().ok()?))
}
