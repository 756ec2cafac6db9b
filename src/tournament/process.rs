//! An engine as a child process speaking the Gomocup protocol.

use super::setup::EngineSpec;
use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Write};
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
}

/// A running engine.
pub struct EngineProcess {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    log: Option<BufWriter<File>>,
    /// From ABOUT, the command line, or the spec's name.
    pub name: String,
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

impl EngineProcess {
    /// Starts the engine; logs its I/O to `log` if given.
    pub fn spawn(spec: &EngineSpec, log: Option<&Path>) -> Result<EngineProcess, String> {
        let (program, dir) = program_and_dir(&spec.argv[0]);
        let mut cmd = Command::new(&program);
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
            loop {
                buf.clear();
                match r.read_until(b'\n', &mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        let line = String::from_utf8_lossy(&buf).trim().to_string();
                        if tx.send(line).is_err() {
                            break;
                        }
                    }
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
        };
        if spec.name.is_none() {
            e.send("ABOUT")?;
            if let Ok(about) = e.reply(Instant::now() + Duration::from_secs(10)) {
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

    /// The next reply line, skipping MESSAGE, DEBUG and SUGGEST lines.
    pub fn reply(&mut self, deadline: Instant) -> Result<String, ReplyError> {
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    self.log("<", &line);
                    let upper = line.to_ascii_uppercase();
                    if line.is_empty()
                        || upper.starts_with("MESSAGE")
                        || upper.starts_with("DEBUG")
                        || upper.starts_with("SUGGEST")
                    {
                        continue;
                    }
                    return Ok(line);
                }
                Err(RecvTimeoutError::Timeout) => return Err(ReplyError::Timeout),
                Err(RecvTimeoutError::Disconnected) => return Err(ReplyError::Closed),
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

/// The `name="..."` of an ABOUT reply.
pub fn about_name(about: &str) -> Option<String> {
    let i = about.find("name=\"")? + 6;
    let rest = &about[i..];
    let j = rest.find('"')?;
    let name = rest[..j].trim();
    (!name.is_empty()).then(|| name.to_string())
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
    }
}
