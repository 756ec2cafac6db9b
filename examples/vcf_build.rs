//! Builds positions with a very long VCF, for the solver's suite: random
//! play does not reach one of 60 fours, so this constructs it.
//!
//! The attacker's win is a chain of fours. Each four is made in a line
//! (a five-cell window) that holds the previous four's stone, two attacker
//! stones already on the board, the new four's stone and, inside the
//! window, the cell the defender must block; so each four appears only
//! once the previous one is played. The last four is also a four in a
//! second line (a double four).
//!
//! What keeps the win from being shorter is checked on the windows first:
//! at every point of play the construction foresees (the chain walked
//! from its start, and once finished also from its end, where the double
//! four's second line gives a four too; the attacker to move), no window
//! without defender stones may hold three attacker stones unless it is a
//! line the walk uses next, and no window may hold four defender stones
//! and no attacker stone (the defender would answer a four with a five
//! threat). A window that breaks the first rule gets a defender stone on
//! one of its empty cells (a cap), placed at the start. Then an exhaustive
//! search checks what the rules miss (the attacker playing a block cell
//! instead of the four, and any other order): after each new four, no VCF
//! at all; once finished, none of fewer fours.
//!
//! The chain grows by a random walk with backtracking. Then both sides get
//! as many stones (defender stones that make no four, or attacker stones
//! that break no rule), the chain is played through with the engine's own
//! pattern classes, the search proves again that no VCF of fewer fours
//! exists, and the solver's proof is timed.
//!
//! cargo run --release --example vcf_build -- [SIZE] [MIN_FOURS] [COUNT] [SEED]
//!
//! Prints suite lines: `freestyle SIZE MOVES vcf # N fours ...`.

use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use std::collections::HashSet;
use std::time::{Duration, Instant};
use tengen::board::rules::find_class;
use tengen::board::DIR_STEPS;
use tengen::pattern::Class;
use tengen::perft::position_from_moves;
use tengen::solver::{Mode, Outcome, SolveLimits, Solver};
use tengen::types::Color;
use tengen::{Board, Pos, Rule};

/// What a cell is in the plan.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Role {
    Empty,
    /// An attacker stone at the start.
    Pre,
    /// A defender stone at the start.
    Filler,
    /// The attacker's k-th four (from 0).
    Four(usize),
    /// The defender's block of the k-th four.
    Block(usize),
    /// The empty cell of the final double four's second line.
    Spare,
}

/// Every five-cell window of the board, and the windows through each cell.
struct Windows {
    size: usize,
    all: Vec<[usize; 5]>,
    dir: Vec<usize>,
    through: Vec<Vec<usize>>,
}

impl Windows {
    fn new(size: usize) -> Windows {
        let mut w = Windows {
            size,
            all: Vec::new(),
            dir: Vec::new(),
            through: vec![Vec::new(); size * size],
        };
        for y in 0..size as isize {
            for x in 0..size as isize {
                for (d, &(dx, dy)) in DIR_STEPS.iter().enumerate() {
                    let (ex, ey) = (x + 4 * dx, y + 4 * dy);
                    if ex < 0 || ey < 0 || ex >= size as isize || ey >= size as isize {
                        continue;
                    }
                    let cells: [usize; 5] = std::array::from_fn(|k| {
                        ((y + k as isize * dy) * size as isize + x + k as isize * dx) as usize
                    });
                    for &c in &cells {
                        w.through[c].push(w.all.len());
                    }
                    w.all.push(cells);
                    w.dir.push(d);
                }
            }
        }
        w
    }

    fn pos(&self, c: usize) -> Pos {
        Pos::new(c % self.size, c / self.size)
    }
}

/// A chain under construction. The attacker is black and moves first.
#[derive(Clone)]
struct Plan {
    role: Vec<Role>,
    /// The attacker's fours and the defender's blocks, in order.
    moves: Vec<(usize, usize)>,
    /// The window of each four.
    lines: Vec<usize>,
    /// The final double four's second window.
    last_line: Option<usize>,
    pre: Vec<usize>,
    filler: Vec<usize>,
}

