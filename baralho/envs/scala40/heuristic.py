"""A greedy rule-based Scala 40 player that reads only its observation.

Draw: take the discard when the mask allows it and it helps (before opening
the mask only allows it when it can open). Play: before opening, lay down the
most valuable set of melds if it reaches 40 (or closes in hand); after opening,
lay down every meld it holds, lay off every card it can, swap jokers it can
use. Discard: the card with the most penalty points that is least connected to
the rest of the hand (pairs and near-runs are kept); never a joker if it can
help it.
"""

from __future__ import annotations

import numpy as np

from baralho.core.chance import seeded
from baralho.envs.scala40 import actions as A
from baralho.envs.scala40.melds import (
    JOKER,
    NUM_KINDS,
    OPEN_MIN,
    PENALTY,
    RUN,
    SET,
    extend_options,
    joker_key,
    meld_cards,
)
from baralho.envs.scala40.solver import all_melds

_DECODED: dict[bytes, list[tuple]] = {}   # meld rows -> meld tuples (the table changes rarely)


def decode_melds(block: np.ndarray) -> list[tuple]:
    """Meld tuples back from the observation's meld rows.

    Memoised on the bytes of the occupied rows: search rollouts decode the same
    table hundreds of times (profiled: 20% of a guided ISMCTS move before)."""
    rows = block[:int(block[:, 0].sum())]
    key = rows.tobytes()
    out = _DECODED.get(key)
    if out is None:
        if len(_DECODED) >= 50_000:
            _DECODED.clear()
        out = _DECODED[key] = _decode_rows(rows)
    return list(out)


def _decode_rows(block: np.ndarray) -> list[tuple]:
    out = []
    for row in block.tolist():
        suits = [s for s in range(4) if row[3 + s] > 0.5]
        pos = [p for p in range(1, 15) if row[6 + p] > 0.5]
        js = [s for s in range(4) if row[21 + s] > 0.5]
        jp = [p for p in range(1, 15) if row[24 + p] > 0.5]
        if row[1] > 0.5:
            out.append((RUN, suits[0], pos[0], pos[-1], jp[0] if jp else 0))
        else:
            mask = sum(1 << s for s in suits)
            out.append((SET, pos[0], mask, 0, js[0] + 1 if js else 0))
    return out


def best_melds(hand: list[int], need: int, keep: int, can_close: bool, staged: int = 0):
    """Disjoint melds from ``hand`` with the highest value (containing ``need`` if >= 0),
    leaving at least ``keep`` cards. Returns (value, melds, closes)."""
    # each option with its cards counted once (the search tests them at every node)
    opts = [(cards, v, m, [(k, cards.count(k)) for k in set(cards)]) for cards, v, m in all_melds(hand)[:40]]
    total = sum(hand)
    best = (-1, [], False)
    h = list(hand)
    budget = [4000]  # search nodes: a heuristic, not a solver

    def dfs(i, rest, value, chosen, used):
        nonlocal best
        budget[0] -= 1
        if budget[0] < 0:
            return
        closes = can_close and rest == 1
        if used and (value + staged > best[0] or closes) and (value + staged >= OPEN_MIN or closes):
            if not best[2] or closes:
                best = (value + staged, list(chosen), closes)
        for j in range(i, len(opts)):
            cards, v, m, counts = opts[j]
            if rest - len(cards) < keep or any(h[k] < c for k, c in counts):
                continue
            for k in cards:
                h[k] -= 1
            chosen.append(m)
            dfs(j, rest - len(cards), value + v, chosen, used or need in cards)
            chosen.pop()
            for k in cards:
                h[k] += 1

    dfs(0, total, 0, [], need < 0)
    return best


def meld_actions(m: tuple) -> list[int]:
    acts = [A.SELECT + k for k in meld_cards(m)]
    acts.append(A.joker_action(*joker_key(m)) if m[4] else A.COMMIT)
    return acts


