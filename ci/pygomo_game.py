"""Plays complete games between two instances of the release binary,
driven by an outside Gomocup client (the pygomo-lib package), and checks
every move with pygomo's own board. Exit status 1 on any illegal move,
missing reply or unfinished game."""

import sys
import time

from pygomo import BitBoard, EngineClient, Move


def play(engine_path: str, size: int, turn_ms: int) -> int:
    board = BitBoard(size)
    with EngineClient(engine_path) as black, EngineClient(engine_path) as white:
        for e in (black, white):
            if not e.start(board_size=size):
                print("START failed", file=sys.stderr)
                return 1
            e.set_time(turn_time_ms=turn_ms, match_time_ms=0)
            e.set_memory(350 * 1024 * 1024)
        about = black.about()
        print(f"engine: {about}")
        players = [black, white]
        last = None
        worst = 0.0
        while True:
            side = board.move_count % 2
            t = time.monotonic()
            result = players[side].begin() if last is None else players[side].turn(last)
            worst = max(worst, time.monotonic() - t)
            if result is None or result.move is None:
                print(f"no reply at move {board.move_count + 1}", file=sys.stderr)
                return 1
            move = Move(result.move.to_tuple())
            if not board.is_valid(move) or not board.is_empty(move):
                print(f"illegal move {move} at move {board.move_count + 1}", file=sys.stderr)
                return 1
            board.place(move)
            if board.check_win(move):
                print(f"{'black' if side == 0 else 'white'} wins by five after {board.move_count} moves; "
                      f"slowest reply {worst * 1000:.0f} ms")
                return 0
            if board.is_full():
                print(f"draw: full board after {board.move_count} moves")
                return 0
            last = move


if __name__ == "__main__":
    path = sys.argv[1] if len(sys.argv) > 1 else "target/release/pbrain-tengen"
    sys.exit(play(path, 15, 200))
