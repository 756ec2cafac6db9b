//! The tournament: schedules games in colour-swapped pairs over the
//! openings, runs them on worker threads (each with its own engine
//! processes), keeps the statistics, writes records, and stops early on an
//! SPRT verdict or an interrupt.

use super::process::EngineProcess;
use super::records::{psq, sgf, write_record};
use super::referee::{play, GameConfig, GameRecord, Outcome};
use super::report::progress;
pub use super::report::{json, report, time_use};
use super::setup::{parse_playable_opening, transform, EngineSpec};
use super::stats::{Sprt, SprtVerdict};
use super::summary::{add_game, sprt_of};
pub use super::summary::{summarize, Decision, PairStats, Played, Summary};
use crate::types::{Color, Pos};
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use std::collections::{HashSet, VecDeque};
use std::fs;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

/// Everything a match needs.
#[derive(Clone, Debug)]
pub struct MatchConfig {
    pub engines: Vec<EngineSpec>,
    /// Games per pair of engines.
    pub games: usize,
    pub concurrency: usize,
    pub game: GameConfig,
    /// Opening lines (offset or pos notation); empty: every game from an
    /// empty board.
    pub openings: Vec<String>,
    pub random_order: bool,
    pub seed: u64,
    pub transform: bool,
    pub gauntlet: bool,
    pub sprt: Option<Sprt>,
    pub psq_dir: Option<PathBuf>,
    pub sgf_file: Option<PathBuf>,
    pub json_file: Option<PathBuf>,
    pub log_dir: Option<PathBuf>,
    /// Play only part K of N (1-based) of the game list: whole
    /// colour-swapped pairs, every N-th pair from the K-th.
    pub shard: Option<(usize, usize)>,
    /// Games already played (from `--resume`): kept, not played again.
    pub done: Vec<Played>,
    /// The SPRT's decision in the run being resumed, if it made one.
    pub done_decision: Option<Decision>,
}

impl MatchConfig {
    /// Everything that decides which games are played and how, as one
    /// line: results of runs with different fingerprints cannot be merged
    /// or resumed into each other.
    pub fn fingerprint(&self) -> String {
        self.fingerprint_with_games(self.games)
    }

    /// The fingerprint this match would have with `games` games a pair.
    pub fn fingerprint_with_games(&self, games: usize) -> String {
        // FNV-1a over the book.
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in self.openings.join("\n").bytes() {
            h = (h ^ b as u64).wrapping_mul(0x100_0000_01b3);
        }
        let engines: Vec<String> = self
            .engines
            .iter()
            .map(|e| {
                let threads = e.threads.map(|t| format!(" (threads {t})"));
                let cmd = e.argv.join(" ") + &threads.unwrap_or_default();
                match &e.name {
                    Some(n) => format!("{n}={cmd}"),
                    None => cmd,
                }
            })
            .collect();
        let g = &self.game;
        format!(
            "engines={engines:?} games={} rule={} size={} tc={} depth={:?} nodes={:?} memory={} draw_after={:?} book={h:016x}:{} order={} seed={} transform={} gauntlet={} sprt={}",
            games,
            g.rule.name(),
            g.size,
            g.tc.spec(),
            g.depth,
            g.nodes,
            g.max_memory,
            g.draw_after,
            self.openings.len(),
            if self.random_order { "random" } else { "sequential" },
            self.seed,
            self.transform,
            self.gauntlet,
            self.sprt.map(|s| s.spec()).unwrap_or_else(|| "none".into()),
        )
    }

    /// Whether the results of a match with fingerprint `saved` are the
    /// first games of this one: the same match, or, between two engines,
    /// the same one with fewer games (an SPRT that ran out of games without
    /// a verdict goes on). One engine pair numbers its games and draws its
    /// openings the same whatever the number of games, so the longer match
    /// begins with the shorter one's games; with more pairs the numbers
    /// would move.
    pub fn continues(&self, saved: &str) -> bool {
        if saved == self.fingerprint() {
            return true;
        }
        if self.engines.len() != 2 {
            return false;
        }
        saved.match_indices(" games=").any(|(i, m)| {
            let digits: String = saved[i + m.len()..]
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            matches!(digits.parse::<usize>(),
                Ok(n) if n < self.games && saved == self.fingerprint_with_games(n))
        })
    }
}

