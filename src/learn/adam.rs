//! The Adam optimiser over a flat parameter vector, with an L2 pull of
//! each entry towards its starting value: the one step both fits (the
//! evaluation tables and the move-ordering tables) take.

/// Adam's state: first and second moment estimates and the step count.
pub struct Adam {
    m: Vec<f64>,
    v: Vec<f64>,
    step: i32,
    /// Step size.
    pub lr: f64,
    /// L2 pull towards the start.
    pub reg: f64,
}

const B1: f64 = 0.9;
const B2: f64 = 0.999;
const EPS: f64 = 1e-12;

impl Adam {
    pub fn new(len: usize, lr: f64, reg: f64) -> Adam {
        Adam {
            m: vec![0.0; len],
            v: vec![0.0; len],
            step: 0,
            lr,
            reg,
        }
    }

    /// One step of `w` down `grad` (plus the pull towards `start`). With
    /// `touched`, entries never touched by a gradient are left as they are.
    pub fn step(&mut self, w: &mut [f64], grad: &[f64], start: &[f64], touched: Option<&[bool]>) {
        self.step += 1;
        let (c1, c2) = (1.0 - B1.powi(self.step), 1.0 - B2.powi(self.step));
        for j in 0..w.len() {
            if touched.is_some_and(|t| !t[j]) {
                continue;
            }
            let g = grad[j] + self.reg * (w[j] - start[j]);
            self.m[j] = B1 * self.m[j] + (1.0 - B1) * g;
            self.v[j] = B2 * self.v[j] + (1.0 - B2) * g * g;
            w[j] -= self.lr * (self.m[j] / c1) / ((self.v[j] / c2).sqrt() + EPS);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minimises_a_quadratic_and_leaves_untouched_entries() {
        // f(w) = (w0 - 3)^2 + (w1 + 1)^2; w2 never gets a gradient.
        let start = [0.0, 0.0, 5.0];
        let mut w = start;
        let mut adam = Adam::new(3, 0.1, 0.0);
        let touched = [true, true, false];
        for _ in 0..500 {
            let grad = [2.0 * (w[0] - 3.0), 2.0 * (w[1] + 1.0), 1.0];
            adam.step(&mut w, &grad, &start, Some(&touched));
        }
        assert!(
            (w[0] - 3.0).abs() < 0.01 && (w[1] + 1.0).abs() < 0.01,
            "{w:?}"
        );
        assert_eq!(w[2], 5.0);
        // The pull towards the start holds a free entry there.
        let mut w = [1.0];
        let mut adam = Adam::new(1, 0.05, 1.0);
        for _ in 0..500 {
            adam.step(&mut w, &[0.0], &[0.0], None);
        }
        assert!(w[0].abs() < 0.01, "{w:?}");
    }
}
