"""A gymnasium view of any baralho env for single-agent learners (MaskablePPO).

The learner takes one seat (random per episode by default); every other seat
is played by an opponent Agent inside ``step``. The learner receives ITS OWN
reward for everything that happened since its last move — including the
terminal reward when an opponent's move ends the game (PettingZoo's SB3 recipe
got both wrong: PettingZoo #1147).

The learner's mask, two ways: ``action_masks()`` (bool, what sb3-contrib's
MaskablePPO calls) and ``info["action_mask"]`` (int8) from ``reset`` and every
``step`` (where AgileRL and gymnasium's own masked envs read it). Once the
episode is over both are all ones: there is no move left, and an all-zero mask
would break a masked softmax in the step a vector env spends resetting.
``gymnasium.make`` returns this env itself (the ids are registered without
gymnasium's OrderEnforcing and PassiveEnvChecker wrappers, whose checks it makes
itself), so ``gymnasium.make(...).action_masks()`` works; under further wrappers
use ``env.get_wrapper_attr("action_masks")()``, as SB3's vector envs do.

gymnasium's and SB3's ``check_env`` step with actions sampled WITHOUT the mask:
build the env with ``illegal_action="penalize"`` for them (an illegal action then
ends the episode with ``illegal_reward``) instead of the default, which raises.

Opponents: agent specs (``"random"``, ``"heuristic"``, ``"ismcts:50"``,
``"ppo:PATH"``) or Agent objects; one is drawn per episode, with weights if
given. ``add_opponent`` grows the pool during training (self-play snapshots).
"""

from __future__ import annotations

from collections.abc import Sequence

import gymnasium as gym
import numpy as np

import baralho
from baralho.agents import bind_if_needed, make_agent
from baralho.core.aec import RENDER_MODES


class SingleAgentEnv(gym.Env):
    # every mode the class may offer, for gymnasium.make's check before it builds the
    # env; each instance narrows it to what its AEC env offers (rgb_array needs Pillow)
    metadata = {"render_modes": list(RENDER_MODES), "render_fps": 1}

    def __init__(self, env_id: str, opponents: Sequence = ("random",), seat: int | str = "random",
                 weights: Sequence[float] | None = None, render_mode: str | None = None, **config) -> None:
        self.env_id = env_id
        self.config = config
        self.aec = baralho.make(env_id, render_mode=render_mode, **config)
        self.game = self.aec.unwrapped.game
        n = self.game.num_players
        if not (seat == "random" or (isinstance(seat, int) and 0 <= seat < n)):
            raise ValueError(f"seat={seat!r} must be 'random' or a seat in 0..{n - 1}")
        if not opponents:
            raise ValueError("at least one opponent is needed")
        self.seat_choice = seat
        self.opponents: list = []
        self.weights: list[float] = []
        self._snapshots: list = []       # self-play opponents, replaced by set_snapshots
        for i, opp in enumerate(opponents):
            self.add_opponent(opp, 1.0 if weights is None else float(weights[i]))
        self.observation_space = self.aec.observation_space("player_0")["observation"]
        self.action_space = self.aec.action_space("player_0")
        self.render_mode = render_mode
        self.metadata = {**self.metadata, "render_modes": list(self.aec.metadata["render_modes"])}
        self._rng = np.random.default_rng()
        self.learner = "player_0"

    def add_opponent(self, opponent, weight: float = 1.0) -> None:
        if isinstance(opponent, str):
            opponent = make_agent(opponent, self.env_id, config=self.config)
        self.opponents.append(opponent)
        self.weights.append(weight)

    def set_snapshots(self, paths: Sequence[str], weight: float = 1.0) -> None:
        """Replace the self-play part of the pool with these policies (cards, agents/policy.py)."""
        keep = [(o, w) for o, w in zip(self.opponents, self.weights) if not any(o is s for s in self._snapshots)]
        self.opponents, self.weights = [o for o, _ in keep], [w for _, w in keep]
        self._snapshots = [make_agent(f"ppo:{p}", self.env_id, config=self.config) for p in paths]
        for snap in self._snapshots:
            self.opponents.append(snap)
            self.weights.append(weight / max(len(paths), 1))

    # ------------------------------------------------------------------ gym API
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        n = self.game.num_players
        seat = int(self._rng.integers(n)) if self.seat_choice == "random" else self.seat_choice
        self.learner = f"player_{seat}"
        p = np.asarray(self.weights) / np.sum(self.weights)
        self._table = {}
        for s in range(n):
            if s != seat:
                opp = self.opponents[int(self._rng.choice(len(self.opponents), p=p))]
                self._table[f"player_{s}"] = opp
        self.aec.reset(seed=int(self._rng.integers(2**31)))
        # each distinct opponent once, in seat order (a set of ids would seed them in
        # memory-address order, different from run to run)
        for agent in {id(a): a for a in self._table.values()}.values():
            agent.reset(seed=int(self._rng.integers(2**31)))
            bind_if_needed(agent, self.aec)
        reward, over = self._play_opponents()
        if over:       # the game ended before the learner's first move: deal again
            return self.reset(options=options)
        return self._obs(), {"seat": seat, "action_mask": self._info_mask()}

    def step(self, action):
        aec = self.aec
        if aec.unwrapped.game_state is None:
            raise RuntimeError("call reset() before step()")
        if aec.agent_selection != self.learner or aec.terminations[self.learner]:
            raise RuntimeError("step() after the episode ended; call reset()")
        try:
            aec.step(action)
        except ValueError as err:
            if aec.unwrapped.illegal_action != "raise":
                raise
            raise ValueError(f"{err}. A sampler that ignores the mask (gymnasium's or SB3's check_env) needs "
                             f"illegal_action='penalize'") from None
        reward = aec.rewards[self.learner]
        more, over = self._play_opponents()
        reward += more
        return self._obs(), float(reward), over, False, {"action_mask": self._info_mask()}

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions (bool); all ones once the episode is over."""
        return self._info_mask().astype(bool)

    def render(self):
        return self.aec.render()

    # ------------------------------------------------------------------ internals
    def _info_mask(self) -> np.ndarray:
        if self.aec.unwrapped.game_state is None:
            raise RuntimeError("call reset() before action_masks()")
        if self.aec.terminations.get(self.learner, True):
            return np.ones(self.action_space.n, np.int8)     # no move left (see the module docstring)
        return self.aec.observe(self.learner)["action_mask"]   # a fresh copy

    def _obs(self) -> np.ndarray:
        return self.aec.observe(self.learner)["observation"]

    def _play_opponents(self) -> tuple[float, bool]:
        """Run opponents until the learner must move or the game ends; the
        learner's rewards from those moves are summed."""
        aec, total = self.aec, 0.0
        while True:
            if aec.terminations[self.learner] or aec.truncations[self.learner]:
                return total, True
            name = aec.agent_selection
            if name == self.learner:
                return total, False
            aec.step(self._table[name].act(aec.observe(name), name))
            total += aec.rewards[self.learner]
