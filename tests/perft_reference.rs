//! A second, independent implementation of the rules and of perft, written
//! plainly on a 2-D array, checks the library's board: perft counts under
//! each rule, and the renju forbidden cells of many random positions.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use tengen::pattern::Class;
use tengen::perft::{perft, position_from_moves};
use tengen::types::parse_pos_list;
use tengen::{Board, Color, Pos, Rule};

const EMPTY: u8 = 0;
const BLACK: u8 = 1;
const DIRS: [(i32, i32); 4] = [(1, 0), (0, 1), (1, 1), (1, -1)];

#[derive(Clone)]
struct Naive {
    n: i32,
    rule: Rule,
    cells: Vec<u8>,
    moves: Vec<(i32, i32)>,
    won: bool,
}

impl Naive {
    fn new(n: usize, rule: Rule) -> Naive {
        Naive {
            n: n as i32,
            rule,
            cells: vec![EMPTY; n * n],
            moves: Vec::new(),
            won: false,
        }
    }

    fn get(&self, x: i32, y: i32) -> Option<u8> {
        if x < 0 || y < 0 || x >= self.n || y >= self.n {
            None
        } else {
            Some(self.cells[(y * self.n + x) as usize])
        }
    }

    fn set(&mut self, x: i32, y: i32, v: u8) {
        self.cells[(y * self.n + x) as usize] = v;
    }

    fn side(&self) -> u8 {
        1 + (self.moves.len() % 2) as u8
    }

    fn exact(&self, c: u8) -> bool {
        match self.rule {
            Rule::Standard | Rule::CaroExact => true,
            Rule::Renju => c == BLACK,
            _ => false,
        }
    }

    /// Length of the run of colour c through (x, y) along (dx, dy), and the
    /// cells just past each end (None = off the board).
    fn run(&self, x: i32, y: i32, dx: i32, dy: i32, c: u8) -> (i32, Option<u8>, Option<u8>) {
        let mut a = 0;
        while self.get(x - (a + 1) * dx, y - (a + 1) * dy) == Some(c) {
            a += 1;
        }
        let mut b = 0;
        while self.get(x + (b + 1) * dx, y + (b + 1) * dy) == Some(c) {
            b += 1;
        }
        let before = self.get(x - (a + 1) * dx, y - (a + 1) * dy);
        let after = self.get(x + (b + 1) * dx, y + (b + 1) * dy);
        (a + b + 1, before, after)
    }

    /// Does the stone of colour c at (x, y) stand in a winning five along d?
    fn five_along(&self, x: i32, y: i32, d: (i32, i32), c: u8) -> bool {
        let (len, before, after) = self.run(x, y, d.0, d.1, c);
        let opp = 3 - c;
        let long = if self.exact(c) { len == 5 } else { len >= 5 };
        let caro_dead = matches!(self.rule, Rule::Caro | Rule::CaroExact)
            && before == Some(opp)
            && after == Some(opp);
        long && !caro_dead
    }

    fn wins(&self, x: i32, y: i32, c: u8) -> bool {
        DIRS.iter().any(|&d| self.five_along(x, y, d, c))
    }

    /// Offsets along d (within 5 of (x, y)) where one more black stone makes
    /// a five through (x, y), which holds black.
    fn completions(&mut self, x: i32, y: i32, d: (i32, i32)) -> Vec<i32> {
        let mut out = Vec::new();
        for k in -5..=5 {
            let (ex, ey) = (x + k * d.0, y + k * d.1);
            if k == 0 || self.get(ex, ey) != Some(EMPTY) {
                continue;
            }
            self.set(ex, ey, BLACK);
            if self.five_along(x, y, d, BLACK) {
                out.push(k);
            }
            self.set(ex, ey, EMPTY);
        }
        out
    }

    /// `.XXXX.`: two completions five apart with four black stones between.
    fn is_straight(&self, x: i32, y: i32, d: (i32, i32), comps: &[i32]) -> bool {
        comps.len() == 2
            && comps[1] - comps[0] == 5
            && (comps[0] + 1..comps[1]).all(|k| self.get(x + k * d.0, y + k * d.1) == Some(BLACK))
    }

