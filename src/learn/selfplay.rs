//! Self-play: many fast games of tengen against itself from random
//! balanced openings, written as [`GameRecord`]s.
//!
//! Each game starts from a random opening: a few stones of alternating
//! colours near the centre, kept only when a short search finds the
//! position balanced. Every move is then searched to a fixed node count,
//! so a game depends only on the seed and its index: the same command
//! writes the same file whatever the number of threads.

use super::data::{write_header, GameRecord};
use crate::board::Board;
use crate::eval::Evaluator;
use crate::search::params::Params;
use crate::search::{Limits, Searcher};
use crate::types::{Color, Pos, Rule};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::collections::BTreeMap;
use std::io::{self, Write};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;

/// What to play.
#[derive(Clone, Debug)]
pub struct SelfplayConfig {
    pub rule: Rule,
    pub size: usize,
    pub games: usize,
    /// Nodes searched for each move.
    pub nodes: u64,
    pub threads: usize,
    pub seed: u64,
    /// Stones in a random opening: at least, at most.
    pub opening_stones: (usize, usize),
    /// An opening is kept when a short search scores it within this.
    pub balance: i32,
    /// Nodes of that short search.
    pub balance_nodes: u64,
    /// Transposition table of each thread, bytes.
    pub hash_bytes: usize,
    /// The engine's search parameters and evaluation.
    pub params: Params,
    pub eval: Evaluator,
    /// A book to start from: game `i` draws one of its openings (its own
    /// random draw) and adds `opening_stones` random stones to it. Empty:
    /// random stones from the empty board.
    pub book: Vec<Vec<Pos>>,
    /// Play only the games `i` with `i % n == k - 1` of the run (`(k, n)`):
    /// shards of one run, each a machine's part, hold every game once.
    pub shard: Option<(usize, usize)>,
    /// Games of this shard already written (a stopped run resumed): the
    /// run writes the rest, without the header, so the file ends as one
    /// uninterrupted run would have written it.
    pub done: usize,
}

impl Default for SelfplayConfig {
    fn default() -> SelfplayConfig {
        SelfplayConfig {
            rule: Rule::Freestyle,
            size: 15,
            games: 100,
            nodes: 20_000,
            threads: 1,
            seed: 1,
            opening_stones: (2, 7),
            balance: 150,
            balance_nodes: 10_000,
            hash_bytes: 16 << 20,
            params: Params::default(),
            eval: Evaluator::shipped(),
            book: Vec::new(),
            shard: None,
            done: 0,
        }
    }
}

impl SelfplayConfig {
    /// Checks the settings: a board of a supported size, at least one
    /// game, node and thread, and an opening range that fits the board.
    pub fn check(&self) -> Result<(), String> {
        crate::board::check_size(self.size).map_err(|e| e.to_string())?;
        if self.games == 0 || self.nodes == 0 || self.threads == 0 {
            return Err("games, nodes and threads must be at least 1".into());
        }
        if let Some((k, n)) = self.shard {
            if k == 0 || k > n {
                return Err(format!("shard {k}/{n}: expected K/N with 1 <= K <= N"));
            }
        }
        if self.done > self.games_here() {
            return Err(format!(
                "{} games already written, more than the {} asked",
                self.done,
                self.games_here()
            ));
        }
        let (lo, hi) = self.opening_stones;
        if lo > hi || hi >= self.size * self.size / 2 {
            return Err(format!(
                "opening stones {lo}-{hi}: expected MIN <= MAX, below half the board"
            ));
        }
        Ok(())
    }
}

impl SelfplayConfig {
    /// How many of the run's games this shard plays (all without one).
    pub fn games_here(&self) -> usize {
        let (k, n) = self.shard.unwrap_or((1, 1));
        self.games / n + usize::from(self.games % n >= k)
    }
}

/// What a run wrote.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SelfplayStats {
    pub games: usize,
    pub positions: usize,
    pub black_wins: usize,
    pub white_wins: usize,
    pub draws: usize,
}

