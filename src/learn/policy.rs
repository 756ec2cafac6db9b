//! Fits the move-ordering tables (the policy) to labelled positions.
//!
//! A quiet node keeps its best `width` candidates by a static score, so a
//! move the score ranks low is never searched there. The score of an empty
//! cell `c` for the side to move `S` is `own[S][code_S(c)] +
//! opp[S][code_T(c)]`: what the cell makes for us and what it takes from
//! the opponent `T`, each looked up by the cell's pattern code. Fitting
//! treats the scores of a position's candidates as the logits of a softmax
//! (`score / T`, T chosen first as the scale that best fits the starting
//! tables) and minimises the cross-entropy of the labelled move, the one a
//! wider and deeper search chose; the held-out part reports the loss and
//! how often the labelled move is first, or among the best 8.
//!
//! Floats are used only here, in fitting: the tables run as integers.

use super::adam::Adam;
use crate::board::rules::is_banned;
use crate::board::Board;
use crate::eval::policy::{policy_features, recent_moves, POLICY_FEATURES, POLICY_LEN};
use crate::types::{Pos, Rule};
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::SeedableRng;

/// Table sets: one per colour to move under renju, one otherwise.
pub fn slots(rule: Rule) -> usize {
    if rule == Rule::Renju {
        2
    } else {
        1
    }
}

/// Features of one candidate (see [`policy_features`]).
const K: usize = POLICY_FEATURES;

/// Positions as candidate lists: per candidate, the indices of its table
/// entries in the flat parameter vector (`slot * POLICY_LEN + entry`); per
/// position, the labelled candidate.
#[derive(Clone, Debug, Default)]
pub struct PolicySet {
    feats: Vec<u32>,
    start: Vec<u32>,
    target: Vec<u32>,
}

impl PolicySet {
    pub fn len(&self) -> usize {
        self.target.len()
    }

    pub fn is_empty(&self) -> bool {
        self.target.is_empty()
    }

    /// Adds the position on `board` with `label` as the move to predict.
    /// Returns false (and adds nothing) when the label is not one of the
    /// candidates.
    pub fn push(&mut self, board: &mut Board, label: Pos) -> bool {
        let me = board.side_to_move();
        let slot = if slots(board.rule()) == 2 {
            me.index()
        } else {
            0
        };
        let base = (slot * POLICY_LEN) as u32;
        let first = self.feats.len();
        if self.start.is_empty() {
            self.start.push(0);
        }
        let recent = recent_moves(board);
        let mut target = None;
        for p in board.candidates().iter() {
            if is_banned(board, me, p) {
                continue;
            }
            if p == label {
                target = Some(((self.feats.len() - first) / K) as u32);
            }
            for f in policy_features(board, me, p, recent) {
                self.feats.push(base + f as u32);
            }
        }
        match target {
            Some(t) => {
                self.target.push(t);
                self.start.push((self.feats.len() / K) as u32);
                true
            }
            None => {
                self.feats.truncate(first);
                false
            }
        }
    }

    fn range(&self, i: usize) -> std::ops::Range<usize> {
        self.start[i] as usize..self.start[i + 1] as usize
    }

    fn logit(&self, w: &[f64], c: usize) -> f64 {
        self.feats[K * c..K * c + K]
            .iter()
            .map(|&f| w[f as usize])
            .sum()
    }
}

/// The flat parameter vector of per-colour tables (see [`PolicySet`]).
pub fn flatten<T: std::ops::Deref<Target = [i32; POLICY_LEN]>>(
    tables: &[T; 2],
    rule: Rule,
) -> Vec<f64> {
    tables
        .iter()
        .take(slots(rule))
        .flat_map(|t| t.iter().map(|&v| v as f64))
        .collect()
}

