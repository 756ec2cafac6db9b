//! The tactical suite (tests/tactics/suite.txt): positions where the side
//! to move has a forced win, under several rules. Every VCF position's win
//! is checked by replaying a VCF line on the board; the engine must find a
//! winning first move within a node budget of about a second, and the
//! defender, searched after that move, must be lost.
//!
//! `cargo test --release --test tactics -- --nocapture` prints the time
//! each position took to the first winning iteration.

use std::time::{Duration, Instant};
use tengen::pattern::Class;
use tengen::perft::position_from_moves;
use tengen::search::params::Params;
use tengen::search::{Limits, Searcher, WIN_MIN};
use tengen::{Board, Pos, Rule};

struct Case {
    rule: Rule,
    size: usize,
    moves: String,
    kind: String,
    note: String,
}

fn suite() -> Vec<Case> {
    let text = include_str!("tactics/suite.txt");
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (main, note) = l.split_once('#').unwrap_or((l, ""));
            let f: Vec<&str> = main.split_whitespace().collect();
            assert_eq!(f.len(), 4, "bad suite line {l}");
            Case {
                rule: f[0].parse().expect("rule"),
                size: f[1].parse().expect("size"),
                moves: f[2].to_string(),
                kind: f[3].to_string(),
                note: note.trim().to_string(),
            }
        })
        .collect()
}

/// Replays a VCF line: every attacker move leaves exactly one cell that
/// completes a five (the defender's only reply) or two (no reply), or a
/// block the defender may not play, and the line ends in a five or an open
/// four.
fn check_vcf_line(board: &mut Board, line: &[Pos]) -> Result<(), String> {
    let attacker = board.side_to_move();
    let defender = attacker.opposite();
    let start = board.ply();
    let mut result = Err("line ended without a win".to_string());
    let mut i = 0;
    while i < line.len() {
        let p = line[i];
        if board.makes_five(attacker, p) {
            board.make(p);
            result = board
                .is_won()
                .then_some(())
                .ok_or("five did not win".into());
            break;
        }
        if i + 1 == line.len() {
            result = (board.class(attacker, p) == Class::Flex4)
                .then_some(())
                .ok_or(format!("last move {p} is no open four"));
            break;
        }
        if !board.class(attacker, p).is_four() {
            result = Err(format!("{} is not a four", p.to_pos_string()));
            break;
        }
        board.make(p);
        let fives: Vec<Pos> = board
            .candidates()
            .iter()
            .filter(|&q| board.makes_five(attacker, q))
            .collect();
        let reply = line[i + 1];
        if fives.len() >= 2 {
            result = Ok(());
            break;
        }
        if fives != [reply] {
            result = Err(format!(
                "reply {} is not the only block {fives:?}",
                reply.to_pos_string()
            ));
            break;
        }
        if defender == tengen::Color::Black
            && board.rule() == Rule::Renju
            && board.is_forbidden(reply)
        {
            result = Ok(());
            break;
        }
        board.make(reply);
        i += 2;
    }
    while board.ply() > start {
        board.unmake();
    }
    result
}

#[test]
fn tactical_suite() {
    let cases = suite();
    assert!(cases.len() >= 20);
    let mut solved = 0;
    let mut worst = Duration::ZERO;
    let mut total = Duration::ZERO;
    for c in &cases {
        let mut board = position_from_moves(c.size, c.rule, &c.moves)
            .unwrap_or_else(|e| panic!("{} {}: {e}", c.rule, c.moves));
        let mut searcher = Searcher::new(Params::default(), 32 << 20);
        if c.kind == "vcf" {
            // The note may give the VCF's length ("N fours"); long ones
            // need a deeper search than the usual 40.
            let fours = c
                .note
                .split_once(" fours")
                .and_then(|(n, _)| n.trim().parse::<u32>().ok())
                .unwrap_or(0);
            let line = searcher
                .find_vcf(&mut board, fours.max(38) + 2, 20_000_000)
                .unwrap_or_else(|| panic!("{} {}: no VCF", c.rule, c.moves));
            check_vcf_line(&mut board, &line)
                .unwrap_or_else(|e| panic!("{} {}: {e}", c.rule, c.moves));
        }
        let start = Instant::now();
        let mut found_at = None;
        let r = searcher.search(&mut board, &Limits::nodes(3_000_000), |info| {
            if info.score >= WIN_MIN && found_at.is_none() {
                found_at = Some(start.elapsed());
            }
        });
        let best = r.best.expect("a move");
        let ok = r.score >= WIN_MIN;
        // The defender, after the engine's move, is lost.
        board.make(best);
        let mut defender = Searcher::new(Params::default(), 32 << 20);
        let d = defender.search(&mut board, &Limits::nodes(1_000_000), |_| {});
        board.unmake();
        let confirmed = board.makes_five(board.side_to_move(), best) || d.score <= -WIN_MIN;
        let t = found_at.unwrap_or(start.elapsed());
        println!(
            "{:<10} {}x{} {:<4} {:<6} {:>7.1} ms  {} {}",
            c.rule.name(),
            c.size,
            c.size,
            c.kind,
            if ok && confirmed { "solved" } else { "FAILED" },
            t.as_secs_f64() * 1000.0,
            best.to_pos_string(),
            c.note
        );
        if ok && confirmed {
            solved += 1;
            worst = worst.max(t);
            total += t;
        }
    }
    println!(
        "solved {solved}/{}, total {:.1} ms, slowest {:.1} ms",
        cases.len(),
        total.as_secs_f64() * 1000.0,
        worst.as_secs_f64() * 1000.0
    );
    assert_eq!(solved, cases.len());
}
