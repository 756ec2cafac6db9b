//! `pbrain-tengen match`: engine-vs-engine and self-play tournaments
//! between any Gomocup engines, refereed by tengen's own rules.

pub mod process;
pub mod records;
pub mod referee;
pub mod report;
pub mod results;
pub mod runner;
pub mod setup;
pub mod stats;
pub mod summary;
