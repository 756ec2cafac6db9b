//! What the learning commands share on the command line: their progress
//! on stderr (indicatif's bar on a terminal; in a log, one plain line
//! each twentieth of the way) and `MIN-MAX` arguments, parsed by clap.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;

/// The progress of a long command on stderr.
pub struct Progress {
    /// The bar, on a terminal.
    bar: Option<ProgressBar>,
    what: &'static str,
    unit: &'static str,
    total: u64,
    /// The twentieth last logged (without a terminal).
    logged: Option<u64>,
}

impl Progress {
    /// Progress of `what` (`selfplay`) over `total` `unit`s (`games`).
    pub fn new(what: &'static str, total: u64, unit: &'static str) -> Progress {
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
            let template = format!("{what} [{{bar:30}}] {{pos}}/{{len}} {unit}, {{msg}}");
            if let Ok(style) = ProgressStyle::with_template(&template) {
                bar.set_style(style.progress_chars("#>."));
            }
            bar
        });
        Progress {
            bar,
            what,
            unit,
            total,
            logged: None,
        }
    }

    /// `done` of the total so far, with `msg` (rates, counts) after it.
    pub fn set(&mut self, done: u64, msg: String) {
        match &self.bar {
            Some(bar) => {
                bar.set_position(done);
                bar.set_message(msg);
            }
            None => {
                let step = done * 20 / self.total.max(1);
                if self.logged != Some(step) {
                    self.logged = Some(step);
                    eprintln!("{} {done}/{} {}, {msg}", self.what, self.total, self.unit);
                }
            }
        }
    }

    /// Leaves the bar's last state on the terminal.
    pub fn finish(self) {
        if let Some(bar) = self.bar {
            bar.finish();
        }
    }
}

/// A `MIN-MAX` argument (`3-8`): two numbers, the first no more than the
/// second.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MinMax<T>(pub T, pub T);

impl<T: Copy> MinMax<T> {
    pub fn pair(self) -> (T, T) {
        (self.0, self.1)
    }
}

impl<T: std::str::FromStr + PartialOrd> std::str::FromStr for MinMax<T> {
    type Err = String;

    fn from_str(s: &str) -> Result<MinMax<T>, String> {
        let bad = || format!("'{s}' is not MIN-MAX (two whole numbers, as 3-8)");
        let (lo, hi) = s.split_once('-').ok_or_else(bad)?;
        let lo: T = lo.trim().parse().map_err(|_| bad())?;
        let hi: T = hi.trim().parse().map_err(|_| bad())?;
        if lo > hi {
            return Err(format!("'{s}': MIN is above MAX"));
        }
        Ok(MinMax(lo, hi))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn min_max_reads_two_ordered_numbers() {
        assert_eq!("3-8".parse::<MinMax<usize>>(), Ok(MinMax(3, 8)));
        assert_eq!(" 2 - 2 ".parse::<MinMax<i32>>(), Ok(MinMax(2, 2)));
        for bad in ["3", "3-", "-3", "a-b", "3-8-9", ""] {
            assert!(bad.parse::<MinMax<usize>>().is_err(), "{bad}");
        }
        let e = "8-3".parse::<MinMax<usize>>().unwrap_err();
        assert!(e.contains("MIN is above MAX"), "{e}");
    }
}
