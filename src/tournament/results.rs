//! Match results read back from the JSON a run writes: to merge the
//! shards of a match played by many processes (`pbrain-tengen merge`), or
//! to resume an interrupted one (`match --resume`).

use super::referee::{GameRecord, Outcome};
use super::setup::TimeControl;
use super::stats::Sprt;
use super::stats::SprtVerdict;
use super::summary::{summarize, Decision, Played, Summary};
use crate::types::{Pos, Rule};
use serde_json::Value;
use std::path::Path;

/// One run's results.
#[derive(Clone, Debug)]
pub struct Saved {
    pub names: Vec<String>,
    pub config: String,
    pub shard: Option<(usize, usize)>,
    pub scheduled: usize,
    pub size: usize,
    pub rule: Rule,
    pub interrupted: bool,
    pub games: Vec<Played>,
    /// Where the run's SPRT stopped it (files from before it was saved
    /// have none).
    pub decided: Option<Decision>,
}

fn field<'a>(v: &'a Value, key: &str, what: &str) -> Result<&'a Value, String> {
    v.get(key)
        .ok_or_else(|| format!("{what}: no \"{key}\" (not a results file of this version?)"))
}

fn uint(v: &Value, key: &str, what: &str) -> Result<usize, String> {
    field(v, key, what)?
        .as_u64()
        .map(|n| n as usize)
        .ok_or_else(|| format!("{what}: \"{key}\" is not a number"))
}

fn text<'a>(v: &'a Value, key: &str, what: &str) -> Result<&'a str, String> {
    field(v, key, what)?
        .as_str()
        .ok_or_else(|| format!("{what}: \"{key}\" is not a string"))
}

fn list<'a>(v: &'a Value, key: &str, what: &str) -> Result<&'a Vec<Value>, String> {
    field(v, key, what)?
        .as_array()
        .ok_or_else(|| format!("{what}: \"{key}\" is not a list"))
}

/// Reads a results file written by `match --json`.
pub fn load(path: &Path) -> Result<Saved, String> {
    let name = path.display().to_string();
    let raw = std::fs::read_to_string(path).map_err(|e| format!("cannot read {name}: {e}"))?;
    let v: Value =
        serde_json::from_str(&raw).map_err(|e| format!("{name}: not valid JSON: {e}"))?;
    let names: Vec<String> = list(&v, "engines", &name)?
        .iter()
        .map(|n| n.as_str().map(str::to_string))
        .collect::<Option<_>>()
        .ok_or_else(|| format!("{name}: bad engine names"))?;
    let config = text(&v, "config", &name)?.to_string();
    let shard = match field(&v, "shard", &name)? {
        Value::Null => None,
        s => {
            let a = s.as_array().filter(|a| a.len() == 2);
            let k = a.and_then(|a| a[0].as_u64());
            let n = a.and_then(|a| a[1].as_u64());
            match (k, n) {
                (Some(k), Some(n)) => Some((k as usize, n as usize)),
                _ => return Err(format!("{name}: bad \"shard\"")),
            }
        }
    };
    let size = uint(&v, "size", &name)?;
    let rule: Rule = text(&v, "rule", &name)?
        .parse()
        .map_err(|_| format!("{name}: bad \"rule\""))?;
    let mut games = Vec::new();
    for (i, g) in list(&v, "games", &name)?.iter().enumerate() {
        let what = format!("{name}: game {}", i + 1);
        let moves: Vec<Pos> = list(g, "moves", &what)?
            .iter()
            .map(|m| {
                m.as_str()
                    .and_then(|s| Pos::parse_pos(s).ok())
                    .filter(|p| p.x() < size && p.y() < size)
                    .ok_or_else(|| format!("{what}: bad move {m}"))
            })
            .collect::<Result<_, _>>()?;
        let times: Vec<u64> = list(g, "times_ms", &what)?
            .iter()
            .map(|t| t.as_u64().ok_or_else(|| format!("{what}: bad time {t}")))
            .collect::<Result<_, _>>()?;
        let opening_plies = uint(g, "opening_plies", &what)?;
        if opening_plies > moves.len() || moves.len() - opening_plies != times.len() {
            return Err(format!("{what}: moves and times do not agree"));
        }
        let outcome = match text(g, "result", &what)? {
            "1-0" => Outcome::BlackWins,
            "0-1" => Outcome::WhiteWins,
            "1/2-1/2" => Outcome::Draw,
            r => return Err(format!("{what}: bad result '{r}'")),
        };
        let pair = list(g, "pair", &what)?;
        let pair = match (
            pair.first().and_then(Value::as_u64),
            pair.get(1).and_then(Value::as_u64),
        ) {
            (Some(a), Some(b)) => (a as usize, b as usize),
            _ => return Err(format!("{what}: bad \"pair\"")),
        };
        let (black, white) = (
            uint(g, "black_index", &what)?,
            uint(g, "white_index", &what)?,
        );
        if [pair.0, pair.1, black, white]
            .iter()
            .any(|&e| e >= names.len())
        {
            return Err(format!("{what}: engine index out of range"));
        }
        games.push(Played {
            number: uint(g, "number", &what)?,
            pair,
            round: uint(g, "round", &what)?,
            black,
            white,
            opening: text(g, "opening", &what)?.to_string(),
            record: GameRecord {
                opening: moves[..opening_plies].to_vec(),
                moves: moves[opening_plies..].iter().copied().zip(times).collect(),
                outcome,
                reason: text(g, "reason", &what)?.to_string(),
                faulty: None,
            },
        });
    }
    let decided = v.get("sprt").and_then(|sp| {
        let games = sp.get("decided_at")?.as_u64()? as usize;
        let llr = sp.get("decided_llr")?.as_f64()?;
        let verdict = match sp.get("result")?.as_str()? {
            "H1" => SprtVerdict::AcceptH1,
            "H0" => SprtVerdict::AcceptH0,
            _ => return None,
        };
        Some(Decision {
            games,
            llr,
            verdict,
        })
    });
    Ok(Saved {
        names,
        config,
        shard,
        scheduled: uint(&v, "scheduled", &name)?,
        size,
        rule,
        interrupted: field(&v, "interrupted", &name)?.as_bool().unwrap_or(false),
        games,
        decided,
    })
}