/// One game to play.
#[derive(Clone, Debug)]
struct Job {
    number: usize,
    pair: (usize, usize),
    /// Index of the game pair within this engine pair.
    round: usize,
    black: usize,
    white: usize,
    opening_text: String,
    opening: Vec<Pos>,
}

/// The most games a match (all its engine pairs together) schedules: its
/// game list is built before the first game.
pub const MAX_GAMES: usize = 1_000_000;

/// The games of a match of `engines` engines playing `games` games a
/// pair (round-robin, or a gauntlet of the first against the others),
/// or an error when that is more than [`MAX_GAMES`].
pub fn scheduled_games(engines: usize, gauntlet: bool, games: usize) -> Result<usize, String> {
    let pairs = if gauntlet {
        engines.saturating_sub(1)
    } else {
        engines * engines.saturating_sub(1) / 2
    };
    match pairs.checked_mul(games) {
        Some(n) if n <= MAX_GAMES => Ok(n),
        _ => Err(format!(
            "--games {games} with {pairs} engine pairs is more than the {MAX_GAMES} games \
             a match schedules"
        )),
    }
}

fn schedule(cfg: &MatchConfig) -> Result<Vec<Job>, String> {
    scheduled_games(cfg.engines.len(), cfg.gauntlet, cfg.games)?;
    let n = cfg.engines.len();
    let pairs: Vec<(usize, usize)> = if cfg.gauntlet {
        (1..n).map(|j| (0, j)).collect()
    } else {
        (0..n)
            .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
            .collect()
    };
    let mut order: Vec<usize> = (0..cfg.openings.len()).collect();
    if cfg.random_order {
        order.shuffle(&mut StdRng::seed_from_u64(cfg.seed));
    }
    let mut jobs = Vec::new();
    let rounds = cfg.games.div_ceil(2);
    for (pair_index, &(a, b)) in pairs.iter().enumerate() {
        for g in 0..cfg.games {
            let round = g / 2;
            let (text, opening) = if order.is_empty() {
                (String::new(), Vec::new())
            } else {
                let text = cfg.openings[order[round % order.len()]].clone();
                let mut moves = parse_playable_opening(&text, cfg.game.size, cfg.game.rule)?;
                if cfg.transform {
                    let k = (round / order.len()) % 8;
                    moves = moves
                        .into_iter()
                        .map(|p| transform(p, k, cfg.game.size))
                        .collect();
                }
                (text, moves)
            };
            let (black, white) = if g % 2 == 0 { (a, b) } else { (b, a) };
            let number = pair_index * cfg.games + g + 1;
            if let Some((k, n)) = cfg.shard {
                // Whole colour-swapped pairs: the unit is (pair, round).
                if (pair_index * rounds + round) % n != k - 1 {
                    continue;
                }
            }
            jobs.push(Job {
                number,
                pair: (a, b),
                round,
                black,
                white,
                opening_text: text,
                opening,
            });
        }
    }
    Ok(jobs)
}

