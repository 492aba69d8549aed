"""Property-based checks (hypothesis) over every env: arbitrary action streams
and arbitrary config values never get past the env's checks silently."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import baralho
from baralho.core.game import state_key

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@pytest.mark.parametrize("env_id", baralho.ENV_IDS)
@SETTINGS
@given(actions=st.lists(st.integers(min_value=-3, max_value=400), max_size=150), seed=st.integers(0, 2**16))
def test_any_action_stream_is_either_played_or_refused_cleanly(env_id, actions, seed):
    env = baralho.make(env_id)
    env.reset(seed=seed)
    game = env.unwrapped.game
    for a in actions:
        agent = env.agent_selection
        if env.terminations[agent]:
            break
        mask = env.observe(agent)["action_mask"]
        if 0 <= a < game.num_actions and mask[a]:
            env.step(a)
            game.check_invariants(env.unwrapped.game_state)
        else:
            before = state_key(env.unwrapped.game_state)
            with pytest.raises(ValueError):
                env.step(a)
            assert state_key(env.unwrapped.game_state) == before and env.agent_selection == agent


_values = st.one_of(st.none(), st.booleans(), st.integers(-10, 10), st.floats(allow_nan=True),
                    st.text(max_size=8), st.lists(st.integers(), max_size=3))


@pytest.mark.parametrize("env_id", baralho.ENV_IDS)
@SETTINGS
@given(data=st.data(), value=_values)
def test_any_config_value_builds_or_raises_a_value_error(env_id, data, value):
    fields = [f.name for f in dataclasses.fields(baralho.env_module(env_id).Config)]
    key = data.draw(st.sampled_from(fields + ["not_an_option"]))
    try:
        env = baralho.make(env_id, **{key: value})
    except ValueError:
        return
    env.reset(seed=0)                          # whatever was accepted must give a playable env
    assert np.asarray(env.observe(env.agent_selection)["action_mask"]).any()