/// A random balanced opening for game `index` (its own random stream):
/// a book opening when there is a book, plus random stones near the
/// centre. Falls back to the last candidate tried when none is balanced.
pub fn random_opening(cfg: &SelfplayConfig, rng: &mut StdRng, searcher: &mut Searcher) -> Board {
    let c = (cfg.size / 2) as i64;
    let mut last = None;
    for _ in 0..200 {
        let Ok(mut board) = Board::new(cfg.size, cfg.rule) else {
            break;
        };
        if !cfg.book.is_empty() {
            for &p in &cfg.book[rng.gen_range(0..cfg.book.len())] {
                if board.try_play(p).is_err() {
                    break;
                }
            }
        }
        let (lo, hi) = cfg.opening_stones;
        let stones = board.ply() + rng.gen_range(lo..=hi.max(lo));
        let radius = if stones <= 4 { 2 } else { 3 };
        let mut tries = 0;
        while board.ply() < stones && tries < 1000 {
            tries += 1;
            let x = c + rng.gen_range(-radius..=radius);
            let y = c + rng.gen_range(-radius..=radius);
            if x < 0 || y < 0 || !board.contains(x as usize, y as usize) {
                continue;
            }
            let p = Pos::new(x as usize, y as usize);
            if !board.is_empty(p)
                || (board.side_to_move() == Color::Black && board.is_forbidden(p))
                || board.makes_five(board.side_to_move(), p)
            {
                continue;
            }
            board.make(p);
        }
        searcher.clear();
        let r = searcher.search(&mut board, &Limits::nodes(cfg.balance_nodes), |_| {});
        if r.score.abs() <= cfg.balance {
            return board;
        }
        last = Some(board);
    }
    last.unwrap_or_else(|| Board::new(cfg.size, cfg.rule).expect("size checked by the caller"))
}