/// Runs the match. `interrupt` stops it early (Ctrl-C): finished games
/// are kept. Progress goes to stderr.
pub fn run(cfg: &MatchConfig, interrupt: Arc<AtomicBool>) -> Result<Summary, String> {
    if cfg.engines.len() < 2 {
        return Err("a match needs at least two engines".into());
    }
    let mut jobs = schedule(cfg)?;
    let total = jobs.len();
    let scheduled: HashSet<usize> = jobs.iter().map(|j| j.number).collect();
    if let Some(g) = cfg.done.iter().find(|g| !scheduled.contains(&g.number)) {
        return Err(format!(
            "the results to resume hold game {}, which this match does not play",
            g.number
        ));
    }
    let done: HashSet<usize> = cfg.done.iter().map(|g| g.number).collect();
    if done.len() < cfg.done.len() {
        return Err("the results to resume hold a game twice".into());
    }
    jobs.retain(|j| !done.contains(&j.number));
    // A resumed test that had already stopped stays stopped; so does one
    // whose resumed games already cross a bound: no game is played.
    let mut decided = cfg.done_decision.filter(|_| cfg.sprt.is_some());
    if let (None, Some(s)) = (decided, cfg.sprt) {
        let mut pairs = Vec::new();
        for p in &cfg.done {
            add_game(&mut pairs, p);
        }
        let (llr, verdict) = sprt_of(s, &pairs);
        if verdict != SprtVerdict::Continue {
            decided = Some(Decision {
                games: cfg.done.len(),
                llr,
                verdict,
            });
        }
    }
    if decided.is_some() {
        jobs.clear();
    }
    if let Some(d) = &cfg.psq_dir {
        fs::create_dir_all(d).map_err(|e| format!("cannot create {}: {e}", d.display()))?;
    }
    if let Some(d) = &cfg.log_dir {
        fs::create_dir_all(d).map_err(|e| format!("cannot create {}: {e}", d.display()))?;
    }
    // Start each engine once before the first game: one that cannot start
    // is an error now. Its name comes from ABOUT unless given.
    let mut names = Vec::new();
    for (i, spec) in cfg.engines.iter().enumerate() {
        let e = EngineProcess::spawn(spec, None).map_err(|e| format!("engine {}: {e}", i + 1))?;
        names.push(spec.name.clone().unwrap_or_else(|| e.name.clone()));
        e.quit();
    }
    // Same names: number them.
    for i in 0..names.len() {
        if names.iter().filter(|n| **n == names[i]).count() > 1 {
            names[i] = format!("{}#{}", names[i], i + 1);
        }
    }

    let queue = Arc::new(Mutex::new(jobs.into_iter().collect::<VecDeque<Job>>()));
    let stop = Arc::new(AtomicBool::new(false));
    let (tx, rx) = channel::<Played>();
    let mut workers = Vec::new();
    for w in 0..cfg.concurrency.max(1) {
        let queue = queue.clone();
        let stop = stop.clone();
        let interrupt = interrupt.clone();
        let tx = tx.clone();
        let cfg = cfg.clone();
        workers.push(thread::spawn(move || {
            let mut slots: Vec<Option<EngineProcess>> =
                (0..cfg.engines.len()).map(|_| None).collect();
            loop {
                if stop.load(Ordering::SeqCst) || interrupt.load(Ordering::SeqCst) {
                    break;
                }
                let job = match queue.lock() {
                    Ok(mut q) => q.pop_front(),
                    Err(_) => None,
                };
                let Some(job) = job else { break };
                let mut record = play_job(&cfg, &mut slots, &job, w);
                if failed_to_start(&record) {
                    // Once more, with the engine started afresh: a crash
                    // at one START is not a game.
                    record = play_job(&cfg, &mut slots, &job, w);
                }
                if interrupt.load(Ordering::SeqCst) {
                    break;
                }
                let played = Played {
                    number: job.number,
                    pair: job.pair,
                    round: job.round,
                    black: job.black,
                    white: job.white,
                    opening: job.opening_text.clone(),
                    record,
                };
                if tx.send(played).is_err() {
                    break;
                }
            }
            for e in slots.into_iter().flatten() {
                e.quit();
            }
        }));
    }
    drop(tx);

    let mut pairs: Vec<((usize, usize), PairStats)> = Vec::new();
    let mut games: Vec<Played> = Vec::new();
    let mut sprt_state = None;
    for p in &cfg.done {
        add_game(&mut pairs, p);
        games.push(p.clone());
    }
    let tty = std::io::stderr().is_terminal();
    let started = Instant::now();
    // Failed starts in a row (an engine that did not start or answer
    // START; each game tries twice): at `START_FAILURES`, the match
    // stops. `unplayed`: the games lost so, and why the last one was.
    let mut start_failures = 0;
    let mut unplayed: Option<(usize, String)> = None;
    let mut broken: Option<String> = None;
    let snapshot = |games: &[Played], decided: Option<Decision>, interrupted: bool| Summary {
        names: names.clone(),
        pairs: Vec::new(),
        games: games.to_vec(),
        sprt: None,
        decided,
        interrupted,
        tc: cfg.game.tc,
        config: cfg.fingerprint(),
        scheduled: total,
        shard: cfg.shard,
        size: cfg.game.size,
        rule: cfg.game.rule,
    };
    loop {
        match rx.recv_timeout(Duration::from_millis(100)) {
            Ok(p) => {
                if failed_to_start(&p.record) {
                    start_failures += 2;
                    let who = match p.record.faulty {
                        Some(Color::Black) => names[p.black].as_str(),
                        Some(Color::White) => names[p.white].as_str(),
                        None => "an engine",
                    };
                    let why = format!("{who}: {}", p.record.reason);
                    let n = unplayed.as_ref().map_or(0, |u| u.0) + 1;
                    unplayed = Some((n, why.clone()));
                    if start_failures >= START_FAILURES {
                        broken = Some(format!(
                            "{start_failures} failed starts in a row ({n} games not played): {why}"
                        ));
                        stop.store(true, Ordering::SeqCst);
                    }
                    // Not a game: it is played again on --resume.
                    continue;
                }
                start_failures = 0;
                record_game(cfg, &names, &p)?;
                add_game(&mut pairs, &p);
                games.push(p);
                // Every finished game is on disk at once, so a killed
                // match resumes from it.
                if let Some(s) = cfg.sprt {
                    let (llr, verdict) = sprt_of(s, &pairs);
                    sprt_state = Some((s, llr, verdict));
                    if verdict != SprtVerdict::Continue && decided.is_none() {
                        decided = Some(Decision {
                            games: games.len(),
                            llr,
                            verdict,
                        });
                        stop.store(true, Ordering::SeqCst);
                    }
                }
                if let Some(f) = &cfg.json_file {
                    let s = summarize(snapshot(&games, decided, true), cfg.sprt);
                    write_record(f, &json(&s))?;
                }
                progress(&names, &pairs, games.len(), total, sprt_state, started, tty);
            }
            Err(RecvTimeoutError::Timeout) => {
                if interrupt.load(Ordering::SeqCst) {
                    break;
                }
            }
            Err(RecvTimeoutError::Disconnected) => break,
        }
    }
    if tty {
        eprintln!();
    }
    // A game that never started is not a result: a match that leaves
    // one unplayed has not succeeded, even below `START_FAILURES`.
    if let (None, Some((n, why))) = (&broken, &unplayed) {
        if !interrupt.load(Ordering::SeqCst) {
            broken = Some(format!("{n} games not played: {why}"));
        }
    }
    let interrupted = interrupt.load(Ordering::SeqCst) || broken.is_some();
    if !interrupted {
        for w in workers {
            let _ = w.join();
        }
    }
    let summary = summarize(snapshot(&games, decided, interrupted), cfg.sprt);
    if let Some(f) = &cfg.sgf_file {
        let mut text = String::new();
        for g in &summary.games {
            text.push_str(&sgf(
                &g.record,
                cfg.game.size,
                cfg.game.rule.name(),
                &summary.names[g.black],
                &summary.names[g.white],
            ));
        }
        write_record(f, &text)?;
    }
    if let Some(f) = &cfg.json_file {
        write_record(f, &json(&summary))?;
    }
    match broken {
        Some(why) => Err(format!("the match stopped: {why}")),
        None => Ok(summary),
    }
}

