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
    new_state (fast.deal_from): same tables for a seed, and for the resets that continue it."""
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


def test_every_config_plays_on_one_record_layout():
    """One record dtype for every config (per-seat rows sized for the most players the Config
    accepts, the kernels bounded by the record's own counts), so numba compiles each entry point
    once: after games of 2 and of 5 players, on the AEC env and on a batch, each entry point has
    exactly one compiled signature (one per config before: a 10-14 s compile each)."""
    from baralho import vector as bv
    from baralho.envs.rodizio.env import TEST_CONFIGS

    assert len({fast.new_records(game(**cfg), 1).dtype for cfg in TEST_CONFIGS}) == 1
    rng = np.random.default_rng(0)
    configs = (TEST_CONFIGS[0], TEST_CONFIGS[-1])
    assert [c["num_players"] for c in configs] == [2, 5]           # 3 eaters (the Comilão) and 5
    for cfg in configs:
        env = baralho.make("rodizio_v1", **cfg)
        env.reset(seed=1)
        for _ in range(3):
            for _agent in env.agent_iter():
                obs, _, term, trunc, _ = env.last()
                env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            env.reset()
        c = env.unwrapped.game                                       # a search agent's apply
        twin = c.new_state(rng)
        while not c.is_over(twin):
            c.apply(twin, int(np.flatnonzero(c.legal_mask(twin))[0]))
        venv = bv.make("rodizio_v1", num_envs=8, seed=0, **cfg)
        _, mask, _ = venv.reset()
        for _ in range(40):
            _, mask, _, _, _ = venv.step((rng.random(mask.shape) * mask).argmax(1))
        venv.observe()
        venv.set_state(0, venv.get_state(1))
        r, n = venv._records, cfg["num_players"]                    # the rows past the game's seats stay 0
        e = n + (n == 2)
        assert not (r["eaten"][:, e:].any() or r["eaten_count"][:, e:].any() or r["totals"][:, e:].any()
                    or r["final"][:, n:].any())
    from baralho.core.batch import kernels

    for k in (kernels(fast).one, kernels(fast).batch):
        assert len(k.dispatcher.signatures) == 1, (k.what, k.dispatcher.signatures)
