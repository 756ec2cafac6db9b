//! An engine as a child process speaking the Gomocup protocol.

use super::setup::EngineSpec;
use crate::protocol::{read_line, skip_line};
use std::fs::File;
use std::io::{BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::thread;
use std::time::{Duration, Instant};

/// Why no reply came.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReplyError {
    /// Nothing within the time allowed.
    Timeout,
    /// The engine closed its output (crashed or exited).
    Closed,
    /// A line longer than [`MAX_LINE`].
    TooLong,
}

/// Longest line read from an engine; a longer one loses its game.
pub const MAX_LINE: usize = 1 << 20;

/// What the reader thread passes on.
enum Line {
    Text(String),
    TooLong,
}

/// A running engine.
pub struct EngineProcess {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Line>,
    log: Option<BufWriter<File>>,
    /// From ABOUT, the command line, or the spec's name.
    pub name: String,
    /// Search threads to ask for (`INFO thread_num`) at every game.
    pub threads: Option<u32>,
}

impl std::fmt::Debug for EngineProcess {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "EngineProcess({})", self.name)
    }
}

/// The program and working directory of a command: a program named by a
/// path runs in its own directory.
fn program_and_dir(argv0: &str) -> (PathBuf, Option<PathBuf>) {
    let p = Path::new(argv0);
    if p.components().count() > 1 {
        let abs = std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
        let dir = abs.parent().map(Path::to_path_buf);
        (abs, dir)
    } else {
        (p.to_path_buf(), None)
    }
}

/// Is `program` a file, or (a bare name) one on the PATH?
fn runnable(program: &Path) -> bool {
    if program.components().count() > 1 {
        return program.is_file();
    }
    std::env::var_os("PATH").is_some_and(|paths| {
        std::env::split_paths(&paths).any(|d| {
            let f = d.join(program);
            f.is_file() || f.with_extension("exe").is_file()
        })
    })
}

/// The command that starts `program` so that it dies with the runner: on
/// Linux through util-linux's `setpriv --pdeathsig KILL` when it is there
/// (a runner killed outright, SIGKILL included, leaves no engine behind);
/// elsewhere the engine alone (it still sees its input close).
fn with_parent_death(program: &Path) -> Command {
    const SETPRIV: &str = "/usr/bin/setpriv";
    if cfg!(target_os = "linux") && Path::new(SETPRIV).exists() {
        let mut c = Command::new(SETPRIV);
        c.args(["--pdeathsig", "KILL", "--"]).arg(program);
        c
    } else {
        Command::new(program)
    }
}

