"""fast_heuristic.py's meld search against heuristic.py's on hands play seldom reaches.

tests/vector/test_heuristics.py plays both heuristics in lockstep, but in play
``best_melds`` hardly ever spends its 4000-node budget or has more than 40 melds to
search (none of ~94,000 calls at 2-5 players, measured). Here: hands with many melds
(two suits' runs twice over and jokers: about a third of them spend the budget, measured),
two hands where one node less or one more would change the answer, and random hands
for ``all_melds``'s order (best_melds searches its first 40)."""

from __future__ import annotations

import numpy as np

from baralho.envs.scala40 import fast_heuristic as FH
from baralho.envs.scala40.heuristic import best_melds
from baralho.envs.scala40.melds import JOKER, NUM_KINDS
from baralho.envs.scala40.solver import all_melds
from tests.scala40.helpers import counts

DECK = [k for k in range(52) for _ in range(2)] + [JOKER] * 4


def random_hand(rng, size: int) -> list[int]:
    return np.bincount(rng.choice(DECK, size, replace=False), minlength=NUM_KINDS).tolist()


def many_melds_hand(rng) -> list[int]:
    """Runs of 4 to 8 cards in two suits, each card twice, up to two jokers and four more cards."""
    cards = []
    for s in rng.choice(4, 2, replace=False):
        lo, n = rng.integers(0, 13), rng.integers(4, 9)
        cards += [s * 13 + (lo + i) % 13 for i in range(n)] * 2
    cards += [JOKER] * int(rng.integers(0, 3))
    rest = list(DECK)
    for k in cards:
        rest.remove(k)
    return np.bincount(cards + rng.choice(rest, 4, replace=False).tolist(), minlength=NUM_KINDS).tolist()


def test_all_melds_in_solver_order():
    rng = np.random.default_rng(0)
    for t in range(300):
        hand = random_hand(rng, 13 + t % 16) if t % 3 else many_melds_hand(rng)
        want = [m for _, _, m in all_melds(hand)]
        assert [tuple(r) for r in FH.all_melds_one(np.array(hand)).tolist()] == want, hand


def test_best_melds_as_heuristic_py():
    rng = np.random.default_rng(1)
    for t in range(150):
        hand = many_melds_hand(rng) if t % 2 else random_hand(rng, 14)
        held = [k for k in range(NUM_KINDS) if hand[k]]
        need = int(rng.choice(held)) if t % 3 == 0 else -1
        keep, can_close, staged = int(rng.integers(1, 3)), bool(rng.integers(2)), int(rng.choice([0, 15, 40]))
        value, chosen, closes = FH.best_melds_one(np.array(hand), need, keep, can_close, staged)
        assert (value, [tuple(r) for r in chosen.tolist()], closes) == best_melds(hand, need, keep, can_close,
                                                                                  staged), hand


# (hand, need, keep, can_close, staged): the search's last improvement is at its 4000th node (its last),
# and at the 4001st (a search one node longer answers otherwise). Found by trying such hands (four
# suits of four ranks, the higher two twice) on heuristic.py with the update nodes recorded
LAST_NODE = [("5s 6s 7s 7s 8s 8s 5h 6h 7h 7h 8h 8h 5d 6d 7d 7d 8d 8d 5c 6c 7c 7c 8c 8c JK JK", -1, 1, True, 0),
             ("8s 9s 10s 10s Js Js 8h 9h 10h 10h Jh Jh 8d 9d 10d 10d Jd Jd 8c 9c 10c 10c Jc Jc", -1, 1, True, 0)]


def test_best_melds_stops_at_the_same_node():
    for text, need, keep, can_close, staged in LAST_NODE:
        hand = counts(text)
        value, chosen, closes = FH.best_melds_one(np.array(hand), need, keep, can_close, staged)
        assert (value, [tuple(r) for r in chosen.tolist()], closes) == best_melds(hand, need, keep, can_close,
                                                                                  staged), text