/// The tables back from a flat vector, rounded to integers.
pub fn unflatten(v: &[f64], rule: Rule) -> [Box<[i32; POLICY_LEN]>; 2] {
    let mut out = [Box::new([0; POLICY_LEN]), Box::new([0; POLICY_LEN])];
    for (s, t) in out.iter_mut().enumerate() {
        let base = s.min(slots(rule) - 1) * POLICY_LEN;
        for (i, e) in t.iter_mut().enumerate() {
            *e = v[base + i].round() as i32;
        }
    }
    out
}

/// Loss and accuracy of the tables on a set.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PolicyReport {
    pub epoch: usize,
    /// Mean cross-entropy of the labelled move.
    pub loss: f64,
    /// Share of positions whose labelled move ranks first.
    pub top1: f64,
    /// Share whose labelled move is among the best 8.
    pub top8: f64,
}

/// Measures `w` (scores divided by `temp`) on `set`. Ties rank the
/// labelled move behind the others, as the worst case.
pub fn measure(w: &[f64], set: &PolicySet, temp: f64) -> PolicyReport {
    let (mut loss, mut top1, mut top8) = (0.0, 0usize, 0usize);
    let mut logits = Vec::new();
    for i in 0..set.len() {
        let r = set.range(i);
        logits.clear();
        logits.extend(r.map(|c| set.logit(w, c) / temp));
        let t = logits[set.target[i] as usize];
        let max = logits.iter().cloned().fold(f64::MIN, f64::max);
        let sum: f64 = logits.iter().map(|l| (l - max).exp()).sum();
        loss += max + sum.ln() - t;
        let above = logits.iter().filter(|&&l| l >= t).count() - 1;
        top1 += (above == 0) as usize;
        top8 += (above < 8) as usize;
    }
    let n = set.len().max(1) as f64;
    PolicyReport {
        epoch: 0,
        loss: loss / n,
        top1: top1 as f64 / n,
        top8: top8 as f64 / n,
    }
}

/// The temperature that best fits `set` with tables `w`: a scan over a
/// log grid.
pub fn fit_temp(w: &[f64], set: &PolicySet) -> f64 {
    let mut best = (f64::MAX, 1.0);
    let mut t = 1.0;
    while t < 2000.0 {
        let l = measure(w, set, t).loss;
        if l < best.0 {
            best = (l, t);
        }
        t *= 1.25;
    }
    best.1
}

/// How to fit.
#[derive(Clone, Debug)]
pub struct PolicyConfig {
    pub epochs: usize,
    /// Adam step size, in score units.
    pub lr: f64,
    pub batch: usize,
    /// Pull of each entry towards its starting value (L2, per position).
    pub reg: f64,
    pub seed: u64,
}

impl Default for PolicyConfig {
    fn default() -> PolicyConfig {
        PolicyConfig {
            epochs: 20,
            lr: 1.0,
            batch: 256,
            reg: 1e-4,
            seed: 1,
        }
    }
}

