//! Fits the evaluation tables to self-play games by logistic regression.
//!
//! The evaluation is linear in its tables: a position's value for the side
//! to move `S` is the sum of `own[S][code]` over the empty cells' codes for
//! `S`, less `opp[T][code]` over the codes for the other side `T`, plus
//! `threat[S][mask]`. So each position becomes a sparse vector of counts,
//! and the tables are fitted so that `sigmoid(value / K)` predicts the
//! target: the game's result for `S` (1, 1/2, 0) blended with
//! `sigmoid(search score / K)`. K is chosen first, as the scale that best
//! fits the results with the starting tables. Adam minimises the
//! cross-entropy on a training part of the games; the rest (whole games)
//! is held out and its loss reported every epoch.
//!
//! Floats are used only here, in fitting: the tables are written and run
//! as integers.

use super::adam::Adam;
use super::data::GameRecord;
use crate::board::{Board, CodeValues};
use crate::eval::weights::{threat_mask, Weights, NMASKS};
use crate::pattern::pcode::NCODES;
use crate::pattern::Class;
use crate::search::is_decisive;
use crate::types::{Color, Rule};
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use std::sync::Arc;

/// How to fit.
#[derive(Clone, Debug)]
pub struct TuneConfig {
    pub rule: Rule,
    pub epochs: usize,
    /// Adam step size, in evaluation units.
    pub lr: f64,
    pub batch: usize,
    /// Weight of the game result in the target (the rest: search score).
    pub lambda: f64,
    /// Share of the games held out for validation.
    pub validation: f64,
    /// Pull of each table entry towards its starting value (L2).
    pub reg: f64,
    /// Scale of `sigmoid(value / K)`; found from the data when `None`.
    pub k: Option<f64>,
    pub seed: u64,
}

impl Default for TuneConfig {
    fn default() -> TuneConfig {
        TuneConfig {
            rule: Rule::Freestyle,
            epochs: 20,
            lr: 1.0,
            batch: 4096,
            lambda: 0.5,
            validation: 0.1,
            reg: 1e-7,
            k: None,
            seed: 1,
        }
    }
}

/// Positions as sparse feature vectors.
#[derive(Default)]
pub struct Dataset {
    /// Feature entries of sample i: `start[i]..start[i + 1]`.
    start: Vec<u32>,
    index: Vec<u32>,
    count: Vec<f32>,
    /// Game result for the side to move: 1, 0.5 or 0.
    result: Vec<f32>,
    /// Search score for the side to move.
    score: Vec<f32>,
}

impl Dataset {
    pub fn len(&self) -> usize {
        self.result.len()
    }

    pub fn is_empty(&self) -> bool {
        self.result.is_empty()
    }

    fn features(&self, i: usize) -> impl Iterator<Item = (usize, f64)> + '_ {
        let (a, b) = (self.start[i] as usize, self.start[i + 1] as usize);
        (a..b).map(|j| (self.index[j] as usize, self.count[j] as f64))
    }
}

/// Table layout in the parameter vector: per slot (colour under renju,
/// one shared slot otherwise) own codes, opponent codes, threat masks.
#[derive(Clone, Copy, Debug)]
pub struct Layout {
    pub slots: usize,
}

impl Layout {
    const PER_SLOT: usize = 2 * NCODES + NMASKS;

    pub fn of(rule: Rule) -> Layout {
        Layout {
            slots: if rule == Rule::Renju { 2 } else { 1 },
        }
    }

    pub fn len(&self) -> usize {
        self.slots * Layout::PER_SLOT
    }

    pub fn is_empty(&self) -> bool {
        false
    }

    fn slot(&self, c: Color) -> usize {
        if self.slots == 2 {
            c.index()
        } else {
            0
        }
    }

    fn own(&self, c: Color, code: usize) -> usize {
        self.slot(c) * Layout::PER_SLOT + code
    }

    fn opp(&self, c: Color, code: usize) -> usize {
        self.slot(c) * Layout::PER_SLOT + NCODES + code
    }

    fn threat(&self, c: Color, mask: usize) -> usize {
        self.slot(c) * Layout::PER_SLOT + 2 * NCODES + mask
    }

    /// The parameter vector of a set of tables (slot 0 is black's).
    pub fn flatten(&self, w: &Weights) -> Vec<f64> {
        let mut v = vec![0.0; self.len()];
        for c in [Color::Black, Color::White].iter().take(self.slots) {
            for code in 0..NCODES {
                v[self.own(*c, code)] = w.cells.own(*c, code) as f64;
                v[self.opp(*c, code)] = w.cells.opp(*c, code) as f64;
            }
            for mask in 0..NMASKS {
                v[self.threat(*c, mask)] = w.threat[c.index()][mask] as f64;
            }
        }
        v
    }

    /// Tables from a parameter vector, rounded to integers.
    pub fn unflatten(&self, v: &[f64], rule: Rule) -> Weights {
        let mut w = Weights::zero(rule);
        let mut cells = CodeValues::new();
        let r = |x: f64| x.round().clamp(-1e6, 1e6) as i32;
        for c in [Color::Black, Color::White] {
            for code in 0..NCODES {
                cells.set_own(c, code, r(v[self.own(c, code)]));
                cells.set_opp(c, code, r(v[self.opp(c, code)]));
            }
            for mask in 0..NMASKS {
                w.threat[c.index()][mask] = r(v[self.threat(c, mask)]);
            }
        }
        w.cells = Arc::new(cells);
        w
    }
}

