//! The board: stones as bitboards, per-direction line keys, and the
//! incrementally kept pattern state of every empty cell.
//!
//! Each line of each direction is one `u64` with 2 bits a cell (empty,
//! black, white, wall) and 5 wall cells of padding before it, so the window
//! around any cell is one shift and mask. A move flips its 2 bits in the four
//! lines through it, then re-reads the pattern of the empty cells within the
//! window's reach along those four lines only; the cells whose pattern changed
//! are saved on an undo stack, so `unmake` restores them by copy.

mod acc;
mod check;
mod line_scores;
mod renju;
pub mod rules;
mod values;
mod zobrist;

use crate::bitboard::Bitboard;
use crate::pattern::pcode::pcode;
use crate::pattern::{nibbles, stone_code, Class, Pattern, PatternTable};
use crate::types::{Color, Pos, Rule, CELLS, MAX_SIZE, MIN_SIZE, STRIDE};
use arrayvec::ArrayVec;
use std::fmt;
use std::sync::Arc;

pub use values::{
    line_feature, pair_feature, Acc, CodeValues, CodeVectors, ALL_FEATURES, CHANNELS, NCLASSES,
    NFEATURES, NLINES,
};
pub use zobrist::{zobrist_key, SIDE_KEY};

/// Number of line directions.
pub const DIRS: usize = 4;
/// Directions as (dx, dy): horizontal, vertical, diagonal, anti-diagonal.
pub const DIR_STEPS: [(isize, isize); DIRS] = [(1, 0), (0, 1), (1, 1), (1, -1)];
/// Index offset of one step along each direction.
const DELTA: [isize; DIRS] = [1, STRIDE as isize, STRIDE as isize + 1, 1 - STRIDE as isize];
/// Wall cells stored before position 0 of every line.
const PAD: usize = 5;
/// Undo entries a full board can need: one for each stone, and one for each
/// empty cell within reach along the four lines of each stone.
const UNDO_CAP: usize = MAX_SIZE * MAX_SIZE * (1 + DIRS * 2 * 5);
/// Lines per direction (diagonals of a 22x22 board: 43).
const LINES: usize = 2 * MAX_SIZE;

/// The line of direction `d` through (x, y), and the cell's position on it.
#[inline(always)]
fn line_pos(d: usize, x: usize, y: usize) -> (usize, usize) {
    match d {
        0 => (y, x),
        1 => (x, y),
        2 => (x + MAX_SIZE - 1 - y, x),
        _ => (x + y, x),
    }
}

/// Why a move was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MoveError {
    /// The cell is outside the board.
    OffBoard { x: usize, y: usize },
    /// The cell already holds a stone.
    Occupied(Pos),
}

impl fmt::Display for MoveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MoveError::OffBoard { x, y } => write!(f, "{x},{y} is off the board"),
            MoveError::Occupied(p) => write!(f, "{p} is already taken"),
        }
    }
}

impl std::error::Error for MoveError {}

/// Why a board could not be made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SizeError {
    pub width: usize,
    pub height: usize,
}

impl fmt::Display for SizeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "board size {}x{} is not supported (each side must be {MIN_SIZE} to {MAX_SIZE})",
            self.width, self.height
        )
    }
}

impl std::error::Error for SizeError {}

/// Is `size` a supported board side ([`MIN_SIZE`] to [`MAX_SIZE`])?
pub fn check_size(size: usize) -> Result<(), SizeError> {
    if (MIN_SIZE..=MAX_SIZE).contains(&size) {
        Ok(())
    } else {
        Err(SizeError {
            width: size,
            height: size,
        })
    }
}

/// What a move changed, to be put back by `unmake`.
#[derive(Clone, Copy)]
struct State {
    pos: Pos,
    color: Color,
    side: Color,
    undo_len: u32,
    won: bool,
    hash: u64,
    counts: [[u16; Class::COUNT]; 2],
    values: [[i32; 2]; 2],
    area: Bitboard,
}

