//! Match statistics: Elo with its 95% error, normalized Elo, LOS, and the
//! sequential probability ratio test, from game (trinomial) or game-pair
//! (pentanomial) counts. The formulas follow fastchess (MIT) and Michel Van
//! den Bergh's "Comments on Normalized Elo"; the tests check them against
//! fastchess's own test vectors.

/// z for a two-sided 95% interval.
const Z95: f64 = 1.959_963_984_540_054;

/// Game results from the first engine's view.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Wdl {
    pub wins: u64,
    pub losses: u64,
    pub draws: u64,
}

/// Results of colour-swapped game pairs: each pair scores 0, 0.5, 1, 1.5 or
/// 2 points; `wl` and `dd` both score 1.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Penta {
    pub ll: u64,
    pub ld: u64,
    pub wl: u64,
    pub dd: u64,
    pub wd: u64,
    pub ww: u64,
}

impl Penta {
    pub fn pairs(&self) -> u64 {
        self.ll + self.ld + self.wl + self.dd + self.wd + self.ww
    }

    /// Adds a pair from the two game scores (1, 0.5 or 0, as 2, 1, 0).
    pub fn add(&mut self, a: u8, b: u8) {
        match (a.min(b), a.max(b)) {
            (0, 0) => self.ll += 1,
            (0, 1) => self.ld += 1,
            (0, 2) => self.wl += 1,
            (1, 1) => self.dd += 1,
            (1, 2) => self.wd += 1,
            _ => self.ww += 1,
        }
    }

    /// [LL, LD, WL, DD, WD, WW] as an array.
    pub fn to_array(&self) -> [u64; 5] {
        [self.ll, self.ld, self.wl + self.dd, self.wd, self.ww]
    }
}

/// Elo estimates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Elo {
    /// Mean score, 0 to 1.
    pub score: f64,
    pub elo: f64,
    /// Half the width of the 95% interval.
    pub elo_error: f64,
    pub nelo: f64,
    pub nelo_error: f64,
    /// Likelihood of superiority, 0 to 1.
    pub los: f64,
}

/// Logistic Elo difference of a mean score.
pub fn score_to_elo(s: f64) -> f64 {
    -400.0 * (1.0 / s - 1.0).log10()
}

/// Mean score of a logistic Elo difference.
pub fn elo_to_score(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// The error function (Abramowitz and Stegun 7.1.26, error below 1.5e-7).
pub fn erf(x: f64) -> f64 {
    let sign = if x < 0.0 { -1.0 } else { 1.0 };
    let x = x.abs();
    let t = 1.0 / (1.0 + 0.327_591_1 * x);
    let poly = t
        * (0.254_829_592
            + t * (-0.284_496_736
                + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    sign * (1.0 - poly * (-x * x).exp())
}

/// Elo from outcomes `values` (per game or per pair, scaled to 0..1) with
/// counts `counts`. `per_pair` uses the pentanomial normalisation.
fn elo_of(values: &[f64], counts: &[u64], per_pair: bool) -> Option<Elo> {
    let n: u64 = counts.iter().sum();
    if n == 0 {
        return None;
    }
    let n_f = n as f64;
    let score: f64 = values
        .iter()
        .zip(counts)
        .map(|(v, &c)| v * c as f64)
        .sum::<f64>()
        / n_f;
    let var: f64 = values
        .iter()
        .zip(counts)
        .map(|(v, &c)| c as f64 / n_f * (v - score).powi(2))
        .sum();
    let var_n = var / n_f;
    let hi = score + Z95 * var_n.sqrt();
    let lo = score - Z95 * var_n.sqrt();
    let scale = 800.0 / std::f64::consts::LN_10;
    let norm = if per_pair {
        (2.0 * var).sqrt()
    } else {
        var.sqrt()
    };
    let nelo_of = |s: f64| (s - 0.5) / norm * scale;
    let los = if var_n > 0.0 {
        (1.0 - erf(-(score - 0.5) / (2.0 * var_n).sqrt())) / 2.0
    } else if score > 0.5 {
        1.0
    } else if score < 0.5 {
        0.0
    } else {
        0.5
    };
    Some(Elo {
        score,
        elo: score_to_elo(score),
        elo_error: (score_to_elo(hi) - score_to_elo(lo)) / 2.0,
        nelo: nelo_of(score),
        nelo_error: (nelo_of(hi) - nelo_of(lo)) / 2.0,
        los,
    })
}

impl Wdl {
    pub fn games(&self) -> u64 {
        self.wins + self.losses + self.draws
    }

    pub fn elo(&self) -> Option<Elo> {
        elo_of(
            &[1.0, 0.5, 0.0],
            &[self.wins, self.draws, self.losses],
            false,
        )
    }
}

impl Penta {
    pub fn elo(&self) -> Option<Elo> {
        elo_of(&[0.0, 0.25, 0.5, 0.75, 1.0], &self.to_array(), true)
    }
}

/// How the SPRT hypotheses are expressed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SprtModel {
    /// Normalized Elo (the default of fastchess and fishtest).
    Normalized,
    /// Logistic Elo.
    Logistic,
    /// BayesElo (trinomial only).
    Bayesian,
}

/// An SPRT set-up.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sprt {
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
    pub model: SprtModel,
}

/// The verdict so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SprtVerdict {
    Continue,
    /// H1 accepted: elo1 is likelier.
    AcceptH1,
    /// H0 accepted: elo0 is likelier.
    AcceptH0,
}

