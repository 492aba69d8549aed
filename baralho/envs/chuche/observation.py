"""Chuche's observation: the layout, its encoder, and what a player does not see.

``encode(game, state, player)`` writes the observation from scratch, seat-relative:
rows "by seat" put the observer first, then the others in play order.
``resample_hidden`` redraws everything the observer cannot know; the
conformance suite checks that the observation does not change under it.
"""

from __future__ import annotations

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
    SCORE_KINDS,
    chuche_points,
)

PHASES = ("turn", "capture", "bloqueio window", "roubar: escudo?", "bomba")
MAIN, CAPTURE, BLOQ_WINDOW, ROUBAR_WINDOW, BOMBA_ROUND = range(5)
CONT_MAIN, CONT_END = 0, 1                # what follows a Bloqueio window: the turn goes on, or ends
CARD_ROW = 6 + 6 + len(BACK_VALUES)       # colour one-hot, front one-hot, back one-hot
DTYPE = np.int16                          # scores reach 200 rounds x 137 points; the rest is small


def round_points_high(num_colours: int) -> int:
    """The most one player can score in a round: every card (red 29, each other colour
    12) and all 12 Chuche cards at 4 points."""
    return sum(POINTS[c] for c in range(9 * num_colours)) + chuche_points(NUM_CHUCHE)


def build_layout(n: int, num_colours: int, max_rounds: int) -> ObsLayout:
    """``max_rounds``: the match cap (1 in scope "round")."""
    num_cards = 9 * num_colours
    per_round = round_points_high(num_colours)
    L = ObsLayout(DTYPE)
    L.add("hand", (3, CARD_ROW), doc="own hand by slot: colour (6), front 1-6 (6), back 6-10 (5), one-hot")
    L.add("capture_card", CARD_ROW, doc="the hand card of the capture being built (shown face up)")
    L.add("capture_selected", NUM_KINDS, high=2, doc="table cards added to that capture, by kind")
    L.add("capture_sum", 1, high=11, doc="hand card + added table cards")
    L.add("must_use", NUM_KINDS, doc="the kind this turn's Escudo unblocked: the capture must still add it")
    L.add("table", NUM_KINDS, high=2, doc="unblocked table cards by kind (colour*6 + front-1)")
    L.add("blocked", (n, NUM_KINDS), high=2, doc="table cards reserved by each seat, by kind")
    L.add("target", len(BACK_VALUES), doc="target total 6-10, one-hot (7 once the stock is empty)")
    L.add("stock_size", 1, high=num_cards, doc="cards left in the stock")
    L.add("colours", NUM_COLOURS, doc="colours in this deck")
    L.add("gone", NUM_KINDS, high=2, doc="cards captured this round (by anyone), by kind")
    L.add("phase", len(PHASES), doc="one-hot: " + ", ".join(PHASES))
    L.add("chuche_played", 1, doc="the turn player has used their one Chuche card this turn")
    L.add("window_ends_turn", 1, doc="Bloqueio window: the turn ends after it (it follows a place)")
    L.add("bomba_placed", 1, high=n, doc="Bomba: cards placed under it so far (a Bloqueio window follows if any)")
    L.add("chuche_deck", 1, high=NUM_CHUCHE, doc="Chuche cards left to win")
    L.add("turn_player", n, doc="whose turn it is (one-hot by seat)")
    L.add("turn_order", n, high=n - 1, doc="each seat's place in this round's turn order (0: the round's first)")
    L.add("hand_size", n, high=3, doc="cards in each hand")
    L.add("hand_backs", (n, len(BACK_VALUES)), high=3, doc="public backs of each hand, counts of 6..10")
    L.add("chuche_held", (n, len(CHUCHE_COUNTS)), high=max(CHUCHE_COUNTS),
          doc="unused Chuche cards (face up): Coringa, Roubar, Bomba, Bloqueio, Escudo")
    L.add("chuche_used", (n, len(CHUCHE_COUNTS)), high=max(CHUCHE_COUNTS),
          doc="used Chuche cards by type (with chuche_held: what is left in the Chuche deck)")
    L.add("chuche_won", n, high=NUM_CHUCHE, doc="Chuche cards won this round (used or not)")
    L.add("captured", (n, 4), high=num_cards, doc="captured cards: red 5, other 5s, other reds, the rest")
    L.add("round_points", n, high=per_round, doc="points of this round so far")
    L.add("scores", n, high=per_round * max_rounds, doc="match totals of the finished rounds")
    L.add("rounds_played", 1, high=max_rounds, doc="finished rounds")
    L.add("rounds_left", 1, high=max_rounds, doc="rounds before the match cap (max_rounds), this one included")
    return L.freeze()


