//! `pbrain-tengen match` through the binary: a self-play match with its
//! records, and matches against small faulty engines (crash, hang, illegal
//! move, too slow) that must lose with the right reason while the runner
//! goes on.

mod common;

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_pbrain-tengen");

/// This test's scratch folder (removed when it passes).
fn scratch(name: &str) -> common::Scratch {
    common::Scratch::new("tengen-match", name)
}

/// A bash Gomocup engine: `on_move` runs whenever a move is asked for.
fn script_engine(dir: &Path, name: &str, on_move: &str) -> String {
    let path = dir.join(name);
    let body = format!(
        r#"#!/usr/bin/env bash
n=0
while IFS= read -r line; do
  line="${{line%$'\r'}}"
  case "${{line%% *}}" in
    START|RESTART) echo OK ;;
    ABOUT) echo 'name="{name}", version="1", author="test", country="test"' ;;
    END) exit 0 ;;
    BEGIN|TURN) n=$((n+1)); {on_move} ;;
    BOARD) while IFS= read -r l; do l="${{l%$'\r'}}"; [ "$l" = DONE ] && break; done; n=$((n+1)); {on_move} ;;
  esac
done
"#
    );
    fs::write(&path, body).unwrap();
    fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
    path.to_string_lossy().into_owned()
}

fn run_match(args: &[&str]) -> (bool, String, String, Duration) {
    let t = Instant::now();
    let out = Command::new(BIN)
        .arg("match")
        .args(args)
        .output()
        .expect("run match");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        t.elapsed(),
    )
}

/// tengen against `engine`, two games at 100 ms a move, results in `json`.
fn two_games_against(
    engine: &str,
    json: &Path,
    extra: &[&str],
) -> (bool, String, String, Duration) {
    let mut args = vec![
        "--engine",
        BIN,
        "--engine",
        engine,
        "--games",
        "2",
        "--tc",
        "100ms",
        "--json",
        json.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    run_match(&args)
}

#[test]
fn self_play_match_with_records() {
    let d = scratch("self");
    let psq = d.join("psq");
    let sgf = d.join("all.sgf");
    let json = d.join("out.json");
    let book = d.join("book.txt");
    // CRLF and no final newline, both notations.
    fs::write(&book, "0,0, 1,0, 1,3\r\nh8i9j8\r\n0,0, 1,1").unwrap();
    let (ok, out, err, _) = run_match(&[
        "--engine",
        BIN,
        "--engine",
        &format!("name=second,cmd={BIN}"),
        "--games",
        "4",
        "--tc",
        "100ms",
        "--concurrency",
        "2",
        "--openings",
        book.to_str().unwrap(),
        "--order",
        "random",
        "--seed",
        "3",
        "--transform",
        "--psq",
        psq.to_str().unwrap(),
        "--sgf",
        sgf.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    assert!(out.contains("tengen vs second: games 4"), "{out}");
    assert!(out.contains("pentanomial"), "{out}");
    let files: Vec<_> = fs::read_dir(&psq).unwrap().collect();
    assert_eq!(files.len(), 4);
    let game1 = fs::read_to_string(psq.join("game00001.psq")).unwrap();
    let lines: Vec<&str> = game1.lines().collect();
    assert_eq!(lines[0], "Piskvorky 15x15, 11:11, 0");
    // Moves: 1-based coordinates, then the two names and a result code.
    let n = lines.len();
    assert!(["0", "1", "2"].contains(&lines[n - 1]));
    assert!(lines[n - 3] == "tengen" || lines[n - 3] == "second");
    for l in &lines[1..n - 3] {
        let f: Vec<u32> = l.split(',').map(|v| v.parse().unwrap()).collect();
        assert!(
            f.len() == 3 && (1..=15).contains(&f[0]) && (1..=15).contains(&f[1]),
            "{l}"
        );
    }
    let sgf_text = fs::read_to_string(&sgf).unwrap();
    assert_eq!(sgf_text.matches("(;GM[4]").count(), 4);
    let j = fs::read_to_string(&json).unwrap();
    for key in [
        "\"wins\"",
        "\"losses\"",
        "\"draws\"",
        "\"elo\"",
        "\"elo_error\"",
        "\"los\"",
        "\"pentanomial\"",
        "\"sprt\"",
        "\"games\"",
        "\"reason\"",
        "\"plies\"",
        "\"moves\"",
    ] {
        assert!(j.contains(key), "{key} missing in {j}");
    }
    assert_eq!(j.matches("\"number\"").count(), 4);
}

#[test]
fn faulty_engines_lose_with_the_right_reason() {
    let d = scratch("faulty");
    let cases = [
        ("crasher", "exit 3", "crashed"),
        ("hanger", "sleep 30", "no move within"),
        ("illegal", "echo 99,99", "illegal move 99,99"),
        ("slowpoke", "sleep 0.6; echo 0,$n", "no move within"),
        // Lines that are not replies are skipped, as other managers do:
        // an engine that only talks runs out of time.
        ("babbler", "echo 'I resign'", "no move within"),
        ("refuser", "echo 'ERROR cannot move'", "protocol error"),
    ];
    for (name, on_move, reason) in cases {
        let engine = script_engine(&d, name, on_move);
        let json = d.join(format!("{name}.json"));
        let (ok, out, err, _) = two_games_against(&engine, &json, &["--tolerance", "200"]);
        assert!(ok, "{name}: {err}");
        assert!(out.contains("+2 -0 =0"), "{name}: {out}");
        let j = fs::read_to_string(&json).unwrap();
        assert_eq!(j.matches(reason).count(), 2, "{name}: {j}");
    }
}

/// An engine that prints its own search lines on stdout before each move
/// (as PentaZen does) and answers ABOUT with spaces around `=` (as Wine
/// does) plays normal games under its ABOUT name.
#[test]
fn chatty_engines_play_normally() {
    let d = scratch("chatter");
    let path = d.join("chatter");
    let body = r#"#!/usr/bin/env bash
declare -A used
play() {
  echo 'ev +v13 nd 503 tm 2 sp 251'
  echo 'MESSAGE thinking'
  for ((i = 0; i < 225; i++)); do
    x=$((i % 15)); y=$((i / 15))
    if [ -z "${used[$x,$y]}" ]; then used[$x,$y]=1; echo "$x,$y"; return; fi
  done
}
while IFS= read -r line; do
  line="${line%$'
'}"
  case "${line%% *}" in
    START|RESTART) used=(); echo 'depth 1 score 0'; echo OK ;;
    ABOUT) echo 'name = "Chatter", version ="2.1", author = "test"' ;;
    END) exit 0 ;;
    BEGIN) play ;;
    TURN) m="${line#TURN }"; used[${m// /}]=1; play ;;
    BOARD) while IFS= read -r l; do l="${l%$'
'}"; [ "$l" = DONE ] && break; used[${l%,*}]=1; done; play ;;
  esac
done
"#;
    fs::write(&path, body).unwrap();
    fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
    let json = d.join("c.json");
    let (ok, out, err, _) = two_games_against(path.to_str().unwrap(), &json, &[]);
    assert!(ok, "{err}");
    let j = fs::read_to_string(&json).unwrap();
    assert!(j.contains("\"Chatter\""), "{j}");
    assert_eq!(j.matches("five in a row").count(), 2, "{out}\n{j}");
}

