//! What a match prints: the progress line, the summary (scores, Elo,
//! SPRT, time used) and the JSON results file.

use super::records::{json_num, json_str};
use super::stats::{Sprt, SprtVerdict};
use super::summary::{points, PairStats, Summary};
use std::io::Write;
use std::time::Instant;

/// An Elo figure for people: infinite or undefined ones spelt out.
fn fmt_elo(x: f64, signed: bool) -> String {
    if x.is_nan() {
        "n/a".into()
    } else if x.is_infinite() {
        if x > 0.0 {
            "+inf".into()
        } else {
            "-inf".into()
        }
    } else if signed {
        format!("{x:+.1}")
    } else {
        format!("{x:.1}")
    }
}

pub(super) fn progress(
    names: &[String],
    pairs: &[((usize, usize), PairStats)],
    done: usize,
    total: usize,
    sprt: Option<(Sprt, f64, SprtVerdict)>,
    started: Instant,
    tty: bool,
) {
    let Some(((a, b), st)) = pairs.first() else {
        return;
    };
    let elo = st
        .wdl
        .elo()
        .map(|e| {
            format!(
                "{} +/- {}",
                fmt_elo(e.elo, true),
                fmt_elo(e.elo_error, false)
            )
        })
        .unwrap_or_default();
    let mut line = format!(
        "games {done}/{total}  {} vs {}: +{} -{} ={}  elo {elo}",
        names[*a], names[*b], st.wdl.wins, st.wdl.losses, st.wdl.draws
    );
    if let Some((s, llr, _)) = sprt {
        let (lo, hi) = s.bounds();
        line.push_str(&format!("  llr {llr:.2} ({lo:.2}, {hi:.2})"));
    }
    line.push_str(&format!("  {:.0}s", started.elapsed().as_secs_f64()));
    let mut err = std::io::stderr();
    if tty {
        let width = 40usize;
        let filled = done * width / total.max(1);
        let _ = write!(
            err,
            "\r[{}{}] {line}",
            "#".repeat(filled),
            ".".repeat(width - filled)
        );
    } else {
        let _ = writeln!(err, "{line}");
    }
    let _ = err.flush();
}

/// The summary as text.
pub fn report(s: &Summary) -> String {
    let mut out = String::new();
    if s.interrupted {
        out.push_str("interrupted: finished games only\n");
    }
    for ((a, b), st) in &s.pairs {
        let w = &st.wdl;
        out.push_str(&format!(
            "{} vs {}: games {}, +{} -{} ={}",
            s.names[*a],
            s.names[*b],
            w.games(),
            w.wins,
            w.losses,
            w.draws
        ));
        if let Some(e) = w.elo() {
            out.push_str(&format!(
                ", score {:.1}%, elo {} +/- {}, nelo {} +/- {}, los {:.1}%, draws {:.1}%",
                e.score * 100.0,
                fmt_elo(e.elo, true),
                fmt_elo(e.elo_error, false),
                fmt_elo(e.nelo, true),
                fmt_elo(e.nelo_error, false),
                e.los * 100.0,
                w.draws as f64 * 100.0 / w.games().max(1) as f64
            ));
        }
        out.push_str(&format!(
            "\n  pentanomial [LL, LD, WL+DD, WD, WW] = {:?}\n",
            st.penta.to_array()
        ));
    }
    if let Some((sp, llr, v)) = &s.sprt {
        let (lo, hi) = sp.bounds();
        let verdict = match v {
            SprtVerdict::AcceptH1 => "H1 accepted",
            SprtVerdict::AcceptH0 => "H0 accepted",
            SprtVerdict::Continue => "no verdict",
        };
        let verdict = match s.decided {
            Some(d) if d.games == s.games.len() => verdict.to_string(),
            Some(d) => {
                let late = s.games.len() - d.games;
                let (games, are) = if late == 1 {
                    ("game", "is")
                } else {
                    ("games", "are")
                };
                format!(
                    "{verdict} at game {} (llr {:.2}; the {late} {games} then in flight {are} in the score)",
                    d.games, d.llr
                )
            }
            None => verdict.to_string(),
        };
        out.push_str(&format!(
            "SPRT elo0 {} elo1 {} alpha {} beta {}: llr {llr:.2}, bounds ({lo:.2}, {hi:.2}), {verdict}\n",
            sp.elo0, sp.elo1, sp.alpha, sp.beta,
        ));
    }
    if s.names.len() > 2 {
        out.push_str("rank  engine                 points  games\n");
        let mut table: Vec<(usize, f64, usize)> = (0..s.names.len())
            .map(|i| {
                let mut pts = 0.0;
                let mut n = 0;
                for g in s.games.iter().filter(|g| g.black == i || g.white == i) {
                    pts += points(g, i) as f64 / 2.0;
                    n += 1;
                }
                (i, pts, n)
            })
            .collect();
        table.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        for (rank, (i, pts, n)) in table.iter().enumerate() {
            out.push_str(&format!(
                "{:>4}  {:<22} {:>6.1} {:>6}\n",
                rank + 1,
                s.names[*i],
                pts,
                n
            ));
        }
    }
    let mut reasons: Vec<(String, usize)> = Vec::new();
    for g in &s.games {
        let r = g
            .record
            .reason
            .split(['(', ':'])
            .next()
            .unwrap_or("")
            .trim()
            .to_string();
        match reasons.iter_mut().find(|(k, _)| *k == r) {
            Some((_, n)) => *n += 1,
            None => reasons.push((r, 1)),
        }
    }
    let r: Vec<String> = reasons.iter().map(|(k, n)| format!("{k}: {n}")).collect();
    out.push_str(&format!("endings: {}\n", r.join(", ")));
    out.push_str(&time_use(s));
    out
}

