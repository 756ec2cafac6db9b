//! Builds positions with a very long VCF, for the solver's suite: random
//! play does not reach one of 60 fours, so this constructs it.
//!
//! The attacker's win is a chain of fours. Each four is made in a line
//! whose five-cell window holds the previous four's stone, two attacker
//! stones already on the board, the new four's stone and the cell the
//! defender must block; so each four appears only once the previous one
//! is played. The last four is also a second four in another line (a
//! double four). The attacker's stones are reused where the chain passes
//! them; the stones the chain needs that are not there yet are set on the
//! board at the start. The defender gets as many stones, spread where they
//! do not touch the chain, so the position has the right stone counts.
//!
//! Each candidate is checked by playing the chain (every four has exactly
//! one five cell, the block, and no block makes a four for the defender),
//! then by the threat search: no VCF of fewer fours exists, and the
//! solver's proof is printed with its length.
//!
//! cargo run --release --example vcf_build -- [SIZE] [MIN_FOURS] [COUNT] [SEED]

use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use std::collections::HashSet;
use std::time::Duration;
use tengen::board::DIR_STEPS;
use tengen::pattern::Class;
use tengen::search::params::Params;
use tengen::search::Searcher;
use tengen::solver::{Mode, Outcome, SolveLimits, Solver};
use tengen::types::Color;
use tengen::{Board, Pos, Rule};

/// A chain under construction. The attacker is black and moves first.
#[derive(Clone, Default)]
struct Chain {
    /// Attacker stones on the board at the start.
    pre: Vec<Pos>,
    /// Defender stones on the board at the start.
    filler: Vec<Pos>,
    /// The attacker's fours and the defender's blocks, in order.
    moves: Vec<(Pos, Pos)>,
    /// The direction of the last four's line.
    last_dir: usize,
}

impl Chain {
    fn used(&self) -> HashSet<Pos> {
        let mut s: HashSet<Pos> = self.pre.iter().chain(&self.filler).copied().collect();
        for &(a, b) in &self.moves {
            s.insert(a);
            s.insert(b);
        }
        s
    }

    /// The starting position, or `None` if a five is already on it.
    fn start(&self, size: usize) -> Option<Board> {
        let mut b = Board::new(size, Rule::Freestyle).ok()?;
        let (mut a, mut d) = (self.pre.iter(), self.filler.iter());
        loop {
            let next = if b.side_to_move() == Color::Black {
                a.next().or_else(|| d.next().inspect(|_| b.toggle_side()))
            } else {
                d.next().or_else(|| a.next().inspect(|_| b.toggle_side()))
            };
            match next {
                Some(&p) => b.make(p),
                None => break,
            }
            if b.is_won() {
                return None;
            }
        }
        if b.side_to_move() != Color::Black {
            b.toggle_side();
        }
        Some(b)
    }

    /// Plays the chain and checks every step: each four has exactly one
    /// five cell (the block), no block gives the defender a five cell, and
    /// the last four (if `finished`) leaves two five cells.
    fn valid(&self, size: usize, finished: bool) -> bool {
        let Some(mut b) = self.start(size) else {
            return false;
        };
        if b.count(Color::Black, Class::Five) > 0 || b.count(Color::White, Class::Five) > 0 {
            return false;
        }
        let n = self.moves.len();
        for (i, &(a, blk)) in self.moves.iter().enumerate() {
            if !b.is_empty(a) || !b.is_empty(blk) {
                return false;
            }
            // No move wins at once before the last four.
            if !(finished && i + 1 == n) && b.count(Color::Black, Class::Flex4) > 0 {
                return false;
            }
            b.make(a);
            if b.is_won() {
                return false;
            }
            let fives = b.count(Color::Black, Class::Five);
            if finished && i + 1 == n {
                return fives >= 2;
            }
            if fives != 1 || b.class(Color::Black, blk) != Class::Five {
                return false;
            }
            b.make(blk);
            if b.count(Color::White, Class::Five) > 0 || b.is_won() {
                return false;
            }
        }
        !finished
    }
}

