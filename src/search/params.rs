//! The search's tunable constants and hand-set move-ordering weights, in
//! one place. Integers only: no floats in search decisions. Every scalar
//! is declared once, in the [`params!`] table below: its type, default,
//! the range a tuner may search ([`Params::TUNABLES`]) and, where a value
//! turns its feature off, that value. The evaluation's tables live in
//! `crate::eval::weights`.

use crate::pattern::{Class, Pattern};

/// One scalar parameter: its name, the range a tuner may search, and the
/// value that turns its feature off, if one does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tunable {
    pub name: &'static str,
    pub min: i64,
    pub max: i64,
    /// A sensible step for a tuner's perturbation.
    pub step: i64,
    /// The value at which the parameter's feature does nothing (a switch
    /// at 0, a depth of 0, ...). A parameter is never at it in the
    /// defaults and in every tuned set at once: an idea that is off
    /// everywhere lives on a branch, not in main (see docs/testing.md).
    pub off: Option<i64>,
}

/// The integer types of parameters, read from and written as `i64`.
trait Scalar: Copy {
    fn to_i64(self) -> i64;
    /// `v` is within the parameter's range, so the conversion is exact.
    fn from_i64(v: i64) -> Self;
}

macro_rules! scalar {
    ($($t:ty),*) => {$(
        impl Scalar for $t {
            fn to_i64(self) -> i64 {
                self as i64
            }
            fn from_i64(v: i64) -> Self {
                v as $t
            }
        }
    )*};
}
scalar!(i32, u32, u64, usize);

impl Scalar for bool {
    fn to_i64(self) -> i64 {
        self as i64
    }
    fn from_i64(v: i64) -> Self {
        v != 0
    }
}

