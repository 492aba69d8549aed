"""PettingZoo's own API, seed and render tests for every env id and config."""

from __future__ import annotations

import warnings

import numpy as np
from pettingzoo.test import api_test, render_test, seed_test

import baralho


def test_api(env_id, config):
    with warnings.catch_warnings():
        # api_test warns on observations that are legitimately all zero at times
        warnings.simplefilter("ignore")
        api_test(baralho.make(env_id, **config), num_cycles=200)


def test_seed(env_id, config):
    seed_test(lambda: baralho.make(env_id, **config), num_cycles=200)


def test_render(env_id, config, capsys):
    render_test(lambda render_mode=None: baralho.make(env_id, render_mode=render_mode, **config))
    assert capsys.readouterr().out.strip(), "human render printed nothing"


def test_spaces_match_layout(env_id, config):
    env = baralho.make(env_id, **config)
    game = env.unwrapped.game
    env.reset(seed=1)
    for agent in env.possible_agents:
        space = env.observation_space(agent)
        assert space is env.observation_space(env.possible_agents[0])
        assert space["observation"].shape == (game.obs_layout.size,)
        assert space["action_mask"].shape == (game.num_actions,)
        assert env.action_space(agent).n == game.num_actions
        obs = env.observe(agent)
        assert space.contains(obs)
        if agent != env.agent_selection:
            assert not obs["action_mask"].any(), "a non-acting agent must get an all-zero mask"
    assert env.observe(env.agent_selection)["action_mask"].any()


def test_masks_and_observations_are_fresh_writable_arrays(env_id, config):
    """Every observe hands out new arrays a learner may keep or edit: the mask is a
    writable copy (torch warns on read-only arrays) whatever the game returned (some
    engines share read-only masks), and editing it changes nothing in the env."""
    env = baralho.make(env_id, **config)
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    kept = []
    for steps, agent in enumerate(env.agent_iter()):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        mask = obs["action_mask"]
        legal = np.flatnonzero(mask)
        assert mask.flags.writeable and obs["observation"].flags.writeable
        mask[:] = 1 - mask
        np.testing.assert_array_equal(np.flatnonzero(env.observe(agent)["action_mask"]), legal)
        assert all(o is not obs["observation"] and not np.shares_memory(o, obs["observation"]) for o in kept[-3:])
        kept.append(obs["observation"])
        env.step(int(legal[rng.integers(len(legal))]))
        if steps >= 60:
            break
