"""baralho/core/fast_chance.py draws what numpy draws for the same chance event.

A compiled engine plays on from a reference state with the reference's own
chance (``chance.py``: PCG64 re-seeded from the state's seed and draw count),
so the port must agree with numpy bit for bit, not only in distribution."""

from __future__ import annotations

import numba as nb
import numpy as np

from baralho.core import fast_chance as R
from baralho.core.chance import pcg64_state


@nb.njit   # not cached: numba's cache would not see an edit of fast_chance.py
def _event(seed, draw, n, deck, k):
    """One chance event: a permutation of n, then a shuffle of deck, from the same
    generator (as Chuche's deal); and, re-seeded, integers(k) (Roubar's draw)."""
    g = R.new_generator()
    R.seed_event(g, seed, draw)
    perm = np.arange(n)
    R.shuffle(g, perm, n)
    shuffled = deck.copy()
    R.shuffle(g, shuffled, len(shuffled))
    R.seed_event(g, seed, draw)
    return perm, shuffled, R.integers(g, k), R.next64(g)


def test_the_port_draws_what_numpy_draws():
    rng = np.random.default_rng(0)
    gen = np.random.Generator(np.random.PCG64(0))
    deck = np.array([0, 0, 1, 1, 1, 2, 3, 3, 3, 4, 4, 4])
    for _ in range(3000):
        seed, draw = int(rng.integers(2**63)), int(rng.integers(1, 10_000))
        n, k = int(rng.integers(1, 60)), int(rng.integers(1, 7))
        perm, shuffled, pick, after = _event(np.uint64(seed), draw, n, deck, k)
        gen.bit_generator.state = pcg64_state(seed, draw)
        assert np.array_equal(perm, gen.permutation(n)), (seed, draw, n)
        assert np.array_equal(shuffled, gen.permutation(deck)), (seed, draw)
        gen.bit_generator.state = pcg64_state(seed, draw)
        assert pick == gen.integers(k), (seed, draw, k)
        assert int(after) == int(gen.bit_generator.random_raw()), (seed, draw, k)


@nb.njit
def _uniforms(seed, n):
    g = R.new_generator()
    R.seed_event(g, seed, 0)
    out = np.empty(n)
    for i in range(n):
        out[i] = R.random(g)
    return out


def test_random_is_generator_random_of_an_agents_seeded_stream():
    """Heuristics draw tie noise from chance.seeded(seed); their compiled twins from
    seed_event(g, seed, 0) and fast_chance.random: the same doubles."""
    from baralho.core.chance import seeded

    for seed in (0, 1, 12345, 2**63 + 7, -3):
        assert np.array_equal(_uniforms(np.uint64(seed & (2**64 - 1)), 50), seeded(seed).random(50)), seed
    assert seeded(5).random() == seeded(5).random() and seeded(None).random() != seeded(None).random()
