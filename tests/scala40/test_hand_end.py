"""Closing, penalties, stock exhaustion, bounds and the match: hand-built positions."""

import numba as nb
import numpy as np
import pytest

from baralho.envs.scala40 import fast
from baralho.envs.scala40.melds import hand_penalty
from baralho.envs.scala40.rules import MAX_TURN_DECISIONS, OVER, ROUNDS_PER_HAND
from tests.scala40.helpers import (
    DRAW,
    A,
    Config,
    Scala40Game,
    card,
    counts,
    disc,
    legal,
    meld,
    play,
    position,
    sel,
)

G2 = Scala40Game(Config(num_players=2))
H2 = Scala40Game(Config(num_players=2, scope="hand"))


def test_penalties_and_the_lone_ace():
    assert hand_penalty(counts("JK As Kd Qh Jc 10s 9h 2c")) == 25 + 11 + 10 + 10 + 10 + 10 + 9 + 2
    assert hand_penalty(counts("Ah")) == 1
    assert hand_penalty(counts("Ah Ad")) == 22
    assert hand_penalty(counts("JK")) == 25


def test_closing_with_a_final_discard_scores_the_others():
    table = [meld("6c 7c 8c")]
    s = position(H2, {0: "9c 5d", 1: "Ks As"}, melds=table, opened=(0,))
    assert disc("5d") in legal(H2, s) and disc("9c") in legal(H2, s)
    r = play(H2, s, A.SELECT + card("9c"), A.EXTEND + 0)
    assert legal(H2, s) == {disc("5d")}  # no closing without a discard: the 5 cannot be laid off
    r = play(H2, s, disc("5d"))
    assert s.phase == OVER
    assert r == [0.0, -0.21]
    assert list(H2.returns(s)) == [0.0, -0.21]


def test_lone_ace_left_in_hand_pays_one():
    table = [meld("6c 7c 8c")]
    s = position(H2, {0: "9c 5d", 1: "Ah"}, melds=table, opened=(0,))
    r = play(H2, s, A.SELECT + card("9c"), A.EXTEND + 0, disc("5d"))
    assert r == [0.0, -0.01]


def test_closing_in_hand_doubles_penalties_and_ignores_the_40():
    s = position(H2, {0: "7h 8h 9h 5s 5d 5c 4d", 1: "Ks"})
    play(H2, s, *sel("7h 8h 9h"), A.COMMIT, *sel("5s 5d 5c"), A.COMMIT)
    assert not s.opened[0] and s.staged_value == 39
    r = play(H2, s, disc("4d"))
    assert r == [0.0, -0.2]


def test_opening_and_going_out_in_one_turn_is_also_closing_in_hand():
    table = [meld("6c 7c 8c")]
    s = position(H2, {0: "Ks Kd Kc Qs Qd Qc 9c 2h", 1: "3d"}, melds=table)
    r = play(H2, s, *sel("Ks Kd Kc"), A.COMMIT, *sel("Qs Qd Qc"), A.COMMIT, A.SELECT + card("9c"),
             A.EXTEND + 0, disc("2h"))
    assert r == [0.0, -0.06]


def test_no_closing_in_the_first_round():
    s = position(H2, {0: "7h 8h 9h 5s 5d 5c 4d", 1: "Ks"}, turn=1)  # player 1 has not played yet
    play(H2, s, *sel("7h 8h 9h"), A.COMMIT)
    assert A.SELECT + card("5s") not in legal(H2, s)  # would leave one card: a closing
    table = [meld("6c 7c 8c")]
    s = position(H2, {0: "9c 5d", 1: "Ks"}, melds=table, opened=(0,), turn=0)
    assert A.SELECT + card("9c") not in legal(H2, s)
    s.turn = 2
    assert A.SELECT + card("9c") in legal(H2, s)


def test_stock_turnover_unshuffled():
    s = position(H2, {0: "2h 5d 9s", 1: "3c 6d Jh"}, stock="7s", phase=DRAW, discard="4h")
    old_pile = list(s.discard)
    play(H2, s, A.DRAW_STOCK, disc("2h"))  # the stock is now empty
    assert s.player == 1 and s.turnovers == 1 and not s.stock_hidden
    pile = old_pile + [card("2h")]
    assert s.discard == [pile[0]]  # the old bottom card starts the new pile
    assert s.stock == pile[1:][::-1]  # and the rest, turned over, is the stock
    assert s.stock[-1] == pile[1]


