"""Ray RLlib: every env trains under the multi-agent API with action masking, and no illegal action is taken.

Needs the optional extra (``pip install ".[rllib]"``); skipped cleanly without it.
The training test is slow (a local Ray instance, one PPO iteration per env):

    python -m pytest tests/training/test_rllib.py -m slow
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("ray.rllib", reason="the rllib extra is not installed: pip install '.[rllib]'")

import baralho  # noqa: E402
from baralho.training.rllib import BaralhoMultiAgentEnv, MaskedObservation, RLlibConfig, train  # noqa: E402


def random_legal_game(env: BaralhoMultiAgentEnv, seed: int) -> tuple[list[int], dict[str, float]]:
    """Play one game through the MultiAgentEnv with random legal actions; the actions and rewards received."""
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    actions, received = [], dict.fromkeys(env.possible_agents, 0.0)
    done = False
    while not done:
        (agent, agent_obs), = obs.items()          # turn-based: only the acting agent observes
        legal = np.flatnonzero(agent_obs["action_mask"])
        action = int(rng.choice(legal))
        actions.append(action)
        obs, rewards, terminateds, truncateds, _ = env.step({agent: action})
        for a, r in rewards.items():
            received[a] += r
        done = terminateds["__all__"] or truncateds["__all__"]
        obs = {a: o for a, o in obs.items() if not terminateds.get(a)}
    return actions, received


@pytest.mark.parametrize("env_id", baralho.ENV_IDS)
def test_multi_agent_env_delivers_every_reward(env_id):
    """Through RLlib's PettingZooEnv each seat receives exactly what the AEC env paid it, round rewards included."""
    env = BaralhoMultiAgentEnv({"env_id": env_id, "num_players": 3})
    assert set(env.possible_agents) == {"player_0", "player_1", "player_2"}
    actions, received = random_legal_game(env, seed=7)
    assert env.env.actions_checked == len(actions) and env.env.illegal_actions == 0

    aec = baralho.make(env_id, num_players=3)      # the same game, replayed on the bare AEC env
    aec.reset(seed=7)
    paid = dict.fromkeys(aec.possible_agents, 0.0)
    moves = iter(actions)
    for _agent in aec.agent_iter():
        _, _, term, trunc, _ = aec.last()
        aec.step(None if term or trunc else next(moves))
        for a, r in aec.rewards.items():
            paid[a] += r
    assert received == pytest.approx(paid)
    assert any(paid.values()), "a finished game pays someone"


def test_observation_space_is_what_the_masking_module_reads():
    env = BaralhoMultiAgentEnv({"env_id": "rodizio_v1"})
    space = env.observation_spaces["player_0"]
    assert set(space.spaces) == {"observations", "action_mask"}
    obs, _ = env.reset(seed=0)
    (only,) = obs.values()
    assert space.contains(only) and only["action_mask"].dtype == np.float32 and only["action_mask"].any()


def test_wrapper_counts_an_illegal_action():
    """The counter can fail: an illegal action (let through by illegal_action="penalize") is counted."""
    env = MaskedObservation(baralho.make("rodizio_v1", illegal_action="penalize"))
    env.reset(seed=0)
    mask = env.observe(env.agent_selection)["action_mask"]
    env.step(int(np.flatnonzero(mask == 0)[0]))
    assert (env.actions_checked, env.illegal_actions) == (1, 1)


def test_illegal_action_stops_the_multi_agent_env():
    env = BaralhoMultiAgentEnv({"env_id": "chuche_v1"})
    obs, _ = env.reset(seed=0)
    ((agent, agent_obs),) = obs.items()
    with pytest.raises(ValueError, match="illegal action"):
        env.step({agent: int(np.flatnonzero(agent_obs["action_mask"] == 0)[0])})


def test_bad_env_config_is_refused_before_ray_starts(tmp_path):
    with pytest.raises(ValueError, match="unknown env id"):
        train(RLlibConfig(env_id="poker_v0", out=str(tmp_path)))
    with pytest.raises(baralho.ConfigError):
        train(RLlibConfig(env_id="rodizio_v1", env_config={"num_players": 9}, out=str(tmp_path)))


@pytest.fixture(scope="module")
def local_ray():
    import ray

    ray.init(address="local", include_dashboard=False, num_cpus=2)
    yield
    ray.shutdown()


@pytest.mark.slow
@pytest.mark.parametrize("env_id", baralho.ENV_IDS)
def test_one_ppo_iteration_takes_no_illegal_action(env_id, local_ray, tmp_path):
    """One PPO iteration, sampled by a remote env runner on a local Ray instance.

    Two guards: the envs raise on an illegal action (the default), which would fail the
    iteration; and MaskedObservation counts every action against the mask shown, which
    RLlib reports as a metric and which must be 0 of exactly as many actions as env steps.
    """
    cfg = RLlibConfig(env_id=env_id, env_config={"num_players": 3}, iterations=1, num_env_runners=1,
                      num_envs_per_env_runner=4, train_batch_size=800, minibatch_size=200, num_epochs=1,
                      hiddens=(64, 64), seed=0, out=str(tmp_path))
    history, out = train(cfg, progress=False)
    (row,) = history
    assert row["env_steps"] >= cfg.train_batch_size
    assert row["actions_checked_lifetime"] == row["env_steps_lifetime"] > 0
    assert row["illegal_actions_lifetime"] == 0
    assert (out / "checkpoint").is_dir() and (out / "history.json").is_file()
