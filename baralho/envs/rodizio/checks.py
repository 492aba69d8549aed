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
