"""The net-guided search (``ismcts:N:p``, baralho/core/net_search.py): the kernel's net is the
policy file's, and the compiled search is the Python one (agents/ismcts.py's ``_iterate_net``)
move for move, visit for visit."""

from __future__ import annotations

import numpy as np
import pytest

import baralho
from baralho.agents import bind_if_needed, make_agent

pytest.importorskip("torch")

from baralho.agents.policy import build_policy, load_policy, save_policy  # noqa: E402
from baralho.core.net_search import NetSearcher, forward  # noqa: E402
from baralho.training.batch_policy import forward as torch_forward  # noqa: E402
from baralho.training.batch_policy import inputs  # noqa: E402
from baralho.zoo import zoo_path  # noqa: E402

NETS = ["rodizio_v1", "chuche_v1"]       # the zoo policies without the heuristic prior (values at leaves)


def _position(env_id: str, seed: int, engine: str | None = None, **config):
    """An env at a point of random play where the seat to act has a choice."""
    env = baralho.make(env_id, **config, **({} if engine is None else {"engine": engine}))
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(int(rng.integers(0, 30))):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            break
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    if env.terminations[env.agent_selection] or env.truncations[env.agent_selection]:
        env.reset(seed=seed)
    while np.flatnonzero(env.last()[0]["action_mask"]).size < 2:
        env.step(int(np.flatnonzero(env.last()[0]["action_mask"])[0]))
    return env


@pytest.mark.parametrize("env_id", NETS)
def test_the_kernels_net_is_the_policy_files(env_id):
    policy, _card = load_policy(zoo_path(env_id), env_id)
    env = _position(env_id, 4)
    searcher = NetSearcher(env.unwrapped.game, policy)
    import torch

    for seed in range(5):
        env = _position(env_id, seed)
        obs = env.last()[0]
        x, onehot = inputs(policy, obs["observation"][None])
        with torch.no_grad():
            logits, value = torch_forward(policy, x, onehot, np.ones((1, env.action_space(env.agents[0]).n), bool))
        ours, our_value = forward(searcher.net, obs["observation"])
        np.testing.assert_allclose(ours, logits[0].numpy(), rtol=1e-5, atol=1e-5)
        assert our_value == pytest.approx(float(value[0]), abs=1e-5)


def _play(env_id: str, spec: str, seed: int, engine: str | None, mix: float = 0.0, horizon: str = "game",
          **config):
    env = _position(env_id, seed, engine, **config)
    agent = make_agent(spec, env_id, seed=seed, config=config)
    agent.mix, agent.horizon = mix, horizon
    bind_if_needed(agent, env)
    move = agent.act(env.last()[0], env.agent_selection)
    return move, agent.root_visits.copy(), agent.root_values.copy()


def _engines_agree(env_id: str, spec: str, seed: int, mix: float = 0.0, horizon: str = "game", **config):
    """The compiled search and its Python twin from the same position and seed: the same move, the
    same root visits and (to float error) values; returns the compiled (move, visits, values)."""
    move, visits, values = _play(env_id, spec, seed, None, mix, horizon, **config)
    move_py, visits_py, values_py = _play(env_id, spec, seed, "reference", mix, horizon, **config)
    assert move == move_py and (visits == visits_py).all()
    np.testing.assert_allclose(values, values_py, atol=1e-4)
    return move, visits, values


@pytest.mark.parametrize("env_id", NETS)
def test_compiled_and_python_net_searches_agree(env_id):
    for seed in range(4):
        move, visits, _ = _engines_agree(env_id, "ismcts:40:p", seed)
        assert visits.sum() == 40            # the root gets its prior at once: every simulation backs up
        assert visits[move] == visits.max()


def test_rollouts_mixed_in_draw_alike_on_both_engines():
    for seed in range(3):
        _engines_agree("rodizio_v1", "ismcts:50:p", seed, mix=0.5)
    unmixed = _play("rodizio_v1", "ismcts:50:p", 0, None)[2]
    assert not np.allclose(unmixed, _play("rodizio_v1", "ismcts:50:p", 0, None, mix=0.5)[2])


