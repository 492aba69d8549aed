"""Rodízio's state invariants: what the conformance suite asserts after every step."""

from __future__ import annotations

from baralho.envs.rodizio import cards as C


def check_invariants(game, s) -> None:
    where = [c for st in s.stacks for c in st] + list(s.plates) + [c for e in s.eaten for c in e]
    assert sorted(where) == list(range(C.NUM_CARDS)), f"cards lost or doubled: {sorted(where)}"
    assert len(s.stacks) == C.NUM_PLATES and len(s.plates) == C.NUM_PLATES
    assert C.PLAQUINHA not in s.plates and all(C.PLAQUINHA not in e for e in s.eaten)
    assert len(s.eaten) == game.num_eaters
    for w in range(game.num_eaters):
        assert s.totals[w] == sum(C.VALUE[c] for c in s.eaten[w]), "pile total mismatch"
    centre = sum(len(st) for st in s.stacks)
    assert C.END_CENTRE <= centre <= C.CENTRE_CARDS
    assert s.over or centre > C.END_CENTRE or s.round >= game.max_rounds
    assert 0 <= s.round <= game.max_rounds and 0 <= s.seat < game.num_players
    if s.pending >= 0:
        assert game.spicy and not s.over and s.stacks[s.pending]
    if s.over:
        assert s.final == game.final_rewards(s)
    else:
        assert s.round < game.max_rounds and s.final == []


def loadable_state(game, s):
    """A copy of ``s`` to load into an engine, after checking that every field has this config's
    shape and range (``baralho.core.checks``: the compiled kernels index tables with them). The
    conservation rules are ``check_invariants``'s, run after this."""
    from baralho.core import checks as K
    from baralho.envs.rodizio.actions import MAX_STACK

    card = (0, C.NUM_CARDS - 1)
    K.flag(s.over, "over")
    K.rows(s.stacks, "stacks", C.NUM_PLATES, *card, max_width=MAX_STACK)
    K.integers(s.plates, "plates", *card, length=C.NUM_PLATES)
    K.rows(s.eaten, "eaten", game.num_eaters, *card, max_width=MAX_STACK)
    K.integers(s.totals, "totals", 0, C.TOTAL_VALUE, length=game.num_eaters)
    K.integer(s.seat, "seat", 0, game.num_players - 1)
    K.integer(s.round, "round", 0, game.max_rounds)
    K.integer(s.pending, "pending", -1, C.NUM_PLATES - 1)
    K.numbers(s.final, "final", game.num_players if s.over else 0)
    return s.copy()
