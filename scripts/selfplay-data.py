#!/usr/bin/env python3
"""The self-play data kept in data/selfplay/: shards of whole games that
any clone of the repository can remake bit for bit.

    scripts/selfplay-data.py play TAG SEED [--games N] [--threads T]
        play one shard (or go on with a stopped one) and write its manifest
    scripts/selfplay-data.py run TAG FIRST_SEED [--count K] [--threads T]
        shards FIRST_SEED, FIRST_SEED+1, ... one after another (the
        background job: run it under `nice -n 19`); a seed whose shard is
        complete is skipped, a stopped one is resumed
    scripts/selfplay-data.py remake MANIFEST [--games N]
        build the engine at the manifest's commit (a git worktree under
        target/ unless it is a clean HEAD), check its bench, play its
        command again and compare the bytes (the first N games only with
        --games: a quicker check of a prefix)
    scripts/selfplay-data.py total
        games, positions and bytes per tag and in all

TAG is f15 (freestyle 15x15), f20, s15 (standard), r15 (renju) or c15
(caro). A shard is `data/selfplay/TAG/TAG-sSEED.tgsp` (the format of
src/learn/data.rs: 4 bytes a searched position) with `TAG-sSEED.manifest`
beside it: the command, the engine's commit and bench, the games,
positions, results, bytes, SHA-256 and the dates. The command runs in a
checkout of that commit (its books are read from there), so the commit
and the command remake the file. `play` needs a clean working tree (data/
aside): the commit must be the code that plays. A commit whose source
(BUILD_INPUTS: src/, the Cargo files, the ttd positions) is that of a
commit already built under target/selfplay-engines/ plays with that
build, copied, rather than a new one (a commit of data or docs costs no
build). Seeds never repeat within a tag, so shards never overlap; docs/evaluation.md keeps the seed ranges
in use.
"""
import argparse
import hashlib
import os
import shutil
import signal
import struct
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "data", "selfplay")
ENGINES = os.path.join(ROOT, "target", "selfplay-engines")
GAMES = 2000
NODES = 20000

# rule, size, books (the outside judge's tuning part first, then tengen's)
TAGS = {
    "f15": ("freestyle", 15, ["openings/rapfi_opengen_f15_tune.pos.txt",
                              "openings/tengen_opengen_f15_tune.pos.txt"]),
    "f20": ("freestyle", 20, ["openings/rapfi_opengen_f20_tune.pos.txt",
                              "openings/tengen_opengen_f20_tune.pos.txt"]),
    "s15": ("standard", 15, ["openings/rapfi_opengen_s15_tune.pos.txt",
                             "openings/tengen_opengen_s15_tune.pos.txt"]),
    "r15": ("renju", 15, ["openings/rapfi_opengen_r15_tune.pos.txt",
                          "openings/tengen_opengen_r15_tune.pos.txt"]),
    "c15": ("caro", 15, ["openings/tengen_opengen_c15_tune.pos.txt"]),
}


def git(*args, cwd=ROOT):
    return subprocess.run(["git", *args], cwd=cwd, check=True,
                          capture_output=True, text=True).stdout.strip()


def clean_env():
    return {k: v for k, v in os.environ.items() if not k.startswith("TENGEN_")}


def scan(path):
    """(games, positions, black, white, draws, bytes of the complete games)."""
    with open(path, "rb") as f:
        b = f.read()
    if len(b) < 5 or b[:4] != b"TGSP":
        sys.exit(f"{path}: not a tengen self-play file")
    games = positions = black = white = draws = 0
    i = 5
    while i + 7 <= len(b):
        result, opening, n = b[i + 3], b[i + 4], struct.unpack_from("<H", b, i + 5)[0]
        if i + 7 + 4 * n > len(b):
            break
        games += 1
        positions += n - min(opening, n)
        black += result == 1
        white += result == 2
        draws += result == 0
        i += 7 + 4 * n
    return games, positions, black, white, draws, i


def sha256(path, length=None):
    with open(path, "rb") as f:
        b = f.read()
    return hashlib.sha256(b if length is None else b[:length]).hexdigest()


def read_manifest(path):
    m = {}
    with open(path) as f:
        for line in f:
            if ":" in line and not line.startswith("#"):
                k, v = line.split(":", 1)
                m[k.strip()] = v.strip()
    return m


def changes():
    """The working tree's changes to tracked files, data/ aside."""
    return git("status", "--porcelain", "--untracked-files=no", "--", ".", ":!data")


def engine():
    """Builds HEAD, keeps its binary, books and bench under target/."""
    dirty = changes()
    if dirty:
        sys.exit("play: the working tree has changes (commit them: the "
                 "manifest names the commit that plays)\n" + dirty)
    return engine_at(git("rev-parse", "HEAD"))