/// Adds the features of `board` (side to move's view) to `out` as
/// (parameter, count) pairs.
pub fn position_features(board: &Board, layout: Layout, out: &mut Vec<(u32, f32)>) {
    out.clear();
    let me = board.side_to_move();
    let opp = me.opposite();
    let mut dense: Vec<(u32, f32)> = Vec::with_capacity(256);
    for p in board.cells().iter() {
        if board.stone(p).is_some() {
            continue;
        }
        dense.push((layout.own(me, board.code(me, p)) as u32, 1.0));
        dense.push((layout.opp(opp, board.code(opp, p)) as u32, -1.0));
    }
    let mask = threat_mask(|c, k| board.count(c, k) > 0, me);
    dense.push((layout.threat(me, mask) as u32, 1.0));
    dense.sort_unstable_by_key(|e| e.0);
    for (i, c) in dense {
        match out.last_mut() {
            Some(last) if last.0 == i => last.1 += c,
            _ => out.push((i, c)),
        }
    }
}

/// Builds the training and validation sets from the games of `rule`:
/// every searched position that is not already decided (no five to make
/// or to block, no proven result).
pub fn build_datasets(games: &[GameRecord], cfg: &TuneConfig) -> (Dataset, Dataset) {
    let layout = Layout::of(cfg.rule);
    let mut sets = (Dataset::default(), Dataset::default());
    sets.0.start.push(0);
    sets.1.start.push(0);
    let mut feats = Vec::new();
    let hold = (cfg.validation.clamp(0.0, 1.0) * 1000.0) as usize;
    for (gi, g) in games.iter().enumerate().filter(|(_, g)| g.rule == cfg.rule) {
        let Ok(mut board) = Board::new_rect(g.width, g.height, g.rule) else {
            continue;
        };
        let set = if (gi * 7919) % 1000 < hold {
            &mut sets.1
        } else {
            &mut sets.0
        };
        for (ply, &mv) in g.moves.iter().enumerate() {
            let me = board.side_to_move();
            let score = g.scores.get(ply).copied().unwrap_or(0) as i32;
            let quiet = board.count(me, Class::Five) == 0
                && board.count(me.opposite(), Class::Five) == 0
                && !is_decisive(score);
            if ply >= g.opening && quiet {
                position_features(&board, layout, &mut feats);
                for &(i, c) in &feats {
                    set.index.push(i);
                    set.count.push(c);
                }
                set.start.push(set.index.len() as u32);
                set.result.push(match g.winner {
                    None => 0.5,
                    Some(w) if w == me => 1.0,
                    Some(_) => 0.0,
                });
                set.score.push(score as f32);
            }
            if board.try_play(mv).is_err() {
                break;
            }
        }
    }
    sets
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// Cross-entropy of a prediction, less the target's own entropy (0 for a
/// perfect fit).
fn bce(p: f64, t: f64) -> f64 {
    let p = p.clamp(1e-9, 1.0 - 1e-9);
    let h = |q: f64| {
        if q <= 0.0 || q >= 1.0 {
            0.0
        } else {
            q * q.ln()
        }
    };
    -(t * p.ln() + (1.0 - t) * (1.0 - p).ln()) + h(t) + h(1.0 - t)
}

fn value(w: &[f64], d: &Dataset, i: usize) -> f64 {
    d.features(i).map(|(j, c)| w[j] * c).sum()
}

fn target(d: &Dataset, i: usize, lambda: f64, k: f64) -> f64 {
    lambda * d.result[i] as f64 + (1.0 - lambda) * sigmoid(d.score[i] as f64 / k)
}

/// Mean loss of tables `w` on a set.
pub fn loss(w: &[f64], d: &Dataset, lambda: f64, k: f64) -> f64 {
    if d.is_empty() {
        return 0.0;
    }
    let total: f64 = (0..d.len())
        .map(|i| bce(sigmoid(value(w, d, i) / k), target(d, i, lambda, k)))
        .sum();
    total / d.len() as f64
}

/// The K that best fits the game results with tables `w` (a log grid,
/// refined twice).
pub fn fit_k(w: &[f64], d: &Dataset) -> f64 {
    best_k(|k| loss(w, d, 1.0, k))
}

/// The K in 20..5000 with the least `loss(K)`: a log grid of 21 points,
/// refined twice around the best.
pub fn best_k(loss: impl Fn(f64) -> f64) -> f64 {
    let (mut lo, mut hi) = (20.0f64, 5000.0f64);
    let mut best = 200.0;
    for _ in 0..3 {
        let mut best_loss = f64::INFINITY;
        for j in 0..=20 {
            let k = lo * (hi / lo).powf(j as f64 / 20.0);
            let l = loss(k);
            if l < best_loss {
                best_loss = l;
                best = k;
            }
        }
        let step = (hi / lo).powf(1.0 / 20.0);
        lo = best / step;
        hi = best * step;
    }
    best
}

/// One line of progress.
#[derive(Clone, Copy, Debug)]
pub struct EpochReport {
    pub epoch: usize,
    pub train: f64,
    pub validation: f64,
}

/// The result of a fit.
pub struct TuneResult {
    pub weights: Weights,
    pub k: f64,
    pub initial: EpochReport,
    pub last: EpochReport,
    pub train_positions: usize,
    pub validation_positions: usize,
}

/// Fits `start` to the data; `report` gets the losses before the first
/// epoch (epoch 0) and after each.
pub fn tune(
    start: &Weights,
    train: &Dataset,
    validation: &Dataset,
    cfg: &TuneConfig,
    mut report: impl FnMut(&EpochReport),
) -> TuneResult {
    let layout = Layout::of(cfg.rule);
    let w0 = layout.flatten(start);
    let mut w = w0.clone();
    let k = cfg.k.unwrap_or_else(|| fit_k(&w, train));
    let eval = |w: &[f64], epoch| EpochReport {
        epoch,
        train: loss(w, train, cfg.lambda, k),
        validation: loss(w, validation, cfg.lambda, k),
    };
    let initial = eval(&w, 0);
    report(&initial);
    let mut last = initial;
    let mut adam = Adam::new(w.len(), cfg.lr, cfg.reg);
    let mut order: Vec<usize> = (0..train.len()).collect();
    let mut rng = StdRng::seed_from_u64(cfg.seed);
    let mut grad = vec![0.0; w.len()];
    for epoch in 1..=cfg.epochs {
        order.shuffle(&mut rng);
        for batch in order.chunks(cfg.batch.max(1)) {
            grad.iter_mut().for_each(|g| *g = 0.0);
            for &i in batch {
                let p = sigmoid(value(&w, train, i) / k);
                let d = (p - target(train, i, cfg.lambda, k)) / k / batch.len() as f64;
                for (j, c) in train.features(i) {
                    grad[j] += d * c;
                }
            }
            adam.step(&mut w, &grad, &w0, None);
        }
        last = eval(&w, epoch);
        report(&last);
    }
    let mut weights = layout.unflatten(&w, cfg.rule);
    // The move-ordering tables are not fitted here: they stay as they were.
    weights.policy = start.policy.clone();
    TuneResult {
        weights,
        k,
        initial,
        last,
        train_positions: train.len(),
        validation_positions: validation.len(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::{evaluate, Evaluator};

    #[test]
    fn features_reproduce_the_engine_evaluation() {
        for rule in [Rule::Freestyle, Rule::Renju] {
            let e = Evaluator::shipped();
            let w = e.weights(rule);
            let layout = Layout::of(rule);
            let flat = layout.flatten(w);
            let board = crate::perft::position_from_moves(15, rule, "h8i9h9i8g7j10k7h10").unwrap();
            let mut feats = Vec::new();
            position_features(&board, layout, &mut feats);
            let v: f64 = feats
                .iter()
                .map(|&(i, c)| flat[i as usize] * c as f64)
                .sum();
            assert_eq!(v as i32, evaluate(&board, w), "{rule}");
        }
    }

    #[test]
    fn k_is_found_from_the_results() {
        // One feature whose value predicts the result as sigmoid(v / 250).
        let mut d = Dataset::default();
        d.start.push(0);
        for i in 0..2000 {
            let v = (i % 41) as f64 * 25.0 - 500.0;
            d.index.push(0);
            d.count.push(v as f32);
            d.start.push(d.index.len() as u32);
            let p = sigmoid(v / 250.0);
            // Results in proportion p, spread evenly.
            d.result.push(if ((i * 37) % 100) as f64 / 100.0 < p {
                1.0
            } else {
                0.0
            });
            d.score.push(0.0);
        }
        let k = fit_k(&[1.0], &d);
        assert!((150.0..400.0).contains(&k), "{k}");
    }

    #[test]
    fn tune_lowers_the_loss_on_generated_games() {
        let games = crate::learn::selfplay::small_games(16);
        let tc = TuneConfig {
            epochs: 30,
            batch: 256,
            lr: 2.0,
            validation: 0.2,
            k: Some(300.0),
            ..TuneConfig::default()
        };
        let (train, validation) = build_datasets(&games, &tc);
        assert!(train.len() > 100 && !validation.is_empty());
        let mut epochs = 0;
        let shipped = Weights::shipped(Rule::Freestyle).unwrap();
        let r = tune(&shipped, &train, &validation, &tc, |_| epochs += 1);
        assert_eq!(epochs, 31);
        assert_eq!(r.k, 300.0);
        assert!(
            r.last.train < r.initial.train,
            "{:?} -> {:?}",
            r.initial,
            r.last
        );
        // The move-ordering tables of the start are kept.
        assert!(shipped.policy.is_some());
        assert!(r.weights.policy == shipped.policy);
        // What was written reads back, policy included.
        let text = r.weights.to_text();
        let back = Weights::parse(&text, Some(Rule::Freestyle)).unwrap();
        assert!(back.policy == r.weights.policy);
    }
}
