//! Trains tengen's network evaluator ([`tengen::eval::net`]) on self-play
//! games, with candle (CPU; a well-kept tensor library with autograd, in
//! Rust, so the trainer reuses the engine's own board and pattern code
//! and a fresh machine builds it from crates.io alone).
//!
//! The float model is the engine's arithmetic with the scales divided out
//! (see the table in `tengen::eval::net`): per colour, the sum over empty
//! cells of learned vectors of the cell's pattern code and pair of classes
//! (and, with `--lines`, of its shape along each of its four lines), both sums clipped
//! to [0, 1], a hidden layer clipped to [0, 1], one output added to the
//! shipped tables' value. Code 0 (a cell with nothing near it) has no
//! vector: most cells are such, and leaving them out keeps the sums small.
//! A position's prediction is `sigmoid((tables + network) / K)`, fitted by
//! cross-entropy to `lambda * result + (1 - lambda) * sigmoid(score / K)`,
//! as `pbrain-tengen tune` fits the tables. The output layer starts at
//! zero, so the fit starts from the tables' own loss.
//!
//! [`quantise`] rounds the model to the engine's integers;
//! [`reference_output`] recomputes the integer network with tensors (in
//! f64, exact on these integers), a check of the engine's own inference.

use candle_core::{DType, Device, Tensor, Var, D};
use candle_nn::{AdamW, Optimizer, ParamsAdamW};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use std::sync::Arc;
use tengen::board::{
    line_feature, pair_feature, Board, CodeVectors, ALL_FEATURES, CHANNELS, DIRS, NFEATURES,
};
use tengen::eval::net::{Head, Net, HIDDEN, INPUTS, MASK_BITS, WO_LIMIT};
use tengen::eval::weights::threat_mask;
use tengen::eval::Evaluator;
use tengen::learn::data::GameRecord;
use tengen::pattern::Class;
use tengen::search::is_decisive;
use tengen::types::{Color, Rule};

pub type Result<T> = candle_core::Result<T>;

/// The pair of a cell with no class for either colour: like code 0, it
/// has no vector (most empty cells are such).
const NO_PAIR: usize = pair_feature(0, 0);

/// Largest first-layer weight (int16 at scale 1024, at most 8192).
pub const W1_LIMIT: f64 = 8.0;
/// The output layer's parameters are kept in units of this many
/// evaluation units, so that all parameters are of order 1 for the
/// optimiser.
pub const OUT_SCALE: f64 = 256.0;

/// Positions of one rule, flattened.
#[derive(Default, Clone)]
pub struct Dataset {
    /// The features per colour: [`NFEATURES`] (codes and pairs), or
    /// [`ALL_FEATURES`] (and line shapes).
    pub features: usize,
    /// Sample i's codes: `codes[start[i]..mid[i]]` for the side to move,
    /// `codes[mid[i]..start[i + 1]]` for the other side (features: codes,
    /// then pairs as `pair_feature`, then line shapes as `line_feature`;
    /// code 0 and the empty pair left out).
    start: Vec<u32>,
    mid: Vec<u32>,
    codes: Vec<u16>,
    /// Colour to move (0 black, 1 white).
    side: Vec<u8>,
    /// The shipped tables' value for the side to move.
    table: Vec<f32>,
    mask: Vec<u16>,
    /// Game result for the side to move: 1, 0.5 or 0.
    result: Vec<f32>,
    /// Search score for the side to move.
    score: Vec<f32>,
    /// Where each sample comes from: (game index, ply).
    pub origin: Vec<(u32, u16)>,
}

impl Dataset {
    pub fn len(&self) -> usize {
        self.side.len()
    }

    pub fn is_empty(&self) -> bool {
        self.side.is_empty()
    }