/// Fits `start` (a flat vector) to `train` by Adam on the softmax
/// cross-entropy; reports the held-out set before the first epoch and after
/// each. Returns the fitted vector and the temperature.
pub fn fit(
    start: &[f64],
    train: &PolicySet,
    validation: &PolicySet,
    cfg: &PolicyConfig,
    mut report: impl FnMut(&PolicyReport, &PolicyReport),
) -> (Vec<f64>, f64) {
    let temp = fit_temp(start, train);
    let mut w = start.to_vec();
    let show = |w: &[f64], epoch: usize, report: &mut dyn FnMut(&PolicyReport, &PolicyReport)| {
        let mut a = measure(w, train, temp);
        let mut b = measure(w, validation, temp);
        a.epoch = epoch;
        b.epoch = epoch;
        report(&a, &b);
    };
    show(&w, 0, &mut report);
    let mut adam = Adam::new(w.len(), cfg.lr, cfg.reg);
    let mut order: Vec<usize> = (0..train.len()).collect();
    let mut rng = StdRng::seed_from_u64(cfg.seed);
    let mut grad = vec![0.0; w.len()];
    let mut touched = vec![false; w.len()];
    let mut probs = Vec::new();
    for epoch in 1..=cfg.epochs {
        order.shuffle(&mut rng);
        for batch in order.chunks(cfg.batch.max(1)) {
            grad.iter_mut().for_each(|g| *g = 0.0);
            let scale = 1.0 / (temp * batch.len() as f64);
            for &i in batch {
                let r = train.range(i);
                probs.clear();
                probs.extend(r.clone().map(|c| train.logit(&w, c) / temp));
                let max = probs.iter().cloned().fold(f64::MIN, f64::max);
                let mut sum = 0.0;
                for p in probs.iter_mut() {
                    *p = (*p - max).exp();
                    sum += *p;
                }
                for (k, c) in r.enumerate() {
                    let y = (k == train.target[i] as usize) as u8 as f64;
                    let d = (probs[k] / sum - y) * scale;
                    for &f in &train.feats[K * c..K * c + K] {
                        grad[f as usize] += d;
                        touched[f as usize] = true;
                    }
                }
            }
            adam.step(&mut w, &grad, start, Some(&touched));
        }
        show(&w, epoch, &mut report);
    }
    (w, temp)
}

/// How to label positions for fitting.
#[derive(Clone, Debug)]
pub struct LabelConfig {
    /// Label every `every`-th position (after each game's opening)...
    pub every: usize,
    /// ...starting from this one.
    pub offset: usize,
    /// Nodes of the labelling search.
    pub nodes: u64,
    pub threads: usize,
    /// The search's parameters, each game's by its rule and board (the
    /// root keeps every candidate).
    pub params: crate::search::tuned::ParamSets,
    /// The search's evaluation.
    pub eval: crate::eval::Evaluator,
}

impl Default for LabelConfig {
    fn default() -> LabelConfig {
        LabelConfig {
            every: 5,
            offset: 0,
            nodes: 30_000,
            threads: 2,
            params: crate::search::tuned::ParamSets::default(),
            eval: crate::eval::Evaluator::shipped(),
        }
    }
}

/// One labelled position: the game's moves up to it, and the move the
/// labelling search chose.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Label {
    pub rule: Rule,
    pub size: usize,
    pub moves: Vec<Pos>,
    pub best: Pos,
}

impl Label {
    /// One line: `RULE SIZE MOVES BEST` (pos notation, `-` for no moves).
    pub fn to_line(&self) -> String {
        let moves: String = self.moves.iter().map(|p| p.to_pos_string()).collect();
        format!(
            "{} {} {} {}",
            self.rule,
            self.size,
            if moves.is_empty() { "-" } else { &moves },
            self.best.to_pos_string()
        )
    }

    /// Reads a line written by [`Label::to_line`]; the position must be
    /// legal and the labelled cell empty.
    pub fn parse(line: &str) -> Result<Label, String> {
        let w: Vec<&str> = line.split_whitespace().collect();
        let [rule, size, moves, best] = w[..] else {
            return Err(format!("expected 'RULE SIZE MOVES BEST', got '{line}'"));
        };
        let rule: Rule = rule.parse().map_err(|e| format!("{e}"))?;
        let size: usize = size.parse().map_err(|_| format!("bad size '{size}'"))?;
        let moves = if moves == "-" {
            Vec::new()
        } else {
            crate::types::parse_pos_list(moves).map_err(|e| format!("{e}"))?
        };
        let best = Pos::parse_pos(best).map_err(|e| format!("{e}"))?;
        let label = Label {
            rule,
            size,
            moves,
            best,
        };
        let board = label.board()?;
        if !board.contains(best.x(), best.y()) || !board.is_empty(best) {
            return Err(format!(
                "the labelled cell {} is not empty",
                best.to_pos_string()
            ));
        }
        Ok(label)
    }