/// Why a window breaks the plan.
#[derive(PartialEq, Eq)]
enum Fault {
    None,
    /// Three or more attacker stones, no defender stone, not a designed
    /// line: a defender stone on one of its empty cells would fix it.
    Open,
    /// Four defender stones and no attacker stone: nothing fixes it.
    Fatal,
}

impl Plan {
    /// Checks window `w` at every point of play the construction foresees,
    /// the attacker to move. The chain may be walked from its start (the
    /// first `j` fours played) and, once finished, also from its end (the
    /// fours from the `i`-th to the last, each blocked at the block of the
    /// line after it, the last one at the spare cell). At every point: no
    /// window without defender stones holds three attacker stones unless
    /// it is a line the walk uses next, and no window holds four defender
    /// stones and no attacker stone. (The attacker taking a block instead
    /// of its four is left to the search: a rule for it costs more room
    /// than the few walks it spoils.)
    fn fault(&self, ws: &Windows, w: usize) -> Fault {
        let cells = &ws.all[w];
        let n = self.moves.len();
        let finished = self.last_line.is_some();
        // The points where something about this window changes.
        let mut marks: Vec<usize> = vec![0, n + 1];
        for &c in cells {
            if let Role::Four(k) | Role::Block(k) = self.role[c] {
                marks.extend((k.saturating_sub(1))..=(k + 3));
            }
        }
        if let Some(k) = self.lines.iter().position(|&l| l == w) {
            marks.extend((k.saturating_sub(1))..=(k + 3));
        }
        marks.retain(|&m| m <= n + 1);
        marks.sort_unstable();
        marks.dedup();
        // Fours are numbered from 1 here: the k-th four's role index is k-1.
        for &j in marks.iter().filter(|&&j| j < n + !finished as usize) {
            // Unfinished, the chain is walked from its start only.
            for &i in marks
                .iter()
                .filter(|&&i| i == n + 1 || (finished && i > j + 1))
            {
                let (mut att, mut def) = (0, 0);
                for &c in cells {
                    match self.role[c] {
                        Role::Pre => att += 1,
                        Role::Filler => def += 1,
                        Role::Four(k) => att += (k < j || k + 1 >= i) as usize,
                        Role::Block(k) => def += (k < j || k >= i) as usize,
                        Role::Spare => def += (i <= n) as usize,
                        Role::Empty => {}
                    }
                }
                if att == 0 && def >= 4 {
                    return Fault::Fatal;
                }
                if def > 0 {
                    continue;
                }
                let next = self.lines.get(j) == Some(&w)
                    || (i <= n && self.lines[i - 1] == w)
                    || (i == n + 1 && self.last_line == Some(w));
                if att >= 3 && !next {
                    return Fault::Open;
                }
            }
        }
        Fault::None
    }

    /// Caps every open window through `cells` with defender stones;
    /// false if one cannot be fixed.
    fn cap(&mut self, ws: &Windows, cells: &[usize], rng: &mut StdRng) -> bool {
        let mut todo: Vec<usize> = cells
            .iter()
            .flat_map(|&c| ws.through[c].iter().copied())
            .collect();
        todo.sort_unstable();
        todo.dedup();
        loop {
            let mut open = Vec::new();
            for &w in &todo {
                match self.fault(ws, w) {
                    Fault::Fatal => return false,
                    Fault::Open => open.push(w),
                    Fault::None => {}
                }
            }
            let Some(&first) = open.first() else {
                return true;
            };
            // The empty cell of the first open window that closes the most.
            let mut best: Option<(usize, u32)> = None;
            for &c in &ws.all[first] {
                if self.role[c] != Role::Empty {
                    continue;
                }
                let closes = open.iter().filter(|&&w| ws.all[w].contains(&c)).count() as u32;
                let score = closes * 16 + rng.gen_range(0..16);
                if best.is_none_or(|b| score > b.1) {
                    best = Some((c, score));
                }
            }
            let Some((c, _)) = best else {
                return false;
            };
            self.role[c] = Role::Filler;
            self.filler.push(c);
            todo.extend(ws.through[c].iter().copied());
            todo.sort_unstable();
            todo.dedup();
        }
    }