def test_stock_turnover_shuffled_keeps_the_cards():
    g = Scala40Game(Config(num_players=2, scope="hand", turnover="shuffled"))
    s = position(g, {0: "2h 5d 9s", 1: "3c 6d Jh"}, stock="7s", phase=DRAW, discard="4h")
    pile = list(s.discard) + [card("2h")]
    play(g, s, A.DRAW_STOCK, disc("2h"))
    assert sorted(s.stock + s.discard) == sorted(pile) and s.turnovers == 1


def test_both_piles_empty_ends_the_hand_with_no_one_closing():
    s = position(H2, {0: "2h 5d 9s", 1: "3c 6d Jh"}, stock="7s", phase=DRAW, discard="4h")
    rest = s.discard
    for k in rest:  # every other card is in player 1's hand
        s.hands[1][k] += 1
    s.hand_size[1] += len(rest)
    s.discard = []
    H2._sync(s)
    H2.check_invariants(s)
    r = play(H2, s, A.DRAW_STOCK, disc("2h"))
    assert s.phase == OVER
    assert r[0] == -(5 + 9 + 7) / 100 and r[1] < 0


def test_turn_bound_ends_the_hand():
    s = position(H2, {0: "2h 5d 9s", 1: "Kd"}, turn=ROUNDS_PER_HAND * 2 - 1)
    r = play(H2, s, disc("2h"))
    assert s.phase == OVER and r == [-0.14, -0.1]


def test_elimination_and_the_next_hand():
    g = Scala40Game(Config(num_players=3))
    table = [meld("6c 7c 8c")]
    s = position(g, {0: "9c 5d", 1: "Ks", 2: "2s"}, melds=table, opened=(0,), totals=[95, 50, 100])
    r = play(g, s, A.SELECT + card("9c"), A.EXTEND + 0, disc("5d"))
    assert r is None and s.phase == DRAW
    assert s.totals == [95, 60, 102] and s.eliminated == [False, False, True]
    assert s.hand_size == [13, 13, 0] and s.first == 1 and s.player == 1
    play(g, s, A.DRAW_STOCK, A.DISCARD + next(k for k in range(53) if s.hands[1][k]))
    assert s.player == 0  # seat 2 is skipped


def test_last_player_standing_wins_the_match():
    g = Scala40Game(Config(num_players=3))
    table = [meld("6c 7c 8c")]
    s = position(g, {0: "9c 5d", 1: "Ks"}, melds=table, opened=(0,), totals=[95, 99, 130],
                 eliminated=(2,))
    r = play(g, s, A.SELECT + card("9c"), A.EXTEND + 0, disc("5d"))
    assert s.phase == OVER and s.winners == [0]
    assert r == [1.0, -0.5, -0.5] and sum(g.returns(s)) == 0


def test_everyone_out_at_once_lowest_total_wins():
    s = position(G2, {0: "Ks", 1: "Kd 2c"}, totals=[95, 95], turn=ROUNDS_PER_HAND * 2 - 1)
    s.hands[0][card("9h")] += 1  # one card to discard
    s.hand_size[0] += 1
    for k in (card("9h"),):
        s.stock.remove(k)
    G2._sync(s)
    r = play(G2, s, disc("9h"))
    assert s.eliminated == [True, True] and s.winners == [0] and r == [1.0, -1.0]


def test_hand_scope_rewards_are_minus_penalty_over_100():
    s = position(H2, {0: "2h 5d 9s", 1: "Kd JK"}, turn=ROUNDS_PER_HAND * 2 - 1)
    assert play(H2, s, disc("2h")) == [-0.14, -0.35]


def test_per_turn_and_per_hand_bounds():
    """Random and heuristic play never exceed the stated per-turn and per-hand bounds."""
    from baralho.envs.scala40.heuristic import Scala40Heuristic
    for n in (2, 4):
        g = Scala40Game(Config(num_players=n))
        rng = np.random.default_rng(n)
        import baralho
        env = baralho.make("scala40_v1", engine="reference", num_players=n)
        agent = Scala40Heuristic(g, seed=1)
        for game_no in range(3):
            s = g.new_state(rng)
            turn_len = hand_turns = decisions = 0
            last = (s.hands_played, s.turn)
            while not g.is_over(s):
                mask = g.legal_mask(s)
                if game_no == 0:
                    env.unwrapped.game_state = s
                    a = agent.act({"observation": g.observe(s, s.player), "action_mask": mask}, "x")
                else:
                    a = int(rng.choice(np.flatnonzero(mask)))
                g.apply(s, a)
                decisions += 1
                turn_len += 1
                if (s.hands_played, s.turn) != last:
                    assert turn_len <= MAX_TURN_DECISIONS
                    turn_len = 0
                    last = (s.hands_played, s.turn)
                hand_turns = max(hand_turns, s.turn)
            assert hand_turns <= ROUNDS_PER_HAND * n and decisions <= g.max_decisions


