//! The search's tunable constants and hand-set move-ordering weights, in
//! one place. Integers only: no floats in search decisions. Every scalar
//! has a range a tuner may search ([`Params::TUNABLES`]); the evaluation's
//! tables live in `crate::eval::weights`.

use crate::pattern::{Class, Pattern};
use crate::types::{Rule, MIN_SIZE};

/// One scalar parameter: its name and the range a tuner may search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tunable {
    pub name: &'static str,
    pub min: i64,
    pub max: i64,
    /// A sensible step for a tuner's perturbation.
    pub step: i64,
}

const fn t(name: &'static str, min: i64, max: i64, step: i64) -> Tunable {
    Tunable {
        name,
        min,
        max,
        step,
    }
}

/// Move-ordering weights and search constants.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Params {
    /// Move ordering: value of a cell by our class (attack) and the
    /// opponent's class (defence) there (rules without learned ordering
    /// tables; see `crate::search::ordering`).
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
    /// How the aspiration window grows after a fail, in percent of its
    /// half-width (400: four times as wide; less re-centres the window on
    /// the fail-soft score more often, as Rapfi's slow growth does).
    pub asp_grow: i32,
    /// Late-move reductions: one ply from this depth, from this move index
    /// (two from twice the index).
    pub lmr_depth: i32,
    pub lmr_index: usize,
    /// Late-move reductions from a table as well (0: off): at a quiet
    /// node of depth `d`, the `n`-th move (from the second) is reduced at
    /// least `ln(d) * ln(n) * lmr_log / 100` plies (one less at a PV node),
    /// leaving it at least depth 1.
    pub lmr_log: i32,
    /// Singular extension (0: off): at a quiet node of at least `se_depth`
    /// whose table move has a lower bound from nearly as deep, the other
    /// moves are searched at half depth against the table score less
    /// `se_margin` a ply. When all fail low, the table move is searched a
    /// ply deeper; when even that bound beats beta the node is cut
    /// (multi-cut); when only the table score does, the table move is
    /// searched a ply shallower.
    pub se_depth: i32,
    pub se_margin: i32,
    /// Razoring: at a non-PV node of depth at most `razor_depth` whose
    /// quiet static value is below alpha by `razor_margin` a ply, the
    /// horizon's answer (threat search, then the static value) is trusted.
    pub razor_depth: i32,
    pub razor_margin: i32,
    /// Score a four-three, or a double open three, against an opponent
    /// without fours as a win without searching it.
    pub static_four_three: bool,
    /// Against an opponent's four-three point (one that wins unanswered),
    /// only our fours and the cells that take it away are searched, as
    /// against an open three: the node is forced.
    pub defend_four_three: bool,
    /// At a quiet node where the opponent threatens a four-three or a
    /// double open three (a win on its next move that does not force the
    /// node), our fours that the width cut dropped are searched too: the
    /// counter-attack the ordering may rank low.
    pub keep_fours: bool,
    /// At a quiet node, the cells the width cut dropped where the side to
    /// move makes a double threat (a double open three, a four-three, an
    /// open four) are searched too; at 2, also the cells where the
    /// opponent would make one (see [`crate::movegen::add_threats`]).
    pub keep_threats: u32,
    /// When every move a quiet node's width cut kept has lost, the rest of
    /// its candidates are searched too, until one does not lose: the cut
    /// may have dropped the only defence (a block far from the threat's
    /// cells, which the ordering ranks low), and a node that loses only
    /// for that makes the tree claim a win that is not there.
    pub widen_lost: bool,
    /// `widen_lost` at principal-variation nodes only, the root among them
    /// (the nodes whose result the search reports: a win the tree claims,
    /// or a loss at the root, is looked into there, at the cost of a few
    /// nodes). On since an SPRT on the f15 book (widenpv-nr-f15-t100:
    /// +14.8 +/- 19.4, H1 of a non-regression test at game 1174).
    pub widen_pv: bool,
    /// Reverse futility pruning: at a non-PV node of depth at most
    /// `rfp_depth` with no opponent threat, return the static value when
    /// it beats beta by `rfp_margin` a ply, less `rfp_base` (never below
    /// 0: Rapfi's margin is 63 (d - 1), nothing at depth 1).
    pub rfp_depth: i32,
    pub rfp_margin: i32,
    pub rfp_base: i32,
    /// Reverse futility at an improving node (its static value above the
    /// one two plies before, where both are known) asks one ply's margin
    /// less.
    pub rfp_improving: bool,
    /// Reverse futility and razoring read the table's score instead of
    /// the static value where the table's bound says more (a lower bound
    /// above it, an upper bound below it, an exact score).
    pub tt_eval: bool,
    /// Late-move reductions at a non-PV node that is not improving: one
    /// ply more for a move that is reduced at all.
    pub lmr_improving: bool,
    /// Late-move reductions spare attacks: a move that makes at least an
    /// open three for the side to move, right after that side's last move
    /// made one, is reduced one ply less.
    pub lmr_attack: bool,
    /// History with gravity: a cut-off adds `min(8 d^2, 2048)` to its
    /// move's history and takes as much from each move searched before it
    /// at the node, each value kept within +/-16384 by the gravity rule
    /// `h += b - h |b| / 16384`, and ordering reads `h / 32` (off: the
    /// cut-off adds `d^2`, unbounded but for a cap, read as `h / 64`).
    pub hist_gravity: bool,
    /// Late-move reductions at a PV node: one ply less than at a null
    /// window for a move that is reduced at all (Stockfish's rule).
    pub lmr_pv: bool,
    /// A quiet node deeper than 4 plies keeps `width_ply` more candidates
    /// for each ply past 4 (0: `width` at every depth), so that a longer
    /// search also looks wider, not only deeper.
    pub width_ply: usize,
    /// A principal-variation node below the root (an open window) keeps
    /// this many candidates where `width` is fewer (0: `width`, off).
    pub pv_width: usize,
    /// A PV node below the root takes the table's cut (off: only a
    /// null-window node does, and a PV node is always searched).
    pub pv_tt_cut: bool,
    /// Internal iterative reduction: a node below the root with no table
    /// move and at least `iir_depth` plies to go is searched a ply
    /// shallower (0: off). Without a move to try first its search is
    /// poorly ordered, and the shallower one fills the table for the
    /// next iteration.
    pub iir_depth: i32,
    /// With `iir_depth`, a node whose table move comes from a search at
    /// least `iir_stale` plies shallower is reduced as well (0: off;
    /// Rapfi reduces PV nodes by 0.28 a ply of the difference).
    pub iir_stale: i32,
    /// Counter moves: a quiet move that cuts off is remembered as the
    /// answer to the opponent's move before it, and ordering tries it
    /// after the killers wherever that move is played again.
    pub counter_move: bool,
    /// At a node forced by the opponent's three, a four of our own that
    /// blocks nothing is reduced a ply for each of the two last moves
    /// (the opponent's, ours) it lies more than 4 cells from, in
    /// Chebyshev distance (0: off; Rapfi's rule for distracting moves).
    pub lmr_distract: bool,
    /// When the clock has time to spend the whole turn on every move to
    /// come ([`super::limits::Limits::ample`]: a turn limit alone, as in
    /// a gauntlet at so many ms a move), iterations go on until this
    /// percentage of the hard limit instead of stopping early on a
    /// settled best move (0: off, the adaptive stop everywhere).
    pub ample_pct: i32,
    /// Move-count pruning at every depth: at a non-PV quiet node, once a
    /// move that does not lose is found, moves from index
    /// `(3 + depth^1.32) * mcp_scale / 200` on are skipped unless they make
    /// a three or a four (0: off).
    pub mcp_scale: i32,
    /// Move-count pruning by trend (0: off): at a node whose static value
    /// and that of our last node are both known, the scale is
    /// `mcp_scale + mcp_improving` when it is improving and
    /// `mcp_scale - mcp_improving` when it is not (Rapfi halves the count
    /// of a node that is not improving). 40 since an SPRT on the f15 book
    /// (mcpimp40-f15-t100: +18.6 +/- 13.6, H1 at game 2429).
    pub mcp_improving: i32,
    /// Late-move reductions' re-search (0: off): a reduced move that beats
    /// alpha is searched again a ply deeper when it beat the node's best
    /// by `lmr_deeper`, a ply shallower when by less than an eighth of it
    /// (Stockfish's and Rapfi's rule).
    pub lmr_deeper: i32,
    /// Late-move reductions at an expected cut node (0: off): a non-PV
    /// node reached by a reduced null-window search, or as the first
    /// child of an expected all node, reduces each move after its first
    /// by `lmr_cut` plies more (never below depth 1 for the child):
    /// Stockfish's and Rapfi's cut-node rule (Rapfi +1.8 plies).
    pub lmr_cut: i32,
    /// Likely fail-high (0: off): at an expected cut node whose quiet
    /// static value beats beta by `lfh_margin` a ply, every move is
    /// searched a ply shallower (after Rapfi's `likelyFailHigh`, with its
    /// margin of 15 a ply less 9; Rapfi spares fours: `lfh_fours`). 20
    /// since an SPRT on the f15 book (lfh20-f15-t100: +14.1 +/- 11.5, H1
    /// at game 3396).
    pub lfh_margin: i32,
    /// Likely fail-high spares fours (Rapfi's rule): a move that makes a
    /// four keeps its full depth at such a node.
    pub lfh_fours: bool,
    /// Move-count pruning spares a defence too (0: off): a move on a cell
    /// where the opponent's class is at least this one (7: an open three,
    /// 8: an open three with more, 9: a double three; see
    /// [`crate::pattern::Class`]), as it spares our own threats, so the
    /// threats that lose games past the horizon are still met at pruned
    /// nodes.
    pub mcp_defence: u8,
    /// A node below the root that is not a PV node but was one (the table
    /// says so: Stockfish's and Rapfi's `ttPv`) reduces its late moves a
    /// ply less (Rapfi about 1 ply).
    pub lmr_ttpv: bool,
    /// Late-move reductions by the move ordering's own judgement (0: off):
    /// at a quiet node of at least `lmr_depth` plies, a move after the
    /// first whose ordering score (before the table move, killers and
    /// history are added) falls more than `lmr_policy` below the node's
    /// best is reduced a ply more (the learned tables are a softmax's
    /// logits at temperature about 135: 300 below is a ninth of the
    /// chance). Rapfi's policy reduction, with our ordering as the policy.
    pub lmr_policy: i32,
    /// The other side of `lmr_policy` (0: off): a reduced move whose
    /// ordering score is within `lmr_policy_near` of the node's best is
    /// reduced a ply less.
    pub lmr_policy_near: i32,
    /// History in the reductions (0: off; Rapfi's statScore): a late
    /// move's reduction falls by its reduction history over `lmr_hist`
    /// (grows where that is negative). The reduction history learns
    /// with gravity apart from the ordering's: the move that cut gains,
    /// the quiet moves searched before it lose.
    pub lmr_hist: i32,
    /// What `lmr_hist` takes from the reduction history first: a move
    /// must have more than this to be reduced less.
    pub lmr_hist_offset: i32,
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
    /// Percent of the time and node limits the search leaves unspent for
    /// that check (0: none). Without it a search that runs into its hard
    /// limit, as it does with `ample_pct`, leaves the check no time and
    /// it is skipped.
    pub refute_reserve: u32,
    /// The early refute check (0: off): once a timed search has spent
    /// `refute_early_at` percent of its hard limit and goes on to a deeper
    /// iteration (one that may not finish: the check after the search is
    /// then skipped), the best move so far is checked against the
    /// opponent's threats with this percent of the limits first. A move
    /// refuted there ends the deepening and the search runs again without
    /// it; a move that passes is not checked again.
    pub refute_early: u32,
    /// When the early refute check runs: percent of the hard limit spent.
    pub refute_early_at: u32,
    /// Most moves set aside because the opponent wins by threats after them.
    pub refute_tries: u32,
    /// The last-chance refute check (0: off): when the search ran into its
    /// limits, which leaves the refute check no time, the chosen move is
    /// still checked against the opponent's threats with this many solver
    /// nodes (a few milliseconds at most on the clock); a refuted move
    /// gives way to the next root move in the search's order that passes
    /// the same check (`refute_tries` of them at most).
    pub refute_last: u64,
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
            root_width: 16,
            aspiration: 68,
            asp_grow: 400,
            lmr_depth: 3,
            lmr_index: 3,
            lmr_log: 0,
            se_depth: 0,
            se_margin: 4,
            razor_depth: 1,
            razor_margin: 80,
            static_four_three: true,
            defend_four_three: false,
            keep_fours: false,
            keep_threats: 0,
            widen_lost: false,
            widen_pv: true,
            rfp_depth: 4,
            rfp_margin: 93,
            rfp_base: 0,
            rfp_improving: false,
            tt_eval: true,
            lmr_improving: false,
            lmr_attack: false,
            hist_gravity: false,
            lmr_pv: false,
            width_ply: 0,
            pv_width: 0,
            pv_tt_cut: true,
            iir_depth: 4,
            iir_stale: 0,
            counter_move: false,
            lmr_distract: false,
            ample_pct: 90,
            mcp_scale: 118,
            mcp_improving: 40,
            lmr_deeper: 0,
            lmr_cut: 0,
            lfh_margin: 20,
            lfh_fours: false,
            mcp_defence: 0,
            lmr_ttpv: false,
            lmr_policy: 0,
            lmr_policy_near: 0,
            lmr_hist: 0,
            lmr_hist_offset: 0,
            tt: true,
            vcf_depth: 24,
            vcf_nodes: 2015,
            vcf_local: true,
            forced_free: 4,
            solve_share: 8,
            refute_share: 15,
            refute_reserve: 0,
            refute_early: 0,
            refute_early_at: 40,
            refute_tries: 3,
            refute_last: 0,
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
/// once by the command line (for A/B matches and tuning).
pub const PARAMS_ENV: &str = "TENGEN_PARAMS";

