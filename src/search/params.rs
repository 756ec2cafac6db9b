//! Every search constant and move-ordering weight, in one place, so they
//! can be tuned. Integers only: no floats in search decisions. The
//! evaluation's learned tables live in `crate::eval::weights`.

use crate::eval::pcode::{class_of, patterns_of, NCODES};
use crate::movegen::POLICY_LEN;
use crate::pattern::{Class, Pattern};

/// Move-ordering weights and search constants.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Params {
    /// Move ordering: value of a cell by our class (attack) and the
    /// opponent's class (defence) there.
    pub attack: [i32; 16],
    pub defence: [i32; 16],
    /// Move ordering: value of a cell by the line patterns through it.
    pub pat_attack: [i32; 16],
    pub pat_defence: [i32; 16],
    /// Candidates kept in a quiet position below the root.
    pub width: usize,
    /// Candidates kept at the root.
    pub root_width: usize,
    /// Aspiration window half-width around the last iteration's score.
    pub aspiration: i32,
    /// Late-move reductions: from this depth, from this move index.
    pub lmr_depth: i32,
    pub lmr_index: usize,
    /// Late-move reductions from a table instead: a move's reduction is
    /// `ln(depth) * ln(move number) * lmr_scale / 100` plies, one less on a
    /// PV node and one less for a move that makes or stops a three or a
    /// four (0: the fixed steps above).
    pub lmr_scale: i32,
    /// Razoring: at a non-PV node of depth at most `razor_depth` whose
    /// quiet static value is below alpha by `razor_margin` a ply, the
    /// horizon's answer (threat search, then the static value) is trusted.
    pub razor_depth: i32,
    pub razor_margin: i32,
    /// Plies past the horizon searched while the opponent threatens a VCF.
    pub threat_extension: i32,
    /// Subtracted from the static value at the horizon when the opponent
    /// has a VCF (0: no check).
    pub vcf_threat_penalty: i32,
    /// Score a four-three against an opponent without fours as a win
    /// without searching it.
    pub static_four_three: bool,
    /// Score a double open three against an opponent without fours as a
    /// win without searching it.
    pub static_three_three: bool,
    /// Against an opponent's four-three point, search only the cells that
    /// take it away and our own fours.
    pub defend_four_three: bool,
    /// A quiet node keeps every four of ours beside its best `width`
    /// moves: a four that starts a VCF is a win the ordering may rank low.
    /// Off: it measured -3.5 +/- 45.7 Elo in 200 games (docs/strength.md);
    /// `refute_wins` catches the false wins the cut causes at the root.
    pub quiet_fours: bool,
    /// Reverse futility pruning: at a non-PV node of depth at most
    /// `rfp_depth` with no opponent threat, return the static value when
    /// it beats beta by `rfp_margin` a ply.
    pub rfp_depth: i32,
    pub rfp_margin: i32,
    /// Late-move pruning: at a non-PV quiet node of depth at most
    /// `lmp_depth`, once a move that does not lose is found, moves from
    /// index `(3 + depth * depth) / 2` on are skipped unless they make a
    /// three or a four.
    pub lmp_depth: i32,
    /// Move-count pruning at every depth: at a non-PV quiet node, once a
    /// move that does not lose is found, moves from index
    /// `(3 + depth^1.32) * mcp_scale / 200` on are skipped unless they make
    /// a three or a four (0: off).
    pub mcp_scale: i32,
    /// Move-count pruning keeps twice the moves where the side to move's
    /// static value is above its value two plies before.
    pub mcp_improving: bool,
    /// History: at a cut, the moves searched before the cutting move lose
    /// what it gains (0: they keep their score).
    pub history_malus: bool,
    /// After a move raises alpha at a node of depth 3 to 11 below the root
    /// (its score not decisive), the remaining moves are searched one ply
    /// shallower (Rapfi's "after raising alpha").
    pub alpha_reduce: bool,
    /// At an expected cut node (a null-window node whose parent expects it
    /// to fail high), late quiet moves from index `cut_reduce_index` on are
    /// reduced one ply more (0: off).
    pub cut_reduce_index: usize,
    /// Likely fail high: at an expected cut node whose quiet static value
    /// is at least `beta - lfh_base + lfh_margin * depth`, moves that make
    /// no four are searched one ply shallower (`lfh_margin` 0: off).
    pub lfh_base: i32,
    pub lfh_margin: i32,
    /// Internal iterative reduction: a PV or expected cut node of at least
    /// this depth without a table move is searched a ply shallower (its
    /// move order is a guess; the next iteration has the move). 0: off.
    pub iir_depth: i32,
    /// Singular extension: at a node of at least `se_depth` whose table
    /// move has a lower bound from nearly as deep, the other moves are
    /// searched at half depth against the table score less `se_margin` a
    /// ply; when all fail low the table move is searched a ply deeper.
    /// When even that bound beats beta, the node is cut (multi-cut); when
    /// only the table score does, the table move is searched a ply
    /// shallower. 0: off.
    pub se_depth: i32,
    pub se_margin: i32,
    /// With time to spare on the game clock (or none), start iterations
    /// until this percent of the move's hard limit instead of stopping
    /// early when the best move is settled (0: always the adaptive rule).
    pub ample_pct: u32,
    /// Use the transposition table (off only to compare with plain minimax).
    pub tt: bool,
    /// Threat search: most attacker moves in one VCF line.
    pub vcf_depth: u32,
    /// Threat search: most nodes for one VCF call at the horizon.
    pub vcf_nodes: u64,
    /// The horizon's VCF plays each four after the first near the
    /// previous one (faster, misses VCFs that jump about the board).
    pub vcf_local: bool,
    /// A forced node (a threat to answer) with at most this many replies
    /// costs no depth.
    pub forced_free: usize,
    /// Threat solver at the root: percent of the move's node or time limit
    /// spent looking for our own win by threats before searching (0: off).
    pub solve_share: u32,
    /// Threat solver after the search: percent of the limits spent on the
    /// opponent's threats after the chosen move (0: off).
    pub refute_share: u32,
    /// Most moves set aside because the opponent wins by threats after them.
    pub refute_tries: u32,
    /// Run the refute check on a move the tree scores as a win too: a
    /// width cut can hide the opponent's VCF and make a lost move look won.
    pub refute_wins: bool,
    /// Most open threes in one line the root solver looks for.
    pub solve_threats: u32,
    /// The solver's node budget, as 100 percent, when the search has no
    /// node limit (a depth or time limit).
    pub solve_nodes: u64,
}

