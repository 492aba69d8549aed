"""Hand-built Chuche positions for the rules tests."""

from __future__ import annotations

import numpy as np

from baralho.envs.chuche.cards import BACKS_PER_COLOUR, CHUCHE_COUNTS, PER_COLOUR
from baralho.envs.chuche.observation import MAIN
from baralho.envs.chuche.rules import ChucheGame, ChucheState, Config

VM, LA, AM, VD, AZ, RX = range(6)
_FRONTS = [1, 1, 2, 2, 3, 3, 4, 5, 6]


def card(colour: int, front: int, copy: int = 0) -> int:
    """The id of a number card: ``card(VM, 5)`` is the red 5."""
    return colour * PER_COLOUR + [j for j, f in enumerate(_FRONTS) if f == front][copy]


def position(n: int = 2, hands=None, table=(), stock=(), target: int | None = None,
             held=None, used=None, owner=None, piles=None, turn: int = 0, scores=None,
             rounds_played: int = 0, chuche_deck=None, backs=None, **cfg):
    """A state in the turn phase of seat ``turn``; unnamed cards are out of play
    (discarded). ``target`` sets the back of the stock's top card."""
    game = ChucheGame(Config(num_players=n, **cfg))
    colours = tuple(range(game.num_colours))
    in_play = tuple(c * PER_COLOUR + j for c in colours for j in range(PER_COLOUR))
    back = [0] * (6 * PER_COLOUR)
    for c in in_play:
        back[c] = BACKS_PER_COLOUR[c % PER_COLOUR]
    for c, b in (backs or {}).items():
        back[c] = b
    stock = list(stock)
    if target is not None:
        back[stock[-1]] = target
    hands = [sorted(h) for h in (hands or [[] for _ in range(n)])]
    table = list(table)
    piles = [list(p) for p in (piles or [[] for _ in range(n)])]
    held = [list(h) for h in (held or [[0] * 5 for _ in range(n)])]
    used = [list(u) for u in (used or [[0] * 5 for _ in range(n)])]
    if chuche_deck is None:
        chuche_deck = []
        for t, k in enumerate(CHUCHE_COUNTS):
            chuche_deck += [t] * (k - sum(h[t] for h in held) - sum(u[t] for u in used))
    placed = {c for h in hands for c in h} | set(table) | set(stock) | {c for p in piles for c in p}
    discard = [c for c in in_play if c not in placed]
    own = [-1] * (6 * PER_COLOUR)
    for c, p in (owner or {}).items():
        own[c] = p
    s = ChucheState(colours, in_play, tuple(back), hands, stock, table, own, piles, discard,
                    list(chuche_deck), held, used, turn, turn, MAIN, False, -1, [], 0, [], 0, 0,
                    list(scores or [0] * n), rounds_played, 0, 0, False, [0.0] * n, 12345, 0,
                    sum(1 for c in table if own[c] < 0))
    game.check_invariants(s)
    return game, s


def chuche(coringa=0, roubar=0, bomba=0, bloqueio=0, escudo=0) -> list[int]:
    return [coringa, roubar, bomba, bloqueio, escudo]


def legal(game, s) -> set[int]:
    return {int(a) for a in np.flatnonzero(game.legal_mask(s))}


def play(game, s, *actions):
    """Apply legal actions (each must be in the mask), checking invariants; the compiled
    engine plays every action beside the reference and must agree (see ``twin_step``)."""
    r = None
    for a in actions:
        assert game.legal_mask(s)[a], f"{a} ({game.describe_action(s, a)}) not legal:\n{game.render_text(s)}"
        assert (game.legal_mask(s) == game.reference_legal_mask(s)).all()
        twin = compiled(game).from_reference(s)
        r = game.apply(s, a)
        game.check_invariants(s)
        twin_step(game, s, twin, a, r)
    return r


def compiled(game):
    """The compiled engine (fast.py) over this reference game."""
    from baralho.core.compiled import CompiledGame
    from baralho.envs.chuche import fast

    return CompiledGame(game, fast)


def twin_step(game, s, twin, a: int, r) -> None:
    """Step the compiled ``twin`` of the state before ``a`` and check it reached ``s``:
    the same state, player to act, mask, every seat's observation and rewards."""
    c = compiled(game)
    r2 = c.apply(twin, a)
    assert c.to_reference(twin) == s, f"compiled state after {a} ({game.describe_action(s, a)}) differs"
    assert c.current_player(twin) == game.current_player(s)
    assert np.array_equal(c.legal_mask(twin), game.legal_mask(s)), \
        (np.flatnonzero(c.legal_mask(twin)), np.flatnonzero(game.legal_mask(s)))
    for p in range(game.num_players):
        assert np.array_equal(c.observe(twin, p), game.observe(s, p)), f"compiled observation of seat {p}"
    assert (r is None) == (r2 is None) and (r is None or np.array_equal(np.float32(r), np.float32(r2)))
