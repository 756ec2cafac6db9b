//! Game records: Piskvork `.psq` files and SGF.

use super::referee::{GameRecord, Outcome};
use crate::types::{Color, Pos};

/// A game as a Piskvork `.psq` file: the header, one `x,y,ms` line a move
/// with 1-based coordinates (opening stones with 0 ms), the black and white
/// engine names, and a result code (1 black won, 2 white won, 0 draw).
pub fn psq(g: &GameRecord, size: usize, black: &str, white: &str) -> String {
    let mut s = format!("Piskvorky {size}x{size}, 11:11, 0\n");
    for p in &g.opening {
        s.push_str(&format!("{},{},0\n", p.x() + 1, p.y() + 1));
    }
    for (p, ms) in &g.moves {
        s.push_str(&format!("{},{},{ms}\n", p.x() + 1, p.y() + 1));
    }
    s.push_str(&format!("{black}\n{white}\n"));
    s.push_str(match g.outcome {
        Outcome::BlackWins => "1\n",
        Outcome::WhiteWins => "2\n",
        Outcome::Draw => "0\n",
    });
    s
}

fn sgf_text(s: &str) -> String {
    s.replace('\\', "\\\\").replace(']', "\\]")
}

fn sgf_point(p: Pos) -> String {
    format!(
        "{}{}",
        (b'a' + p.x() as u8) as char,
        (b'a' + p.y() as u8) as char
    )
}

/// A game as one SGF tree (GM[4], Gomoku).
pub fn sgf(g: &GameRecord, size: usize, rule: &str, black: &str, white: &str) -> String {
    let re = match g.outcome {
        Outcome::BlackWins => "B+",
        Outcome::WhiteWins => "W+",
        Outcome::Draw => "0",
    };
    let mut s = format!(
        "(;GM[4]FF[4]CA[UTF-8]AP[tengen]SZ[{size}]RU[{}]PB[{}]PW[{}]RE[{re}]C[{}]",
        sgf_text(rule),
        sgf_text(black),
        sgf_text(white),
        sgf_text(&g.reason)
    );
    let mut color = Color::Black;
    for p in g.opening.iter().chain(g.moves.iter().map(|(p, _)| p)) {
        let c = if color == Color::Black { 'B' } else { 'W' };
        s.push_str(&format!(";{c}[{}]", sgf_point(*p)));
        color = color.opposite();
    }
    s.push_str(")\n");
    s
}

/// A JSON string literal.
pub fn json_str(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A finite number for JSON (NaN and infinities become null).
pub fn json_num(x: f64) -> String {
    if x.is_finite() {
        format!("{x:.4}")
    } else {
        "null".into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn psq_and_sgf() {
        let g = GameRecord {
            opening: vec![Pos::new(7, 7)],
            moves: vec![(Pos::new(8, 8), 120), (Pos::new(0, 14), 5)],
            outcome: Outcome::WhiteWins,
            reason: "five in a row".into(),
            faulty: None,
        };
        let p = psq(&g, 15, "a", "b");
        assert_eq!(
            p,
            "Piskvorky 15x15, 11:11, 0\n8,8,0\n9,9,120\n1,15,5\na\nb\n2\n"
        );
        let s = sgf(&g, 15, "freestyle", "a]", "b");
        assert!(s.starts_with("(;GM[4]FF[4]"));
        assert!(s.contains("PB[a\\]]"));
        assert!(s.contains(";B[hh];W[ii];B[ao])"));
        assert_eq!(json_str("a\"b\n"), "\"a\\\"b\\n\"");
        assert_eq!(json_num(f64::NAN), "null");
    }
}