    /// Renju: is (x, y) forbidden for black?
    fn forbidden(&mut self, x: i32, y: i32) -> bool {
        if self.rule != Rule::Renju || self.get(x, y) != Some(EMPTY) {
            return false;
        }
        self.set(x, y, BLACK);
        let result = self.forbidden_placed(x, y);
        self.set(x, y, EMPTY);
        result
    }

    fn forbidden_placed(&mut self, x: i32, y: i32) -> bool {
        if self.wins(x, y, BLACK) {
            return false;
        }
        if DIRS.iter().any(|d| self.run(x, y, d.0, d.1, BLACK).0 >= 6) {
            return true;
        }
        let mut fours = 0;
        let mut four_dirs = [false; 4];
        for (i, &d) in DIRS.iter().enumerate() {
            let comps = self.completions(x, y, d);
            if !comps.is_empty() {
                four_dirs[i] = true;
                fours += if self.is_straight(x, y, d, &comps) {
                    1
                } else {
                    comps.len()
                };
            }
        }
        if fours >= 2 {
            return true;
        }
        let mut threes = 0;
        for (i, &d) in DIRS.iter().enumerate() {
            if four_dirs[i] {
                continue;
            }
            for k in -4..=4 {
                let (ex, ey) = (x + k * d.0, y + k * d.1);
                if k == 0 || self.get(ex, ey) != Some(EMPTY) {
                    continue;
                }
                self.set(ex, ey, BLACK);
                let comps = self.completions(x, y, d);
                let straight = self.is_straight(x, y, d, &comps);
                self.set(ex, ey, EMPTY);
                if straight && !self.forbidden(ex, ey) {
                    threes += 1;
                    break;
                }
            }
        }
        threes >= 2
    }

    fn candidates(&mut self) -> Vec<(i32, i32)> {
        if self.won {
            return Vec::new();
        }
        if self.moves.is_empty() {
            return vec![(self.n / 2, self.n / 2)];
        }
        let mut out = Vec::new();
        for y in 0..self.n {
            for x in 0..self.n {
                if self.get(x, y) != Some(EMPTY) {
                    continue;
                }
                let near = (-2..=2).any(|dy| {
                    (-2..=2).any(|dx| matches!(self.get(x + dx, y + dy), Some(c) if c != EMPTY))
                });
                if !near {
                    continue;
                }
                if self.side() == BLACK && self.forbidden(x, y) {
                    continue;
                }
                out.push((x, y));
            }
        }
        out
    }

    fn play(&mut self, x: i32, y: i32) {
        let c = self.side();
        self.set(x, y, c);
        self.moves.push((x, y));
        self.won = self.wins(x, y, c);
    }

    fn undo(&mut self) {
        if let Some((x, y)) = self.moves.pop() {
            self.set(x, y, EMPTY);
        }
        self.won = false;
    }

    fn perft(&mut self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        let mut total = 0;
        for (x, y) in self.candidates() {
            self.play(x, y);
            total += self.perft(depth - 1);
            self.undo();
        }
        total
    }
}

fn naive_from(n: usize, rule: Rule, moves: &[(i32, i32)]) -> Naive {
    let mut b = Naive::new(n, rule);
    for &(x, y) in moves {
        b.play(x, y);
    }
    b
}

fn moves_of(board: &Board) -> Vec<(i32, i32)> {
    board
        .moves()
        .map(|(p, _)| (p.x() as i32, p.y() as i32))
        .collect()
}