    fn push(
        &mut self,
        board: &Board,
        eval: &Evaluator,
        result: f32,
        score: f32,
        origin: (u32, u16),
    ) {
        if self.start.is_empty() {
            self.start.push(0);
        }
        let me = board.side_to_move();
        for (i, c) in [me, me.opposite()].into_iter().enumerate() {
            for p in board.cells().iter() {
                if board.stone(p).is_none() {
                    let code = board.code(c, p);
                    if code != 0 {
                        self.codes.push(code as u16);
                    }
                    let pair =
                        pair_feature(board.class(c, p) as u8, board.class(c.opposite(), p) as u8);
                    if pair != NO_PAIR {
                        self.codes.push(pair as u16);
                    }
                    if self.features == ALL_FEATURES {
                        for d in 0..DIRS {
                            if let Some(s) = board.line_shape(c, p, d) {
                                self.codes.push(line_feature(s) as u16);
                            }
                        }
                    }
                }
            }
            if i == 0 {
                self.mid.push(self.codes.len() as u32);
            }
        }
        self.start.push(self.codes.len() as u32);
        self.side.push(me.index() as u8);
        self.table.push(eval.evaluate(board) as f32);
        self.mask
            .push(threat_mask(|c, k| board.count(c, k) > 0, me) as u16);
        self.result.push(result);
        self.score.push(score);
        self.origin.push(origin);
    }
}

/// Which games are held out for validation: a share of them, whole.
pub fn held_out(game_index: usize, validation: f64) -> bool {
    (game_index * 7919) % 1000 < (validation.clamp(0.0, 1.0) * 1000.0) as usize
}

/// The training and validation sets from the games of `rule`: every
/// searched position not already decided (no five to make or to block, no
/// proven score), as `pbrain-tengen tune` takes them; with line shapes
/// among the features when `lines`.
pub fn build_datasets(
    games: &[GameRecord],
    rule: Rule,
    validation: f64,
    lines: bool,
) -> (Dataset, Dataset) {
    // The tables alone: the network is fitted on top of them (a shipped
    // network is replaced, not added to).
    let eval = Evaluator::shipped().without_nets();
    let features = if lines { ALL_FEATURES } else { NFEATURES };
    let empty = Dataset {
        features,
        ..Dataset::default()
    };
    let mut sets = (empty.clone(), empty);
    for (gi, g) in games.iter().enumerate().filter(|(_, g)| g.rule == rule) {
        let Ok(mut board) = Board::new_rect(g.width, g.height, g.rule) else {
            continue;
        };
        eval.attach(&mut board);
        let set = if held_out(gi, validation) {
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
                let result = match g.winner {
                    None => 0.5,
                    Some(w) if w == me => 1.0,
                    Some(_) => 0.0,
                };
                set.push(&board, &eval, result, score as f32, (gi as u32, ply as u16));
            }
            if board.try_play(mv).is_err() {
                break;
            }
        }
    }
    sets
}

