"""Rodízio's heuristic compiled (numba), for a batch: ``heuristic.py`` line for line.

The same move from the same observation, mask and tie noise as
``RodizioHeuristic.act`` (``tests/vector/test_heuristics.py`` plays both in lockstep);
the interface is ``baralho/vector/heuristic.py``'s. What differs, and why:

* a plate is a row of card features (value, plaquinha, Escolha Livre, Dupla Ação) top
  first plus its size, as the observation shows it, instead of a list of tuples;
* ``_gain`` moves cards within fixed rows sized for any stack a serve can build.
"""

from __future__ import annotations

import numpy as np

from baralho.core import fast_chance as R
from baralho.core.jit import jit
from baralho.envs.rodizio import cards as C
from baralho.envs.rodizio.actions import EAT, MAX_STACK

NUM_PLATES = C.NUM_PLATES
MEAN_PIZZA = C.TOTAL_VALUE / C.NUM_PIZZAS          # heuristic._MEAN_PIZZA
ROOM = 2 * MAX_STACK        # a plate after a serve: its own cards plus the served ones
VALUE, PLAQUINHA, LIVRE, DUPLA = range(4)          # a card's features after "present"


def memory_dtype(game) -> np.dtype:
    return np.dtype([("rng", np.uint64, 6)])       # the tie noise: chance.seeded(seed)


def heuristic_tables(game) -> tuple:
    """The observation's offsets and the numbers of eaters (the layout's) and plates."""
    f = game.obs_layout.fields
    at = np.array([f[name].start for name in ("plates", "stack_size", "eaten_count", "eaten_total",
                                              "pending", "flags")], np.int64)
    return at, f["eaten_total"].shape[0]


@jit(entry=True)
def act_batch(memory, envs, obs, mask, out, at, eaters):
    for k in range(len(envs)):
        b = envs[k]
        out[k] = act(memory[b].rng, obs[b], mask[b], at, eaters)


@jit
def act(rng, obs, mask, at, eaters):
    """RodizioHeuristic.act."""
    legal = np.flatnonzero(mask)
    if len(legal) == 1:
        return legal[0]
    # stacks, top first: (value, plaquinha, livre, dupla)
    stacks = np.zeros((NUM_PLATES, ROOM, 4), np.int64)
    size = np.zeros(NUM_PLATES, np.int64)
    for p in range(NUM_PLATES):
        size[p] = obs[at[1] + p]
        for d in range(size[p]):
            for j in range(4):
                stacks[p, d, j] = obs[at[0] + (p * MAX_STACK + d) * 5 + 1 + j]
    spicy, perfect = obs[at[5]] != 0, obs[at[5] + 1] != 0
    target = -1e300
    for e in range(1, eaters):
        other = float(obs[at[3] + e]) if perfect else obs[at[2] + e] * MEAN_PIZZA
        target = max(target, other)
    mine = float(obs[at[3]])
    target = target - 1
    pending = -1
    for p in range(NUM_PLATES):
        if obs[at[4] + p] != 0:
            pending = p
            break
    best, best_score = -1, -np.inf
    for a in legal:
        if pending >= 0:                             # Escolha Livre: pick the depth
            gain = float(stacks[pending, a - EAT, VALUE])
        else:
            gain = _gain(stacks, size, a, spicy)
        score = -abs(target - (mine + gain)) + 1e-3 * R.random(rng)
        if score > best_score:
            best, best_score = a, score
    return best


@jit
def _gain(stacks, size, plate, spicy):
    """RodizioHeuristic._gain: pizza value eaten by serving ``plate``."""
    st = stacks.copy()
    n = size.copy()
    hand = stacks[plate, :size[plate]]
    n[plate] = 0
    q = plate
    for i in range(len(hand)):                       # top card first, clockwise
        q = (q + 1) % NUM_PLATES
        for d in range(n[q], 0, -1):                 # insert(0, card); loops, not slices: numba
            st[q, d] = st[q, d - 1]                  # compiles a slice assignment ~8x slower
        st[q, 0] = hand[i]
        n[q] += 1
    for i in range(len(hand)):
        if hand[i, PLAQUINHA]:
            return 0.0                               # the plaquinha was in the plate
    last = hand[len(hand) - 1]
    if spicy and last[LIVRE]:                        # Escolha Livre: best pizza there
        best = 0.0
        for d in range(n[q]):
            if not st[q, d, PLAQUINHA]:
                best = max(best, float(st[q, d, VALUE]))     # pizzas are worth 1 or more
        return best
    gain = 0.0
    for _ in range(2 if spicy and last[DUPLA] else 1):
        if n[q] == 0:
            break
        k = 1 if n[q] >= 2 else 0
        if st[q, k, PLAQUINHA]:
            break
        gain += st[q, k, VALUE]
        for d in range(k, n[q] - 1):                 # pop(k)
            st[q, d] = st[q, d + 1]
        n[q] -= 1
    return gain