impl Params {
    /// Every scalar parameter with the range a tuner may search (switches
    /// are 0 or 1).
    pub const TUNABLES: [Tunable; 61] = [
        t("width", 1, 64, 1),
        t("root_width", 1, 64, 1),
        t("aspiration", 1, 1000, 10),
        t("asp_grow", 110, 1000, 10),
        t("lmr_depth", 1, 64, 1),
        t("lmr_index", 1, 64, 1),
        t("lmr_log", 0, 400, 10),
        t("se_depth", 0, 64, 1),
        t("se_margin", 0, 200, 2),
        t("razor_depth", 0, 16, 1),
        t("razor_margin", 0, 1000, 10),
        t("static_four_three", 0, 1, 1),
        t("defend_four_three", 0, 1, 1),
        t("keep_fours", 0, 1, 1),
        t("keep_threats", 0, 2, 1),
        t("widen_lost", 0, 1, 1),
        t("widen_pv", 0, 1, 1),
        t("rfp_depth", 0, 64, 1),
        t("rfp_margin", 0, 1000, 10),
        t("rfp_base", 0, 1000, 10),
        t("rfp_improving", 0, 1, 1),
        t("tt_eval", 0, 1, 1),
        t("lmr_improving", 0, 1, 1),
        t("lmr_attack", 0, 1, 1),
        t("hist_gravity", 0, 1, 1),
        t("lmr_pv", 0, 1, 1),
        t("width_ply", 0, 16, 1),
        t("pv_width", 0, 64, 1),
        t("pv_tt_cut", 0, 1, 1),
        t("iir_depth", 0, 64, 1),
        t("iir_stale", 0, 64, 1),
        t("counter_move", 0, 1, 1),
        t("lmr_distract", 0, 1, 1),
        t("ample_pct", 0, 100, 5),
        t("mcp_scale", 0, 1000, 10),
        t("mcp_improving", 0, 500, 10),
        t("lmr_deeper", 0, 1000, 10),
        t("lmr_cut", 0, 4, 1),
        t("lfh_margin", 0, 200, 5),
        t("lfh_fours", 0, 1, 1),
        t("mcp_defence", 0, 13, 1),
        t("lmr_ttpv", 0, 1, 1),
        t("lmr_policy", 0, 5000, 50),
        t("lmr_policy_near", 0, 5000, 10),
        t("lmr_hist", 0, 100_000, 500),
        t("lmr_hist_offset", -16_384, 16_384, 500),
        t("tt", 0, 1, 1),
        t("vcf_depth", 0, 64, 2),
        t("vcf_nodes", 0, 1_000_000, 200),
        t("vcf_local", 0, 1, 1),
        t("forced_free", 0, 64, 1),
        t("solve_share", 0, 100, 2),
        t("refute_share", 0, 100, 2),
        t("refute_reserve", 0, 50, 2),
        t("refute_early", 0, 100, 1),
        t("refute_early_at", 0, 100, 5),
        t("refute_tries", 0, 16, 1),
        t("refute_last", 0, 1_000_000, 200),
        t("refute_wins", 0, 1, 1),
        t("solve_threats", 0, 64, 1),
        t("solve_nodes", 0, 100_000_000, 10_000),
    ];