    /// The first four: three attacker stones, the four and its block (inside
    /// the window) in a random window.
    fn seed(ws: &Windows, rng: &mut StdRng) -> Plan {
        loop {
            if let Some(p) = Plan::try_seed(ws, rng) {
                return p;
            }
        }
    }

    fn try_seed(ws: &Windows, rng: &mut StdRng) -> Option<Plan> {
        let w = rng.gen_range(0..ws.all.len());
        let cells = ws.all[w];
        let blk = rng.gen_range(1..4);
        let mut others: Vec<usize> = (0..5).filter(|&k| k != blk).collect();
        others.shuffle(rng);
        let mut p = Plan {
            role: vec![Role::Empty; ws.size * ws.size],
            moves: vec![(cells[others[0]], cells[blk])],
            lines: vec![w],
            last_line: None,
            pre: Vec::new(),
            filler: Vec::new(),
        };
        p.role[cells[others[0]]] = Role::Four(0);
        p.role[cells[blk]] = Role::Block(0);
        for &k in &others[1..] {
            p.role[cells[k]] = Role::Pre;
            p.pre.push(cells[k]);
        }
        p.cap(ws, &cells, rng).then_some(p)
    }

    /// One more four, or (with `finish`) the double four's second line
    /// through the last four.
    fn extend(&self, ws: &Windows, rng: &mut StdRng, finish: bool) -> Option<Plan> {
        let n = self.moves.len();
        let last = self.moves[n - 1].0;
        let last_dir = ws.dir[self.lines[n - 1]];
        let mut tries = Vec::new();
        for &w in &ws.through[last] {
            if ws.dir[w] == last_dir {
                continue;
            }
            let cells = ws.all[w];
            // Attacker stones already there (start stones, or the stones
            // of earlier fours) are reused.
            let mine = |c: usize| c != last && matches!(self.role[c], Role::Pre | Role::Four(_));
            if cells
                .iter()
                .any(|&c| c != last && !mine(c) && self.role[c] != Role::Empty)
            {
                continue;
            }
            let have = cells.iter().filter(|&&c| mine(c)).count();
            for blk in 1..4 {
                if self.role[cells[blk]] != Role::Empty {
                    continue;
                }
                if finish {
                    // The rest are attacker stones: a four when the last
                    // four's stone is played.
                    tries.push((have, w, usize::MAX, cells[blk]));
                    continue;
                }
                if have > 2 {
                    continue;
                }
                for next in 0..5 {
                    let c = cells[next];
                    if next != blk && c != last && self.role[c] == Role::Empty {
                        let new = cells
                            .iter()
                            .filter(|&&q| {
                                q != last
                                    && q != c
                                    && q != cells[blk]
                                    && self.role[q] == Role::Empty
                            })
                            .count();
                        if new + have == 2 {
                            tries.push((have, w, c, cells[blk]));
                        }
                    }
                }
            }
        }
        tries.shuffle(rng);
        // Reuse first: fewer new stones keep the board roomy.
        tries.sort_by_key(|t| std::cmp::Reverse(t.0));
        for (_, w, next, blk) in tries.into_iter().take(24) {
            let mut p = self.clone();
            let mut new = Vec::new();
            for &c in &ws.all[w] {
                if c == last || c == next || c == blk || p.role[c] != Role::Empty {
                    continue;
                }
                p.role[c] = Role::Pre;
                p.pre.push(c);
                new.push(c);
            }
            if finish {
                p.role[blk] = Role::Spare;
                p.last_line = Some(w);
            } else {
                p.role[next] = Role::Four(n);
                p.role[blk] = Role::Block(n);
                p.moves.push((next, blk));
                p.lines.push(w);
                new.push(next);
            }
            new.push(blk);
            new.push(last);
            if !p.cap(ws, &new, rng) {
                continue;
            }
            // What the window checks miss, the search finds: no VCF at all
            // yet, or (finished) none of fewer fours.
            let mut b = p.board_now(ws);
            let mut nodes = 200_000;
            let most = if finish { n as u32 - 1 } else { 500 };
            if vcf_within(&mut b, most, &mut HashSet::new(), &mut nodes) == Some(false) {
                return Some(p);
            }
        }
        None
    }

