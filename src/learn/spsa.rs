//! SPSA: tunes search parameters by simultaneous perturbation over
//! self-play games, the way Stockfish's fishtest, OpenBench (Viridithas)
//! and Rapfi tune their constants.
//!
//! Each iteration `k` draws, for each of `pairs` game pairs, a random sign
//! `d_i = ±1` for every tuned parameter and plays the engine with
//! `theta + c_k d` against the engine with `theta - c_k d` from a random
//! book opening, once with each colour. With `r` the pair's result for the
//! plus side (wins minus losses, -2 to 2), every parameter moves by
//! `a_k / c_k * r * d_i`. The gains follow Spall's schedule as fishtest
//! writes it: `c_k = c / k^gamma`, `a_k = a / (A + k)^alpha`, with `c` and
//! `a` set so that the last iteration perturbs by `c_end` and steps at the
//! learning rate `r_end` (`a_end = r_end * c_end^2`), `A` a tenth of the
//! run.
//!
//! The tuner's own arithmetic is in floating point; the engines it plays
//! see rounded integers, as a shipped parameter is. Every game is searched
//! to a node count (or a time per move), and every random draw comes from
//! the seed and the iteration, so a node-limited run gives the same values
//! whatever the number of threads, and a run stopped and resumed from its
//! state gives what an unbroken one does.

use crate::board::Board;
use crate::eval::Evaluator;
use crate::search::params::{Params, Tunable};
use crate::search::{Limits, Searcher};
use crate::types::{Color, Pos, Rule};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// One tuned parameter: where it starts, its range, and its gains.
#[derive(Clone, Debug, PartialEq)]
pub struct SpsaParam {
    pub name: String,
    pub start: i64,
    pub min: i64,
    pub max: i64,
    /// Perturbation at the last iteration, in the parameter's units.
    pub c_end: f64,
    /// Learning rate at the last iteration.
    pub r_end: f64,
}

impl SpsaParam {
    /// `NAME` (start at the base value, the range and step of
    /// [`Params::TUNABLES`] as range and `c_end`) or
    /// `NAME=START:MIN:MAX:C_END[:R_END]`; `r_end` applies where the spec
    /// gives none.
    pub fn parse(spec: &str, base: &Params, r_end: f64) -> Result<SpsaParam, String> {
        let (name, rest) = match spec.split_once('=') {
            Some((n, r)) => (n.trim(), Some(r)),
            None => (spec.trim(), None),
        };
        let t: &Tunable = Params::TUNABLES
            .iter()
            .find(|t| t.name == name)
            .ok_or_else(|| format!("unknown search parameter '{name}'"))?;
        let mut p = SpsaParam {
            name: name.to_string(),
            start: base.get(name).expect("every tunable has a value"),
            min: t.min,
            max: t.max,
            c_end: t.step as f64,
            r_end,
        };
        if let Some(rest) = rest {
            let f: Vec<&str> = rest.split(':').map(str::trim).collect();
            if !(4..=5).contains(&f.len()) {
                return Err(format!(
                    "'{spec}': expected NAME or NAME=START:MIN:MAX:C_END[:R_END]"
                ));
            }
            let int = |s: &str| {
                s.parse::<i64>()
                    .map_err(|_| format!("'{spec}': '{s}' is not an integer"))
            };
            let real = |s: &str| match s.parse::<f64>() {
                Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
                _ => Err(format!("'{spec}': '{s}' is not a positive number")),
            };
            p.start = int(f[0])?;
            p.min = int(f[1])?;
            p.max = int(f[2])?;
            p.c_end = real(f[3])?;
            if let Some(r) = f.get(4) {
                p.r_end = real(r)?;
            }
            if p.min < t.min || p.max > t.max {
                return Err(format!(
                    "'{spec}': {name} may range over {} to {}",
                    t.min, t.max
                ));
            }
        }
        if !(p.min < p.max && (p.min..=p.max).contains(&p.start)) {
            return Err(format!(
                "'{spec}': expected MIN < MAX and START between them"
            ));
        }
        if !(p.r_end.is_finite() && p.r_end > 0.0) {
            return Err(format!("'{spec}': the learning rate must be positive"));
        }
        Ok(p)
    }

    /// `NAME=START:MIN:MAX:C_END:R_END`, as [`SpsaParam::parse`] reads it.
    pub fn spec(&self) -> String {
        format!(
            "{}={}:{}:{}:{}:{}",
            self.name, self.start, self.min, self.max, self.c_end, self.r_end
        )
    }

