"""Chuche's observation: the layout, the seat rotation and the reference builder.

The observation is kept *incrementally* in ``state.pub`` by the rules'
mutators: the public part (absolute seats) followed by one private hand block
per seat. An observation is one gather, ``pub[rot[p]]``: the public part rotated
to the observer plus the observer's own hand block (the others' blocks are never
gathered). ``public_vector`` rebuilds ``pub`` from scratch: ``check_invariants``
compares the two, so the incremental bookkeeping is fuzzed by the conformance suite.
"""

from __future__ import annotations

from array import array

import numpy as np

from baralho.core.spaces import ObsLayout
from baralho.envs.chuche.cards import (
    BACK_VALUES,
    CHUCHE_COUNTS,
    COLOUR,
    FRONT,
    KIND,
    NUM_CHUCHE,
    NUM_COLOURS,
    NUM_KINDS,
    POINTS,
    SCORE_KIND,
    chuche_points,
)

PHASES = ("turn", "capture", "bloqueio window", "roubar: escudo?", "bomba")
MAIN, CAPTURE, BLOQ_WINDOW, ROUBAR_WINDOW, BOMBA_ROUND = range(5)
CARD_ROW = 6 + 6 + len(BACK_VALUES)       # colour one-hot, front one-hot, back one-hot
ROUND_POINTS_HIGH = 200                   # > every card and Chuche card to one player
# Fields holding one row per seat: rotated so that the observer is row 0.
PER_SEAT = ("blocked", "turn_player", "hand_size", "hand_backs", "chuche_held",
            "chuche_won", "captured", "round_points", "scores")


def build_layout(n: int, num_cards: int, max_rounds: int) -> ObsLayout:
    L = ObsLayout()
    L.add("hand", (3, CARD_ROW), doc="own hand by slot: colour (6), front 1-6 (6), back 6-10 (5), one-hot")
    L.add("capture_card", CARD_ROW, doc="the hand card of the capture being built (shown face up)")
    L.add("capture_selected", NUM_KINDS, high=2, doc="table cards added to that capture, by kind")
    L.add("capture_sum", 1, high=11, doc="hand card + added table cards")
    L.add("table", NUM_KINDS, high=2, doc="unblocked table cards by kind (colour*6 + front-1)")
    L.add("blocked", (n, NUM_KINDS), high=2, doc="table cards reserved by each seat, by kind")
    L.add("target", len(BACK_VALUES), doc="target total 6-10, one-hot (7 once the stock is empty)")
    L.add("stock_size", 1, high=num_cards, doc="cards left in the stock")
    L.add("colours", NUM_COLOURS, doc="colours in this deck")
    L.add("gone", NUM_KINDS, high=2, doc="cards captured this round (by anyone), by kind")
    L.add("phase", len(PHASES), doc="one-hot: " + ", ".join(PHASES))
    L.add("chuche_played", 1, doc="the turn player has used their one Chuche card this turn")
    L.add("chuche_deck", 1, high=NUM_CHUCHE, doc="Chuche cards left to win")
    L.add("turn_player", n, doc="whose turn it is (one-hot by seat)")
    L.add("hand_size", n, high=3, doc="cards in each hand")
    L.add("hand_backs", (n, len(BACK_VALUES)), high=3, doc="public backs of each hand, counts of 6..10")
    L.add("chuche_held", (n, len(CHUCHE_COUNTS)), high=max(CHUCHE_COUNTS),
          doc="unused Chuche cards (face up): Coringa, Roubar, Bomba, Bloqueio, Escudo")
    L.add("chuche_won", n, high=NUM_CHUCHE, doc="Chuche cards won this round (used or not)")
    L.add("captured", (n, 4), high=num_cards, doc="captured cards: red 5, other 5s, other reds, the rest")
    L.add("round_points", n, high=ROUND_POINTS_HIGH, doc="points of this round so far")
    L.add("scores", n, high=ROUND_POINTS_HIGH * max_rounds, doc="match totals of the finished rounds")
    L.add("rounds_played", 1, high=max_rounds, doc="finished rounds")
    return L.freeze()


