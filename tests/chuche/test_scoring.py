"""Card and Chuche points, the end of a round, the end of a match per player count, scopes."""

from __future__ import annotations

import pytest

from baralho.envs.chuche.actions import A_ADD, A_CAPTURE, A_COMMIT, A_PLACE
from baralho.envs.chuche.cards import GOALS, KIND, POINTS, chuche_points

from .helpers import AM, LA, VD, VM, card, chuche, play, position


def test_card_points():
    assert POINTS[card(VM, 5)] == 5                   # red 5
    assert POINTS[card(LA, 5)] == POINTS[card(VD, 5)] == 4   # other 5s
    assert POINTS[card(VM, 3)] == POINTS[card(VM, 6)] == 3   # other reds
    assert POINTS[card(LA, 1)] == POINTS[card(AM, 6)] == 1   # the rest


def test_chuche_cards_score_two_each_four_each_from_three():
    assert [chuche_points(k) for k in range(5)] == [0, 2, 4, 12, 16]


def test_round_end_blocked_cards_score_for_their_owner_the_rest_is_discarded():
    red5, la4 = card(VM, 5), card(LA, 4)
    game, s = position(hands=[[card(AM, 1)], []], table=[red5, la4], owner={red5: 1},
                       piles=[[card(VM, 3), card(LA, 5)], [card(AM, 2)]],
                       used=[chuche(coringa=1, bloqueio=1), chuche(bloqueio=1)],
                       held=[chuche(escudo=1), chuche()], scope="round")
    play(game, s, A_PLACE)                            # no 7 from 1 with 4 (and the 5 is seat 1's)
    assert s.over and red5 in s.piles[1] and la4 in s.discard and card(AM, 1) in s.discard
    # seat 0: red 3 (3) + other 5 (4) + 3 Chuche cards at 4 each (12); seat 1: 1 + red 5 + 1 Chuche (2)
    assert s.scores == [3 + 4 + 12, 1 + 5 + 2]
    assert s.rets == [1.0, -1.0]


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_match_ends_when_someone_reaches_the_goal_alone(n):
    goal = GOALS[n]
    assert goal == {2: 140, 3: 120, 4: 100, 5: 80, 6: 60}[n]
    hands = [[card(VM, 3)]] + [[] for _ in range(n - 1)]
    # 3 + 4 = 7 (empty stock): red 3 + 4 = 4 points, + a Chuche card for clearing = 6
    game, s = position(n, hands=hands, table=[card(LA, 4)], scores=[goal - 6] + [goal - 10] * (n - 1))
    play(game, s, A_CAPTURE, A_ADD + KIND[card(LA, 4)], A_COMMIT)
    assert s.over and s.scores[0] == goal and s.rets[0] == 1.0
    assert all(r == pytest.approx(-1 / (n - 1)) for r in s.rets[1:])
    # one point short: the match goes on with a new deal
    game, s = position(n, hands=hands, table=[card(LA, 4)], scores=[goal - 7] + [0] * (n - 1))
    play(game, s, A_CAPTURE, A_ADD + KIND[card(LA, 4)], A_COMMIT)
    assert not s.over and s.rounds_played == 1 and all(len(h) == 3 for h in s.hands)
    assert s.turn == 1 % n                            # the first seat rotates each round
    assert all(sum(h) == sum(u) == 0 for h, u in zip(s.held, s.used, strict=True))   # Chuche cards reset
    assert len(s.chuche_deck) == 12 and not any(s.piles)


def test_a_tie_at_the_top_plays_another_round():
    game, s = position(3, hands=[[card(VM, 3)], [], []], table=[card(LA, 4)], scores=[114, 120, 3])
    play(game, s, A_CAPTURE, A_ADD + KIND[card(LA, 4)], A_COMMIT)
    assert s.scores == [120, 120, 3] and not s.over and s.rounds_played == 1


def test_the_round_cap_ends_a_tied_match_and_the_tie_shares():
    game, s = position(3, hands=[[card(VM, 3)], [], []], table=[card(LA, 4)], scores=[114, 120, 3],
                       max_rounds=1)
    play(game, s, A_CAPTURE, A_ADD + KIND[card(LA, 4)], A_COMMIT)
    assert s.over and s.rets == [0.5, 0.5, -1.0]


def test_scope_round_is_one_round():
    game, s = position(hands=[[card(VM, 3)], []], table=[card(LA, 4)], scope="round")
    play(game, s, A_CAPTURE, A_ADD + KIND[card(LA, 4)], A_COMMIT)
    assert s.over and s.rounds_played == 1 and s.rets == [1.0, -1.0]
    assert game.max_decisions == game.round_bound