    /// The value of one scalar parameter by name.
    pub fn get(&self, name: &str) -> Option<i64> {
        Some(match name {
            "width" => self.width as i64,
            "root_width" => self.root_width as i64,
            "aspiration" => self.aspiration as i64,
            "asp_grow" => self.asp_grow as i64,
            "lmr_depth" => self.lmr_depth as i64,
            "lmr_index" => self.lmr_index as i64,
            "lmr_log" => self.lmr_log as i64,
            "se_depth" => self.se_depth as i64,
            "se_margin" => self.se_margin as i64,
            "razor_depth" => self.razor_depth as i64,
            "razor_margin" => self.razor_margin as i64,
            "static_four_three" => self.static_four_three as i64,
            "defend_four_three" => self.defend_four_three as i64,
            "keep_fours" => self.keep_fours as i64,
            "keep_threats" => self.keep_threats as i64,
            "widen_lost" => self.widen_lost as i64,
            "widen_pv" => self.widen_pv as i64,
            "rfp_depth" => self.rfp_depth as i64,
            "rfp_margin" => self.rfp_margin as i64,
            "rfp_base" => self.rfp_base as i64,
            "rfp_improving" => self.rfp_improving as i64,
            "tt_eval" => self.tt_eval as i64,
            "lmr_improving" => self.lmr_improving as i64,
            "lmr_attack" => self.lmr_attack as i64,
            "hist_gravity" => self.hist_gravity as i64,
            "lmr_pv" => self.lmr_pv as i64,
            "width_ply" => self.width_ply as i64,
            "pv_width" => self.pv_width as i64,
            "pv_tt_cut" => self.pv_tt_cut as i64,
            "iir_depth" => self.iir_depth as i64,
            "iir_stale" => self.iir_stale as i64,
            "counter_move" => self.counter_move as i64,
            "lmr_distract" => self.lmr_distract as i64,
            "ample_pct" => self.ample_pct as i64,
            "mcp_scale" => self.mcp_scale as i64,
            "mcp_improving" => self.mcp_improving as i64,
            "lmr_deeper" => self.lmr_deeper as i64,
            "lmr_cut" => self.lmr_cut as i64,
            "lfh_margin" => self.lfh_margin as i64,
            "lfh_fours" => self.lfh_fours as i64,
            "mcp_defence" => self.mcp_defence as i64,
            "lmr_ttpv" => self.lmr_ttpv as i64,
            "lmr_policy" => self.lmr_policy as i64,
            "lmr_policy_near" => self.lmr_policy_near as i64,
            "lmr_hist" => self.lmr_hist as i64,
            "lmr_hist_offset" => self.lmr_hist_offset as i64,
            "tt" => self.tt as i64,
            "vcf_depth" => self.vcf_depth as i64,
            "vcf_nodes" => self.vcf_nodes as i64,
            "vcf_local" => self.vcf_local as i64,
            "forced_free" => self.forced_free as i64,
            "solve_share" => self.solve_share as i64,
            "refute_share" => self.refute_share as i64,
            "refute_reserve" => self.refute_reserve as i64,
            "refute_early" => self.refute_early as i64,
            "refute_early_at" => self.refute_early_at as i64,
            "refute_tries" => self.refute_tries as i64,
            "refute_last" => self.refute_last as i64,
            "refute_wins" => self.refute_wins as i64,
            "solve_threats" => self.solve_threats as i64,
            "solve_nodes" => self.solve_nodes as i64,
            _ => return None,
        })
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
        // In range, so every conversion below is exact.
        let (v, n, b) = (value as i32, value as usize, value != 0);
        match name {
            "width" => self.width = n,
            "root_width" => self.root_width = n,
            "aspiration" => self.aspiration = v,
            "asp_grow" => self.asp_grow = v,
            "lmr_depth" => self.lmr_depth = v,
            "lmr_index" => self.lmr_index = n,
            "lmr_log" => self.lmr_log = v,
            "se_depth" => self.se_depth = v,
            "se_margin" => self.se_margin = v,
            "razor_depth" => self.razor_depth = v,
            "razor_margin" => self.razor_margin = v,
            "static_four_three" => self.static_four_three = b,
            "defend_four_three" => self.defend_four_three = b,
            "keep_fours" => self.keep_fours = b,
            "widen_lost" => self.widen_lost = b,
            "widen_pv" => self.widen_pv = b,
            "rfp_depth" => self.rfp_depth = v,
            "rfp_margin" => self.rfp_margin = v,
            "rfp_base" => self.rfp_base = v,
            "rfp_improving" => self.rfp_improving = b,
            "tt_eval" => self.tt_eval = b,
            "lmr_improving" => self.lmr_improving = b,
            "lmr_attack" => self.lmr_attack = b,
            "hist_gravity" => self.hist_gravity = b,
            "lmr_pv" => self.lmr_pv = b,
            "width_ply" => self.width_ply = n,
            "pv_width" => self.pv_width = n,
            "pv_tt_cut" => self.pv_tt_cut = b,
            "iir_depth" => self.iir_depth = v,
            "iir_stale" => self.iir_stale = v,
            "counter_move" => self.counter_move = b,
            "lmr_distract" => self.lmr_distract = b,
            "ample_pct" => self.ample_pct = v,
            "mcp_scale" => self.mcp_scale = v,
            "mcp_improving" => self.mcp_improving = v,
            "lmr_deeper" => self.lmr_deeper = v,
            "lmr_cut" => self.lmr_cut = v,
            "lfh_margin" => self.lfh_margin = v,
            "lfh_fours" => self.lfh_fours = b,
            "mcp_defence" => self.mcp_defence = v as u8,
            "lmr_ttpv" => self.lmr_ttpv = b,
            "lmr_policy" => self.lmr_policy = v,
            "lmr_policy_near" => self.lmr_policy_near = v,
            "lmr_hist" => self.lmr_hist = v,
            "lmr_hist_offset" => self.lmr_hist_offset = v,
            "tt" => self.tt = b,
            "vcf_depth" => self.vcf_depth = v as u32,
            "vcf_nodes" => self.vcf_nodes = value as u64,
            "vcf_local" => self.vcf_local = b,
            "forced_free" => self.forced_free = n,
            "solve_share" => self.solve_share = v as u32,
            "refute_share" => self.refute_share = v as u32,
            "refute_reserve" => self.refute_reserve = v as u32,
            "refute_early" => self.refute_early = v as u32,
            "refute_early_at" => self.refute_early_at = v as u32,
            "keep_threats" => self.keep_threats = v as u32,
            "refute_tries" => self.refute_tries = v as u32,
            "refute_last" => self.refute_last = value as u64,
            "refute_wins" => self.refute_wins = b,
            "solve_threats" => self.solve_threats = v as u32,
            "solve_nodes" => self.solve_nodes = value as u64,
            _ => unreachable!("every tunable has a field"),
        }
        Ok(())
    }

