#!/usr/bin/env python3
"""What dopis's endgame tables say, against python-chess's own Syzygy reader.

Random legal positions of every material the tables folder holds (both
sides to move, en passant squares where pawns allow, 50-move counters above
zero), each probed by `dopis tablebase probe --batch` and by python-chess's
`chess.syzygy` (probe_wdl, probe_dtz): every WDL and DTZ must be equal, and
a position one reader refuses the other refuses too.

usage: compare.py DOPIS TABLES [--per-table N] [--seed S]
Prints 'tablebase comparison: N positions, N agree, K refused by both' and
exits 1 on the first differences (up to 20 shown).
"""
import argparse
import json
import os
import random
import subprocess
import sys

import chess
import chess.syzygy

PIECES = {"K": chess.KING, "Q": chess.QUEEN, "R": chess.ROOK, "B": chess.BISHOP, "N": chess.KNIGHT, "P": chess.PAWN}


def materials(folder):
    names = set()
    for f in os.listdir(folder):
        stem, ext = os.path.splitext(f)
        if ext == ".rtbw" and os.path.exists(os.path.join(folder, stem + ".rtbz")):
            names.add(stem)
    return sorted(names)


def random_position(rng, name):
    white, black = name.split("v")
    # Where both sides have a pawn, half the positions are just after a
    # double step that can be taken en passant.
    wants_ep = "P" in white and "P" in black and rng.random() < 0.5
    for _ in range(10000):
        board = chess.Board(None)
        taken = set()
        if wants_ep:
            turn = rng.choice([chess.WHITE, chess.BLACK])
            file = rng.randrange(8)
            side = rng.choice([f for f in (file - 1, file + 1) if 0 <= f < 8])
            rank = 4 if turn == chess.WHITE else 3
            step = 8 if turn == chess.WHITE else -8
            pushed = chess.square(file, rank)
            board.set_piece_at(pushed, chess.Piece(chess.PAWN, not turn))
            board.set_piece_at(chess.square(side, rank), chess.Piece(chess.PAWN, turn))
            taken |= {pushed, chess.square(side, rank), pushed + step, pushed + 2 * step}
            board.turn = turn
            ep = pushed + step
        else:
            board.turn = rng.choice([chess.WHITE, chess.BLACK])
            ep = None
        rest_white, rest_black = list(white), list(black)
        if wants_ep:
            (rest_white if board.turn == chess.WHITE else rest_black).remove("P")
            (rest_black if board.turn == chess.WHITE else rest_white).remove("P")
        free = [sq for sq in range(64) if sq not in taken]
        squares = rng.sample(free, len(rest_white) + len(rest_black))
        ok = True
        for letter, colour, sq in [(l, chess.WHITE, None) for l in rest_white] + [(l, chess.BLACK, None) for l in rest_black]:
            sq = squares.pop()
            if letter == "P" and chess.square_rank(sq) in (0, 7):
                ok = False
            board.set_piece_at(sq, chess.Piece(PIECES[letter], colour))
        if not ok:
            continue
        board.ep_square = ep
        board.halfmove_clock = 0 if ep is not None else rng.choice([0, 0, 1, 7, 30, 61])
        if not board.is_valid() or board.is_game_over():
            continue
        # Checks no move can give (two knights at once): python-chess calls
        # them valid, shakmaty illegal; no game reaches them. A double check
        # needs a discovered line piece.
        checkers = [board.piece_type_at(sq) for sq in board.checkers()]
        sliders = [p for p in checkers if p in (chess.BISHOP, chess.ROOK, chess.QUEEN)]
        if board.status() & chess.STATUS_IMPOSSIBLE_CHECK or (len(checkers) >= 2 and not sliders):
            continue
        if ep is not None and not board.has_legal_en_passant():
            continue
        return board
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dopis")
    ap.add_argument("tables")
    ap.add_argument("--per-table", type=int, default=80)
    ap.add_argument("--seed", type=int, default=26)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    boards = []
    for name in materials(args.tables):
        for _ in range(args.per_table):
            board = random_position(rng, name)
            if board is not None:
                boards.append(board)
    fens = [b.fen() for b in boards]
    run = subprocess.run(
        [args.dopis, "tablebase", "probe", "--batch", "--syzygy-path", args.tables],
        input="\n".join(fens) + "\n", capture_output=True, text=True, check=False,
    )
    if run.returncode != 0:
        print(f"dopis failed ({run.returncode}): {run.stderr}", file=sys.stderr)
        return 2
    answers = [json.loads(line) for line in run.stdout.splitlines() if line.strip()]
    if len(answers) != len(fens):
        print(f"dopis answered {len(answers)} lines for {len(fens)} positions", file=sys.stderr)
        return 2
    tb = chess.syzygy.open_tablebase(args.tables)
    agree = refused = 0
    differences = []
    ep = sum(1 for b in boards if b.ep_square is not None)
    for board, answer in zip(boards, answers):
        try:
            want = (tb.probe_wdl(board), tb.probe_dtz(board))
        except chess.syzygy.MissingTableError:
            want = None
        if answer.get("fen") != board.fen():
            differences.append(f"{board.fen()}: dopis answered for {answer.get('fen')}")
            continue
        got = None if "error" in answer else (answer["wdl"], answer["dtz"])
        if got == want:
            agree += 1
            refused += got is None
        else:
            differences.append(f"{board.fen()}: python-chess {want}, dopis {answer}")
    print(f"tablebase comparison: {len(boards)} positions ({len(materials(args.tables))} tables, {ep} with en passant), {agree} agree, {refused} refused by both")
    for d in differences[:20]:
        print("  differs:", d)
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
