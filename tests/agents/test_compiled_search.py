"""The compiled search (baralho/core/search.py) is agents/ismcts.py's search, draw for draw.

The compiled ``resample_hidden`` of each game draws what the reference's draws from numpy's
Generator (the same determinization from the same generator state), and the compiled search
draws every number in the Python search's order: from the same seed both make the same
simulations, so their root visit counts and values are equal, on positions from random play.
"""

from __future__ import annotations

import numpy as np
import pytest

import baralho
from baralho.agents import ismcts as I
from baralho.core.search import Searcher, generator_words, set_generator
from baralho.envs import ENV_IDS, game_module, has_module

SEARCHED = [e for e in ENV_IDS if hasattr(game_module(e, "fast"), "resample_hidden")]
CASES = [(e, c) for e in SEARCHED for c in baralho.env_module(e).TEST_CONFIGS]


def positions(env_id: str, config: dict, count: int, seed: int = 0):
    """(env, state, seat to act) at random points of random games, where a choice is open."""
    env = baralho.make(env_id, **config)
    rng = np.random.default_rng(seed)
    found = 0
    while found < count:
        env.reset(seed=int(rng.integers(1 << 30)))
        stop = int(rng.integers(1, 60))
        for k, _agent in enumerate(env.agent_iter()):
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            if k >= stop and len(legal) > 1:
                game, state = env.unwrapped.game, env.unwrapped.game_state
                yield env, game, state, game.current_player(state)
                found += 1
                break
            env.step(int(rng.choice(legal)))


@pytest.mark.parametrize(("env_id", "config"), CASES, ids=[f"{e}-{i}" for i, (e, _) in enumerate(CASES)])
def test_the_compiled_resample_draws_the_references_determinization(env_id, config):
    import numba as nb

    fast = game_module(env_id, "fast")
    resample = fast.resample_hidden

    @nb.njit
    def draw(records, tables, seat, g):
        resample(records[0], tables[0], seat, g)

    for _env, game, state, _seat in positions(env_id, config, 12):
        for seat in range(game.num_players):
            rng = np.random.default_rng(seat + 17)
            g = generator_words(rng)
            expected = game.reference.resample_hidden(game.to_reference(state), seat, rng)
            twin = state.copy()
            draw(twin.records, game._tables, seat, g)
            assert game.to_reference(twin) == expected, (env_id, seat)
            assert (g == generator_words(rng)).all()          # the same numbers used up


ENDS = [(e, c) for e in SEARCHED for c in (baralho.env_module(e).TEST_CONFIGS[0],
                                            baralho.env_module(e).TEST_CONFIGS[-1])]


@pytest.mark.parametrize(("env_id", "config"), ENDS, ids=[f"{e}-{i}" for i, (e, _) in enumerate(ENDS)])
def test_the_compiled_search_makes_the_python_searchs_simulations(env_id, config):
    for env, game, state, seat in positions(env_id, config, 4, seed=1):
        searcher = Searcher(game)
        for sims in (1, 7, 120):
            agent = I.ISMCTSAgent(simulations=sims, seed=3)
            agent.bind(env)
            root, rng = I._Node(), np.random.default_rng(5)
            for _ in range(sims):
                agent._iterate(game, game.resample_hidden(state, seat, rng), root, rng)
            g = generator_words(np.random.default_rng(5))[None].copy()
            visits, values = searcher.search([state], [seat], sims, agent.c, g)
            assert dict(root.visits) == {a: int(v) for a, v in enumerate(visits[0]) if v}, (env_id, sims)
            np.testing.assert_allclose([root.value.get(a, 0.0) for a in range(game.num_actions)], values[0])
            after = np.random.default_rng(0)
            set_generator(after, g[0])
            assert after.bit_generator.state == rng.bit_generator.state


def test_a_batch_of_roots_is_each_root_searched_alone():
    env_id = SEARCHED[0]
    found = list(positions(env_id, {}, 3, seed=2))
    game = found[0][1]
    searcher = Searcher(game)
    gens = np.stack([generator_words(np.random.default_rng(k)) for k in range(3)])
    visits, values = searcher.search([f[2] for f in found], [f[3] for f in found], [30, 5, 60], 0.7, gens)
    for k, (_env, _game, state, seat) in enumerate(found):
        g = generator_words(np.random.default_rng(k))[None].copy()
        one, one_values = Searcher(game).search([state], [seat], [30, 5, 60][k], 0.7, g)
        assert (one[0] == visits[k]).all() and (one_values[0] == values[k]).all()
    threaded = Searcher(game, threads=2)
    gens = np.stack([generator_words(np.random.default_rng(k)) for k in range(3)])
    visits2, _ = threaded.search([f[2] for f in found], [f[3] for f in found], [30, 5, 60], 0.7, gens)
    assert (visits2 == visits).all()