impl Sprt {
    /// Parses `elo0=E0,elo1=E1[,alpha=A,beta=B][,model=normalized|logistic|bayesian]`.
    /// The settings as `parse` reads them (round-trips exactly).
    pub fn spec(&self) -> String {
        let model = match self.model {
            SprtModel::Normalized => "normalized",
            SprtModel::Logistic => "logistic",
            SprtModel::Bayesian => "bayesian",
        };
        format!(
            "elo0={},elo1={},alpha={},beta={},model={model}",
            self.elo0, self.elo1, self.alpha, self.beta
        )
    }

    pub fn parse(s: &str) -> Result<Sprt, String> {
        let mut sprt = Sprt {
            elo0: 0.0,
            elo1: f64::NAN,
            alpha: 0.05,
            beta: 0.05,
            model: SprtModel::Normalized,
        };
        for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (k, v) = part
                .split_once('=')
                .ok_or(format!("bad SPRT part '{part}' (expected key=value)"))?;
            let num = || {
                v.trim()
                    .parse::<f64>()
                    .map_err(|_| format!("bad SPRT number '{v}'"))
            };
            match k.trim() {
                "elo0" => sprt.elo0 = num()?,
                "elo1" => sprt.elo1 = num()?,
                "alpha" => sprt.alpha = num()?,
                "beta" => sprt.beta = num()?,
                "model" => {
                    sprt.model = match v.trim() {
                        "normalized" => SprtModel::Normalized,
                        "logistic" => SprtModel::Logistic,
                        "bayesian" => SprtModel::Bayesian,
                        m => return Err(format!("unknown SPRT model '{m}'")),
                    }
                }
                other => return Err(format!("unknown SPRT key '{other}'")),
            }
        }
        if sprt.elo1.is_nan() {
            return Err("SPRT needs elo1".into());
        }
        if sprt.elo0 >= sprt.elo1 {
            return Err("SPRT: elo0 must be below elo1".into());
        }
        if !(0.0 < sprt.alpha
            && sprt.alpha < 1.0
            && 0.0 < sprt.beta
            && sprt.beta < 1.0
            && sprt.alpha + sprt.beta < 1.0)
        {
            return Err("SPRT: alpha and beta must be in (0, 1) with a sum below 1".into());
        }
        Ok(sprt)
    }

    /// (lower, upper) LLR bounds.
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    pub fn verdict(&self, llr: f64) -> SprtVerdict {
        let (lo, hi) = self.bounds();
        if llr >= hi {
            SprtVerdict::AcceptH1
        } else if llr <= lo {
            SprtVerdict::AcceptH0
        } else {
            SprtVerdict::Continue
        }
    }

    /// The LLR of trinomial counts.
    pub fn llr_wdl(&self, wdl: &Wdl) -> f64 {
        let l = regularize(wdl.losses);
        let d = regularize(wdl.draws);
        let w = regularize(wdl.wins);
        let total = l + d + w;
        let probs = [l / total, d / total, w / total];
        let scores = [0.0, 0.5, 1.0];
        let scale = 800.0 / std::f64::consts::LN_10;
        match self.model {
            SprtModel::Normalized => {
                llr_normalized(total, &scores, &probs, self.elo0 / scale, self.elo1 / scale)
            }
            SprtModel::Bayesian => {
                if wdl.wins == 0 || wdl.losses == 0 {
                    return 0.0;
                }
                let (pl, pw) = (probs[0], probs[2]);
                let drawelo = 200.0 * ((1.0 - pl) / pl * (1.0 - pw) / pw).log10();
                let s0 = bayeselo_to_score(self.elo0, drawelo);
                let s1 = bayeselo_to_score(self.elo1, drawelo);
                llr_logistic(total, &scores, &probs, s0, s1)
            }
            SprtModel::Logistic => llr_logistic(
                total,
                &scores,
                &probs,
                elo_to_score(self.elo0),
                elo_to_score(self.elo1),
            ),
        }
    }

    /// The LLR of pentanomial counts (BayesElo is not defined for pairs:
    /// the logistic model is used).
    pub fn llr_penta(&self, p: &Penta) -> f64 {
        let v = p.to_array().map(regularize);
        let total: f64 = v.iter().sum();
        let probs = v.map(|x| x / total);
        let scores = [0.0, 0.25, 0.5, 0.75, 1.0];
        let scale = 800.0 / std::f64::consts::LN_10;
        match self.model {
            SprtModel::Normalized => {
                let t = |e: f64| std::f64::consts::SQRT_2 * e / scale;
                llr_normalized(total, &scores, &probs, t(self.elo0), t(self.elo1))
            }
            _ => llr_logistic(
                total,
                &scores,
                &probs,
                elo_to_score(self.elo0),
                elo_to_score(self.elo1),
            ),
        }
    }
}

