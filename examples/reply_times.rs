//! Reply-time harness: how long an engine takes to answer, measured from
//! the write of the command to the read of the move, over many positions.
//! Timing belongs here, not in unit tests (a loaded machine fails those).
//!
//! ```text
//! cargo run --release --example reply_times -- [ENGINE] [--moves N]
//!     [--turn MS] [--match MS] [--left MS] [--rule R] [--seed S]
//! ```
//!
//! ENGINE defaults to `target/release/pbrain-tengen`. Each sample sets a
//! random position of 4 to 40 stones with BOARD and times the reply, after
//! `INFO timeout_turn`, `timeout_match` and `time_left` as given (turn 0 is
//! Gomocup's "play as fast as possible"). Prints the distribution and the
//! worst reply against the turn limit.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::time::{Duration, Instant};
use tengen::tournament::process::EngineProcess;
use tengen::tournament::referee::board_message;
use tengen::tournament::setup::EngineSpec;
use tengen::{Board, Pos, Rule};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut engine = "target/release/pbrain-tengen".to_string();
    let (mut moves, mut turn, mut matchms, mut left, mut rule, mut seed) =
        (50usize, 0u64, 0u64, 2_147_483_647i64, 0u32, 1u64);
    let mut i = 0;
    while i < args.len() {
        let v = args.get(i + 1).cloned().unwrap_or_default();
        let num = |s: &str| -> i64 {
            s.parse().unwrap_or_else(|_| {
                eprintln!("error: bad number '{s}'");
                std::process::exit(2)
            })
        };
        match args[i].as_str() {
            "--moves" => moves = num(&v) as usize,
            "--turn" => turn = num(&v) as u64,
            "--match" => matchms = num(&v) as u64,
            "--left" => left = num(&v),
            "--rule" => rule = num(&v) as u32,
            "--seed" => seed = num(&v) as u64,
            a if !a.starts_with("--") => {
                engine = a.to_string();
                i += 1;
                continue;
            }
            a => {
                eprintln!("error: unknown option {a}");
                std::process::exit(2)
            }
        }
        i += 2;
    }
    let board_rule = Rule::from_gomocup(rule);
    let spec = EngineSpec::parse(&engine).unwrap_or_else(|e| {
        eprintln!("error: {e}");
        std::process::exit(2)
    });
    let mut e = EngineProcess::spawn(&spec, None).unwrap_or_else(|err| {
        eprintln!("error: {err}");
        std::process::exit(2)
    });
    let far = || Instant::now() + Duration::from_secs(60);
    e.send("START 15").unwrap();
    assert_eq!(e.reply(far()).unwrap(), "OK");
    e.send(&format!(
        "INFO rule {rule}\nINFO timeout_turn {turn}\nINFO timeout_match {matchms}"
    ))
    .unwrap();
    let mut rng = StdRng::seed_from_u64(seed);
    let mut times = Vec::new();
    for _ in 0..moves {
        let mut b = Board::new(15, board_rule).unwrap();
        let stones = rng.gen_range(4..=40);
        while b.ply() < stones {
            let c: Vec<Pos> = b.candidates().iter().collect();
            let p = c[rng.gen_range(0..c.len())];
            b.make(p);
            if b.is_won() {
                b.unmake();
                break;
            }
        }
        let msg = format!("INFO time_left {left}\n{}", board_message(&b));
        let t = Instant::now();
        e.send(&msg).unwrap();
        let r = e.reply(far()).expect("a reply");
        times.push(t.elapsed());
        if tengen::protocol::command::parse_xy(&r).is_none() {
            eprintln!("not a move: {r}");
        }
    }
    e.quit();
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let at = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize];
    println!(
        "{} replies (turn {turn} ms, match {matchms} ms, time_left {left} ms): min {:.1} median {:.1} p95 {:.1} max {:.1} ms",
        times.len(),
        ms(times[0]),
        ms(at(0.5)),
        ms(at(0.95)),
        ms(*times.last().unwrap())
    );
    if turn > 0 {
        println!(
            "worst reply: {:.0}% of the turn limit",
            100.0 * ms(*times.last().unwrap()) / turn as f64
        );
    }
}