/// A position with its incremental pattern state.
#[derive(Clone)]
pub struct Board {
    width: usize,
    height: usize,
    rule: Rule,
    table: &'static PatternTable,
    /// What `values` sums (see [`CodeValues`]).
    code_values: Arc<CodeValues>,
    on_board: Bitboard,
    stones: [Bitboard; 2],
    keys: [[u64; LINES]; DIRS],
    /// Per cell, one byte a direction: black pattern low nibble, white high.
    /// Zero on stones and off the board.
    pat: [u32; CELLS],
    /// Per colour, per cell: the threat class (`Class as u8`).
    cls: [[u8; CELLS]; 2],
    /// Per colour, per cell: the dense pattern code ([`crate::pattern::pcode`])
    /// of its four patterns; 0 on stones.
    codes: [[u16; CELLS]; 2],
    /// Per colour: how many empty cells have each class.
    counts: [[u16; Class::COUNT]; 2],
    /// Per colour: the sums over empty cells of the `own` and `opp` values
    /// of the cell's pattern code for that colour (see [`CodeValues`]).
    values: [[i32; 2]; 2],
    /// What `acc` sums, when the board keeps network accumulators.
    code_vectors: Option<Arc<CodeVectors>>,
    /// Per colour: the sum over empty cells of the vectors of the cell's
    /// pattern code for that colour (all zero without `code_vectors`).
    acc: [Acc; 2],
    /// `acc` before each move of `history`, when kept.
    acc_history: Vec<[Acc; 2]>,
    /// While above 0, moves leave `acc` alone (see [`Board::pause_acc`]).
    acc_paused: u32,
    /// The last move is not yet in `acc` (the sums are brought up to date
    /// when they are read or when the next move is made, so a move taken
    /// back unevaluated costs no update).
    acc_pending: bool,
    /// Cells within Chebyshev distance 2 of a stone (stones included).
    area: Bitboard,
    hash: u64,
    side: Color,
    history: Vec<State>,
    /// Saved cells: index | code black << 10 | code white << 21 | pattern
    /// word << 32 (the classes follow from the codes).
    undo: Box<[u64]>,
    undo_len: usize,
    /// Scores of cells by their line shapes, cached per line (see
    /// [`Board::refresh_line_scores`]); none until first asked for.
    line_scores: Option<Box<line_scores::LineScores>>,
}

impl Board {
    /// An empty `size` x `size` board.
    pub fn new(size: usize, rule: Rule) -> Result<Board, SizeError> {
        Board::new_rect(size, size, rule)
    }

    /// An empty `width` x `height` board.
    pub fn new_rect(width: usize, height: usize, rule: Rule) -> Result<Board, SizeError> {
        if check_size(width).is_err() || check_size(height).is_err() {
            return Err(SizeError { width, height });
        }
        let mut b = Board {
            width,
            height,
            rule,
            table: PatternTable::get(rule),
            code_values: CodeValues::zero(),
            on_board: Bitboard::board_mask(width, height),
            stones: [Bitboard::EMPTY; 2],
            keys: [[0; LINES]; DIRS],
            pat: [0; CELLS],
            cls: [[0; CELLS]; 2],
            codes: [[0; CELLS]; 2],
            counts: [[0; Class::COUNT]; 2],
            values: [[0; 2]; 2],
            code_vectors: None,
            acc: [[0; CHANNELS]; 2],
            acc_history: Vec::new(),
            acc_paused: 0,
            acc_pending: false,
            area: Bitboard::EMPTY,
            hash: 0,
            side: Color::Black,
            history: Vec::with_capacity(width * height + 1),
            undo: vec![0; UNDO_CAP].into_boxed_slice(),
            undo_len: 0,
            line_scores: None,
        };
        b.rebuild();
        Ok(b)
    }

