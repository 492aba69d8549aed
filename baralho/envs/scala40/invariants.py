"""Scala 40 state invariants: what the conformance suite asserts after every step.

Every card kind is in exactly one place, the counts and flags agree with each
other, and every ready-made observation piece the engine keeps incrementally
(hands, known cards, player rows, the table block) equals the same piece
rebuilt from scratch.
"""

from __future__ import annotations

import numpy as np

from baralho.envs.scala40 import actions as A
from baralho.envs.scala40.melds import NUM_KINDS, hand_bits, meld_cards, meld_value, valid_meld
from baralho.envs.scala40.observation import PUB_SIZE, fill_melds, head_block, pile_block, player_rows


def check_invariants(game, s) -> None:
    """Assert every invariant of a Scala 40 state (the conformance suite calls it after every step)."""
    from baralho.envs.scala40.rules import DRAW, ELIMINATION, OVER, ROUNDS_PER_HAND  # rules imports this module

    n = game.num_players
    # the float mirrors must equal the lists; then the numeric checks run on them
    assert s.hand_f.tolist() == s.hands, "cached hand observation is stale (or a hand is malformed)"
    assert s.bits == [hand_bits(h) for h in s.hands], "cached hand bits are stale"
    assert s.known_f.reshape(2 * n, NUM_KINDS).tolist() == s.known + s.known, \
        "cached known-cards observation is stale"
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
    pile_block(table[h:], s.discard, len(s.stock))
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
