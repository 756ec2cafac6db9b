//! `pbrain-tengen serve` through its HTTP API, the real binary on a free
//! port: every route, its refusals, the origin check, a search that stops
//! when its reader goes, and Ctrl-C.

mod common;

use common::http::{get, post_json, request, Server};
use serde_json::json;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

/// Opens an analysis stream and reads it until an `info` event of at
/// least `depth`; the connection is then dropped (a tab going away).
fn analysis_until(addr: &str, query: &str, depth: i64) -> serde_json::Value {
    let mut s = TcpStream::connect(addr).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    write!(
        s,
        "GET /api/analyze?{query} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut r = BufReader::new(s);
    let mut line = String::new();
    r.read_line(&mut line).unwrap();
    assert!(line.contains(" 200 "), "analysis refused: {line}");
    loop {
        line.clear();
        assert!(r.read_line(&mut line).unwrap() > 0, "stream ended early");
        if let Some(data) = line.trim().strip_prefix("data:") {
            let Ok(v) = serde_json::from_str::<serde_json::Value>(data.trim()) else {
                continue; // a chunk boundary inside the line
            };
            if v["depth"].as_i64().unwrap_or(0) >= depth {
                return v;
            }
        }
    }
}

#[test]
fn the_api_plays_analyses_solves_and_refuses_bad_input() {
    let mut server = Server::start(&["--searches", "1"]);
    let a = server.addr.clone();

    // The page and its assets, built in.
    let page = get(&a, "/");
    assert_eq!(page.status, 200);
    assert!(page.text().contains("tengen analysis board"));
    assert!(page.header("content-security-policy").is_some());
    assert!(get(&a, "/app.js").text().contains("tengenBoard"));
    assert_eq!(get(&a, "/style.css").status, 200);
    assert_eq!(get(&a, "/api/info").json()["rules"][2], "renju");

    // A position: its side to move, winner, forbidden points.
    let p = post_json(
        &a,
        "/api/position",
        &json!({"rule": "renju", "moves": "f8a1g8a3h6a5h7a7"}),
    );
    assert_eq!(p.status, 200, "{}", p.text());
    assert_eq!(p.json()["forbidden"], json!(["h8"]));
    let won = post_json(&a, "/api/position", &json!({"moves": "a1b1a2b2a3b3a4b4a5"})).json();
    assert_eq!(won["winner"], "black");
    // Bad input: 4xx with the reason, never a 5xx.
    for (body, says) in [
        (json!({"moves": "h8h8"}), "on a stone"),
        (json!({"size": 30}), "not offered"),
        (json!({"rule": "go"}), "unknown rule"),
        (json!({"moves": "zz99"}), "bad move list"),
        (json!({"moves": 5}), "invalid type"),
        (
            json!({"rule": "renju", "moves": "f8a1g8a3h6a5h7a7h8"}),
            "forbidden for black",
        ),
    ] {
        let r = post_json(&a, "/api/position", &body);
        assert!((400..500).contains(&r.status), "{body}: {}", r.status);
        assert!(
            r.json()["error"].as_str().unwrap().contains(says),
            "{body}: {}",
            r.text()
        );
    }
    let r = request(
        &a,
        "POST",
        "/api/position",
        &[("Content-Type", "application/json")],
        b"{oops",
    )
    .unwrap();
    assert_eq!(r.status, 400, "{}", r.text());
    let r = request(
        &a,
        "POST",
        "/api/position",
        &[("Content-Type", "text/plain")],
        b"{}",
    )
    .unwrap();
    assert_eq!(r.status, 415, "{}", r.text());
    let big = vec![b'a'; 2 << 20];
    let r = request(&a, "POST", "/api/import", &[], &big).unwrap();
    assert_eq!(r.status, 413);
    assert_eq!(get(&a, "/nothing").status, 404);
    assert_eq!(
        request(&a, "DELETE", "/api/info", &[], b"").unwrap().status,
        405
    );

    // The engine's move: the five it has.
    let m = post_json(
        &a,
        "/api/move",
        &json!({"moves": "h8a1h9a2h10a3h11o15", "time_ms": 200}),
    );
    assert_eq!(m.status, 200, "{}", m.text());
    let mv = m.json()["move"].as_str().unwrap().to_string();
    assert!(mv == "h7" || mv == "h12", "{mv}");
    let over = post_json(&a, "/api/move", &json!({"moves": "a1b1a2b2a3b3a4b4a5"}));
    assert_eq!(over.status, 400);

    // The solver: a VCF, and none.
    let s = post_json(
        &a,
        "/api/solve",
        &json!({"moves": "e5d5f5a1g5a15h7o15h8o1", "mode": "vcf"}),
    )
    .json();
    assert_eq!(s["result"], "win", "{s}");
    assert_eq!(s["line"][0], "h5");
    let s = post_json(&a, "/api/solve", &json!({"moves": "h8", "mode": "vcf"})).json();
    assert_eq!(s["result"], "nowin", "{s}");
    assert_eq!(
        post_json(&a, "/api/solve", &json!({"mode": "vcx"})).status,
        400
    );

    // The evaluation graph: one score a position, the same twice.
    let g = json!({"moves": "h8i9h9i8", "nodes": 2000});
    let g1 = post_json(&a, "/api/graph", &g).json();
    assert_eq!(g1["scores"].as_array().unwrap().len(), 5);
    assert_eq!(
        g1["scores"],
        post_json(&a, "/api/graph", &g).json()["scores"]
    );

    // Records in and out.
    let sgf = post_json(
        &a,
        "/api/export",
        &json!({"rule": "renju", "moves": "h8i9h9", "format": "sgf"}),
    );
    assert!(sgf.text().contains(";B[hh];W[ii];B[hi]"), "{}", sgf.text());
    assert!(sgf.header("content-disposition").unwrap().contains(".sgf"));
    let back = request(&a, "POST", "/api/import?size=9", &[], &sgf.body)
        .unwrap()
        .json();
    assert_eq!(
        (back["rule"].as_str(), back["size"].as_u64()),
        (Some("renju"), Some(15))
    );
    assert_eq!(back["moves"], "h8i9h9");
    let psq = b"Piskvorky 20x20, 11:11, 0\n10,10,0\n11,11,12\n";
    let back = request(&a, "POST", "/api/import", &[], psq).unwrap().json();
    assert_eq!(
        (back["size"].as_u64(), back["moves"].as_str()),
        (Some(20), Some("j10k11"))
    );
    let bad = request(&a, "POST", "/api/import", &[], b"(;SZ[15];B[hh];B[ii])").unwrap();
    assert_eq!(bad.status, 400);

    // Another site cannot drive it through the browser.
    let own = format!("http://{a}");
    let ok = request(&a, "GET", "/api/info", &[("Origin", &own)], b"").unwrap();
    assert_eq!(ok.status, 200);
    for h in [
        ("Origin", "http://evil.example"),
        ("Origin", "null"),
        ("Sec-Fetch-Site", "cross-site"),
        ("Sec-Fetch-Site", "same-site"),
    ] {
        let r = request(
            &a,
            "POST",
            "/api/move",
            &[h, ("Content-Type", "application/json")],
            b"{}",
        )
        .unwrap();
        assert_eq!(r.status, 403, "{h:?}");
    }

    // A stream dropped by its reader frees the only searcher at once.
    let t = Instant::now();
    let v = analysis_until(&a, "moves=h8i9h9&lines=1", 4);
    assert!(v["lines"][0]["pv"].as_array().unwrap().len() >= 2, "{v}");
    let v = analysis_until(&a, "moves=h8i9h9i8&lines=3", 3);
    assert_eq!(v["lines"].as_array().unwrap().len(), 3, "{v}");
    let moves: Vec<&str> = v["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["move"].as_str().unwrap())
        .collect();
    assert!(moves[0] != moves[1] && moves[1] != moves[2], "{moves:?}");
    analysis_until(&a, "moves=h8&lines=1", 3);
    println!("three analyses one after another: {:?}", t.elapsed());
    let r = get(&a, "/api/analyze?moves=h8&lines=99");
    assert_eq!(r.status, 400);

    // The only searcher busy with one tab's analysis: another tab's
    // search is refused with 429 and a reason, and served once the first
    // tab goes.
    let mut held = TcpStream::connect(&a).unwrap();
    write!(
        held,
        "GET /api/analyze?moves=h8i9 HTTP/1.1\r\nHost: {a}\r\n\r\n"
    )
    .unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let busy = post_json(&a, "/api/move", &json!({"moves": "h8", "time_ms": 100}));
    assert_eq!(busy.status, 429, "{}", busy.text());
    assert!(busy.json()["error"].as_str().unwrap().contains("busy"));
    drop(held);
    let served = post_json(&a, "/api/move", &json!({"moves": "h8", "time_ms": 100}));
    assert_eq!(served.status, 200, "{}", served.text());

    // Ctrl-C in the middle of an analysis: a clean exit.
    let mut s = TcpStream::connect(&a).unwrap();
    write!(s, "GET /api/analyze?moves=h8 HTTP/1.1\r\nHost: {a}\r\n\r\n").unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let status = server.interrupt();
    assert!(status.success(), "{status:?}");
}
