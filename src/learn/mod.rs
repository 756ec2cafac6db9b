//! The tools that make the evaluation tables: self-play games written to a
//! compact file ([`data`]), a random balanced opening generator and the
//! game loop ([`selfplay`]), and the logistic-regression fit of the tables
//! to those games ([`tune`]); labelling positions with a wider search's
//! move and fitting the move-ordering tables to them ([`policy`]); both
//! fits step with one optimiser ([`adam`]); the search constants tuned by
//! simultaneous perturbation over self-play games ([`spsa`]).

pub mod adam;
pub mod data;
pub mod opengen;
pub mod policy;
pub mod selfplay;
pub mod spsa;
pub mod tune;

/// Today's date (UTC) as YYYY-MM-DD, for the notes of a weights file.
pub fn today() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    // Days since 1970-01-01 to a civil date (Howard Hinnant's algorithm).
    let z = (secs / 86_400) as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + (m <= 2) as i64;
    format!("{y:04}-{m:02}-{d:02}")
}
