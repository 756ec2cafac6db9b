#!/usr/bin/env python3
"""Time to depth, and depth in a fixed time, on several threads, through
the engine's own front doors: `analyze` (a process per search) and the
Gomocup protocol (one engine process, `INFO thread_num`, a turn time).

  scripts/ttd.py analyze  [--engine BIN] [--depth 13] [--threads 1,2] [--repeat 1]
  scripts/ttd.py rounds   [--engine BIN] [--depth 13] [--moves M1,M2,...] [--rounds 10]
  scripts/ttd.py protocol [--engine BIN] [--turn 1000] [--threads 1,2]

Positions: openings/ttd_positions.txt (the ones `bench --ttd` searches).
`analyze` prints, per position and thread count, the search's own time to
the depth (the `time` of its last iteration line, so process start-up and
the table's allocation are not counted) and the nodes of all threads; then
per thread count the median speed-up against one thread (over positions
that one thread searched to the full depth) and the total-time ratio.
`protocol` gives each position one turn of `--turn` ms on a fresh engine
and prints the depth reached and the nodes of all threads from the last
MESSAGE line; then per thread count the mean depth and the median node
ratio against one thread. `--repeat R` (analyze) searches each position R
times on each thread count and keeps the run of median time: a parallel
search's time to a depth varies from run to run (a thread may find a
forced win one run and not the next), and so does the machine's. Nothing
else runs while it measures, or the
figures mean nothing (2 cores: compare within one run).

`rounds` times a set of positions again and again, one thread and then
two in each round, and prints each round's total time on each and their
ratio, then the ratio of the sums: the test of issue 68 (`--moves`,
freestyle 15x15, defaults to the issue's four positions). A round's two
halves follow each other, so a change in the machine's speed touches both.
"""

import argparse
import os
import re
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GOMOCUP_RULE = {"freestyle": 0, "standard": 1, "renju": 4, "caro": 8}
INFO = re.compile(r"depth (\d+) .*?nodes (\d+) nps (\d+) time (\d+)")


def positions(path):
    out = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            rule, size, moves = line.split()
            out.append((rule, int(size), moves))
    return out


def cells(moves):
    """pos notation (h8i9) to (x, y) pairs: letter = column from a, number
    = row from 1."""
    return [(ord(c) - ord("a"), int(n) - 1) for c, n in re.findall(r"([a-z])(\d+)", moves)]


def run_analyze(engine, pos, depth, threads):
    rule, size, moves = pos
    cmd = [engine, "analyze", "--rule", rule, "--size", str(size), "--moves", moves,
           "--depth", str(depth), "--threads", str(threads)]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    last = None
    for line in out.splitlines():
        m = INFO.search(line)
        if m and line.startswith("depth"):
            last = m
    if last is None:
        sys.exit(f"no iteration line from {' '.join(cmd)}")
    return int(last.group(1)), int(last.group(4)), int(last.group(2))


def run_protocol(engine, pos, turn, threads):
    rule, size, moves = pos
    stones = cells(moves)
    me = len(stones) % 2  # the side to move: black (0) after an even count
    lines = [f"START {size}", f"INFO rule {GOMOCUP_RULE[rule]}", f"INFO thread_num {threads}",
             f"INFO timeout_turn {turn}", "INFO timeout_match 0", "BOARD"]
    for i, (x, y) in enumerate(stones):
        lines.append(f"{x},{y},{1 if i % 2 == me else 2}")
    lines.append("DONE")
    # The move is awaited before END: END stops a search under way.
    p = subprocess.Popen([engine], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True)
    p.stdin.write("\n".join(lines) + "\n")
    p.stdin.flush()
    last, reached = None, []
    for line in p.stdout:
        if line.startswith("MESSAGE depth"):
            m = INFO.search(line)
            if m:
                last = m
                reached.append((int(m.group(1)), int(m.group(4))))
        elif re.fullmatch(r"\d+,\d+\s*", line):
            break
    p.stdin.write("END\n")
    p.stdin.close()
    p.wait(timeout=30)
    if last is None:
        sys.exit(f"no MESSAGE depth line for {moves}")
    return int(last.group(1)), int(last.group(4)), int(last.group(2)), reached


# The positions of issue 68 (its three named ones and the opening h8).
ISSUE68 = ["h8", "h8h9i8g8j8k8i9", "f4b7f6d4f7f8c7e6e1d6", "j9j10l10k7i9l9j4k8"]


