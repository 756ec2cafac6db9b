//! tengen: a Gomoku and Renju engine.
//!
//! The library holds everything; the `pbrain-tengen` binary is a thin
//! command-line front end.

// Denied; `unsafe` is allowed in two places: `simd::avx2_method!`, which
// calls code built for AVX2 once the processor is known to have it, and
// the transposition table's memory mapping on Linux (`search/slots.rs`).
#![deny(unsafe_code)]

pub mod bench;
pub mod bitboard;
pub mod board;
pub mod engine;
pub mod eval;
pub mod learn;
pub mod movegen;
pub mod pattern;
pub mod perft;
pub mod protocol;
pub mod search;
#[cfg(feature = "serve")]
pub mod serve;
pub mod simd;
pub mod solver;
pub mod tournament;
pub mod types;

pub use board::{Board, MoveError};
pub use types::{Color, Pos, Rule};
