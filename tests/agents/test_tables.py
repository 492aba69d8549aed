"""Agents built for one table (env, player count) refuse another with a clear message,
instead of an IndexError deep inside or, worse, legal but wrong moves."""

from __future__ import annotations

import pytest

import baralho
from baralho.agents import bind_if_needed, make_agent
from baralho.training.single_agent import SingleAgentEnv


def env(env_id, **config):
    e = baralho.make(env_id, **config)
    e.reset(seed=0)
    return e


@pytest.mark.parametrize("env_id", baralho.ENV_IDS)
def test_a_heuristic_for_two_players_refuses_a_three_player_table(env_id):
    heuristic = make_agent("heuristic", env_id)
    with pytest.raises(ValueError, match=r"built for another table: num_players 2 \(this env: 3\).*"
                                         r"config=\{'num_players': 3"):
        bind_if_needed(heuristic, env(env_id, num_players=3))
    bind_if_needed(make_agent("heuristic", env_id, config={"num_players": 3}), env(env_id, num_players=3))


def test_an_agent_for_another_env_is_refused():
    with pytest.raises(ValueError, match="env_id rodizio_v1 \\(this env: chuche_v1\\)"):
        bind_if_needed(make_agent("heuristic", "rodizio_v1"), env("chuche_v1"))


def test_the_gym_view_refuses_an_opponent_object_built_for_another_count():
    opponent = make_agent("heuristic", "roda_de_samba_v1")            # 2 players
    view = SingleAgentEnv("roda_de_samba_v1", opponents=[opponent], num_players=3)
    with pytest.raises(ValueError, match="num_players 2 \\(this env: 3\\)"):
        view.reset(seed=0)


def test_random_and_ismcts_fit_any_table():
    for spec in ("random", "ismcts:4"):
        bind_if_needed(make_agent(spec, "rodizio_v1"), env("rodizio_v1", num_players=4))


def test_a_policy_whose_input_does_not_fit_is_refused_at_construction(tmp_path):
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO

    from baralho.agents.policy import save_policy

    two = SingleAgentEnv("chuche_v1", num_players=2)
    model = MaskablePPO("MlpPolicy", two, n_steps=32, batch_size=32, policy_kwargs={"net_arch": [8]})
    path = save_policy(model.policy, tmp_path / "m", "chuche_v1", {"num_players": 2})
    with pytest.raises(ValueError, match=r"num_players|player count|players"):
        make_agent(f"ppo:{path}", "chuche_v1", config={"num_players": 3})
    agent = make_agent(f"ppo:{path}", "chuche_v1")
    bind_if_needed(agent, env("chuche_v1"))
    with pytest.raises(ValueError, match="another table"):
        bind_if_needed(agent, env("chuche_v1", num_players=3))