fn board_cells(size: usize) -> Vec<Pos> {
    (0..size)
        .flat_map(|y| (0..size).map(move |x| Pos::new(x, y)))
        .collect()
}

/// The five-cell windows through `p` in direction `d` that fit the board.
fn windows(size: usize, p: Pos, d: usize) -> Vec<[Pos; 5]> {
    let (dx, dy) = DIR_STEPS[d];
    let mut out = Vec::new();
    for off in 0..5isize {
        let mut w = [p; 5];
        let mut ok = true;
        for (k, c) in w.iter_mut().enumerate() {
            let t = k as isize - off;
            let x = p.x() as isize + t * dx;
            let y = p.y() as isize + t * dy;
            if x < 0 || y < 0 || x >= size as isize || y >= size as isize {
                ok = false;
                break;
            }
            *c = Pos::new(x as usize, y as usize);
        }
        if ok {
            out.push(w);
        }
    }
    out
}

/// Attacker stones at the point the chain has reached (start plus fours).
fn attacker_stones(c: &Chain) -> HashSet<Pos> {
    c.pre
        .iter()
        .copied()
        .chain(c.moves.iter().map(|m| m.0))
        .collect()
}

/// The cells of window `w` other than `last` that nothing uses yet, or
/// `None` if a defender stone (or a reserved cell) is in it; the rest of
/// the window are attacker stones.
fn free_cells(
    w: &[Pos; 5],
    last: Pos,
    used: &HashSet<Pos>,
    att: &HashSet<Pos>,
) -> Option<Vec<Pos>> {
    let others = w.iter().copied().filter(|&q| q != last);
    if others
        .clone()
        .any(|q| used.contains(&q) && !att.contains(&q))
    {
        return None;
    }
    Some(others.filter(|q| !used.contains(q)).collect())
}

/// One more four: a window through the last four's stone in another
/// direction, holding two attacker stones (reused or new) and two free
/// cells for the next four and its block.
fn extend(
    c: &Chain,
    size: usize,
    rng: &mut StdRng,
    finish: bool,
    searcher: &mut Searcher,
) -> Option<Chain> {
    let last = c.moves.last()?.0;
    let used = c.used();
    let att = attacker_stones(c);
    let mut options = Vec::new();
    for (d, &(dx, dy)) in DIR_STEPS.iter().enumerate() {
        if d == c.last_dir {
            continue;
        }
        for w in windows(size, last, d) {
            let Some(free) = free_cells(&w, last, &used, &att) else {
                continue;
            };
            let have = 4 - free.len();
            if have > 2 {
                continue;
            }
            // The cells just past both ends of the window: defender
            // stones there keep the four from being open.
            let mut caps = Vec::new();
            for (end, step) in [(w[0], -1isize), (w[4], 1)] {
                let x = end.x() as isize + step * dx;
                let y = end.y() as isize + step * dy;
                if x >= 0 && y >= 0 && x < size as isize && y < size as isize {
                    let q = Pos::new(x as usize, y as usize);
                    if !used.contains(&q) {
                        caps.push(q);
                    }
                }
            }
            options.push((d, w, have, free, caps));
        }
    }
    // Prefer reuse: fewer new stones keep the board roomy.
    // Every way to give the free cells their parts: new attacker stones,
    // the next four, its block.
    let mut tries = Vec::new();
    for (d, _w, have, free, caps) in options {
        let need = 2 - have;
        for next in 0..free.len() {
            for blk in 0..free.len() {
                if blk == next {
                    continue;
                }
                let stones: Vec<Pos> = (0..free.len())
                    .filter(|&i| i != next && i != blk)
                    .map(|i| free[i])
                    .collect();
                debug_assert_eq!(stones.len(), need);
                // Without the end stones first: they take room.
                tries.push((d, have, stones.clone(), free[next], free[blk], Vec::new()));
                if !caps.is_empty() {
                    tries.push((d, have, stones, free[next], free[blk], caps.clone()));
                }
            }
        }
    }
    tries.shuffle(rng);
    tries.sort_by_key(|t| (std::cmp::Reverse(t.1), t.5.len()));
    for (d, _have, stones, next, blk, caps) in tries.into_iter().take(60) {
        let mut n = c.clone();
        n.pre.extend(stones);
        n.filler.extend(caps);
        n.moves.push((next, blk));
        n.last_dir = d;
        if finish {
            // The last four must also be a four in another line.
            if let Some(f) = double_four(&n, size, rng, searcher) {
                return Some(f);
            }
            continue;
        }
        // Unfinished, the chain must not win yet by any VCF at all.
        if n.valid(size, false) {
            let mut b = n.start(size)?;
            if searcher.find_vcf(&mut b, 200, 20_000).is_none() {
                return Some(n);
            }
            log::trace!("{} fours: a VCF", n.moves.len());
        } else {
            log::trace!("{} fours: invalid", n.moves.len());
        }
    }
    None
}

