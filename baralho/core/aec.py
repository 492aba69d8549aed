"""ONE PettingZoo ``AECEnv`` over any :class:`~baralho.core.game.Game`.

Every baralho env is this class bound to a game; the env modules only name the
game, its config and its docstring. What it guarantees, for every game:

* agents ``player_0 … player_{n-1}``; seat ``i`` is ``player_i``;
* ``observation_space(agent)`` is one cached
  ``Dict({"observation": Box(float32), "action_mask": Box(0, 1, (A,), int8)})``;
  ``observe(agent)["action_mask"]`` is the legal mask for the acting agent and
  all zeros for every other agent (they have no move now); every ``observe``
  hands out a fresh, writable copy (torch and in-place edits expect one), so
  editing it never changes what the env accepts;
* rewards are produced by the game (at the end, and at round ends where the
  game has rounds) and accumulated the PettingZoo way (``rewards`` holds the
  last step's, ``last()`` returns the sum since the agent last acted);
* when the game ends every agent is terminated and removed by dead steps
  (``step(None)``), as in PettingZoo's classic envs;
* ``reset(seed)`` drives one ``np.random.Generator`` and nothing else;
  ``reset()`` without a seed continues that generator;
* an illegal action raises ``ValueError`` naming the agent, the action and the
  legal ones, and leaves the state unchanged; with
  ``illegal_action="penalize"`` it ends the game instead, the offender
  receiving ``illegal_reward`` and ``infos[agent]["illegal_action"]``;
  ``env.unwrapped.returns()`` is every seat's result either way (the game's, or the
  rewards handed out up to and including the penalty), for records and win rates;
* ``last()`` before ``reset()``, ``step()`` once every agent is removed and
  ``observe()`` of an unknown agent raise errors that say so;
* ``render_mode`` ``"ansi"`` (returns text), ``"human"`` (prints it) or
  ``"rgb_array"`` (a picture, for games that draw themselves; advertised in
  ``metadata["render_modes"]`` only when Pillow is installed)
  from ``render_view``: ``"current"`` (the acting player's view),
  ``"omniscient"``, or a seat index;
* ``env.unwrapped.game`` and ``env.unwrapped.game_state`` for search agents and tools.

``env()`` returns this env without PettingZoo's wrapper chain: the checks those
wrappers make (order of calls, action bounds, illegal moves) are done here once
per step. ``TerminateIllegalWrapper`` alone calls ``observe`` on every step to
read the mask; benchmarks/throughput.py measures the chain's cost.
"""

from __future__ import annotations

import functools
import importlib.util
import operator
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from baralho.core.ansi import colorize, wants_colour
from baralho.core.config import ConfigError
from baralho.core.game import Game

RENDER_MODES = ("ansi", "human", "rgb_array")
ILLEGAL_MODES = ("raise", "penalize")


@functools.cache
def has_pillow() -> bool:
    """Whether ``render_mode="rgb_array"`` can draw (Pillow comes with the train and render extras)."""
    return importlib.util.find_spec("PIL") is not None


def render_modes(game: Game) -> list[str]:
    """The render modes that work for ``game`` in this install (rgb_array needs a
    ``render_image`` and Pillow), so that tools iterating ``metadata["render_modes"]``,
    such as PettingZoo's render_test, only meet modes that work."""
    return [m for m in RENDER_MODES if m != "rgb_array" or (hasattr(game, "render_image") and has_pillow())]