def test_a_policy_file_guides_the_search_at_three_players(tmp_path):
    """ismcts:N:p:PATH with a net for 3 players (untrained, relu: a prior and values near uniform)."""
    config = {"num_players": 3}
    policy = build_policy("rodizio_v1", config, {"pi": [16], "vf": [16]}, activation="relu", inputs="symlog")
    path = save_policy(policy, tmp_path / "three", "rodizio_v1", config)
    env = _position("rodizio_v1", 2, **config)
    spec = f"ismcts:30:p:{path}"
    agent = make_agent(spec, "rodizio_v1", seed=2, config=config)      # _play's seed: the same draws
    assert agent.name == spec
    bind_if_needed(agent, env)
    move = agent.act(env.last()[0], env.agent_selection)
    assert env.last()[0]["action_mask"][move] == 1 and agent.root_visits.sum() == 30
    move_py, visits_py, _ = _play("rodizio_v1", spec, 2, "reference", mix=1.0, **config)   # the default: rollouts
    assert move_py == move and (visits_py == agent.root_visits).all()


def test_the_net_search_plays_whole_games_within_the_mask():
    env = baralho.make("rodizio_v1")
    agent = make_agent("ismcts:20:p", "rodizio_v1", seed=1)
    for seed in range(3):
        env.reset(seed=seed)
        for name in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            bind_if_needed(agent, env)
            move = agent.act(obs, name)
            assert obs["action_mask"][move] == 1
            env.step(move)


@pytest.mark.parametrize("env_id", ["roda_de_samba_v1", "scala40_v1"])
def test_a_net_with_the_heuristic_prior_reads_its_hint_alike_on_both_engines(env_id):
    """The zoo nets that read the heuristic's move (the prior): the kernel asks the compiled
    heuristic at each node where the Python search asks heuristic.py, and the two searches agree
    (rollouts: random, then the heuristic's)."""
    for spec in ("ismcts:24:p", "ismcts:24:ph"):
        for seed in range(2):
            assert _engines_agree(env_id, spec, seed, mix=1.0)[1].sum() == 24


def test_a_hinted_net_searches_with_its_prior_weight():
    """NetSearcher reads a hinted net's prior_weight from the policy and searches with it; told the
    net reads no hint (prior_weight 0), it refuses the net's one extra input column per action."""
    env = _position("roda_de_samba_v1", 0)
    game = env.unwrapped.game
    policy, _ = load_policy(zoo_path("roda_de_samba_v1"), "roda_de_samba_v1")
    hinted = NetSearcher(game, policy, mix=1.0)
    assert hinted.prior_weight > 0
    from baralho.core.search import generator_words

    state, seat = env.unwrapped.game_state, env.unwrapped.agent_selection
    seat = env.possible_agents.index(seat)
    visits, _ = hinted.search_one(state, seat, 60, 1.5, generator_words(np.random.default_rng(0))[None].copy())
    assert visits.sum() == 60
    with pytest.raises(ValueError, match="reads"):
        NetSearcher(game, policy, mix=1.0, prior_weight=0.0)        # the net reads one more column per action


@pytest.mark.parametrize("spec", ["ismcts:24:p", "ismcts:24:ph"])
def test_rollouts_to_the_hands_end_draw_alike_on_both_engines(spec):
    """horizon="segment" in Scala 40: a leaf's rollout stops at the end of the hand it is in and backs
    up the game's estimate from the penalty totals, on both engines alike; the root's values are
    no longer those of rollouts to the match's end."""
    for seed in range(2):
        _, visits, values = _engines_agree("scala40_v1", spec, seed, mix=1.0, horizon="segment")
        assert visits.sum() == 24
        assert not np.allclose(values, _play("scala40_v1", spec, seed, None, 1.0, "game")[2])
    _engines_agree("scala40_v1", spec, 1, mix=1.0, horizon="segment", num_players=3)


def test_a_game_in_one_piece_has_no_segment_horizon():
    env = _position("rodizio_v1", 0)
    policy, _ = load_policy(zoo_path("rodizio_v1"), "rodizio_v1")
    with pytest.raises(ValueError, match="one piece"):
        NetSearcher(env.unwrapped.game, policy, horizon="segment")
    with pytest.raises(ValueError, match="horizon"):
        make_agent("ismcts:20:p", "rodizio_v1").__class__(simulations=20, policy="", horizon="hand")


def test_heuristic_rollouts_under_the_net_draw_alike_on_both_engines():
    for seed in range(2):
        _engines_agree("chuche_v1", "ismcts:30:ph", seed, mix=1.0)