/// Makes the chain's last four a double four: three attacker stones in a
/// second line through it.
fn double_four(c: &Chain, size: usize, rng: &mut StdRng, searcher: &mut Searcher) -> Option<Chain> {
    let (last, _) = *c.moves.last()?;
    let used = c.used();
    let att = attacker_stones(c);
    let mut dirs: Vec<usize> = (0..4).filter(|&d| d != c.last_dir).collect();
    dirs.shuffle(rng);
    for d in dirs {
        let mut ws = windows(size, last, d);
        ws.shuffle(rng);
        for w in ws {
            let Some(free) = free_cells(&w, last, &used, &att) else {
                continue;
            };
            let have = 4 - free.len();
            if have > 3 || free.is_empty() {
                continue;
            }
            let mut n = c.clone();
            n.pre.extend(free[..3 - have].iter().copied());
            // The new stones must not open a shorter way to win.
            if n.valid(size, true) {
                let mut b = n.start(size)?;
                let fours = n.moves.len() as u32;
                if searcher.find_vcf(&mut b, fours - 2, 200_000).is_none() {
                    return Some(n);
                }
            }
        }
    }
    None
}

/// The first four: three attacker stones in a line with the first four
/// cell and its block.
fn seed_chain(size: usize, rng: &mut StdRng) -> Chain {
    loop {
        let x = rng.gen_range(0..size);
        let y = rng.gen_range(0..size);
        let d = rng.gen_range(0..4);
        let ws = windows(size, Pos::new(x, y), d);
        let Some(w) = ws.choose(rng) else { continue };
        let mut cells = w.to_vec();
        cells.shuffle(rng);
        let c = Chain {
            pre: cells[..3].to_vec(),
            filler: Vec::new(),
            moves: vec![(cells[3], cells[4])],
            last_dir: d,
        };
        if c.valid(size, false) {
            return c;
        }
    }
}

/// Defender stones far from everything, in a lattice with at most two in
/// any five cells of a line, until both sides have as many stones.
fn add_filler(c: &Chain, size: usize, searcher: &mut Searcher) -> Option<Chain> {
    let fours = c.moves.len() as u32;
    let used = c.used();
    let mut n = c.clone();
    // Away from the chain first; next to it only if the board is short.
    for gap in [2, 1] {
        for p in board_cells(size) {
            if n.filler.len() == n.pre.len() {
                break;
            }
            let far = used.iter().chain(&n.filler).chain(&n.pre).all(|q| {
                let d = q.x().abs_diff(p.x()).max(q.y().abs_diff(p.y()));
                d >= gap || (d >= 1 && !used.contains(q))
            });
            if (p.x() + 2 * p.y()) % 5 <= 1 && far {
                // Keep a stone only if the chain still works with it.
                let attacker = n.filler.len() >= n.pre.len();
                if attacker {
                    n.pre.push(p);
                } else {
                    n.filler.push(p);
                }
                // An attacker stone must not open a shorter way to win.
                let shortcut = attacker
                    && n.start(size).is_none_or(|mut b| {
                        searcher.find_vcf(&mut b, fours - 2, 200_000).is_some()
                    });
                if shortcut || !n.valid(size, true) {
                    if n.filler.last() == Some(&p) {
                        n.filler.pop();
                    } else {
                        n.pre.pop();
                    }
                }
            }
        }
    }
    if n.filler.len() != n.pre.len() {
        log::info!("{} stones short", n.pre.len().abs_diff(n.filler.len()));
        return None;
    }
    n.valid(size, true).then_some(n)
}

