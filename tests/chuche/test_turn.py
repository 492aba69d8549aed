"""Setup, targets, captures, placing, clearing the table, refills (hand-built positions)."""

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
    A_PLACE,
    A_ROUBAR,
    A_UNBLOCK,
)
from baralho.envs.chuche.cards import (
    BACKS_PER_COLOUR,
    BLOQUEIO,
    CHUCHE_COUNTS,
    CORINGA,
    FRONT,
    KIND,
    PER_COLOUR,
    RED,
)
from baralho.envs.chuche.observation import CAPTURE, MAIN
from baralho.envs.chuche.rules import ChucheGame, Config

from .helpers import AM, AZ, LA, VD, VM, card, chuche, legal, play, position


# ------------------------------------------------------------------- setup
def test_deck_by_player_count():
    """2 players: red + 3 colours (36); 3-4: red + 4 (45); 5-6: all 6 (54). Extra colours are a seeded draw."""
    for n, cards, colours in [(2, 36, 4), (3, 45, 5), (4, 45, 5), (5, 54, 6), (6, 54, 6)]:
        game = ChucheGame(Config(num_players=n))
        seen = set()
        for seed in range(12):
            s = game.new_state(np.random.default_rng(seed))
            assert len(s.in_play) == cards == game.num_cards and len(s.colours) == colours
            assert RED in s.colours
            seen.add(s.colours)
            for col in s.colours:   # decision: 9 per colour, two each of 1-3, one each of 4-6
                assert sorted(FRONT[c] for c in s.in_play if c // PER_COLOUR == col) == [1, 1, 2, 2, 3, 3, 4, 5, 6]
                assert sorted(s.back[c] for c in s.in_play if c // PER_COLOUR == col) == sorted(BACKS_PER_COLOUR)
        assert len(seen) > 1 or colours == 6


def test_deal_three_each_three_on_table_and_chuche_deck():
    for n in range(2, 7):
        game = ChucheGame(Config(num_players=n))
        s = game.new_state(np.random.default_rng(n))
        assert all(len(h) == 3 for h in s.hands) and len(s.table) == 3
        assert len(s.stock) == game.num_cards - 3 * n - 3
        assert Counter(s.chuche_deck) == Counter({t: k for t, k in enumerate(CHUCHE_COUNTS)})
        assert game.target(s) == s.back[s.stock[-1]]


def test_backs_are_fixed_for_the_match():
    game = ChucheGame(Config(num_players=2))
    rng = np.random.default_rng(3)
    s = game.new_state(rng)
    back, first = s.back, list(s.stock)
    while s.rounds_played == 0:
        game.apply(s, int(rng.choice(np.flatnonzero(game.legal_mask(s)))))
    assert not s.over and s.back == back and s.stock != first   # re-dealt, same backs


def test_target_is_the_stock_tops_back_and_seven_when_empty():
    game, s = position(hands=[[card(VM, 1)], [card(LA, 1)]], stock=[card(AM, 1), card(AM, 2)], target=9)
    assert game.target(s) == 9
    obs = game.obs_layout.decode(game.observe(s, 1))
    assert obs["target"].argmax() + 6 == 9
    game, s = position(hands=[[card(VM, 1)], [card(LA, 1)]])
    assert game.target(s) == 7


# ----------------------------------------------------------------- capture
def test_capture_one_hand_card_plus_table_cards_summing_to_target():
    red5, la3, am2, vd1 = card(VM, 5), card(LA, 3), card(AM, 2), card(VD, 1)
    hand = [red5, card(LA, 1), card(AM, 6)]          # sorted ids: slots follow
    game, s = position(hands=[hand, [card(VD, 1, 1)]], table=[la3, am2, vd1],
                       stock=[card(VD, 2), card(VD, 3), card(VD, 4)], target=8)
    slots = {c: i for i, c in enumerate(s.hands[0])}
    # 5+3, 5+2+1 and 6+2 reach 8; 1 cannot (the table sums to 6 at most with it)
    assert legal(game, s) == {A_CAPTURE + slots[red5], A_CAPTURE + slots[card(AM, 6)]}
    play(game, s, A_CAPTURE + slots[red5])
    assert s.phase == CAPTURE
    assert legal(game, s) == {A_ADD + KIND[la3], A_ADD + KIND[am2], A_ADD + KIND[vd1]}
    play(game, s, A_ADD + KIND[am2])
    assert legal(game, s) == {A_ADD + KIND[vd1]}     # only cards that can still complete 8
    play(game, s, A_ADD + KIND[vd1])
    assert legal(game, s) == {A_COMMIT}
    play(game, s, A_COMMIT)
    assert sorted(s.piles[0]) == sorted([red5, am2, vd1]) and s.table == [la3]
    assert len(s.hands[0]) == 3 and s.turn == 1      # refilled to 3, next player


def test_capture_needs_at_least_one_table_card():
    game, s = position(hands=[[card(VM, 6)], [card(LA, 1)]], table=[card(LA, 5)],
                       stock=[card(AM, 1)], target=6)
    assert legal(game, s) == {A_PLACE}


def test_place_only_when_no_capture_is_possible():
    hand = [card(VM, 1), card(LA, 4)]
    game, s = position(hands=[hand, [card(VD, 1)]], table=[card(AM, 3)], stock=[card(VD, 2)], target=7)
    assert legal(game, s) == {A_CAPTURE + 1}         # 4+3; no placing
    game, s = position(hands=[hand, [card(VD, 1)]], table=[card(AM, 3)], stock=[card(VD, 2)], target=7,
                       place_rule="free")
    assert legal(game, s) == {A_CAPTURE + 1, A_PLACE, A_PLACE + 1}
    game, s = position(hands=[hand, [card(VD, 1)]], table=[card(AM, 6)], stock=[card(VD, 2)], target=9)
    assert legal(game, s) == {A_PLACE, A_PLACE + 1}
    play(game, s, A_PLACE + 1)
    assert card(LA, 4) in s.table and s.turn == 1


def test_coringa_shifts_the_sum_by_one_either_way():
    for hand_card, target in [(card(LA, 3), 8), (card(LA, 5), 8)]:      # 3+4 = 7 -> +1, 5+4 = 9 -> -1
        game, s = position(hands=[[hand_card], [card(VD, 1)]], table=[card(AM, 4)],
                           stock=[card(VD, 2)], target=target, held=[chuche(coringa=1), chuche()])
        assert legal(game, s) == {A_CAPTURE, A_PLACE}    # the Coringa is optional
        play(game, s, A_CAPTURE, A_ADD + KIND[card(AM, 4)])
        assert legal(game, s) == {A_COMMIT_CORINGA}
        play(game, s, A_COMMIT_CORINGA)
        assert s.used[0][CORINGA] == 1 and s.held[0][CORINGA] == 0 and len(s.piles[0]) == 2
        game, s = position(hands=[[hand_card], [card(VD, 1)]], table=[card(AM, 4)],
                           stock=[card(VD, 2)], target=target)
        assert legal(game, s) == {A_PLACE}               # without a Coringa: no capture


def test_add_mask_with_a_coringa_lets_in_near_misses():
    game, s = position(hands=[[card(VM, 2)], [card(VD, 1)]], table=[card(LA, 4), card(AM, 5), card(VD, 6)],
                       stock=[card(VD, 2)], target=7, held=[chuche(coringa=1), chuche()])
    play(game, s, A_CAPTURE)
    # 2+5 = 7 exact; 2+4 = 6 and 2+6 = 8 with the Coringa
    assert legal(game, s) == {A_ADD + KIND[card(LA, 4)], A_ADD + KIND[card(AM, 5)], A_ADD + KIND[card(VD, 6)]}
    play(game, s, A_ADD + KIND[card(AM, 5)])
    assert legal(game, s) == {A_COMMIT}


def test_clearing_the_table_wins_the_top_chuche_card():
    deck = [0, 1, 2, 3, 3, 3, 4, 4, 4, 1, 1, 0]
    game, s = position(hands=[[card(VM, 3)], [card(VD, 1)]], table=[card(LA, 4), card(AM, 5)],
                       stock=[card(VD, 2)], target=7, chuche_deck=deck, owner={card(AM, 5): 1})
    play(game, s, A_CAPTURE, A_ADD + KIND[card(LA, 4)], A_COMMIT)
    assert s.held[0] == chuche(coringa=1) and len(s.chuche_deck) == 11   # the blocked 5 does not count
    game, s = position(hands=[[card(VM, 3)], [card(VD, 1)]], table=[card(LA, 4), card(AM, 5)],
                       stock=[card(VD, 2)], target=7)
    play(game, s, A_CAPTURE, A_ADD + KIND[card(LA, 4)], A_COMMIT)
    assert sum(s.held[0]) == 0                                          # a card left: no Chuche
    game, s = position(hands=[[card(VM, 3)], [card(VD, 1)]], table=[card(LA, 4)], stock=[card(VD, 2)],
                       target=7, chuche_deck=[], used=[chuche(2, 3, 1, 3, 3), chuche()])
    play(game, s, A_CAPTURE, A_ADD + KIND[card(LA, 4)], A_COMMIT)
    assert sum(s.held[0]) == 0                                          # none left to win


def test_refill_to_three_at_the_end_of_the_own_turn_only():
    stock = [card(VD, 1), card(VD, 2), card(VD, 3), card(VD, 4)]
    game, s = position(hands=[[card(VM, 1), card(VM, 2)], [card(LA, 1)]], table=[card(AM, 6)],
                       stock=stock, target=10)
    play(game, s, A_PLACE)
    assert len(s.hands[0]) == 3 and len(s.hands[1]) == 1 and s.stock == stock[:2]
    assert game.target(s) == s.back[stock[1]]


def test_stock_empty_play_on_with_what_you_hold_and_round_ends_when_hands_empty():
    game, s = position(hands=[[card(VM, 1), card(VM, 2)], [card(LA, 2)]], table=[card(AM, 4)])
    play(game, s, A_PLACE)                   # no 7 for 1 or 2 with a 4; player 1 then has 2+4+1
    assert len(s.hands[0]) == 1 and s.turn == 1
    play(game, s, A_CAPTURE, A_ADD + KIND[card(AM, 4)], A_ADD + KIND[card(VM, 1)], A_COMMIT)
    assert s.turn == 0 and not s.over
    play(game, s, A_PLACE)
    # round over: player 1 has 2La + 4Am + 1Vm (1 + 1 + 3) and the Chuche card won by clearing (2)
    assert s.rounds_played == 1 and s.scores == [0, 7] and not s.over   # match scope: a new deal
    assert all(len(h) == 3 for h in s.hands)


def test_a_turn_with_an_empty_hand_passes_and_draws():
    game, s = position(3, hands=[[card(VM, 1)], [], [card(LA, 2)]], table=[card(AM, 6)],
                       stock=[card(AZ, c // 2 + 1, c % 2) for c in range(6)], target=10)
    play(game, s, A_PLACE)
    assert s.turn == 2 and len(s.hands[1]) == 3      # seat 1 skipped, refilled at its turn's end


def test_at_most_one_chuche_card_per_turn():
    game, s = position(3, hands=[[card(VM, 4)], [card(LA, 1)], [card(AM, 1)]], table=[card(LA, 4)],
                       stock=[card(AZ, 1)], target=8,
                       held=[chuche(coringa=1, roubar=1, bomba=1, bloqueio=1, escudo=1), chuche(), chuche()],
                       owner={card(LA, 4): 1})
    before = legal(game, s)
    assert {A_ROUBAR, A_ROUBAR + 1, A_BOMBA, A_UNBLOCK + KIND[card(LA, 4)]} <= before    # 4 + 4 = 8
    play(game, s, A_ROUBAR)                           # steal from seat 1
    # v1: no Bloqueio window for the turn player, who has played the turn's card (no other holder)
    assert s.phase == MAIN and s.actor == 0 and s.table[-1] == card(LA, 1)
    after = legal(game, s)
    assert not after & ({A_BOMBA, A_ROUBAR, A_ROUBAR + 1} | set(range(A_BLOCK, A_ROUBAR)))
    assert s.chuche_played
    # the Coringa is a Chuche card too: 3 + 4 = 7 would need it, so no capture with it now
    game, s2 = position(3, hands=[[card(VM, 3)], [card(LA, 6)], [card(AM, 1)]], table=[card(LA, 4)],
                        stock=[card(AZ, 1)], target=8, held=[chuche(coringa=1, roubar=1), chuche(), chuche()])
    assert A_CAPTURE in legal(game, s2)
    play(game, s2, A_ROUBAR)
    assert A_CAPTURE not in legal(game, s2) and s2.table[-1] == card(LA, 6)


def test_bloqueio_in_own_turn_counts_as_the_turns_chuche_card():
    game, s = position(hands=[[card(VM, 1)], [card(LA, 1)]], table=[card(AM, 6), card(LA, 5)],
                       stock=[card(VD, 1)], target=10, held=[chuche(bloqueio=1, bomba=1), chuche()])
    assert {A_BLOCK + KIND[card(AM, 6)], A_BLOCK + KIND[card(LA, 5)], A_BOMBA} <= legal(game, s)
    play(game, s, A_BLOCK + KIND[card(LA, 5)])
    assert s.owner[card(LA, 5)] == 0 and s.used[0][BLOQUEIO] == 1
    assert legal(game, s) == {A_PLACE}
