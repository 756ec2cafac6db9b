//! Balanced openings for any rule and board: random stones in a small area
//! near the centre, kept when tengen's search scores the position within a
//! window at a quick depth and again at a deeper one, and the threat solver
//! finds no forced win for either side; optionally also when self-play
//! games from it are not all won by the same colour (a search's score can
//! call balanced what play shows to be decided: renju openings balanced by
//! the score at depth 8 were won by black in 98% of games). Renju black
//! never stands on a forbidden cell. Each opening comes from its own random stream (the seed
//! and its index), and duplicates (under the 8 board symmetries) are
//! dropped in index order, so a seed gives the same book whatever the
//! number of threads.

use crate::board::rules::is_banned;
use crate::board::Board;
use crate::eval::Evaluator;
use crate::search::params::Params;
use crate::search::{Limits, Searcher};
use crate::solver::{Mode, Outcome, SolveLimits, Solver};
use crate::types::{Color, Pos, Rule};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// What to make.
#[derive(Clone, Debug)]
pub struct OpengenConfig {
    pub rule: Rule,
    pub size: usize,
    /// Openings wanted.
    pub count: usize,
    pub seed: u64,
    pub threads: usize,
    /// Stones in an opening: at least, at most.
    pub stones: (usize, usize),
    /// Half-width of the square around the centre the stones fall in: at
    /// least, at most (drawn per opening).
    pub area: (usize, usize),
    /// Kept when both searches score it within this of `centre`.
    pub balance: i32,
    /// The score the window is centred on (0: even), from the view that
    /// `centre_view` names. Renju wants it below 0 from black's view:
    /// tengen's scores there underrate black, and openings its search calls
    /// even are black wins in play. From the side to move's view it is for
    /// a book whose lean is the move in hand (the f15 book needed none:
    /// docs/testing.md, "The books").
    pub centre: i32,
    /// Whose view `centre` is from.
    pub centre_view: CentreView,
    /// Depths of the quick and the deeper check.
    pub depths: (i32, i32),
    /// Node budget of each solver check (one per side).
    pub solver_nodes: u64,
    /// Self-play check: games played from the opening, and the nodes a
    /// move (`None`: no games).
    pub playout: Option<Playout>,
    pub params: Params,
    pub eval: Evaluator,
}

impl Default for OpengenConfig {
    fn default() -> OpengenConfig {
        OpengenConfig {
            rule: Rule::Freestyle,
            size: 15,
            count: 100,
            seed: 1,
            threads: 1,
            stones: (3, 8),
            area: (2, 4),
            balance: 80,
            centre: 0,
            centre_view: CentreView::Black,
            depths: (4, 8),
            solver_nodes: 20_000,
            playout: None,
            params: Params::default(),
            eval: Evaluator::shipped(),
        }
    }
}

impl OpengenConfig {
    /// Checks the settings.
    pub fn check(&self) -> Result<(), String> {
        crate::board::check_size(self.size).map_err(|e| e.to_string())?;
        let (lo, hi) = self.stones;
        if lo == 0 || lo > hi || hi >= self.size * self.size / 2 {
            return Err(format!(
                "stones {lo}-{hi}: expected 1 <= MIN <= MAX, below half the board"
            ));
        }
        let (a, b) = self.area;
        if a == 0 || a > b || 2 * b + 1 > self.size {
            return Err(format!(
                "area {a}-{b}: expected 1 <= MIN <= MAX, inside the board"
            ));
        }
        // The square must hold the stones.
        if (2 * a + 1) * (2 * a + 1) < hi + 1 {
            return Err(format!("an area of {a} holds fewer than {hi} stones"));
        }
        if self.count == 0 || self.threads == 0 {
            return Err("count and threads must be at least 1".into());
        }
        if self.balance < 0 || self.depths.0 < 1 || self.depths.0 > self.depths.1 {
            return Err("balance must be >= 0 and depths 1 <= QUICK <= DEEP".into());
        }
        if let Some(p) = self.playout {
            if p.games < 2 || p.nodes == 0 {
                return Err("playout: at least 2 games and 1 node a move".into());
            }
        }
        Ok(())
    }
}

/// Whose view an off-even window centre is from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CentreView {
    /// Black's, whoever is to move (renju, where the lean is black's).
    Black,
    /// The side to move's after the opening.
    Mover,
}

