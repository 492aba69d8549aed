"""The compiled engine (fast.py) on hand-built positions the differential games never reach.

tests/vector/test_differential.py plays random and heuristic games, which end long before
the turn bound (random ones by round 11 of 30): here both engines play the last rounds
before ``max_rounds`` ends a game, compared after every move."""

from __future__ import annotations

import numpy as np
import pytest

import baralho
from baralho.core.compiled import CompiledGame
from baralho.envs.rodizio import cards as C
from baralho.envs.rodizio import fast
from tests.rodizio.test_rules import game, table

P = C.PLAQUINHA


@pytest.mark.parametrize("n", [2, 3])
def test_the_turn_bound_ends_the_game_and_scores_it_on_both_engines(n):
    """Two rounds before the bound (with 2 players the Comilão plays in them); the bound ends
    the game with more than 3 cards left and it is scored, the same on both engines."""
    g = game(num_players=n, max_rounds=5)
    s = table(g, [[16, 14, 12, 11, 10], [9, P, 8, 7, 6], [5, 4, 3, 2, 1]], round=3)
    c = CompiledGame(g, fast)
    twin = c.from_reference(s)
    while not g.is_over(s):
        a = int(np.flatnonzero(g.legal_mask(s))[0])
        r, r2 = g.apply(s, a), c.apply(twin, a)
        assert c.to_reference(twin) == s
        assert c.current_player(twin) == g.current_player(s)
        assert np.array_equal(c.legal_mask(twin), g.legal_mask(s))
        for p in range(n):
            assert np.array_equal(c.observe(twin, p), g.observe(s, p))
        assert (r is None) == (r2 is None) and (r is None or r == r2)
    assert s.round == 5 and sum(map(len, s.stacks)) > 3          # ended by the bound


@pytest.mark.parametrize("cfg", [{}, {"num_players": 3}, {"num_players": 5, "spicy": True}])
def test_a_seed_deals_and_plays_the_same_game_on_both_engines(cfg):
    """The AEC env on the compiled engine deals from the same Generator draws as the reference's
    new_state (fast.new_state_one): same tables for a seed, and for the resets that continue it."""
    envs = [baralho.make("rodizio_v1", engine=e, **cfg) for e in ("compiled", "reference")]
    rng = np.random.default_rng(0)
    for k in range(20):
        for e in envs:
            e.reset(seed=k if k % 4 == 0 else None)      # and resets continuing the generator
        comp, ref = (e.unwrapped for e in envs)
        assert comp.game.engine == "compiled"
        assert comp.game.to_reference(comp.game_state) == ref.game_state
        for _agent in envs[0].agent_iter():
            (obs, rew, term, trunc, _), (obs2, rew2, term2, trunc2, _) = (e.last() for e in envs)
            assert np.array_equal(obs["observation"], obs2["observation"]) and rew == rew2 and term == term2
            assert np.array_equal(obs["action_mask"], obs2["action_mask"])
            a = None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"])))
            for e in envs:
                e.step(a)
        assert comp.returns().tolist() == ref.returns().tolist()
