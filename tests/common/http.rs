//! A small HTTP/1.1 client over `std::net` for the tests of `serve` (and
//! the WebDriver calls of the browser test): one request a connection.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// A response: status, headers (names lower-cased) and body.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Reply {
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.text()))
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Sends `method path` to `addr` (`host:port`) with `headers` and `body`,
/// and reads the whole response.
pub fn request(
    addr: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> std::io::Result<Reply> {
    let mut s = TcpStream::connect(addr)?;
    s.set_read_timeout(Some(Duration::from_secs(120)))?;
    let mut head = format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    for (n, v) in headers {
        head.push_str(&format!("{n}: {v}\r\n"));
    }
    if !body.is_empty() || method == "POST" {
        head.push_str(&format!("Content-Length: {}\r\n", body.len()));
    }
    head.push_str("\r\n");
    s.write_all(head.as_bytes())?;
    s.write_all(body)?;
    read_reply(&mut s)
}

/// Reads one response: up to its `Content-Length`, the end of its chunks,
/// or the end of the connection (a peer may keep it open).
fn read_reply(s: &mut TcpStream) -> std::io::Result<Reply> {
    let mut raw = Vec::new();
    let mut buf = [0u8; 16 << 10];
    loop {
        if let Some(end) = raw.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&raw[..end]).to_ascii_lowercase();
            let length = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .and_then(|v| v.trim().parse::<usize>().ok());
            let done = match length {
                Some(n) => raw.len() >= end + 4 + n,
                None if head.contains("transfer-encoding: chunked") => {
                    raw[end..].windows(5).any(|w| w == b"0\r\n\r\n")
                }
                None => false,
            };
            if done {
                return parse(&raw);
            }
        }
        let n = s.read(&mut buf)?;
        if n == 0 {
            return parse(&raw);
        }
        raw.extend_from_slice(&buf[..n]);
    }
}

/// A JSON POST.
pub fn post_json(addr: &str, path: &str, v: &serde_json::Value) -> Reply {
    request(
        addr,
        "POST",
        path,
        &[("Content-Type", "application/json")],
        v.to_string().as_bytes(),
    )
    .expect("request")
}

pub fn get(addr: &str, path: &str) -> Reply {
    request(addr, "GET", path, &[], b"").expect("request")
}

/// Parses a whole response (a chunked body decoded).
pub fn parse(raw: &[u8]) -> std::io::Result<Reply> {
    let bad = |m: &str| std::io::Error::new(std::io::ErrorKind::InvalidData, m.to_string());
    let end = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or_else(|| bad("no end of headers"))?;
    let head = String::from_utf8_lossy(&raw[..end]);
    let mut lines = head.split("\r\n");
    let status: u16 = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|c| c.parse().ok())
        .ok_or_else(|| bad("no status"))?;
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let mut body = raw[end + 4..].to_vec();
    let chunked = headers
        .iter()
        .any(|(n, v)| n == "transfer-encoding" && v.contains("chunked"));
    if chunked {
        let mut out = Vec::new();
        let mut r = BufReader::new(&body[..]);
        loop {
            let mut size = String::new();
            if r.read_line(&mut size)? == 0 {
                break;
            }
            let n = usize::from_str_radix(size.trim(), 16).map_err(|_| bad("chunk size"))?;
            if n == 0 {
                break;
            }
            let mut chunk = vec![0; n];
            r.read_exact(&mut chunk)?;
            out.extend_from_slice(&chunk);
            let mut crlf = String::new();
            r.read_line(&mut crlf)?;
        }
        body = out;
    }
    Ok(Reply {
        status,
        headers,
        body,
    })
}

/// `pbrain-tengen serve` on a free port, stopped (SIGINT) when dropped.
pub struct Server {
    pub child: Child,
    /// `127.0.0.1:PORT`
    pub addr: String,
    pub url: String,
}

impl Server {
    pub fn start(extra: &[&str]) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_pbrain-tengen"))
            .args(["serve", "--port", "0", "--hash", "16", "--threads", "1"])
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("spawn serve");
        let mut out = BufReader::new(child.stdout.take().expect("stdout"));
        let mut line = String::new();
        out.read_line(&mut line).expect("the URL line");
        let url = line
            .split_whitespace()
            .find(|w| w.starts_with("http://"))
            .unwrap_or_else(|| panic!("no URL in '{line}'"))
            .to_string();
        let addr = url
            .trim_start_matches("http://")
            .trim_end_matches('/')
            .to_string();
        // The rest of stdout is drained so the server never blocks on it.
        std::thread::spawn(move || {
            let mut sink = String::new();
            while out.read_line(&mut sink).is_ok_and(|n| n > 0) {
                sink.clear();
            }
        });
        Server { child, addr, url }
    }

    /// Sends SIGINT (Ctrl-C) and waits: the exit status.
    pub fn interrupt(&mut self) -> std::process::ExitStatus {
        let _ = Command::new("kill")
            .args(["-INT", &self.child.id().to_string()])
            .status();
        for _ in 0..200 {
            if let Ok(Some(s)) = self.child.try_wait() {
                return s;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        self.child.wait().expect("wait")
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}