#[test]
fn sprt_stops_early_and_bad_options_fail() {
    let d = scratch("sprt");
    let engine = script_engine(&d, "illegal", "echo 99,99");
    let json = d.join("s.json");
    let again = d.join("again.json");
    let test = |extra: &[&str]| {
        let mut a = vec![
            "--engine",
            BIN,
            "--engine",
            &engine,
            "--games",
            "200",
            "--tc",
            "100ms",
            "--sprt",
            "elo0=0,elo1=200",
        ];
        a.extend_from_slice(extra);
        run_match(&a)
    };
    let (ok, out, err, _) = test(&["--json", json.to_str().unwrap()]);
    assert!(ok, "{err}");
    assert!(out.contains("H1 accepted"), "{out}");
    let j = fs::read_to_string(&json).unwrap();
    let games = j.matches("\"number\"").count();
    assert!(games < 200, "SPRT should stop early, played {games}");
    assert!(j.contains("\"decided_at\": "), "{j}");
    // Resuming a test that stopped plays nothing more and keeps its verdict.
    let (ok, out, err, _) = test(&[
        "--resume",
        json.to_str().unwrap(),
        "--json",
        again.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    assert!(out.contains("H1 accepted"), "{out}");
    let j2 = fs::read_to_string(&again).unwrap();
    assert_eq!(j2.matches("\"number\"").count(), games, "{out}");
    for bad in [
        vec!["--engine", BIN],
        vec!["--engine", BIN, "--engine", BIN, "--tc", "100"],
        vec!["--engine", BIN, "--engine", BIN, "--size", "30"],
        vec!["--engine", BIN, "--engine", BIN, "--rule", "go"],
        vec!["--engine", BIN, "--engine", BIN, "--sprt", "elo0=5,elo1=1"],
        vec![
            "--engine",
            BIN,
            "--engine",
            BIN,
            "--openings",
            "/nonexistent/book",
        ],
        vec!["--engine", BIN, "--engine", BIN, "--order", "sideways"],
    ] {
        let (ok, out, err, _) = run_match(&bad);
        assert!(!ok, "{bad:?} should fail");
        assert!(
            out.is_empty() && !err.contains("panicked"),
            "{bad:?}: {err}"
        );
    }
}

/// An engine that plays a fixed list of moves, one per request.
fn scripted(dir: &Path, name: &str, moves: &[(u32, u32)]) -> String {
    let list: Vec<String> = moves.iter().map(|(x, y)| format!("{x},{y}")).collect();
    script_engine(
        dir,
        name,
        &format!("m=({}); echo \"${{m[$((n-1))]}}\"", list.join(" ")),
    )
}

/// Plays one game of two scripted engines under `rule` and returns the
/// JSON summary (the first engine is black in game 1).
fn scripted_game(rule: &str, black: &[(u32, u32)], white: &[(u32, u32)], tag: &str) -> String {
    let d = scratch(&format!("ref-{tag}-{rule}"));
    let b = scripted(&d, "black", black);
    let w = scripted(&d, "white", white);
    let json = d.join("g.json");
    let (ok, _, err, _) = run_match(&[
        "--engine",
        &b,
        "--engine",
        &w,
        "--games",
        "1",
        "--tc",
        "1s",
        "--rule",
        rule,
        "--draw-after",
        "20",
        "--json",
        json.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    fs::read_to_string(json).unwrap()
}

#[test]
fn referee_under_each_rule() {
    // White plays far away in the corner column.
    let white: Vec<(u32, u32)> = (0..10).map(|i| (0, i)).collect();
    let white_gaps = [
        (14, 0),
        (14, 2),
        (14, 4),
        (14, 6),
        (14, 8),
        (14, 10),
        (14, 12),
        (14, 14),
        (12, 0),
        (12, 2),
    ];
    // Black fills 2,3,4,6,7 then 5 on row 7: an overline.
    let overline = [
        (2, 7),
        (3, 7),
        (4, 7),
        (6, 7),
        (7, 7),
        (5, 7),
        (10, 12),
        (11, 13),
        (12, 14),
        (10, 14),
    ];
    let j = scripted_game("freestyle", &overline, &white_gaps, "ol");
    assert!(
        j.contains("\"result\": \"1-0\"") && j.contains("five in a row"),
        "{j}"
    );
    for rule in ["standard", "caro-exact"] {
        let j = scripted_game(rule, &overline, &white_gaps, "ol");
        assert!(
            j.contains("\"result\": \"1/2-1/2\"") && j.contains("move limit"),
            "{rule}: {j}"
        );
    }
    // Renju: the overline is a forbidden move for black.
    let j = scripted_game("renju", &overline, &white_gaps, "ol");
    assert!(
        j.contains("\"result\": \"0-1\"") && j.contains("forbidden move 5,7"),
        "{j}"
    );
    // Renju: a double three at 7,7 loses; the same moves are fine in freestyle.
    let d3 = [
        (5, 7),
        (6, 7),
        (7, 5),
        (7, 6),
        (7, 7),
        (12, 12),
        (13, 12),
        (12, 13),
        (10, 10),
        (3, 12),
    ];
    let j = scripted_game("renju", &d3, &white, "d3");
    assert!(j.contains("forbidden move 7,7"), "{j}");
    let j = scripted_game("freestyle", &d3, &white, "d3");
    assert!(!j.contains("forbidden"), "{j}");
    // Caro: a five closed by white at both ends does not win; freestyle it does.
    let white_blocks = [
        (2, 7),
        (8, 7),
        (0, 0),
        (0, 2),
        (0, 4),
        (0, 6),
        (0, 8),
        (0, 10),
        (0, 12),
        (0, 14),
    ];
    let five = [
        (3, 7),
        (4, 7),
        (5, 7),
        (6, 7),
        (7, 7),
        (10, 12),
        (11, 13),
        (12, 14),
        (10, 14),
        (13, 10),
    ];
    let j = scripted_game("caro", &five, &white_blocks, "caro");
    assert!(j.contains("\"result\": \"1/2-1/2\""), "{j}");
    let j = scripted_game("freestyle", &five, &white_blocks, "caro");
    assert!(j.contains("\"result\": \"1-0\""), "{j}");
    // A move on a stone loses.
    let j = scripted_game("freestyle", &[(7, 7), (0, 0)], &white, "taken");
    assert!(j.contains("illegal move 0,0: occupied"), "{j}");
}

#[test]
fn ctrl_c_keeps_finished_games() {
    let d = scratch("sigint");
    let json = d.join("i.json");
    let psq = d.join("psq");
    let child = Command::new(BIN)
        .args([
            "match",
            "--engine",
            BIN,
            "--engine",
            &format!("name=b,cmd={BIN}"),
            "--games",
            "200",
            "--tc",
            "30ms",
        ])
        .args([
            "--json",
            json.to_str().unwrap(),
            "--psq",
            psq.to_str().unwrap(),
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Let a few games finish, then interrupt.
    let start = Instant::now();
    while fs::read_dir(&psq).map(|r| r.count()).unwrap_or(0) < 2
        && start.elapsed() < Duration::from_secs(30)
    {
        std::thread::sleep(Duration::from_millis(50));
    }
    let ok = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(ok.success());
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("interrupted"), "{text}");
    assert!(text.contains("tengen vs b"), "{text}");
    let j = fs::read_to_string(&json).unwrap();
    assert!(j.contains("\"interrupted\": true"), "{j}");
    let games = j.matches("\"number\"").count();
    assert!((2..200).contains(&games), "{games} games kept");
}

/// Rows of a results file that must agree between runs of the same games:
/// every game (number, colours, moves, result, reason).
fn games_of(json: &Path) -> Vec<String> {
    let text = fs::read_to_string(json).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            format!(
                "{} {} {} {} {} {}",
                g["number"], g["black"], g["white"], g["moves"], g["result"], g["reason"]
            )
        })
        .collect()
}

/// The summary lines that depend on the games only (not the clock).
fn stats_lines(out: &str) -> Vec<String> {
    out.lines()
        .filter(|l| !l.starts_with("time "))
        .map(str::to_string)
        .collect()
}

/// Asserts a finished command succeeded, showing its stderr if not.
fn succeeded(out: &std::process::Output) {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A node-limited self-play match played whole, as 4 shards started by
/// GNU parallel (or directly when it is not installed) and merged, and
/// interrupted and resumed: the same games, the same summary.
#[test]
fn shards_merged_and_resumed_equal_the_whole_match() {
    let d = scratch("shards");
    let book = d.join("book.txt");
    fs::write(&book, "h8i9\nh8h9\nh8i8\nh8j10\nh8g7j9\n").unwrap();
    let base: Vec<String> = [
        "--engine",
        BIN,
        "--engine",
        &format!("name=other,cmd={BIN}"),
        "--games",
        "8",
        "--nodes",
        "2000",
        "--tc",
        "10s",
        "--openings",
        book.to_str().unwrap(),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let args = |extra: &[String]| -> Vec<String> { base.iter().chain(extra).cloned().collect() };
    let full = d.join("full.json");
    let (ok, full_out, err, _) = {
        let a = args(&["--json".into(), full.to_string_lossy().into()]);
        run_match(&a.iter().map(String::as_str).collect::<Vec<_>>())
    };
    assert!(ok, "{err}");

    // Four shards.
    let shard_file = |k: usize| d.join(format!("shard{k}.json"));
    let have_parallel = Command::new("parallel").arg("--version").output().is_ok();
    if have_parallel {
        let cmd = format!(
            "{BIN} match {} --shard {{}}/4 --json {}/shard{{}}.json",
            base.iter()
                .map(|a| format!("'{a}'"))
                .collect::<Vec<_>>()
                .join(" "),
            d.display()
        );
        let out = Command::new("parallel")
            .args(["--will-cite", "-j", "2", &cmd, ":::", "1", "2", "3", "4"])
            .output()
            .unwrap();
        succeeded(&out);
    } else {
        eprintln!("note: GNU parallel is not installed: shards started directly");
        for k in 1..=4 {
            let a = args(&[
                "--shard".into(),
                format!("{k}/4"),
                "--json".into(),
                shard_file(k).to_string_lossy().into(),
            ]);
            let (ok, _, err, _) = run_match(&a.iter().map(String::as_str).collect::<Vec<_>>());
            assert!(ok, "{err}");
        }
    }
    let mut shard_games = 0;
    for k in 1..=4 {
        let g = games_of(&shard_file(k));
        assert_eq!(g.len(), 2, "shard {k}: one colour-swapped pair");
        shard_games += g.len();
    }
    assert_eq!(shard_games, 8);
    let merged = d.join("merged.json");
    let out = Command::new(BIN)
        .arg("merge")
        .args((1..=4).map(shard_file))
        .arg("--json")
        .arg(&merged)
        .output()
        .unwrap();
    succeeded(&out);
    let merged_out = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(games_of(&merged), games_of(&full));
    assert_eq!(stats_lines(&merged_out), stats_lines(&full_out));

    // Interrupted after 3 games (the first 3 of the whole run's file),
    // then resumed: the rest are played, the summary is the whole one.
    let text = fs::read_to_string(&full).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["games"].as_array_mut().unwrap().truncate(3);
    v["interrupted"] = serde_json::Value::Bool(true);
    let part = d.join("part.json");
    fs::write(&part, v.to_string()).unwrap();
    // `from` resumed into `to` with the whole run's options: the whole
    // run, game for game and in its summary.
    let resumed_is_whole = |from: &Path, to: &Path| {
        let a = args(&[
            "--resume".into(),
            from.to_string_lossy().into(),
            "--json".into(),
            to.to_string_lossy().into(),
        ]);
        let (ok, out, err, _) = run_match(&a.iter().map(String::as_str).collect::<Vec<_>>());
        assert!(ok, "{err}");
        assert_eq!(games_of(to), games_of(&full));
        assert_eq!(stats_lines(&out), stats_lines(&full_out));
    };
    resumed_is_whole(&part, &d.join("resumed.json"));

    // A match of 4 games, resumed as one of 8 (a test that ran out of
    // games goes on): the 8-game match, game for game.
    let with_games = |n: &str, extra: &[String]| -> Vec<String> {
        let mut a = args(extra);
        let i = a.iter().position(|s| s == "--games").unwrap();
        a[i + 1] = n.into();
        a
    };
    let short = d.join("short.json");
    let a = with_games("4", &["--json".into(), short.to_string_lossy().into()]);
    let (ok, _, err, _) = run_match(&a.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(ok, "{err}");
    assert_eq!(games_of(&short).len(), 4);
    resumed_is_whole(&short, &d.join("longer.json"));
    // Fewer games than the record holds is another match.
    let a = with_games("2", &["--resume".into(), short.to_string_lossy().into()]);
    let (ok, _, err, _) = run_match(&a.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(!ok && err.contains("holds another match"), "{err}");

    // Overlapping or mismatched parts are errors.
    let twice = Command::new(BIN)
        .args(["merge"])
        .arg(shard_file(1))
        .arg(shard_file(1))
        .output()
        .unwrap();
    assert_eq!(twice.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&twice.stderr).contains("twice"));
    let mixed = Command::new(BIN)
        .args(["merge"])
        .arg(&full)
        .arg(shard_file(2))
        .output()
        .unwrap();
    assert_eq!(mixed.status.code(), Some(2));
    let mut other = base.clone();
    let i = other.iter().position(|a| a == "2000").unwrap();
    other[i] = "2001".into();
    let a: Vec<String> = other
        .into_iter()
        .chain(["--resume".to_string(), part.to_string_lossy().into()])
        .collect();
    let (ok, _, err, _) = run_match(&a.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(!ok && err.contains("another match"), "{err}");
    let bad = Command::new(BIN)
        .args(["merge"])
        .arg(&book)
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("error:"));
    for s in ["0/4", "5/4", "x", "1/0"] {
        let a = args(&["--shard".into(), s.into()]);
        let (ok, _, err, _) = run_match(&a.iter().map(String::as_str).collect::<Vec<_>>());
        assert!(!ok && err.contains("--shard"), "{s}: {err}");
    }
}

#[test]
fn an_engine_given_threads_is_sent_thread_num_at_every_game() {
    let d = scratch("threads");
    let logs = d.join("logs");
    let (ok, out, err, _) = run_match(&[
        "--engine",
        &format!("name=two,threads=2,cmd={BIN}"),
        "--engine",
        &format!("name=one,cmd={BIN}"),
        "--games",
        "2",
        "--nodes",
        "2000",
        "--tc",
        "5s",
        "--log",
        logs.to_str().unwrap(),
    ]);
    assert!(ok, "{out}\n{err}");
    let mut sent = (0, 0);
    for f in fs::read_dir(&logs).unwrap() {
        let path = f.unwrap().path();
        let text = fs::read_to_string(&path).unwrap();
        let n = text.matches("INFO thread_num 2").count();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        // Logs are named by the engine's place on the command line.
        if name.starts_with("engine1-") {
            sent.0 += n;
        } else {
            sent.1 += n;
        }
    }
    assert_eq!(sent, (2, 0), "thread_num sent per game to 'two' only");
    let (ok, _, err, _) =
        run_match(&["--engine", &format!("threads=0,cmd={BIN}"), "--engine", BIN]);
    assert!(!ok && err.contains("threads=0"), "{err}");
}