/// Each engine's use of the clock: mean and longest move, the longest
/// against the turn limit, and with a game clock the share of it used in
/// games of 40 plies or more (time unused at the end is strength lost).
pub fn time_use(s: &Summary) -> String {
    let mut out = String::new();
    for (i, name) in s.names.iter().enumerate() {
        let (mut n, mut total, mut worst) = (0u64, 0u64, 0u64);
        let mut shares = Vec::new();
        for g in &s.games {
            let colour = if g.black == i {
                0
            } else if g.white == i {
                1
            } else {
                continue;
            };
            // Moves after the opening alternate from the side to move.
            let first = g.record.opening.len() % 2;
            let mine: Vec<u64> = g
                .record
                .moves
                .iter()
                .enumerate()
                .filter(|(k, _)| (first + k) % 2 == colour)
                .map(|(_, &(_, ms))| ms)
                .collect();
            n += mine.len() as u64;
            total += mine.iter().sum::<u64>();
            worst = worst.max(mine.iter().copied().max().unwrap_or(0));
            if let Some(game) = s.tc.game.filter(|_| g.record.plies() >= 40) {
                let budget =
                    game.as_millis() as u64 + s.tc.increment.as_millis() as u64 * mine.len() as u64;
                shares.push(mine.iter().sum::<u64>() as f64 / budget.max(1) as f64);
            }
        }
        if n == 0 {
            continue;
        }
        out.push_str(&format!(
            "time {name}: {n} moves, mean {} ms, longest {worst} ms",
            total / n
        ));
        if let Some(t) = s.tc.turn {
            out.push_str(&format!(
                " ({:.0}% of the turn)",
                worst as f64 * 100.0 / t.as_millis().max(1) as f64
            ));
        }
        if !shares.is_empty() {
            shares.sort_by(f64::total_cmp);
            let mean = shares.iter().sum::<f64>() / shares.len() as f64;
            out.push_str(&format!(
                ", game time used in {} games of 40+ plies: mean {:.0}%, least {:.0}%, most {:.0}%",
                shares.len(),
                mean * 100.0,
                shares[0] * 100.0,
                shares[shares.len() - 1] * 100.0
            ));
        }
        out.push('\n');
    }
    out
}

