"""A rule-based Chuche player that reads only its observation (and the mask).

The observation is int16: counts are cast to int before they are added up.
Captures the most points (clearing the table is worth a Chuche card), uses a
Coringa only when it pays, blocks valuable table cards in Bloqueio windows,
always defends with Escudo, plays Roubar/Bomba when it has no capture, and
places its least valuable card.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from baralho.core.chance import seeded
from baralho.envs.chuche.actions import (
    A_ADD,
    A_BLOCK,
    A_BOMBA,
    A_CAPTURE,
    A_COMMIT,
    A_COMMIT_CORINGA,
    A_ESCUDO,
    A_PASS,
    A_PLACE,
    A_ROUBAR,
)
from baralho.envs.chuche.cards import CORINGA, KIND_FRONT, KIND_POINTS, NUM_KINDS
from baralho.envs.chuche.observation import BLOQ_WINDOW, BOMBA_ROUND, CAPTURE, MAIN

CLEAR_BONUS = 3.0      # a Chuche card: 2-4 points plus its use
CORINGA_COST = 1.5     # what keeping a Coringa is worth
READS = ("hand", "capture_sum", "must_use", "table", "blocked", "target", "phase", "chuche_played",
         "chuche_deck", "hand_size", "chuche_held")        # the fields it decodes (of 28)


def _options(counts: list[int], need: set[int], limit: int):
    """Non-empty sub-multisets of table kinds (counts by kind) whose sum is in ``need``."""
    return _options_of(tuple(counts), frozenset(need), limit)


@lru_cache(maxsize=1 << 16)     # few distinct tables recur across games; the differential tests ask often
def _options_of(counts: tuple[int, ...], need: frozenset[int], limit: int) -> tuple:
    kinds = [k for k in range(NUM_KINDS) if counts[k]]
    out = []

    def rec(i: int, chosen: list[int], total: int) -> None:
        if i == len(kinds):
            if chosen and total in need:
                out.append((list(chosen), total))
            return
        k = kinds[i]
        for take in range(counts[k] + 1):
            t = total + take * KIND_FRONT[k]
            if t > limit:
                break
            rec(i + 1, chosen + [k] * take, t)

    rec(0, [], 0)
    return tuple(out)


class ChucheHeuristic:
    def __init__(self, game, seed: int | None = None) -> None:
        self.game = game
        self.layout = game.obs_layout
        self.rng = seeded(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = seeded(seed)

    # ------------------------------------------------------------- helpers
    @staticmethod
    def _hand(f) -> list[tuple[int, int]]:
        """(slot, kind) of the own hand cards."""
        out = []
        for i, row in enumerate(f["hand"]):
            if row.any():
                out.append((i, int(row[:6].argmax()) * 6 + int(row[6:12].argmax())))
        return out

    def _best_capture(self, f, start_sum: int, free_left: int):
        """Best (score, kinds, uses_coringa) completing a capture from ``start_sum``."""
        target = int(f["target"].argmax()) + 6
        free = [int(x) for x in f["table"]]
        own = [int(x) for x in f["blocked"][0]]
        counts = [a + b for a, b in zip(free, own, strict=True)]
        coringa = f["chuche_held"][0][CORINGA] > 0 and not f["chuche_played"][0]
        must = int(f["must_use"].argmax()) if f["must_use"].any() else -1   # after an Escudo unblock
        need = {target - start_sum}
        if coringa:
            need |= {target - 1 - start_sum, target + 1 - start_sum}
        best = None
        for kinds, total in _options(counts, need, max(need)):
            if must >= 0 and must not in kinds:
                continue
            score = float(sum(KIND_POINTS[k] for k in kinds))
            used_free = 0
            seen: dict[int, int] = {}
            for k in kinds:
                seen[k] = seen.get(k, 0) + 1
            for k, c in seen.items():
                used_free += min(c, free[k])
            if used_free == free_left and f["chuche_deck"][0] > 0:
                score += CLEAR_BONUS
            uses = total != target - start_sum
            if uses:
                score -= CORINGA_COST
            if best is None or score > best[0]:
                best = (score, kinds, uses)
        return best

    # ----------------------------------------------------------------- act
    def act(self, observation: dict, agent_id: str) -> int:
        mask = observation["action_mask"]
        f = self.layout.decode(observation["observation"], READS)
        legal = np.flatnonzero(mask)
        phase = int(f["phase"].argmax())
        free_left = int(f["table"].sum())
        if phase == MAIN:
            hand = self._hand(f)
            best = None
            for slot, kind in hand:
                if mask[A_CAPTURE + slot]:
                    cap = self._best_capture(f, KIND_FRONT[kind], free_left)
                    if cap is not None:
                        score = cap[0] + KIND_POINTS[kind]
                        if best is None or score > best[0]:
                            best = (score, slot)
            if best is not None and (best[0] > 0 or not mask[A_PLACE:A_PLACE + 3].any()):
                return A_CAPTURE + best[1]
            if mask[A_ROUBAR:A_BOMBA].any():
                sizes = f["hand_size"]
                js = [j for j in range(1, len(sizes)) if mask[A_ROUBAR + j - 1]]
                return A_ROUBAR + max(js, key=lambda j: sizes[j]) - 1
            if mask[A_BOMBA] and len(hand) >= 2:
                return A_BOMBA
            return self._place(mask, hand)
        if phase == CAPTURE:
            if mask[A_COMMIT]:
                return A_COMMIT
            cap = self._best_capture(f, int(f["capture_sum"][0]), free_left)
            if cap is not None:
                for k in cap[1]:
                    if mask[A_ADD + k]:
                        return A_ADD + k
            if mask[A_COMMIT_CORINGA]:
                return A_COMMIT_CORINGA
            return int(legal[0])
        if phase == BLOQ_WINDOW:
            kinds = [a - A_BLOCK for a in legal if A_BLOCK <= a < A_BLOCK + NUM_KINDS]
            if kinds:
                k = max(kinds, key=lambda k: KIND_POINTS[k])
                if KIND_POINTS[k] >= 3:
                    return A_BLOCK + k
            return A_PASS
        if mask[A_ESCUDO]:          # Roubar window or Bomba: always defend
            return A_ESCUDO
        if phase == BOMBA_ROUND:
            return self._place(mask, self._hand(f))
        return int(legal[0])

    def _place(self, mask, hand) -> int:
        options = [(KIND_POINTS[k], -KIND_FRONT[k], slot) for slot, k in hand if mask[A_PLACE + slot]]
        return A_PLACE + min(options)[2]


#: the registry finds every game's heuristic under this name (baralho.agents.heuristic_for)
Heuristic = ChucheHeuristic
