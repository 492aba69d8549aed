"""Information-set Monte Carlo tree search, generic over every baralho Game.

Single-observer ISMCTS (Cowling, Powley & Whitehouse 2012): each iteration
draws a *determinization* — a full state consistent with what the acting seat
knows, from ``game.resample_hidden`` — and walks one shared tree of action
histories with UCB, counting for each action how often it was available
("availability" counts), so that actions legal in only some determinizations
are not over-explored. Rollouts play random legal moves (or a given rollout
policy over the determinized state) to the end of the episode; every node
backs up the return of the seat that acts there.

The agent reads the live state only through ``resample_hidden``, whose draw
depends only on what the seat knows (the conformance suite checks it), so its
decisions are unchanged when the true hidden state is swapped for another one
consistent with the same observation (tests/agents checks that too).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np


@dataclass
class _Node:
    visits: dict[int, int] = field(default_factory=dict)
    value: dict[int, float] = field(default_factory=dict)
    avail: dict[int, int] = field(default_factory=dict)
    children: dict[int, _Node] = field(default_factory=dict)


class ISMCTSAgent:
    """``ISMCTSAgent(simulations=200)`` or ``ISMCTSAgent(seconds=0.5)`` per move."""

    def __init__(self, simulations: int | None = 200, seconds: float | None = None,
                 exploration: float = 0.7, max_rollout: int = 10_000, seed: int | None = None) -> None:
        if simulations is None and seconds is None:
            raise ValueError("ISMCTSAgent needs a budget: simulations or seconds")
        if simulations is not None and simulations < 1:
            raise ValueError(f"simulations={simulations} must be >= 1")
        self.simulations = simulations
        self.seconds = seconds
        self.c = exploration
        self.max_rollout = max_rollout
        self.rng = np.random.default_rng(seed)
        self.env = None
        budget = f"{simulations}" if seconds is None else f"{seconds}s"
        self.name = f"ismcts:{budget}"

    def bind(self, env) -> None:
        self.env = env.unwrapped

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def act(self, observation: dict[str, np.ndarray], agent_id: str) -> int:
        if self.env is None:
            raise RuntimeError("ISMCTSAgent.act needs bind(env) first (it searches the env's game)")
        legal = np.flatnonzero(observation["action_mask"])
        if len(legal) == 1:
            return int(legal[0])
        game, state = self.env.game, self.env.state
        seat = self.env.possible_agents.index(agent_id)
        return self.search(game, state, seat)

    def search(self, game, state, seat: int) -> int:
        root = _Node()
        rng = self.rng
        deadline = None if self.seconds is None else time.perf_counter() + self.seconds
        n = 0
        while True:
            det = game.resample_hidden(state, seat, rng)   # the only read of the live state
            self._iterate(game, det, root, rng)
            n += 1
            if self.simulations is not None and n >= self.simulations:
                break
            if deadline is not None and time.perf_counter() >= deadline:
                break
        # most visited root action (ties: lowest id, deterministic)
        return max(sorted(root.visits), key=lambda a: root.visits[a])

    def _iterate(self, game, s, root: _Node, rng: np.random.Generator) -> None:
        path: list[tuple[_Node, int, int]] = []
        node = root
        while not game.is_over(s):
            legal = np.flatnonzero(game.legal_mask(s)).tolist()
            actor = game.current_player(s)
            for a in legal:
                node.avail[a] = node.avail.get(a, 0) + 1
            fresh = [a for a in legal if a not in node.children]
            if fresh:
                a = fresh[int(rng.integers(len(fresh)))]
                node.children[a] = _Node()
                path.append((node, a, actor))
                game.apply(s, a)
                break
            a = self._ucb(node, legal)
            path.append((node, a, actor))
            game.apply(s, a)
            node = node.children[a]
        self._rollout(game, s, rng)
        ret = game.returns(s)
        for nd, a, actor in path:
            nd.visits[a] = nd.visits.get(a, 0) + 1
            nd.value[a] = nd.value.get(a, 0.0) + float(ret[actor])

    def _ucb(self, node: _Node, legal: list[int]) -> int:
        best, best_score = legal[0], -math.inf
        for a in legal:
            v = node.visits.get(a, 0)
            if v == 0:
                return a
            score = node.value[a] / v + self.c * math.sqrt(math.log(node.avail[a]) / v)
            if score > best_score:
                best, best_score = a, score
        return best

    def _rollout(self, game, s, rng: np.random.Generator) -> None:
        for _ in range(self.max_rollout):
            if game.is_over(s):
                return
            legal = np.flatnonzero(game.legal_mask(s))
            game.apply(s, int(legal[rng.integers(len(legal))]))
