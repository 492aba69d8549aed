"""Hand-built Scala 40 positions for the rules tests.

Cards are written ``"7h"``, ``"10s"``, ``"Qd"``, ``"Ac"``; ``"JK"`` is a joker.
Every card not placed explicitly goes to the stock, so positions conserve cards.
"""

from __future__ import annotations

import numpy as np

from baralho.envs.scala40 import actions as A
from baralho.envs.scala40.melds import JOKER, NUM_KINDS, parse_group
from baralho.envs.scala40.rules import DRAW, PLAY, Config, Scala40Game, Scala40State

SUIT = {"s": 0, "h": 1, "d": 2, "c": 3}
RANK = {"A": 0, "J": 10, "Q": 11, "K": 12}


def card(text: str) -> int:
    if text == "JK":
        return JOKER
    r, s = text[:-1], text[-1]
    return SUIT[s] * 13 + (RANK[r] if r in RANK else int(r) - 1)


def cards(text: str) -> list[int]:
    return [card(t) for t in text.split()]


def counts(text: str) -> list[int]:
    c = [0] * NUM_KINDS
    for k in cards(text):
        c[k] += 1
    return c


def meld(text: str, joker_as: str | None = None) -> tuple:
    """The meld tuple for these cards (naming the joker's stand-in when ambiguous)."""
    opts = parse_group(cards(text))
    if joker_as is not None:
        k = card(joker_as)
        from baralho.envs.scala40.melds import joker_standin
        opts = [m for m in opts if joker_standin(m) == k]
    assert len(opts) >= 1, f"{text} is not a meld"
    return opts[-1]


def position(game: Scala40Game, hands: dict[int, str], *, discard: str = "", melds=(), player: int = 0,
             phase: int = PLAY, turn: int = 5, opened=(), stock: str | None = None, pending: str = "",
             totals=None, eliminated=(), was_open: bool | None = None, known: dict | None = None) -> Scala40State:
    """A state with the given hands, table and pile; the rest of the deck is the stock."""
    n = game.num_players
    rng = np.random.default_rng(0)
    s = game.new_state(rng)
    s.hands = [counts(hands.get(i, "")) for i in range(n)]
    s.hand_size = [sum(h) for h in s.hands]
    s.known = [[0] * NUM_KINDS for _ in range(n)]
    for i, text in (known or {}).items():
        s.known[i] = counts(text)
    s.melds = list(melds)
    s.discard = cards(discard)
    s.pending = cards(pending)
    left = [2] * 52 + [game.config.num_jokers]
    for h in s.hands:
        for k in range(NUM_KINDS):
            left[k] -= h[k]
    for k in s.discard + s.pending:
        left[k] -= 1
    from baralho.envs.scala40.melds import meld_cards
    for m in s.melds:
        for k in meld_cards(m):
            left[k] -= 1
    assert min(left) >= 0, "position uses a card more often than the deck holds"
    if stock is None:
        s.stock = [k for k in range(NUM_KINDS) for _ in range(left[k])]
        rng.shuffle(s.stock)
    else:
        s.stock = cards(stock)
        placed = [0] * NUM_KINDS
        for k in s.stock:
            placed[k] += 1
        extra = [k for k in range(NUM_KINDS) for _ in range(left[k] - placed[k])]
        # cards nobody should see go to the bottom of the discard pile
        s.discard = extra + s.discard
    s.player = player
    s.phase = phase
    s.turn = turn
    s.opened = [i in opened for i in range(n)]
    s.eliminated = [i in eliminated for i in range(n)]
    s.totals = list(totals) if totals is not None else [0] * n
    s.was_open = s.opened[player] if was_open is None else was_open
    s.staged = s.staged_value = 0
    s.obligation, s.took, s.ob_used, s.undos = -1, -1, False, 1
    s.stock_hidden = True
    game._sync(s)
    game.check_invariants(s)
    return s


def legal(game, s) -> set[int]:
    return set(int(a) for a in np.flatnonzero(game.legal_mask(s)))


def play(game, s, *acts: int):
    """Apply actions, each checked against the mask; returns the last rewards."""
    r = None
    for a in acts:
        assert game.legal_mask(s)[a], f"{game.describe_action(s, a)} is not legal; legal: " + ", ".join(
            game.describe_action(s, b) for b in sorted(legal(game, s)))
        r = game.apply(s, a)
        game.check_invariants(s)
    return r


def sel(text: str) -> list[int]:
    return [A.SELECT + k for k in cards(text)]


def disc(text: str) -> int:
    return A.DISCARD + card(text)


__all__ = ["A", "Config", "DRAW", "PLAY", "Scala40Game", "card", "cards", "counts", "disc", "legal",
           "meld", "play", "position", "sel"]
