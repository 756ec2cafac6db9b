//! An HTTP fuzz of the board's server, in-process and bounded: 10,000
//! malformed or hostile requests from four clients at once (bad methods,
//! paths, queries, headers, bodies of every shape, garbage that is not
//! HTTP, oversized bodies, searches that ask for too much). No response
//! may be a 5xx, no handler may panic, the process's memory stays
//! bounded, and the server answers normally afterwards. The origin check
//! is proven on the side.

mod common;

use common::http::parse;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tengen::serve::{Caps, Config};

static PANICS: AtomicUsize = AtomicUsize::new(0);

const PATHS: &[&str] = &[
    "/",
    "/app.js",
    "/style.css",
    "/api/info",
    "/api/position",
    "/api/move",
    "/api/analyze",
    "/api/solve",
    "/api/graph",
    "/api/import",
    "/api/export",
    "/api",
    "/api/",
    "/../etc/passwd",
    "/%2e%2e/%2e%2e/etc/passwd",
    "/api/position/../info",
    "//api//info",
    "/index.html",
    "/favicon.ico",
];
const METHODS: &[&str] = &[
    "GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD", "TRACE", "FOO", "get",
];
const RULES: &[&str] = &[
    "freestyle",
    "standard",
    "renju",
    "caro",
    "caro-exact",
    "go",
    "",
    "4",
    "RENJU",
    "\u{0}",
];

fn junk(rng: &mut StdRng, n: usize) -> String {
    const ALPHA: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789,;[]{}()\"'\\:%&=?# \n\t-+.";
    (0..n)
        .map(|_| ALPHA[rng.gen_range(0..ALPHA.len())] as char)
        .collect()
}

fn junk_upto(rng: &mut StdRng, most: usize) -> String {
    let n = rng.gen_range(0..most);
    junk(rng, n)
}

fn moves(rng: &mut StdRng) -> String {
    let n = rng.gen_range(0..12);
    let mut s = String::new();
    for _ in 0..n {
        match rng.gen_range(0..10) {
            0 => s.push_str(&junk(rng, 2)),
            1 => s.push_str(&format!(
                "{}{}",
                (b'a' + rng.gen_range(0..26)) as char,
                rng.gen_range(0..40)
            )),
            _ => s.push_str(&format!(
                "{}{}",
                (b'e' + rng.gen_range(0..7)) as char,
                rng.gen_range(5..12)
            )),
        }
    }
    s
}

fn value(rng: &mut StdRng, depth: u32) -> serde_json::Value {
    use serde_json::json;
    match rng.gen_range(0..9) {
        0 => json!(null),
        1 => json!(rng.gen::<bool>()),
        2 => json!(rng.gen_range(-5i64..40)),
        3 => json!(rng.gen::<i64>()),
        4 => json!(rng.gen::<f64>() * 1e12),
        5 => json!(moves(rng)),
        6 => json!(junk_upto(rng, 30)),
        7 if depth < 4 => json!([value(rng, depth + 1), value(rng, depth + 1)]),
        _ if depth < 4 => json!({"moves": value(rng, depth + 1)}),
        _ => json!("x"),
    }
}

/// A body for a JSON route: mostly the right fields with wrong or wild
/// values, sometimes broken JSON.
fn body(rng: &mut StdRng) -> Vec<u8> {
    use serde_json::json;
    match rng.gen_range(0..12) {
        0 => junk_upto(rng, 200).into_bytes(),
        1 => (0..rng.gen_range(0..300))
            .map(|_| rng.gen::<u8>())
            .collect(),
        2 => b"{\"moves\":".to_vec(),
        3 => "[".repeat(rng.gen_range(1..5000)).into_bytes(),
        4 => json!(value(rng, 0)).to_string().into_bytes(),
        _ => {
            let mut o = serde_json::Map::new();
            if rng.gen_bool(0.8) {
                o.insert(
                    "rule".into(),
                    if rng.gen_bool(0.7) {
                        json!(RULES[rng.gen_range(0..RULES.len())])
                    } else {
                        value(rng, 1)
                    },
                );
            }
            if rng.gen_bool(0.8) {
                o.insert(
                    "size".into(),
                    if rng.gen_bool(0.7) {
                        json!(rng.gen_range(0..30))
                    } else {
                        value(rng, 1)
                    },
                );
            }
            if rng.gen_bool(0.9) {
                o.insert(
                    "moves".into(),
                    if rng.gen_bool(0.8) {
                        json!(moves(rng))
                    } else {
                        value(rng, 1)
                    },
                );
            }
            for (k, v) in [
                ("time_ms", json!(rng.gen_range(0u64..1_000_000))),
                ("nodes", json!(rng.gen::<u64>())),
                (
                    "mode",
                    json!(["vcf", "vct", "xyz", ""][rng.gen_range(0..4)]),
                ),
                (
                    "format",
                    json!(["psq", "sgf", "png", ""][rng.gen_range(0..4)]),
                ),
                ("extra", value(rng, 1)),
            ] {
                if rng.gen_bool(0.4) {
                    o.insert(k.into(), v);
                }
            }
            serde_json::Value::Object(o).to_string().into_bytes()
        }
    }
}