    /// The defaults with `name=value,...` overrides applied.
    pub fn with_overrides(spec: &str) -> Result<Params, String> {
        let mut p = Params::default();
        p.apply(&parse_overrides(spec)?)?;
        Ok(p)
    }

    /// Sets each `(name, value)` in turn.
    fn apply(&mut self, overrides: &[(String, i64)]) -> Result<(), String> {
        for (name, v) in overrides {
            self.set(name, *v)?;
        }
        Ok(())
    }

    /// The search constants of a game of `rule` on a board `size` wide:
    /// the defaults (tuned on freestyle 15x15) with the set tuned for that
    /// rule and board, where one has passed its SPRT ([`TUNED`]).
    pub fn for_game(rule: Rule, size: usize) -> Params {
        let mut p = Params::default();
        if let Some(t) = TunedSet::of(rule, size) {
            let set = parse_overrides(t.values).expect("a tuned set is valid");
            p.apply(&set).expect("a tuned set is in range");
        }
        p
    }
}

/// `name=value,...` read into pairs (names and ranges are checked when
/// they are applied).
fn parse_overrides(spec: &str) -> Result<Vec<(String, i64)>, String> {
    let mut out = Vec::new();
    for item in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let (name, value) = item
            .split_once('=')
            .ok_or_else(|| format!("'{item}' is not name=value"))?;
        let v: i64 = value
            .trim()
            .parse()
            .map_err(|_| format!("bad value in '{item}'"))?;
        out.push((name.trim().to_string(), v));
    }
    Ok(out)
}