def rotations(layout: ObsLayout, n: int) -> list[np.ndarray]:
    """Index arrays: ``pub[rot[p]]`` is seat p's observation (its rows first, its hand)."""
    out = []
    hand = layout.fields["hand"]
    for p in range(n):
        idx = np.arange(layout.size)
        idx[hand.start:hand.stop] = private_offset(layout, p) + np.arange(hand.stop - hand.start)
        for name in PER_SEAT:
            f = layout.fields[name]
            w = (f.stop - f.start) // n
            for j in range(n):
                src = f.start + ((p + j) % n) * w
                idx[f.start + j * w:f.start + (j + 1) * w] = np.arange(src, src + w)
        out.append(idx)
    return out


def _card_rows() -> np.ndarray:
    rows = np.zeros((len(COLOUR), len(BACK_VALUES), CARD_ROW), np.float32)
    for c in range(len(COLOUR)):
        for i in range(len(BACK_VALUES)):
            rows[c, i, COLOUR[c]] = 1
            rows[c, i, 6 + FRONT[c] - 1] = 1
            rows[c, i, 12 + i] = 1
    return rows


_ROWS = _card_rows()


_ROW_LISTS = [row.tolist() for row in _ROWS.reshape(-1, CARD_ROW)]   # by 5 * card + back - 6


def card_row(c: int, back: int) -> np.ndarray:
    """The observation row of card ``c`` with back ``back`` (hand slots, capture card)."""
    return _ROWS[c, back - 6]


def private_offset(layout: ObsLayout, p: int) -> int:
    """Where seat p's hand block starts in ``state.pub``."""
    return layout.size + p * 3 * CARD_ROW


def public_vector(game, s) -> array:
    """``state.pub`` built from scratch: the public part (absolute seats), then the hands."""
    L, n, o = game.obs_layout, game.num_players, game._o
    v = [0.0] * (L.size + n * 3 * CARD_ROW)   # plain list: this runs in every check_invariants call
    back = s.back
    for p in range(n):
        at = private_offset(L, p)
        for c in s.hands[p]:
            v[at:at + CARD_ROW] = _ROW_LISTS[5 * c + back[c] - 6]
            at += CARD_ROW
    if s.cap_card >= 0:
        at = o["capture_card"]
        v[at:at + CARD_ROW] = _ROW_LISTS[5 * s.cap_card + back[s.cap_card] - 6]
        at = o["capture_selected"]
        for c in s.cap_sel:
            v[at + KIND[c]] += 1
        v[o["capture_sum"]] = s.cap_sum
    table, blocked = o["table"], o["blocked"]
    for c in s.table:
        if s.owner[c] < 0:
            v[table + KIND[c]] += 1
        else:
            v[blocked + NUM_KINDS * s.owner[c] + KIND[c]] += 1
    v[o["target"] + game.target(s) - 6] = 1
    v[o["stock_size"]] = len(s.stock)
    for col in s.colours:
        v[o["colours"] + col] = 1
    v[o["phase"] + s.phase] = 1
    v[o["chuche_played"]] = float(s.chuche_played)
    v[o["chuche_deck"]] = len(s.chuche_deck)
    v[o["turn_player"] + s.turn] = 1
    hand_size, hand_backs, held, won_at = o["hand_size"], o["hand_backs"], o["chuche_held"], o["chuche_won"]
    captured, gone, points, scores = o["captured"], o["gone"], o["round_points"], o["scores"]
    for p in range(n):
        v[hand_size + p] = len(s.hands[p])
        for c in s.hands[p]:
            v[hand_backs + 5 * p + back[c] - 6] += 1
        v[held + 5 * p:held + 5 * p + 5] = s.held[p]
        won = sum(s.held[p]) + sum(s.used[p])
        v[won_at + p] = won
        pts = chuche_points(won)
        for c in s.piles[p]:
            v[captured + 4 * p + SCORE_KIND[c]] += 1
            v[gone + KIND[c]] += 1
            pts += POINTS[c]
        v[points + p] = pts
        v[scores + p] = s.scores[p]
    v[o["rounds_played"]] = s.rounds_played
    return array("f", v)
