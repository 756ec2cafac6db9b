//! `pbrain-tengen bench` through the binary: the node total equals an
//! in-process run of the same bench, and bad options fail cleanly.

use std::process::Command;
use tengen::bench::{run, BenchLimit, POSITIONS};

fn bench(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_pbrain-tengen"))
        .arg("bench")
        .args(args)
        .output()
        .expect("run pbrain-tengen bench")
}

#[test]
fn binary_and_library_agree_on_the_node_count() {
    let out = bench(&["--depth", "6"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), POSITIONS.len() + 2, "{text}");
    assert!(lines[POSITIONS.len()].starts_with("make+unmake: "));
    let last: Vec<&str> = lines.last().unwrap().split(' ').collect();
    assert_eq!(last.len(), 4);
    assert_eq!((last[1], last[3]), ("nodes", "nps"));
    let nodes: u64 = last[0].parse().unwrap();
    let mut sink = Vec::new();
    let totals = run(POSITIONS, BenchLimit::Depth(6), &mut sink).unwrap();
    assert_eq!(nodes, totals.nodes);
    for (i, line) in lines[..POSITIONS.len()].iter().enumerate() {
        assert!(
            line.starts_with(&format!("position {:2} ", i + 1)),
            "{line}"
        );
        assert!(
            line.contains(" depth  6 ") || line.contains(" score "),
            "{line}"
        );
    }
}

#[test]
fn movetime_reports_depth_reached() {
    let out = bench(&["--movetime", "50"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("average depth "), "{text}");
    assert!(text.lines().last().unwrap().ends_with(" nps"));
}

#[test]
fn bad_options_fail() {
    for args in [
        &["--depth", "0"][..],
        &["--depth", "x"],
        &["--movetime", "0"],
        &["--depth", "3", "--movetime", "5"],
    ] {
        let out = bench(args);
        assert!(!out.status.success(), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
        assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"));
    }
}

/// The node total of `bench --depth 4` with `TENGEN_NET` set to `net`.
fn nodes_with_net(net: &std::ffi::OsStr) -> Result<u64, String> {
    let out = Command::new(env!("CARGO_BIN_EXE_pbrain-tengen"))
        .args(["bench", "--depth", "4"])
        .env("TENGEN_NET", net)
        .output()
        .expect("run pbrain-tengen bench");
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    let text = String::from_utf8(out.stdout).unwrap();
    let last = text.lines().last().unwrap_or("");
    Ok(last.split(' ').next().unwrap().parse().unwrap())
}

#[test]
fn the_network_comes_from_tengen_net() {
    use tengen::eval::net::Net;
    use tengen::Rule;
    let dir = std::env::temp_dir().join(format!("tengen-cli-net-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("net.txt");
    std::fs::write(&file, Net::random(Rule::Freestyle, 7).to_text()).unwrap();
    // `none`: the tables alone, as the library's bench without a network.
    let tables = nodes_with_net("none".as_ref()).unwrap();
    let mut sink = Vec::new();
    let eval = tengen::eval::Evaluator::shipped().without_nets();
    let searcher = tengen::search::Searcher::with_eval(
        tengen::search::params::Params::default(),
        eval,
        tengen::bench::HASH_BYTES,
    );
    let sets = tengen::search::tuned::ParamSets::default();
    let lib = tengen::bench::run_with(POSITIONS, BenchLimit::Depth(4), &sets, searcher, &mut sink)
        .unwrap();
    assert_eq!(tables, lib.nodes);
    // A network file changes the search, the same way every time.
    let with = nodes_with_net(file.as_os_str()).unwrap();
    assert_ne!(with, tables);
    assert_eq!(nodes_with_net(file.as_os_str()).unwrap(), with);
    // A bad file: a clear error, no bench.
    let missing = dir.join("missing.txt");
    let e = nodes_with_net(missing.as_os_str()).unwrap_err();
    assert!(e.contains("TENGEN_NET") && e.contains("missing.txt"), "{e}");
    std::fs::write(&file, "tengen-net 1\nrule freestyle\n").unwrap();
    let e = nodes_with_net(file.as_os_str()).unwrap_err();
    assert!(e.contains("TENGEN_NET") && e.contains("features"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_time_to_depth_run_searches_the_held_out_positions_on_every_thread_count() {
    let out = bench(&["--ttd", "--depth", "4", "--threads", "2"]);
    let text = String::from_utf8(out.stdout).unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    if std::thread::available_parallelism().map_or(1, |n| n.get()) < 2 {
        // One core: two threads are not to be had, and it says so.
        assert!(!out.status.success());
        assert!(err.contains("--ttd needs 2 threads or more"), "{err}");
        return;
    }
    assert!(out.status.success(), "{err}");
    let positions = tengen::bench::ttd_positions();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), positions.len() + 2, "{text}");
    for (i, (line, p)) in lines.iter().zip(&positions).enumerate() {
        assert!(
            line.starts_with(&format!("position {:2} {:<10} ", i + 1, p.rule.name())),
            "{line}"
        );
        assert!(
            line.contains(" 1 thread ") && line.contains(" 2 threads "),
            "{line}"
        );
    }
    let summary = lines[positions.len()];
    assert!(
        summary.starts_with("time to depth 4, 2 threads against 1: median speed-up "),
        "{summary}"
    );
    assert!(lines.last().unwrap().ends_with(" nps"));
    // Bad depths are refused.
    let bad = bench(&["--ttd", "--depth", "0"]);
    assert!(!bad.status.success());
}