    /// A value the engine is given: rounded and within the range.
    fn engine_value(&self, x: f64) -> i64 {
        (x.round() as i64).clamp(self.min, self.max)
    }
}

/// What bounds each move's search in the tuning games.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoveLimit {
    Nodes(u64),
    Millis(u64),
}

impl MoveLimit {
    fn limits(self) -> Limits {
        match self {
            MoveLimit::Nodes(n) => Limits::nodes(n),
            MoveLimit::Millis(ms) => Limits::movetime(Duration::from_millis(ms)),
        }
    }

    fn spec(self) -> String {
        match self {
            MoveLimit::Nodes(n) => format!("{n} nodes"),
            MoveLimit::Millis(ms) => format!("{ms} ms"),
        }
    }
}

/// A tuning run.
#[derive(Clone, Debug)]
pub struct SpsaConfig {
    pub rule: Rule,
    pub size: usize,
    /// The openings games start from (each a legal, undecided move list).
    pub openings: Vec<Vec<Pos>>,
    pub params: Vec<SpsaParam>,
    /// Everything not tuned.
    pub base: Params,
    pub eval: Evaluator,
    /// Iterations of the whole run (the gain schedule's `N`).
    pub iterations: usize,
    /// Game pairs in each iteration.
    pub pairs: usize,
    pub threads: usize,
    pub seed: u64,
    pub limit: MoveLimit,
    /// Transposition table of each player, bytes.
    pub hash_bytes: usize,
    pub alpha: f64,
    pub gamma: f64,
    /// `A` as a share of `iterations`.
    pub a_share: f64,
}

impl SpsaConfig {
    /// A run of `params` with fishtest's schedule constants.
    pub fn new(rule: Rule, size: usize, openings: Vec<Vec<Pos>>, params: Vec<SpsaParam>) -> Self {
        SpsaConfig {
            rule,
            size,
            openings,
            params,
            base: Params::default(),
            eval: Evaluator::shipped(),
            iterations: 1000,
            pairs: 2,
            threads: 1,
            seed: 1,
            limit: MoveLimit::Nodes(20_000),
            hash_bytes: 8 << 20,
            alpha: 0.602,
            gamma: 0.101,
            a_share: 0.1,
        }
    }

    /// Checks the settings: something to tune, no name twice, at least one
    /// opening, iteration, pair and thread, a limit above zero.
    pub fn check(&self) -> Result<(), String> {
        crate::board::check_size(self.size).map_err(|e| e.to_string())?;
        if self.params.is_empty() {
            return Err("no parameter to tune".into());
        }
        for (i, p) in self.params.iter().enumerate() {
            if self.params[..i].iter().any(|q| q.name == p.name) {
                return Err(format!("{} is tuned twice", p.name));
            }
        }
        if self.openings.is_empty() {
            return Err("no opening to play from".into());
        }
        if self.iterations == 0 || self.pairs == 0 || self.threads == 0 {
            return Err("iterations, pairs and threads must be at least 1".into());
        }
        if matches!(self.limit, MoveLimit::Nodes(0) | MoveLimit::Millis(0)) {
            return Err("the move limit must be above zero".into());
        }
        Ok(())
    }

    /// The perturbation and the learning gain (`a_k / c_k^2`) of parameter
    /// `p` at iteration `k` (from 1).
    pub fn gains(&self, p: &SpsaParam, k: usize) -> (f64, f64) {
        let n = self.iterations as f64;
        let big_a = self.a_share * n;
        let c = p.c_end * n.powf(self.gamma);
        let a_end = p.r_end * p.c_end * p.c_end;
        let a = a_end * (big_a + n).powf(self.alpha);
        let k = k as f64;
        let c_k = c / k.powf(self.gamma);
        let a_k = a / (big_a + k).powf(self.alpha);
        (c_k, a_k / (c_k * c_k))
    }

    /// What identifies a run: a state is resumed only under the same.
    fn fingerprint(&self) -> Value {
        json!({
            "rule": self.rule.to_string(),
            "size": self.size,
            "openings": self.openings.len(),
            "params": self.params.iter().map(SpsaParam::spec).collect::<Vec<_>>(),
            "iterations": self.iterations,
            "pairs": self.pairs,
            "seed": self.seed,
            "limit": self.limit.spec(),
            "schedule": [self.alpha, self.gamma, self.a_share],
        })
    }
}