impl EngineProcess {
    /// Starts the engine; logs its I/O to `log` if given.
    pub fn spawn(spec: &EngineSpec, log: Option<&Path>) -> Result<EngineProcess, String> {
        let (program, dir) = program_and_dir(&spec.argv[0]);
        if !runnable(&program) {
            return Err(format!(
                "cannot start '{}': no such program",
                spec.argv.join(" ")
            ));
        }
        let mut cmd = with_parent_death(&program);
        cmd.args(&spec.argv[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        if let Some(d) = dir {
            cmd.current_dir(d);
        }
        let mut child = cmd
            .spawn()
            .map_err(|e| format!("cannot start '{}': {e}", spec.argv.join(" ")))?;
        let stdout = child.stdout.take().ok_or("no stdout")?;
        let (tx, rx) = channel();
        thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            let mut buf = Vec::new();
            // Lines end at LF, CR or CR LF (the protocol allows each); the
            // empty line a CR LF leaves is skipped.
            while let Some(cut) = read_line(&mut r, &mut buf, MAX_LINE) {
                let line = if cut {
                    // Said at once; the rest of the line is skipped after.
                    if tx.send(Line::TooLong).is_err() {
                        break;
                    }
                    skip_line(&mut r);
                    continue;
                } else {
                    let text = String::from_utf8_lossy(&buf).trim().to_string();
                    if text.is_empty() {
                        continue;
                    }
                    Line::Text(text)
                };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let log = match log {
            Some(path) => {
                Some(BufWriter::new(File::create(path).map_err(|e| {
                    format!("cannot write log {}: {e}", path.display())
                })?))
            }
            None => None,
        };
        let stdin = child.stdin.take();
        let fallback = spec.name.clone().unwrap_or_else(|| {
            Path::new(&spec.argv[0])
                .file_name()
                .map(|f| f.to_string_lossy().into_owned())
                .unwrap_or_else(|| spec.argv[0].clone())
        });
        let mut e = EngineProcess {
            child,
            stdin,
            lines: rx,
            log,
            name: fallback,
            threads: spec.threads,
        };
        if spec.name.is_none() {
            e.send("ABOUT")?;
            if let Ok(about) = e.reply_where(Instant::now() + Duration::from_secs(10), |l| {
                about_name(l).is_some() || is_reply(l)
            }) {
                if let Some(n) = about_name(&about) {
                    e.name = n;
                }
            }
        }
        Ok(e)
    }

    fn log(&mut self, dir: &str, line: &str) {
        if let Some(l) = self.log.as_mut() {
            let _ = writeln!(l, "{dir} {line}");
            let _ = l.flush();
        }
    }

    /// Sends one or more lines.
    pub fn send(&mut self, text: &str) -> Result<(), String> {
        for line in text.lines() {
            self.log(">", line);
        }
        let stdin = self.stdin.as_mut().ok_or("engine input closed")?;
        stdin
            .write_all(text.as_bytes())
            .and_then(|_| stdin.write_all(b"\n"))
            .and_then(|_| stdin.flush())
            .map_err(|e| format!("write to engine: {e}"))
    }

    /// The next protocol reply ([`is_reply`]): every other line (MESSAGE,
    /// DEBUG, an engine's own search output) is skipped, as Piskvork and
    /// c-gomoku-cli skip it; the log keeps it.
    pub fn reply(&mut self, deadline: Instant) -> Result<String, ReplyError> {
        self.reply_where(deadline, is_reply)
    }

    /// The next line that `wanted` accepts.
    pub fn reply_where(
        &mut self,
        deadline: Instant,
        wanted: impl Fn(&str) -> bool,
    ) -> Result<String, ReplyError> {
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(Line::TooLong) => {
                    self.log("<", &format!("(a line longer than {MAX_LINE} bytes)"));
                    return Err(ReplyError::TooLong);
                }
                Ok(Line::Text(line)) => {
                    self.log("<", &line);
                    if !wanted(&line) {
                        continue;
                    }
                    return Ok(line);
                }
                Err(RecvTimeoutError::Timeout) => return Err(ReplyError::Timeout),
                Err(RecvTimeoutError::Disconnected) => return Err(ReplyError::Closed),
            }
        }
    }

    /// Discards what the engine printed and nobody read (a reply too many
    /// to the last game's command must not answer the next game's).
    pub fn drain(&mut self) {
        while let Ok(line) = self.lines.try_recv() {
            if let Line::Text(l) = line {
                self.log("<", &format!("{l} (left over, skipped)"));
            }
        }
    }

    /// Is the process still running?
    pub fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// Asks the engine to end, then makes sure it does.
    pub fn quit(mut self) {
        let _ = self.send("END");
        let deadline = Instant::now() + Duration::from_millis(500);
        while Instant::now() < deadline && self.alive() {
            thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for EngineProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Is `line` a protocol reply to a command: `OK`, a move `x,y` (or the
/// three moves of a swap2 opening), `SWAP`, or an `ERROR`/`UNKNOWN` line?
pub fn is_reply(line: &str) -> bool {
    let l = line.trim();
    let word = l.split_whitespace().next().unwrap_or("");
    if ["OK", "SWAP", "ERROR", "UNKNOWN"]
        .iter()
        .any(|w| word.eq_ignore_ascii_case(w))
    {
        return true;
    }
    let xy = |m: &str| crate::protocol::command::parse_xy(m).is_some();
    !l.is_empty() && (xy(l) || l.split_whitespace().all(xy))
}

/// The `name` field of an ABOUT reply: `name="Wine"`, `name = "Wine"`, in
/// any position; an unquoted value ends at a comma.
pub fn about_name(about: &str) -> Option<String> {
    about_field(about, "name")
}

/// One `key="value"` field of an ABOUT reply, leniently: any case for the
/// key, spaces around `=`, quotes optional.
pub fn about_field(about: &str, key: &str) -> Option<String> {
    let lower = about.to_ascii_lowercase();
    let mut from = 0;
    while let Some(i) = lower[from..].find(key).map(|i| i + from) {
        from = i + key.len();
        // A whole key: not the tail of another word.
        let before = lower[..i].chars().next_back();
        if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
            continue;
        }
        let rest = about[from..].trim_start();
        let Some(rest) = rest.strip_prefix('=') else {
            continue;
        };
        let rest = rest.trim_start();
        let value = if let Some(q) = rest.strip_prefix('"') {
            &q[..q.find('"').unwrap_or(q.len())]
        } else {
            &rest[..rest.find(',').unwrap_or(rest.len())]
        };
        let value = value.trim();
        return (!value.is_empty()).then(|| value.to_string());
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn about_names() {
        assert_eq!(
            about_name("name=\"tengen\", version=\"1\"").as_deref(),
            Some("tengen")
        );
        assert_eq!(about_name("nothing"), None);
        // Wine's spacing.
        assert_eq!(
            about_name("name = \"Wine\", version =\"2.1\", author=\"x\"").as_deref(),
            Some("Wine")
        );
        // Another order, another case, no quotes.
        assert_eq!(
            about_name("author=\"a\", Name=Rapfi, version=\"0.43\"").as_deref(),
            Some("Rapfi")
        );
        // "name" inside another key is not the name.
        assert_eq!(about_name("nickname=\"x\""), None);
        assert_eq!(about_name("name=\"\""), None);
        assert_eq!(
            about_field("name=\"a\", version = \"1.2\"", "version").as_deref(),
            Some("1.2")
        );
    }

    #[test]
    fn replies_and_other_output() {
        for l in [
            "OK",
            "7,7",
            " 7, 8 ",
            "ERROR bad",
            "UNKNOWN x",
            "SWAP",
            "1,2 3,4 5,6",
        ] {
            assert!(is_reply(l), "{l}");
        }
        for l in [
            "ev +v13 nd 503 tm 2 sp 251",
            "MESSAGE depth 3",
            "DEBUG x",
            "",
            "depth 7 7,7",
            "7,7,1",
        ] {
            assert!(!is_reply(l), "{l}");
        }
    }
}