/// The SPRT settings and time control of a fingerprint.
fn from_config(config: &str) -> Result<(Option<Sprt>, TimeControl), String> {
    let get = |key: &str| {
        config
            .split(' ')
            .find_map(|w| w.strip_prefix(key))
            .ok_or_else(|| format!("no {key} in the match settings"))
    };
    let sprt = match get("sprt=")? {
        "none" => None,
        s => Some(Sprt::parse(s)?),
    };
    Ok((sprt, TimeControl::parse(get("tc=")?)?))
}

/// One summary from the results of several runs of the same match (its
/// shards): the same games must not appear twice, and every run must be
/// of the same match. Returns the summary and the games the match was to
/// play in all.
pub fn merge(parts: &[Saved]) -> Result<(Summary, usize), String> {
    let first = parts.first().ok_or("nothing to merge")?;
    let mut games: Vec<Played> = Vec::new();
    let mut numbers = std::collections::HashSet::new();
    let mut shards_seen = Vec::new();
    for (i, p) in parts.iter().enumerate() {
        if p.config != first.config {
            return Err(format!(
                "part {} is of another match: its settings differ\n  {}\n  {}",
                i + 1,
                first.config,
                p.config
            ));
        }
        if p.names != first.names {
            return Err(format!("part {} names other engines", i + 1));
        }
        match (first.shard, p.shard) {
            (Some((_, n0)), Some((k, n))) => {
                if n != n0 {
                    return Err(format!("part {} is shard {k}/{n}, not of {n0}", i + 1));
                }
                if shards_seen.contains(&k) {
                    return Err(format!("shard {k}/{n} given twice"));
                }
                shards_seen.push(k);
            }
            (None, None) => {}
            _ => return Err("sharded and unsharded results cannot be merged".into()),
        }
        for g in &p.games {
            if !numbers.insert(g.number) {
                return Err(format!("game {} appears twice", g.number));
            }
            games.push(g.clone());
        }
    }
    let (sprt, tc) = from_config(&first.config)?;
    let scheduled = parts.iter().map(|p| p.scheduled).sum();
    let summary = summarize(
        Summary {
            names: first.names.clone(),
            pairs: Vec::new(),
            games,
            sprt: None,
            // Each shard ran its own test, if any: the merged one is read
            // from all the games.
            decided: None,
            interrupted: parts.iter().any(|p| p.interrupted),
            tc,
            config: first.config.clone(),
            scheduled,
            shard: None,
            size: first.size,
            rule: first.rule,
        },
        sprt,
    );
    Ok((summary, scheduled))
}
