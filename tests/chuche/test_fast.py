"""The compiled engine's own parts: its deals (auto-reset), seeds and threads, the AEC env on it.

Move-for-move agreement with the reference is checked by tests/vector/test_differential.py
(random and heuristic games) and by helpers.play at every step of the hand-built positions."""

from __future__ import annotations

import numpy as np

import baralho
import baralho.vector as bv
from baralho.envs.chuche.cards import BACKS_PER_COLOUR, PER_COLOUR


def test_compiled_new_matches_are_valid_and_uniform():
    """The vector's own deals come from its splitmix streams, not the reference's Generator:
    every one must be a valid match start, the extra colours (3 of 5 at 2 players) and each
    card's back must be uniform (chi-square, 4,096 deals), and the hidden seeds distinct."""
    venv = bv.make("chuche_v1", num_envs=4096, seed=5, num_players=2)
    venv.reset()
    game = venv.game
    left_out, backs, seeds = np.zeros(6), np.zeros(11), set()
    for i in range(venv.num_envs):
        s = venv.get_state(i)
        game.check_invariants(s)
        assert s.colours[0] == 0 and list(s.colours) == sorted(s.colours) and len(s.colours) == 4
        for col in s.colours:
            assert sorted(s.back[col * PER_COLOUR:(col + 1) * PER_COLOUR]) == sorted(BACKS_PER_COLOUR)
        left_out[[c for c in range(1, 6) if c not in s.colours]] += 1
        backs[s.back[0]] += 1                                   # the red 1's back
        seeds.add(s.seed)
        assert s.draws == 1 and s.turn == s.actor == 0 and s.decisions == 0
    assert len(seeds) == venv.num_envs
    for counts, expected in ((left_out[1:], np.full(5, 2 * 4096 / 5)),
                             (backs[6:], 4096 * np.array([2, 1, 2, 2, 2]) / 9)):
        chi2 = ((counts - expected) ** 2 / expected).sum()
        assert chi2 < 25, (chi2, counts)                         # df 4: p < 5e-5 beyond this


def test_same_seed_same_games_whatever_the_threads_with_auto_reset():
    def run(threads: int):
        venv = bv.make("chuche_v1", num_envs=32, seed=9, threads=threads, num_players=6, scope="round")
        obs, mask, seat = venv.reset()
        rng = np.random.default_rng(0)
        out, dones = [], 0
        for _ in range(400):
            a = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
            obs, mask, seat, rewards, done = venv.step(a)
            assert np.allclose(rewards.sum(axis=1), 0, atol=1e-6) and (rewards[~done] == 0).all()
            dones += done.sum()
            out.append((obs, mask, seat, rewards, done))
        assert dones >= 32                                      # every env was re-dealt at least once
        return out

    for a, b in zip(run(1), run(2), strict=True):
        for x, y in zip(a, b, strict=True):
            assert np.array_equal(x, y)


def test_the_aec_env_runs_on_the_compiled_engine_and_plays_the_reference_game():
    envs = {e: baralho.make("chuche_v1", engine=e, num_players=3) for e in ("compiled", "reference")}
    assert baralho.make("chuche_v1").unwrapped.engine == "compiled"
    for env in envs.values():
        env.reset(seed=4)
    rng = np.random.default_rng(1)
    steps = 0
    for name in envs["compiled"].agent_iter(20000):
        assert envs["reference"].agent_selection == name
        views = [env.last() for env in envs.values()]
        (obs, r, term, trunc, _), (obs2, r2, term2, trunc2, _) = views
        assert np.array_equal(obs["observation"], obs2["observation"])
        assert np.array_equal(obs["action_mask"], obs2["action_mask"])
        assert (r, term, trunc) == (r2, term2, trunc2)
        a = None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"])))
        for env in envs.values():
            env.step(a)
        steps += 1
    assert steps > 100 and not envs["reference"].agents
