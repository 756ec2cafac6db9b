//! tengen: a Gomoku and Renju engine.
//!
//! The library holds everything; the `pbrain-tengen` binary is a thin
//! command-line front end.

#![forbid(unsafe_code)]

pub mod bitboard;
pub mod board;
pub mod pattern;
pub mod perft;
pub mod types;

pub use board::{Board, MoveError};
pub use types::{Color, Pos, Rule};
