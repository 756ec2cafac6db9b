//! `scripts/keep-branch.sh`: an experiment branch kept on main as a patch
//! file and revived from it, in a repository of its own made here.

use std::path::{Path, PathBuf};
use std::process::Command;

fn git(dir: &Path, args: &[&str]) -> String {
    let r = Command::new("git")
        .current_dir(dir)
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args)
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .output()
        .expect("run git");
    assert!(
        r.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&r.stderr)
    );
    String::from_utf8_lossy(&r.stdout).trim().to_string()
}

fn keep(dir: &Path, args: &[&str]) -> (bool, String) {
    let r = Command::new("bash")
        .current_dir(dir)
        .arg(dir.join("scripts/keep-branch.sh"))
        .args(args)
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .output()
        .expect("run the script");
    (
        r.status.success(),
        String::from_utf8_lossy(&r.stderr).into_owned(),
    )
}

fn repo(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tengen-keep-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("scripts")).unwrap();
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/keep-branch.sh"),
        dir.join("scripts/keep-branch.sh"),
    )
    .unwrap();
    std::fs::write(dir.join("code.rs"), "fn main() {}\n").unwrap();
    git(&dir, &["init", "-q", "-b", "main"]);
    git(&dir, &["add", "."]);
    git(&dir, &["commit", "-q", "-m", "main"]);
    dir
}

#[test]
fn a_kept_branch_is_revived_with_the_same_tree_from_main_alone() {
    let dir = repo("revive");
    git(&dir, &["switch", "-q", "-c", "try/idea"]);
    std::fs::write(dir.join("code.rs"), "fn main() { idea() }\n").unwrap();
    std::fs::write(dir.join("idea.rs"), "fn idea() {}\n").unwrap();
    git(&dir, &["add", "."]);
    git(&dir, &["commit", "-q", "-m", "try: the idea"]);
    git(&dir, &["commit", "-q", "--allow-empty", "-m", "try: more"]);
    let tree = git(&dir, &["rev-parse", "try/idea^{tree}"]);
    git(&dir, &["switch", "-q", "main"]);
    // Main moves on meanwhile.
    std::fs::write(dir.join("later.txt"), "later\n").unwrap();
    git(&dir, &["add", "."]);
    git(&dir, &["commit", "-q", "-m", "main: later"]);

    let (ok, err) = keep(&dir, &["try/idea"]);
    assert!(ok, "{err}");
    assert!(
        err.contains("experiments/try-idea.patch (2 commits"),
        "{err}"
    );
    let patch = std::fs::read_to_string(dir.join("experiments/try-idea.patch")).unwrap();
    assert!(patch.starts_with("# base: "), "{patch}");
    git(&dir, &["add", "experiments"]);
    git(&dir, &["commit", "-q", "-m", "keep try/idea"]);
    // The machine goes: only main is left.
    git(&dir, &["branch", "-q", "-D", "try/idea"]);

    let (ok, err) = keep(&dir, &["--revive", "try/idea"]);
    assert!(ok, "{err}");
    assert_eq!(git(&dir, &["rev-parse", "HEAD^{tree}"]), tree);
    assert_eq!(git(&dir, &["rev-list", "--count", "main..try/idea"]), "2");
    // Reviving it again while it exists is refused, and nothing changes.
    let (ok, err) = keep(&dir, &["--revive", "try/idea"]);
    assert!(!ok && err.contains("exists already"), "{err}");
    assert_eq!(git(&dir, &["rev-parse", "HEAD^{tree}"]), tree);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_branches_are_refused_with_a_message() {
    let dir = repo("refuse");
    let (ok, err) = keep(&dir, &["no-such"]);
    assert!(!ok && err.contains("no branch no-such"), "{err}");
    let (ok, err) = keep(&dir, &["bad name"]);
    assert!(!ok && err.contains("letters, digits"), "{err}");
    git(&dir, &["branch", "empty"]);
    let (ok, err) = keep(&dir, &["empty"]);
    assert!(!ok && err.contains("no commits beyond main"), "{err}");
    let (ok, err) = keep(&dir, &["--revive", "gone"]);
    assert!(!ok && err.contains("no experiments/gone.patch"), "{err}");
    assert!(!dir.join("experiments").exists());
    let _ = std::fs::remove_dir_all(&dir);
}
