"""A rule-based Rodízio player that reads only its observation.

The whole table is public, so it can look one move ahead exactly: for each
plate it may serve it works out which pizza(s) it would eat, then prefers the
move that leaves its total just below the best other total (the Comilão's
included) — second place wins. As the leader it eats as little as it can.
With ``memory="none"`` the other totals are estimated from pile sizes.
"""

from __future__ import annotations

import numpy as np

from baralho.core.chance import seeded
from baralho.envs.rodizio import cards as C
from baralho.envs.rodizio.rules import EAT, RodizioGame

_MEAN_PIZZA = C.TOTAL_VALUE / C.NUM_PIZZAS


class RodizioHeuristic:
    name = "heuristic"

    def __init__(self, game: RodizioGame, seed: int | None = None) -> None:
        self.layout = game.obs_layout
        self.rng = seeded(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = seeded(seed)

    def act(self, observation: dict, agent_id: str) -> int:
        obs = self.layout.decode(observation["observation"])
        legal = np.flatnonzero(observation["action_mask"]).tolist()
        if len(legal) == 1:
            return legal[0]
        # stacks, top first: (value, plaquinha, livre, dupla)
        stacks = [[tuple(row[1:]) for row in plate[: int(size)]]
                  for plate, size in zip(obs["plates"], obs["stack_size"])]
        spicy, perfect = bool(obs["flags"][0]), bool(obs["flags"][1])
        others = [t if perfect else n * _MEAN_PIZZA
                  for t, n in zip(obs["eaten_total"][1:], obs["eaten_count"][1:])]
        mine = float(obs["eaten_total"][0])
        target = max(others) - 1 if others else mine
        pending = np.flatnonzero(obs["pending"])

        def score(gain: float) -> float:
            return -abs(target - (mine + gain)) + 1e-3 * self.rng.random()

        if len(pending):                                # Escolha Livre: pick the depth
            st = stacks[int(pending[0])]
            return max(legal, key=lambda a: score(st[a - EAT][0]))
        return max(legal, key=lambda p: score(self._gain(stacks, p, spicy)))

    @staticmethod
    def _gain(stacks: list[list[tuple]], plate: int, spicy: bool) -> float:
        """Pizza value eaten by serving ``plate`` (the best choice on an Escolha Livre)."""
        st = [list(s) for s in stacks]
        hand = st[plate]
        st[plate] = []
        q = plate
        for card in hand:                               # top card first, clockwise
            q = (q + 1) % 3
            st[q].insert(0, card)
        if any(c[1] for c in hand):
            return 0.0                                  # the plaquinha was in the plate
        last = hand[-1]
        if spicy and last[2]:                           # Escolha Livre: best pizza there
            return max((c[0] for c in st[q] if not c[1]), default=0.0)
        gain = 0.0
        for _ in range(2 if spicy and last[3] else 1):
            if not st[q]:
                break
            k = 1 if len(st[q]) >= 2 else 0
            if st[q][k][1]:
                break
            gain += st[q].pop(k)[0]
        return gain


#: the registry finds every game's heuristic under this name (baralho.agents.heuristic_for)
Heuristic = RodizioHeuristic