impl CentreView {
    /// `black` or `mover`.
    pub fn parse(s: &str) -> Option<CentreView> {
        match s.trim().to_ascii_lowercase().as_str() {
            "black" => Some(CentreView::Black),
            "mover" => Some(CentreView::Mover),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            CentreView::Black => "black's",
            CentreView::Mover => "the side to move's",
        }
    }
}

/// The self-play check: `games` games from the opening between two
/// copies of tengen whose node budgets differ from game to game (the
/// searches are deterministic: the same budgets would play the same game);
/// the opening is kept unless one colour wins them all.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Playout {
    pub games: usize,
    /// Nodes a move of the first game; the others scale it by
    /// [`PLAYOUT_BUDGETS`].
    pub nodes: u64,
}

/// Black's and white's node budgets in playout game `i`, in quarters of
/// [`Playout::nodes`]: `PLAYOUT_BUDGETS[i % 8]`.
pub const PLAYOUT_BUDGETS: [(u64, u64); 8] = [
    (4, 4),
    (6, 4),
    (4, 6),
    (6, 6),
    (5, 4),
    (4, 5),
    (5, 7),
    (7, 5),
];

/// One opening with the scores that kept it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opening {
    pub moves: Vec<Pos>,
    /// The quick and the deep search's scores, for the side to move.
    pub scores: (i32, i32),
    /// The playout games played: black wins, white wins, draws.
    pub playout: Option<(u32, u32, u32)>,
}

impl Opening {
    /// Pos notation: `h8i9h9`.
    pub fn to_pos(&self) -> String {
        self.moves.iter().map(|p| p.to_pos_string()).collect()
    }