/// The freestyle set of spsa-f15-b: tuned with the network on 15x15;
/// played by renju (freestyle, standard and caro play spsa-f15-c).
const SPSA_F15_B: &str = "rfp_depth=6,rfp_margin=86,razor_depth=0,razor_margin=85,mcp_scale=112,\
                          lmr_depth=4,lmr_index=4,aspiration=62,vcf_nodes=1868,forced_free=5,\
                          width=14,root_width=18,solve_share=8,refute_share=14";

/// The freestyle set of spsa-f15-c (15x15, and 20x20 with the network
/// shifted; standard and caro too): spsa-f15-b retuned, with the
/// later pruning (`mcp_improving`, `lfh_margin`, `iir_depth`) in the run,
/// on 15x15 with the network (48 iterations of 32 pairs at 40000 nodes on
/// a lent 16-core machine). Its `se_margin` (6) is left out: singular
/// extensions are off (`se_depth=0`), where it does nothing.
const SPSA_F15_C: &str = "rfp_depth=7,rfp_margin=76,rfp_base=1,razor_depth=0,razor_margin=85,\
                          mcp_scale=117,mcp_improving=25,lfh_margin=13,lmr_depth=2,lmr_index=4,\
                          aspiration=53,vcf_nodes=1868,forced_free=5,width=15,root_width=18,\
                          solve_share=8,refute_share=14";