/// Failed starts in a row (two a game) that stop the match.
const START_FAILURES: usize = 3;

/// Did the game end before a move because an engine would not start?
fn failed_to_start(r: &GameRecord) -> bool {
    r.moves.is_empty()
        && r.faulty.is_some()
        && (r.reason == "engine failed to start" || r.reason.contains("START"))
}

/// Plays one job, (re)starting engines as needed; an engine that broke
/// down is dropped so the next game starts it afresh.
fn play_job(
    cfg: &MatchConfig,
    slots: &mut [Option<EngineProcess>],
    job: &Job,
    worker: usize,
) -> GameRecord {
    for &i in &[job.black, job.white] {
        let alive = slots[i].as_mut().is_some_and(|e| e.alive());
        if !alive {
            let log = cfg.log_dir.as_ref().map(|d| {
                d.join(format!(
                    "engine{}-worker{}-game{}.log",
                    i + 1,
                    worker + 1,
                    job.number
                ))
            });
            let mut spec = cfg.engines[i].clone();
            spec.name.get_or_insert_with(|| format!("engine{}", i + 1));
            slots[i] = EngineProcess::spawn(&spec, log.as_deref()).ok();
        }
    }
    let (b, w) = (job.black, job.white);
    if slots[b].is_none() || slots[w].is_none() {
        let black_missing = slots[b].is_none();
        return GameRecord {
            opening: job.opening.clone(),
            moves: Vec::new(),
            outcome: if black_missing {
                Outcome::WhiteWins
            } else {
                Outcome::BlackWins
            },
            reason: "engine failed to start".into(),
            faulty: Some(if black_missing {
                Color::Black
            } else {
                Color::White
            }),
        };
    }
    // Two distinct slots borrowed at once.
    let (lo, hi) = (b.min(w), b.max(w));
    let (left, right) = slots.split_at_mut(hi);
    let record = match (left[lo].as_mut(), right[0].as_mut()) {
        (Some(x), Some(y)) => {
            let (black, white) = if b < w { (x, y) } else { (y, x) };
            play(black, white, &cfg.game, &job.opening)
        }
        _ => unreachable!("both engines were checked above"),
    };
    if let Some(side) = record.faulty {
        let i = if side == Color::Black { b } else { w };
        slots[i] = None;
    }
    record
}

