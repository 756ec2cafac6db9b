//! The analysis board in a real browser: Debian's Chromium driven through
//! WebDriver (chromedriver) against `pbrain-tengen serve`. Clicks a stone,
//! gets the engine's answer, runs an analysis and sees depth and line
//! change, pastes a position, opens a PSQ file, tries an illegal move and
//! sees the error, solves a VCF; screenshots go to `target/`.
//!
//! Skipped with a message where no chromedriver is installed, unless `CI`
//! is set (then it fails): `.ci/run` installs `chromium` and
//! `chromium-driver`.

mod common;

use common::http::{request, Server};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

fn find(names: &[&str]) -> Option<PathBuf> {
    names.iter().map(PathBuf::from).find(|p| p.exists())
}

/// A WebDriver session on a chromedriver of our own.
struct Browser {
    driver: Child,
    addr: String,
    session: String,
    _profile: PathBuf,
}

impl Browser {
    fn start(driver: &Path, chrome: &Path) -> Browser {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = Command::new(driver)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start chromedriver");
        let addr = format!("127.0.0.1:{port}");
        let t = Instant::now();
        while request(&addr, "GET", "/status", &[], b"").is_err() {
            assert!(
                t.elapsed() < Duration::from_secs(30),
                "chromedriver did not start"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        let profile = std::env::temp_dir().join(format!("tengen-chrome-{}", std::process::id()));
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": chrome,
                "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                         "--window-size=1280,1000", "--disable-background-networking",
                         "--disable-component-update", "--disable-sync", "--no-first-run",
                         "--disable-quic", format!("--user-data-dir={}", profile.display())]
            }
        }}});
        let mut b = Browser {
            driver: child,
            addr,
            session: String::new(),
            _profile: profile,
        };
        let v = b.call("POST", "/session", Some(caps));
        b.session = v["sessionId"].as_str().expect("a session").to_string();
        b
    }

    fn call(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        let data = body.map(|b| b.to_string()).unwrap_or_default();
        let path = if path.starts_with("/session/") || path == "/session" {
            path.to_string()
        } else {
            format!("/session/{}{path}", self.session)
        };
        let r = request(
            &self.addr,
            method,
            &path,
            &[("Content-Type", "application/json")],
            data.as_bytes(),
        )
        .expect("webdriver request");
        let v: Value = serde_json::from_slice(&r.body).expect("webdriver JSON");
        assert!(r.status < 400, "{method} {path}: {}", r.text());
        v["value"].clone()
    }

    fn go(&self, url: &str) {
        self.call("POST", "/url", Some(json!({ "url": url })));
    }

    fn el(&self, css: &str) -> String {
        let v = self.call(
            "POST",
            "/element",
            Some(json!({"using": "css selector", "value": css})),
        );
        v[ELEMENT].as_str().expect("element id").to_string()
    }

    fn click(&self, css: &str) {
        let id = self.el(css);
        self.call("POST", &format!("/element/{id}/click"), Some(json!({})));
    }

    fn text(&self, css: &str) -> String {
        let id = self.el(css);
        self.call("GET", &format!("/element/{id}/text"), None)
            .as_str()
            .unwrap_or("")
            .to_string()
    }

    /// Types `text` into an empty input (again, if the page rewrote the
    /// box meanwhile: it follows the board while not being typed in).
    fn type_into(&self, css: &str, text: &str) {
        let id = self.el(css);
        for _ in 0..20 {
            self.call("POST", &format!("/element/{id}/clear"), Some(json!({})));
            self.call(
                "POST",
                &format!("/element/{id}/value"),
                Some(json!({ "text": text })),
            );
            let v = self.call("GET", &format!("/element/{id}/property/value"), None);
            if v == json!(text) {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        panic!("could not type '{text}' into {css}");
    }

    fn script(&self, js: &str) -> Value {
        self.call(
            "POST",
            "/execute/sync",
            Some(json!({"script": js, "args": []})),
        )
    }

    /// A real pointer click on the board's cell (x, y).
    fn click_cell(&self, x: usize, y: usize) {
        let v = self.script(&format!(
            "const c = window.tengenBoard.cellCenter({x},{y}); const r = document.getElementById('board').getBoundingClientRect(); return [c.x - r.width/2, c.y - r.height/2];"
        ));
        let (dx, dy) = (
            v[0].as_f64().unwrap().round(),
            v[1].as_f64().unwrap().round(),
        );
        let board = self.el("#board");
        self.call("POST", "/actions", Some(json!({"actions": [{
            "type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"},
            "actions": [
                {"type": "pointerMove", "duration": 0, "origin": {ELEMENT: board}, "x": dx as i64, "y": dy as i64},
                {"type": "pointerDown", "button": 0},
                {"type": "pointerUp", "button": 0}
            ]
        }]})));
        self.call("DELETE", "/actions", None);
    }

    /// Waits until `f` holds (30 s at most), naming `what` if it never does.
    fn wait(&self, what: &str, f: impl Fn(&Browser) -> bool) {
        let t = Instant::now();
        while !f(self) {
            if t.elapsed() > Duration::from_secs(30) {
                let page = self.script(
                    "const s = window.tengenBoard.state; return JSON.stringify({rule: s.rule, size: s.size, moves: s.moves, cursor: s.cursor, forbidden: s.forbidden, error: document.getElementById('error').textContent, status: document.getElementById('status').textContent, pos: document.getElementById('pos').value});",
                );
                panic!("timed out waiting for {what}; the page: {page}");
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn moves(&self) -> Vec<String> {
        self.text("#movelist")
            .split_whitespace()
            .map(str::to_string)
            .collect()
    }

    fn screenshot(&self, path: &Path) {
        let v = self.call("GET", "/screenshot", None);
        let png = base64(v.as_str().expect("base64"));
        assert_eq!(&png[1..4], b"PNG");
        std::fs::write(path, png).expect("write screenshot");
        println!("screenshot: {}", path.display());
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        if !self.session.is_empty() {
            let _ = request(
                &self.addr,
                "DELETE",
                &format!("/session/{}", self.session),
                &[],
                b"",
            );
        }
        let _ = self.driver.kill();
        let _ = self.driver.wait();
        let _ = std::fs::remove_dir_all(&self._profile);
    }
}

fn base64(s: &str) -> Vec<u8> {
    let val = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        _ => 63,
    };
    let bytes: Vec<u8> = s
        .bytes()
        .filter(|c| c.is_ascii_alphanumeric() || *c == b'+' || *c == b'/')
        .collect();
    let mut out = Vec::with_capacity(bytes.len() * 3 / 4);
    for chunk in bytes.chunks(4) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |acc, (i, &c)| acc | (val(c) as u32) << (18 - 6 * i));
        out.extend_from_slice(&n.to_be_bytes()[1..chunk.len()]);
    }
    out
}

