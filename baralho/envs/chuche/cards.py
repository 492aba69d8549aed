"""Chuche's cards: the deck data (deck.json), card tables and the subset-sum helper.

A number card is an id ``0..53``: ``colour * 9 + j`` where ``j`` indexes the
per-colour front list. Its *kind* is ``colour * 6 + front - 1`` (36 kinds): two
cards of one kind differ only by their back, which nobody sees on the table.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

_DATA = json.loads(Path(__file__).with_name("deck.json").read_text(encoding="utf-8"))

COLOURS: tuple[str, ...] = tuple(_DATA["colours"])
COLOUR_SHORT = ("Vm", "La", "Am", "Vd", "Az", "Rx")
RED = 0
PER_COLOUR = len(_DATA["fronts"])
NUM_COLOURS = len(COLOURS)
NUM_CARDS = NUM_COLOURS * PER_COLOUR
NUM_KINDS = NUM_COLOURS * 6
BACK_VALUES = (6, 7, 8, 9, 10)
BACKS_PER_COLOUR: tuple[int, ...] = tuple(_DATA["backs"])
EXTRA_COLOURS: dict[int, int] = {int(k): v for k, v in _DATA["extra_colours"].items()}
GOALS: dict[int, int] = {int(k): v for k, v in _DATA["goals"].items()}
LAST_TARGET: int = _DATA["last_target"]
MAX_SUM = max(BACK_VALUES) + 1          # a Coringa can ask for target + 1

FRONT: tuple[int, ...] = tuple(_DATA["fronts"][c % PER_COLOUR] for c in range(NUM_CARDS))
COLOUR: tuple[int, ...] = tuple(c // PER_COLOUR for c in range(NUM_CARDS))
KIND: tuple[int, ...] = tuple(COLOUR[c] * 6 + FRONT[c] - 1 for c in range(NUM_CARDS))
KIND_FRONT: tuple[int, ...] = tuple(k % 6 + 1 for k in range(NUM_KINDS))
KIND_COLOUR: tuple[int, ...] = tuple(k // 6 for k in range(NUM_KINDS))

# Scoring kinds: red 5 = 5, other 5s = 4, other reds = 3, the rest 1.
SCORE_KINDS = ("red 5", "other 5", "other red", "other")
SCORE_KIND_POINTS = (5, 4, 3, 1)


def _score_kind(colour: int, front: int) -> int:
    if front == 5:
        return 0 if colour == RED else 1
    return 2 if colour == RED else 3


SCORE_KIND: tuple[int, ...] = tuple(_score_kind(COLOUR[c], FRONT[c]) for c in range(NUM_CARDS))
POINTS: tuple[int, ...] = tuple(SCORE_KIND_POINTS[k] for k in SCORE_KIND)
KIND_POINTS: tuple[int, ...] = tuple(
    SCORE_KIND_POINTS[_score_kind(k // 6, k % 6 + 1)] for k in range(NUM_KINDS))

# Chuche (action) cards: types 0..4.
CHUCHE_NAMES: tuple[str, ...] = tuple(_DATA["chuche"])
CHUCHE_COUNTS: tuple[int, ...] = tuple(_DATA["chuche"].values())
CORINGA, ROUBAR, BOMBA, BLOQUEIO, ESCUDO = range(5)
NUM_CHUCHE = sum(CHUCHE_COUNTS)


def chuche_points(won: int) -> int:
    """Chuche cards: 2 points each, 4 each once a player holds 3 or more."""
    return won * (4 if won >= 3 else 2)


def card_name(c: int) -> str:
    return f"{FRONT[c]}{COLOUR_SHORT[COLOUR[c]]}"


def kind_name(k: int) -> str:
    return f"{KIND_FRONT[k]}{COLOUR_SHORT[KIND_COLOUR[k]]}"


def colours_in_play(extra: tuple[int, ...]) -> tuple[int, ...]:
    return (RED, *sorted(extra))


@cache
def reachable(counts: tuple[int, ...]) -> int:
    """Bitmask of the sums <= MAX_SUM reachable by a sub-multiset of table values.

    ``counts[v - 1]`` is the number of usable table cards with front ``v``. Bit
    ``s`` is set when some sub-multiset sums to ``s`` (bit 0: the empty one).
    """
    full = (1 << (MAX_SUM + 1)) - 1
    r = 1
    for v, n in enumerate(counts, start=1):
        for _ in range(n):
            r = (r | (r << v)) & full
    return r


# Capped value counts: more copies of value v than MAX_SUM // v never matter in a sum.
VALUE_CAP: tuple[int, ...] = tuple(MAX_SUM // v for v in range(1, 7))
_SUMS: dict[tuple[int, ...], tuple[int, tuple[int, ...]]] = {}


def table_sums(counts: tuple[int, ...]) -> tuple[int, tuple[int, ...]]:
    """(reachable sums, reachable sums of the others once one card of value v is used,
    for v = 1..6) of a table with these capped value counts; memoised (few keys)."""
    entry = _SUMS.get(counts)
    if entry is None:
        minus = tuple(reachable(counts[:v] + (counts[v] - 1,) + counts[v + 1:]) if counts[v] else 0
                      for v in range(6))
        _SUMS[counts] = entry = (reachable(counts), minus)
    return entry
