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


def loadable_state(game, s):
    """A copy of ``s`` to load into an engine, after checking that every field has this config's
    shape and range (``baralho.core.checks``: the compiled kernels index tables with them). The
    conservation rules are ``check_invariants``'s, run after this."""
    from baralho.core import checks as K
    from baralho.envs.chuche.cards import BACK_VALUES, NUM_CARDS, NUM_CHUCHE, NUM_COLOURS, PER_COLOUR
    from baralho.envs.chuche.observation import CONT_END, CONT_MAIN

    n, card, seat = game.num_players, (0, NUM_CARDS - 1), (0, game.num_players - 1)
    K.flag(s.over, "over")
    K.rows(s.hands, "hands", n, *card, max_width=3)                 # one per player: the player count first
    K.integers(s.colours, "colours", 0, NUM_COLOURS - 1, length=game.num_colours)
    if s.colours[0] != 0 or list(s.colours) != sorted(set(s.colours)):
        raise K.StateError(f"field colours={s.colours!r} must start with 0 (red) and increase")
    in_play = tuple(col * PER_COLOUR + j for col in s.colours for j in range(PER_COLOUR))
    if tuple(s.in_play) != in_play:
        raise K.StateError(f"field in_play must list the cards of colours {tuple(s.colours)}: {in_play}")
    K.integers(s.back, "back", 0, max(BACK_VALUES), length=NUM_CARDS)
    if any((s.back[c] in BACK_VALUES) != (c in in_play) for c in range(NUM_CARDS)):
        raise K.StateError(f"field back: a card in play has a back in {BACK_VALUES}, every other card 0")
    for name in ("stock", "table", "discard", "cap_sel"):
        K.integers(getattr(s, name), name, *card, max_length=NUM_CARDS)
    K.integers(s.owner, "owner", -1, n - 1, length=NUM_CARDS)
    K.rows(s.piles, "piles", n, *card, max_width=NUM_CARDS)
    K.integers(s.chuche_deck, "chuche_deck", 0, len(CHUCHE_COUNTS) - 1, max_length=NUM_CHUCHE)
    K.rows(s.held, "held", n, 0, NUM_CHUCHE, width=len(CHUCHE_COUNTS))
    K.rows(s.used, "used", n, 0, NUM_CHUCHE, width=len(CHUCHE_COUNTS))
    K.integer(s.turn, "turn", *seat)
    K.integer(s.actor, "actor", -1 if s.over else 0, n - 1)
    K.integer(s.phase, "phase", MAIN, BOMBA_ROUND)
    K.flag(s.chuche_played, "chuche_played")
    K.integer(s.cap_card, "cap_card", -1, NUM_CARDS - 1)
    K.integer(s.cap_sum, "cap_sum", 0, 127)
    K.integers(s.queue, "queue", *seat, max_length=n)
    K.integer(s.cont, "cont", CONT_MAIN, CONT_END)
    K.integer(s.bomba_hits, "bomba_hits", 0, NUM_CARDS)
    K.integers(s.scores, "scores", 0, 2**31 - 1, length=n)
    K.integer(s.rounds_played, "rounds_played", 0, game.max_rounds)
    K.integer(s.decisions, "decisions", 0, game.max_decisions)
    K.integer(s.round_decisions, "round_decisions", 0, game.round_bound)
    K.numbers(s.rets, "rets", n)
    K.integer(s.seed, "seed", 0, 2**64 - 1)
    K.integer(s.draws, "draws", 0, 2**63 - 1)
    K.integer(s.nfree, "nfree", 0, NUM_CARDS)
    K.integer(s.must_use, "must_use", -1, NUM_KINDS - 1)
    return s.copy()