# What goes into the binary: a commit that changes none of these since a
# kept build's commit plays with that build.
BUILD_INPUTS = ["src", "Cargo.toml", "Cargo.lock", "openings/ttd_positions.txt"]


def kept_build_of(commit):
    """A kept engine build (its directory) of another commit whose binary
    is this commit's: no change to BUILD_INPUTS between the two."""
    if not os.path.isdir(ENGINES):
        return None
    for other in sorted(os.listdir(ENGINES)):
        d = os.path.join(ENGINES, other)
        if other == commit or not os.path.exists(os.path.join(d, "bench")):
            continue
        same = subprocess.run(["git", "diff", "--quiet", other, commit, "--"] + BUILD_INPUTS,
                              cwd=ROOT, capture_output=True)
        if same.returncode == 0:
            return d
    return None


def extract_books(commit, d):
    """`commit`'s openings/ into `d`: the books its command reads."""
    archive = subprocess.run(["git", "archive", commit, "openings"], cwd=ROOT,
                             check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", d], input=archive, check=True)


def engine_at(commit):
    """The engine of `commit`: its binary, books and bench, kept under
    target/selfplay-engines/COMMIT (copied from a kept build of a commit
    with the same source, else built here when it is a clean HEAD, else
    in a worktree under target/remake/)."""
    d = os.path.join(ENGINES, commit)
    binary = os.path.join(d, "pbrain-tengen")
    kept = None if os.path.exists(os.path.join(d, "bench")) else kept_build_of(commit)
    if kept:
        os.makedirs(d, exist_ok=True)
        shutil.copy(os.path.join(kept, "pbrain-tengen"), binary)
        extract_books(commit, d)
        shutil.copy(os.path.join(kept, "bench"), os.path.join(d, "bench"))
        print(f"{commit[:12]}: the build of {os.path.basename(kept)[:12]} (the same source)",
              file=sys.stderr)
    if not os.path.exists(os.path.join(d, "bench")):
        if commit == git("rev-parse", "HEAD") and not changes():
            src = ROOT
        else:
            src = os.path.join(ROOT, "target", "remake", commit)
            if not os.path.exists(src):
                git("worktree", "add", "--detach", src, commit)
        subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=src, check=True)
        os.makedirs(d, exist_ok=True)
        shutil.copy(os.path.join(src, "target", "release", "pbrain-tengen"), binary)
        extract_books(commit, d)
        out = subprocess.run([binary, "bench"], capture_output=True, text=True,
                             env=clean_env(), check=True).stdout
        with open(os.path.join(d, "bench"), "w") as f:
            f.write(out.strip().splitlines()[-1].split()[0] + "\n")
    with open(os.path.join(d, "bench")) as f:
        return commit, d, f.read().strip()


def command(tag, seed, games, books=None):
    rule, size, tag_books = TAGS[tag]
    books = tag_books if books is None else books
    name = f"{tag}-s{seed}.tgsp"
    cmd = ["pbrain-tengen", "selfplay", "--rule", rule, "--size", str(size),
           "--seed", str(seed), "--games", str(games), "--nodes", str(NODES)]
    for b in books:
        cmd += ["--openings", b]
    return cmd + ["--out", name]


def write_manifest(tag, seed, target, commit, bench, started, threads, books):
    path = os.path.join(DATA, tag, f"{tag}-s{seed}.tgsp")
    games, positions, black, white, draws, size = scan(path)
    with open(path, "r+b") as f:  # a game cut short is not part of the shard
        f.truncate(size)
    status = "complete" if games >= target else f"stopped (resume: --games {target})"
    lines = [
        "# tengen self-play shard; format and commands: docs/evaluation.md",
        f"file: {tag}-s{seed}.tgsp",
        f"command: {' '.join(command(tag, seed, games, books))}",
        f"engine: {commit}",
        f"bench: {bench}",
        f"games: {games}",
        f"target: {target}",
        f"status: {status}",
        f"positions: {positions}",
        f"results: black {black}, white {white}, draws {draws}",
        f"bytes: {size}",
        f"sha256: {sha256(path)}",
        f"started: {started}",
        f"written: {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())}",
        f"threads: {threads} (the file does not depend on them)",
    ]
    with open(path[:-5] + ".manifest", "w") as f:
        f.write("\n".join(lines) + "\n")
    return games >= target


class Stop(Exception):
    pass