/// One batch as tensors.
pub struct Batch {
    /// (B, slots * NFEATURES): feature counts of the side to move, in its slot.
    own: Tensor,
    /// The same for the other side.
    other: Tensor,
    /// (B, MASK_BITS): the threat-mask bits, 0 or 1.
    bits: Tensor,
    /// (B, slots): one-hot colour to move (renju), or ones.
    side: Tensor,
    /// (B, 1)
    table: Tensor,
    /// (B, 1): the target probability.
    target: Tensor,
    /// Sum of the targets' own entropy (the loss of a perfect fit).
    entropy: f64,
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// How to fit.
#[derive(Clone, Debug)]
pub struct FitConfig {
    pub rule: Rule,
    pub epochs: usize,
    pub batch: usize,
    /// AdamW's step size at the start; it falls along a half cosine to
    /// `lr_end` at the last step.
    pub lr: f64,
    pub lr_end: f64,
    /// Weight of the game result in the target (the rest: search score).
    pub lambda: f64,
    /// Scale of `sigmoid(value / K)`; found from the data when `None`.
    pub k: Option<f64>,
    pub seed: u64,
}

impl Default for FitConfig {
    fn default() -> FitConfig {
        FitConfig {
            rule: Rule::Freestyle,
            epochs: 10,
            batch: 4096,
            lr: 1e-3,
            lr_end: 1e-4,
            lambda: 0.5,
            k: None,
            seed: 1,
        }
    }
}

/// The float model.
pub struct Model {
    pub rule: Rule,
    /// Colour slots: 2 under renju (each colour its own vectors and, for
    /// the side to move, its own layers), else 1.
    pub slots: usize,
    /// Features per colour slot ([`Dataset::features`]).
    pub features: usize,
    /// (slots * features, CHANNELS)
    pub embed: Var,
    /// Per slot: w1 (INPUTS, HIDDEN), b1 (HIDDEN), wm (MASK_BITS, HIDDEN),
    /// wo (HIDDEN, 1), bo (1).
    pub heads: Vec<[Var; 5]>,
}

pub fn slots(rule: Rule) -> usize {
    if rule == Rule::Renju {
        2
    } else {
        1
    }
}

impl Model {
    /// A new model over `features` features a colour ([`NFEATURES`] or
    /// [`ALL_FEATURES`]): small random vectors and first layer, zero
    /// output.
    pub fn new(rule: Rule, seed: u64, features: usize) -> Result<Model> {
        let dev = Device::Cpu;
        let slots = slots(rule);
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let mut normal = |n: usize, std: f64| -> Vec<f32> {
            use rand::Rng;
            (0..n)
                .map(|_| {
                    // Box-Muller.
                    let (u, v): (f64, f64) = (rng.gen_range(1e-12..1.0), rng.gen());
                    ((-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos() * std) as f32
                })
                .collect()
        };
        let mut e = normal(slots * features * CHANNELS, 0.02);
        for s in 0..slots {
            // Code 0 and the empty pair have no vector.
            for f in [0, NO_PAIR] {
                let at = (s * features + f) * CHANNELS;
                e[at..at + CHANNELS].fill(0.0);
            }
        }
        let embed = Var::from_vec(e, (slots * features, CHANNELS), &dev)?;
        let mut heads = Vec::new();
        for _ in 0..slots {
            let w1 = normal(INPUTS * HIDDEN, 1.0 / (INPUTS as f64).sqrt());
            heads.push([
                Var::from_vec(w1, (INPUTS, HIDDEN), &dev)?,
                Var::from_vec(vec![0.1f32; HIDDEN], HIDDEN, &dev)?,
                Var::zeros((MASK_BITS, HIDDEN), DType::F32, &dev)?,
                Var::zeros((HIDDEN, 1), DType::F32, &dev)?,
                Var::zeros(1, DType::F32, &dev)?,
            ]);
        }
        Ok(Model {
            rule,
            slots,
            features,
            embed,
            heads,
        })
    }

    pub fn vars(&self) -> Vec<Var> {
        let mut v = vec![self.embed.clone()];
        for h in &self.heads {
            v.extend(h.iter().cloned());
        }
        v
    }

    /// The network's output (B, 1), in evaluation units.
    pub fn forward(&self, b: &Batch) -> Result<Tensor> {
        let e = self.embed.as_tensor();
        let own = b.own.matmul(e)?;
        let other = b.other.matmul(e)?;
        let x = Tensor::cat(&[&own, &other], 1)?.clamp(0f32, 1f32)?;
        let mut out: Option<Tensor> = None;
        for (s, [w1, b1, wm, wo, bo]) in self.heads.iter().enumerate() {
            let z = x
                .matmul(w1.as_tensor())?
                .add(&b.bits.matmul(wm.as_tensor())?)?
                .broadcast_add(b1.as_tensor())?;
            let h = z.clamp(0f32, 1f32)?;
            let o = h
                .matmul(wo.as_tensor())?
                .broadcast_add(bo.as_tensor())?
                .affine(OUT_SCALE, 0.0)?;
            let o = if self.slots == 1 {
                o
            } else {
                o.mul(&b.side.narrow(1, s, 1)?)?
            };
            out = Some(match out {
                None => o,
                Some(t) => t.add(&o)?,
            });
        }
        Ok(out.expect("at least one head"))
    }

    /// Sum of the cross-entropy over the batch, and the same less the
    /// targets' entropy (0 for a perfect fit), as f64.
    pub fn loss(&self, b: &Batch, k: f64) -> Result<(Tensor, f64)> {
        let logit = self.forward(b)?.add(&b.table)?.affine(1.0 / k, 0.0)?;
        // softplus(z) - t z, softplus(z) = relu(z) + ln(1 + e^-|z|).
        let softplus = logit
            .relu()?
            .add(&logit.abs()?.neg()?.exp()?.affine(1.0, 1.0)?.log()?)?;
        let per = softplus.sub(&logit.mul(&b.target)?)?;
        let sum = per.sum_all()?;
        let excess = sum.to_scalar::<f32>()? as f64 - b.entropy;
        Ok((sum, excess))
    }

    /// Keeps the first layer within the engine's limit.
    pub fn clip(&self) -> Result<()> {
        for h in &self.heads {
            h[0].set(&h[0].as_tensor().clamp(-W1_LIMIT as f32, W1_LIMIT as f32)?)?;
        }
        Ok(())
    }
}

/// Assembles samples `idx` of `d` into tensors.
pub fn batch(d: &Dataset, idx: &[usize], slots: usize, lambda: f64, k: f64) -> Result<Batch> {
    let dev = Device::Cpu;
    let n = idx.len();
    let nf = d.features;
    let width = slots * nf;
    let mut own = vec![0f32; n * width];
    let mut other = vec![0f32; n * width];
    let mut bits = vec![0f32; n * MASK_BITS];
    let mut side = vec![0f32; n * slots];
    let mut table = Vec::with_capacity(n);
    let mut target = Vec::with_capacity(n);
    let mut entropy = 0.0;
    for (r, &i) in idx.iter().enumerate() {
        let me = d.side[i] as usize;
        let (s_me, s_other) = if slots == 2 { (me, 1 - me) } else { (0, 0) };
        let (a, m, z) = (
            d.start[i] as usize,
            d.mid[i] as usize,
            d.start[i + 1] as usize,
        );
        for &c in &d.codes[a..m] {
            own[r * width + s_me * nf + c as usize] += 1.0;
        }
        for &c in &d.codes[m..z] {
            other[r * width + s_other * nf + c as usize] += 1.0;
        }
        for (bit, x) in bits[r * MASK_BITS..(r + 1) * MASK_BITS]
            .iter_mut()
            .enumerate()
        {
            *x = ((d.mask[i] >> bit) & 1) as f32;
        }
        side[r * slots + if slots == 2 { me } else { 0 }] = 1.0;
        table.push(d.table[i]);
        let t = lambda * d.result[i] as f64 + (1.0 - lambda) * sigmoid(d.score[i] as f64 / k);
        if t > 0.0 && t < 1.0 {
            entropy -= t * t.ln() + (1.0 - t) * (1.0 - t).ln();
        }
        target.push(t as f32);
    }
    Ok(Batch {
        own: Tensor::from_vec(own, (n, width), &dev)?,
        other: Tensor::from_vec(other, (n, width), &dev)?,
        bits: Tensor::from_vec(bits, (n, MASK_BITS), &dev)?,
        side: Tensor::from_vec(side, (n, slots), &dev)?,
        table: Tensor::from_vec(table, (n, 1), &dev)?,
        target: Tensor::from_vec(target, (n, 1), &dev)?,
        entropy,
    })
}

/// The K that best fits the game results with the tables alone, found
/// as `pbrain-tengen tune` finds it.
pub fn fit_k(d: &Dataset) -> f64 {
    let loss = |k: f64| -> f64 {
        (0..d.len())
            .map(|i| {
                let p = sigmoid(d.table[i] as f64 / k).clamp(1e-9, 1.0 - 1e-9);
                let t = d.result[i] as f64;
                -(t * p.ln() + (1.0 - t) * (1.0 - p).ln())
            })
            .sum()
    };
    tengen::learn::tune::best_k(loss)
}

/// Mean loss (less the targets' entropy) of the model on a whole set.
pub fn evaluate_loss(m: &Model, d: &Dataset, cfg: &FitConfig, k: f64) -> Result<f64> {
    if d.is_empty() {
        return Ok(0.0);
    }
    let all: Vec<usize> = (0..d.len()).collect();
    let mut total = 0.0;
    for chunk in all.chunks(cfg.batch.max(1)) {
        let b = batch(d, chunk, m.slots, cfg.lambda, k)?;
        total += m.loss(&b, k)?.1;
    }
    Ok(total / d.len() as f64)
}

/// Progress of a fit.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    pub epoch: usize,
    /// Batches done in this epoch, of `batches`.
    pub batch: usize,
    pub batches: usize,
    /// Mean training loss of this epoch's batches so far.
    pub train: f64,
    /// Validation loss, after a whole epoch (epoch 0: before any step).
    pub validation: Option<f64>,
}

/// Fits `m` to `train` with AdamW, the step size falling from `cfg.lr` to
/// `cfg.lr_end` along a half cosine; `report` gets the losses before the
/// first step (epoch 0) and progress during each epoch; `checkpoint` gets
/// the model after the first epoch and after each one whose validation
/// loss is the lowest so far (so the last one is the best fit, not an
/// overfit one).
pub fn fit(
    m: &Model,
    train: &Dataset,
    validation: &Dataset,
    cfg: &FitConfig,
    k: f64,
    mut report: impl FnMut(&Progress),
    mut checkpoint: impl FnMut(&Model, usize) -> Result<()>,
) -> Result<()> {
    let mut opt = AdamW::new(
        m.vars(),
        ParamsAdamW {
            lr: cfg.lr,
            weight_decay: 0.0,
            ..Default::default()
        },
    )?;
    let mut rng = rand::rngs::StdRng::seed_from_u64(cfg.seed);
    let mut order: Vec<usize> = (0..train.len()).collect();
    let batches = train.len().div_ceil(cfg.batch.max(1));
    let mut best = evaluate_loss(m, validation, cfg, k)?;
    report(&Progress {
        epoch: 0,
        batch: 0,
        batches,
        train: evaluate_loss(m, train, cfg, k)?,
        validation: Some(best),
    });
    let steps = (cfg.epochs * batches).max(1) as f64;
    let mut step = 0usize;
    for epoch in 1..=cfg.epochs {
        order.shuffle(&mut rng);
        let (mut sum, mut seen) = (0.0, 0usize);
        for (bi, chunk) in order.chunks(cfg.batch.max(1)).enumerate() {
            let t = step as f64 / steps;
            opt.set_learning_rate(
                cfg.lr_end + 0.5 * (cfg.lr - cfg.lr_end) * (1.0 + (std::f64::consts::PI * t).cos()),
            );
            step += 1;
            let b = batch(train, chunk, m.slots, cfg.lambda, k)?;
            let (loss, excess) = m.loss(&b, k)?;
            opt.backward_step(&loss.affine(1.0 / chunk.len() as f64, 0.0)?)?;
            m.clip()?;
            sum += excess;
            seen += chunk.len();
            report(&Progress {
                epoch,
                batch: bi + 1,
                batches,
                train: sum / seen as f64,
                validation: None,
            });
        }
        let v = evaluate_loss(m, validation, cfg, k)?;
        report(&Progress {
            epoch,
            batch: batches,
            batches,
            train: sum / seen.max(1) as f64,
            validation: Some(v),
        });
        if v < best || epoch == 1 {
            best = best.min(v);
            checkpoint(m, epoch)?;
        }
    }
    Ok(())
}

fn round_to(x: f32, scale: f64, limit: i64) -> i64 {
    ((x as f64 * scale).round() as i64).clamp(-limit, limit)
}

/// The model in the engine's integers: vectors x4096 (int16), first layer
/// x1024 (int16), its biases and mask vectors x2^20, output x8, output
/// bias x8192 (the output layer in evaluation units: times [`OUT_SCALE`]).
pub fn quantise(m: &Model, notes: Vec<String>) -> Result<Net> {
    let mut net = Net::zero(m.rule);
    net.notes = notes;
    let e = m.embed.as_tensor().to_vec2::<f32>()?;
    let mut vectors = CodeVectors::new();
    vectors.set_lines(m.features == ALL_FEATURES);
    for c in [Color::Black, Color::White] {
        let s = if m.slots == 2 { c.index() } else { 0 };
        for code in 0..m.features {
            let mut v = [0i16; CHANNELS];
            for (k, x) in v.iter_mut().enumerate() {
                *x = round_to(e[s * m.features + code][k], 4096.0, i16::MAX as i64) as i16;
            }
            vectors.set(c, code, v);
        }
    }
    net.vectors = Arc::new(vectors);
    for c in [Color::Black, Color::White] {
        let s = if m.slots == 2 { c.index() } else { 0 };
        let [w1, b1, wm, wo, bo] = &m.heads[s];
        let mut h = Head::zero();
        for (i, row) in w1.as_tensor().to_vec2::<f32>()?.iter().enumerate() {
            for (j, &w) in row.iter().enumerate() {
                h.set_w1(
                    j,
                    i,
                    round_to(w, 1024.0, tengen::eval::net::W1_LIMIT) as i16,
                );
            }
        }
        for (j, &b) in b1.as_tensor().to_vec1::<f32>()?.iter().enumerate() {
            h.b1[j] = round_to(b, 1048576.0, 100_000_000) as i32;
        }
        for (bit, row) in wm.as_tensor().to_vec2::<f32>()?.iter().enumerate() {
            for (j, &w) in row.iter().enumerate() {
                h.wm[bit][j] = round_to(w, 1048576.0, 100_000_000) as i32;
            }
        }
        for (j, row) in wo.as_tensor().to_vec2::<f32>()?.iter().enumerate() {
            h.wo[j] = round_to(row[0], 8.0 * OUT_SCALE, WO_LIMIT) as i32;
        }
        h.bo = round_to(
            bo.as_tensor().to_vec1::<f32>()?[0],
            8192.0 * OUT_SCALE,
            100_000_000,
        ) as i32;
        *net.heads[c.index()] = h;
    }
    Ok(net)
}

/// The integer network's output on samples `idx`, recomputed with tensors
/// from the network's own integers (f64 holds them exactly): the value
/// the engine must give.
pub fn reference_output(net: &Net, d: &Dataset, idx: &[usize]) -> Result<Vec<i64>> {
    let dev = Device::Cpu;
    let slots = slots(net.rule);
    let nf = net.vectors.features();
    if d.features != nf {
        candle_core::bail!("the data has {} features, the network {nf}", d.features);
    }
    let b = batch(d, idx, slots, 1.0, 1.0)?;
    let mut e = Vec::with_capacity(slots * nf * CHANNELS);
    for s in 0..slots {
        let c = [Color::Black, Color::White][s];
        for code in 0..nf {
            e.extend(net.vectors.get(c, code).iter().map(|&v| v as f64));
        }
    }
    let e = Tensor::from_vec(e, (slots * nf, CHANNELS), &dev)?;
    let f64s = |t: &Tensor| t.to_dtype(DType::F64);
    let own = f64s(&b.own)?.matmul(&e)?;
    let other = f64s(&b.other)?.matmul(&e)?;
    // round(a / 2^s) as the engine computes it: floor((a + 2^(s-1)) / 2^s).
    let round = |t: &Tensor, s: f64| -> Result<Tensor> {
        t.affine(1.0, s / 2.0)?.affine(1.0 / s, 0.0)?.floor()
    };
    let x = round(&Tensor::cat(&[&own, &other], 1)?, 4.0)?.clamp(0f64, 1024f64)?;
    let bits = f64s(&b.bits)?;
    let mut out = vec![0i64; idx.len()];
    for (r, &i) in idx.iter().enumerate() {
        let h = &net.heads[d.side[i] as usize];
        let w1: Vec<f64> = (0..HIDDEN)
            .flat_map(|j| (0..INPUTS).map(move |i| h.w1(j, i) as f64))
            .collect();
        let w1 = Tensor::from_vec(w1, (HIDDEN, INPUTS), &dev)?.t()?;
        let wm: Vec<f64> = h.wm.iter().flatten().map(|&w| w as f64).collect();
        let wm = Tensor::from_vec(wm, (MASK_BITS, HIDDEN), &dev)?;
        let b1 = Tensor::from_vec(h.b1.map(|v| v as f64).to_vec(), (1, HIDDEN), &dev)?;
        let wo = Tensor::from_vec(h.wo.map(|v| v as f64).to_vec(), (HIDDEN, 1), &dev)?;
        let z = x
            .narrow(0, r, 1)?
            .matmul(&w1)?
            .add(&bits.narrow(0, r, 1)?.matmul(&wm)?)?
            .add(&b1)?;
        let hidden = round(&z, 1024.0)?.clamp(0f64, 1024f64)?;
        let o = round(&hidden.matmul(&wo)?.affine(1.0, h.bo as f64)?, 8192.0)?;
        out[r] = o.flatten_all()?.to_vec1::<f64>()?[0] as i64;
    }
    Ok(out)
}

/// The float model's output on samples `idx` (evaluation units).
pub fn float_output(m: &Model, d: &Dataset, idx: &[usize]) -> Result<Vec<f32>> {
    let b = batch(d, idx, m.slots, 1.0, 1.0)?;
    m.forward(&b)?.squeeze(D::Minus1)?.to_vec1::<f32>()
}