class BaralhoEnv(AECEnv):
    """The generic AEC adapter. Subclasses (one per game) only build the game."""

    metadata: dict[str, Any] = {
        "render_modes": list(RENDER_MODES),
        "name": "baralho",
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(self, game: Game, render_mode: str | None = None,
                 illegal_action: str = "raise", illegal_reward: float = -1.0,
                 render_view: str | int = "current", engine: str | None = None) -> None:
        super().__init__()
        from baralho.core.compiled import select_engine

        # the compiled engine by default where the game has one (baralho/core/compiled.py)
        game = select_engine(game, engine)
        self.engine = getattr(game, "engine", "reference")
        name = game.env_id
        self.metadata = {**self.metadata, "render_modes": render_modes(game)}
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            why = ""
            if render_mode == "rgb_array" and hasattr(game, "render_image"):
                why = ' (rgb_array needs Pillow: pip install "baralho[render]")'
            raise ConfigError(f"{name}: render_mode={render_mode!r} must be one of "
                              f"{self.metadata['render_modes']} or None{why}")
        if illegal_action not in ILLEGAL_MODES:
            raise ConfigError(f"{name}: illegal_action={illegal_action!r} must be one of {list(ILLEGAL_MODES)}")
        if isinstance(illegal_reward, bool) or not isinstance(illegal_reward, (int, float)) \
                or not np.isfinite(illegal_reward):
            raise ConfigError(f"{name}: illegal_reward={illegal_reward!r} must be a finite number")
        if not (render_view in ("current", "omniscient") or (
                isinstance(render_view, int) and not isinstance(render_view, bool)
                and 0 <= render_view < game.num_players)):
            raise ConfigError(f"{name}: render_view={render_view!r} must be 'current', 'omniscient' "
                              f"or a seat in 0..{game.num_players - 1}")
        self.game = game
        # a compiled game can write the next observation in the same call as the move
        self._apply = getattr(game, "apply_observing", game.apply)
        self.render_mode = render_mode
        self.illegal_action = illegal_action
        self.illegal_reward = float(illegal_reward)
        self.render_view = render_view

        n, num_actions = game.num_players, game.num_actions
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        obs_space = spaces.Dict({
            "observation": game.obs_layout.box(),
            "action_mask": spaces.Box(0, 1, (num_actions,), np.int8),
        })
        act_space = spaces.Discrete(num_actions)
        # One object per env, returned for every agent (api_test checks identity).
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: act_space for a in self.possible_agents}
        self._rng = np.random.default_rng()
        self.game_state = None  # the live game state; not `state`, which is AECEnv.state() (no global-state space here)
        self.agents = []

    # ------------------------------------------------------------------ spaces
    def observation_space(self, agent: str) -> spaces.Dict:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Discrete:
        return self.action_spaces[agent]

    # ------------------------------------------------------------------- reset
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Deal a new game. ``options`` is accepted for the API and unused."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self.game_state = self.game.new_state(self._rng)
        agents = self.possible_agents
        self.agents = agents.copy()
        # dict.fromkeys over comprehensions: a short game resets every dozen steps (measured)
        self.rewards = dict.fromkeys(agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(agents, 0.0)
        self.terminations = dict.fromkeys(agents, False)
        self.truncations = dict.fromkeys(agents, False)
        self.infos = {a: {} for a in agents}
        self._rewards_dirty = False
        self._skip_agent_selection = None
        self._acting = self.game.current_player(self.game_state)
        self._mask = None
        self._penalized = False
        self._earned = np.zeros(self.game.num_players)      # rewards handed out this episode, per seat
        self.agent_selection = self.possible_agents[self._acting]
        if self.render_mode == "human":
            self.render()

    def returns(self) -> np.ndarray:
        """Every seat's result: the game's returns, or after an illegal move under
        ``illegal_action="penalize"`` the rewards handed out (the offender's penalty included)."""
        if self.game_state is None:
            raise RuntimeError(f"{self.game.env_id}: call reset() before returns()")
        return self._earned.copy() if self._penalized else self.game.returns(self.game_state)

    def last(self, observe: bool = True):
        try:
            return super().last(observe)
        except (AttributeError, KeyError):
            if self.game_state is None:
                raise RuntimeError(f"{self.game.env_id}: call reset() before last()") from None
            if not self.agents:
                raise RuntimeError(f"{self.game.env_id}: the game is over and every agent has been removed; "
                                   f"call reset()") from None
            raise

    # ----------------------------------------------------------------- observe
    def _legal(self) -> np.ndarray:
        """The acting seat's mask, computed once per step and kept read-only:
        ``step`` checks actions against it, ``observe`` hands out copies."""
        mask = self._mask
        if mask is None:
            mask = self.game.legal_mask(self.game_state)
            if mask.flags.writeable:   # reading the flag costs a sixth of setting it (measured)
                mask.flags.writeable = False
            self._mask = mask
        return mask

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        if self.game_state is None:
            raise RuntimeError(f"{self.game.env_id}: call reset() before observe()")
        try:
            seat = self._seat[agent]
        except (KeyError, TypeError):
            raise ValueError(f"{self.game.env_id}: no agent {agent!r}; the agents are {self.possible_agents}") from None
        if seat == self._acting:
            # a copy: a learner may keep or edit it (torch.as_tensor warns on read-only
            # arrays), and the env's own mask stays as the game made it
            mask = (self._mask if self._mask is not None else self._legal()).copy()
        else:
            mask = np.zeros(self.game.num_actions, np.int8)
        return {"observation": self.game.observe(self.game_state, seat), "action_mask": mask}

    # -------------------------------------------------------------------- step
    def step(self, action: Any) -> None:
        if self.game_state is None:
            raise RuntimeError(f"{self.game.env_id}: call reset() before step()")
        agent = self.agent_selection
        try:
            dead = self.terminations[agent] or self.truncations[agent]
        except KeyError:            # every agent removed by its dead step
            raise RuntimeError(f"{self.game.env_id}: the game is over and every agent has been removed; "
                               f"call reset()") from None
        if dead:
            self._was_dead_step(action)
            return
        # fast path for plain in-range ints; anything else goes through the full checks
        a = action if type(action) is int and 0 <= action < self.game.num_actions \
            else self._as_action(action, agent)
        mask = self._mask if self._mask is not None else self._legal()
        if not mask[a]:
            if self.illegal_action == "raise":
                raise ValueError(self._illegal_message(a, agent, mask))
            self._penalize(a, agent)
            return

        self._cumulative_rewards[agent] = 0.0
        r = self._apply(self.game_state, a)
        self._mask = None
        if r is not None or self._rewards_dirty:
            self._set_rewards(r)
        acting = self._acting = self.game.current_player(self.game_state)   # -1 once over
        if acting < 0:
            for ag in self.agents:
                self.terminations[ag] = True
        else:
            self.agent_selection = self.possible_agents[acting]
        if self.render_mode == "human":
            self.render()

    def _was_dead_step(self, action: Any) -> None:
        """AECEnv's, in O(1) per call: its scan for the next dead agent is a list of all of them,
        built on every dead step (quadratic in the players; 2.3% of a 5-player Rodízio random-play
        loop, pyinstrument). Same order and bookkeeping: a dead agent is removed, the next dead one
        is selected, and once none is left the selection AECEnv saved is restored."""
        if action is not None:
            raise ValueError("when an agent is dead, the only valid action is None")
        agent = self.agent_selection
        terminations, truncations = self.terminations, self.truncations
        del terminations[agent], truncations[agent], self.rewards[agent], self._cumulative_rewards[agent], \
            self.infos[agent]
        self.agents.remove(agent)
        # every agent ends with the game at once, so the first one left is almost always dead
        nxt = next((ag for ag in self.agents if terminations[ag] or truncations[ag]), None)
        if nxt is not None:
            if self._skip_agent_selection is None:
                self._skip_agent_selection = agent
            self.agent_selection = nxt
        else:
            if self._skip_agent_selection is not None:
                self.agent_selection = self._skip_agent_selection
            self._skip_agent_selection = None
        rewards = self.rewards
        for ag in rewards:
            rewards[ag] = 0

    def _set_rewards(self, r) -> None:
        rewards, cum = self.rewards, self._cumulative_rewards
        if r is None:
            for ag in rewards:
                rewards[ag] = 0.0
        else:
            earned = self._earned
            for i, ag in enumerate(self.possible_agents):
                rewards[ag] = x = float(r[i])
                cum[ag] += x
                earned[i] += x
        self._rewards_dirty = r is not None

    def _as_action(self, action: Any, agent: str) -> int:
        name = self.game.env_id
        if action is None:
            raise ValueError(f"{name}: {agent} is not done; step(None) is only for terminated agents")
        if isinstance(action, (bool, np.bool_)):
            raise ValueError(f"{name}: action {action!r} for {agent} must be an integer, not a bool")
        try:
            a = operator.index(action)
        except TypeError:
            raise ValueError(f"{name}: action {action!r} for {agent} must be an integer "
                             f"in 0..{self.game.num_actions - 1}") from None
        if not 0 <= a < self.game.num_actions:
            raise ValueError(f"{name}: action {a} for {agent} is outside the action space "
                             f"0..{self.game.num_actions - 1}")
        return a

    def _illegal_message(self, a: int, agent: str, mask: np.ndarray) -> str:
        game, state = self.game, self.game_state
        legal = np.flatnonzero(mask)
        shown = ", ".join(f"{b} ({game.describe_action(state, int(b))})" for b in legal[:24])
        more = f", … {len(legal) - 24} more" if len(legal) > 24 else ""
        return (f"{game.env_id}: illegal action {a} ({game.describe_action(state, a)}) for {agent}; "
                f"legal actions: {shown}{more}")

    def _penalize(self, a: int, agent: str) -> None:
        """illegal_action='penalize': end the game, the offender pays."""
        self._cumulative_rewards[agent] = 0.0
        for ag in self.agents:
            self.rewards[ag] = 0.0
            self.terminations[ag] = True
        self.rewards[agent] = self.illegal_reward
        self._cumulative_rewards[agent] += self.illegal_reward
        self._earned[self._seat[agent]] += self.illegal_reward
        self._penalized = True
        self._rewards_dirty = True
        self.infos[agent] = {"illegal_action": a}
        self._acting = -1
        self._mask = None

    # ------------------------------------------------------------------ render
    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            import gymnasium
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi' or 'human'")
            return None
        if self.game_state is None:
            text = f"{self.game.env_id}: not reset"
        else:
            view = self.render_view
            if view == "current":
                view = self._acting if self._acting >= 0 else None
            elif view == "omniscient":
                view = None
            if self.render_mode == "rgb_array":
                return self.game.render_image(self.game_state, view)
            text = self.game.render_text(self.game_state, view)
        if self.render_mode == "human":
            rules = getattr(self.game, "ansi_rules", ())
            print(colorize(text, rules) if rules and wants_colour() else text)
            return None
        return text

    def close(self) -> None:
        pass

    def __str__(self) -> str:
        return self.game.env_id