def card_row(c: int, back: int) -> np.ndarray:
    """The observation row of card ``c`` with back ``back`` (hand slots, capture card)."""
    row = np.zeros(CARD_ROW, np.int64)
    row[COLOUR[c]] = row[6 + FRONT[c] - 1] = row[12 + back - 6] = 1
    return row


def encode(game, s, player: int) -> np.ndarray:
    """``player``'s observation of ``s``: own hand, everything public, seat-relative.

    Written into a Python list at each field's offset (``at[name]``; a field of shape
    (rows, k) is row-major) and made an array once: the differential tests encode
    every step of thousands of games, and a numpy item write costs ten list writes."""
    L, n = game.obs_layout, game.num_players
    at = L.start
    o = [0] * L.size
    seats = [(player + j) % n for j in range(n)]                     # row j: j seats after the observer
    row = {q: j for j, q in enumerate(seats)}

    def card_row(base: int, c: int) -> None:                         # colour, front, back one-hot
        o[base + COLOUR[c]] = o[base + 6 + FRONT[c] - 1] = o[base + 12 + s.back[c] - 6] = 1

    for i, c in enumerate(s.hands[player]):
        card_row(at["hand"] + i * CARD_ROW, c)
    if s.cap_card >= 0:
        card_row(at["capture_card"], s.cap_card)
        for c in s.cap_sel:
            o[at["capture_selected"] + KIND[c]] += 1
        o[at["capture_sum"]] = s.cap_sum
    if s.must_use >= 0:
        o[at["must_use"] + s.must_use] = 1
    for c in s.table:
        if s.owner[c] < 0:
            o[at["table"] + KIND[c]] += 1
        else:
            o[at["blocked"] + row[s.owner[c]] * NUM_KINDS + KIND[c]] += 1
    o[at["target"] + game.target(s) - 6] = 1
    o[at["stock_size"]] = len(s.stock)
    for col in s.colours:
        o[at["colours"] + col] = 1
    o[at["phase"] + s.phase] = 1
    o[at["chuche_played"]] = int(s.chuche_played)
    o[at["window_ends_turn"]] = int(s.phase == BLOQ_WINDOW and s.cont == CONT_END)
    o[at["bomba_placed"]] = s.bomba_hits if s.phase == BOMBA_ROUND else 0
    o[at["chuche_deck"]] = len(s.chuche_deck)
    o[at["turn_player"] + row[s.turn]] = 1
    first = game.first_player(s)
    for j, q in enumerate(seats):
        o[at["hand_size"] + j] = len(s.hands[q])
        for c in s.hands[q]:
            o[at["hand_backs"] + j * len(BACK_VALUES) + s.back[c] - 6] += 1
        o[at["turn_order"] + j] = (q - first) % n
        k = len(CHUCHE_COUNTS)
        o[at["chuche_held"] + j * k:at["chuche_held"] + (j + 1) * k] = s.held[q]
        o[at["chuche_used"] + j * k:at["chuche_used"] + (j + 1) * k] = s.used[q]
        won = game.won(s, q)
        o[at["chuche_won"] + j] = won
        for c in s.piles[q]:
            o[at["captured"] + j * len(SCORE_KINDS) + SCORE_KIND[c]] += 1
            o[at["gone"] + KIND[c]] += 1
        o[at["round_points"] + j] = sum(POINTS[c] for c in s.piles[q]) + chuche_points(won)
        o[at["scores"] + j] = s.scores[q]
    o[at["rounds_played"]] = s.rounds_played
    o[at["rounds_left"]] = game.max_rounds - s.rounds_played
    return np.array(o, L.dtype)


def resample_hidden(game, s, player: int, rng: np.random.Generator):
    """Redraw what ``player`` cannot see: the fronts of the other hands (their
    backs are public), the stock order (its top back is public: the target), the
    Chuche deck order and the in-state generator. The card being captured is
    face up and stays."""
    t = s.copy()
    if s.over:
        return t
    n = game.num_players
    others = [q for q in range(n) if q != player]
    # Canonical pool (sorted), so that the draw depends only on what the player knows.
    pool: dict[int, list[int]] = {}
    for c in sorted([c for q in others for c in s.hands[q]] + s.stock):
        pool.setdefault(s.back[c], []).append(c)
    for b in sorted(pool):
        rng.shuffle(pool[b])
    for q in others:
        t.hands[q] = sorted(pool[b].pop() for b in sorted(s.back[c] for c in s.hands[q]))
    top = [pool[game.target(s)].pop()] if s.stock else []
    rest = sorted(c for cards in pool.values() for c in cards)
    rng.shuffle(rest)
    t.stock = rest + top
    t.chuche_deck = sorted(t.chuche_deck)
    rng.shuffle(t.chuche_deck)
    t.seed, t.draws = int(rng.integers(2**63)), 0
    return t