/// Plays game `index` of a run.
pub fn play_game(cfg: &SelfplayConfig, index: usize, searcher: &mut Searcher) -> GameRecord {
    let mut rng =
        StdRng::seed_from_u64(cfg.seed ^ (index as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let mut board = random_opening(cfg, &mut rng, searcher);
    let opening = board.ply();
    let mut scores = vec![0i16; opening];
    searcher.clear();
    while !board.is_won() && !board.is_full() {
        let r = searcher.search(&mut board, &Limits::nodes(cfg.nodes), |_| {});
        let Some(p) = r.best.filter(|&p| board.is_empty(p)) else {
            break;
        };
        scores.push(r.score.clamp(i16::MIN as i32, i16::MAX as i32) as i16);
        board.make(p);
    }
    GameRecord {
        rule: cfg.rule,
        width: board.width(),
        height: board.height(),
        winner: board.winner(),
        opening,
        moves: board.moves().map(|(p, _)| p).collect(),
        scores,
    }
}

/// Plays `cfg.games` games on `cfg.threads` threads and writes them to
/// `out` in game order, after the header (or, resuming, after the
/// `cfg.done` games already written). `progress(games_done, positions)`
/// is called after each game; the stats count the games of this call.
pub fn run(
    cfg: &SelfplayConfig,
    out: &mut impl Write,
    mut progress: impl FnMut(usize, usize),
) -> io::Result<SelfplayStats> {
    cfg.check()
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
    if cfg.done == 0 {
        write_header(out)?;
    }
    // The run's game numbers this shard plays: its j-th is index(j).
    let (k, n) = cfg.shard.unwrap_or((1, 1));
    let mine = cfg.games_here();
    let index = |j: usize| j * n + k - 1;
    let next = AtomicUsize::new(cfg.done);
    let mut stats = SelfplayStats::default();
    let (tx, rx) = mpsc::channel::<(usize, GameRecord)>();
    std::thread::scope(|scope| -> io::Result<()> {
        for _ in 0..cfg.threads.max(1) {
            let tx = tx.clone();
            let next = &next;
            scope.spawn(move || {
                let mut searcher =
                    Searcher::with_eval(cfg.params.clone(), cfg.eval.clone(), cfg.hash_bytes);
                loop {
                    let j = next.fetch_add(1, Ordering::Relaxed);
                    if j >= mine {
                        break;
                    }
                    let g = play_game(cfg, index(j), &mut searcher);
                    if tx.send((j, g)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        let mut pending = BTreeMap::new();
        let mut written = cfg.done;
        for (i, g) in rx {
            pending.insert(i, g);
            while let Some(g) = pending.remove(&written) {
                g.write(out)?;
                written += 1;
                stats.games += 1;
                stats.positions += g.moves.len() - g.opening;
                match g.winner {
                    Some(Color::Black) => stats.black_wins += 1,
                    Some(Color::White) => stats.white_wins += 1,
                    None => stats.draws += 1,
                }
                progress(stats.games, stats.positions);
            }
        }
        Ok(())
    })?;
    out.flush()?;
    Ok(stats)
}

/// Small fast games (11x11, 400 nodes a move) for the fitting tests.
#[cfg(test)]
pub(crate) fn small_games(games: usize) -> Vec<GameRecord> {
    let cfg = SelfplayConfig {
        games,
        nodes: 400,
        balance_nodes: 200,
        threads: 2,
        size: 11,
        hash_bytes: 1 << 20,
        ..SelfplayConfig::default()
    };
    let mut buf = Vec::new();
    run(&cfg, &mut buf, |_, _| {}).unwrap();
    crate::learn::data::read_games(&mut buf.as_slice()).unwrap()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::learn::data::read_games;

    #[test]
    fn selfplay_writes_games_that_read_back_and_replay() {
        let cfg = SelfplayConfig {
            games: 3,
            nodes: 300,
            balance_nodes: 300,
            threads: 2,
            size: 9,
            hash_bytes: 1 << 20,
            ..SelfplayConfig::default()
        };
        let mut buf = Vec::new();
        let stats = run(&cfg, &mut buf, |_, _| {}).unwrap();
        assert_eq!(stats.games, 3);
        let games = read_games(&mut buf.as_slice()).unwrap();
        assert_eq!(games.len(), 3);
        for g in &games {
            assert!(g.opening >= 2 && g.opening <= 7);
            assert_eq!(g.scores.len(), g.moves.len());
            let mut b = Board::new(9, Rule::Freestyle).unwrap();
            for &p in &g.moves {
                b.try_play(p).unwrap();
            }
            assert_eq!(b.winner(), g.winner);
            assert!(b.is_won() || b.is_full());
        }
        // The same seed writes the same file, whatever the threads.
        let mut again = Vec::new();
        run(&SelfplayConfig { threads: 1, ..cfg }, &mut again, |_, _| {}).unwrap();
        assert_eq!(buf, again);
    }

    #[test]
    fn book_games_start_from_the_book_and_shards_split_a_run() {
        let book: Vec<Vec<Pos>> = ["e5f5", "e5e6d4", "d5e5f4f6"]
            .iter()
            .map(|l| crate::types::parse_pos_list(l).unwrap())
            .collect();
        let cfg = SelfplayConfig {
            games: 5,
            nodes: 200,
            balance_nodes: 100,
            threads: 2,
            size: 9,
            hash_bytes: 1 << 20,
            opening_stones: (0, 1),
            book: book.clone(),
            ..SelfplayConfig::default()
        };
        let mut buf = Vec::new();
        run(&cfg, &mut buf, |_, _| {}).unwrap();
        let all = read_games(&mut buf.as_slice()).unwrap();
        assert_eq!(all.len(), 5);
        for g in &all {
            let from = book.iter().find(|o| g.moves.starts_with(o));
            let o = from.unwrap_or_else(|| panic!("{:?} starts with no book opening", g.moves));
            assert!(g.opening >= o.len() && g.opening <= o.len() + 1, "{g:?}");
        }
        // Shards 1/2 and 2/2 hold games 1, 3, 5 and 2, 4 of the whole run.
        let mut parts = Vec::new();
        for k in 1..=2 {
            let mut b = Vec::new();
            let shard = SelfplayConfig {
                shard: Some((k, 2)),
                ..cfg.clone()
            };
            assert_eq!(shard.games_here(), [3, 2][k - 1]);
            run(&shard, &mut b, |_, _| {}).unwrap();
            parts.push(read_games(&mut b.as_slice()).unwrap());
        }
        assert_eq!(
            parts[0],
            vec![all[0].clone(), all[2].clone(), all[4].clone()]
        );
        assert_eq!(parts[1], vec![all[1].clone(), all[3].clone()]);
        let bad = SelfplayConfig {
            shard: Some((3, 2)),
            ..cfg
        };
        assert!(bad.check().is_err());
    }

    #[test]
    fn a_resumed_run_ends_as_one_uninterrupted_run() {
        let cfg = SelfplayConfig {
            games: 4,
            nodes: 200,
            balance_nodes: 100,
            threads: 2,
            size: 9,
            hash_bytes: 1 << 20,
            shard: Some((2, 2)),
            ..SelfplayConfig::default()
        };
        let mut whole = Vec::new();
        run(&cfg, &mut whole, |_, _| {}).unwrap();
        // Stopped after the first of its two games, the second cut short.
        let mut first = Vec::new();
        run(
            &SelfplayConfig {
                games: 2,
                ..cfg.clone()
            },
            &mut first,
            |_, _| {},
        )
        .unwrap();
        let mut cut = first.clone();
        run(
            &SelfplayConfig {
                done: 1,
                ..cfg.clone()
            },
            &mut cut,
            |_, _| {},
        )
        .unwrap();
        assert_eq!(cut, whole);
        let (games, at) =
            crate::learn::data::read_complete_games(&mut &whole[..whole.len() - 3]).unwrap();
        assert_eq!(games.len(), 1);
        let mut resumed = whole[..at.unwrap()].to_vec();
        let stats = run(
            &SelfplayConfig {
                done: 1,
                ..cfg.clone()
            },
            &mut resumed,
            |_, _| {},
        )
        .unwrap();
        assert_eq!(stats.games, 1);
        assert_eq!(resumed, whole);
        assert!(SelfplayConfig { done: 3, ..cfg }.check().is_err());
    }
}