/// A set of search constants tuned for one rule and a range of board
/// widths, over the defaults.
pub struct TunedSet {
    pub rule: Rule,
    /// The boards it plays, from this wide to this wide (see
    /// [`Params::for_game`]).
    pub sizes: (usize, usize),
    /// `name=value,...` over [`Params::default`].
    pub values: &'static str,
    /// The SPSA run that found it and the SPRT that kept it.
    pub source: &'static str,
}

/// The tuned sets, each kept by an SPRT against the defaults on its own
/// rule and board (docs/strength.md; runs in tuning/).
pub const TUNED: &[TunedSet] = &[
    TunedSet {
        rule: Rule::Freestyle,
        sizes: (MIN_SIZE, 17),
        values: SPSA_F15_C,
        source: "SPSA run spsa-f15-c (tuning/, from spsa-f15-b with the later pruning; 48 \
                 iterations of 32 pairs at 40000 nodes); SPRT elo0=0 elo1=10 at 100 ms against \
                 spsa-f15-b (spsa-f15-c-t100), H1 at game 1498, +26.7 +/- 17.3. Before it: spsa-f15-b, \
                 H1 at game 1005, +28.7 +/- 21.3 against the defaults",
    },
    TunedSet {
        rule: Rule::Freestyle,
        // The boards the network plays shifted from 15x15 and this set
        // was tested with (20x20); 21 and 22 keep the defaults.
        sizes: (18, 20),
        values: SPSA_F15_C,
        source: "spsa-f15-c on 20x20 with the shifted network; SPRT elo0=0 elo1=10 at 100 ms \
                 against spsa-f15-b (f15c-f20-t100), H1 at game 2350, +19.1 +/- 14.1. Before it: \
                 spsa-f15-b, H1 at game 728, +47.9 +/- 25.5 against the defaults",
    },
    TunedSet {
        rule: Rule::Standard,
        // Standard plays the freestyle network (the same tables), on the
        // same boards; tested on 15x15.
        sizes: (MIN_SIZE, 20),
        values: SPSA_F15_C,
        source: "spsa-f15-c with the freestyle network in standard; SPRT elo0=0 elo1=10 at 100 \
                 ms against spsa-f15-b (f15c-s15-t100), H1 at game 1214, +33.2 +/- 19.2. Before \
                 it: spsa-f15-b, H1 at game 660, +43.3 +/- 26.4 against the defaults and the \
                 tables alone (snet-f15b-s15-t100)",
    },
    TunedSet {
        rule: Rule::Renju,
        // Renju plays the freestyle network on its own tables, on the
        // same boards; tested on 15x15 (renju's only Gomocup board).
        sizes: (MIN_SIZE, 20),
        values: SPSA_F15_B,
        source: "spsa-f15-b with the freestyle network in renju; SPRT elo0=0 elo1=10 at 100 ms \
                 against the defaults and the tables alone (rfnet-f15b-r15-t100), H1 at game \
                 454, +83.1 +/- 32.6",
    },
    TunedSet {
        rule: Rule::Caro,
        // Caro plays the freestyle network on its own tables, on the same
        // boards; tested on 15x15.
        sizes: (MIN_SIZE, 20),
        values: SPSA_F15_C,
        source: "spsa-f15-c with the freestyle network in caro; SPRT elo0=0 elo1=10 at 100 ms \
                 against spsa-f15-b (f15c-c15-t100), H1 at game 1982, +18.4 +/- 15.0. Before it: \
                 spsa-f15-b, H1 at game 823, +41.5 +/- 23.5 against the defaults and the tables \
                 alone (cnet-f15b-c15-t100)",
    },
];