/// The summary as JSON (the first pair's figures at the top level).
pub fn json(s: &Summary) -> String {
    let first = s
        .pairs
        .first()
        .map(|(_, st)| st.clone())
        .unwrap_or_default();
    let e = first.wdl.elo();
    let mut j = String::from("{\n");
    j.push_str(&format!(
        "  \"engines\": [{}],\n",
        s.names
            .iter()
            .map(|n| json_str(n))
            .collect::<Vec<_>>()
            .join(", ")
    ));
    j.push_str(&format!(
        "  \"wins\": {}, \"losses\": {}, \"draws\": {},\n",
        first.wdl.wins, first.wdl.losses, first.wdl.draws
    ));
    j.push_str(&format!(
        "  \"elo\": {}, \"elo_error\": {}, \"los\": {},\n",
        e.map(|e| json_num(e.elo)).unwrap_or("null".into()),
        e.map(|e| json_num(e.elo_error)).unwrap_or("null".into()),
        e.map(|e| json_num(e.los)).unwrap_or("null".into())
    ));
    j.push_str(&format!(
        "  \"pentanomial\": {:?},\n",
        first.penta.to_array()
    ));
    match &s.sprt {
        Some((sp, llr, v)) => {
            let (lo, hi) = sp.bounds();
            j.push_str(&format!(
                "  \"sprt\": {{\"elo0\": {}, \"elo1\": {}, \"alpha\": {}, \"beta\": {}, \"llr\": {}, \"lower\": {}, \"upper\": {}, \"result\": {}, \"decided_at\": {}, \"decided_llr\": {}}},\n",
                json_num(sp.elo0),
                json_num(sp.elo1),
                json_num(sp.alpha),
                json_num(sp.beta),
                json_num(*llr),
                json_num(lo),
                json_num(hi),
                json_str(match v {
                    SprtVerdict::AcceptH1 => "H1",
                    SprtVerdict::AcceptH0 => "H0",
                    SprtVerdict::Continue => "continue",
                }),
                s.decided.map_or("null".to_string(), |d| d.games.to_string()),
                s.decided.map_or("null".to_string(), |d| json_num(d.llr)),
            ));
        }
        None => j.push_str("  \"sprt\": null,\n"),
    }
    j.push_str(&format!("  \"interrupted\": {},\n", s.interrupted));
    j.push_str(&format!("  \"config\": {},\n", json_str(&s.config)));
    j.push_str(&format!(
        "  \"shard\": {}, \"scheduled\": {}, \"size\": {}, \"rule\": {},\n",
        s.shard
            .map(|(k, n)| format!("[{k}, {n}]"))
            .unwrap_or_else(|| "null".into()),
        s.scheduled,
        s.size,
        json_str(s.rule.name())
    ));
    j.push_str("  \"games\": [\n");
    let rows: Vec<String> = s
        .games
        .iter()
        .map(|g| {
            let moves: Vec<String> = g
                .record
                .opening
                .iter()
                .chain(g.record.moves.iter().map(|(p, _)| p))
                .map(|p| json_str(&p.to_pos_string()))
                .collect();
            format!(
                "    {{\"number\": {}, \"opening\": {}, \"black\": {}, \"white\": {}, \"result\": {}, \"reason\": {}, \"plies\": {}, \"moves\": [{}], \"times_ms\": [{}], \"pair\": [{}, {}], \"round\": {}, \"black_index\": {}, \"white_index\": {}, \"opening_plies\": {}}}",
                g.number,
                json_str(&g.opening),
                json_str(&s.names[g.black]),
                json_str(&s.names[g.white]),
                json_str(g.record.outcome.code()),
                json_str(&g.record.reason),
                g.record.plies(),
                moves.join(", "),
                g.record
                    .moves
                    .iter()
                    .map(|(_, t)| t.to_string())
                    .collect::<Vec<_>>()
                    .join(", "),
                g.pair.0,
                g.pair.1,
                g.round,
                g.black,
                g.white,
                g.record.opening.len()
            )
        })
        .collect();
    j.push_str(&rows.join(",\n"));
    j.push_str("\n  ]\n}\n");
    j
}
