"""SB3 MaskablePPO steps/s on each env's single-agent view next to a trivial env
of the same observation and action sizes, in the same run: the env must not be
the bottleneck of training. Beside them, the batched self-play trainer
(training/selfplay.py) on the same game, with its per-game defaults (no warm
start): decisions per second over its whole run, evaluations included."""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path

import gymnasium as gym
import numpy as np

import baralho


class TrivialMasked(gym.Env):
    """Zero observations, all actions legal, episodes of ``length`` steps."""

    def __init__(self, obs_size: int, num_actions: int, length: int = 10) -> None:
        self.observation_space = gym.spaces.Box(0, 1, (obs_size,), np.float32)
        self.action_space = gym.spaces.Discrete(num_actions)
        self.length, self.t = length, 0
        self._obs = np.zeros(obs_size, np.float32)

    def reset(self, seed=None, options=None):
        super().reset(seed=seed)
        self.t = 0
        return self._obs, {}

    def step(self, action):
        self.t += 1
        return self._obs, 0.0, self.t >= self.length, False, {}

    def action_masks(self):
        return np.ones(self.action_space.n, bool)


def sb3_fps(make_env, timesteps: int, n_envs: int = 2) -> float:
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.logger import Logger

    torch.set_num_threads(1)
    venv = make_vec_env(make_env, n_envs=n_envs)
    model = MaskablePPO("MlpPolicy", venv, n_steps=512, batch_size=256, n_epochs=4,
                        policy_kwargs=dict(net_arch=[128, 128]), device="cpu", seed=0)
    # No output: without a logger of its own, learn() makes an empty /tmp/SB3-<time> folder per call.
    model.set_logger(Logger(folder=None, output_formats=[]))
    model.learn(512 * n_envs)                # warm-up: first rollout and update
    t = time.perf_counter()
    model.learn(timesteps, reset_num_timesteps=False)
    return timesteps / (time.perf_counter() - t)


def measure(env_id: str, timesteps: int) -> dict:
    from baralho.training.single_agent import SingleAgentEnv

    game = baralho.make(env_id).unwrapped.game
    ours = sb3_fps(lambda: SingleAgentEnv(env_id, opponents=["random"]), timesteps)
    trivial = sb3_fps(lambda: TrivialMasked(game.obs_layout.size, game.num_actions), timesteps)
    return dict(env=env_id, fps=ours, trivial_fps=trivial, ratio=ours / trivial)


def selfplay_fps(env_id: str, decisions: int, quick: bool = False) -> dict:
    """The self-play trainer's own whole-run figures: every seat's env decisions per second,
    and the learner's (the decisions PPO trained on: what SB3's timesteps count)."""
    from baralho.training import selfplay as sp

    small = dict(num_envs=16, rollout=8) if quick else {}
    with tempfile.TemporaryDirectory() as out:
        cfg = sp.config_for(env_id, decisions=decisions, eval_every=1 << 60, eval_games=1, out=out,
                            progress=False, **small)
        cfg.warm_start = None                # throughput of the PPO loop itself
        sp.train(cfg)
        s = json.loads((Path(out) / "summary.json").read_text())
    return dict(decisions_per_s=s["decisions_per_second"], learner_per_s=s["learner_decisions_per_second"])
