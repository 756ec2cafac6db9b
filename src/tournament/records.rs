//! Game records: Piskvork `.psq` files and SGF.

use super::referee::{GameRecord, Outcome};
use crate::types::{Color, Pos};
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Where a record for `path` goes: `path` itself, or, through symbolic
/// links, the file they lead to (a link is never replaced). `Ok(None)`
/// for a device (written in place, not replaced); an error for anything
/// else that is not a regular file (a directory, a FIFO, a socket).
fn record_target(path: &Path) -> Result<Option<PathBuf>, String> {
    let mut target = path.to_path_buf();
    for _ in 0..40 {
        let meta = match fs::symlink_metadata(&target) {
            Ok(m) => m,
            // A new file (or one a dangling link names).
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Some(target)),
            Err(e) => return Err(format!("cannot write {}: {e}", path.display())),
        };
        let kind = meta.file_type();
        if kind.is_symlink() {
            let link = fs::read_link(&target)
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            target = match target.parent() {
                Some(dir) if link.is_relative() => dir.join(link),
                _ => link,
            };
            continue;
        }
        if kind.is_file() {
            return Ok(Some(target));
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::FileTypeExt;
            if kind.is_char_device() || kind.is_block_device() {
                return Ok(None);
            }
        }
        return Err(format!(
            "cannot write {}: {} is not a regular file",
            path.display(),
            target.display()
        ));
    }
    Err(format!("cannot write {}: too many links", path.display()))
}

/// Checks before a match that a record can be written to `path` (see
/// [`write_record`]): a directory, a FIFO or a socket is refused now,
/// not after the games.
pub fn check_record_path(path: &Path) -> Result<(), String> {
    record_target(path).map(|_| ())
}

/// A claim on a record file for one match at a time: `FILE.lock`, beside
/// the file its path leads to, holding the runner's process id. Two
/// matches writing one `--json` would each rewrite it with their own
/// games and lose the other's. Released when dropped; a lock whose
/// process is gone (a killed runner) is taken over.
#[derive(Debug)]
pub struct RecordLock {
    path: Option<PathBuf>,
}

impl RecordLock {
    /// Claims the record `record` for this process.
    pub fn take(record: &Path) -> Result<RecordLock, String> {
        // A device is no file to lose games from.
        let Some(target) = record_target(record)? else {
            return Ok(RecordLock { path: None });
        };
        let mut lock = target.as_os_str().to_owned();
        lock.push(".lock");
        let lock = PathBuf::from(lock);
        let me = std::process::id();
        for _ in 0..2 {
            match fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&lock)
            {
                Ok(mut f) => {
                    let _ = writeln!(f, "{me}");
                    return Ok(RecordLock { path: Some(lock) });
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    let pid = fs::read_to_string(&lock)
                        .ok()
                        .and_then(|t| t.trim().parse::<u32>().ok());
                    if pid.is_some_and(|p| p != me && process_alive(p)) {
                        return Err(format!(
                            "another match (process {}) writes {}; if none does, remove {}",
                            pid.unwrap_or(0),
                            record.display(),
                            lock.display()
                        ));
                    }
                    // Its runner is gone: take it over.
                    let _ = fs::remove_file(&lock);
                }
                Err(e) => return Err(format!("cannot lock {}: {e}", record.display())),
            }
        }
        Err(format!("cannot lock {}", record.display()))
    }
}

impl Drop for RecordLock {
    fn drop(&mut self) {
        if let Some(p) = &self.path {
            let _ = fs::remove_file(p);
        }
    }
}

/// Is process `pid` running? Where that cannot be told, it is taken to
/// be (a lock is then only taken over by hand).
fn process_alive(pid: u32) -> bool {
    if cfg!(target_os = "linux") {
        Path::new(&format!("/proc/{pid}")).exists()
    } else {
        true
    }
}

