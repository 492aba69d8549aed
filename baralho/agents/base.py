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


def bind_if_needed(agent: Any, env: Any) -> None:
    """Give search agents the env (they declare a ``bind(env)`` method)."""
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
