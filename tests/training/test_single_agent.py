"""The single-agent view: reward bookkeeping against the AEC env, gymnasium's
checker, the registered ids, and a tiny end-to-end training run."""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import baralho
from baralho.training.single_agent import SingleAgentEnv


class Scripted:
    """An opponent that plays a fixed list of actions."""

    name = "scripted"

    def __init__(self, actions):
        self.actions = list(actions)

    def reset(self, seed=None):
        pass

    def act(self, observation, agent_id):
        return self.actions.pop(0)


def with_position(env: SingleAgentEnv, stacks, piles, seat=0):
    game = env.game
    state = game.position(stacks, piles, seat=seat)
    env.aec.unwrapped.game_state = state
    env.aec.unwrapped._acting = seat
    env.aec.unwrapped._mask = None
    env.aec.agent_selection = f"player_{seat}"
    return state


def test_terminal_reward_reaches_the_learner_when_the_comilao_ends_the_game():
    # 2 players: learner (seat 0) serves, the opponent serves, then the Comilão
    # eats the card that leaves 3 in the centre: the game ends on a move that
    # is not the learner's, and the learner's step must still return its reward.
    env = SingleAgentEnv("rodizio_v1", opponents=[Scripted([2])], seat=0, engine="reference")
    env.reset(seed=0)
    P = 17
    # centre: [12] [16, 14] [P, 9]. Learner serves plate 0: 12 over 14, eats 14 (4 left).
    # Opponent serves plate 2: the plaquinha was in it, no eat. The Comilão serves
    # the plaquinha plate [16, 12, P]: 16 lands alone on plate 1 and is eaten: 3 left.
    with_position(env, [[12], [16, 14], [P, 9]], [[0, 1, 2], [3, 4, 5], [6, 7, 8, 10]])
    obs, reward, terminated, truncated, _ = env.step(0)
    state = env.aec.unwrapped.game_state
    assert terminated and not truncated
    assert state.eaten[0][-1] == 14 and state.eaten[2][-1] == 16, "the Comilão made the last eat"
    assert reward == state.final[0] != 0
    assert obs.shape == env.observation_space.shape


def test_terminal_reward_when_the_learner_ends_the_game():
    env = SingleAgentEnv("rodizio_v1", opponents=["random"], seat=0, num_players=3, engine="reference")
    env.reset(seed=0)
    P = 17
    with_position(env, [[16], [P, 14], [12]], [[9], [10, 8], [0, 1, 2, 3, 4, 5, 6, 7]])
    _, reward, terminated, _, _ = env.step(0)
    assert terminated and reward == env.aec.unwrapped.game_state.final[0]


@pytest.mark.parametrize("num_players", [2, 3, 5])
def test_episode_rewards_sum_to_the_learners_return(num_players):
    env = SingleAgentEnv("rodizio_v1", opponents=["random", "heuristic"], num_players=num_players)
    rng = np.random.default_rng(0)
    seats = set()
    for ep in range(40):
        obs, info = env.reset(seed=ep)
        seats.add(info["seat"])
        total, done = 0.0, False
        while not done:
            assert env.aec.agent_selection == env.learner
            mask = env.action_masks()
            obs, r, done, trunc, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
            total += r
        returns = env.game.returns(env.aec.unwrapped.game_state)
        assert total == returns[info["seat"]]
    assert seats == set(range(num_players))          # the learner's seat is drawn each episode


def test_step_after_the_end_is_refused():
    env = SingleAgentEnv("rodizio_v1", opponents=["random"], seat=1)
    env.reset(seed=3)
    done = False
    while not done:
        _, _, done, _, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


def test_bad_seat_and_empty_pool_are_refused():
    with pytest.raises(ValueError, match="seat"):
        SingleAgentEnv("rodizio_v1", seat=2)
    with pytest.raises(ValueError, match="opponent"):
        SingleAgentEnv("rodizio_v1", opponents=[])


@pytest.mark.parametrize("env_id", baralho.ENV_IDS)
def test_gymnasium_and_sb3_checkers_pass_with_penalize(env_id):
    """README and the module docstring say check_env needs illegal_action="penalize"
    (the checkers sample without the mask); with it both pass, render modes included."""
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    env = gym.make(baralho.gym_id(env_id), opponents=["random"], illegal_action="penalize")
    check_env(env)
    sb3_check_env(env)
    env.reset(seed=0)
    assert env.action_masks().any()


def test_checker_without_penalize_fails_with_a_message_naming_it():
    env = gym.make("baralho/Rodizio-v1", opponents=["random"])
    with pytest.raises(ValueError, match="illegal action .*needs illegal_action='penalize'"):
        for seed in range(50):           # sample without the mask until an illegal action
            env.reset(seed=seed)
            env.action_space.seed(seed)
            env.step(env.action_space.sample())