HEURISTIC = [(e, c) for e, c in ENDS if has_module(e, "fast_heuristic")]


@pytest.mark.parametrize(("env_id", "config"), HEURISTIC, ids=[f"{e}-{i}" for i, (e, _) in enumerate(HEURISTIC)])
def test_heuristic_rollouts_are_the_python_searchs_too(env_id, config):
    """``ismcts:N:h``: the compiled heuristic plays every rollout as the Python search's heuristic
    object does (same tie noise, same plan carried from one simulation to the next)."""
    for env, game, state, seat in positions(env_id, config, 2, seed=4):
        for sims in (1, 40):
            agent = I.ISMCTSAgent(simulations=sims, seed=3, rollout="heuristic")
            agent.bind(env)                        # its heuristic: heuristic_for(..., seed=4)
            root, rng = I._Node(), np.random.default_rng(5)
            for _ in range(sims):
                agent._iterate(game, game.resample_hidden(state, seat, rng), root, rng)
            searcher = Searcher(game, rollout="heuristic", heuristic_seed=4)
            g = generator_words(np.random.default_rng(5))[None].copy()
            visits, values = searcher.search([state], [seat], sims, agent.c, g)
            assert dict(root.visits) == {a: int(v) for a, v in enumerate(visits[0]) if v}, (env_id, sims)
            np.testing.assert_allclose([root.value.get(a, 0.0) for a in range(game.num_actions)], values[0])


@pytest.mark.parametrize("env_id", ["rodizio_v1", "chuche_v1"])
@pytest.mark.parametrize("style", ["", ":h"])
def test_the_agent_plays_the_same_moves_on_either_engine(env_id, style):
    """``make_agent("ismcts:N")`` searches compiled on the default engine and in Python on
    ``engine="reference"``: from the same seeds, the same moves and root statistics."""
    from baralho.agents import make_agent

    played = {}
    for engine in ("compiled", "reference"):
        env = baralho.make(env_id, engine=engine)
        agents = [make_agent(f"ismcts:30{style}", env_id, seed=s) for s in (1, 2)]
        for a in agents:
            a.bind(env)
        env.reset(seed=9)
        moves, stats = [], []
        for k, agent_id in enumerate(env.agent_iter()):
            obs, _, term, trunc, _ = env.last()
            if term or trunc or k >= 40:
                break
            agent = agents[env.possible_agents.index(agent_id)]
            before = agent.root_visits
            moves.append(agent.act(obs, agent_id))
            if agent.root_visits is not before:
                stats.append(agent.root_visits.copy())
            env.step(moves[-1])
        played[engine] = moves, stats
    assert played["compiled"][0] == played["reference"][0]
    assert len(played["compiled"][1]) == len(played["reference"][1]) > 0
    assert all((a == b).all() for a, b in zip(*(played[e][1] for e in ("compiled", "reference"))))


def test_the_searcher_refuses_what_its_kernel_would_read_out_of_bounds():
    env_id = SEARCHED[0]
    (env, game, state, seat), = positions(env_id, {}, 1, seed=3)
    other = next(positions(SEARCHED[1], {}, 1, seed=3))[2]
    searcher = Searcher(game)
    g = generator_words(np.random.default_rng(0))[None].copy()
    for states, seats, sims, gens, says in [
            ([other], [seat], 5, g, r"states\[0\] is not a compiled state of this game"),
            ([game.to_reference(state)], [seat], 5, g, r"states\[0\] is not a compiled state"),
            ([state], [game.num_players], 5, g, r"seats must be 1 integers in 0\.\."),
            ([state], [-1], 5, g, "seats must be"),
            ([state], [seat], -1, g, "simulations must be an integer >= 0"),
            ([state], [seat], 5, g[:, :4].copy(), r"gens must be .* shape \(1, 6\)"),
            ([state], [seat], 5, g.astype(np.int64), "gens must be"),
    ]:
        with pytest.raises(ValueError, match=says):
            searcher.search(states, seats, sims, 0.7, gens)
    visits, _ = searcher.search([state], [seat], 5, 0.7, g)      # and it still searches
    assert visits.sum() == 5
