"""resample_hidden for a seat that is not acting: every redraw lets the actor end
the turn it has started (issue 19: about 6% of such redraws used to leave the
actor part-way through a meld with no legal move)."""

import numpy as np

from tests.scala40.helpers import DRAW, PLAY, A, Config, Scala40Game, card, play, position, sel

G2 = Scala40Game(Config(num_players=2))


def finish_turn_at_random(game, s, seed: int) -> None:
    """Random legal moves until the actor's turn is over; fails on a dead end."""
    rng = np.random.default_rng(seed)
    actor = s.player
    for _ in range(80):
        if game.is_over(s) or s.player != actor or s.phase == DRAW:
            return
        legal = np.flatnonzero(game.legal_mask(s))
        assert len(legal), "the resampled actor has no legal move part-way through its turn"
        game.apply(s, int(legal[rng.integers(len(legal))]))
        game.check_invariants(s)
    raise AssertionError("the turn did not end within 80 moves")


def redraws(s, observer: int, count: int = 60):
    rng = np.random.default_rng(5)
    return [G2.resample_hidden(s, observer, rng) for _ in range(count)]


def test_a_redraw_leaves_the_actor_a_completion_for_the_meld_it_is_building():
    # seat 1 (opened) has selected 7♥ 8♥; its other three cards are hidden from seat 0, and
    # only 6♥, 9♥ or a joker among them lets it finish the meld (nothing on the table to lay off on)
    s = position(G2, {0: "2c 5d 9s Kd", 1: "7h 8h 9h 3c 5s"}, player=1, opened=(1,))
    play(G2, s, *sel("7h 8h"))
    assert s.phase == PLAY and s.known[1] == [0] * 53
    hands = set()
    for k, r in enumerate(redraws(s, 0)):
        h = r.hands[1]
        assert h[card("6h")] + h[card("9h")] + h[card("JK")] >= 1, "the redraw took every completion away"
        assert r.pending == s.pending and np.array_equal(G2.observe(r, 0), G2.observe(s, 0))
        hands.add(tuple(h))
        finish_turn_at_random(G2, r, seed=k)
    assert len(hands) > 30, "the redraw must still vary the hidden cards"


def test_a_redraw_lets_an_unopened_actor_open_with_the_discard_it_took():
    # seat 1 has not opened and took 9♥ from the discard: it must open with it this turn,
    # so every redraw of its 13 hidden cards must reach 40 points with 9♥ in a meld
    s = position(G2, {0: "2c 5d 9s Kd", 1: "7h 8h Kh Ks Kd 2s 4d 9c 3d 6s Jc 10d 5c"}, player=1,
                 phase=DRAW, discard="9h")
    play(G2, s, A.DRAW_DISCARD)
    assert s.obligation == card("9h")
    for k, r in enumerate(redraws(s, 0, count=30)):
        assert r.hands[1][card("9h")] >= 1 and r.obligation == card("9h")
        finish_turn_at_random(G2, r, seed=k)
        assert r.opened[1], "the actor ended its turn without the opening it took the discard for"


def test_the_acting_seat_and_a_drawing_actor_are_redrawn_without_conditions():
    # the actor's own resample keeps its hand; an actor still to draw can always draw
    s = position(G2, {0: "2c 5d 9s Kd", 1: "7h 8h 9h 3c 5s"}, player=1, phase=DRAW, opened=(1,))
    rng = np.random.default_rng(0)
    assert len({tuple(G2.resample_hidden(s, 0, rng).hands[1]) for _ in range(20)}) > 10
    assert all(G2.resample_hidden(s, 1, rng).hands[1] == s.hands[1] for _ in range(5))
