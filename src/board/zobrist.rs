//! Zobrist keys from a fixed seed, generated at compile time.

use crate::types::{Color, Pos, CELLS};

const SEED: u64 = 0x7465_6E67_656E_2021; // "tengen !"

const fn splitmix(state: u64) -> (u64, u64) {
    let s = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = s;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (s, z ^ (z >> 31))
}

const fn generate() -> ([[u64; CELLS]; 2], u64) {
    let mut keys = [[0u64; CELLS]; 2];
    let mut state = SEED;
    let mut c = 0;
    while c < 2 {
        let mut i = 0;
        while i < CELLS {
            let (s, v) = splitmix(state);
            state = s;
            keys[c][i] = v;
            i += 1;
        }
        c += 1;
    }
    let (_, side) = splitmix(state);
    (keys, side)
}

static TABLE: ([[u64; CELLS]; 2], u64) = generate();

/// XORed into the key while white is to move.
pub const SIDE_KEY: u64 = generate().1;

/// The key of a stone of colour `c` on `p`.
#[inline(always)]
pub fn zobrist_key(c: Color, p: Pos) -> u64 {
    TABLE.0[c.index()][p.index()]
}
