#!/usr/bin/env python3
"""Prints the openings of BOOK (pos notation, one a line) that are new up
to the board's eight symmetries: not seen earlier in BOOK, nor in any
EXCLUDE book. Comment lines (#) are skipped. Used to join the parts of an
outside-judged book (Rapfi's opengen) and to keep them apart from others.

    scripts/book-dedupe.py SIZE BOOK [EXCLUDE...] > new.pos.txt
"""
import re
import sys


def moves(line):
    return [(ord(m[0]) - 97, int(m[1:]) - 1) for m in re.findall(r"[a-z]\d+", line)]


def canonical(ms, n):
    """The smallest (black stones, white stones) over the symmetries."""
    best = None
    for k in range(8):
        def t(p):
            x, y = p
            for _ in range(k % 4):
                x, y = y, n - 1 - x
            return (n - 1 - x, y) if k >= 4 else (x, y)
        key = (tuple(sorted(map(t, ms[0::2]))), tuple(sorted(map(t, ms[1::2]))))
        if best is None or key < best:
            best = key
    return best


def openings(path):
    with open(path) as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                yield line.strip()


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    n = int(sys.argv[1])
    seen = {canonical(moves(l), n) for p in sys.argv[3:] for l in openings(p)}
    kept = 0
    for line in openings(sys.argv[2]):
        c = canonical(moves(line), n)
        if c not in seen:
            seen.add(c)
            kept += 1
            print(line)
    print(f"{kept} kept", file=sys.stderr)


if __name__ == "__main__":
    main()