def play(tag, seed, games, threads, eng):
    """Plays (or resumes) one shard with the engine `eng` (from engine());
    True when it is complete."""
    commit, d, bench = eng
    os.makedirs(os.path.join(DATA, tag), exist_ok=True)
    base = os.path.join(DATA, tag, f"{tag}-s{seed}")
    started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    books = TAGS[tag][2]
    if os.path.exists(base + ".manifest"):
        m = read_manifest(base + ".manifest")
        if m["status"] == "complete":
            return True
        # A resumed shard keeps the books it began with.
        words = m["command"].split()
        books = [words[i + 1] for i, w in enumerate(words) if w == "--openings"]
        if m["engine"] != commit:
            # Go on with the engine that began the shard (built at its
            # commit if this machine has not kept it).
            commit, d, bench = engine_at(m["engine"])
            if bench != m["bench"]:
                sys.exit(f"{base}.manifest: bench {m['bench']}, but its commit's build "
                         f"gives {bench}")
        games, started = int(m["target"]), m["started"]
    elif os.path.exists(base + ".tgsp"):
        sys.exit(f"{base}.tgsp has no manifest: remove it or write one")
    cmd = command(tag, seed, games, books)
    cmd[0] = os.path.join(d, "pbrain-tengen")
    cmd[-1] = base + ".tgsp"
    cmd += ["--threads", str(threads), "--resume"]
    child = subprocess.Popen(cmd, cwd=d, env=clean_env(), stdout=subprocess.DEVNULL)

    def stop(*_):
        child.terminate()
        raise Stop()
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    stopped = False
    try:
        child.wait()
    except Stop:
        child.wait()
        stopped = True
    done = write_manifest(tag, seed, games, commit, bench, started, threads, books)
    print(f"{base}.tgsp: {read_manifest(base + '.manifest')['status']}", file=sys.stderr)
    if stopped:
        sys.exit(1)
    if child.returncode != 0:
        sys.exit(f"selfplay exited with {child.returncode}")
    return done


def remake(manifest, prefix):
    m = read_manifest(manifest)
    commit, d, bench = engine_at(m["engine"])
    if bench != m["bench"]:
        print(f"{m['file']}: the build of {commit[:12]} gives bench {bench}, "
              f"the manifest says {m['bench']}")
        return False
    cmd = m["command"].split()
    games = int(m["games"])
    if prefix:
        games = min(prefix, games)
        cmd[cmd.index("--games") + 1] = str(games)
    cmd[0] = os.path.join(d, "pbrain-tengen")
    out = os.path.join(d, "remade.tgsp")
    cmd[-1] = out
    subprocess.run(cmd + ["--threads", str(os.cpu_count() or 1)], cwd=d,
                   env=clean_env(), check=True, stdout=subprocess.DEVNULL)
    shard = os.path.join(os.path.dirname(os.path.abspath(manifest)), m["file"])
    length = os.path.getsize(out)
    ok = (length == int(m["bytes"]) and sha256(out) == m["sha256"]) if games == int(m["games"]) \
        else sha256(out) == sha256(shard, length)
    what = f"the first {games} games" if games < int(m["games"]) else f"all {games} games"
    print(f"{m['file']}: {what} remade at {commit[:12]}: "
          f"{'the same bytes' if ok else 'DIFFERENT'}")
    return ok


def total():
    all_games = all_pos = all_bytes = 0
    for tag in sorted(os.listdir(DATA)) if os.path.isdir(DATA) else []:
        g = p = b = n = 0
        for f in sorted(os.listdir(os.path.join(DATA, tag))):
            if f.endswith(".manifest"):
                m = read_manifest(os.path.join(DATA, tag, f))
                g, p, b, n = g + int(m["games"]), p + int(m["positions"]), b + int(m["bytes"]), n + 1
        print(f"{tag}: {n} shards, {g} games, {p} positions, {b / 2**20:.1f} MiB")
        all_games, all_pos, all_bytes = all_games + g, all_pos + p, all_bytes + b
    print(f"all: {all_games} games, {all_pos} positions, {all_bytes / 2**20:.1f} MiB")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="what", required=True)
    p = sub.add_parser("play")
    p.add_argument("tag", choices=TAGS)
    p.add_argument("seed", type=int)
    p.add_argument("--games", type=int, default=GAMES)
    p.add_argument("--threads", type=int, default=1)
    r = sub.add_parser("run")
    r.add_argument("tag", choices=TAGS)
    r.add_argument("first_seed", type=int)
    r.add_argument("--count", type=int, default=1000)
    r.add_argument("--games", type=int, default=GAMES)
    r.add_argument("--threads", type=int, default=1)
    m = sub.add_parser("remake")
    m.add_argument("manifest")
    m.add_argument("--games", type=int, default=0)
    sub.add_parser("total")
    a = ap.parse_args()
    if a.what == "play":
        play(a.tag, a.seed, a.games, a.threads, engine())
    elif a.what == "run":
        eng = engine()  # one commit for the whole run, whatever HEAD does meanwhile
        for seed in range(a.first_seed, a.first_seed + a.count):
            play(a.tag, seed, a.games, a.threads, eng)
    elif a.what == "remake":
        sys.exit(0 if remake(a.manifest, a.games) else 1)
    else:
        total()


if __name__ == "__main__":
    main()
