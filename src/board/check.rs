//! The board's self-check (every incrementally kept field against a
//! recomputation from the bare stones) and its text.

use super::*;

impl Board {
    /// Compares every incrementally kept field with a recomputation from
    /// the bare stones; describes the first difference.
    pub fn check_consistency(&self) -> Result<(), String> {
        let mut fresh = self.clone();
        fresh.rebuild();
        if fresh.keys != self.keys {
            return Err("line keys differ".into());
        }
        for p in self.on_board.iter() {
            let i = p.index();
            if fresh.pat[i] != self.pat[i] {
                return Err(format!(
                    "patterns at {p} differ: {:08x} kept, {:08x} recomputed",
                    self.pat[i], fresh.pat[i]
                ));
            }
            for c in 0..2 {
                if fresh.cls[c][i] != self.cls[c][i] {
                    return Err(format!("class of colour {c} at {p} differs"));
                }
                if fresh.codes[c][i] != self.codes[c][i] {
                    return Err(format!("pattern code of colour {c} at {p} differs"));
                }
            }
        }
        if fresh.counts != self.counts {
            return Err(format!(
                "class counts differ: {:?} kept, {:?} recomputed",
                self.counts, fresh.counts
            ));
        }
        if fresh.values != self.values {
            return Err(format!(
                "evaluation sums differ: {:?} kept, {:?} recomputed",
                self.values, fresh.values
            ));
        }
        if [Color::Black, Color::White]
            .iter()
            .any(|&c| fresh.acc(c) != self.acc(c))
        {
            return Err("network accumulators differ".into());
        }
        if fresh.hash != self.hash {
            return Err("Zobrist keys differ".into());
        }
        if fresh.area != self.area {
            return Err("candidate areas differ".into());
        }
        Ok(())
    }

    /// The board as text, one row a line: `x` black, `o` white, `.` empty.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        for y in 0..self.height {
            for x in 0..self.width {
                s.push(match self.stone(Pos::new(x, y)) {
                    Some(Color::Black) => 'x',
                    Some(Color::White) => 'o',
                    None => '.',
                });
            }
            s.push('\n');
        }
        s
    }
}

impl fmt::Debug for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Board {}x{} {} ply {}\n{}",
            self.width,
            self.height,
            self.rule,
            self.ply(),
            self.to_text()
        )
    }
}