    /// The position.
    pub fn board(&self) -> Result<Board, String> {
        let mut b = Board::new(self.size, self.rule).map_err(|e| format!("{e}"))?;
        for &p in &self.moves {
            b.try_play(p).map_err(|e| format!("{e}"))?;
        }
        Ok(b)
    }
}

/// The positions [`label_games`] labels, in its order: (game, ply) of
/// every `cfg.every`-th position after the games' openings, from the
/// `cfg.offset`-th on. A position may still get no label (a threat to
/// answer, an odd board).
pub fn label_jobs(
    games: &[crate::learn::data::GameRecord],
    cfg: &LabelConfig,
) -> Vec<(usize, usize)> {
    let mut jobs = Vec::new();
    let mut n = 0usize;
    for (g, rec) in games.iter().enumerate() {
        for ply in rec.opening..rec.moves.len() {
            if n % cfg.every.max(1) == cfg.offset {
                jobs.push((g, ply));
            }
            n += 1;
        }
    }
    jobs
}

/// Labels self-play positions with the move a search that keeps every
/// candidate at its root chooses: the positions of [`label_jobs`] from
/// the `skip`-th on, those in which the side to move has no threat to
/// answer. `done(k, total, label)` is called for each position in order
/// (k from `skip`, `label` `None` where it got none), so a caller can
/// write them as they come and a later run go on from where this one
/// stopped. Returns the labels. The result does not depend on the thread
/// count.
pub fn label_games(
    games: &[crate::learn::data::GameRecord],
    cfg: &LabelConfig,
    skip: usize,
    mut done: impl FnMut(usize, usize, Option<&Label>) + Send,
) -> Vec<Label> {
    use crate::movegen::{generate, NodeKind};
    use crate::search::{Limits, Searcher};
    use std::collections::BTreeMap;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Mutex;
    let jobs = label_jobs(games, cfg);
    let total = jobs.len();
    let next = AtomicUsize::new(skip);
    // Finished positions wait here until every earlier one is finished:
    // (the next to hand on, those waiting, the labels handed on).
    struct Out<F> {
        next: usize,
        waiting: BTreeMap<usize, Option<Label>>,
        labels: Vec<Label>,
        done: F,
    }
    let out = Mutex::new(Out {
        next: skip,
        waiting: BTreeMap::new(),
        labels: Vec::new(),
        done: &mut done,
    });
    std::thread::scope(|s| {
        for _ in 0..cfg.threads.max(1) {
            s.spawn(|| {
                let mut searcher = Searcher::with_eval(
                    cfg.params.for_game(crate::types::Rule::Freestyle, 15),
                    cfg.eval.clone(),
                    16 << 20,
                );
                let mut moves = Vec::new();
                loop {
                    let k = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&(g, ply)) = jobs.get(k) else { break };
                    let rec = &games[g];
                    let label = (|| {
                        if rec.width != rec.height {
                            return None;
                        }
                        let mut board = Board::new_rect(rec.width, rec.height, rec.rule).ok()?;
                        for &p in &rec.moves[..ply] {
                            board.try_play(p).ok()?;
                        }
                        if board.is_won() || board.is_full() {
                            return None;
                        }
                        let any = |_: &Board, _: Pos| 0;
                        if generate(&mut board, &any, usize::MAX, &[], &mut moves)
                            != NodeKind::Quiet
                        {
                            return None;
                        }
                        let mut params = cfg.params.for_game(rec.rule, rec.width);
                        params.root_width = 1000;
                        searcher.params = params;
                        searcher.clear();
                        let r = searcher.search(&mut board, &Limits::nodes(cfg.nodes), |_| {});
                        Some(Label {
                            rule: rec.rule,
                            size: rec.width,
                            moves: rec.moves[..ply].to_vec(),
                            best: r.best?,
                        })
                    })();
                    let mut o = out.lock().unwrap_or_else(|e| e.into_inner());
                    o.waiting.insert(k, label);
                    loop {
                        let at = o.next;
                        let Some(l) = o.waiting.remove(&at) else {
                            break;
                        };
                        (o.done)(at, total, l.as_ref());
                        o.labels.extend(l);
                        o.next += 1;
                    }
                }
            });
        }
    });
    out.into_inner().unwrap_or_else(|e| e.into_inner()).labels
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::ordering::handset_tables;
    use crate::search::params::Params;

    fn games() -> Vec<crate::learn::data::GameRecord> {
        crate::learn::selfplay::small_games(12)
    }

    #[test]
    fn labels_read_back_and_do_not_depend_on_threads() {
        let games = games();
        let cfg = |threads| LabelConfig {
            every: 3,
            nodes: 500,
            threads,
            ..LabelConfig::default()
        };
        let one = label_games(&games, &cfg(1), 0, |_, _, _| {});
        let mut order = Vec::new();
        let two = label_games(&games, &cfg(2), 0, |k, _, l| order.push((k, l.cloned())));
        assert!(one.len() > 20, "{} labels", one.len());
        assert_eq!(one, two);
        // Handed on in order, every position once, labelled or not.
        let jobs = label_jobs(&games, &cfg(2)).len();
        assert_eq!(
            order.iter().map(|o| o.0).collect::<Vec<_>>(),
            (0..jobs).collect::<Vec<_>>()
        );
        let handed: Vec<Label> = order.iter().filter_map(|o| o.1.clone()).collect();
        assert_eq!(handed, one);
        // A run that skips the first positions labels the rest the same.
        let k = jobs / 2;
        let before = order[..k].iter().filter(|o| o.1.is_some()).count();
        let rest = label_games(&games, &cfg(2), k, |_, _, _| {});
        assert_eq!(rest[..], one[before..]);
        for l in &one {
            assert_eq!(Label::parse(&l.to_line()).unwrap(), *l);
            // Each label is a legal move of a position nobody has won.
            let b = l.board().unwrap();
            assert!(!b.is_won() && b.is_empty(l.best));
        }
        for (line, want) in [
            ("freestyle 15 h8", "expected"),
            ("freestyle 15 h8i9 h8", "not empty"),
            ("freestyle 15 h8h8 i9", "taken"),
            ("chess 15 h8 i9", "rule"),
            ("freestyle 15 - z99", ""),
        ] {
            let e = Label::parse(line).unwrap_err();
            assert!(e.to_lowercase().contains(want), "{line}: {e}");
        }
    }

    #[test]
    fn fitting_lowers_the_loss_and_runs_as_integers() {
        // Labels from a deeper search on small self-play games: the fit
        // lowers the training loss from the hand-set tables, and the
        // rounded tables score the positions as the fitted ones do.
        let games = games();
        let labels = label_games(
            &games,
            &LabelConfig {
                every: 2,
                nodes: 800,
                ..LabelConfig::default()
            },
            0,
            |_, _, _| {},
        );
        let mut set = PolicySet::default();
        for l in &labels {
            set.push(&mut l.board().unwrap(), l.best);
        }
        assert!(set.len() > 50, "{}", set.len());
        let rule = Rule::Freestyle;
        let w0 = flatten(&handset_tables(&Params::default(), rule), rule);
        let cfg = PolicyConfig {
            epochs: 15,
            lr: 5.0,
            batch: 32,
            reg: 0.0,
            seed: 3,
        };
        let mut losses = Vec::new();
        let (w, temp) = fit(&w0, &set, &set, &cfg, |t, _| losses.push(t.loss));
        assert_eq!(losses.len(), 16);
        assert!(
            losses[15] < losses[0] - 0.1,
            "loss {} -> {}",
            losses[0],
            losses[15]
        );
        let rounded = flatten(&unflatten(&w, rule), rule);
        let a = measure(&w, &set, temp).loss;
        let b = measure(&rounded, &set, temp).loss;
        assert!((a - b).abs() < 0.05, "{a} vs {b}");
    }
}
