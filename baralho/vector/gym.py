"""Single-learner views of a batch: gymnasium's ``VectorEnv`` and SB3's ``VecEnv``.

In every env of the batch one seat is the learner's (drawn anew each game from
the env's own stream, or fixed with ``seat=``); the other seats are played by
``opponent`` between the learner's decisions, batched:

* ``"random"``: uniform over the legal moves, drawn in numpy for the whole batch;
* ``"heuristic"``: the game's rule-based player (a Python loop over the envs
  where it acts: as slow as the reference engine);
* a callable ``(obs (k, D), mask (k, A), seat (k,)) -> actions (k,)``, e.g. a
  frozen policy's batched forward pass.

``step`` returns the learner's reward since its last decision (its terminal
reward too when an opponent's move ends the game), and ``terminated`` when its
game ended; the env has then been re-dealt and advanced to the learner's first
decision (gymnasium's same-step autoreset: ``metadata["autoreset_mode"]``). The
terminal observation is not kept (a terminal state's value is 0, and no game is
truncated). The mask is ``info["action_mask"]`` (gymnasium's masked envs and
AgileRL read it there) and ``action_masks()`` (sb3-contrib's MaskablePPO).
"""

from __future__ import annotations

from collections.abc import Callable

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode

import baralho.vector as bv


def _uniform(rng: np.random.Generator) -> Callable:
    # noise in [1, 2), not [0, 1): a float32 draw of exactly 0 (one in 2**24) on the only legal
    # action tied it with the illegal ones, and argmax picked action 0
    return lambda obs, mask, seat: ((rng.random(mask.shape, np.float32) + 1) * mask).argmax(1)


def _heuristic(env_id: str, config: dict, seed: int | None) -> Callable:
    from baralho.agents import make_agent

    agent = make_agent("heuristic", env_id, seed=seed, config=config)
    return lambda obs, mask, seat: np.array(
        [agent.act({"observation": o, "action_mask": m}, f"player_{s}") for o, m, s in zip(obs, mask, seat)],
        np.int64)


class LearnerVectorEnv(gymnasium.vector.VectorEnv):
    """``num_envs`` games, one learner seat each, opponents moved in between (see module docstring)."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(self, env_id: str, num_envs: int, opponent: str | Callable = "random", seat: int | None = None,
                 seed: int | None = None, engine: str | None = None, threads: int = 1, **config) -> None:
        self.venv = bv.make(env_id, num_envs=num_envs, seed=seed, engine=engine, threads=threads, **config)
        n = self.venv.num_players
        if seat is not None and not (isinstance(seat, int) and 0 <= seat < n):
            raise ValueError(f"{env_id}: seat={seat!r} must be a seat in 0..{n - 1} or None (random)")
        self.num_envs = num_envs
        self.fixed_seat = seat
        self.rng = np.random.default_rng(seed)
        if opponent == "random":
            self.opponent = _uniform(np.random.default_rng(None if seed is None else seed + 1))
        elif opponent == "heuristic":
            self.opponent = _heuristic(env_id, config, seed)
        elif callable(opponent):
            self.opponent = opponent
        else:
            raise ValueError(f"{env_id}: opponent={opponent!r} must be 'random', 'heuristic' or a callable")
        self.single_observation_space = self.venv.single_observation_space
        self.single_action_space = self.venv.single_action_space
        self.observation_space = spaces.Box(
            np.broadcast_to(self.single_observation_space.low, (num_envs, self.venv.obs_size)),
            np.broadcast_to(self.single_observation_space.high, (num_envs, self.venv.obs_size)),
            dtype=self.venv.obs_dtype)
        self.action_space = spaces.MultiDiscrete(np.full(num_envs, self.venv.num_actions))
        self.learner = np.zeros(num_envs, np.int64)
        self._mask = None

    def _new_learners(self, which: np.ndarray) -> None:
        n = self.venv.num_players
        self.learner[which] = self.fixed_seat if self.fixed_seat is not None else self.rng.integers(n, size=which.sum())

    def _advance(self, obs, mask, seat, reward, terminated):
        """Move the opponents until every env waits for its learner."""
        while True:
            waiting = seat != self.learner
            if not waiting.any():
                return obs, mask
            actions = np.zeros(self.num_envs, np.int64)
            actions[waiting] = self.opponent(obs[waiting], mask[waiting], seat[waiting])
            obs, mask, seat, rewards, done = self.venv.step(actions, active=waiting)
            reward += rewards[np.arange(self.num_envs), self.learner]
            terminated |= done
            self._new_learners(done)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if seed is not None:
            self.rng = np.random.default_rng(seed)
        obs, mask, seat = self.venv.reset(seed=seed)
        self._new_learners(np.ones(self.num_envs, bool))
        obs, self._mask = self._advance(obs, mask, seat, np.zeros(self.num_envs, np.float32),
                                        np.zeros(self.num_envs, bool))
        return obs, {"action_mask": self._mask}

    def step(self, actions):
        obs, mask, seat, rewards, done = self.venv.step(np.asarray(actions, np.int64))
        reward = rewards[np.arange(self.num_envs), self.learner].astype(np.float32)
        terminated = done.copy()
        self._new_learners(done)
        obs, self._mask = self._advance(obs, mask, seat, reward, terminated)
        return (obs, reward, terminated, np.zeros(self.num_envs, bool),
                {"action_mask": self._mask, "learner_seat": self.learner.copy()})

    def action_masks(self) -> np.ndarray:
        return self._mask.astype(bool)


def sb3_vec_env(env_id: str, num_envs: int, opponent: str | Callable = "random", seed: int | None = None,
                **kwargs):
    """The same view as Stable-Baselines3's ``VecEnv`` (``MaskablePPO`` finds ``action_masks``)."""
    from stable_baselines3.common.vec_env import VecEnv

    class BaralhoVecEnv(VecEnv):
        def __init__(self) -> None:
            self.inner = LearnerVectorEnv(env_id, num_envs, opponent=opponent, seed=seed, **kwargs)
            super().__init__(num_envs, self.inner.single_observation_space, self.inner.single_action_space)
            self._actions = None

        def reset(self):
            obs, _ = self.inner.reset(seed=self._seeds[0] if self._seeds and self._seeds[0] is not None else None)
            self._reset_seeds()
            return obs

        def step_async(self, actions) -> None:
            self._actions = actions

        def step_wait(self):
            obs, reward, terminated, _, info = self.inner.step(self._actions)
            infos = [{"learner_seat": int(s)} for s in info["learner_seat"]]
            return obs, reward, terminated, infos

        def action_masks(self) -> np.ndarray:
            return self.inner.action_masks()

        def close(self) -> None:
            pass

        def get_attr(self, attr_name, indices=None):
            return [getattr(self, attr_name)] * len(self._indices(indices))

        def set_attr(self, attr_name, value, indices=None) -> None:
            setattr(self, attr_name, value)

        def env_method(self, method_name, *args, indices=None, **kwargs):
            if method_name == "action_masks":       # sb3-contrib asks every env for its mask
                return list(self.inner.action_masks()[self._indices(indices)])
            return [getattr(self, method_name)(*args, **kwargs)] * len(self._indices(indices))

        def env_is_wrapped(self, wrapper_class, indices=None):
            return [False] * len(self._indices(indices))

        def has_attr(self, attr_name) -> bool:
            return attr_name == "action_masks" or hasattr(self, attr_name)

        def _indices(self, indices):
            if indices is None:
                return list(range(self.num_envs))
            return [indices] if isinstance(indices, int) else list(indices)

    return BaralhoVecEnv()