fn moves_string(c: &Chain) -> String {
    let mut s = String::new();
    for i in 0..c.pre.len().max(c.filler.len()) {
        if let Some(p) = c.pre.get(i) {
            s += &p.to_pos_string();
        }
        if let Some(p) = c.filler.get(i) {
            s += &p.to_pos_string();
        }
    }
    s
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let size: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(20);
    let min: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(61);
    let count: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(1);
    let seed: u64 = args.get(4).and_then(|s| s.parse().ok()).unwrap_or(1);
    env_logger::init();
    let mut rng = StdRng::seed_from_u64(seed);
    let mut searcher = Searcher::new(Params::default(), 1 << 20);
    let mut solver = Solver::new();
    let mut found = 0;
    let mut tries = 0;
    while found < count && tries < 20_000 {
        tries += 1;
        // Grow the chain; when stuck, go back a few fours and try again.
        // Once long enough, try to finish it with a double four at every
        // length until that works.
        let mut stack = vec![seed_chain(size, &mut rng)];
        let mut budget = 30 * min;
        let mut finished = None;
        while budget > 0 && finished.is_none() {
            budget -= 1;
            let top = stack.last().unwrap();
            if top.moves.len() + 1 >= min {
                finished = extend(top, size, &mut rng, true, &mut searcher);
                if finished.is_some() {
                    break;
                }
            }
            match extend(stack.last().unwrap(), size, &mut rng, false, &mut searcher) {
                Some(n) => stack.push(n),
                None => {
                    let back = rng.gen_range(1..=3).min(stack.len() - 1);
                    stack.truncate(stack.len() - back);
                }
            }
        }
        let Some(c) = finished else {
            let longest = stack.last().map_or(0, |c| c.moves.len());
            log::debug!("try {tries}: not finished (at {longest} fours)");
            continue;
        };
        let Some(c) = add_filler(&c, size, &mut searcher) else {
            eprintln!("try {tries}: no room for the defender's stones");
            continue;
        };
        let fours = c.moves.len();
        let Some(mut b) = c.start(size) else { continue };
        // No shorter VCF (the chain's detours die at once, so the
        // exhaustive search is small).
        if let Some(short) = searcher.find_vcf(&mut b, fours as u32 - 2, 50_000_000) {
            let l: Vec<String> = short.iter().map(|p| p.to_pos_string()).collect();
            eprintln!(
                "try {tries}: a VCF of {} fours, not {fours}: {}",
                short.len().div_ceil(2),
                l.join(" ")
            );
            continue;
        }
        let limits = SolveLimits {
            mode: Mode::Vcf,
            time: Some(Duration::from_secs(10)),
            ..SolveLimits::default()
        };
        let sol = solver.solve(&mut b, &limits);
        let Outcome::Win(line) = sol.outcome else {
            eprintln!(
                "try {tries}: the solver did not prove it: {:?}",
                sol.outcome
            );
            continue;
        };
        let solved = line.len().div_ceil(2);
        let l: Vec<String> = line.iter().map(|p| p.to_pos_string()).collect();
        println!(
            "freestyle {size} {} vcf # {solved} fours (solver {} nodes, {} ms): {}",
            moves_string(&c),
            sol.nodes,
            sol.time.as_millis(),
            l.join(" ")
        );
        found += 1;
    }
    eprintln!("{found} found in {tries} tries");
}