/// Where a run stands: the values and the games so far.
#[derive(Clone, Debug, PartialEq)]
pub struct SpsaState {
    /// Iterations done.
    pub iteration: usize,
    pub theta: Vec<f64>,
    /// Games won by the plus side, by the minus side, drawn.
    pub plus: u64,
    pub minus: u64,
    pub draws: u64,
}

impl SpsaState {
    /// The start of a run.
    pub fn new(cfg: &SpsaConfig) -> SpsaState {
        SpsaState {
            iteration: 0,
            theta: cfg.params.iter().map(|p| p.start as f64).collect(),
            plus: 0,
            minus: 0,
            draws: 0,
        }
    }

    /// The state as JSON, with the run's settings to check on resuming.
    pub fn to_json(&self, cfg: &SpsaConfig) -> String {
        let v = json!({
            "tengen_spsa": 1,
            "run": cfg.fingerprint(),
            "iteration": self.iteration,
            "theta": self.theta,
            "games": {"plus": self.plus, "minus": self.minus, "draws": self.draws},
            "values": self.values_spec(cfg),
        });
        serde_json::to_string_pretty(&v).expect("a JSON value prints")
    }

    /// A state written by [`SpsaState::to_json`] for this same run.
    pub fn from_json(text: &str, cfg: &SpsaConfig) -> Result<SpsaState, String> {
        let v: Value = serde_json::from_str(text).map_err(|e| format!("not a state file: {e}"))?;
        if v["tengen_spsa"] != json!(1) {
            return Err("not a tengen spsa state file".into());
        }
        if v["run"] != cfg.fingerprint() {
            return Err(format!(
                "the state is of another run: {} (this run: {})",
                v["run"],
                cfg.fingerprint()
            ));
        }
        let bad = || "a damaged state file".to_string();
        let theta: Vec<f64> = v["theta"]
            .as_array()
            .ok_or_else(bad)?
            .iter()
            .map(|x| x.as_f64().filter(|x| x.is_finite()).ok_or_else(bad))
            .collect::<Result<_, _>>()?;
        let iteration = v["iteration"].as_u64().ok_or_else(bad)? as usize;
        if theta.len() != cfg.params.len() || iteration > cfg.iterations {
            return Err(bad());
        }
        let g = |k: &str| v["games"][k].as_u64().ok_or_else(bad);
        Ok(SpsaState {
            iteration,
            theta,
            plus: g("plus")?,
            minus: g("minus")?,
            draws: g("draws")?,
        })
    }

    /// The tuned values the engine would play, rounded.
    pub fn values(&self, cfg: &SpsaConfig) -> Vec<(String, i64)> {
        cfg.params
            .iter()
            .zip(&self.theta)
            .map(|(p, &x)| (p.name.clone(), p.engine_value(x)))
            .collect()
    }

    /// The values as `TENGEN_PARAMS` takes them: `name=value,...`.
    pub fn values_spec(&self, cfg: &SpsaConfig) -> String {
        self.values(cfg)
            .iter()
            .map(|(n, v)| format!("{n}={v}"))
            .collect::<Vec<_>>()
            .join(",")
    }
}

/// One game pair of an iteration: the signs drawn and the result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PairResult {
    pub opening: usize,
    /// +1 or -1 for each parameter.
    pub signs: Vec<i8>,
    /// The plus side's games: won, lost, drawn.
    pub won: u8,
    pub lost: u8,
    pub drawn: u8,
}

/// What one iteration played.
#[derive(Clone, Debug, PartialEq)]
pub struct Iteration {
    /// From 1.
    pub k: usize,
    pub pairs: Vec<PairResult>,
    /// The perturbation of each parameter this iteration.
    pub c: Vec<f64>,
}

/// A game from `opening`: black plays with `black`'s parameters. The
/// winner, or `None` for a draw (the board full).
fn play_game(
    cfg: &SpsaConfig,
    opening: &[Pos],
    players: &mut [Searcher; 2],
    black: usize,
) -> Option<Color> {
    let mut board = Board::new(cfg.size, cfg.rule).expect("size checked");
    for &p in opening {
        board.make(p);
    }
    for s in players.iter_mut() {
        s.clear();
    }
    let limits = cfg.limit.limits();
    while !board.is_won() && !board.is_full() {
        let who = if board.side_to_move() == Color::Black {
            black
        } else {
            1 - black
        };
        let r = players[who].search(&mut board, &limits, |_| {});
        match r.best.filter(|&p| board.is_empty(p)) {
            Some(p) => board.make(p),
            // No move: the side to move has lost (renju, every cell
            // forbidden) or the search found nothing to play.
            None => return Some(board.side_to_move().opposite()),
        }
    }
    board.winner()
}

