"""``chance.py`` for the compiled engines (numba): the same chance events, bit for bit.

A reference state that deals or draws during play keeps a hidden ``seed`` and a
counter ``draws``; ``Chance.next`` re-seeds numpy's PCG64 from the pair
(``pcg64_state``) and the rules then call ``Generator.permutation`` or
``Generator.integers`` on it. A compiled engine must draw the same cards for a
state loaded from the reference, so this module ports exactly that much of
numpy: the PCG64 step and output (XSL-RR on a 128-bit LCG, kept as two 64-bit
halves), its buffered 32-bit draws, ``random_interval`` (the Fisher-Yates draw
of ``Generator.shuffle``/``permutation``) and Lemire's bounded draw (what
``Generator.integers(k)`` uses for k < 2**32). ``tests/vector/test_fast_chance.py``
checks it against numpy for thousands of seeds.

A generator is a ``uint64[6]`` array: state (high, low), increment (high, low),
"has a buffered 32-bit half", that half.

A new game dealt by a compiled engine itself (the vector env's auto-reset) draws from a
splitmix64 stream kept in its record's ``rng`` field instead (:func:`next_bits`,
:func:`below`): one stream per game, so a batch deals the same games whatever the thread
count. The reference's ``new_state`` draws from numpy's Generator: same distribution, other
numbers.
"""

from __future__ import annotations

import numpy as np

from baralho.core.jit import jit

U64 = np.uint64
_M32 = U64(0xFFFFFFFF)
_MULT_HI = U64(0x2360ED051FC65DA4)     # PCG64's 128-bit multiplier, high and low halves
_MULT_LO = U64(0x4385DF649FCCF645)


@jit
def _mulhi(a, b):
    """The high 64 bits of the 128-bit product a * b."""
    a0, a1, b0, b1 = a & _M32, a >> U64(32), b & _M32, b >> U64(32)
    t = a1 * b0 + ((a0 * b0) >> U64(32))
    w = (t & _M32) + a0 * b1
    return a1 * b1 + (t >> U64(32)) + (w >> U64(32))


@jit
def splitmix(x):
    """chance._splitmix."""
    x = x + U64(0x9E3779B97F4A7C15)
    x = (x ^ (x >> U64(30))) * U64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> U64(27))) * U64(0x94D049BB133111EB)
    return x ^ (x >> U64(31))


@jit
def next_bits(s):
    """The next 64 random bits of the game's own splitmix64 stream (its record's ``rng``)."""
    x = s.rng
    s.rng = x + U64(0x9E3779B97F4A7C15)
    return splitmix(x)


@jit
def below(s, k: int) -> int:
    """A uniform integer in 0..k-1 from the game's own stream: the high 32 bits scaled by k
    (Lemire's multiply-shift, no division; k is a card count, so the bias, k / 2**32, is nil)."""
    return np.int64(((next_bits(s) >> U64(32)) * U64(k)) >> U64(32))


@jit
def new_generator():
    return np.zeros(6, np.uint64)


@jit
def seed_event(g, seed, draw) -> None:
    """chance.pcg64_state(seed, draw) into ``g``: the generator of chance event ``draw``."""
    a = splitmix(U64(seed) ^ (U64(draw) * U64(0xD1B54A32D192ED03)))
    b = splitmix(a)
    g[0], g[1] = a, b                    # state = a << 64 | b
    g[2], g[3] = b, a | U64(1)           # inc = b << 64 | a | 1
    g[4], g[5] = U64(0), U64(0)


@jit
def next64(g):
    """PCG64: step the LCG (state * mult + inc mod 2**128), then XSL-RR of the new state."""
    hi, lo = g[0], g[1]
    low = lo * _MULT_LO
    high = _mulhi(lo, _MULT_LO) + hi * _MULT_LO + lo * _MULT_HI
    lo2 = low + g[3]
    high = high + g[2] + (U64(1) if lo2 < low else U64(0))
    g[0], g[1] = high, lo2
    rot = high >> U64(58)
    x = high ^ lo2
    return (x >> rot) | (x << ((U64(64) - rot) & U64(63)))


@jit
def next32(g):
    """numpy's next_uint32 for PCG64: the low half of a 64-bit draw, the high half kept for the next."""
    if g[4]:
        g[4] = U64(0)
        return g[5]
    x = next64(g)
    g[4], g[5] = U64(1), x >> U64(32)
    return x & _M32


@jit
def random(g) -> float:
    """Generator.random(): the top 53 bits of a 64-bit draw, as a double in [0, 1)."""
    return np.float64(next64(g) >> U64(11)) * (1.0 / 9007199254740992.0)


@jit
def interval(g, top: int) -> int:
    """random_interval: uniform in 0..top by masked rejection (Generator.shuffle's draw)."""
    if top == 0:
        return np.int64(0)
    m = U64(top)
    m |= m >> U64(1)
    m |= m >> U64(2)
    m |= m >> U64(4)
    m |= m >> U64(8)
    m |= m >> U64(16)
    while True:
        v = next32(g) & m
        if v <= U64(top):
            return np.int64(v)


@jit
def shuffle(g, a, n: int) -> None:
    """Generator.shuffle of a[:n] (permutation(n) is the shuffle of arange(n))."""
    for i in range(n - 1, 0, -1):
        j = interval(g, i)
        a[i], a[j] = a[j], a[i]


@jit
def integers(g, k: int) -> int:
    """Generator.integers(k) for 1 <= k < 2**32: Lemire's bounded draw (no draw when k == 1)."""
    rng = U64(k - 1)
    if rng == U64(0):
        return np.int64(0)
    excl = rng + U64(1)
    m = next32(g) * excl
    left = m & _M32
    if left < excl:
        threshold = (_M32 - rng) % excl
        while left < threshold:
            m = next32(g) * excl
            left = m & _M32
    return np.int64(m >> U64(32))