fn regularize(n: u64) -> f64 {
    if n == 0 {
        1e-3
    } else {
        n as f64
    }
}

fn bayeselo_to_score(elo: f64, drawelo: f64) -> f64 {
    let pwin = 1.0 / (1.0 + 10f64.powf((-elo + drawelo) / 400.0));
    let ploss = 1.0 / (1.0 + 10f64.powf((elo + drawelo) / 400.0));
    pwin + 0.5 * (1.0 - pwin - ploss)
}

/// A root of an increasing-through-zero `f` on (a, b) by bisection.
fn bisect(f: impl Fn(f64) -> f64, mut a: f64, mut b: f64, eps: f64) -> f64 {
    // f is +inf-like near one end and -inf-like near the other: orient it.
    let fa_neg = f(a + (b - a) * 1e-12) < 0.0;
    for _ in 0..200 {
        if (b - a).abs() <= eps {
            break;
        }
        let m = (a + b) / 2.0;
        let fm = f(m);
        if fm == 0.0 {
            return m;
        }
        if (fm < 0.0) == fa_neg {
            a = m;
        } else {
            b = m;
        }
    }
    (a + b) / 2.0
}

fn mean(x: &[f64], p: &[f64]) -> f64 {
    x.iter().zip(p).map(|(a, b)| a * b).sum()
}

/// The log-likelihood ratio for mean score s1 against s0: each hypothesis
/// takes the maximum-likelihood distribution with that mean.
fn llr_logistic(total: f64, scores: &[f64], probs: &[f64], s0: f64, s1: f64) -> f64 {
    let n = scores.len();
    let mle = |s: f64| -> Vec<f64> {
        let lo = -1.0 / (scores[n - 1] - s);
        let hi = -1.0 / (scores[0] - s);
        let theta = bisect(
            |x| {
                scores
                    .iter()
                    .zip(probs)
                    .map(|(a, p)| p * (a - s) / (1.0 + x * (a - s)))
                    .sum()
            },
            lo,
            hi,
            1e-12,
        );
        scores
            .iter()
            .zip(probs)
            .map(|(a, p)| p / (1.0 + theta * (a - s)))
            .collect()
    };
    let p0 = mle(s0);
    let p1 = mle(s1);
    let lpr: Vec<f64> = p0.iter().zip(&p1).map(|(a, b)| b.ln() - a.ln()).collect();
    total * mean(&lpr, probs)
}

