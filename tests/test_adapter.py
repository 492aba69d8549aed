"""The generic AEC adapter and the registry: errors, rewards, dead steps, options."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

import baralho
from baralho.core.null import null_env


def fresh(**kw):
    env = baralho.make("rodizio_v1", **{"engine": "reference", **kw})
    env.reset(seed=3)
    return env


def test_registry_lists_and_builds_every_env():
    assert "rodizio_v1" in baralho.ENV_IDS
    for env_id in baralho.ENV_IDS:
        env = baralho.make(env_id)
        assert str(env) == env_id and env.metadata["name"] == env_id
        assert env.unwrapped.game.env_id == env_id


def test_unknown_env_id_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown env id 'rodizo_v0'.*did you mean 'rodizio_v1'"):
        baralho.make("rodizo_v0")


@pytest.mark.parametrize("old", ["rodizio_v0", "chuche_v0", "roda_de_samba_v0", "scala40_v0"])
def test_retired_v0_ids_name_their_v1(old):
    new = old.replace("_v0", "_v1")
    with pytest.raises(ValueError, match=f"{old} is retired: use '{new}'"):
        baralho.make(old)
    with pytest.raises(ImportError, match=f"use '{new}'"):
        importlib.import_module(f"baralho.envs.{old}")
    import gymnasium
    with pytest.raises(gymnasium.error.Error):   # the gymnasium ids moved to -v1 as well
        gymnasium.make(baralho.gym_id(old))


@pytest.mark.parametrize("kw, match", [
    (dict(render_mode="rgb"), "render_mode"),
    (dict(illegal_action="ignore"), "illegal_action"),
    (dict(illegal_reward="-1"), "illegal_reward"),
    (dict(render_view=9), "render_view"),
    (dict(num_players="2"), "expected int"),
    (dict(num_players=True), "expected int"),
])
def test_bad_adapter_and_config_options(kw, match):
    with pytest.raises(ValueError, match=match):
        baralho.make("rodizio_v1", **kw)


def test_step_or_observe_before_reset_is_an_error():
    env = baralho.make("rodizio_v1")
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    with pytest.raises(RuntimeError, match="reset"):
        env.observe("player_0")


def test_illegal_action_names_agent_action_and_legal_ones_and_changes_nothing():
    env = fresh(num_players=3)
    s = env.unwrapped.game_state
    s.stacks = [[16, 17], [14], [12, 10, 9, 8, 6, 5, 4, 3, 2, 1, 0, 7, 11, 13, 15]]
    env.unwrapped._mask = None
    before = s.copy()
    with pytest.raises(ValueError) as err:
        env.step(0)
    msg = str(err.value)
    assert "player_0" in msg and "illegal action 0 (serve plate 0" in msg
    assert "1 (serve plate 1 (1 card))" in msg and "2 (serve plate 2" in msg
    assert env.unwrapped.game_state == before and env.agent_selection == "player_0"


@pytest.mark.parametrize("bad", [-1, 18, 2.0, "1", None, True, np.array([1, 2])])
def test_malformed_actions_raise(bad):
    env = fresh()
    with pytest.raises(ValueError):
        env.step(bad)


def test_numpy_integer_actions_are_accepted():
    env = fresh()
    legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
    env.step(np.int64(legal[0]))
    assert env.agent_selection == "player_1"


def test_penalize_mode_ends_the_game_and_charges_the_offender():
    env = fresh(num_players=3, illegal_action="penalize", illegal_reward=-5)
    mask = env.observe("player_0")["action_mask"]
    bad = int(np.flatnonzero(mask == 0)[0])
    env.step(bad)
    assert all(env.terminations.values())
    assert env.rewards == {"player_0": -5.0, "player_1": 0.0, "player_2": 0.0}
    assert env.infos["player_0"] == {"illegal_action": bad}
    _, rew, term, _, _ = env.last()
    assert term and rew == -5.0
    for _agent in env.agent_iter():
        env.step(None)
    assert env.agents == []


def test_masks_are_legal_for_the_actor_and_zero_for_others():
    env = fresh(num_players=4)
    actor = env.agent_selection
    for agent in env.agents:
        mask = env.observe(agent)["action_mask"]
        assert mask.dtype == np.int8 and mask.shape == (18,)
        assert mask.any() == (agent == actor)


def test_masks_handed_out_are_writable_copies_that_cannot_corrupt_the_env():
    # torch.as_tensor warns on read-only arrays (sb3-contrib predict, AgileRL), and users
    # edit masks in place; the env must still judge actions by the game's own mask.
    env = fresh(num_players=3)
    actor = env.agent_selection
    mask = env.observe(actor)["action_mask"]
    legal = np.flatnonzero(mask)
    illegal = int(np.flatnonzero(mask == 0)[0])
    assert mask.flags.writeable
    mask[:] = 0
    mask[illegal] = 1                      # a user's edit: neither the next observe nor step sees it
    np.testing.assert_array_equal(np.flatnonzero(env.observe(actor)["action_mask"]), legal)
    with pytest.raises(ValueError, match="illegal"):
        env.step(illegal)
    other = next(a for a in env.agents if a != actor)
    zeros = env.observe(other)["action_mask"]
    zeros[0] = 1
    assert not env.observe(other)["action_mask"].any()
    env.step(int(legal[0]))


def test_terminal_rewards_reach_every_agent_and_dead_steps_remove_them():
    env = fresh(num_players=3)
    rng = np.random.default_rng(0)
    seen = {}
    for agent in env.agent_iter():
        obs, rew, term, trunc, _ = env.last()
        if term or trunc:
            seen[agent] = rew
            with pytest.raises(ValueError, match="dead"):
                env.step(0)
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    final = env.unwrapped.game_state.final
    assert seen == {f"player_{i}": final[i] for i in range(3)}
    assert sorted(set(final)) <= [-1.0, 1.0]


def test_reset_with_seed_is_reproducible_and_without_seed_continues():
    a, b = baralho.make("rodizio_v1"), baralho.make("rodizio_v1")
    a.reset(seed=42)
    b.reset(seed=42)
    assert a.unwrapped.game_state == b.unwrapped.game_state
    a.reset()
    b.reset()
    assert a.unwrapped.game_state == b.unwrapped.game_state
    a.reset(seed=43)
    assert a.unwrapped.game_state != b.unwrapped.game_state


def test_render_views():
    env = baralho.make("rodizio_v1", num_players=3, memory="none", render_mode="ansi", render_view="omniscient")
    env.reset(seed=0)
    assert "omniscient" in env.render()
    env = baralho.make("rodizio_v1", render_mode="ansi", render_view=1)
    env.reset(seed=0)
    assert "player_1's view" in env.render()
    env = baralho.make("rodizio_v1", render_mode="ansi")
    env.reset(seed=0)
    assert "player_0's view" in env.render()


def test_null_floor_env_runs_through_the_same_adapter():
    env = null_env(num_players=3, length=10)
    env.reset(seed=0)
    steps = 0
    for _agent in env.agent_iter():
        _, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else 0)
        steps += 1
    assert steps == 10 + 3


def test_terminal_colours_follow_each_games_rules(monkeypatch):
    from baralho.core.ansi import colorize, wants_colour

    scala = baralho.make("scala40_v1").unwrapped.game
    text = colorize("5♥ 3♠ 10♦", scala.ansi_rules)
    assert "\x1b[31m5♥\x1b[0m" in text and "\x1b[31m10♦\x1b[0m" in text and " 3♠ " in text
    chuche = baralho.make("chuche_v1").unwrapped.game
    assert "\x1b[32m3Vd/7\x1b[0m" in colorize("3Vd/7", chuche.ansi_rules)
    monkeypatch.setenv("NO_COLOR", "1")
    assert not wants_colour()


def test_rgb_array_is_advertised_only_when_pillow_is_installed(monkeypatch):
    # core and [rllib] installs have no Pillow: metadata must not offer a mode that fails,
    # or PettingZoo's render_test (which tries every advertised mode) breaks
    from pettingzoo.test import render_test

    from baralho.core import aec

    assert "rgb_array" in baralho.make("rodizio_v1").metadata["render_modes"]     # Pillow is here
    monkeypatch.setattr(aec, "has_pillow", lambda: False)
    env = baralho.make("rodizio_v1")
    assert env.metadata["render_modes"] == ["ansi", "human"]
    with pytest.raises(ValueError, match=r"rgb_array needs Pillow: pip install \"baralho\[render\]\""):
        baralho.make("rodizio_v1", render_mode="rgb_array")
    render_test(lambda render_mode=None: baralho.make("rodizio_v1", render_mode=render_mode))


def test_decode_takes_the_observation_dict_or_its_vector():
    env = fresh(num_players=3)
    obs = env.observe(env.agent_selection)
    layout = env.unwrapped.game.obs_layout
    by_dict, by_vector = layout.decode(obs), layout.decode(obs["observation"])
    assert by_dict.keys() == by_vector.keys()
    for name in by_dict:
        np.testing.assert_array_equal(by_dict[name], by_vector[name])
