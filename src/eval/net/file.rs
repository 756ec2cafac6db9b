//! The network's text format (see the module's documentation): reading
//! and writing a [`Net`].

use super::*;

impl Net {
    /// Reads a network file.
    pub fn from_file(path: &Path) -> Result<Net, WeightsError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| WeightsError(format!("{}: {e}", path.display())))?;
        Net::parse(&text).map_err(|e| WeightsError(format!("{}: {}", path.display(), e.0)))
    }

    /// Reads the text format.
    pub fn parse(text: &str) -> Result<Net, WeightsError> {
        let err = |line: usize, msg: String| WeightsError(format!("line {}: {msg}", line + 1));
        let mut lines = text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty());
        let (n, first) = lines
            .next()
            .ok_or_else(|| WeightsError("empty file".into()))?;
        let version = first
            .strip_prefix("tengen-net ")
            .ok_or_else(|| err(n, "not a tengen network file".into()))?;
        if version.trim().parse::<u32>().ok() != Some(NET_FORMAT) {
            return Err(err(
                n,
                format!(
                    "format version {} (this build reads {NET_FORMAT})",
                    version.trim()
                ),
            ));
        }
        let (n, rule_line) = lines
            .next()
            .ok_or_else(|| WeightsError("no rule line".into()))?;
        let rule: Rule = rule_line
            .strip_prefix("rule ")
            .and_then(|r| r.trim().parse().ok())
            .ok_or_else(|| err(n, format!("expected 'rule NAME', got '{rule_line}'")))?;
        let (n, feat_line) = lines
            .next()
            .ok_or_else(|| WeightsError("no features line".into()))?;
        let want = |f: &str| format!("features {f} channels {CHANNELS} hidden {HIDDEN}");
        let got = feat_line
            .split_ascii_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        let lines_on = if got == want(FEATURES_LINES) {
            true
        } else if got == want(FEATURES) {
            false
        } else {
            return Err(err(
                n,
                format!(
                    "'{}' does not fit this build ('{}' or '{}')",
                    feat_line.trim(),
                    want(FEATURES),
                    want(FEATURES_LINES)
                ),
            ));
        };
        let mut net = Net::zero(rule);
        let mut lines = lines.peekable();
        if let Some((n, line)) = lines.next_if(|(_, l)| l.starts_with("boards ")) {
            let range = line["boards ".len()..].trim();
            net.boards = range
                .split_once('-')
                .and_then(|(a, b)| Some((a.parse().ok()?, b.parse().ok()?)))
                .filter(|&(a, b)| MIN_SIZE <= a && a <= b && b <= MAX_SIZE)
                .ok_or_else(|| {
                    err(
                        n,
                        format!("'boards {range}': expected MIN-MAX within {MIN_SIZE}-{MAX_SIZE}"),
                    )
                })?;
        }
        if let Some((n, line)) = lines.next_if(|(_, l)| l.starts_with("trained ")) {
            let side = line["trained ".len()..].trim();
            net.trained = Some(
                side.parse()
                    .ok()
                    .filter(|s| (MIN_SIZE..=MAX_SIZE).contains(s))
                    .ok_or_else(|| {
                        err(
                            n,
                            format!("'trained {side}': expected a board side within {MIN_SIZE}-{MAX_SIZE}"),
                        )
                    })?,
            );
        }
        let mut vectors = CodeVectors::new();
        vectors.set_lines(lines_on);
        let nfeatures = vectors.features();
        let tables: [(&str, usize, i64); 6] = [
            ("embed", nfeatures * CHANNELS, i16::MAX as i64),
            ("w1", HIDDEN * INPUTS, W1_LIMIT),
            ("b1", HIDDEN, 100_000_000),
            ("wm", MASK_BITS * HIDDEN, 100_000_000),
            ("wo", HIDDEN, WO_LIMIT),
            ("bo", 1, 100_000_000),
        ];
        let mut seen = [[false; 6]; 2];
        let mut ended = false;
        let mut values = Vec::new();
        for (n, line) in lines {
            if ended {
                return Err(err(n, "text after 'end'".into()));
            }
            if let Some(note) = line.strip_prefix("note ") {
                net.notes.push(note.to_string());
                continue;
            }
            if line.trim() == "end" {
                ended = true;
                continue;
            }
            let mut words = line.split_ascii_whitespace();
            let name = words.next().unwrap_or("");
            let t = tables
                .iter()
                .position(|e| e.0 == name)
                .ok_or_else(|| err(n, format!("unknown table '{name}'")))?;
            let color = match words.next() {
                Some("black") => Color::Black,
                Some("white") => Color::White,
                other => return Err(err(n, format!("unknown colour '{}'", other.unwrap_or("")))),
            };
            if seen[color.index()][t] {
                return Err(err(n, format!("{name} {} given twice", color_name(color))));
            }
            seen[color.index()][t] = true;
            let (_, want, limit) = tables[t];
            values.clear();
            for (i, word) in words.enumerate() {
                let v: i64 = word
                    .parse()
                    .ok()
                    .filter(|v: &i64| v.abs() <= limit)
                    .ok_or_else(|| err(n, format!("bad value '{word}' at entry {i}")))?;
                if i >= want {
                    return Err(err(n, format!("more than {want} values")));
                }
                values.push(v as i32);
            }
            if values.len() != want {
                return Err(err(n, format!("{} values, expected {want}", values.len())));
            }
            let head = &mut net.heads[color.index()];
            match t {
                0 => {
                    for code in 0..nfeatures {
                        let mut v = [0i16; CHANNELS];
                        for (k, x) in v.iter_mut().enumerate() {
                            *x = values[code * CHANNELS + k] as i16;
                        }
                        vectors.set(color, code, v);
                    }
                }
                1 => {
                    for j in 0..HIDDEN {
                        for i in 0..INPUTS {
                            head.set_w1(j, i, values[j * INPUTS + i] as i16);
                        }
                    }
                }
                2 => head.b1.copy_from_slice(&values),
                3 => {
                    for (b, row) in head.wm.iter_mut().enumerate() {
                        row.copy_from_slice(&values[b * HIDDEN..(b + 1) * HIDDEN]);
                    }
                }
                4 => head.wo.copy_from_slice(&values),
                _ => head.bo = values[0],
            }
        }
        if !ended {
            return Err(WeightsError("no 'end' line: the file is truncated".into()));
        }
        for c in [Color::Black, Color::White] {
            if let Some(t) = seen[c.index()].iter().position(|s| !s) {
                return Err(WeightsError(format!(
                    "no {} {} table",
                    tables[t].0,
                    color_name(c)
                )));
            }
        }
        net.vectors = Arc::new(vectors);
        let trained = net.trained;
        net.set_trained(trained);
        Ok(net)
    }

    /// Writes the text format.
    pub fn to_text(&self) -> String {
        use std::fmt::Write;
        let features = if self.vectors.lines() {
            FEATURES_LINES
        } else {
            FEATURES
        };
        let mut s = format!(
            "tengen-net {NET_FORMAT}\nrule {}\nfeatures {features} channels {CHANNELS} hidden {HIDDEN}\n",
            self.rule
        );
        let _ = writeln!(s, "boards {}-{}", self.boards.0, self.boards.1);
        if let Some(t) = self.trained {
            let _ = writeln!(s, "trained {t}");
        }
        for note in &self.notes {
            let _ = writeln!(s, "note {note}");
        }
        let line = |s: &mut String, name: &str, c: Color, vals: &mut dyn Iterator<Item = i32>| {
            let _ = write!(s, "{name} {}", color_name(c));
            for v in vals {
                let _ = write!(s, " {v}");
            }
            s.push('\n');
        };
        for c in [Color::Black, Color::White] {
            let h = &self.heads[c.index()];
            let v = &self.vectors;
            line(
                &mut s,
                "embed",
                c,
                &mut (0..v.features()).flat_map(|code| v.get(c, code).map(i32::from)),
            );
            line(
                &mut s,
                "w1",
                c,
                &mut (0..HIDDEN).flat_map(|j| (0..INPUTS).map(move |i| h.w1(j, i) as i32)),
            );
            line(&mut s, "b1", c, &mut h.b1.iter().copied());
            line(&mut s, "wm", c, &mut h.wm.iter().flatten().copied());
            line(&mut s, "wo", c, &mut h.wo.iter().copied());
            line(&mut s, "bo", c, &mut std::iter::once(h.bo));
        }
        s.push_str("end\n");
        s
    }
}
