#!/usr/bin/env python3
"""How fast each engine's tree grows with depth (issue 66, item 5).

    scripts/ebf.py BOOK [--first N] [--count 20] [--depth 12] [--ms 200,1000,5000] [--tengen BIN]

On the first --count openings of BOOK (pos notation; freestyle 15x15):
tengen (`analyze --depth D`, one thread) prints its nodes at each depth;
then, for each turn time of --ms, both engines play one turn through the
Gomocup protocol (one thread; Rapfi from ../shared/sparring/rapfi,
RAPFI=DIR elsewhere): Rapfi's time at each depth it finished, tengen's
depth reached and nodes (it reports only its last iteration when it
moves). The effective branching factor over two plies is
nodes(d+2)/nodes(d) for tengen's fixed-depth runs (exact: nodes are
deterministic, so load does not change them) and time(d+2)/time(d) in
Rapfi's turns (its iteration lines carry no node count; run it on an idle
machine). Printed: per depth the median over the openings, and the
median depth reached in each turn.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RAPFI = os.environ.get("RAPFI", os.path.join(ROOT, "..", "shared", "sparring", "rapfi"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ttd  # noqa: E402  (the protocol turn of scripts/ttd.py)


def openings(path, first, count):
    rows = [l.strip() for l in open(path) if l.strip() and not l.startswith("#")]
    return rows[first - 1:first - 1 + count]


def tengen(binary, moves, depth):
    out = subprocess.run([binary, "analyze", "--moves", moves, "--depth", str(depth)],
                         capture_output=True, text=True, check=True).stdout
    nodes = {}
    for line in out.splitlines():
        m = re.match(r"depth (\d+) .*nodes (\d+)", line)
        if m:
            nodes[int(m.group(1))] = int(m.group(2))
    return nodes


def rapfi(moves, ms):
    cells = [(ord(m[0]) - 97, int(m[1:]) - 1) for m in re.findall(r"[a-v]\d+", moves)]
    me = len(cells) % 2
    board = "\n".join(f"{x},{y},{1 if i % 2 == me else 2}" for i, (x, y) in enumerate(cells))
    p = subprocess.Popen(["./pbrain-rapfi"], cwd=RAPFI, stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    # END only after the move: Rapfi stops thinking at any command.
    p.stdin.write(f"START 15\nINFO rule 0\nINFO timeout_turn {ms}\n"
                  f"INFO timeout_match 1000000000\nBOARD\n{board}\nDONE\n")
    p.stdin.flush()
    lines = []
    for line in p.stdout:
        lines.append(line)
        if re.fullmatch(r"\d+,\d+\s*", line):
            break
    p.stdin.write("END\n")
    p.stdin.close()
    p.wait(timeout=10)
    out = "".join(lines)
    times = {}
    for line in out.splitlines():
        m = re.match(r"MESSAGE Depth (\d+)-\d+ \| .*\| Time (\d+)ms", line)
        if m:
            times[int(m.group(1))] = max(int(m.group(2)), 1)
    return times


def table(name, runs, unit):
    depths = sorted({d for r in runs for d in r})
    print(f"{name}: depth, openings reaching it, median {unit}, median {unit}(d+2)/{unit}(d)")
    for d in depths:
        at = [r[d] for r in runs if d in r]
        ebf = [r[d + 2] / r[d] for r in runs if d in r and d + 2 in r and r[d] > 0]
        e = f"{statistics.median(ebf):.2f}" if ebf else "-"
        print(f"  {d:3d} {len(at):3d} {statistics.median(at):>12.0f} {e:>8}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("book")
    ap.add_argument("--first", type=int, default=1)
    ap.add_argument("--count", type=int, default=20)
    ap.add_argument("--depth", type=int, default=12)
    ap.add_argument("--ms", default="200,1000,5000")
    ap.add_argument("--tengen", default=os.path.join(ROOT, "target", "release", "pbrain-tengen"))
    a = ap.parse_args()
    rows = openings(a.book, a.first, a.count)
    runs = []
    for i, o in enumerate(rows):
        runs.append(tengen(a.tengen, o, a.depth))
        print(f"tengen {i + 1}/{len(rows)}", file=sys.stderr, flush=True)
    table(f"tengen, analyze --depth {a.depth}, {len(rows)} openings", runs, "nodes")
    for ms in map(int, a.ms.split(",")):
        r = []
        for i, o in enumerate(rows):
            r.append(rapfi(o, ms))
            print(f"rapfi {ms} ms {i + 1}/{len(rows)}", file=sys.stderr, flush=True)
        table(f"Rapfi, one {ms} ms turn, {len(rows)} openings", r, "ms")
        print(f"  depth reached at {ms} ms: median {statistics.median(max(x) for x in r if x)}")
        depths, nodes = [], []
        for i, o in enumerate(rows):
            depth, _, n, _ = ttd.run_protocol(a.tengen, ("freestyle", 15, o), ms, 1)
            depths.append(depth)
            nodes.append(n)
            print(f"tengen {ms} ms {i + 1}/{len(rows)}", file=sys.stderr, flush=True)
        # tengen reports its last completed iteration when it moves, so
        # its growth per depth is read from the fixed-depth runs above.
        print(f"tengen, one {ms} ms turn, {len(rows)} openings: depth reached median "
              f"{statistics.median(depths)} (from {min(depths)} to {max(depths)}), nodes median "
              f"{statistics.median(nodes):.0f}")


if __name__ == "__main__":
    main()