#[test]
fn the_board_works_in_a_real_browser() {
    let driver = find(&["/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver"]);
    let chrome = find(&[
        "/usr/bin/chromium",
        "/usr/bin/chromium-browser",
        "/usr/bin/google-chrome",
    ]);
    let (Some(driver), Some(chrome)) = (driver, chrome) else {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI is set but chromium and chromium-driver are not installed"
        );
        eprintln!("skipped the_board_works_in_a_real_browser: no chromium/chromedriver (apt install chromium chromium-driver)");
        return;
    };
    let t0 = Instant::now();
    // One searcher: a search the page does not stop would hold it, and
    // the solve after the analysis would be refused as busy.
    let server = Server::start(&["--searches", "1"]);
    let b = Browser::start(&driver, &chrome);
    // The screenshots' folder: absent where CARGO_TARGET_DIR builds elsewhere.
    let out = Path::new(env!("CARGO_MANIFEST_DIR")).join("target");
    std::fs::create_dir_all(&out).expect("screenshot folder");
    b.go(&server.url);
    b.wait("the page", |b| b.text("#status") == "Black to move");

    // A click puts a stone on the board.
    b.click_cell(7, 7);
    b.wait("h8 on the board", |b| b.moves() == ["h8"]);
    assert_eq!(b.text("#status"), "White to move");

    // The engine answers as white, without a reload.
    b.click("#mode option[value='engine-white']");
    b.wait("the engine's move", |b| b.moves().len() == 2);
    assert_eq!(b.text("#status"), "Black to move");
    assert!(
        b.text("#engine-status").starts_with("engine (white): "),
        "{}",
        b.text("#engine-status")
    );
    b.click("#mode option[value='two']");

    // Live analysis: depth and line appear and move on.
    b.click("#lines option[value='3']");
    b.click("#analyze");
    b.wait("an analysis at depth 3", |b| {
        b.text("#depth").parse::<i32>().unwrap_or(0) >= 3
    });
    let first = b.text("#depth").parse::<i32>().unwrap();
    assert!(b.text("#pv").starts_with("pv "), "{}", b.text("#pv"));
    b.wait("a deeper iteration", |b| {
        b.text("#depth")
            .split_whitespace()
            .next()
            .and_then(|d| d.parse::<i32>().ok())
            .unwrap_or(0)
            > first
    });
    b.wait("three candidate lines", |b| {
        b.text("#candidates").lines().count() == 3
    });
    b.screenshot(&out.join("serve-analysis.png"));
    b.click("#analyze");
    assert_eq!(b.text("#analyze"), "Start analysis");

    // A position pasted in the box.
    b.type_into("#pos", "h8i9h9i8h10");
    b.click("#load");
    b.wait("the pasted position", |b| b.moves().len() == 5);
    let url = b.call("GET", "/url", None);
    assert!(url.as_str().unwrap().contains("pos=h8i9h9i8h10"), "{url}");

    // A PSQ record opened through the file input.
    let psq = out.join("serve-test.psq");
    std::fs::write(&psq, "Piskvorky 15x15, 11:11, 0\n8,8,0\n9,8,0\n8,9,0\n").unwrap();
    let file = b.el("#file");
    b.call(
        "POST",
        &format!("/element/{file}/value"),
        Some(json!({"text": psq.display().to_string()})),
    );
    b.wait("the PSQ game", |b| b.moves() == ["h8", "i8", "h9"]);

    // An illegal move: the error shown, the position kept.
    b.click_cell(7, 7);
    b.wait("the error", |b| b.text("#error").contains("is on a stone"));
    assert_eq!(b.moves().len(), 3);

    // The threat solver's win, shown.
    b.type_into("#pos", "e5d5f5a1g5a15h7o15h8o1");
    b.click("#load");
    b.wait("the VCF position", |b| b.moves().len() == 10);
    b.click("#solve-mode option[value='vcf']");
    b.click("#solve");
    b.wait("the solver's line", |b| {
        b.text("#solve-result").contains("black wins by VCF")
    });

    // A renju position shows black's forbidden point; a game won shows it.
    b.click("#rule option[value='renju']");
    b.type_into("#pos", "f8a1g8a3h6a5h7a7");
    b.click("#load");
    b.wait("the forbidden point", |b| {
        b.script("return window.tengenBoard.state.forbidden.join(',')") == json!("h8")
    });
    b.screenshot(&out.join("serve-board.png"));
    b.type_into("#pos", "a1b1a2b2a3b3a4b4a5");
    b.click("#load");
    b.wait("the win", |b| b.text("#status").contains("Black wins"));
    let count = |b: &Browser| {
        b.script("return window.tengenBoard.state.cursor")
            .as_u64()
            .unwrap()
    };

    // Undo, redo and the walk through the game keep the moves.
    b.click("#undo");
    b.wait("a move back", |b| b.text("#status") == "Black to move");
    assert_eq!(count(&b), 8);
    b.click("#first");
    b.wait("the empty board", |b| count(b) == 0);
    b.click("#next");
    b.click("#next");
    b.wait("two moves on", |b| count(b) == 2);
    b.click("#last");
    b.wait("the last move", |b| count(b) == 9);
    assert_eq!(b.moves().len(), 9);

    // The evaluation graph of the whole game: a point each position.
    b.click("#graph-nodes option[value='5000']");
    b.click("#graph-run");
    b.wait("the graph", |b| {
        b.script("return window.tengenBoard.state.graph.filter(v => v !== undefined && v !== null).length")
            == json!(10)
    });

    // A PNG of the board, drawn by the page.
    let png = b.script("return document.getElementById('board').toDataURL('image/png').length");
    assert!(png.as_u64().unwrap() > 1000, "{png}");

    // A new game on another board.
    b.click("#size option[value='20']");
    b.wait("a 20x20 board", |b| {
        b.script("return window.tengenBoard.state.size") == json!(20) && b.moves().is_empty()
    });
    b.click_cell(19, 19);
    b.wait("t20 on the board", |b| b.moves() == ["t20"]);

    // A second tab keeps its own position.
    let first = b.call("GET", "/window", None);
    let tab = b.call("POST", "/window/new", Some(json!({"type": "tab"})));
    b.call("POST", "/window", Some(json!({"handle": tab["handle"]})));
    b.go(&format!("{}?rule=standard&size=15&pos=h8h9", server.url));
    b.wait("the second tab's position", |b| b.moves() == ["h8", "h9"]);
    b.call("POST", "/window", Some(json!({"handle": first})));
    assert_eq!(b.moves(), ["t20"]);
    println!("browser test: {:?}", t0.elapsed());
}
