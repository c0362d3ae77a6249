"""Pairs every round of TRF files with caissify-pairings' FIDE Dutch engine.

The oracle of tests/it/swiss_oracle.rs: an implementation of the Dutch
system independent of dopis's (caissify-pairings, from PyPI). Reads one JSON
line per tournament on stdin, {"trf": "<the TRF text>"}, and answers one
JSON line: {"rounds": [{"round": r, "games": [[white, black], ...],
"bye": n or null, "error": text or null}, ...]}, pairing each round from
the TRF's rounds before it, as a pairing checker does.

caissify's engine is stateless: its README ("Caller responsibilities")
leaves the players' histories to the caller. They are derived here from
the TRF read by caissify's own parser, by the rule texts, not by dopis's
code:

- score: the points of the rounds before (1, 1/2, 0; a pairing-allocated
  bye and a full-point bye a win, a half-point bye a draw);
- colour history: the colours of games played over the board only, in
  order (C.04.2 3.4: unplayed rounds are left out);
- float history, one entry per round (C.04.3 1.4): a game between
  different scores is a downfloat for the higher and an upfloat for the
  lower; a round scoring more than a loss without playing (the bye, a
  forfeit won, a half- or full-point bye) is a downfloat (1.4.3); nothing
  else floats (1.4.4);
- bye_count: pairing-allocated byes received; forfeit_win_count: rounds
  scoring a win's points without playing (forfeits won, full-point byes),
  which [C2] (C.04.1 Article 4) bars from the bye as the engine's
  is_bye_eligible reads them;
- previous pairings: games played over the board (C.04.1 Article 2: a
  forfeit is no game, the two may still meet);
- pairing numbers: the players' places in the TRF among those who are in
  the tournament by this round (a late entrant is numbered from the round
  they join; their rating places them, C.04.2 Article 2);
- the players of round r: those whose round-r entry is a game or the
  pairing-allocated bye (an absence or a requested bye is decided before
  pairing, as caissify's checker also treats them).
"""

import json
import sys

from caissify_pairings.engines.dutch import DutchEngine
from caissify_pairings.trf import TRFParser

WIN_CODES = ("1", "+", "W")
DRAW_CODES = ("=", "D")
PLAYED_CODES = ("1", "0", "=", "W", "L", "D")


def points(entry):
    """The points of one round's entry (as caissify's parser reads it)."""
    if entry is None:
        return 0.0
    res = entry.get("result", "")
    if entry.get("opponent") is None:
        return {"U": 1.0, "+": 1.0, "F": 1.0, "H": 0.5, "=": 0.5}.get(res, 0.0)
    if res in WIN_CODES:
        return 1.0
    if res in DRAW_CODES:
        return 0.5
    return 0.0


def is_pab(entry):
    return entry is not None and entry.get("opponent") is None and entry.get("result") in ("U", "+")


def paired(entry):
    return entry is not None and (entry.get("opponent") is not None or is_pab(entry))


def played(entry):
    return entry is not None and entry.get("opponent") is not None and entry.get("result") in PLAYED_CODES


def pair_round(players, tournament, initial_color, rnd):
    results = {p["starting_number"]: p["results"] for p in players}
    score_before = {}
    for sn, res in results.items():
        total, after = 0.0, [0.0]
        for r in range(1, rnd):
            total += points(res.get(r))
            after.append(total)
        score_before[sn] = after  # after[k]: score after k rounds
    active = [p for p in players if paired(p["results"].get(rnd))]
    in_tournament = [
        p for p in players
        if paired(p["results"].get(rnd)) or any(paired(p["results"].get(r)) for r in range(1, rnd))
    ]
    number = {p["starting_number"]: i + 1 for i, p in enumerate(sorted(in_tournament, key=lambda p: p["starting_number"]))}
    engine_players = []
    for p in active:
        sn = p["starting_number"]
        res = p["results"]
        colours, floats = [], []
        byes = forfeit_wins = 0
        for r in range(1, rnd):
            e = res.get(r)
            if played(e):
                colours.append("white" if e["color"] == "w" else "black")
                mine = score_before[sn][r - 1]
                theirs = score_before[e["opponent"]][r - 1]
                floats.append("down" if mine > theirs else "up" if mine < theirs else "none")
            else:
                floats.append("down" if points(e) > 0 else "none")
                if is_pab(e):
                    byes += 1
                elif points(e) >= 1.0:
                    forfeit_wins += 1
        engine_players.append({
            "id": sn,
            "name": p.get("name", ""),
            "score": score_before[sn][rnd - 1],
            "rating": p.get("rating", 0),
            "starting_number": sn,
            "pairing_number": number[sn],
            "color_hist": colours,
            "float_history": floats,
            "bye_count": byes,
            "forfeit_win_count": forfeit_wins,
        })
    previous = set()
    for p in players:
        for r in range(1, rnd):
            e = p["results"].get(r)
            if played(e):
                a, b = p["starting_number"], e["opponent"]
                previous.add((min(a, b), max(a, b)))
    engine = DutchEngine(
        players=engine_players,
        previous_pairings=previous,
        round_number=rnd,
        total_rounds=tournament.get("total_rounds") or rnd,
        initial_color=initial_color,
    )
    games, bye = [], None
    for row in engine.generate_pairings():
        if row.get("bye") or row.get("black_id") is None:
            bye = row["white_id"]
        else:
            games.append([row["white_id"], row["black_id"]])
    return games, bye


def check(trf_text):
    parsed = TRFParser(trf_text).parse()
    tournament, players = parsed["tournament"], parsed["players"]
    method = tournament.get("color_method", "")
    initial_color = "black" if "black1" in method else "white"
    last = max((r for p in players for r in p["results"] if paired(p["results"][r])), default=0)
    rounds = []
    for rnd in range(1, last + 1):
        try:
            games, bye = pair_round(players, tournament, initial_color, rnd)
            rounds.append({"round": rnd, "games": games, "bye": bye, "error": None})
        except Exception as exc:  # the oracle's failure is reported, not hidden
            rounds.append({"round": rnd, "games": [], "bye": None, "error": repr(exc)})
    return {"rounds": rounds}


def main():
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        request = json.loads(line)
        try:
            answer = check(request["trf"])
        except Exception as exc:
            answer = {"rounds": [], "error": repr(exc)}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