def test_mask_in_info_and_action_masks_through_gym_make():
    env = gym.make("baralho/Rodizio-v1", opponents=["random"], num_players=3)
    assert env.action_masks is not None and env.unwrapped is env   # no wrapper hides action_masks
    for seed in range(5):
        obs, info = env.reset(seed=seed)
        done = False
        while True:
            mask = info["action_mask"]
            assert mask.dtype == np.int8 and mask.shape == (18,)
            np.testing.assert_array_equal(mask.astype(bool), env.action_masks())
            if done:
                assert mask.all(), "no move left: an all-ones mask (all zeros breaks masked softmax)"
                break
            np.testing.assert_array_equal(mask, env.aec.observe(env.learner)["action_mask"])
            obs, _, done, _, info = env.step(int(np.flatnonzero(mask)[-1]))
    # through any further wrapper, as SB3's vector envs reach it
    from sb3_contrib.common.maskable.utils import get_action_masks
    from stable_baselines3.common.vec_env import DummyVecEnv

    wrapped = gym.wrappers.TimeLimit(gym.make("baralho/Rodizio-v1"), 100)
    wrapped.reset(seed=0)
    np.testing.assert_array_equal(wrapped.get_wrapper_attr("action_masks")(), wrapped.unwrapped.action_masks())
    vec = DummyVecEnv([lambda: gym.make("baralho/Rodizio-v1")])
    vec.reset()
    assert get_action_masks(vec).shape == (1, 18)


def test_gym_view_render_modes_are_the_aec_envs():
    env = gym.make("baralho/Rodizio-v1")
    assert env.metadata["render_modes"] == baralho.make("rodizio_v1").metadata["render_modes"]
    assert "rgb_array" in env.metadata["render_modes"] and "human" in env.metadata["render_modes"]
    picture = gym.make("baralho/Rodizio-v1", render_mode="rgb_array")
    picture.reset(seed=0)
    frame = picture.render()
    assert frame.dtype == np.uint8 and frame.ndim == 3 and frame.shape[2] == 3
    text = gym.make("baralho/Rodizio-v1", render_mode="ansi")
    text.reset(seed=0)
    assert "Rodízio" in text.render()


def test_step_before_reset_is_a_clear_error():
    env = gym.make("baralho/Rodizio-v1")
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    with pytest.raises(RuntimeError, match="reset"):
        env.action_masks()


def test_tiny_training_run_end_to_end(tmp_path):
    from baralho.training.train import TrainConfig, train

    out = train(TrainConfig(env_id="rodizio_v1", timesteps=256, num_envs=1, n_steps=128, batch_size=64,
                            n_epochs=1, eval_every=128, eval_games=4, snapshot_every=128,
                            net_arch=(16,), out=str(tmp_path), progress_bar=False))
    curve = json.loads((out / "curve.json").read_text())["curve"]
    assert len(curve) >= 2 and 0 <= curve[-1]["vs_heuristic"] <= 1
    assert (out / "final.json").exists() and (out / "curve.png").stat().st_size > 1000
    assert list((out / "pool").glob("snapshot_*.json")) and not list((out / "pool").glob("*.zip"))
    from baralho.agents import make_agent

    agent = make_agent(f"ppo:{out / 'final.json'}", "rodizio_v1")
    env = baralho.make("rodizio_v1")
    env.reset(seed=0)
    obs = env.observe(env.agent_selection)
    assert obs["action_mask"][agent.act(obs, env.agent_selection)]


def test_training_prints_evaluations_and_a_final_table_with_cis_and_the_chance_level(tmp_path, capsys):
    from baralho.training.train import main

    args = argparse.Namespace(
        env_id="rodizio_v1", timesteps=256, seed=0, num_envs=1, vec="dummy", eval_every=128, eval_games=6,
        snapshot_every=128, out=str(tmp_path), max_minutes=None, warm_start=None, warm_start_steps=None,
        warm_start_epochs=None, learning_rate=None, ent_coef=None, clip_range=None, config={}, quiet=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)   # SB3's "not the same type" on every run
        assert main(args) == 0
    out = capsys.readouterr().out
    assert "       128 timesteps: win rate vs random" in out and "       256 timesteps:" in out
    final = json.loads((tmp_path / "curve.json").read_text())["curve"][-1]
    assert 0 <= final["chance_vs_random"] <= 1 and len(final["ci95_vs_heuristic"]) == 2
    row = next(ln for ln in out.splitlines() if ln.startswith("| random |"))
    assert row.count("|") == 5 and f"{final['chance_vs_random']:.3f}" in row and "[" in row
    assert "chance level" in out


def test_ctrl_c_saves_a_usable_model_and_the_curve_and_exits_cleanly(tmp_path):
    """A real Ctrl-C: SIGINT to the whole process group (the trainer and its SubprocVecEnv
    workers), as a terminal sends it, once the first evaluation line is out."""
    out = tmp_path / "run"
    cmd = [sys.executable, "-m", "baralho", "train", "rodizio_v1", "--algo", "sb3", "--timesteps", "10000000",
           "--num-envs", "2", "--vec", "subproc", "--eval-every", "256", "--eval-games", "4",
           "--snapshot-every", "100000000", "--out", str(out)]
    proc = subprocess.Popen(cmd, cwd=Path(__file__).resolve().parents[2], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        deadline = time.monotonic() + 300
        for line in proc.stdout:
            if "timesteps: win rate" in line or time.monotonic() > deadline:
                break
        os.killpg(proc.pid, signal.SIGINT)
        rest, err = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130, err[-3000:]
    assert "Traceback" not in err, err[-3000:]
    assert "interrupted at" in rest and "| heuristic |" in rest
    report = json.loads((out / "curve.json").read_text())
    assert report["interrupted"] and 0 < report["curve"][-1]["timesteps"] < 10_000_000
    from baralho.agents import make_agent

    agent = make_agent(f"ppo:{out / 'final.json'}", "rodizio_v1")
    env = baralho.make("rodizio_v1")
    env.reset(seed=0)
    obs = env.observe(env.agent_selection)
    assert obs["action_mask"][agent.act(obs, env.agent_selection)]
