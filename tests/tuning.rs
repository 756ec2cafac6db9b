//! The tuning and testing tools through the real binary: `selfplay
//! --resume` (a stopped run goes on to the bytes of an unbroken one), `spsa` (bad
//! arguments, a short run, a resumed run that ends where an unbroken one
//! does, values the engine accepts) and `scripts/sprt.sh` (one A/B test on
//! fresh openings, resumed by running it again).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn bin() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_pbrain-tengen"))
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn temp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("tengen-tuning-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn spsa(dir: &Path, extra: &[&str]) -> Output {
    let book = root().join("openings/tengen_opengen_f15_tune.pos.txt");
    Command::new(bin())
        .arg("spsa")
        .args(["--params", "rfp_margin,razor_margin=60:0:300:10:0.05,width"])
        .arg("--openings")
        .arg(&book)
        .args(["--nodes", "400", "--pairs", "2", "--threads", "2"])
        .args(extra)
        .current_dir(dir)
        .env_remove("TENGEN_PARAMS")
        .env_remove("TENGEN_WEIGHTS")
        .output()
        .unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn spsa_refuses_bad_arguments_with_a_clear_error() {
    let dir = temp("bad");
    let book = root().join("openings/tengen_opengen_f15_tune.pos.txt");
    let book = book.to_str().unwrap();
    std::fs::write(dir.join("other.json"), "{\"tengen_spsa\": 1}").unwrap();
    for (args, why) in [
        (vec!["--params", "nope"], "unknown search parameter"),
        (vec!["--params", "width=99:1:100:1"], "may range"),
        (vec!["--params", "width=9:1:30"], "NAME=START:MIN:MAX:C_END"),
        (vec!["--params", "width,width"], "twice"),
        (vec!["--params", "width", "--iterations", "0"], "at least 1"),
        (vec!["--params", "width", "--size", "40"], "size"),
        (vec!["--params", "width", "--rule", "go"], "rule"),
        (
            vec!["--params", "width", "--openings", "/nonexistent"],
            "cannot read",
        ),
        (
            vec!["--params", "width", "--state", "none.json", "--resume"],
            "--resume",
        ),
        (
            vec!["--params", "width", "--state", "other.json", "--resume"],
            "another run",
        ),
    ] {
        let mut cmd = Command::new(bin());
        cmd.arg("spsa").args(&args).current_dir(&dir);
        if !args.contains(&"--openings") {
            cmd.args(["--openings", book]);
        }
        if !args.contains(&"--state") {
            cmd.args(["--state", "s.json"]);
        }
        let out = cmd.output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = text(&out.stderr);
        assert!(
            err.contains("error") && err.contains(why),
            "{args:?}: {err}"
        );
    }
    assert!(!dir.join("s.json").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn spsa_runs_logs_resumes_and_prints_values_the_engine_takes() {
    let dir = temp("run");
    let whole = spsa(
        &dir,
        &[
            "--state",
            "whole.json",
            "--iterations",
            "3",
            "--log",
            "w.log",
        ],
    );
    assert!(whole.status.success(), "{}", text(&whole.stderr));
    let values = text(&whole.stdout);
    let spec = values
        .trim()
        .strip_prefix("TENGEN_PARAMS=")
        .unwrap_or_else(|| panic!("{values}"));
    assert!(
        spec.starts_with("rfp_margin=") && spec.contains(",width="),
        "{spec}"
    );
    let log = std::fs::read_to_string(dir.join("w.log")).unwrap();
    assert!(log.starts_with("# spsa: "), "{log}");
    assert_eq!(log.lines().filter(|l| l.starts_with("iter ")).count(), 3);

    // A state file is not overwritten by a new run.
    let again = spsa(&dir, &["--state", "whole.json", "--iterations", "3"]);
    assert_eq!(again.status.code(), Some(2));
    assert!(text(&again.stderr).contains("--resume"));

    // Two iterations, then the third on resuming: the same state and
    // the same values.
    let part = spsa(
        &dir,
        &[
            "--state",
            "part.json",
            "--iterations",
            "3",
            "--stop-after",
            "2",
        ],
    );
    assert!(part.status.success(), "{}", text(&part.stderr));
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("part.json")).unwrap()).unwrap();
    assert_eq!(saved["iteration"], 2);
    let resumed = spsa(
        &dir,
        &["--state", "part.json", "--iterations", "3", "--resume"],
    );
    assert!(resumed.status.success(), "{}", text(&resumed.stderr));
    assert_eq!(text(&resumed.stdout), values);
    assert_eq!(
        std::fs::read_to_string(dir.join("whole.json")).unwrap(),
        std::fs::read_to_string(dir.join("part.json")).unwrap()
    );
    // Another run's state is refused.
    let other = spsa(
        &dir,
        &["--state", "whole.json", "--iterations", "5", "--resume"],
    );
    assert_eq!(other.status.code(), Some(2));
    assert!(text(&other.stderr).contains("another run"));

    // The engine takes the values.
    let bench = Command::new(bin())
        .args(["bench", "--depth", "2"])
        .env("TENGEN_PARAMS", spec)
        .output()
        .unwrap();
    assert!(bench.status.success(), "{}", text(&bench.stderr));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_sprt_script_plays_fresh_openings_and_resumes() {
    let dir = temp("sprt");
    let engine = bin().display().to_string();
    let run = |games: &str| {
        Command::new("bash")
            .arg(root().join("scripts/sprt.sh"))
            .arg("tuning-test")
            .arg(&engine)
            .arg(format!("env TENGEN_PARAMS=rfp_depth=6 {engine}"))
            .env("GAMES", games)
            .env("NODES", "1500")
            .env("OUT", &dir)
            .env("RUNNER", bin())
            .output()
            .unwrap()
    };
    let out = run("2");
    let err = text(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("test tuning-test, seed "), "{err}");
    let stdout = text(&out.stdout);
    assert!(stdout.contains("new vs base: games 2"), "{stdout}");
    assert!(stdout.contains("SPRT elo0 0 elo1 10"), "{stdout}");
    let json = std::fs::read_to_string(dir.join("tuning-test.json")).unwrap();
    assert!(json.contains("\"opening\""), "{json}");
    // Freestyle 15x15 has an outside-judged tuning part: half the
    // openings are its (issue 66), one of each book in turn.
    assert!(
        err.contains("book f15_tune mixed with rapfi_opengen_f15_tune"),
        "{err}"
    );
    // The two games played one opening, from one of the two books.
    let lines = |p: &Path| -> Vec<String> {
        std::fs::read_to_string(p)
            .unwrap()
            .lines()
            .filter(|l| !l.starts_with('#') && !l.is_empty())
            .map(String::from)
            .collect()
    };
    let mut books = lines(&root().join("openings/rapfi_opengen_f15_tune.pos.txt"));
    books.extend(lines(
        &root().join("openings/tengen_opengen_f15_tune.pos.txt"),
    ));
    let played: Vec<&str> = json
        .split("\"opening\": \"")
        .skip(1)
        .filter_map(|t| t.split('"').next())
        .collect();
    assert_eq!(played.len(), 2, "{json}");
    assert!(
        played.iter().all(|o| books.iter().any(|b| b == o)),
        "{played:?}"
    );
    // Run again: the finished games are kept, none replayed.
    let again = run("2");
    assert!(again.status.success(), "{}", text(&again.stderr));
    assert!(text(&again.stdout).contains("games 2"));
    // A rule with no development book is refused.
    let bad = Command::new("bash")
        .arg(root().join("scripts/sprt.sh"))
        .args(["x", "a", "b"])
        .env("RULE", "renju")
        .env("SIZE", "20")
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(text(&bad.stderr).contains("no development book"));
    let _ = std::fs::remove_dir_all(&dir);
}

fn selfplay(dir: &Path, out: &str, games: usize, extra: &[&str]) -> Output {
    let size = if extra.contains(&"--size") {
        &[][..]
    } else {
        &["--size", "9"][..]
    };
    let games = games.to_string();
    let mut args = vec!["selfplay"];
    args.extend(size);
    args.extend([
        "--nodes", "300", "--seed", "7", "--out", out, "--games", &games,
    ]);
    args.extend(extra);
    tengen(dir, &args)
}

/// The binary with `args`, run in `dir` with the shipped evaluation and
/// search constants (no `TENGEN_*` override from the caller's shell).
fn tengen(dir: &Path, args: &[&str]) -> Output {
    Command::new(bin())
        .args(args)
        .current_dir(dir)
        .env_remove("TENGEN_PARAMS")
        .env_remove("TENGEN_WEIGHTS")
        .env_remove("TENGEN_NET")
        .output()
        .unwrap()
}

#[test]
fn selfplay_resumes_a_stopped_run_to_the_bytes_of_an_unbroken_one() {
    let dir = temp("selfplay");
    let o = selfplay(&dir, "whole.bin", 6, &["--threads", "2"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let whole = std::fs::read(dir.join("whole.bin")).unwrap();
    // Stopped after three games, then resumed for six.
    let o = selfplay(&dir, "part.bin", 3, &["--threads", "1"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let o = selfplay(&dir, "part.bin", 6, &["--resume"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(
        text(&o.stdout).contains("(after 3 kept)"),
        "{}",
        text(&o.stdout)
    );
    assert_eq!(std::fs::read(dir.join("part.bin")).unwrap(), whole);
    // Killed in the middle of writing a game: that game is played again.
    std::fs::write(dir.join("cut.bin"), &whole[..whole.len() * 2 / 3]).unwrap();
    let o = selfplay(&dir, "cut.bin", 6, &["--resume"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(std::fs::read(dir.join("cut.bin")).unwrap(), whole);
    // Another rule's file, or fewer games than it holds: refused, untouched.
    for (extra, why) in [
        (&["--resume", "--rule", "renju"][..], "not renju on 9x9"),
        (&["--resume", "--size", "11"][..], "not freestyle on 11x11"),
    ] {
        let o = selfplay(&dir, "whole.bin", 6, extra);
        assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
        assert!(text(&o.stderr).contains(why), "{}", text(&o.stderr));
    }
    let o = selfplay(&dir, "whole.bin", 4, &["--resume"]);
    assert!(
        text(&o.stderr).contains("6 games already written"),
        "{}",
        text(&o.stderr)
    );
    assert_eq!(std::fs::read(dir.join("whole.bin")).unwrap(), whole);
    // Not a self-play file: a clear error, the file left as it was.
    std::fs::write(dir.join("other.bin"), b"hello world").unwrap();
    let o = selfplay(&dir, "other.bin", 6, &["--resume"]);
    assert!(
        text(&o.stderr).contains("not a tengen self-play file"),
        "{}",
        text(&o.stderr)
    );
    assert_eq!(
        std::fs::read(dir.join("other.bin")).unwrap(),
        b"hello world"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

fn label(dir: &Path, out: &str, extra: &[&str]) -> Output {
    let mut args = vec!["label", "--data", "games.bin", "--out", out];
    args.extend(["--every", "2", "--nodes", "300"]);
    args.extend(extra);
    tengen(dir, &args)
}

#[test]
fn label_writes_as_it_goes_and_resumes_to_the_text_of_an_unbroken_run() {
    let dir = temp("label");
    let o = selfplay(&dir, "games.bin", 4, &[]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let o = label(&dir, "whole.txt", &["--threads", "2"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let whole = std::fs::read_to_string(dir.join("whole.txt")).unwrap();
    let lines: Vec<&str> = whole.lines().collect();
    assert!(lines[0].starts_with("# tengen labels: --every 2 --offset 0 --nodes 300"));
    let labelled = lines[1..].iter().filter(|l| !l.starts_with('#')).count();
    assert!(labelled > 10, "{whole}");
    // Stopped with a third of the positions written and the next line cut
    // off: resumed, the file is what the unbroken run wrote.
    let k = lines.len() / 3;
    let mut cut = lines[..k].join("\n") + "\n";
    cut.push_str(&lines[k][..lines[k].len() / 2]);
    std::fs::write(dir.join("cut.txt"), &cut).unwrap();
    let o = label(&dir, "cut.txt", &["--resume", "--threads", "1"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(
        text(&o.stderr).contains(&format!(
            "label: {} of {} positions already",
            k - 1,
            lines.len() - 1
        )),
        "{}",
        text(&o.stderr)
    );
    assert_eq!(std::fs::read_to_string(dir.join("cut.txt")).unwrap(), whole);
    // Another command's file: refused, left as it was.
    let other = whole.replacen("--every 2", "--every 3", 1);
    std::fs::write(dir.join("other.txt"), &other).unwrap();
    let o = label(&dir, "other.txt", &["--resume"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    assert!(text(&o.stderr).contains("not written by this command"));
    assert_eq!(
        std::fs::read_to_string(dir.join("other.txt")).unwrap(),
        other
    );
    // The move-ordering fit reads the file, its comment lines skipped.
    let o = tengen(
        &dir,
        &[
            "tune",
            "--policy",
            "whole.txt",
            "--epochs",
            "1",
            "--out",
            "w.txt",
        ],
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(dir.join("w.txt").exists());
    let _ = std::fs::remove_dir_all(&dir);
}
