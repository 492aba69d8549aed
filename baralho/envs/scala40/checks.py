"""Slow, independent oracles for Scala 40 that the tests compare the engine with.

``reference_mask``: a legal mask that, instead of the window arithmetic of
melds.py, enumerates once every meld that can exist (each run window and set
with each joker placement: 2,665 templates) as card-count vectors, and answers
every question by brute force over that table: "can the built cards become a
meld" is "some template lies between the built cards and the built cards plus
the hand".

``check_invariants``: what the conformance suite asserts after every step.
Every card kind is in exactly one place, the counts and flags agree with each
other, and every ready-made observation piece the engine keeps incrementally
(hands, known cards, player rows, the table block) equals the same piece
rebuilt from scratch.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from baralho.envs.scala40 import actions as A
from baralho.envs.scala40.actions import DRAW, ELIMINATION, OVER, ROUNDS_PER_HAND
from baralho.envs.scala40.melds import (
    NUM_KINDS,
    OPEN_MIN,
    RUN,
    hand_bits,
    joker_standin,
    meld_cards,
    meld_value,
    templates,
    valid_meld,
)
from baralho.envs.scala40.observation import (
    PUB_SIZE,
    fill_melds,
    head_block,
    pile_block,
    player_rows,
    stock_block,
    twice,
)


def _vec(cards) -> np.ndarray:
    v = np.zeros(NUM_KINDS, np.int16)
    for k in cards:
        v[k] += 1
    return v


def _extends(m: tuple, t: tuple) -> bool:
    """Template t is meld m with cards added (m's joker keeps its stand-in)."""
    if m[0] != t[0] or m[1] != t[1]:
        return False
    if m[0] == RUN:
        if not (t[2] <= m[2] and t[3] >= m[3]) or t == m:
            return False
        return t[4] == m[4] if m[4] else (t[4] == 0 or not m[2] <= t[4] <= m[3])
    if (t[2] & m[2]) != m[2] or t[2] == m[2]:
        return False
    return t[4] == m[4] if m[4] else (t[4] == 0 or not m[2] >> (t[4] - 1) & 1)


def _completions(game, s, pend: np.ndarray, hand: np.ndarray, room: int, opened: bool) -> bool:
    melds, counts, _, lens = templates()
    npend = int(pend.sum())
    if len(s.melds) < A.MAX_MELDS:
        ok = np.all(counts >= pend, 1) & np.all(counts <= pend + hand, 1) & (lens - npend <= room)
        if ok.any():
            return True
    if opened:
        for m in s.melds:
            added = _added(m)
            if len(added) and np.any(np.all(added >= pend, 1) & np.all(added <= pend + hand, 1)
                                     & (added.sum(1) - npend <= room)):
                return True
    return False


@lru_cache(maxsize=4096)
def _added(m: tuple) -> np.ndarray:
    """[E, 53]: the cards each template extending meld ``m`` adds to it."""
    melds, counts, _, _ = templates()
    mc = _vec(_cards(m))
    rows = [counts[i] - mc for i, t in enumerate(melds) if _extends(m, t)]
    return np.array(rows, np.int16).reshape(-1, NUM_KINDS)


def _cards(m: tuple) -> list[int]:
    melds, counts, _, _ = templates()
    row = counts[_index()[m]]
    return [k for k in range(NUM_KINDS) for _ in range(int(row[k]))]


@lru_cache(maxsize=1)
def _index():
    return {m: i for i, m in enumerate(templates()[0])}


def _reach(hand: np.ndarray, pend: np.ndarray, staged: int, need: int, keep: int, can_close: bool) -> bool:
    """Brute force: disjoint templates from hand (+ the built cards in the first one)."""
    melds, counts, values, lens = templates()
    avail = hand + pend
    cand = np.flatnonzero(np.all(counts <= avail, 1))
    total = int(avail.sum())

    def ok_end(rest, value, used):
        return used and (staged + value >= OPEN_MIN or (can_close and rest == 1))

    def search(start, av, rest, value, used):
        if ok_end(rest, value, used):
            return True
        for j in range(start, len(cand)):
            i = cand[j]
            if lens[i] > rest - keep or np.any(counts[i] > av):
                continue
            if search(j, av - counts[i], rest - lens[i], value + values[i], used or counts[i][need] > 0):
                return True
        return False

    if pend.sum() == 0:
        return search(0, avail, total, 0, need < 0)
    for i in cand:
        if np.all(counts[i] >= pend) and total - lens[i] >= keep:
            used = need < 0 or counts[i][need] > 0
            if search(0, avail - counts[i], total - lens[i], int(values[i]), used):
                return True
    return False


def reference_mask(game, s) -> np.ndarray:
    mask = np.zeros(A.NUM_ACTIONS, np.int8)
    if game.is_over(s):
        return mask
    melds, counts, values, lens = templates()
    p = s.player
    hand = np.array(s.hands[p], np.int16)
    hsize = int(hand.sum())
    opened = s.opened[p]
    can_close = s.turn >= s.eliminated.count(False)
    keep = 1 if can_close else 2
    ob = s.obligation
    if s.phase == 0:
        mask[A.DRAW_STOCK] = 1
        if s.discard:
            c = s.discard[-1]
            if s.turn == 0 or (opened and game.config.taken_discard == "free"):
                mask[A.DRAW_DISCARD] = 1
            elif opened:
                mask[A.DRAW_DISCARD] = _completions(game, s, _vec([c]), hand, hsize - keep, True)
            else:
                mask[A.DRAW_DISCARD] = _reach(hand + _vec([c]), _vec([]), 0, c, keep, can_close)
        return mask
    pend = _vec(s.pending)
    guided = ob >= 0 and not opened
    need = -1 if s.ob_used else ob
    for k in range(NUM_KINDS):
        if not hand[k]:
            continue
        if opened and ob >= 0 and not s.pending and k != ob:
            continue
        h2 = hand.copy()
        h2[k] -= 1
        p2 = pend.copy()
        p2[k] += 1
        if not _completions(game, s, p2, h2, hsize - 1 - keep, opened):
            continue
        if guided and not _reach(h2, p2, s.staged_value, need, keep, can_close):
            continue
        mask[A.SELECT + k] = 1
    if s.pending:
        if len(s.melds) < A.MAX_MELDS and hsize >= keep:
            exact = np.flatnonzero(np.all(counts == pend, 1))
            plain = [i for i in exact if not melds[i][4]]
            for i in exact:
                if melds[i][4]:
                    m = melds[i]
                    a = A.joker_action(*((m[1], m[4]) if m[0] == RUN else (m[4] - 1, m[1])))
                elif i == max(plain, key=lambda j: values[j]):
                    a = A.COMMIT
                else:
                    continue
                if guided:
                    used = s.ob_used or pend[ob] > 0
                    if not _reach(hand, _vec([]), s.staged_value + int(values[i]), -1 if used else ob,
                                  keep, can_close):
                        continue
                mask[a] = 1
        if opened and hsize >= keep:
            for j, m in enumerate(s.melds):
                added = _added(m)
                n = int(np.all(added == pend, 1).sum()) if len(added) else 0
                mask[A.EXTEND + j] = n >= 1
                mask[A.EXTEND_LOW + j] = n >= 2
        if not opened and s.undos:
            mask[A.UNDO] = 1
        return mask
    if opened and ob < 0:
        for j, m in enumerate(s.melds):
            if m[4] and hand[joker_standin(m)]:
                mask[A.SWAP + j] = 1
    if not opened and s.staged and s.undos:
        mask[A.UNDO] = 1
    for k in range(NUM_KINDS):
        if not hand[k] or (hsize == 1 and not can_close):
            continue
        if ob >= 0 and not (guided and s.ob_used and hsize == 1):
            continue
        mask[A.DISCARD + k] = 1
    return mask


def check_invariants(game, s) -> None:
    """Assert every invariant of a Scala 40 state (the conformance suite calls it after every step)."""
    n = game.num_players
    # the array mirrors must equal the lists; then the numeric checks run on them
    assert s.hand_f.tolist() == s.hands, "cached hand observation is stale (or a hand is malformed)"
    assert s.bits == [hand_bits(h) for h in s.hands], "cached hand bits are stale"
    assert s.known_f.reshape(2 * n, NUM_KINDS).tolist() == s.known + s.known, \
        "cached known-cards observation is stale"
    for name in ("discarded", "taken"):
        assert np.array_equal(getattr(s, name + "_f"), twice(getattr(s, name))), f"cached {name} rows are stale"
        assert all(sum(row) <= ROUNDS_PER_HAND for row in getattr(s, name)), f"more {name} cards than turns"
    assert not (s.stock_hidden and s.turnovers and game.config.turnover == "unshuffled"), \
        "an unshuffled turnover makes the stock public"
    hands, known = s.hand_f, s.known_f[:n * NUM_KINDS].reshape(n, NUM_KINDS)
    assert hands.min() >= 0, "a hand has a negative count"
    assert hands.sum(1).tolist() == s.hand_size, f"hand sizes {s.hand_size} disagree with the hands"
    assert known.min() >= 0 and (known <= hands).all(), "a player is known to hold a card it lacks"
    if s.phase != OVER:
        assert all(s.hand_size[i] == 0 for i in range(n) if s.eliminated[i]), "an eliminated player holds cards"
    loose = s.pending + s.stock + s.discard
    for m in s.melds:
        assert valid_meld(m), f"invalid meld on the table: {m}"
        loose.extend(meld_cards(m))
    count = hands.sum(0) + np.bincount(loose, minlength=NUM_KINDS)
    assert (count == game._deck_counts).all(), \
        f"card kinds {np.flatnonzero(count != game._deck_counts).tolist()} are not each in exactly one place"
    assert len(s.melds) <= A.MAX_MELDS
    assert 0 <= s.staged <= len(s.melds)
    staged = s.melds[len(s.melds) - s.staged:] if s.staged else []
    assert s.staged_value == sum(meld_value(m) for m in staged), "staged value is inconsistent"
    assert not (s.staged and s.opened[s.player]), "staged melds of an opened player"
    assert np.array_equal(s.players_f, player_rows(s)), "cached player rows are stale"
    table = game._scratch
    h = len(table) - PUB_SIZE
    head_block(table[:h], s)
    fill_melds(table[h:], s.melds, s.staged)
    pile_block(table[h:], s.discard)
    stock_block(table[h:], s.stock, not s.stock_hidden)
    assert np.array_equal(table[:h], s.table[:h]), \
        f"cached turn fields are stale: cells {np.flatnonzero(table[:h] != s.table[:h]).tolist()}"
    assert np.array_equal(table, s.table), "cached table observation is stale"
    assert s.pub.base is s.table, "pub must be the view of table's public part"
    assert 0 <= s.turn <= s.turn_limit <= ROUNDS_PER_HAND * game.num_players and s.undos in (0, 1)
    assert all(t >= 0 for t in s.totals)
    if game.match:
        for i in range(n):
            assert s.eliminated[i] == (s.totals[i] > ELIMINATION), f"elimination of {i} is inconsistent"
    if s.phase == OVER:
        assert abs(sum(s.returns)) < 1e-9 or not game.match, "match returns must sum to zero"
    else:
        assert not s.eliminated[s.player], "an eliminated player is to act"
        assert game.alive(s) >= 2 or not game.match
        if s.phase == DRAW:
            assert not s.pending and not s.staged and s.stock, "draw phase with cards in play"


def loadable_state(game, s):
    """A copy of ``s`` to load into an engine, after checking that every field has this config's
    shape and range (``baralho.core.checks``: the compiled kernels index tables with them), its
    ready-made observation pieces rebuilt from its lists (a state's own are not trusted). The
    conservation rules are ``check_invariants``'s, run after this."""
    import copy

    from baralho.core import checks as K
    from baralho.envs.scala40.melds import MAX_RUN
    from baralho.envs.scala40.observation import DECK_MAX

    n, kind = game.num_players, (0, NUM_KINDS - 1)
    K.integer(s.num_players, "num_players", n, n)
    for name in ("hands", "known", "discarded", "taken"):
        K.rows(getattr(s, name), name, n, 0, 4, width=NUM_KINDS)
    K.integers(s.hand_size, "hand_size", 0, DECK_MAX, length=n)
    K.integers(s.stock, "stock", *kind, max_length=DECK_MAX)
    K.integers(s.discard, "discard", *kind, max_length=DECK_MAX)
    for k, m in enumerate(K.sequence(s.melds, "melds", max_length=A.MAX_MELDS)):
        if not isinstance(m, tuple):
            raise K.StateError(f"field melds[{k}] must be a tuple (type, a, b, c, j), got {type(m).__name__}")
        K.integers(m, f"melds[{k}]", 0, 15, length=5)
    K.integers(s.pending, "pending", *kind, max_length=MAX_RUN)
    K.integer(s.player, "player", 0, n - 1)
    K.integer(s.phase, "phase", 0, OVER)
    K.integer(s.first, "first", 0, n - 1)
    K.integer(s.turn_limit, "turn_limit", 0, ROUNDS_PER_HAND * n)
    K.integer(s.turn, "turn", 0, s.turn_limit)
    K.flags(s.opened, "opened", n)
    K.flag(s.was_open, "was_open")
    K.integer(s.staged, "staged", 0, A.MAX_MELDS)
    K.integer(s.staged_value, "staged_value", 0, 2**15 - 1)
    K.integer(s.obligation, "obligation", -1, NUM_KINDS - 1)
    K.flag(s.ob_used, "ob_used")
    K.integer(s.took, "took", -1, NUM_KINDS - 1)
    K.integer(s.undos, "undos", 0, 1)
    K.integers(s.totals, "totals", 0, 2**31 - 1, length=n)
    K.flags(s.eliminated, "eliminated", n)
    K.integers(s.last_penalties, "last_penalties", 0, 2**31 - 1, length=n)
    K.integer(s.hands_played, "hands_played", 0, 2**31 - 1)
    K.integer(s.turnovers, "turnovers", 0, 2**31 - 1)
    K.flag(s.stock_hidden, "stock_hidden")
    K.integers(s.winners, "winners", 0, n - 1, max_length=n)
    K.distinct(s.winners, "winners")
    K.numbers(s.returns, "returns", n)
    if s.seed is not None:
        K.integer(s.seed, "seed", 0, 2**64 - 1)
    K.integer(s.draws, "draws", 0, 2**63 - 1)
    return copy.deepcopy(s)      # through __getstate__/__setstate__: the pieces rebuilt from the lists
