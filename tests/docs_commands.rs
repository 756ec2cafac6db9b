//! The quick shell blocks of the README and of `docs/` (the ones fenced
//! as `sh`) run against the built binary, so a documented command never
//! rots. Each block runs with bash (`-e`, `-o pipefail`) in a fresh folder
//! that sees the repository's `openings/`, `scripts/` and `tests/`, with
//! the binary first on PATH; it must exit 0. Longer examples are fenced as plain
//! text and are not run.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The `sh` blocks of a markdown text, with the line each starts on.
fn sh_blocks(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut current: Option<(usize, String)> = None;
    for (n, line) in text.lines().enumerate() {
        let fence = line.trim_start();
        match &mut current {
            None if fence == "```sh" => current = Some((n + 2, String::new())),
            Some(_) if fence == "```" => out.extend(current.take()),
            Some((_, body)) => {
                body.push_str(line);
                body.push('\n');
            }
            None => {}
        }
    }
    out
}

fn docs() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![root.join("README.md")];
    let mut pages: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .expect("docs/")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    pages.sort();
    files.extend(pages);
    files
}

#[test]
fn the_blocks_are_found() {
    let text = "a\n```sh\necho one\necho two\n```\n```text\nnot run\n```\n```sh\ntrue\n```\n";
    let blocks = sh_blocks(text);
    assert_eq!(
        blocks,
        vec![(3, "echo one\necho two\n".into()), (10, "true\n".into())]
    );
}

#[test]
fn documented_shell_blocks_run() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let bin = Path::new(env!("CARGO_BIN_EXE_pbrain-tengen"));
    let path = format!(
        "{}:{}",
        bin.parent().expect("bin dir").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let (mut blocks, mut lines) = (0, 0);
    for file in docs() {
        let text = std::fs::read_to_string(&file).expect("readable");
        for (start, body) in sh_blocks(&text) {
            let dir = std::env::temp_dir().join(format!(
                "tengen-docs-{}-{}-{start}",
                std::process::id(),
                file.file_stem().unwrap().to_string_lossy()
            ));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).expect("temp dir");
            for link in ["openings", "scripts", "tests"] {
                std::os::unix::fs::symlink(root.join(link), dir.join(link)).expect("link");
            }
            let out = Command::new("bash")
                .args(["-e", "-o", "pipefail", "-c", &body])
                .current_dir(&dir)
                .env("PATH", &path)
                .env_remove("TENGEN_PARAMS")
                .env_remove("TENGEN_WEIGHTS")
                .output()
                .expect("bash runs");
            let where_ = format!("{}:{start}", file.display());
            assert!(
                out.status.success(),
                "{where_}: the block failed ({})\n{body}\nstdout:\n{}\nstderr:\n{}",
                out.status,
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            let _ = std::fs::remove_dir_all(&dir);
            blocks += 1;
            lines += body.lines().count();
        }
    }
    println!("{blocks} documented shell blocks, {lines} lines, ran");
    assert!(blocks >= 8, "only {blocks} blocks");
}
