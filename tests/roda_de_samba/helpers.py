"""Hand-built Roda de Samba positions for the rules tests.

``table(game, ...)`` builds a consistent state from card names (the names
``Deck.kind_name`` prints: ``"violao 3"``, ``"frigideira (corda)"``,
``"malandro"``); every card not placed explicitly goes to the bottom of the
deck (or, with ``park=seat``, into that seat's hand). ``do(game, s, text)``
plays the legal action whose description starts with ``text``.
"""

from __future__ import annotations

import numpy as np

from baralho.envs.roda_de_samba.actions import PH_DRAW
from baralho.envs.roda_de_samba.cards import SPACES
from baralho.envs.roda_de_samba.checks import check_observation
from baralho.envs.roda_de_samba.rules import Config, RodaDeSambaGame


def game_for(n: int = 2, **cfg) -> RodaDeSambaGame:
    return RodaDeSambaGame(Config(num_players=n, **cfg))


def kind(game, name: str) -> int:
    d = game.deck
    for k in range(d.num_kinds):
        if d.kind_name(k) == name:
            return k
    raise KeyError(name)


def sambista(game, name: str) -> int:
    return [sb.name for sb in game.deck.sambistas].index(name)


def table(game, *, hands=None, rodas=None, piles=None, deck=None, row=None, reserved=None, called=None,
          player=0, phase=PH_DRAW, park=None, round=0, samb_deck=None):
    """A state with exactly these cards where said; the rest in the deck (bottom) or parked."""
    d, n = game.deck, game.num_players
    s = game.new_state(np.random.default_rng(0))
    left = list(d.kind_copies)

    def take(name):
        k = kind(game, name)
        assert left[k] > 0, f"no {name} left"
        left[k] -= 1
        return k

    K = d.num_kinds
    s.hands = [[0] * K for _ in range(n)]
    for p, names in (hands or {}).items():
        for nm in names:
            s.hands[p][take(nm)] += 1
    s.known = [[0] * K for _ in range(n)]
    s.piles = [[0] * K for _ in range(len(d.colours))]
    for c, names in (piles or {}).items():
        ci = d.colours.index(c)
        for nm in names:
            s.piles[ci][take(nm)] += 1
    s.space_inst = [[-1] * SPACES for _ in range(n)]
    s.space_count = [[0] * SPACES for _ in range(n)]
    s.space_nums = [[0] * SPACES for _ in range(n)]
    s.inst_space = [[-1] * len(d.inst_names) for _ in range(n)]
    s.laid = [[0] * d.num_inst_kinds for _ in range(n)]
    for p, spaces in (rodas or {}).items():
        for sp, names in spaces.items():  # spaces numbered 1..10 as on the board
            for nm in names:
                k = take(nm)
                inst = d.kind_inst[k]
                s.space_inst[p][sp - 1] = inst
                s.inst_space[p][inst] = sp - 1
                s.space_count[p][sp - 1] += 1
                s.laid[p][k] += 1
                if d.kind_number[k]:
                    s.space_nums[p][sp - 1] |= 1 << d.kind_number[k]
    top = [take(nm) for nm in (deck or [])]  # listed bottom → top
    rest = [k for k in range(K) for _ in range(left[k])]
    if park is None:
        s.deck = rest + top
    else:
        s.deck = top
        for k in rest:
            s.hands[park][k] += 1
    s.hand_size = [sum(h) for h in s.hands]
    s.pile_size = [sum(pl) for pl in s.piles]
    s.laid_total = [sum(x) for x in s.laid]
    ids = lambda names: [sambista(game, nm) for nm in names]  # noqa: E731
    s.called = [ids((called or {}).get(p, [])) for p in range(n)]
    s.reserved = [sambista(game, (reserved or {})[p]) if p in (reserved or {}) else -1 for p in range(n)]
    used = set(s.reserved) | {x for c in s.called for x in c}
    if row is None:
        s.row = [x for x in range(len(d.sambistas)) if x not in used][:4]
    else:
        s.row = ids(row) + [-1] * (4 - len(row))
    used |= set(s.row)
    top_s = ids(samb_deck or [])  # listed bottom → top, above every unlisted sambista
    s.samb_deck = [x for x in range(len(d.sambistas)) if x not in used and x not in top_s] + top_s
    s.player, s.phase, s.round = player, phase, round
    s.selected, s.sel_inst, s.bang, s.callable = [], -1, -1, []
    s.end_triggered, s.over, s.turns = False, False, 0
    s.atrav = [game.atravessados(s, p) for p in range(n)]
    s.fame = [game.fame_of(s, p) for p in range(n)]
    s.returns = [0.0] * n
    if phase == 3:  # call phase: compute the callable list as the engine does
        s.phase = -1
        game._to_call(s)
    s.obs = game.encoder.rebuild(s)
    check(game, s)
    return s


def check(game, s) -> None:
    game.check_invariants(s)
    check_observation(game, s)


def legal(game, s) -> list[str]:
    return [game.describe_action(s, int(a)) for a in np.flatnonzero(game.legal_mask(s))]


def action(game, s, text: str) -> int:
    found = [int(a) for a in np.flatnonzero(game.legal_mask(s))
             if (lambda t: t == text or t.startswith(text + " "))(game.describe_action(s, int(a)))]
    assert found, f"no legal action {text!r}; legal: {legal(game, s)}"
    assert len(found) == 1, f"ambiguous {text!r}: {[game.describe_action(s, a) for a in found]}"
    return found[0]


def do(game, s, *texts: str):
    r = None
    for text in texts:
        r = game.apply(s, action(game, s, text))
        check(game, s)
    return r