/// Writes a record file whole: through a temporary file beside the file
/// that `path` is or leads to and a rename, so a reader sees the old text
/// or the new, never half of one. A symbolic link is followed, not
/// replaced; a device (`/dev/null`) is written in place.
pub fn write_record(path: &Path, text: &str) -> Result<(), String> {
    let err = |e: std::io::Error| format!("cannot write {}: {e}", path.display());
    let Some(target) = record_target(path)? else {
        let mut f = fs::OpenOptions::new().write(true).open(path).map_err(err)?;
        return f.write_all(text.as_bytes()).map_err(err);
    };
    let mut tmp = target.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    // A stale temporary file, or a link put in its place, goes first: the
    // new one is created afresh, never opened through a link.
    let _ = fs::remove_file(&tmp);
    let mut f = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&tmp)
        .map_err(err)?;
    f.write_all(text.as_bytes())
        .and_then(|_| f.sync_all())
        .and_then(|_| fs::rename(&tmp, &target))
        .map_err(|e| {
            let _ = fs::remove_file(&tmp);
            err(e)
        })
}

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

    #[cfg(unix)]
    #[test]
    fn records_follow_links_and_keep_devices() {
        let dir = std::env::temp_dir().join(format!("tengen-records-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        // A link: the file it leads to gets the text; the link stays.
        let real = dir.join("real.json");
        fs::write(&real, "old").unwrap();
        let link = dir.join("link.json");
        std::os::unix::fs::symlink("real.json", &link).unwrap();
        write_record(&link, "new").unwrap();
        assert!(fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(fs::read_to_string(&real).unwrap(), "new");
        // A dangling link makes its file.
        let dangling = dir.join("dangling.json");
        std::os::unix::fs::symlink("made.json", &dangling).unwrap();
        write_record(&dangling, "made").unwrap();
        assert_eq!(fs::read_to_string(dir.join("made.json")).unwrap(), "made");
        assert!(fs::symlink_metadata(&dangling)
            .unwrap()
            .file_type()
            .is_symlink());
        // A device is written in place, never replaced.
        write_record(Path::new("/dev/null"), "gone").unwrap();
        let null = fs::symlink_metadata("/dev/null").unwrap();
        use std::os::unix::fs::FileTypeExt;
        assert!(null.file_type().is_char_device());
        // A directory or a FIFO is refused with its name.
        let e = write_record(&dir, "x").unwrap_err();
        assert!(e.contains("not a regular file"), "{e}");
        let fifo = dir.join("fifo");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.is_ok_and(|s| s.success()) {
            let e = check_record_path(&fifo).unwrap_err();
            assert!(e.contains("not a regular file"), "{e}");
        }
        // A link planted where the temporary file goes is not written
        // through.
        let victim = dir.join("victim");
        fs::write(&victim, "keep").unwrap();
        std::os::unix::fs::symlink(&victim, dir.join("out.json.tmp")).unwrap();
        write_record(&dir.join("out.json"), "out").unwrap();
        assert_eq!(fs::read_to_string(&victim).unwrap(), "keep");
        assert_eq!(fs::read_to_string(dir.join("out.json")).unwrap(), "out");
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn one_match_at_a_time_writes_a_record() {
        let dir = std::env::temp_dir().join(format!("tengen-lock-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        let json = dir.join("r.json");
        let lock = dir.join("r.json.lock");
        {
            let _held = RecordLock::take(&json).unwrap();
            assert!(lock.exists());
            // Another live process holds it: refused, naming it (pid 1
            // is always running on Linux).
            fs::write(&lock, "1\n").unwrap();
            if cfg!(target_os = "linux") {
                let e = RecordLock::take(&json).unwrap_err();
                assert!(e.contains("another match (process 1)"), "{e}");
            }
            fs::write(&lock, format!("{}\n", std::process::id())).unwrap();
        }
        assert!(!lock.exists(), "released when dropped");
        // A lock left by a runner that is gone is taken over.
        fs::write(&lock, "4294967294\n").unwrap();
        let again = RecordLock::take(&json).unwrap();
        assert_eq!(
            fs::read_to_string(&lock).unwrap().trim(),
            std::process::id().to_string()
        );
        drop(again);
        assert!(RecordLock::take(Path::new("/dev/null")).is_ok());
        let _ = fs::remove_dir_all(&dir);
    }

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