    /// Gives both sides as many stones: defender stones that make no four
    /// of theirs, or attacker stones that open no window of three.
    fn balance(&mut self, ws: &Windows, rng: &mut StdRng) -> bool {
        let mut cells: Vec<usize> = (0..self.role.len()).collect();
        cells.shuffle(rng);
        // Far from the chain first.
        let busy = |p: &Plan, c: usize| {
            let (x, y) = ((c % ws.size) as isize, (c / ws.size) as isize);
            let mut n = 0;
            for dy in -2..=2isize {
                for dx in -2..=2isize {
                    let (qx, qy) = (x + dx, y + dy);
                    if qx >= 0 && qy >= 0 && qx < ws.size as isize && qy < ws.size as isize {
                        n += (p.role[(qy * ws.size as isize + qx) as usize] != Role::Empty) as u32;
                    }
                }
            }
            n
        };
        cells.sort_by_key(|&c| busy(self, c));
        for c in cells {
            if self.pre.len() == self.filler.len() {
                return true;
            }
            if self.role[c] != Role::Empty {
                continue;
            }
            let attacker = self.pre.len() < self.filler.len();
            self.role[c] = if attacker { Role::Pre } else { Role::Filler };
            if ws.through[c]
                .iter()
                .all(|&w| self.fault(ws, w) == Fault::None)
            {
                if attacker {
                    self.pre.push(c);
                } else {
                    self.filler.push(c);
                }
            } else {
                self.role[c] = Role::Empty;
            }
        }
        self.pre.len() == self.filler.len()
    }

    /// The stones placed so far, black (the attacker) to move.
    fn board_now(&self, ws: &Windows) -> Board {
        let mut b = Board::new(ws.size, Rule::Freestyle).expect("size");
        for &a in &self.pre {
            b.play_color(ws.pos(a), Color::Black);
        }
        for &d in &self.filler {
            b.play_color(ws.pos(d), Color::White);
        }
        if b.side_to_move() != Color::Black {
            b.toggle_side();
        }
        b
    }

    /// The starting position (black: the attacker, to move), built from
    /// the move list the suite line will hold.
    fn start(&self, ws: &Windows) -> Option<Board> {
        position_from_moves(ws.size, Rule::Freestyle, &self.moves_string(ws)).ok()
    }

    /// Plays the chain with the engine's classes: each four has exactly one
    /// five cell (its block), no block gives the defender a five cell, and
    /// the last four leaves two five cells.
    fn valid(&self, ws: &Windows) -> bool {
        let Some(mut b) = self.start(ws) else {
            return false;
        };
        let n = self.moves.len();
        for (i, &(a, blk)) in self.moves.iter().enumerate() {
            let (a, blk) = (ws.pos(a), ws.pos(blk));
            if b.count(Color::Black, Class::Five) > 0
                || b.count(Color::White, Class::Five) > 0
                || (i + 1 < n && b.count(Color::Black, Class::Flex4) > 0)
                || !b.is_empty(a)
                || !b.is_empty(blk)
            {
                return false;
            }
            b.make(a);
            let fives = b.count(Color::Black, Class::Five);
            if i + 1 == n {
                return fives >= 2;
            }
            if fives != 1 || b.class(Color::Black, blk) != Class::Five {
                return false;
            }
            b.make(blk);
        }
        false
    }

    fn moves_string(&self, ws: &Windows) -> String {
        let mut s = String::new();
        for (&a, &d) in self.pre.iter().zip(&self.filler) {
            s += &ws.pos(a).to_pos_string();
            s += &ws.pos(d).to_pos_string();
        }
        s
    }
}