/// The log-likelihood ratio for normalized Elo t1 against t0.
fn llr_normalized(total: f64, scores: &[f64], probs: &[f64], t0: f64, t1: f64) -> f64 {
    let n = scores.len();
    let mle = |mu_ref: f64, t: f64| -> Vec<f64> {
        let mut p = vec![1.0 / n as f64; n];
        for _ in 0..1000 {
            let mu = mean(scores, &p);
            let var: f64 = scores
                .iter()
                .zip(&p)
                .map(|(a, q)| q * (a - mu).powi(2))
                .sum();
            let sigma = var.sqrt();
            let phi: Vec<f64> = scores
                .iter()
                .map(|a| a - mu_ref - 0.5 * t * sigma * (1.0 + ((a - mu) / sigma).powi(2)))
                .collect();
            let u = phi.iter().cloned().fold(f64::INFINITY, f64::min);
            let v = phi.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            let theta = bisect(
                |x| {
                    phi.iter()
                        .zip(probs)
                        .map(|(f, q)| q * f / (1.0 + x * f))
                        .sum()
                },
                -1.0 / v,
                -1.0 / u,
                1e-12,
            );
            let mut diff: f64 = 0.0;
            for i in 0..n {
                let np = probs[i] / (1.0 + theta * phi[i]);
                diff = diff.max((np - p[i]).abs());
                p[i] = np;
            }
            if diff < 1e-9 {
                break;
            }
        }
        p
    };
    let p0 = mle(0.5, t0);
    let p1 = mle(0.5, t1);
    let lpr: Vec<f64> = p0.iter().zip(&p1).map(|(a, b)| b.ln() - a.ln()).collect();
    total * mean(&lpr, probs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(got: f64, want: f64, what: &str) {
        let tol = (want.abs() * 0.01).max(0.01);
        assert!((got - want).abs() <= tol, "{what}: got {got}, want {want}");
    }

    /// The fastchess vectors in shared/data (about 1% tolerance).
    #[test]
    fn agrees_with_fastchess_vectors() {
        let text = include_str!("../../tests/data/fastchess_sprt_elo_vectors.tsv");
        let mut checked = 0;
        for line in text
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        {
            let f: Vec<&str> = line.split('\t').collect();
            let counts: Vec<u64> = f[1].split(',').map(|c| c.parse().unwrap()).collect();
            let num = |i: usize| f[i].parse::<f64>().ok();
            let model = match f[6] {
                "normalized" => SprtModel::Normalized,
                "logistic" => SprtModel::Logistic,
                "bayesian" => SprtModel::Bayesian,
                _ => SprtModel::Normalized,
            };
            let wdl = || Wdl {
                wins: counts[0],
                losses: counts[1],
                draws: counts[2],
            };
            let penta = || Penta {
                ll: counts[0],
                ld: counts[1],
                wl: counts[2],
                dd: counts[3],
                wd: counts[4],
                ww: counts[5],
            };
            let sprt = || Sprt {
                alpha: num(2).unwrap(),
                beta: num(3).unwrap(),
                elo0: num(4).unwrap(),
                elo1: num(5).unwrap(),
                model,
            };
            match f[0] {
                "sprt_wdl" => close(sprt().llr_wdl(&wdl()), num(7).unwrap(), line),
                "sprt_penta" => close(sprt().llr_penta(&penta()), num(7).unwrap(), line),
                "elo_wdl" | "elo_penta" => {
                    let e = if f[0] == "elo_wdl" {
                        wdl().elo()
                    } else {
                        penta().elo()
                    }
                    .unwrap();
                    if let Some(v) = num(8) {
                        close(e.nelo, v, &format!("nelo {line}"));
                    }
                    if let Some(v) = num(9) {
                        close(e.nelo_error, v, &format!("nelo error {line}"));
                    }
                    if let Some(v) = num(10) {
                        close(e.elo, v, &format!("elo {line}"));
                    }
                    if let Some(v) = num(11) {
                        close(e.elo_error, v, &format!("elo error {line}"));
                    }
                    if let Some(v) = num(12) {
                        close(e.los * 100.0, v, &format!("los {line}"));
                    }
                    if let Some(v) = num(13) {
                        close(e.score, v, &format!("score {line}"));
                    }
                }
                other => panic!("unknown kind {other}"),
            }
            checked += 1;
        }
        assert_eq!(checked, 18);
    }

    #[test]
    fn sprt_parsing_and_bounds() {
        let s = Sprt::parse("elo0=0,elo1=5").unwrap();
        let (lo, hi) = s.bounds();
        close(lo, -2.944, "lower");
        close(hi, 2.944, "upper");
        assert_eq!(s.verdict(3.0), SprtVerdict::AcceptH1);
        assert_eq!(s.verdict(-3.0), SprtVerdict::AcceptH0);
        assert!(Sprt::parse("elo0=5,elo1=0").is_err());
        assert!(Sprt::parse("elo0=0").is_err());
        assert!(Sprt::parse("elo0=0,elo1=5,alpha=2").is_err());
        assert!(Sprt::parse("elo0=0,elo1=x").is_err());
        assert_eq!(
            Sprt::parse("elo0=-1,elo1=3,model=logistic").unwrap().model,
            SprtModel::Logistic
        );
    }

    #[test]
    fn penta_pairs() {
        let mut p = Penta::default();
        p.add(2, 0);
        p.add(1, 1);
        p.add(2, 2);
        p.add(0, 1);
        assert_eq!((p.wl, p.dd, p.ww, p.ld), (1, 1, 1, 1));
        assert_eq!(p.pairs(), 4);
    }
}