fn record_game(cfg: &MatchConfig, names: &[String], p: &Played) -> Result<(), String> {
    if let Some(d) = &cfg.psq_dir {
        let path = d.join(format!("game{:05}.psq", p.number));
        fs::write(
            &path,
            psq(&p.record, cfg.game.size, &names[p.black], &names[p.white]),
        )
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Game `number` of engines 0 and 1 (0 black in odd games), won by
    /// engine 0 when `first_wins`.
    fn game(number: usize, first_wins: bool) -> Played {
        let black = if number % 2 == 1 { 0 } else { 1 };
        let outcome = match (first_wins, black == 0) {
            (true, true) | (false, false) => Outcome::BlackWins,
            _ => Outcome::WhiteWins,
        };
        Played {
            number,
            pair: (0, 1),
            round: (number - 1) / 2,
            black,
            white: 1 - black,
            opening: String::new(),
            record: GameRecord {
                opening: Vec::new(),
                moves: Vec::new(),
                outcome,
                reason: "test".into(),
                faulty: None,
            },
        }
    }

    fn summary(games: Vec<Played>, decided: Option<Decision>) -> Summary {
        Summary {
            names: vec!["a".into(), "b".into()],
            pairs: Vec::new(),
            games,
            sprt: None,
            decided,
            interrupted: false,
            tc: crate::tournament::setup::TimeControl::parse("100ms").unwrap(),
            config: String::new(),
            scheduled: 100,
            shard: None,
            size: 15,
            rule: crate::types::Rule::Freestyle,
        }
    }

    #[test]
    fn the_verdict_is_the_one_the_test_stopped_on() {
        let sprt = Sprt::parse("elo0=0,elo1=200").unwrap();
        // Engine 0 wins every game: the LLR crosses the upper bound.
        let mut games: Vec<Played> = (1..=16).map(|n| game(n, true)).collect();
        let s = summarize(summary(games.clone(), None), Some(sprt));
        let (_, llr_at_stop, v) = s.sprt.unwrap();
        assert_eq!(v, SprtVerdict::AcceptH1, "llr {llr_at_stop}");
        // Two games in flight then are lost and pull the LLR back inside.
        games.extend((17..=18).map(|n| game(n, false)));
        let all = summarize(summary(games.clone(), None), Some(sprt));
        let (_, llr_all, v_all) = all.sprt.unwrap();
        assert!(llr_all < llr_at_stop);
        assert_eq!(v_all, SprtVerdict::Continue, "llr {llr_all}");
        // With the stopping point recorded, the verdict stays, and the
        // report and the JSON say where the test stopped.
        let decided = Decision {
            games: 16,
            llr: llr_at_stop,
            verdict: SprtVerdict::AcceptH1,
        };
        let kept = summarize(summary(games, Some(decided)), Some(sprt));
        let (_, llr_kept, v_kept) = kept.sprt.unwrap();
        assert_eq!(v_kept, SprtVerdict::AcceptH1);
        assert_eq!(llr_kept, llr_all, "the LLR is still that of every game");
        let text = report(&kept);
        assert!(
            text.contains("H1 accepted at game 16") && text.contains("the 2 games then in flight"),
            "{text}"
        );
        let j = json(&kept);
        assert!(j.contains("\"result\": \"H1\", \"decided_at\": 16"), "{j}");
        // No SPRT: nothing decided.
        assert!(summarize(summary(Vec::new(), Some(decided)), None)
            .decided
            .is_none());
    }
}
