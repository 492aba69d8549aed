"""The Agent protocol every player of a baralho env implements.

An agent sees exactly what the env gives its seat: the observation dict
(``"observation"`` vector and ``"action_mask"``) and its agent id. Search agents
additionally get the env through :meth:`Agent.bind` and may read the live state
ONLY through ``game.resample_hidden`` (what their seat could know).
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Agent(Protocol):
    name: str

    def reset(self, seed: int | None = None) -> None:
        """Start a new game; reseed the agent's own randomness."""
        ...

    def act(self, observation: dict[str, np.ndarray], agent_id: str) -> int:
        """The action for ``agent_id``; always one the mask allows."""
        ...


def table_of(game: Any) -> dict:
    """What an agent built for one table relies on: env, player count, observation and action sizes."""
    return dict(env_id=game.env_id, num_players=game.num_players, observation=game.obs_layout.size,
                actions=game.num_actions)


def check_table(agent: Any, env: Any) -> None:
    """Refuse an agent that ``make_agent`` built for another table (``agent.table``): a
    heuristic reads observation slices at fixed places and a policy has a fixed input,
    so on another env or player count they fail deep inside or, worse, play wrong moves."""
    built = getattr(agent, "table", None)
    if built is None:
        return
    here = table_of(env.unwrapped.game)
    if built != here:
        diff = ", ".join(f"{k} {built[k]} (this env: {here[k]})" for k in built if built[k] != here[k])
        raise ValueError(f"agent {getattr(agent, 'name', type(agent).__name__)!r} was built for another table: {diff}; "
                         f"build it for this one: make_agent(spec, {here['env_id']!r}, "
                         f"config={{'num_players': {here['num_players']}, ...}})")


def bind_if_needed(agent: Any, env: Any) -> None:
    """Check the agent fits the env (:func:`check_table`), and give search agents the
    env (they declare a ``bind(env)`` method)."""
    check_table(agent, env)
    bind = getattr(agent, "bind", None)
    if bind is not None:
        bind(env)


class RandomAgent:
    """Uniform over the legal actions, with its own seeded generator."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def act(self, observation: dict[str, np.ndarray], agent_id: str) -> int:
        legal = np.flatnonzero(observation["action_mask"])
        return int(legal[self.rng.integers(len(legal))])


def heuristic_for(env_id: str, game, seed: int | None = None):
    """The game's rule-based player (its folder's ``heuristic.py``; it reads only its observation)."""
    from baralho.envs import game_module

    module = game_module(env_id, "heuristic")
    if module is None:
        raise ValueError(f"{env_id} has no heuristic (baralho/envs/<game>/heuristic.py)")
    return module.Heuristic(game, seed=seed)