fn record(rng: &mut StdRng) -> Vec<u8> {
    let base = match rng.gen_range(0..4) {
        0 => format!(
            "Piskvorky {0}x{0}, 11:11, 0\n8,8,0\n9,9,0\n{1}\n",
            rng.gen_range(0..30),
            junk(rng, 8)
        ),
        1 => format!(
            "(;GM[4]SZ[{}]RU[{}];B[hh];W[{}]{})",
            rng.gen_range(0..30),
            RULES[rng.gen_range(0..RULES.len())],
            junk(rng, 2),
            junk(rng, 5)
        ),
        2 => moves(rng),
        _ => junk_upto(rng, 100),
    };
    let mut b = base.into_bytes();
    // A few flipped bytes.
    for _ in 0..rng.gen_range(0..3) {
        if !b.is_empty() {
            let i = rng.gen_range(0..b.len());
            b[i] = rng.gen();
        }
    }
    b
}

fn query(rng: &mut StdRng) -> String {
    let mut q = Vec::new();
    if rng.gen_bool(0.7) {
        q.push(format!(
            "rule={}",
            RULES[rng.gen_range(0..RULES.len())].replace('\u{0}', "%00")
        ));
    }
    if rng.gen_bool(0.7) {
        q.push(format!(
            "size={}",
            [
                rng.gen_range(0..30).to_string(),
                "-1".into(),
                "1e9".into(),
                "x".into()
            ][rng.gen_range(0..4)]
        ));
    }
    if rng.gen_bool(0.8) {
        q.push(format!(
            "moves={}",
            moves(rng).replace(['&', '#', ' ', '\n', '%'], "")
        ));
    }
    if rng.gen_bool(0.5) {
        q.push(format!("lines={}", rng.gen_range(-2i32..12)));
    }
    if rng.gen_bool(0.1) {
        q.push(format!(
            "{}={}",
            junk(rng, 3).replace(['&', '#', ' ', '\n'], ""),
            "%zz"
        ));
    }
    q.join("&")
}

/// One request's bytes, and whether it is HTTP at all.
fn request(rng: &mut StdRng, addr: &str) -> (Vec<u8>, bool) {
    if rng.gen_range(0..40) == 0 {
        // Not HTTP.
        let mut b: Vec<u8> = (0..rng.gen_range(1..200)).map(|_| rng.gen()).collect();
        b.extend_from_slice(b"\r\n\r\n");
        return (b, false);
    }
    let method = if rng.gen_bool(0.8) {
        ["GET", "POST"][rng.gen_range(0..2)]
    } else {
        METHODS[rng.gen_range(0..METHODS.len())]
    };
    let mut path = PATHS[rng.gen_range(0..PATHS.len())].to_string();
    if path == "/api/analyze" || path == "/api/import" || rng.gen_range(0..10) == 0 {
        path = format!("{path}?{}", query(rng));
    }
    if rng.gen_range(0..50) == 0 {
        path = format!("/{}", "a".repeat(rng.gen_range(1..20_000)));
    }
    let b = if path.starts_with("/api/import") {
        record(rng)
    } else {
        body(rng)
    };
    let big = rng.gen_range(0..200) == 0;
    let b = if big { vec![b'{'; (1 << 20) + 10] } else { b };
    let mut head = format!("{method} {path} HTTP/1.1\r\n");
    match rng.gen_range(0..20) {
        0 => {}
        1 => head.push_str("Host: evil.example\r\n"),
        _ => head.push_str(&format!("Host: {addr}\r\n")),
    }
    match rng.gen_range(0..6) {
        0 => head.push_str("Content-Type: text/plain\r\n"),
        1 => {}
        2 => head.push_str(&format!(
            "Content-Type: {}\r\n",
            junk(rng, 10).replace(['\n', '\r'], "")
        )),
        _ => head.push_str("Content-Type: application/json\r\n"),
    }
    match rng.gen_range(0..10) {
        0 => head.push_str("Origin: http://evil.example\r\n"),
        1 => head.push_str(&format!("Origin: http://{addr}\r\n")),
        2 => head.push_str("Sec-Fetch-Site: cross-site\r\n"),
        3 => head.push_str(&format!(
            "X-{}: {}\r\n",
            rng.gen_range(0..1000),
            "v".repeat(rng.gen_range(0..5000))
        )),
        _ => {}
    }
    match rng.gen_range(0..30) {
        0 => head.push_str("Content-Length: 99999999999999999999\r\n"),
        1 => head.push_str("Content-Length: -1\r\n"),
        2 => head.push_str("Transfer-Encoding: chunked\r\n"),
        _ => head.push_str(&format!("Content-Length: {}\r\n", b.len())),
    }
    head.push_str("Connection: close\r\n\r\n");
    let mut out = head.into_bytes();
    out.extend_from_slice(&b);
    (out, true)
}

fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1).and_then(|v| v.parse().ok()))
        })
        .unwrap_or(0)
}

fn send(addr: &str, bytes: &[u8]) -> std::io::Result<Vec<u8>> {
    let mut s = TcpStream::connect(addr)?;
    s.set_read_timeout(Some(Duration::from_secs(60)))?;
    // The server may answer (413, 400) before it has read everything.
    let _ = s.write_all(bytes);
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    Ok(out)
}

#[test]
fn ten_thousand_hostile_requests_get_no_5xx_and_no_panic() {
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        PANICS.fetch_add(1, Ordering::SeqCst);
        hook(info);
    }));
    let config = Config {
        port: 0,
        threads: 1,
        hash_mib: 8,
        searches: 2,
        caps: Caps {
            move_ms: 30,
            analysis: Duration::from_millis(60),
            lines: 3,
            solve_nodes: 5_000,
            graph_nodes: 300,
        },
        ..Config::default()
    };
    let server = tengen::serve::start(
        config,
        tengen::search::tuned::ParamSets::default(),
        tengen::eval::Evaluator::shipped(),
    )
    .expect("server");
    let addr = server.addr.to_string();
    let rss_before = rss_kib();

    // The origin check, first: another origin, a cross-site fetch and a
    // rebinding Host are refused; the page's own origin is served.
    let own = format!("http://{addr}");
    for (headers, want) in [
        (format!("Host: {addr}\r\nOrigin: {own}\r\n"), 200),
        (format!("Host: {addr}\r\n"), 200),
        (
            format!("Host: {addr}\r\nOrigin: http://evil.example\r\n"),
            403,
        ),
        (
            format!("Host: {addr}\r\nOrigin: {own}.evil.example\r\n"),
            403,
        ),
        (
            format!("Host: {addr}\r\nSec-Fetch-Site: cross-site\r\n"),
            403,
        ),
        (
            format!("Host: {addr}\r\nSec-Fetch-Site: same-origin\r\n"),
            200,
        ),
        ("Host: attacker.example:80\r\n".to_string(), 403),
    ] {
        let raw = send(
            &addr,
            format!("GET /api/info HTTP/1.1\r\n{headers}Connection: close\r\n\r\n").as_bytes(),
        )
        .unwrap();
        assert_eq!(parse(&raw).unwrap().status, want, "{headers}");
    }

    // A body shorter than announced: refused in time, not held forever.
    let slow = {
        let addr = addr.clone();
        std::thread::spawn(move || {
            let raw = send(&addr, format!("POST /api/position HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{{}}").as_bytes()).unwrap();
            parse(&raw).unwrap().status
        })
    };

    let count = Arc::new(AtomicUsize::new(0));
    let statuses = Arc::new(std::sync::Mutex::new(std::collections::BTreeMap::<
        u16,
        usize,
    >::new()));
    let threads: Vec<_> = (0..4)
        .map(|t| {
            let (addr, count, statuses) = (addr.clone(), count.clone(), statuses.clone());
            std::thread::spawn(move || {
                let mut rng = StdRng::seed_from_u64(0x5e2e + t);
                for i in 0..2500 {
                    let (bytes, http) = request(&mut rng, &addr);
                    let raw = send(&addr, &bytes).expect("connect");
                    count.fetch_add(1, Ordering::Relaxed);
                    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(300)]).into_owned();
                    if raw.is_empty() {
                        // Only what is not HTTP may be closed on unanswered.
                        assert!(!http, "request {t}/{i} got no answer: {text}");
                        continue;
                    }
                    let reply =
                        parse(&raw).unwrap_or_else(|e| panic!("request {t}/{i}: {e}: {text}"));
                    assert!(
                        reply.status < 500,
                        "request {t}/{i}: {} {}\n{text}",
                        reply.status,
                        reply.text()
                    );
                    *statuses.lock().unwrap().entry(reply.status).or_default() += 1;
                }
            })
        })
        .collect();
    for th in threads {
        th.join().expect("a client thread failed");
    }
    assert_eq!(count.load(Ordering::SeqCst), 10_000);
    assert_eq!(PANICS.load(Ordering::SeqCst), 0, "a handler panicked");
    let grown = rss_kib().saturating_sub(rss_before);
    println!(
        "statuses: {:?}; memory grew {} MiB",
        statuses.lock().unwrap(),
        grown >> 10
    );
    assert!(grown < 256 << 10, "memory grew {} MiB", grown >> 10);
    let st = statuses.lock().unwrap();
    assert!(
        st.get(&200).copied().unwrap_or(0) > 500,
        "too few requests got through: {st:?}"
    );

    assert_eq!(slow.join().unwrap(), 408);

    // Still serving, normally.
    let body = r#"{"moves":"h8"}"#;
    let raw = send(&addr, format!("POST /api/move HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}", body.len()).as_bytes()).unwrap();
    let r = parse(&raw).unwrap();
    assert_eq!(r.status, 200, "{}", r.text());
    server.stop().expect("a clean stop");
}
