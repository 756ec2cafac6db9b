//! What a match produced: its games, the statistics of each pair of
//! engines and the SPRT, computed from the games alone (so a run, its
//! shards merged and a resumed run give the same summary). The runner
//! fills it; the report, the JSON record and `merge` read it.

use super::referee::{GameRecord, Outcome};
use super::setup::TimeControl;
use super::stats::{Penta, Sprt, SprtVerdict, Wdl};
use crate::types::Rule;
use std::collections::HashMap;

/// The point where a sequential test stopped the match: how many games
/// had finished, the LLR then and the verdict. Games that were in flight
/// then still finish and count in the score, but the verdict is the one
/// the test stopped on: those games can move the LLR back inside the
/// bounds, and a test that looked again would no longer be an SPRT.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Decision {
    pub games: usize,
    pub llr: f64,
    pub verdict: SprtVerdict,
}

/// A played game.
#[derive(Clone, Debug)]
pub struct Played {
    pub number: usize,
    pub pair: (usize, usize),
    pub round: usize,
    pub black: usize,
    pub white: usize,
    pub opening: String,
    pub record: GameRecord,
}

/// Results of one pair of engines, from the first engine's view.
#[derive(Clone, Debug, Default)]
pub struct PairStats {
    pub wdl: Wdl,
    pub penta: Penta,
    pending: HashMap<usize, u8>,
}

/// What a match produced.
#[derive(Debug)]
pub struct Summary {
    pub names: Vec<String>,
    pub pairs: Vec<((usize, usize), PairStats)>,
    pub games: Vec<Played>,
    /// The SPRT over all the games: its settings, LLR and verdict (the
    /// verdict of `decided` when the test stopped the match).
    pub sprt: Option<(Sprt, f64, SprtVerdict)>,
    /// Where the SPRT stopped the match.
    pub decided: Option<Decision>,
    pub interrupted: bool,
    /// The time control the games were played at.
    pub tc: TimeControl,
    /// [`MatchConfig::fingerprint`] of the match.
    pub config: String,
    /// Games this run (or shard) was to play, resumed ones included.
    pub scheduled: usize,
    pub shard: Option<(usize, usize)>,
    pub size: usize,
    pub rule: Rule,
}

/// Points of engine `who` in a record: 2 win, 1 draw, 0 loss.
pub fn points(p: &Played, who: usize) -> u8 {
    match p.record.outcome {
        Outcome::Draw => 1,
        Outcome::BlackWins if p.black == who => 2,
        Outcome::WhiteWins if p.white == who => 2,
        _ => 0,
    }
}

/// Adds a finished game to its pair's statistics (first engine's view);
/// the pentanomial pairs games by round, whatever order they finish in.
pub(super) fn add_game(pairs: &mut Vec<((usize, usize), PairStats)>, p: &Played) {
    let idx = match pairs.iter().position(|(k, _)| *k == p.pair) {
        Some(i) => i,
        None => {
            pairs.push((p.pair, PairStats::default()));
            pairs.len() - 1
        }
    };
    let st = &mut pairs[idx].1;
    let pts = points(p, p.pair.0);
    match pts {
        2 => st.wdl.wins += 1,
        1 => st.wdl.draws += 1,
        _ => st.wdl.losses += 1,
    }
    match st.pending.remove(&p.round) {
        Some(other) => st.penta.add(other, pts),
        None => {
            st.pending.insert(p.round, pts);
        }
    }
}

/// The SPRT on the first pair: pentanomial once a pair is complete.
pub(super) fn sprt_of(s: Sprt, pairs: &[((usize, usize), PairStats)]) -> (f64, SprtVerdict) {
    let Some((_, first)) = pairs.first() else {
        return (0.0, SprtVerdict::Continue);
    };
    let llr = if first.penta.pairs() > 0 {
        s.llr_penta(&first.penta)
    } else {
        s.llr_wdl(&first.wdl)
    };
    (llr, s.verdict(llr))
}

/// The summary of a set of games, computed from the games alone in game
/// order: a run, its shards merged, or a resumed run give the same one.
/// Its pair statistics and SPRT (`sprt`, when the match runs one) are
/// recomputed from `s.games`, whatever `s` held.
pub fn summarize(mut s: Summary, sprt: Option<Sprt>) -> Summary {
    s.games.sort_by_key(|g| g.number);
    s.pairs.clear();
    for g in &s.games {
        add_game(&mut s.pairs, g);
    }
    s.pairs.sort_by_key(|(k, _)| *k);
    let decided = s.decided;
    s.sprt = sprt.map(|sp| {
        let (llr, v) = sprt_of(sp, &s.pairs);
        (sp, llr, decided.map_or(v, |d| d.verdict))
    });
    if sprt.is_none() {
        s.decided = None;
    }
    s
}