impl TunedSet {
    /// The set a game of `rule` on a board `size` wide plays, if any.
    pub fn of(rule: Rule, size: usize) -> Option<&'static TunedSet> {
        TUNED.iter().find(|t| t.rule == rule && t.fits(size))
    }

    /// Whether it plays boards `size` wide.
    pub fn fits(&self, size: usize) -> bool {
        (self.sizes.0..=self.sizes.1).contains(&size)
    }
}

/// Search constants for every game a process plays: each game's tuned set
/// ([`Params::for_game`]) with the `TENGEN_PARAMS` overrides on top, so an
/// A/B test or a tuner changes the same constants in every rule.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ParamSets {
    overrides: Vec<(String, i64)>,
}

impl ParamSets {
    /// Overrides `name=value,...`, checked now (names and ranges).
    pub fn with_overrides(spec: &str) -> Result<ParamSets, String> {
        let overrides = parse_overrides(spec)?;
        Params::default().apply(&overrides)?;
        Ok(ParamSets { overrides })
    }

    /// The constants of a game of `rule` on a board `size` wide.
    pub fn for_game(&self, rule: Rule, size: usize) -> Params {
        let mut p = Params::for_game(rule, size);
        p.apply(&self.overrides)
            .expect("overrides were checked when read");
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::MAX_SIZE;

    #[test]
    fn overrides_are_parsed_and_checked() {
        let p = Params::with_overrides("rfp_depth=3, vcf_local=0,width=6").unwrap();
        assert_eq!((p.rfp_depth, p.vcf_local, p.width), (3, false, 6));
        assert_eq!(Params::with_overrides("").unwrap(), Params::default());
        assert!(Params::with_overrides("nope=1").is_err());
        assert!(Params::with_overrides("width").is_err());
        assert!(Params::with_overrides("width=-2").is_err());
        let e = Params::with_overrides("width=0").unwrap_err();
        assert!(e.contains("out of range (1 to 64)"), "{e}");
        // A retired experiment is no parameter.
        assert!(Params::with_overrides("lmr_scale=150").is_err());
    }

    #[test]
    fn every_tuned_set_is_valid_and_overrides_go_on_top() {
        for t in TUNED {
            let set = parse_overrides(t.values).unwrap();
            assert!(!set.is_empty(), "{:?}: an empty set", t.rule);
            Params::default().apply(&set).unwrap();
            assert!(!t.source.is_empty());
            assert!(t.sizes.0 <= t.sizes.1, "{:?}: an empty range", t.rule);
        }
        // At most one set a rule and board.
        for rule in Rule::ALL {
            for size in MIN_SIZE..=MAX_SIZE {
                let n = TUNED
                    .iter()
                    .filter(|t| t.rule == rule && t.fits(size))
                    .count();
                assert!(n <= 1, "{rule:?} {size}: {n} sets");
            }
        }
        let rules = [
            Rule::Freestyle,
            Rule::Standard,
            Rule::Renju,
            Rule::Caro,
            Rule::CaroExact,
        ];
        let sets = ParamSets::with_overrides("width=7, rfp_depth=2").unwrap();
        for rule in rules {
            for size in [5, 15, 17, 18, 20, 22] {
                let base = Params::for_game(rule, size);
                let p = sets.for_game(rule, size);
                assert_eq!((p.width, p.rfp_depth), (7, 2), "{rule:?} {size}");
                let mut q = p.clone();
                q.width = base.width;
                q.rfp_depth = base.rfp_depth;
                assert_eq!(q, base, "only the overrides differ");
                assert_eq!(
                    ParamSets::default().for_game(rule, size),
                    base,
                    "{rule:?} {size}"
                );
            }
        }
        // A game plays the defaults with its rule and board's tuned set on
        // top, if it has one; freestyle, standard, renju and caro 15x15 and
        // 20x20 have one, 22x22 (where no network plays) not.
        for rule in rules {
            for size in [15, 20] {
                let mut want = Params::default();
                if let Some(t) = TunedSet::of(rule, size) {
                    want.apply(&parse_overrides(t.values).unwrap()).unwrap();
                }
                assert_eq!(Params::for_game(rule, size), want, "{rule:?} {size}");
            }
        }
        assert_ne!(Params::for_game(Rule::Freestyle, 15), Params::default());
        // Freestyle up to 20 wide, standard and caro play spsa-f15-c;
        // renju spsa-f15-b, which freestyle played before.
        let f15b = Params::with_overrides(SPSA_F15_B).unwrap();
        assert_ne!(Params::for_game(Rule::Freestyle, 15), f15b);
        assert_eq!(
            Params::for_game(Rule::Freestyle, 15),
            Params::with_overrides(SPSA_F15_C).unwrap()
        );
        assert_eq!(
            Params::for_game(Rule::Freestyle, 20),
            Params::for_game(Rule::Freestyle, 15)
        );
        assert_eq!(Params::for_game(Rule::Freestyle, 22), Params::default());
        assert_eq!(
            Params::for_game(Rule::Standard, 15),
            Params::for_game(Rule::Freestyle, 15)
        );
        assert_eq!(Params::for_game(Rule::Renju, 15), f15b);
        assert_eq!(
            Params::for_game(Rule::Caro, 15),
            Params::for_game(Rule::Freestyle, 15)
        );
        assert_eq!(Params::for_game(Rule::CaroExact, 15), Params::default());
        assert!(ParamSets::with_overrides("width=0").is_err());
        assert!(ParamSets::with_overrides("nope=1").is_err());
    }

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
        }
        assert_eq!(d.get("attack"), None);
    }
}