/// The one declaration of every scalar parameter: doc, name, type,
/// default, range and step (`min..=max / step`), and `off v` where the
/// value `v` turns the feature off. It makes the fields of [`Params`],
/// their defaults, [`Params::TUNABLES`], [`Params::get`] and
/// [`Params::set`].
macro_rules! params {
    ($(
        $(#[doc = $doc:literal])*
        $name:ident: $ty:ty = $default:expr, $min:literal..=$max:literal / $step:literal
            $(, off $off:literal)?;
    )*) => {
        /// Move-ordering weights and search constants.
        #[derive(Clone, Debug, PartialEq, Eq)]
        pub struct Params {
            /// Move ordering: value of a cell by our class (attack) and
            /// the opponent's class (defence) there (rules without learned
            /// ordering tables; see `crate::search::ordering`).
            pub attack: [i32; 16],
            pub defence: [i32; 16],
            /// Move ordering: value of a cell by the line patterns through it.
            pub pat_attack: [i32; 16],
            pub pat_defence: [i32; 16],
            $( $(#[doc = $doc])* pub $name: $ty, )*
        }

        impl Params {
            /// Every scalar parameter with the range a tuner may search
            /// (switches are 0 or 1).
            pub const TUNABLES: &'static [Tunable] = &[$(
                Tunable {
                    name: stringify!($name),
                    min: $min,
                    max: $max,
                    step: $step,
                    off: params!(@off $($off)?),
                },
            )*];

            /// The value of one scalar parameter by name.
            pub fn get(&self, name: &str) -> Option<i64> {
                match name {
                    $( stringify!($name) => Some(Scalar::to_i64(self.$name)), )*
                    _ => None,
                }
            }

            /// Sets one scalar parameter by name, within its range.
            pub fn set(&mut self, name: &str, value: i64) -> Result<(), String> {
                let range = Params::TUNABLES
                    .iter()
                    .find(|t| t.name == name)
                    .ok_or_else(|| format!("unknown search parameter '{name}'"))?;
                if !(range.min..=range.max).contains(&value) {
                    return Err(format!(
                        "{name}={value} is out of range ({} to {})",
                        range.min, range.max
                    ));
                }
                match name {
                    $( stringify!($name) => self.$name = Scalar::from_i64(value), )*
                    _ => unreachable!("every tunable has a field"),
                }
                Ok(())
            }

            /// The scalars' defaults, with the hand-set weights at 0.
            fn scalar_defaults() -> Params {
                Params {
                    attack: [0; 16],
                    defence: [0; 16],
                    pat_attack: [0; 16],
                    pat_defence: [0; 16],
                    $( $name: $default, )*
                }
            }
        }
    };
    (@off) => { None };
    (@off $v:literal) => { Some($v) };
}

params! {
    /// Candidates kept in a quiet position below the root.
    width: usize = 12, 1..=64 / 1;
    /// Candidates kept at the root.
    root_width: usize = 16, 1..=64 / 1;
    /// Aspiration window half-width around the last iteration's score.
    aspiration: i32 = 68, 1..=1000 / 10;
    /// How the aspiration window grows after a fail, in percent of its
    /// half-width (400: four times as wide).
    asp_grow: i32 = 400, 110..=1000 / 10;
    /// Late-move reductions: one ply from this depth, from this move index
    /// (two from twice the index).
    lmr_depth: i32 = 3, 1..=64 / 1;
    lmr_index: usize = 3, 1..=64 / 1;
    /// Razoring: at a non-PV node of depth at most `razor_depth` whose
    /// quiet static value is below alpha by `razor_margin` a ply, the
    /// horizon's answer (threat search, then the static value) is trusted.
    razor_depth: i32 = 1, 0..=16 / 1, off 0;
    razor_margin: i32 = 80, 0..=1000 / 10;
    /// Score a four-three, or a double open three, against an opponent
    /// without fours as a win without searching it.
    static_four_three: bool = true, 0..=1 / 1, off 0;
    /// When every move a quiet principal-variation node's width cut kept
    /// has lost (the root among them), the rest of its candidates are
    /// searched too, until one does not lose: the cut may have dropped the
    /// only defence, and the search would report a win that is not there.
    widen_pv: bool = true, 0..=1 / 1, off 0;
    /// Reverse futility pruning: at a non-PV node of depth at most
    /// `rfp_depth` with no opponent threat, return the static value when
    /// it beats beta by `rfp_margin` a ply, less `rfp_base` (never below 0).
    rfp_depth: i32 = 4, 0..=64 / 1, off 0;
    rfp_margin: i32 = 93, 0..=1000 / 10;
    rfp_base: i32 = 0, 0..=1000 / 10;
    /// Reverse futility and razoring read the table's score instead of
    /// the static value where the table's bound says more (a lower bound
    /// above it, an upper bound below it, an exact score).
    tt_eval: bool = true, 0..=1 / 1, off 0;
    /// A PV node below the root takes the table's cut (off: only a
    /// null-window node does).
    pv_tt_cut: bool = true, 0..=1 / 1, off 0;
    /// Internal iterative reduction: a node below the root with no table
    /// move and at least `iir_depth` plies to go is searched a ply
    /// shallower (0: off).
    iir_depth: i32 = 4, 0..=64 / 1, off 0;
    /// When the clock has time to spend the whole turn on every move to
    /// come ([`super::limits::Limits::ample`]), iterations go on until this
    /// percentage of the hard limit instead of stopping early on a
    /// settled best move (0: off, the adaptive stop everywhere).
    ample_pct: i32 = 90, 0..=100 / 5, off 0;
    /// Move-count pruning at every depth: at a non-PV quiet node, once a
    /// move that does not lose is found, moves from index
    /// `(3 + depth^1.32) * mcp_scale / 200` on are skipped unless they make
    /// a three or a four (0: off).
    mcp_scale: i32 = 118, 0..=1000 / 10, off 0;
    /// Move-count pruning by trend: where the node's static value and that
    /// of our last node are both known, the scale is `mcp_scale +
    /// mcp_improving` when it is improving and `mcp_scale - mcp_improving`
    /// when it is not.
    mcp_improving: i32 = 40, 0..=500 / 10, off 0;
    /// Likely fail-high: at an expected cut node whose quiet static value
    /// beats beta by `lfh_margin` a ply, every move is searched a ply
    /// shallower (after Rapfi's `likelyFailHigh`).
    lfh_margin: i32 = 20, 0..=200 / 5, off 0;
    /// At a node forced by the opponent's open three, our four that blocks
    /// nothing is searched shallower from this depth (see
    /// [`super::position::SearchNode::distraction`]; 0: off).
    distract_depth: i32 = 2, 0..=64 / 1, off 0;
    /// Below this depth such a four far from both last stones is skipped
    /// once a move has not lost (0: off).
    distract_prune: i32 = 4, 0..=64 / 1, off 0;
    /// Use the transposition table (off only to compare with plain minimax).
    tt: bool = true, 0..=1 / 1, off 0;
    /// Threat search: most attacker moves in one VCF line.
    vcf_depth: u32 = 24, 0..=64 / 2, off 0;
    /// Threat search: most nodes for one VCF call at the horizon.
    vcf_nodes: u64 = 2015, 0..=1_000_000 / 200, off 0;
    /// The horizon's VCF plays each four after the first near the
    /// previous one (faster, misses VCFs that jump about the board).
    vcf_local: bool = true, 0..=1 / 1, off 0;
    /// A forced node (a threat to answer) with at most this many replies
    /// costs no depth.
    forced_free: usize = 4, 0..=64 / 1;
    /// Threat solver at the root: percent of the move's node or time limit
    /// spent looking for our own win by threats before searching (0: off).
    solve_share: u32 = 8, 0..=100 / 2, off 0;
    /// Threat solver after the search: percent of the limits spent on the
    /// opponent's threats after the chosen move (0: off).
    refute_share: u32 = 15, 0..=100 / 2, off 0;
    /// Most moves set aside because the opponent wins by threats after them.
    refute_tries: u32 = 3, 0..=16 / 1, off 0;
    /// Run the refute check on a move the tree scores as a win too: a
    /// width cut can hide the opponent's VCF and make a lost move look won.
    refute_wins: bool = true, 0..=1 / 1, off 0;
    /// Most open threes in one line the root solver looks for.
    solve_threats: u32 = 6, 0..=64 / 1;
    /// The solver's node budget, as 100 percent, when the search has no
    /// node limit (a depth or time limit).
    solve_nodes: u64 = 100_000, 0..=100_000_000 / 10_000;
}

impl Default for Params {
    fn default() -> Params {
        let mut p = Params::scalar_defaults();
        let pats: [(Pattern, i32, i32); 10] = [
            // pattern, order attack, order defence
            (Pattern::B1, 1, 1),
            (Pattern::F1, 2, 2),
            (Pattern::B2, 4, 3),
            (Pattern::F2, 12, 8),
            (Pattern::B3, 18, 12),
            (Pattern::F3, 60, 40),
            (Pattern::B4, 70, 50),
            (Pattern::F4, 150, 100),
            (Pattern::D4, 150, 100),
            (Pattern::F5, 0, 0),
        ];
        for (pat, att, def) in pats {
            p.pat_attack[pat as usize] = att;
            p.pat_defence[pat as usize] = def;
        }
        let classes: [(Class, i32, i32); 12] = [
            // class, order attack, order defence
            (Class::Flex2, 10, 6),
            (Class::Block3, 12, 8),
            (Class::Flex2x2, 60, 40),
            (Class::Block3Plus, 70, 45),
            (Class::Flex3, 100, 60),
            (Class::Flex3Plus, 300, 200),
            (Class::Flex3x2, 1200, 700),
            (Class::Block4, 90, 60),
            (Class::Block4Plus, 350, 220),
            (Class::Block4Flex3, 3000, 1500),
            (Class::Flex4, 10000, 5000),
            (Class::Five, 100000, 50000),
        ];
        for (class, att, def) in classes {
            p.attack[class as usize] = att;
            p.defence[class as usize] = def;
        }
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tunable_reads_back_what_was_set_and_holds_its_default() {
        let d = Params::default();
        for t in Params::TUNABLES {
            let v = d.get(t.name).unwrap();
            assert!((t.min..=t.max).contains(&v), "{}: default {v}", t.name);
            assert!(t.step > 0 && t.step <= t.max - t.min, "{}", t.name);
            for x in [t.min, t.max, (t.min + t.max) / 2] {
                let mut p = d.clone();
                p.set(t.name, x).unwrap();
                assert_eq!(p.get(t.name), Some(x), "{}", t.name);
            }
            assert!(d.clone().set(t.name, t.max + 1).is_err());
            if let Some(off) = t.off {
                assert!((t.min..=t.max).contains(&off), "{}", t.name);
            }
        }
        let mut names: Vec<&str> = Params::TUNABLES.iter().map(|t| t.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Params::TUNABLES.len(), "each name once");
        assert_eq!(d.get("attack"), None);
    }
}
