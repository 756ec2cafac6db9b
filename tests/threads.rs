//! The parallel search through the real binary: many short two-thread
//! searches stopped at random moments, with TAKEBACK, BOARD and RESTART
//! between them. Every reply must be a legal move, nothing may panic or
//! hang, and END must end the process with every thread.

mod common;

use common::{parse_move, Engine};
use std::time::Duration;

const N: usize = 15;

struct Rng(u64);

impl Rng {
    fn next(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// Stones in the order played, with who played them (true: the engine).
#[derive(Default)]
struct Game {
    stones: Vec<(usize, usize, bool)>,
}

impl Game {
    fn empty(&self, x: usize, y: usize) -> bool {
        x < N && y < N && !self.stones.iter().any(|s| (s.0, s.1) == (x, y))
    }

    fn has_five(&self) -> bool {
        let at = |x: i64, y: i64, own: bool| {
            self.stones
                .iter()
                .any(|s| (s.0 as i64, s.1 as i64, s.2) == (x, y, own))
        };
        self.stones.iter().any(|&(x, y, own)| {
            [(1, 0), (0, 1), (1, 1), (1, -1)]
                .iter()
                .any(|&(dx, dy)| (0..5).all(|k| at(x as i64 + k * dx, y as i64 + k * dy, own)))
        })
    }

    /// A random empty cell near the centre.
    fn random_cell(&self, rng: &mut Rng) -> (usize, usize) {
        loop {
            let x = 3 + rng.next(9) as usize;
            let y = 3 + rng.next(9) as usize;
            if self.empty(x, y) {
                return (x, y);
            }
        }
    }

    /// Checks the engine's reply and plays it.
    fn engine_move(&mut self, reply: Option<String>, what: &str) {
        let reply = reply.unwrap_or_else(|| panic!("{what}: no reply (a hang?)"));
        let (x, y) = parse_move(&reply).unwrap_or_else(|| panic!("{what}: not a move: {reply}"));
        assert!(self.empty(x, y), "{what}: {x},{y} is not an empty cell");
        self.stones.push((x, y, true));
    }
}

#[test]
fn two_thread_searches_stopped_at_random_stay_legal() {
    let mut e = Engine::spawn();
    e.send("INFO thread_num 2");
    e.send("START 15");
    assert_eq!(e.reply(), "OK");
    e.send("INFO timeout_turn 10000");
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let mut g = Game::default();
    let long = Duration::from_secs(15);
    for round in 0..60 {
        if g.has_five() || g.stones.len() > 40 {
            e.send("RESTART");
            assert_eq!(e.reply(), "OK", "round {round}");
            g = Game::default();
        }
        match rng.next(4) {
            // A move stopped after a random few milliseconds.
            0 => {
                let (x, y) = g.random_cell(&mut rng);
                g.stones.push((x, y, false));
                e.send(&format!("TURN {x},{y}"));
                std::thread::sleep(Duration::from_millis(rng.next(40)));
                e.send("YXSTOP");
                g.engine_move(
                    e.reply_within(long),
                    &format!("round {round}, stopped turn"),
                );
            }
            // The last two stones taken back.
            1 => {
                for _ in 0..2 {
                    if let Some((x, y, _)) = g.stones.pop() {
                        e.send(&format!("TAKEBACK {x},{y}"));
                        assert_eq!(e.reply(), "OK", "round {round}");
                    }
                }
            }
            // The whole position sent again, engine to move, then stopped.
            2 => {
                e.send("BOARD");
                for &(x, y, own) in &g.stones {
                    e.send(&format!("{x},{y},{}", if own { 1 } else { 2 }));
                }
                e.send("DONE");
                std::thread::sleep(Duration::from_millis(rng.next(30)));
                e.send("YXSTOP");
                g.engine_move(e.reply_within(long), &format!("round {round}, BOARD"));
            }
            // A short timed move, left to end by the clock.
            _ => {
                let (x, y) = g.random_cell(&mut rng);
                g.stones.push((x, y, false));
                e.send(&format!("INFO timeout_turn {}", 20 + rng.next(60)));
                e.send(&format!("TURN {x},{y}"));
                g.engine_move(e.reply_within(long), &format!("round {round}, timed turn"));
                e.send("INFO timeout_turn 10000");
            }
        }
    }
    // END in the middle of a two-thread search ends the process.
    let (x, y) = g.random_cell(&mut rng);
    e.send(&format!("TURN {x},{y}"));
    std::thread::sleep(Duration::from_millis(50));
    e.send("END");
    assert!(e.exits_within(Duration::from_secs(3)), "END did not end it");
}

#[test]
fn thread_num_is_checked_and_a_bad_value_keeps_the_old() {
    let mut e = Engine::spawn();
    e.send("INFO thread_num 0");
    let r = e.reply();
    assert!(r.starts_with("ERROR") && r.contains("1 kept"), "{r}");
    e.send("INFO thread_num many");
    assert!(e.reply().starts_with("ERROR"));
    e.send("START 15");
    assert_eq!(e.reply(), "OK");
    e.send("INFO timeout_turn 100");
    e.send("BEGIN");
    // Every move ends with one summary line, then the move.
    let summary = e.raw_line_within(Duration::from_secs(5)).expect("a line");
    assert!(
        summary.starts_with("MESSAGE depth ")
            && summary.contains(" nodes ")
            && summary.contains(" pv"),
        "{summary}"
    );
    let mv = e.reply();
    assert!(parse_move(&mv).is_some(), "{mv}");
}

/// The process's peak resident memory, KiB (Linux).
fn peak_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

#[test]
fn two_threads_stay_under_max_memory() {
    let mut e = Engine::spawn();
    let limit: u64 = 350 << 20;
    e.send(&format!("INFO max_memory {limit}"));
    e.send("INFO thread_num 2");
    e.send("START 20");
    assert_eq!(e.reply(), "OK");
    // A long search of a middle game fills the table.
    e.send("INFO timeout_turn 1500");
    e.send("BOARD\n10,10,1\n11,11,2\n9,11,1\n10,12,2\n12,10,1\n8,12,2\nDONE");
    let mv = e.reply_within(Duration::from_secs(10)).expect("a move");
    assert!(parse_move(&mv).is_some(), "{mv}");
    let Some(kib) = peak_kib(e.pid()) else {
        eprintln!("no /proc: memory not measured");
        return;
    };
    assert!(
        kib * 1024 < limit,
        "peak {kib} KiB over the {limit}-byte limit"
    );
}