impl Default for Params {
    fn default() -> Params {
        let mut p = Params {
            attack: [0; 16],
            defence: [0; 16],
            pat_attack: [0; 16],
            pat_defence: [0; 16],
            width: 12,
            root_width: 12,
            aspiration: 60,
            lmr_depth: 3,
            lmr_index: 4,
            lmr_scale: 0,
            razor_depth: 2,
            razor_margin: 60,
            threat_extension: 0,
            vcf_threat_penalty: 0,
            static_four_three: true,
            static_three_three: false,
            defend_four_three: false,
            quiet_fours: false,
            rfp_depth: 4,
            rfp_margin: 80,
            lmp_depth: 0,
            mcp_scale: 100,
            mcp_improving: false,
            history_malus: false,
            alpha_reduce: false,
            cut_reduce_index: 0,
            lfh_base: 45,
            lfh_margin: 0,
            iir_depth: 0,
            se_depth: 0,
            se_margin: 10,
            ample_pct: 0,
            tt: true,
            vcf_depth: 24,
            vcf_nodes: 2000,
            vcf_local: true,
            forced_free: 3,
            solve_share: 10,
            refute_share: 15,
            refute_tries: 3,
            refute_wins: true,
            solve_threats: 6,
            solve_nodes: 100_000,
        };
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

/// Environment variable with parameter overrides, `name=value,...`, read
/// by the engine at start-up (for A/B matches and tuning).
pub const PARAMS_ENV: &str = "TENGEN_PARAMS";

impl Params {
    /// The hand-set move ordering in table form, per colour to move (see
    /// `crate::movegen::POLICY_LEN`): entry `2 * code` scores what a cell
    /// of that pattern code makes for the side to move, `2 * code + 1`
    /// what a cell of that code for the opponent takes from it; the other
    /// entries are 0.
    pub fn policy_tables(&self, rule: crate::types::Rule) -> [Box<[i32; POLICY_LEN]>; 2] {
        let mut out = [Box::new([0; POLICY_LEN]), Box::new([0; POLICY_LEN])];
        for (me, t) in out.iter_mut().enumerate() {
            // Renju black's classes (forbidden cells) differ.
            let renju_black = |c: usize| rule == crate::types::Rule::Renju && c == 0;
            for code in 0..NCODES {
                let pats = patterns_of(code);
                let own = self.attack[class_of(code, renju_black(me)) as usize]
                    + pats
                        .iter()
                        .map(|&p| self.pat_attack[p as usize])
                        .sum::<i32>();
                let opp = self.defence[class_of(code, renju_black(1 - me)) as usize]
                    + pats
                        .iter()
                        .map(|&p| self.pat_defence[p as usize])
                        .sum::<i32>();
                t[2 * code] = own;
                t[2 * code + 1] = opp;
            }
        }
        out
    }

    /// Sets one search parameter by name.
    pub fn set(&mut self, name: &str, value: i64) -> Result<(), String> {
        let n = |v: i64| usize::try_from(v).map_err(|_| format!("{name}={v} must be >= 0"));
        match name {
            "width" => self.width = n(value)?.max(1),
            "root_width" => self.root_width = n(value)?.max(1),
            "aspiration" => self.aspiration = value.max(1) as i32,
            "lmr_depth" => self.lmr_depth = value as i32,
            "lmr_index" => self.lmr_index = n(value)?,
            "lmr_scale" => self.lmr_scale = value as i32,
            "razor_depth" => self.razor_depth = value as i32,
            "razor_margin" => self.razor_margin = value as i32,
            "threat_extension" => self.threat_extension = value as i32,
            "vcf_threat_penalty" => self.vcf_threat_penalty = value as i32,
            "static_four_three" => self.static_four_three = value != 0,
            "static_three_three" => self.static_three_three = value != 0,
            "defend_four_three" => self.defend_four_three = value != 0,
            "quiet_fours" => self.quiet_fours = value != 0,
            "rfp_depth" => self.rfp_depth = value as i32,
            "rfp_margin" => self.rfp_margin = value as i32,
            "lmp_depth" => self.lmp_depth = value as i32,
            "mcp_scale" => self.mcp_scale = value as i32,
            "mcp_improving" => self.mcp_improving = value != 0,
            "history_malus" => self.history_malus = value != 0,
            "alpha_reduce" => self.alpha_reduce = value != 0,
            "cut_reduce_index" => self.cut_reduce_index = n(value)?,
            "lfh_base" => self.lfh_base = value as i32,
            "lfh_margin" => self.lfh_margin = value as i32,
            "iir_depth" => self.iir_depth = value as i32,
            "se_depth" => self.se_depth = value as i32,
            "se_margin" => self.se_margin = value as i32,
            "ample_pct" => self.ample_pct = n(value)?.min(100) as u32,
            "vcf_depth" => self.vcf_depth = n(value)? as u32,
            "vcf_nodes" => self.vcf_nodes = n(value)? as u64,
            "vcf_local" => self.vcf_local = value != 0,
            "forced_free" => self.forced_free = n(value)?,
            "solve_share" => self.solve_share = n(value)?.min(100) as u32,
            "refute_share" => self.refute_share = n(value)?.min(100) as u32,
            "refute_tries" => self.refute_tries = n(value)? as u32,
            "refute_wins" => self.refute_wins = value != 0,
            "solve_threats" => self.solve_threats = n(value)? as u32,
            "solve_nodes" => self.solve_nodes = n(value)? as u64,
            _ => return Err(format!("unknown search parameter '{name}'")),
        }
        Ok(())
    }

    /// The defaults with `name=value,...` overrides applied.
    pub fn with_overrides(spec: &str) -> Result<Params, String> {
        let mut p = Params::default();
        for item in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (name, value) = item
                .split_once('=')
                .ok_or_else(|| format!("'{item}' is not name=value"))?;
            let v: i64 = value
                .trim()
                .parse()
                .map_err(|_| format!("bad value in '{item}'"))?;
            p.set(name.trim(), v)?;
        }
        Ok(p)
    }

    /// The defaults, with the overrides of `TENGEN_PARAMS` if it is set.
    pub fn from_env() -> Result<Params, String> {
        match std::env::var(PARAMS_ENV) {
            Ok(spec) => Params::with_overrides(&spec).map_err(|e| format!("{PARAMS_ENV}: {e}")),
            Err(_) => Ok(Params::default()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overrides_are_parsed_and_checked() {
        let p = Params::with_overrides("rfp_depth=3, defend_four_three=1,width=6").unwrap();
        assert_eq!((p.rfp_depth, p.defend_four_three, p.width), (3, true, 6));
        assert_eq!(Params::with_overrides("").unwrap(), Params::default());
        assert!(Params::with_overrides("nope=1").is_err());
        assert!(Params::with_overrides("width").is_err());
        assert!(Params::with_overrides("width=-2").is_err());
    }
}