def test_a_long_turn_stays_within_the_turn_bound():
    """An opened player laying off card after card, swapping jokers, then discarding."""
    table = [meld("2s 3s 4s"), meld("7h JK 9h", joker_as="8h"), meld("Qd Kd Ad")]
    s = position(H2, {0: "5s 6s 7s 8s 8h 9s 10s Jd 10d 9d 3c 4c 5c"}, melds=table, opened=(0,))
    steps = 0
    while s.player == 0 and s.phase != OVER:
        acts = sorted(legal(H2, s))
        a = next((x for x in acts if x < A.DISCARD), acts[0])
        play(H2, s, a)
        steps += 1
    assert 10 < steps <= MAX_TURN_DECISIONS


@pytest.mark.parametrize("bad", [dict(num_players=1), dict(num_players=6), dict(num_jokers=3),
                                 dict(scope="round"), dict(turnover=True), dict(jokers=2)])
def test_bad_configs_raise(bad):
    import baralho
    with pytest.raises(baralho.ConfigError):
        baralho.make("scala40_v1", **bad)


def test_check_invariants_catches_corruption():
    s = position(G2, {0: "7h 8h 9h", 1: "2c"}, melds=[meld("5s 6s 7s")])
    bad = s.copy()
    bad.hands[0][card("7h")] += 1
    with pytest.raises(AssertionError):
        G2.check_invariants(bad)
    bad = s.copy()
    bad.melds[0] = (0, 0, 5, 7, 9)  # a joker outside its run
    with pytest.raises(AssertionError):
        G2.check_invariants(bad)
    bad = s.copy()
    bad.known[1][card("Kd")] = 1
    with pytest.raises(AssertionError):
        G2.check_invariants(bad)
    bad = s.copy()
    bad.totals[0] = 150
    with pytest.raises(AssertionError):
        G2.check_invariants(bad)


@nb.njit(cache=False)
def _compiled_estimate(records, tables, out):
    """The compiled engine's estimate into ``out``; returns its segment."""
    fast.estimate(records[0], tables[0], out)
    return fast.segment(records[0], tables[0])


def test_a_hands_end_is_valued_from_the_room_under_the_elimination_line():
    """Scala40Game.estimate (the net-guided search's horizon="segment", a decision in RULES.md): a
    live player wins with a chance in proportion to ``101 - total``, the winner +1, the others -1/2;
    the compiled engine's ``estimate`` is the same number; a finished match, its returns."""
    from baralho.core.compiled import CompiledGame

    g = Scala40Game(Config(num_players=3))
    table = [meld("6c 7c 8c")]
    s = position(g, {0: "9c 5d", 1: "Ks", 2: "2s"}, melds=table, opened=(0,), totals=[95, 50, 100])
    assert g.segment(s) == 0
    np.testing.assert_allclose(g.estimate(s), [6 / 58 * 1.5 - 0.5, 51 / 58 * 1.5 - 0.5, 1 / 58 * 1.5 - 0.5])
    play(g, s, A.SELECT + card("9c"), A.EXTEND + 0, disc("5d"))        # totals 95, 60, 102: seat 2 is out
    assert g.segment(s) == 1
    expected = [6 / 47 * 1.5 - 0.5, 41 / 47 * 1.5 - 0.5, -0.5]
    np.testing.assert_allclose(g.estimate(s), expected)
    assert sum(g.estimate(s)) == pytest.approx(0.0)
    cg = CompiledGame(g, fast)
    c = cg.from_reference(s)
    out = np.zeros(3)
    assert _compiled_estimate(c.records, cg._tables, out) == 1
    assert out.tolist() == g.estimate(s).tolist()
    s = position(g, {0: "9c 5d", 1: "Ks"}, melds=table, opened=(0,), totals=[95, 99, 130], eliminated=(2,))
    play(g, s, A.SELECT + card("9c"), A.EXTEND + 0, disc("5d"))        # the last player standing
    assert g.estimate(s).tolist() == g.returns(s).tolist() == [1.0, -0.5, -0.5]
    hand = position(H2, {0: "9c 5d", 1: "Ks"}, melds=table, opened=(0,))
    assert H2.estimate(hand).tolist() == [0.0, 0.0]    # one hand (scope "hand"): nothing before its end
