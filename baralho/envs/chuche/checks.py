"""Chuche: slow, independent oracles the tests compare the engine with: the
reference legal mask (brute force over sub-multisets of the table) and the
state invariants.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

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
    A_UNBLOCK,
    NUM_ACTIONS,
)
from baralho.envs.chuche.cards import (
    BLOQUEIO,
    BOMBA,
    CHUCHE_COUNTS,
    CHUCHE_NAMES,
    CORINGA,
    ESCUDO,
    FRONT,
    KIND,
    KIND_FRONT,
    NUM_KINDS,
    ROUBAR,
)
from baralho.envs.chuche.observation import BLOQ_WINDOW, BOMBA_ROUND, CAPTURE, MAIN, ROUBAR_WINDOW


# ------------------------------------------------------- reference legal mask
def _sub_multisets(kinds: Counter, limit: int):
    """Every non-empty sub-multiset of table kinds with sum <= limit: (chosen kinds, sum)."""
    items = sorted(kinds.items())

    def rec(i: int, chosen: list[int], total: int):
        if i == len(items):
            if chosen:
                yield chosen, total
            return
        k, cnt = items[i]
        for take in range(cnt + 1):
            t = total + take * KIND_FRONT[k]
            if t > limit:
                break
            yield from rec(i + 1, chosen + [k] * take, t)

    yield from rec(0, [], 0)


def reference_legal_mask(game, s) -> np.ndarray:
    m = np.zeros(NUM_ACTIONS, np.int8)
    if s.over:
        return m
    p, n, T = s.actor, game.num_players, game.target(s)
    usable = Counter(KIND[c] for c in s.table if s.owner[c] in (-1, p))
    free = {KIND[c] for c in s.table if s.owner[c] == -1}
    coringa = s.held[p][CORINGA] > 0 and not s.chuche_played
    must = s.must_use
    # the sums of the captures one may take: after an Escudo unblock only those using its card
    subs = [(chosen, tot) for chosen, tot in _sub_multisets(usable, 20) if must < 0 or must in chosen]
    if s.phase == MAIN:
        hand = s.hands[p]
        any_exact = False
        sums = {tot for _, tot in subs}
        for i, c in enumerate(hand):
            exact = T - FRONT[c] in sums
            any_exact |= exact
            if exact or (coringa and (T - 1 - FRONT[c] in sums or T + 1 - FRONT[c] in sums)):
                m[A_CAPTURE + i] = 1
        if game.free_place or not any_exact:
            for i in range(len(hand)):
                m[A_PLACE + i] = 1
        if not s.chuche_played:
            for k in range(NUM_KINDS):
                if s.held[p][BLOQUEIO] and k in free:
                    m[A_BLOCK + k] = 1
                if s.held[p][ESCUDO] and any(KIND[c] == k and s.owner[c] not in (-1, p) for c in s.table):
                    # only when an exact capture (no Coringa: the Escudo is the turn's card) can use it
                    with_it = usable + Counter([k])
                    if any(k in chosen and FRONT[c] + tot == T
                           for chosen, tot in _sub_multisets(with_it, 20) for c in hand):
                        m[A_UNBLOCK + k] = 1
            for j in range(1, n):
                if s.held[p][ROUBAR] and s.hands[(p + j) % n]:
                    m[A_ROUBAR + j - 1] = 1
            if s.held[p][BOMBA]:
                m[A_BOMBA] = 1
    elif s.phase == CAPTURE:
        goals = {T - 1, T, T + 1} if coringa else {T}
        for chosen, tot in subs:
            if s.cap_sum + tot in goals:
                for k in chosen:
                    m[A_ADD + k] = 1
        if s.cap_sel and s.cap_sum == T and must < 0:
            m[A_COMMIT] = 1
        if s.cap_sel and coringa and abs(s.cap_sum - T) == 1:
            m[A_COMMIT_CORINGA] = 1
    elif s.phase == BLOQ_WINDOW:
        m[A_PASS] = 1
        for k in free:
            m[A_BLOCK + k] = 1
    elif s.phase == ROUBAR_WINDOW:
        m[A_ESCUDO] = m[A_PASS] = 1
    elif s.phase == BOMBA_ROUND:
        for i in range(len(s.hands[p])):
            m[A_PLACE + i] = 1
        if s.held[p][ESCUDO] and p != s.turn:       # Escudo is against other players' attacks
            m[A_ESCUDO] = 1
    return m


# ---------------------------------------------------------------- invariants
def check_invariants(game, s) -> None:
    n = game.num_players
    places = [c for h in s.hands for c in h] + s.stock + s.table + [c for pl in s.piles for c in pl] \
        + s.discard + s.cap_sel + ([s.cap_card] if s.cap_card >= 0 else [])
    assert sorted(places) == sorted(s.in_play), "every card of the deck in exactly one place"
    assert len(s.in_play) == game.num_cards
    assert all(len(h) <= 3 for h in s.hands), "hands hold at most 3 cards"
    assert all(h == sorted(h) for h in s.hands), "hands are kept sorted"
    assert min(s.owner) >= -1 and max(s.owner) < n, "blocking owner is a seat"
    assert len(s.owner) - s.owner.count(-1) == len(s.table) - s.nfree, \
        "only table cards are blocked"
    held, used = [sum(col) for col in zip(*s.held, strict=True)], [sum(col) for col in zip(*s.used, strict=True)]
    for t, k in enumerate(CHUCHE_COUNTS):
        assert s.chuche_deck.count(t) + held[t] + used[t] == k, f"every {CHUCHE_NAMES[t]} card in one place"
    assert min(min(h) for h in s.held) >= 0 and min(min(u) for u in s.used) >= 0
    assert (s.cap_card >= 0) == (s.phase == CAPTURE) or s.over, "a capture is built only in its phase"
    if s.cap_card >= 0:
        assert s.cap_sum == FRONT[s.cap_card] + sum(FRONT[c] for c in s.cap_sel)
    assert 0 <= s.rounds_played <= game.max_rounds
    assert all(x >= 0 for x in s.scores)
    assert 0 <= s.decisions <= game.max_decisions, "episode bound"
    assert 0 <= s.round_decisions <= game.round_bound, "round bound"
    if s.over:
        assert s.actor == -1 and abs(sum(s.rets)) < 1e-9, "zero-sum result"
    else:
        assert 0 <= s.actor < n and 0 <= s.turn < n
        if s.phase in (MAIN, CAPTURE):
            assert s.actor == s.turn
        if s.phase == MAIN:
            assert s.hands[s.turn], "the turn player holds a card"
        if s.phase in (BLOQ_WINDOW, ROUBAR_WINDOW, BOMBA_ROUND):
            assert s.queue and s.queue[0] == s.actor, "the asked seat heads the window's queue"
        if s.phase == BLOQ_WINDOW:
            assert s.held[s.actor][BLOQUEIO] > 0, "only holders are asked"
            assert s.actor != s.turn or not s.chuche_played, "one Chuche card per turn"
        if s.must_use >= 0:
            assert s.phase in (MAIN, CAPTURE) and s.chuche_played and s.used[s.turn][ESCUDO], \
                "an unblocked card to use only in the Escudo player's turn"
            assert any(KIND[c] == s.must_use and s.owner[c] in (-1, s.turn) for c in s.table), \
                "the card to use is on the table"
        if s.phase == ROUBAR_WINDOW:
            assert s.held[s.actor][ESCUDO] > 0 and s.chuche_played
    assert s.nfree == sum(1 for c in s.table if s.owner[c] < 0)