@pytest.mark.parametrize(("env_id", "rollout"), [("rodizio_v1", "random"), ("roda_de_samba_v1", "heuristic")])
def test_threads_search_each_root_as_one_thread_does(env_id, rollout):
    """The threads' kernel (numba's parfor: expert iteration's games search on it) compiles with
    every argument the one-thread kernel takes (a net with or without the heuristic's hint, random
    or heuristic rollouts, the prior's settings) and gives each root the visits one thread gives it
    (with the heuristic, the roots the first thread takes: each thread's heuristic has its own
    tie-noise memory, so the second thread's roots meet a heuristic with another history)."""
    import baralho.vector as bv
    from baralho.core.search import generator_words

    game = baralho.make(env_id, engine="compiled").unwrapped.game
    policy, _ = load_policy(zoo_path(env_id), env_id)
    venv = bv.make(env_id, 5, 3, engine="compiled")
    seats = venv.reset()[2].astype(np.int64)
    roots, found = venv.roots(np.arange(5)), {}
    for threads in (1, 2):
        searcher = NetSearcher(game, policy, threads=threads, mix=1.0, rollout=rollout, heuristic_seed=4,
                               temperature=2.0, prior_visits=3)
        gens = np.stack([generator_words(np.random.default_rng(k)) for k in range(5)])
        found[threads] = searcher._run(roots, seats, np.array([40, 3, 25, 40, 10]), 1.5, gens, False)
    same = slice(None) if rollout == "random" else slice(0, 3)        # 5 roots on 2 threads: 3, then 2
    assert (found[1][0][same] == found[2][0][same]).all()
    np.testing.assert_array_equal(found[1][1][same], found[2][1][same])
    assert (found[2][0].sum(1) == [40, 3, 25, 40, 10]).all()


def _search_with(env_id: str, seed: int, engine: str | None, **settings):
    """The root visits of ``ismcts:60:p`` with ISMCTSAgent ``settings`` (mix 1: rollouts)."""
    from baralho.agents.ismcts import ISMCTSAgent

    env = _position(env_id, seed, engine)
    agent = ISMCTSAgent(simulations=60, seed=seed, policy="", mix=1.0, **settings)
    bind_if_needed(agent, env)
    agent.act(env.last()[0], env.agent_selection)
    return agent.root_visits.copy()


@pytest.mark.parametrize("env_id", NETS)
def test_a_later_and_flatter_prior_draws_alike_on_both_engines(env_id):
    """prior_visits (the visit a node asks the net at; before it, a uniform prior) and temperature
    (the logits divided by it) search alike on both engines, and each changes the search."""
    for seed in range(3):
        settings = dict(prior_visits=4, temperature=2.5)
        visits = _search_with(env_id, seed, None, **settings)
        assert (visits == _search_with(env_id, seed, "reference", **settings)).all()
    by = {(k, t): _search_with(env_id, 1, None, prior_visits=k, temperature=t) for k, t in
          [(2, 1.0), (4, 1.0), (2, 3.0)]}
    assert not (by[2, 1.0] == by[4, 1.0]).all() and not (by[2, 1.0] == by[2, 3.0]).all()


def test_the_zoo_card_sets_how_its_net_searches():
    """A zoo card's ``search`` (measured: benchmarks/RESULTS.md) is what ismcts:N:p plays with; an
    argument overrides it; a prior that cannot be is refused."""
    from baralho.agents.ismcts import ISMCTSAgent
    from baralho.agents.policy import load_policy

    card = load_policy(zoo_path("chuche_v1", 2), "chuche_v1")[1]
    agent = make_agent("ismcts:20:p", "chuche_v1")
    bind_if_needed(agent, baralho.make("chuche_v1"))
    assert agent.temperature == card["search"]["temperature"] != 1 and agent.prior_visits == 2
    agent = ISMCTSAgent(simulations=20, policy="", temperature=1.0, prior_visits=3)
    bind_if_needed(agent, baralho.make("chuche_v1"))
    assert (agent.temperature, agent.prior_visits) == (1.0, 3)
    for bad in [dict(prior_visits=1), dict(prior_visits=128), dict(prior_visits=True), dict(temperature=0),
                dict(temperature=-1.0), dict(temperature=float("nan")), dict(temperature=float("inf"))]:
        with pytest.raises(ValueError, match=next(iter(bad))):
            ISMCTSAgent(simulations=20, policy="", **bad)


def test_bad_net_specs_say_what_is_wrong():
    with pytest.raises(ValueError, match="ismcts:N:p"):
        make_agent("ismcts:20:h:somewhere", "rodizio_v1")
    agent = make_agent("ismcts:20:p", "roda_de_samba_v1")       # its zoo net asks the heuristic (prior)
    agent.mix = 0.5
    with pytest.raises(ValueError, match="mix=1"):                # its values are for its own turns only
        bind_if_needed(agent, baralho.make("roda_de_samba_v1"))
    with pytest.raises(ValueError, match="not :g"):
        from baralho.agents.ismcts import ISMCTSAgent

        ISMCTSAgent(simulations=10, guided=True, policy="")
