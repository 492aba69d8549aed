"""Chance for game states: a hidden seed and a counter instead of a live Generator.

A state that must deal or shuffle again later (a match's next hand, a shuffled
stock turnover) keeps ``seed`` (hidden from the players) and ``draws`` (chance
events so far). The game re-seeds one scratch Generator from the pair for each
chance event, so states copy and pickle as plain ints — a search agent copies
states thousands of times per move, and copying a live numpy Generator costs
50–110 µs (it goes through the bit generator's pickle state).
"""

from __future__ import annotations

import numpy as np

_M64 = (1 << 64) - 1


def _splitmix(x: int) -> int:
    x = (x + 0x9E3779B97F4A7C15) & _M64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _M64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _M64
    return x ^ (x >> 31)


def pcg64_state(seed: int, draw: int) -> dict:
    """A PCG64 state for chance event number ``draw`` of a state with hidden ``seed``."""
    a = _splitmix(seed ^ (draw * 0xD1B54A32D192ED03 & _M64))
    b = _splitmix(a)
    return {"bit_generator": "PCG64", "state": {"state": (a << 64) | b, "inc": (b << 64) | a | 1},
            "has_uint32": 0, "uinteger": 0}


class Chance:
    """One scratch Generator per game, re-seeded for each chance event of a state."""

    def __init__(self) -> None:
        self._scratch = np.random.Generator(np.random.PCG64(0))

    def next(self, s) -> np.random.Generator:
        """The generator of ``s``'s next chance event (``s.draws`` is advanced)."""
        s.draws += 1
        self._scratch.bit_generator.state = pcg64_state(s.seed, s.draws)
        return self._scratch


def seeded(seed: int | None) -> np.random.Generator:
    """A Generator for an agent's tie noise, in the state ``pcg64_state(seed, 0)`` (None: a
    seed from the OS), so that a compiled twin of the agent loads the same stream with
    ``fast_chance.seed_event(g, seed, 0)`` and draws the same numbers
    (``fast_chance.random`` is ``Generator.random``)."""
    if seed is None:
        seed = int(np.random.SeedSequence().generate_state(1, np.uint64)[0])
    g = np.random.Generator(np.random.PCG64(0))
    g.bit_generator.state = pcg64_state(int(seed) & _M64, 0)
    return g