/// The parameters of one side: the base with `theta + sign * c * d`.
fn side_params(cfg: &SpsaConfig, theta: &[f64], c: &[f64], signs: &[i8], sign: f64) -> Params {
    let mut p = cfg.base.clone();
    for (i, sp) in cfg.params.iter().enumerate() {
        let x = theta[i] + sign * c[i] * signs[i] as f64;
        p.set(&sp.name, sp.engine_value(x))
            .expect("a value within the tuned range is within the parameter's");
    }
    p
}

/// Plays iteration `state.iteration + 1` and applies it to `state`.
pub fn step(cfg: &SpsaConfig, state: &mut SpsaState) -> Iteration {
    let k = state.iteration + 1;
    let mut rng = StdRng::seed_from_u64(cfg.seed ^ (k as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let draws: Vec<(usize, Vec<i8>)> = (0..cfg.pairs)
        .map(|_| {
            let opening = rng.gen_range(0..cfg.openings.len());
            let signs = cfg
                .params
                .iter()
                .map(|_| if rng.gen::<bool>() { 1 } else { -1 })
                .collect();
            (opening, signs)
        })
        .collect();
    let gains: Vec<(f64, f64)> = cfg.params.iter().map(|p| cfg.gains(p, k)).collect();
    let c: Vec<f64> = gains.iter().map(|g| g.0).collect();
    let next = AtomicUsize::new(0);
    let mut results: Vec<Option<PairResult>> = vec![None; cfg.pairs];
    let found = std::sync::Mutex::new(&mut results);
    std::thread::scope(|scope| {
        for _ in 0..cfg.threads.max(1) {
            let (next, found, draws, theta, c) = (&next, &found, &draws, &state.theta, &c);
            scope.spawn(move || {
                // The players of this thread (a searcher holds its solver's
                // shared nodes and stays on the thread that made it).
                let players = &mut [0, 1].map(|_| {
                    Searcher::with_eval(cfg.base.clone(), cfg.eval.clone(), cfg.hash_bytes)
                });
                loop {
                    let j = next.fetch_add(1, Ordering::Relaxed);
                    let Some((opening, signs)) = draws.get(j) else {
                        break;
                    };
                    players[0].params = side_params(cfg, theta, c, signs, 1.0);
                    players[1].params = side_params(cfg, theta, c, signs, -1.0);
                    let mut r = PairResult {
                        opening: *opening,
                        signs: signs.clone(),
                        won: 0,
                        lost: 0,
                        drawn: 0,
                    };
                    for black in [0, 1] {
                        let plus = if black == 0 {
                            Color::Black
                        } else {
                            Color::White
                        };
                        match play_game(cfg, &cfg.openings[*opening], players, black) {
                            Some(w) if w == plus => r.won += 1,
                            Some(_) => r.lost += 1,
                            None => r.drawn += 1,
                        }
                    }
                    found.lock().expect("no thread panics holding it")[j] = Some(r);
                }
            });
        }
    });
    let pairs: Vec<PairResult> = results
        .into_iter()
        .map(|r| r.expect("every pair was played"))
        .collect();
    for r in &pairs {
        let score = r.won as f64 - r.lost as f64;
        for (i, sp) in cfg.params.iter().enumerate() {
            let (c_k, r_k) = gains[i];
            let x = state.theta[i] + r_k * c_k * score * r.signs[i] as f64;
            state.theta[i] = x.clamp(sp.min as f64, sp.max as f64);
        }
        state.plus += r.won as u64;
        state.minus += r.lost as u64;
        state.draws += r.drawn as u64;
    }
    state.iteration = k;
    Iteration { k, pairs, c }
}

/// Runs the iterations left in `state`, calling `done(state, iteration)`
/// after each (to save the state and log); `done` returning false stops
/// the run there.
pub fn run(
    cfg: &SpsaConfig,
    state: &mut SpsaState,
    mut done: impl FnMut(&SpsaState, &Iteration) -> bool,
) -> Result<(), String> {
    cfg.check()?;
    while state.iteration < cfg.iterations {
        let it = step(cfg, state);
        if !done(state, &it) {
            break;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(params: &[&str]) -> SpsaConfig {
        let base = Params::default();
        let params = params
            .iter()
            .map(|s| SpsaParam::parse(s, &base, 0.002).unwrap())
            .collect();
        let openings = ["h8i9", "h8h9i8", "g7h8i9j8"]
            .iter()
            .map(|s| crate::types::parse_pos_list(s).unwrap())
            .collect();
        let mut cfg = SpsaConfig::new(Rule::Freestyle, 15, openings, params);
        cfg.limit = MoveLimit::Nodes(300);
        cfg.iterations = 4;
        cfg.pairs = 3;
        cfg.hash_bytes = 1 << 20;
        cfg
    }

    #[test]
    fn parameter_specs_are_read_and_checked() {
        let base = Params::default();
        let p = SpsaParam::parse("rfp_margin", &base, 0.002).unwrap();
        assert_eq!(
            (p.start, p.min, p.max, p.c_end),
            (base.rfp_margin as i64, 0, 1000, 10.0)
        );
        let q = SpsaParam::parse("rfp_margin=90:20:300:15:0.01", &base, 0.002).unwrap();
        assert_eq!(
            (q.start, q.min, q.max, q.c_end, q.r_end),
            (90, 20, 300, 15.0, 0.01)
        );
        assert_eq!(SpsaParam::parse(&q.spec(), &base, 1.0).unwrap(), q);
        for bad in [
            "nope",
            "rfp_margin=1:2:3",
            "rfp_margin=400:20:300:15",
            "rfp_margin=90:300:20:15",
            "rfp_margin=90:20:300:0",
            "rfp_margin=90:20:300:x",
            "rfp_margin=90:-5:300:10",
            "width=9:1:65:1",
        ] {
            assert!(SpsaParam::parse(bad, &base, 0.002).is_err(), "{bad}");
        }
        let mut cfg = config(&["rfp_margin", "rfp_margin=90:20:300:15"]);
        assert!(cfg.check().unwrap_err().contains("twice"));
        cfg.params.pop();
        cfg.openings.clear();
        assert!(cfg.check().is_err());
    }

    #[test]
    fn the_schedule_ends_at_its_end_values() {
        let cfg = config(&["rfp_margin=80:0:1000:10:0.002"]);
        let p = &cfg.params[0];
        let (c_n, r_n) = cfg.gains(p, cfg.iterations);
        assert!((c_n - 10.0).abs() < 1e-9, "{c_n}");
        assert!((r_n - 0.002).abs() < 1e-12, "{r_n}");
        let (c_1, r_1) = cfg.gains(p, 1);
        assert!(c_1 > c_n && r_1 > r_n);
    }

    #[test]
    fn a_run_is_the_same_for_any_threads_and_when_resumed() {
        let mut cfg = config(&["rfp_margin", "razor_margin", "width"]);
        let mut whole = SpsaState::new(&cfg);
        let mut log = Vec::new();
        run(&cfg, &mut whole, |_, it| {
            log.push(it.clone());
            true
        })
        .unwrap();
        assert_eq!(whole.iteration, 4);
        assert_eq!(log.len(), 4);
        let games = whole.plus + whole.minus + whole.draws;
        assert_eq!(games, 4 * 3 * 2);
        // Every pair played both colours of a book opening.
        assert!(log
            .iter()
            .flat_map(|it| &it.pairs)
            .all(|p| p.won + p.lost + p.drawn == 2 && p.opening < 3));
        // Values move only when a pair is not even.
        let moved = whole.theta != SpsaState::new(&cfg).theta;
        let uneven = log.iter().flat_map(|it| &it.pairs).any(|p| p.won != p.lost);
        assert_eq!(moved, uneven);

        // Two threads, stopped after two iterations and resumed from the
        // saved state: the same values.
        cfg.threads = 2;
        let mut part = SpsaState::new(&cfg);
        let mut saved = String::new();
        run(&cfg, &mut part, |s, _| {
            saved = s.to_json(&cfg);
            s.iteration < 2
        })
        .unwrap();
        assert_eq!(part.iteration, 2);
        let mut resumed = SpsaState::from_json(&saved, &cfg).unwrap();
        assert_eq!(resumed, part);
        run(&cfg, &mut resumed, |_, _| true).unwrap();
        assert_eq!(resumed, whole);
        assert!(resumed.values_spec(&cfg).starts_with("rfp_margin="));

        // A state of another run is refused.
        cfg.seed = 2;
        let e = SpsaState::from_json(&saved, &cfg).unwrap_err();
        assert!(e.contains("another run"), "{e}");
        assert!(SpsaState::from_json("{}", &cfg).is_err());
        assert!(SpsaState::from_json("not json", &cfg).is_err());
    }
}