    /// Recomputes every derived field from the stones and the side to move.
    fn rebuild(&mut self) {
        self.keys = [[u64::MAX; LINES]; DIRS];
        for p in self.on_board.iter() {
            let code = match self.stone(p) {
                None => 0,
                Some(c) => stone_code(c),
            };
            for d in 0..DIRS {
                let (line, t) = line_pos(d, p.x(), p.y());
                let shift = 2 * (t + PAD);
                self.keys[d][line] = (self.keys[d][line] & !(3 << shift)) | code << shift;
            }
        }
        self.pat = [0; CELLS];
        self.cls = [[0; CELLS]; 2];
        self.codes = [[0; CELLS]; 2];
        self.counts = [[0; Class::COUNT]; 2];
        self.values = [[0; 2]; 2];
        self.acc = [[0; CHANNELS]; 2];
        self.acc_pending = false;
        self.area = Bitboard::EMPTY;
        self.hash = if self.side == Color::White {
            SIDE_KEY
        } else {
            0
        };
        for p in self.on_board.iter() {
            let i = p.index();
            match self.stone(p) {
                Some(c) => {
                    self.area.add_square2(p, &self.on_board);
                    self.hash ^= zobrist_key(c, p);
                }
                None => {
                    let mut word = 0u32;
                    for d in 0..DIRS {
                        let (line, t) = line_pos(d, p.x(), p.y());
                        word |= (self.window_byte(self.keys[d][line], t) as u32) << (8 * d);
                    }
                    self.pat[i] = word;
                    for c in [Color::Black, Color::White] {
                        let k = self.table.class_of(c, nibbles(word, c)) as u8;
                        self.cls[c.index()][i] = k;
                        self.counts[c.index()][k as usize] += 1;
                        let code = pcode(nibbles(word, c)) as u16;
                        self.codes[c.index()][i] = code;
                        let (own, opp) = self.cell_values(code, c);
                        self.values[c.index()][0] += own;
                        self.values[c.index()][1] += opp;
                        if let Some(v) = &self.code_vectors {
                            v.add(&mut self.acc[c.index()], c, code as usize);
                        }
                    }
                    if let Some(v) = &self.code_vectors {
                        let k = [self.cls[0][i], self.cls[1][i]];
                        v.add(&mut self.acc[0], Color::Black, pair_feature(k[0], k[1]));
                        v.add(&mut self.acc[1], Color::White, pair_feature(k[1], k[0]));
                        if v.lines() {
                            for c in [Color::Black, Color::White] {
                                for d in 0..DIRS {
                                    if let Some(s) = self.line_shape(c, p, d) {
                                        v.add(&mut self.acc[c.index()], c, line_feature(s));
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// The own and opponent table values of a cell with pattern code
    /// `code` for colour `c`.
    #[inline(always)]
    fn cell_values(&self, code: u16, c: Color) -> (i32, i32) {
        self.code_values.get(c, code as usize)
    }

    /// Moves the value sums of colour `c` from pattern code `old` to `new`.
    #[inline(always)]
    fn revalue(&mut self, c: Color, old: u16, new: u16) {
        let (o0, p0) = self.cell_values(old, c);
        let (o1, p1) = self.cell_values(new, c);
        let v = &mut self.values[c.index()];
        v[0] += o1 - o0;
        v[1] += p1 - p0;
    }

    /// The pattern byte of the cell at position `t` of a line with key `key`.
    #[inline(always)]
    fn window_byte(&self, key: u64, t: usize) -> u8 {
        let half = self.table.half;
        let w = key >> (2 * (t + PAD - half));
        let lo_mask = (1u64 << (2 * half)) - 1;
        let index = (w & lo_mask) | ((w >> (2 * half + 2)) & lo_mask) << (2 * half);
        self.table.line[index as usize]
    }

    pub fn width(&self) -> usize {
        self.width
    }

    pub fn height(&self) -> usize {
        self.height
    }

    pub fn rule(&self) -> Rule {
        self.rule
    }

    /// The side to move: the opposite of the last stone's colour.
    pub fn side_to_move(&self) -> Color {
        self.side
    }

    /// Number of stones on the board.
    pub fn ply(&self) -> usize {
        self.history.len()
    }

    /// The moves played, in order.
    pub fn moves(&self) -> impl DoubleEndedIterator<Item = (Pos, Color)> + '_ {
        self.history.iter().map(|s| (s.pos, s.color))
    }

    pub fn last_move(&self) -> Option<Pos> {
        self.history.last().map(|s| s.pos)
    }

    /// The Zobrist key of stones and side to move.
    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// Is (x, y) on this board?
    pub fn contains(&self, x: usize, y: usize) -> bool {
        x < self.width && y < self.height
    }

    /// The cells on this board along direction `d` through `p`, from
    /// `reach` cells back to `reach` cells forward (`p` itself included),
    /// in that order.
    pub fn line_cells(&self, p: Pos, d: usize, reach: isize) -> ArrayVec<Pos, 21> {
        let (dx, dy) = DIR_STEPS[d];
        let mut out = ArrayVec::new();
        for k in -reach.min(10)..=reach.min(10) {
            let x = p.x() as isize + k * dx;
            let y = p.y() as isize + k * dy;
            if x >= 0 && y >= 0 && self.contains(x as usize, y as usize) {
                out.push(Pos::new(x as usize, y as usize));
            }
        }
        out
    }

    pub fn stone(&self, p: Pos) -> Option<Color> {
        if self.stones[0].contains(p) {
            Some(Color::Black)
        } else if self.stones[1].contains(p) {
            Some(Color::White)
        } else {
            None
        }
    }

    /// Is `p` an empty cell of the board?
    #[inline]
    pub fn is_empty(&self, p: Pos) -> bool {
        self.on_board.contains(p) && self.stone(p).is_none()
    }

    pub fn stones(&self, c: Color) -> &Bitboard {
        &self.stones[c.index()]
    }

    pub fn cells(&self) -> &Bitboard {
        &self.on_board
    }

    /// Empty cells within Chebyshev distance 2 of a stone; the centre cell
    /// on an empty board.
    pub fn candidates(&self) -> Bitboard {
        if self.history.is_empty() {
            let mut b = Bitboard::EMPTY;
            b.set(self.center());
            return b;
        }
        self.area & !(self.stones[0] | self.stones[1])
    }

    pub fn center(&self) -> Pos {
        Pos::new(self.width / 2, self.height / 2)
    }

    /// Did the last move make a winning five?
    pub fn is_won(&self) -> bool {
        self.history.last().is_some_and(|s| s.won)
    }

    /// The winner, if the last move made five.
    pub fn winner(&self) -> Option<Color> {
        self.history.last().filter(|s| s.won).map(|s| s.color)
    }

    pub fn is_full(&self) -> bool {
        self.history.len() == self.width * self.height
    }

    /// The threat class of empty cell `p` for `c` (`Class::None` on stones).
    #[inline]
    pub fn class(&self, c: Color, p: Pos) -> Class {
        Class::from_u8(self.cls[c.index()][p.index()])
    }

    /// The line pattern of empty cell `p` for `c` in direction `d`.
    #[inline]
    pub fn pattern(&self, c: Color, p: Pos, d: usize) -> Pattern {
        Pattern::from_u8((self.pat[p.index()] >> (8 * d + 4 * c.index())) as u8 & 15)
    }

    /// How many empty cells have class `k` for `c`.
    #[inline]
    pub fn count(&self, c: Color, k: Class) -> u32 {
        self.counts[c.index()][k as usize] as u32
    }

    /// How many empty cells make a four (not a five) for `c`.
    #[inline]
    pub fn fours(&self, c: Color) -> u32 {
        self.count(c, Class::Block4)
            + self.count(c, Class::Block4Plus)
            + self.count(c, Class::Block4Flex3)
            + self.count(c, Class::Flex4)
    }

    /// The sum over empty cells of the [`CodeValues`] of each cell's
    /// pattern code for `c`: the `own` values when `own`, else `opp`.
    #[inline]
    pub fn value_sum(&self, c: Color, own: bool) -> i32 {
        self.values[c.index()][!own as usize]
    }

    /// The values this board sums.
    #[inline]
    pub fn code_values(&self) -> &Arc<CodeValues> {
        &self.code_values
    }

    /// Sums `values` from now on. The position, its moves and the side to
    /// move stay; the board is played again from empty when the values
    /// change (the sums saved for `unmake` change with them).
    pub fn set_code_values(&mut self, values: &Arc<CodeValues>) {
        if Arc::ptr_eq(&self.code_values, values) {
            return;
        }
        self.replay_with(|b| b.code_values = values.clone());
    }

    /// Plays the position again from empty after `change`, so that every
    /// kept sum, and those saved for `unmake`, follow it.
    fn replay_with(&mut self, change: impl FnOnce(&mut Board)) {
        debug_assert_eq!(self.acc_paused, 0, "the sums change during a pause");
        let mut fresh = self.clone();
        fresh.acc_paused = 0;
        while fresh.ply() > 0 {
            fresh.unmake();
        }
        change(&mut fresh);
        fresh.rebuild();
        for (p, c) in self.moves() {
            fresh.play_color(p, c);
        }
        if fresh.side != self.side {
            fresh.toggle_side();
        }
        *self = fresh;
    }

    /// The dense pattern code ([`crate::pattern::pcode`]) of empty cell `p`
    /// for `c`: the combination of its four line patterns.
    #[inline]
    pub fn code(&self, c: Color, p: Pos) -> usize {
        self.codes[c.index()][p.index()] as usize
    }

    /// The line shape of empty cell `p` for `c` in direction `d`
    /// ([`values::line_shape`]: what its line holds for `c` within four
    /// cells each way), `None` when no stone of `c` is there.
    #[inline]
    pub fn line_shape(&self, c: Color, p: Pos, d: usize) -> Option<usize> {
        let (line, t) = line_pos(d, p.x(), p.y());
        values::line_shape(self.keys[d][line], t, PAD, c)
    }

    /// The line shapes of empty cell `p` in direction `d` for both colours
    /// (black's first; see [`Board::line_shape`]), from one read of the line.
    #[inline]
    pub fn line_shapes(&self, p: Pos, d: usize) -> [Option<usize>; 2] {
        let (line, t) = line_pos(d, p.x(), p.y());
        let key = self.keys[d][line];
        [
            values::line_shape(key, t, PAD, Color::Black),
            values::line_shape(key, t, PAD, Color::White),
        ]
    }

    /// The four line patterns of `p` for `c`, 4 bits each (direction 0 lowest).
    #[inline]
    pub fn pattern_code(&self, c: Color, p: Pos) -> u16 {
        nibbles(self.pat[p.index()], c)
    }

    /// The class empty cell `t` would have for `c` if a stone of colour `s`
    /// stood on empty cell `q` (`q != t`): only the line through both, if
    /// `q` is within its window's reach, is read again. The same as playing
    /// `q` and reading `class(c, t)`, without the move.
    #[inline]
    pub fn class_with(&self, c: Color, t: Pos, q: Pos, s: Color) -> Class {
        let (tx, ty, qx, qy) = (t.x(), t.y(), q.x(), q.y());
        let half = self.table.half;
        let mut word = self.pat[t.index()];
        for d in 0..DIRS {
            let (lt, pt) = line_pos(d, tx, ty);
            let (lq, pq) = line_pos(d, qx, qy);
            if lt != lq || pt.abs_diff(pq) > half {
                continue;
            }
            let key = self.keys[d][lt] ^ (stone_code(s) << (2 * (pq + PAD)));
            let byte = self.window_byte(key, pt) as u32;
            word = (word & !(0xFF << (8 * d))) | byte << (8 * d);
            // Two cells share at most one line.
            break;
        }
        self.table.class_of(c, nibbles(word, c))
    }

    /// Does a stone against `c` only take from `c`'s threats, so that no
    /// empty cell gains a class for `c` (and `class_with` on the cells
    /// that were threats tells what is left)? True except for renju black,
    /// whose forbidden double four may become an open four when one of its
    /// fours is blocked.
    #[inline]
    pub fn blocks_only_take(&self, c: Color) -> bool {
        !(self.rule == Rule::Renju && c == Color::Black)
    }

    /// Would `c` win by playing at `p`?
    #[inline]
    pub fn makes_five(&self, c: Color, p: Pos) -> bool {
        self.cls[c.index()][p.index()] == Class::Five as u8
    }

    /// Plays `p` for the side to move, checking it.
    pub fn try_play(&mut self, p: Pos) -> Result<(), MoveError> {
        self.try_play_color(p, self.side)
    }

    /// Plays a move given by coordinates, checking them.
    pub fn try_play_xy(&mut self, x: usize, y: usize) -> Result<(), MoveError> {
        if !self.contains(x, y) {
            return Err(MoveError::OffBoard { x, y });
        }
        self.try_play(Pos::new(x, y))
    }

    /// Puts a stone of colour `c` at `p`, checking it. The side to move
    /// becomes the other colour.
    pub fn try_play_color(&mut self, p: Pos, c: Color) -> Result<(), MoveError> {
        if !self.on_board.contains(p) {
            return Err(MoveError::OffBoard { x: p.x(), y: p.y() });
        }
        if self.stone(p).is_some() {
            return Err(MoveError::Occupied(p));
        }
        self.play_color(p, c);
        Ok(())
    }

    /// Plays `p` for the side to move. `p` must be an empty cell.
    #[inline]
    pub fn make(&mut self, p: Pos) {
        self.play_color(p, self.side)
    }

    /// Puts a stone of colour `c` at empty cell `p`.
    #[inline]
    pub fn play_color(&mut self, p: Pos, c: Color) {
        debug_assert!(self.is_empty(p), "make on {p}");
        match self.table.half {
            4 => self.put::<4>(p, c),
            _ => self.put::<5>(p, c),
        }
    }

    #[inline(always)]
    fn put<const H: usize>(&mut self, p: Pos, c: Color) {
        // The last move goes into the sums before this one is made.
        self.sync_acc();
        let pi = p.index();
        let old = self.pat[pi];
        let (k0, k1) = (self.cls[0][pi], self.cls[1][pi]);
        let codes = [self.codes[0][pi], self.codes[1][pi]];
        self.history.push(State {
            pos: p,
            color: c,
            side: self.side,
            undo_len: self.undo_len as u32,
            won: self.cls[c.index()][pi] == Class::Five as u8,
            hash: self.hash,
            counts: self.counts,
            values: self.values,
            area: self.area,
        });
        self.save(pi, codes, old);
        // The cell is no longer empty: it leaves the sums.
        for col in [Color::Black, Color::White] {
            let (own, opp) = self.cell_values(codes[col.index()], col);
            self.values[col.index()][0] -= own;
            self.values[col.index()][1] -= opp;
        }
        self.counts[0][k0 as usize & 15] -= 1;
        self.counts[1][k1 as usize & 15] -= 1;
        self.pat[pi] = 0;
        self.cls[0][pi] = 0;
        self.cls[1][pi] = 0;
        self.codes[0][pi] = 0;
        self.codes[1][pi] = 0;
        self.stones[c.index()].set(p);
        self.hash ^= zobrist_key(c, p);
        if self.side != c.opposite() {
            self.hash ^= SIDE_KEY;
        }
        self.side = c.opposite();
        self.area.add_square2(p, &self.on_board);

        let (x, y) = (p.x(), p.y());
        let code = stone_code(c);
        for d in 0..DIRS {
            let (line, t) = line_pos(d, x, y);
            let key = self.keys[d][line] ^ (code << (2 * (t + PAD)));
            self.keys[d][line] = key;
            self.update_line::<H>(d, key, t, pi);
        }
        if self.code_vectors.is_some() && self.acc_paused == 0 {
            self.acc_pending = true;
        }
    }

    /// Saves a cell's pattern word and codes for `unmake`.
    #[inline(always)]
    fn save(&mut self, q: usize, codes: [u16; 2], word: u32) {
        self.undo[self.undo_len] =
            q as u64 | (codes[0] as u64) << 10 | (codes[1] as u64) << 21 | (word as u64) << 32;
        self.undo_len += 1;
    }

    /// Re-reads the patterns of the empty cells within reach of position `t`
    /// along line `key` of direction `d`.
    #[inline(always)]
    fn update_line<const H: usize>(&mut self, d: usize, key: u64, t: usize, pi: usize) {
        let width_bits = 2 * (2 * H + 1);
        let win = (key >> (2 * (t + PAD - H))) & ((1u64 << width_bits) - 1);
        // Bit 2j is set where slot j of the window is empty.
        let mut empties = !(win | (win >> 1)) & 0x5555_5555_5555_5555 & ((1u64 << width_bits) - 1);
        let lo_mask = (1u64 << (2 * H)) - 1;
        let shift = 8 * d;
        while empties != 0 {
            let j = empties.trailing_zeros() as usize / 2;
            empties &= empties - 1;
            let q = (pi as isize + (j as isize - H as isize) * DELTA[d]) as usize;
            // The window of q starts j - H slots after the window of p.
            let w = key >> (2 * (t + j + PAD - 2 * H));
            let index = (w & lo_mask) | ((w >> (2 * H + 2)) & lo_mask) << (2 * H);
            let byte = self.table.line[index as usize];
            let old = self.pat[q];
            if (old >> shift) as u8 == byte {
                continue;
            }
            self.save(q, [self.codes[0][q], self.codes[1][q]], old);
            let old_byte = (old >> shift) as usize;
            let new = (old & !(0xFF << shift)) | (byte as u32) << shift;
            self.pat[q] = new;
            let changed = byte as usize ^ old_byte & 0xFF;
            // One lookup gives a colour's new class and code; a colour
            // whose pattern here did not change keeps both.
            for (c, col) in [(0, Color::Black), (1, Color::White)] {
                if (changed >> (4 * c)) & 15 == 0 {
                    continue;
                }
                let e = self.table.combine[c][nibbles(new, col) as usize];
                let (k, code) = ((e & 15) as u8, e >> 4);
                let old_code = self.codes[c][q];
                if code != old_code {
                    self.revalue(col, old_code, code);
                    self.codes[c][q] = code;
                }
                let old_k = self.cls[c][q];
                if k != old_k {
                    self.cls[c][q] = k;
                    self.counts[c][old_k as usize & 15] -= 1;
                    self.counts[c][k as usize & 15] += 1;
                }
            }
        }
    }

    /// Gives the turn to the other side without a stone, for threat
    /// searches ("what if they moved now?"). Undo with a second call.
    #[inline]
    pub fn toggle_side(&mut self) {
        self.side = self.side.opposite();
        self.hash ^= SIDE_KEY;
    }

    /// Takes back the last move. Does nothing on an empty board.
    pub fn unmake(&mut self) {
        let Some(st) = self.history.pop() else {
            return;
        };
        // Each cell is saved at most once per move, so order does not matter.
        let start = st.undo_len as usize;
        for &e in &self.undo[start..self.undo_len] {
            let q = (e & 0x3FF) as usize;
            let (c0, c1) = ((e >> 10) & 0x7FF, (e >> 21) & 0x7FF);
            self.codes[0][q] = c0 as u16;
            self.codes[1][q] = c1 as u16;
            self.cls[0][q] = self.table.code_class[0][c0 as usize];
            self.cls[1][q] = self.table.code_class[1][c1 as usize];
            self.pat[q] = (e >> 32) as u32;
        }
        self.undo_len = start;
        self.counts = st.counts;
        self.values = st.values;
        if self.code_vectors.is_some() && self.acc_paused == 0 {
            // A move still pending never reached the sums.
            if self.acc_pending {
                self.acc_pending = false;
            } else if let Some(a) = self.acc_history.pop() {
                self.acc = a;
            }
        }
        self.area = st.area;
        self.hash = st.hash;
        self.side = st.side;
        let p = st.pos;
        self.stones[st.color.index()].clear(p);
        let code = stone_code(st.color);
        for d in 0..DIRS {
            let (line, t) = line_pos(d, p.x(), p.y());
            self.keys[d][line] ^= code << (2 * (t + PAD));
        }
    }
}

#[cfg(test)]
mod tests;
