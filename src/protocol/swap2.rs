//! Swap2 opening decisions, made from the engine's own evaluation.
//!
//! With no stones we propose the three-stone opening whose search score is
//! closest to even; with three we take black (`SWAP`) when black is clearly
//! better, play white when white is clearly better, and otherwise add two
//! stones (white's best move and black's best answer) to leave the choice
//! balanced; with five we take black when black is better, else play white.

use crate::engine::Engine;
use crate::search::Limits;
use crate::types::{Color, Pos};
use std::time::{Duration, Instant};

/// Scores within this margin count as balanced.
const BALANCED: i32 = 150;

/// Three-stone openings tried with no stones, as offsets from the centre
/// (black, white, black); [`SMALL_OPENINGS`] on a board too small for
/// all of them.
const OPENINGS: [[(i32, i32); 3]; 6] = [
    [(0, 0), (1, 0), (1, 3)],
    [(0, 0), (1, 1), (0, 3)],
    [(0, 0), (1, 0), (0, 3)],
    [(0, 0), (1, 1), (1, 3)],
    [(0, 0), (1, 0), (3, 0)],
    [(0, 0), (1, 1), (3, 3)],
];

/// Openings that fit every board from 5x5 up.
const SMALL_OPENINGS: [[(i32, i32); 3]; 2] = [[(0, 0), (1, 0), (0, 1)], [(0, 0), (1, 1), (-1, 1)]];

/// The cells of `shape` around the centre of a `w` x `h` board, if they fit.
fn cells_of(shape: &[(i32, i32); 3], w: i32, h: i32) -> Option<Vec<Pos>> {
    shape
        .iter()
        .map(|&(dx, dy)| {
            let (x, y) = (w / 2 + dx, h / 2 + dy);
            (x >= 0 && y >= 0 && x < w && y < h).then(|| Pos::new(x as usize, y as usize))
        })
        .collect()
}

fn limits(engine: &Engine, at: Instant, parts: u32) -> Limits {
    let b = engine
        .board()
        .map(|b| b.width() * b.height())
        .unwrap_or(225);
    let base = engine.options.limits(b, 0, at.elapsed());
    let part = |t: Option<Duration>| t.map(|t| (t / parts).min(Duration::from_secs(20)));
    Limits {
        hard_time: part(base.hard_time),
        soft_time: part(base.soft_time),
        depth: base.depth.or(Some(10)),
        ..base
    }
}

/// The reply to `SWAP2BOARD` for the position now on the engine's board.
/// Stones it proposes are placed on the board too.
pub fn answer(engine: &mut Engine, at: Instant) -> String {
    let Some(board) = engine.board() else {
        return "ERROR no game".into();
    };
    let stones: Vec<(Pos, Color)> = board.moves().collect();
    let (w, h) = (board.width() as i32, board.height() as i32);
    // Only the positions swap2 has: 0 stones, 3 (two black, one white)
    // or 5 (three black, two white; too few for a five).
    let blacks = stones.iter().filter(|(_, c)| *c == Color::Black).count();
    let want = match stones.len() {
        0 => 0,
        3 => 2,
        5 => 3,
        n => return format!("ERROR SWAP2BOARD: {n} stones; swap2 has 0, 3 or 5"),
    };
    if blacks != want {
        return format!(
            "ERROR SWAP2BOARD: {blacks} black stones of {}; swap2 has {want}",
            stones.len()
        );
    }
    // Cells the manager blocked (YXBLOCK) are never played.
    let blocked = engine.blocked.clone();
    match stones.len() {
        0 => {
            let shapes: &[[(i32, i32); 3]] = if OPENINGS.iter().any(|s| cells_of(s, w, h).is_some())
            {
                &OPENINGS
            } else {
                &SMALL_OPENINGS
            };
            let l = limits(engine, at, shapes.len() as u32);
            let mut best: Option<(i32, Vec<Pos>)> = None;
            for shape in shapes {
                if engine.stop_flag().load(std::sync::atomic::Ordering::SeqCst) && best.is_some() {
                    break;
                }
                let Some(cells) =
                    cells_of(shape, w, h).filter(|c| !c.iter().any(|p| blocked.contains(p)))
                else {
                    continue;
                };
                let placed: Vec<(Pos, Color)> = cells
                    .iter()
                    .copied()
                    .zip([Color::Black, Color::White, Color::Black])
                    .collect();
                if engine.set_position(&placed).is_err() {
                    continue;
                }
                let score = engine
                    .think_with(&l, &[], |_| {})
                    .map(|r| r.score)
                    .unwrap_or(0);
                if best.as_ref().is_none_or(|(s, _)| score.abs() < s.abs()) {
                    best = Some((score, cells));
                }
            }
            let Some((_, cells)) = best else {
                return "ERROR SWAP2BOARD: no opening shape fits the cells left free".into();
            };
            let placed: Vec<(Pos, Color)> = cells
                .iter()
                .copied()
                .zip([Color::Black, Color::White, Color::Black])
                .collect();
            let _ = engine.set_position(&placed);
            cells
                .iter()
                .map(|p| p.to_string())
                .collect::<Vec<_>>()
                .join(" ")
        }
        3 => {
            // White to move: the score is white's.
            let l = limits(engine, at, 3);
            let Some(r) = engine.think_with(&l, &blocked, |_| {}) else {
                return "SWAP".into();
            };
            if r.score < -BALANCED {
                return "SWAP".into();
            }
            let Some(white) = r.best else {
                return "SWAP".into();
            };
            if r.score > BALANCED {
                let _ = engine.play(white);
                return white.to_string();
            }
            let _ = engine.play(white);
            match engine.think_with(&l, &blocked, |_| {}).and_then(|r| r.best) {
                Some(black) => {
                    let _ = engine.play(black);
                    format!("{white} {black}")
                }
                None => white.to_string(),
            }
        }
        _ => {
            let l = limits(engine, at, 1);
            match engine.think_with(&l, &blocked, |_| {}) {
                Some(r) if r.score >= 0 => match r.best {
                    Some(p) => {
                        let _ = engine.play(p);
                        p.to_string()
                    }
                    None => "SWAP".into(),
                },
                _ => "SWAP".into(),
            }
        }
    }
}