def rounds(a, counts):
    pos = [("freestyle", 15, m) for m in a.moves.split(",") if m]
    sums = {t: 0 for t in counts}
    for r in range(a.rounds):
        totals = {}
        for t in counts:
            times = [run_analyze(a.engine, p, a.depth, t)[1] for p in pos]
            totals[t] = sum(times)
            sums[t] += totals[t]
            print(f"round {r + 1:2} {t}t total {totals[t]:6} ms: {' '.join(map(str, times))}", flush=True)
        print(f"round {r + 1:2} " + ", ".join(
            f"{t}t/1t {totals[t] / max(totals[1], 1):.2f}" for t in counts[1:]), flush=True)
    for t in counts[1:]:
        print(f"rounds: {a.rounds} of {len(pos)} positions to depth {a.depth}, {t} threads took "
              f"{sums[t] / max(sums[1], 1):.2f}x the time of one ({sums[t]} against {sums[1]} ms)")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mode", choices=["analyze", "protocol", "rounds"])
    ap.add_argument("--engine", default=os.path.join(ROOT, "target/release/pbrain-tengen"))
    ap.add_argument("--positions", default=os.path.join(ROOT, "openings/ttd_positions.txt"))
    ap.add_argument("--depth", type=int, default=13)
    ap.add_argument("--turn", type=int, default=1000, help="protocol: ms a turn")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--limit", type=int, default=0, help="only the first N positions")
    ap.add_argument("--repeat", type=int, default=1, help="analyze: runs a position, the median kept")
    ap.add_argument("--moves", default=",".join(ISSUE68),
                    help="rounds: freestyle 15x15 positions, comma-separated")
    ap.add_argument("--rounds", type=int, default=10, help="rounds: how many")
    a = ap.parse_args()
    counts = [int(t) for t in a.threads.split(",")]
    if counts[0] != 1:
        counts.insert(0, 1)
    if a.mode == "rounds":
        return rounds(a, counts)
    pos = positions(a.positions)
    if a.limit:
        pos = pos[: a.limit]
    res = {t: [] for t in counts}
    for i, p in enumerate(pos):
        row = []
        for t in counts:
            if a.mode == "analyze":
                runs = sorted((run_analyze(a.engine, p, a.depth, t) for _ in range(max(a.repeat, 1))),
                              key=lambda x: x[1])
                r = runs[len(runs) // 2]
            else:
                r = run_protocol(a.engine, p, a.turn, t)
            res[t].append(r)
            row.append(f"{t}t depth {r[0]:2} {r[1]:6} ms {r[2]:10} nodes")
        print(f"{i + 1:2} {p[0]:9} {p[1]}x{p[1]} {p[2]:16} " + "  ".join(row), flush=True)
    base = res[1]
    for t in counts[1:]:
        if a.mode == "analyze":
            full = [i for i, r in enumerate(base) if r[0] == a.depth]
            ratios = sorted(base[i][1] / max(res[t][i][1], 1) for i in full)
            total = sum(r[1] for r in base) / max(sum(r[1] for r in res[t]), 1)
            med = statistics.median(ratios) if ratios else 0
            print(f"analyze depth {a.depth}{f' (median of {a.repeat} runs)' if a.repeat > 1 else ''}, "
                  f"{t} threads against 1: median speed-up {med:.2f} over "
                  f"{len(ratios)} positions, {total:.2f} in total time; nodes {sum(r[2] for r in res[t])} "
                  f"against {sum(r[2] for r in base)}")
        else:
            d1 = statistics.mean(r[0] for r in base)
            dt = statistics.mean(r[0] for r in res[t])
            nodes = statistics.median(res[t][i][2] / max(base[i][2], 1) for i in range(len(base)))
            # Time to the depth one thread reached in the turn: its time
            # over the time the others first reported that depth or more.
            ratios = []
            for b, r in zip(base, res[t]):
                tn = [ms for d, ms in r[3] if d >= b[0]]
                ratios.append(b[1] / max(tn[0], 1) if tn else 0.0)
            print(f"protocol {a.turn} ms a turn, {t} threads against 1: mean depth {dt:.2f} against "
                  f"{d1:.2f}, median nodes ratio {nodes:.2f}, median time-to-depth speed-up "
                  f"{statistics.median(ratios):.2f}")


if __name__ == "__main__":
    main()