/// Can the side to move win with at most `k` fours? `None` when the node
/// budget runs out first. Exhaustive: every four is tried, and the only
/// defence of a four is its five cell (a defender five cell ends the line).
/// (`Searcher::find_vcf` cannot tell a spent budget from no VCF, which a
/// proof of "none shorter" needs.)
fn vcf_within(
    b: &mut Board,
    k: u32,
    failed: &mut HashSet<(u64, u32)>,
    nodes: &mut u64,
) -> Option<bool> {
    let me = b.side_to_move();
    let opp = me.opposite();
    if b.count(me, Class::Five) > 0 {
        return Some(true);
    }
    if k == 0 {
        return Some(false);
    }
    if b.count(opp, Class::Five) == 0 && b.count(me, Class::Flex4) > 0 {
        return Some(true);
    }
    if failed.contains(&(b.hash(), k)) {
        return Some(false);
    }
    if *nodes == 0 {
        return None;
    }
    *nodes -= 1;
    let cells: Vec<Pos> = b
        .candidates()
        .iter()
        .filter(|&p| b.class(me, p).is_four())
        .collect();
    // Facing a five cell, the attacker must take it.
    let must = b.count(opp, Class::Five) > 0;
    for p in cells {
        if must && b.class(opp, p) != Class::Five {
            continue;
        }
        b.make(p);
        let r = if b.count(opp, Class::Five) > 0 || b.count(me, Class::Five) != 1 {
            // The defender wins first, or two five cells: the attacker wins.
            Some(b.count(opp, Class::Five) == 0)
        } else {
            let blk = find_class(b, me, Class::Five).expect("a five cell");
            b.make(blk);
            let r = vcf_within(b, k - 1, failed, nodes);
            b.unmake();
            r
        };
        b.unmake();
        match r {
            Some(false) => {}
            other => return other,
        }
    }
    failed.insert((b.hash(), k));
    Some(false)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let size: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(22);
    let min: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(61);
    let count: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(1);
    let seed: u64 = args.get(4).and_then(|s| s.parse().ok()).unwrap_or(1);
    env_logger::init();
    let ws = Windows::new(size);
    let mut rng = StdRng::seed_from_u64(seed);
    let mut solver = Solver::new();
    let mut found = 0;
    let mut tries = 0;
    while found < count && tries < 10_000 {
        tries += 1;
        // Grow the chain; when stuck, go back a few fours. Once long
        // enough, try to finish it at every length until that works.
        let mut stack = vec![Plan::seed(&ws, &mut rng)];
        let mut budget = 40 * min;
        let mut finished = None;
        let mut longest = 0;
        while budget > 0 && finished.is_none() {
            budget -= 1;
            let top = stack.last().expect("a plan");
            longest = longest.max(top.moves.len());
            if top.moves.len() >= min {
                finished = top.extend(&ws, &mut rng, true);
                if finished.is_some() {
                    break;
                }
            }
            match top.extend(&ws, &mut rng, false) {
                Some(n) => stack.push(n),
                None => {
                    let back = rng.gen_range(1..=3).min(stack.len() - 1);
                    stack.truncate(stack.len() - back);
                }
            }
        }
        let Some(mut plan) = finished else {
            log::info!("try {tries}: not finished (at most {longest} fours)");
            continue;
        };
        if !plan.balance(&ws, &mut rng) {
            log::info!("try {tries}: no room to balance the stones");
            continue;
        }
        if !plan.valid(&ws) {
            eprintln!("try {tries}: the chain does not play as planned");
            continue;
        }
        let fours = plan.moves.len() as u32;
        let Some(mut b) = plan.start(&ws) else {
            continue;
        };
        let t = Instant::now();
        let mut nodes = 20_000_000u64;
        let shorter = vcf_within(&mut b, fours - 1, &mut HashSet::new(), &mut nodes);
        eprintln!(
            "try {tries}: {fours} fours; a VCF of fewer: {shorter:?} ({} nodes, {} ms)",
            20_000_000 - nodes,
            t.elapsed().as_millis()
        );
        if shorter != Some(false) {
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
        let l: Vec<String> = line.iter().map(|p| p.to_pos_string()).collect();
        println!(
            "freestyle {size} {} vcf # {fours} fours, built by `cargo run --release --example vcf_build -- {size} {min} 1 {seed}` (no VCF of fewer; solver {} nodes, {} ms): {}",
            plan.moves_string(&ws),
            sol.nodes,
            sol.time.as_millis(),
            l.join(" ")
        );
        found += 1;
    }
    eprintln!("{found} found in {tries} tries");
}