    /// Offset notation from the centre of a `size` board: `0,0, 1,-1`.
    pub fn to_offsets(&self, size: usize) -> String {
        let c = (size / 2) as i64;
        self.moves
            .iter()
            .map(|p| format!("{},{}", p.x() as i64 - c, p.y() as i64 - c))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The candidate of index `index`: random stones (tried until one passes,
/// `None` after many tries).
fn candidate(
    cfg: &OpengenConfig,
    index: u64,
    searcher: &mut Searcher,
    solver: &mut Solver,
) -> Option<Opening> {
    let mut rng = StdRng::seed_from_u64(cfg.seed ^ index.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let c = (cfg.size / 2) as i64;
    for _ in 0..500 {
        let mut board = Board::new(cfg.size, cfg.rule).ok()?;
        let stones = rng.gen_range(cfg.stones.0..=cfg.stones.1);
        let r = rng.gen_range(cfg.area.0..=cfg.area.1) as i64;
        let mut tries = 0;
        while board.ply() < stones && tries < 2000 {
            tries += 1;
            let p = Pos::new(
                (c + rng.gen_range(-r..=r)) as usize,
                (c + rng.gen_range(-r..=r)) as usize,
            );
            let me = board.side_to_move();
            if !board.is_empty(p) || is_banned(&mut board, me, p) || board.makes_five(me, p) {
                continue;
            }
            board.make(p);
        }
        if board.ply() < stones {
            continue;
        }
        let Some(scores) = balanced(cfg, &mut board, searcher, solver) else {
            continue;
        };
        let moves: Vec<Pos> = board.moves().map(|(p, _)| p).collect();
        let playout = match cfg.playout {
            Some(p) => match played_out(cfg, p, &moves, searcher) {
                Some(r) => Some(r),
                None => continue,
            },
            None => None,
        };
        return Some(Opening {
            moves,
            scores,
            playout,
        });
    }
    None
}

fn score(searcher: &mut Searcher, board: &mut Board, depth: i32) -> i32 {
    searcher.clear();
    searcher.search(board, &Limits::depth(depth), |_| {}).score
}

/// The quick and the deep score when both are within the window (the
/// deeper search only for those the quick one passes) and the solver finds
/// no win by threats for either side.
fn balanced(
    cfg: &OpengenConfig,
    board: &mut Board,
    searcher: &mut Searcher,
    solver: &mut Solver,
) -> Option<(i32, i32)> {
    // From the side to move's view, the window's centre.
    let centre = match (cfg.centre_view, board.side_to_move()) {
        (CentreView::Mover, _) | (CentreView::Black, Color::Black) => cfg.centre,
        (CentreView::Black, Color::White) => -cfg.centre,
    };
    let quick = score(searcher, board, cfg.depths.0);
    if (quick - centre).abs() > cfg.balance {
        return None;
    }
    let deep = score(searcher, board, cfg.depths.1);
    if (deep - centre).abs() > cfg.balance {
        return None;
    }
    let limits = SolveLimits {
        mode: Mode::Vct,
        nodes: cfg.solver_nodes.max(1),
        ..SolveLimits::default()
    };
    for side in [board.side_to_move(), board.side_to_move().opposite()] {
        let toggled = side != board.side_to_move();
        if toggled {
            board.toggle_side();
        }
        solver.clear();
        let win = matches!(solver.solve(board, &limits).outcome, Outcome::Win(_));
        if toggled {
            board.toggle_side();
        }
        if win {
            return None;
        }
    }
    Some((quick, deep))
}

/// Plays the playout games from `moves` (one searcher for both sides,
/// cleared before each game): black wins, white wins and draws, or `None`
/// when one colour won every game. Stops as soon as the results differ.
fn played_out(
    cfg: &OpengenConfig,
    p: Playout,
    moves: &[Pos],
    searcher: &mut Searcher,
) -> Option<(u32, u32, u32)> {
    let (mut black, mut white, mut draws) = (0u32, 0u32, 0u32);
    for i in 0..p.games {
        let (b, w) = PLAYOUT_BUDGETS[i % PLAYOUT_BUDGETS.len()];
        let mut board = Board::new(cfg.size, cfg.rule).ok()?;
        for &m in moves {
            board.make(m);
        }
        searcher.clear();
        let winner = loop {
            if board.is_won() || board.is_full() {
                break board.winner();
            }
            let quarters = if board.side_to_move() == Color::Black {
                b
            } else {
                w
            };
            let limits = Limits::nodes((p.nodes * quarters / 4).max(1));
            let r = searcher.search(&mut board, &limits, |_| {});
            match r.best.filter(|&m| board.is_empty(m)) {
                Some(m) => board.make(m),
                // No move (renju: every cell forbidden): the side to move
                // has lost.
                None => break Some(board.side_to_move().opposite()),
            }
        };
        match winner {
            Some(Color::Black) => black += 1,
            Some(Color::White) => white += 1,
            None => draws += 1,
        }
        let decided_by_colour = draws == 0 && (black == 0 || white == 0);
        if !decided_by_colour {
            return Some((black, white, draws));
        }
    }
    None
}

/// The 8 symmetries of a position, as the smallest sorted list of
/// (cell, colour): equal for openings that are the same up to symmetry.
fn canonical(moves: &[Pos], size: usize) -> Vec<(usize, usize, bool)> {
    let n = size as i64 - 1;
    (0..8)
        .map(|k| {
            let mut v: Vec<(usize, usize, bool)> = moves
                .iter()
                .enumerate()
                .map(|(i, p)| {
                    let (x, y) = (p.x() as i64, p.y() as i64);
                    let (x, y) = if k & 1 == 1 { (y, x) } else { (x, y) };
                    let x = if k & 2 == 2 { n - x } else { x };
                    let y = if k & 4 == 4 { n - y } else { y };
                    (x as usize, y as usize, i % 2 == 0)
                })
                .collect();
            v.sort_unstable();
            v
        })
        .min()
        .unwrap_or_default()
}

/// Makes `cfg.count` openings, calling `progress(done, count)` as they
/// come (within a batch, `done` counts the candidates kept so far).
/// Deterministic for a seed, whatever `cfg.threads`.
pub fn generate(cfg: &OpengenConfig, mut progress: impl FnMut(usize, usize)) -> Vec<Opening> {
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    let mut next_index = 0u64;
    while out.len() < cfg.count {
        // A batch of indices, searched in parallel, merged in index order.
        let want = cfg.count - out.len();
        let batch = (want + want / 4 + cfg.threads) as u64;
        let results: Mutex<Vec<Option<Opening>>> = Mutex::new(vec![None; batch as usize]);
        let next = AtomicUsize::new(0);
        let done = AtomicUsize::new(0);
        std::thread::scope(|s| {
            for _ in 0..cfg.threads {
                s.spawn(|| {
                    let mut searcher =
                        Searcher::with_eval(cfg.params.clone(), cfg.eval.clone(), 2 << 20);
                    let mut solver = Solver::new();
                    loop {
                        let k = next.fetch_add(1, Ordering::Relaxed);
                        if k >= batch as usize {
                            break;
                        }
                        let o = candidate(cfg, next_index + k as u64, &mut searcher, &mut solver);
                        if let Ok(mut r) = results.lock() {
                            r[k] = o;
                        }
                        done.fetch_add(1, Ordering::Relaxed);
                    }
                });
            }
            // A batch can take an hour: say how it goes meanwhile (the
            // candidates kept so far, before duplicates are dropped).
            let mut shown = out.len();
            while done.load(Ordering::Relaxed) < batch as usize {
                std::thread::sleep(std::time::Duration::from_millis(200));
                let kept = results
                    .lock()
                    .map_or(0, |r| r.iter().filter(|o| o.is_some()).count());
                let now = (out.len() + kept).min(cfg.count);
                if now > shown {
                    shown = now;
                    progress(now, cfg.count);
                }
            }
        });
        next_index += batch;
        let results = results.into_inner().unwrap_or_default();
        for o in results.into_iter().flatten() {
            if out.len() < cfg.count && seen.insert(canonical(&o.moves, cfg.size)) {
                out.push(o);
            }
        }
        progress(out.len(), cfg.count);
        if next_index > 50 * cfg.count as u64 + 1000 {
            // Settings that (almost) never give a balanced opening.
            break;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small(rule: Rule, threads: usize) -> OpengenConfig {
        OpengenConfig {
            rule,
            count: 4,
            threads,
            depths: (2, 3),
            solver_nodes: 1000,
            ..OpengenConfig::default()
        }
    }

    #[test]
    fn the_playout_check_drops_openings_one_colour_always_wins() {
        let cfg = small(Rule::Freestyle, 1);
        let p = Playout {
            games: 4,
            nodes: 400,
        };
        let mut searcher = Searcher::new(Params::default(), 1 << 20);
        // Black has an open three and the move: black wins every game.
        let won: Vec<Pos> = ["h8", "a1", "i8", "a15", "j8", "o1"]
            .iter()
            .map(|s| Pos::parse_pos(s).unwrap())
            .collect();
        assert_eq!(played_out(&cfg, p, &won, &mut searcher), None);
        // Kept openings were not won by one colour every time, on any
        // number of threads.
        let with = OpengenConfig {
            playout: Some(p),
            ..small(Rule::Freestyle, 1)
        };
        let a = generate(&with, |_, _| {});
        assert_eq!(a.len(), 4);
        for o in &a {
            let (b, w, d) = o.playout.unwrap();
            assert!(d > 0 || (b > 0 && w > 0), "{}: {b} {w} {d}", o.to_pos());
            assert_eq!(
                played_out(&with, p, &o.moves, &mut searcher),
                o.playout,
                "the check is deterministic"
            );
        }
        let b = generate(
            &OpengenConfig {
                threads: 2,
                ..with.clone()
            },
            |_, _| {},
        );
        assert_eq!(a, b);
        assert!(OpengenConfig {
            playout: Some(Playout { games: 1, nodes: 5 }),
            ..with
        }
        .check()
        .is_err());
    }

    #[test]
    fn openings_are_balanced_legal_distinct_and_deterministic() {
        for rule in [Rule::Freestyle, Rule::Renju] {
            let cfg = small(rule, 1);
            let a = generate(&cfg, |_, _| {});
            assert_eq!(a.len(), 4, "{rule}");
            let b = generate(
                &OpengenConfig {
                    threads: 3,
                    ..cfg.clone()
                },
                |_, _| {},
            );
            assert_eq!(a, b, "{rule}: the same book on 1 and 3 threads");
            let mut forms = HashSet::new();
            for o in &a {
                assert!(
                    forms.insert(canonical(&o.moves, 15)),
                    "a repeat: {}",
                    o.to_pos()
                );
                assert!(o.scores.0.abs() <= cfg.balance && o.scores.1.abs() <= cfg.balance);
                assert!((3..=8).contains(&o.moves.len()));
                let mut b = Board::new(15, rule).unwrap();
                for &p in &o.moves {
                    let me = b.side_to_move();
                    assert!(b.is_empty(p) && !is_banned(&mut b, me, p), "{}", o.to_pos());
                    assert!(p.x().abs_diff(7) <= 4 && p.y().abs_diff(7) <= 4);
                    b.make(p);
                    assert!(!b.is_won());
                }
                // Both notations give the same moves.
                assert_eq!(crate::types::parse_pos_list(&o.to_pos()).unwrap(), o.moves);
                let nums: Vec<i64> = o
                    .to_offsets(15)
                    .split([',', ' '])
                    .filter(|t| !t.is_empty())
                    .map(|t| t.parse().unwrap())
                    .collect();
                let off: Vec<Pos> = nums
                    .chunks(2)
                    .map(|c| Pos::new((7 + c[0]) as usize, (7 + c[1]) as usize))
                    .collect();
                assert_eq!(off, o.moves);
            }
            // Another seed, another book.
            let c = generate(&OpengenConfig { seed: 2, ..cfg }, |_, _| {});
            assert_ne!(a, c);
        }
    }

    #[test]
    fn the_window_can_be_centred_off_even() {
        // Renju books centre the window below 0 (black's view): each
        // opening's scores, turned to black's view, lie within the balance
        // of the centre (so none would pass the plain window around 0).
        let cfg = OpengenConfig {
            centre: -300,
            balance: 60,
            ..small(Rule::Renju, 2)
        };
        let book = generate(&cfg, |_, _| {});
        assert_eq!(book.len(), 4);
        for o in &book {
            let sign = if o.moves.len() % 2 == 0 { 1 } else { -1 };
            for s in [o.scores.0, o.scores.1] {
                let black = sign * s;
                assert!((black + 300).abs() <= 60, "{} scores {black}", o.to_pos());
            }
        }
    }

    #[test]
    fn the_window_can_be_centred_from_the_side_to_moves_view() {
        // Centred from the side to move's view, whichever colour it is:
        // each opening's scores (the side to move's) lie within the
        // balance of the centre, with black and white to move alike.
        let cfg = OpengenConfig {
            centre: -150,
            centre_view: CentreView::Mover,
            balance: 60,
            count: 12,
            ..small(Rule::Freestyle, 2)
        };
        let book = generate(&cfg, |_, _| {});
        assert_eq!(book.len(), 12);
        for o in &book {
            for s in [o.scores.0, o.scores.1] {
                assert!((s + 150).abs() <= 60, "{} scores {s}", o.to_pos());
            }
        }
        let parities: HashSet<usize> = book.iter().map(|o| o.moves.len() % 2).collect();
        assert_eq!(parities.len(), 2, "both colours to move");
        assert_eq!(CentreView::parse("Mover"), Some(CentreView::Mover));
        assert_eq!(CentreView::parse("black"), Some(CentreView::Black));
        assert_eq!(CentreView::parse("white"), None);
    }

    #[test]
    fn bad_settings_are_refused() {
        let ok = OpengenConfig::default();
        assert!(ok.check().is_ok());
        for bad in [
            OpengenConfig {
                size: 4,
                ..ok.clone()
            },
            OpengenConfig {
                stones: (5, 3),
                ..ok.clone()
            },
            OpengenConfig {
                stones: (0, 3),
                ..ok.clone()
            },
            OpengenConfig {
                area: (1, 9),
                ..ok.clone()
            },
            OpengenConfig {
                area: (1, 1),
                stones: (3, 12),
                ..ok.clone()
            },
            OpengenConfig {
                count: 0,
                ..ok.clone()
            },
            OpengenConfig {
                depths: (6, 4),
                ..ok.clone()
            },
        ] {
            assert!(bad.check().is_err(), "{bad:?}");
        }
    }

    #[test]
    fn symmetric_openings_are_one() {
        let p = |s: &str| crate::types::parse_pos_list(s).unwrap();
        assert_eq!(canonical(&p("h8i9"), 15), canonical(&p("h8g7"), 15));
        assert_eq!(canonical(&p("h8i8j9"), 15), canonical(&p("h8h9i10"), 15));
        assert_ne!(canonical(&p("h8i9"), 15), canonical(&p("h8i8"), 15));
    }
}