#[test]
fn perft_agrees_with_naive_implementation() {
    let cases: &[(Rule, usize, &str, u32)] = &[
        (Rule::Freestyle, 15, "", 3),
        (Rule::Freestyle, 15, "h8i9h9i8g7j10", 2),
        (Rule::Freestyle, 15, "a1b2a2b3a3b4a4", 2),
        (Rule::Freestyle, 7, "d4c3e5", 3),
        (Rule::Standard, 15, "h8a1i8a2j8a3l8a5", 2),
        (Rule::Standard, 15, "h8i9h9i8g7j10", 2),
        (Rule::Renju, 15, "h8a1i8a3h9o1i9o3g10a15j9o15", 2),
        (Rule::Renju, 15, "h8i9h9i8g7j10", 2),
        (Rule::Renju, 15, "f8a1g8a3h7a5h6a7i8a9j8o1k8o3h10o5h11o7", 2),
        (Rule::Caro, 15, "h8g8i8a1j8a2k8", 1),
        (Rule::Caro, 15, "h8g8i8a1j8a2", 2),
        (Rule::CaroExact, 15, "h8g8i8a1j8a2", 2),
        (Rule::CaroExact, 9, "e5d4f6d6", 2),
    ];
    for &(rule, size, moves, depth) in cases {
        let mut fast = match position_from_moves(size, rule, moves) {
            Ok(b) => b,
            // A list that ends the game is refused by set-up; build it by hand.
            Err(_) => {
                let mut b = Board::new(size, rule).unwrap();
                for p in parse_pos_list(moves).unwrap() {
                    b.try_play(p).unwrap();
                }
                b
            }
        };
        let mut naive = naive_from(size, rule, &moves_of(&fast));
        for d in 1..=depth {
            let got = perft(&mut fast, d);
            let want = naive.perft(d);
            assert_eq!(got.leaves, want, "{rule} {size} '{moves}' depth {d}");
        }
    }
}

#[test]
fn perft_on_random_positions_agrees() {
    let mut rng = StdRng::seed_from_u64(7);
    for rule in Rule::ALL {
        for _ in 0..6 {
            let mut fast = Board::new(11, rule).unwrap();
            let len = rng.gen_range(4..24);
            while fast.ply() < len && !fast.is_won() {
                let mut cands: Vec<Pos> = fast.candidates().iter().collect();
                if fast.side_to_move() == Color::Black {
                    let mut probe = fast.clone();
                    cands.retain(|&p| !probe.is_forbidden(p));
                }
                if cands.is_empty() {
                    break;
                }
                let p = cands[rng.gen_range(0..cands.len())];
                fast.make(p);
            }
            let mut naive = naive_from(11, rule, &moves_of(&fast));
            assert_eq!(
                perft(&mut fast, 2).leaves,
                naive.perft(2),
                "{rule}\n{}",
                fast.to_text()
            );
        }
    }
}

/// Random renju positions in which black builds shapes near its own stones
/// and white plays anywhere: the forbidden cells agree with the naive check.
#[test]
fn renju_forbidden_cells_agree() {
    let mut rng = StdRng::seed_from_u64(2024);
    let mut forbidden_seen = 0;
    let mut maybe_seen = 0;
    for _ in 0..150 {
        let mut fast = Board::new(15, Rule::Renju).unwrap();
        let mut naive = Naive::new(15, Rule::Renju);
        for _ in 0..rng.gen_range(10..60) {
            if fast.is_won() {
                break;
            }
            let p = if fast.side_to_move() == Color::Black {
                let mut near: Vec<Pos> = fast.candidates().iter().collect();
                near.retain(|&p| {
                    let (x, y) = (p.x() as i32, p.y() as i32);
                    fast.ply() == 0
                        || (-2..=2)
                            .any(|dy| (-2..=2).any(|dx| naive.get(x + dx, y + dy) == Some(BLACK)))
                });
                near.retain(|&p| !naive.forbidden(p.x() as i32, p.y() as i32));
                if near.is_empty() {
                    break;
                }
                near[rng.gen_range(0..near.len())]
            } else {
                let empty: Vec<Pos> = (*fast.cells()
                    & !(*fast.stones(Color::Black) | *fast.stones(Color::White)))
                .iter()
                .collect();
                empty[rng.gen_range(0..empty.len())]
            };
            fast.make(p);
            naive.play(p.x() as i32, p.y() as i32);
            let mut want = Vec::new();
            for y in 0..15 {
                for x in 0..15 {
                    if naive.forbidden(x, y) {
                        want.push(Pos::new(x as usize, y as usize));
                    }
                    if fast.class(Color::Black, Pos::new(x as usize, y as usize))
                        == Class::MaybeForbid
                    {
                        maybe_seen += 1;
                    }
                }
            }
            want.sort();
            let got = fast.forbidden_cells();
            forbidden_seen += got.len();
            assert_eq!(got, want, "\n{}", fast.to_text());
        }
    }
    // The positions must exercise the check, not pass vacuously.
    assert!(
        forbidden_seen > 100,
        "only {forbidden_seen} forbidden cells seen"
    );
    assert!(
        maybe_seen > 100,
        "only {maybe_seen} double-three candidates seen"
    );
}