class Scala40Heuristic:
    def __init__(self, game, seed=None):
        self.game = game
        self.layout = game.obs_layout
        self.reset(seed)

    def reset(self, seed=None) -> None:
        self.rng = seeded(seed)
        self.plan: list[int] = []

    def act(self, observation: dict, agent_id: str) -> int:
        mask = np.asarray(observation["action_mask"])
        legal = np.flatnonzero(mask)
        if len(legal) == 1:
            return int(legal[0])
        obs = np.asarray(observation["observation"])
        # only the fields read below (all 17: 20 µs a call)
        o = self.layout.decode(obs, _FIELDS)
        hand = obs[:NUM_KINDS].astype(np.int64).tolist()     # "hand" (52) then "hand_jokers" (1)
        melds = decode_melds(o["melds"])
        opened = o["players"][0][1] > 0.5
        if o["phase"][0] > 0.5:  # draw
            self.plan = []
            return self._draw(mask, o, hand, melds, opened)
        while self.plan:
            a = self.plan.pop(0)
            if mask[a]:
                return a
            self.plan = []
        if o["building"].any():  # finish what is being built (should not happen with a valid plan)
            for a in list(range(A.COMMIT, A.EXTEND)) + list(range(A.EXTEND, A.SWAP)):
                if mask[a]:
                    return a
            sel = [a for a in legal if A.SELECT <= a < A.COMMIT]
            return int(sel[0]) if sel else int(legal[0])
        self.plan = self._plan(mask, o, hand, melds, opened)
        while self.plan:
            a = self.plan.pop(0)
            if mask[a]:
                return a
            self.plan = []
        return self._discard(mask, hand)

    # ------------------------------------------------------------------ draw
    def _draw(self, mask, o, hand, melds, opened) -> int:
        if not mask[A.DRAW_DISCARD]:
            return A.DRAW_STOCK
        top = int(np.argmax(o["discard_top"]))
        if not opened or top == JOKER:
            return A.DRAW_DISCARD  # before opening the mask only allows it when it opens
        if any(_fits(m, top) and extend_options(m, [top]) for m in melds):
            return A.DRAW_DISCARD
        h = list(hand)
        h[top] += 1
        return A.DRAW_DISCARD if any(top in c for c, _, _ in all_melds(h)) else A.DRAW_STOCK

    # ------------------------------------------------------------------ play
    def _plan(self, mask, o, hand, melds, opened) -> list[int]:
        can_close = o["turn"][0] > 0.5
        keep = 1 if can_close else 2
        ob = int(np.argmax(o["obligation"])) if o["obligation"].any() else -1
        if not opened:
            value, chosen, closes = best_melds(hand, ob, keep, can_close, int(o["turn"][4]))
            if value < 0:
                return []
            return [a for m in chosen for a in meld_actions(m)]
        plan: list[int] = []
        h = list(hand)
        value, chosen, _ = best_melds(h, -1, keep, can_close, OPEN_MIN)  # any melds at all
        for m in chosen:
            plan.extend(meld_actions(m))
            for k in meld_cards(m):
                h[k] -= 1
        table = list(melds) + list(chosen)
        for i, m in enumerate(melds):
            if m[4] and h[_standin(m)]:
                plan.append(A.SWAP + i)
                h[_standin(m)] -= 1
                h[JOKER] += 1
                table[i] = (m[0], m[1], m[2], m[3], 0)
        left = sum(h)
        for k in _BY_PENALTY:
            while h[k] and left > keep:
                hit = next((i for i, m in enumerate(table) if _fits(m, k) and extend_options(m, [k])), None)
                if hit is None:
                    break
                plan.extend([A.SELECT + k, A.EXTEND + hit])
                table[hit] = extend_options(table[hit], [k])[-1]
                h[k] -= 1
                left -= 1
        return plan

    def _discard(self, mask, hand) -> int:
        best, best_score = None, None
        for k in np.flatnonzero(mask[A.DISCARD:]).tolist():
            score = -100.0 if k == JOKER else discard_score(hand, k) + self.rng.random() * 0.1
            if best_score is None or score > best_score:
                best, best_score = k, score
        if best is None:
            return int(np.flatnonzero(mask)[0])
        return A.DISCARD + best


_FIELDS = ("melds", "players", "phase", "building", "discard_top", "turn", "obligation")   # what act reads
_BY_PENALTY = sorted(range(NUM_KINDS), key=lambda c: -PENALTY[c])   # the order lay-offs are tried in


def _fits(m: tuple, k: int) -> bool:
    """Cheap necessary condition for laying card ``k`` off on meld ``m``: a joker,
    or the run's suit, or the set's rank (extend_options decides the rest)."""
    return k == JOKER or (k // 13 == m[1] if m[0] == RUN else k % 13 + 1 == m[1])


def _standin(m: tuple) -> int:
    from baralho.envs.scala40.melds import joker_standin
    return joker_standin(m)


def discard_score(hand: list[int], k: int) -> float:
    """How much the heuristic wants to discard real card ``k`` (k < 52): its penalty
    points less 7 per link to the rest of the hand (before the heuristic's tie noise,
    which stays below 0.1). The search guide ranks and models discards by it too."""
    return PENALTY[k] - 7.0 * _links(hand, k)


def _links(hand: list[int], k: int) -> int:
    """How many other hand cards could form a meld with card ``k``."""
    r, s = k % 13, k // 13
    links = sum(1 for t in range(4) if t != s and hand[t * 13 + r])
    for d in (-2, -1, 1, 2):
        q = r + d
        if 0 <= q < 13 and hand[s * 13 + q]:
            links += 1
        elif q == 13 and hand[s * 13]:  # Q-K-A
            links += 1
    if hand[k] > 1:
        links -= 1  # a duplicate helps nothing
    return links


#: the registry finds every game's heuristic under this name (baralho.agents.heuristic_for)
Heuristic = Scala40Heuristic
