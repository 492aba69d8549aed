"""Roubar, Bomba, Bloqueio, Escudo and the out-of-turn reaction windows."""

from __future__ import annotations

from baralho.envs.chuche.actions import (
    A_ADD,
    A_BLOCK,
    A_BOMBA,
    A_CAPTURE,
    A_COMMIT,
    A_ESCUDO,
    A_PASS,
    A_PLACE,
    A_ROUBAR,
    A_UNBLOCK,
)
from baralho.envs.chuche.cards import BLOQUEIO, BOMBA, ESCUDO, KIND, ROUBAR
from baralho.envs.chuche.observation import BLOQ_WINDOW, BOMBA_ROUND, MAIN, ROUBAR_WINDOW

from .helpers import AM, AZ, LA, VD, VM, card, chuche, legal, play, position

STOCK = [card(AZ, 1), card(AZ, 1, 1), card(AZ, 2), card(AZ, 2, 1), card(AZ, 3), card(AZ, 3, 1)]


# ------------------------------------------------------------------ Roubar
def test_roubar_targets_opponents_with_cards_and_puts_a_random_card_on_the_table():
    victim = [card(LA, 1), card(LA, 2)]
    game, s = position(3, hands=[[card(VM, 1)], victim, []], table=[card(AM, 6)], stock=STOCK, target=10,
                       held=[chuche(roubar=1), chuche(), chuche()])
    assert {A_ROUBAR, A_ROUBAR + 1} & legal(game, s) == {A_ROUBAR}     # seat 2 has no card
    play(game, s, A_ROUBAR)
    stolen = s.table[-1]
    assert stolen in victim and s.hands[1] == [c for c in victim if c != stolen]
    assert s.used[0][ROUBAR] == 1 and s.phase == MAIN and s.actor == 0
    play(game, s, A_PLACE)
    assert len(s.hands[1]) == 1                       # the victim refills only at its own turn's end
    assert s.turn == 1


def test_roubar_victim_with_escudo_is_asked_out_of_turn():
    game, s = position(3, hands=[[card(VM, 1)], [card(LA, 1), card(LA, 2)], [card(AM, 1)]],
                       table=[card(AM, 6)], stock=STOCK, target=10,
                       held=[chuche(roubar=1), chuche(), chuche(escudo=1)])
    play(game, s, A_ROUBAR + 1)                       # seat 2
    assert s.phase == ROUBAR_WINDOW and game.current_player(s) == 2
    assert legal(game, s) == {A_ESCUDO, A_PASS}
    play(game, s, A_ESCUDO)                           # defended: nothing moves
    assert s.hands[2] == [card(AM, 1)] and s.used[2][ESCUDO] == 1 and s.used[0][ROUBAR] == 1
    assert game.current_player(s) == 0 and s.phase == MAIN and s.chuche_played
    game, s = position(3, hands=[[card(VM, 1)], [card(LA, 1), card(LA, 2)], [card(AM, 1)]],
                       table=[card(AM, 6)], stock=STOCK, target=10,
                       held=[chuche(roubar=1), chuche(), chuche(escudo=1)])
    play(game, s, A_ROUBAR + 1, A_PASS)
    assert s.hands[2] == [] and s.table[-1] == card(AM, 1) and s.held[2][ESCUDO] == 1


def test_roubar_draws_from_the_in_state_chance_seed():
    hands = [[card(VM, 1)], [card(LA, 1), card(LA, 2), card(LA, 3)]]
    stolen = set()
    for seed in range(12):
        game, s = position(hands=hands, table=[card(AM, 6)], stock=[card(VD, 1)], target=10,
                           held=[chuche(roubar=1), chuche()])
        s.seed = seed
        play(game, s, A_ROUBAR)
        stolen.add(s.table[-1])
    assert len(stolen) > 1


# ------------------------------------------------------------------- Bomba
def test_bomba_everyone_places_a_card_in_turn_order_bomber_last_escudo_defends():
    game, s = position(4, hands=[[card(VM, 1), card(VM, 2)], [card(LA, 1)], [], [card(AM, 1), card(AM, 2)]],
                       table=[card(AZ, 6)], stock=STOCK, target=10,
                       held=[chuche(bomba=1), chuche(escudo=1), chuche(), chuche()])
    play(game, s, A_BOMBA)
    assert s.phase == BOMBA_ROUND and game.current_player(s) == 1    # seat 2 has no card: skipped
    assert legal(game, s) == {A_PLACE, A_ESCUDO}
    play(game, s, A_ESCUDO)
    assert game.current_player(s) == 3 and legal(game, s) == {A_PLACE, A_PLACE + 1}
    play(game, s, A_PLACE + 1)
    assert game.current_player(s) == 0 and legal(game, s) == {A_PLACE, A_PLACE + 1}   # the bomber too
    play(game, s, A_PLACE)
    assert s.table[-2:] == [card(AM, 2), card(VM, 1)] and s.hands[1] == [card(LA, 1)]
    assert s.phase == MAIN and s.actor == 0 and s.used[0][BOMBA] == 1
    assert legal(game, s) == {A_CAPTURE}              # then the bomber's own turn: 2 + 6 + 2 = 10
    play(game, s, A_CAPTURE, A_ADD + KIND[card(AZ, 6)], A_ADD + KIND[card(AM, 2)], A_COMMIT)
    assert len(s.hands[3]) == 1 and s.turn == 1       # the others play one card short


def test_bomba_with_the_bombers_last_card_ends_the_turn():
    game, s = position(hands=[[card(VM, 1)], [card(LA, 1)]], table=[card(AM, 6)],
                       stock=[card(VD, c) for c in (1, 2, 3, 4)], target=10, held=[chuche(bomba=1), chuche()])
    play(game, s, A_BOMBA, A_PLACE, A_PLACE)          # seat 1 then the bomber
    # the bomber's turn ended (refilled to 3); seat 1's turn with an empty hand passed (it drew the last card)
    assert s.turn == 0 and len(s.hands[0]) == 3 and len(s.hands[1]) == 1 and not s.stock


# ---------------------------------------------------------------- Bloqueio
def test_bloqueio_window_asks_holders_only_nearest_next_turn_first():
    game, s = position(4, hands=[[card(VM, 1)], [card(LA, 1)], [card(AM, 1)], [card(VD, 1)]],
                       table=[card(AZ, 6), card(AZ, 5)], stock=STOCK, target=10,
                       held=[chuche(bloqueio=1), chuche(bloqueio=1), chuche(), chuche(bloqueio=1)])
    play(game, s, A_PLACE)                            # 1Vm reaches the table
    order = []
    while s.phase == BLOQ_WINDOW:
        order.append(game.current_player(s))
        assert legal(game, s) == {A_PASS} | {A_BLOCK + KIND[c] for c in s.table if s.owner[c] < 0}
        play(game, s, A_PASS)
    assert order == [1, 3, 0]                         # seat 2 holds none; the turn player last
    assert s.turn == 1 and s.phase == MAIN




def test_blocked_card_is_only_capturable_by_its_owner():
    red5 = card(VM, 5)
    game, s = position(3, hands=[[card(LA, 2)], [card(AM, 2)], [card(VD, 3)]], table=[red5],
                       stock=STOCK, target=7, owner={red5: 1})
    assert legal(game, s) == {A_PLACE}                # 2+5 = 7, but the 5 is seat 1's
    play(game, s, A_PLACE)
    assert legal(game, s) == {A_CAPTURE}              # seat 1: 2 + 5 (its own) = 7
    play(game, s, A_CAPTURE)
    assert A_ADD + KIND[red5] in legal(game, s)


def test_bloqueio_window_block_then_the_next_holder_is_asked():
    game, s = position(3, hands=[[card(VM, 1)], [card(LA, 1)], [card(AM, 1)]], table=[card(AZ, 6)],
                       stock=STOCK, target=10, held=[chuche(), chuche(bloqueio=2), chuche(bloqueio=1)])
    play(game, s, A_PLACE)
    assert game.current_player(s) == 1
    play(game, s, A_BLOCK + KIND[card(VM, 1)])
    assert s.owner[card(VM, 1)] == 1 and s.used[1][BLOQUEIO] == 1
    assert game.current_player(s) == 2 and legal(game, s) == {A_PASS, A_BLOCK + KIND[card(AZ, 6)]}
    play(game, s, A_BLOCK + KIND[card(AZ, 6)])
    assert s.turn == 1 and s.phase == MAIN            # no free card left: the window closes


def test_bloqueio_window_after_roubar_and_bomba():
    game, s = position(3, hands=[[card(VM, 1)], [card(LA, 1)], [card(AM, 1)]], table=[card(AZ, 6)],
                       stock=STOCK, target=10, held=[chuche(roubar=1), chuche(), chuche(bloqueio=1)])
    play(game, s, A_ROUBAR)
    assert s.phase == BLOQ_WINDOW and game.current_player(s) == 2
    play(game, s, A_PASS)
    assert s.phase == MAIN and game.current_player(s) == 0
    game, s = position(3, hands=[[card(VM, 1)], [card(LA, 1), card(LA, 2)], [card(AM, 1), card(AM, 2)]],
                       table=[card(AZ, 6)], stock=STOCK, target=10,
                       held=[chuche(bomba=1), chuche(), chuche(bloqueio=1)])
    play(game, s, A_BOMBA, A_PLACE, A_PLACE)          # seats 1 and 2 place; then the bomber
    assert game.current_player(s) == 0 and s.phase == BOMBA_ROUND
    play(game, s, A_PLACE)
    assert s.phase == BLOQ_WINDOW and game.current_player(s) == 2
    play(game, s, A_PASS)
    assert s.turn == 1                                # bomber's hand is empty: its turn ends


# ------------------------------------------------------------------ Escudo
def test_escudo_unblocks_a_reserved_card_for_your_sum():
    red5 = card(VM, 5)
    game, s = position(hands=[[card(LA, 2)], [card(AM, 1)]], table=[red5], stock=[card(VD, 1)], target=7,
                       owner={red5: 1}, held=[chuche(escudo=1), chuche()])
    assert legal(game, s) == {A_PLACE, A_UNBLOCK + KIND[red5]}
    play(game, s, A_UNBLOCK + KIND[red5])
    assert s.owner[red5] == -1 and s.used[0][ESCUDO] == 1
    assert legal(game, s) == {A_CAPTURE}
    play(game, s, A_CAPTURE, A_ADD + KIND[red5], A_COMMIT)
    assert red5 in s.piles[0]


def test_own_blocked_cards_cannot_be_unblocked_or_reblocked():
    game, s = position(hands=[[card(LA, 1)], [card(AM, 1)]], table=[card(AM, 6)], stock=[card(VD, 1)],
                       target=10, owner={card(AM, 6): 0}, held=[chuche(escudo=1, bloqueio=1), chuche()])
    assert legal(game, s) == {A_PLACE}


def test_adding_a_kind_takes_the_free_copy_before_the_own_blocked_one():
    free, mine = card(VM, 2), card(VM, 2, 1)
    game, s = position(hands=[[card(LA, 5)], [card(AM, 1)]], table=[mine, free], stock=[card(VD, 1)],
                       target=7, owner={mine: 0})
    play(game, s, A_CAPTURE, A_ADD + KIND[free], A_COMMIT)
    assert free in s.piles[0] and s.table == [mine] and s.owner[mine] == 0


# ------------------------------------------- "apenas uma por turno" through every window (v1)
STOCK2 = [card(VD, 1), card(VD, 2), card(VD, 3), card(VD, 4)]     # 2 players: no blue


def test_the_bomber_cannot_answer_its_own_bomba_with_escudo():
    """Escudo protects "contra ataques de outros jogadores": never against your own Bomba."""
    game, s = position(hands=[[card(VM, 1), card(VM, 2)], [card(LA, 1)]], table=[card(AM, 6)],
                       stock=STOCK2, target=10, held=[chuche(bomba=1, escudo=1), chuche(escudo=1)])
    play(game, s, A_BOMBA)
    assert game.current_player(s) == 1 and legal(game, s) == {A_PLACE, A_ESCUDO}    # the other may
    play(game, s, A_PLACE)
    assert game.current_player(s) == 0 and s.phase == BOMBA_ROUND
    assert legal(game, s) == {A_PLACE, A_PLACE + 1}                                 # the bomber may not


def test_a_turn_player_who_played_a_chuche_card_gets_no_bloqueio_window():
    # after Roubar: only the other holder is asked, then the turn goes on
    game, s = position(3, hands=[[card(VM, 1)], [card(LA, 1), card(LA, 2)], [card(AM, 1)]],
                       table=[card(AZ, 6)], stock=STOCK, target=10,
                       held=[chuche(roubar=1, bloqueio=1), chuche(), chuche(bloqueio=1)])
    play(game, s, A_ROUBAR)
    assert s.phase == BLOQ_WINDOW and game.current_player(s) == 2
    play(game, s, A_PASS)
    assert s.phase == MAIN and game.current_player(s) == 0
    # after Bomba: the bomber, who holds a Bloqueio, is not asked: no other holder, no window
    game, s = position(hands=[[card(VM, 1), card(VM, 2)], [card(LA, 1)]], table=[card(AM, 6)],
                       stock=STOCK2, target=10, held=[chuche(bomba=1, bloqueio=1), chuche()])
    play(game, s, A_BOMBA, A_PLACE, A_PLACE)
    assert s.phase == MAIN and game.current_player(s) == 0 and s.held[0][BLOQUEIO] == 1
    # after an own-turn Bloqueio followed by a place: the placer is not asked again
    game, s = position(3, hands=[[card(VM, 1)], [card(LA, 1)], [card(AM, 1)]],
                       table=[card(AZ, 6), card(AZ, 5)], stock=STOCK, target=10,
                       held=[chuche(bloqueio=2), chuche(), chuche(bloqueio=1)])
    play(game, s, A_BLOCK + KIND[card(AZ, 5)], A_PLACE)
    order = []
    while s.phase == BLOQ_WINDOW:
        order.append(game.current_player(s))
        play(game, s, A_PASS)
    assert order == [2] and s.turn == 1 and s.held[0][BLOQUEIO] == 1


def test_escudo_unblocks_only_for_a_capture_this_turn():
    red5 = card(VM, 5)
    # 1 + 5 = 6, the target is 7: the unblocked 5 could not be used (a Coringa cannot help:
    # the Escudo is the turn's Chuche card)
    game, s = position(hands=[[card(AM, 1)], [card(LA, 1)]], table=[red5], stock=[card(VD, 1)], target=7,
                       owner={red5: 1}, held=[chuche(escudo=1, coringa=1), chuche()])
    assert A_UNBLOCK + KIND[red5] not in legal(game, s)
    # 1 + 5 + 1 = 7 with a free 1 on the table: now it can
    game, s = position(hands=[[card(AM, 1)], [card(LA, 1)]], table=[red5, card(VD, 1, 1)], stock=[card(VD, 1)],
                       target=7, owner={red5: 1}, held=[chuche(escudo=1, coringa=1), chuche()])
    assert A_UNBLOCK + KIND[red5] in legal(game, s)


def test_the_capture_after_an_escudo_unblock_must_use_the_unblocked_card():
    red5, la5, am6 = card(VM, 5), card(LA, 5), card(AM, 6)
    hand = [card(LA, 2), card(AM, 1)]                  # 1 + 6 = 7 without it, 2 + 5 = 7 with it
    game, s = position(hands=[hand, [card(VD, 1)]], table=[red5, la5, am6], stock=[card(VD, 2)], target=7,
                       owner={red5: 1}, held=[chuche(escudo=1), chuche()])
    slot = {c: i for i, c in enumerate(s.hands[0])}
    assert {A_CAPTURE + slot[card(LA, 2)], A_CAPTURE + slot[card(AM, 1)]} <= legal(game, s)
    play(game, s, A_UNBLOCK + KIND[red5])
    assert legal(game, s) == {A_CAPTURE + slot[card(LA, 2)]}       # 1 + 6 no longer; no place
    assert "Escudo unblocked 5Vm: the capture must use it" in game.render_text(s, 1)
    play(game, s, A_CAPTURE + slot[card(LA, 2)])
    assert legal(game, s) == {A_ADD + KIND[red5]}                  # 2 + 5La would not use it
    play(game, s, A_ADD + KIND[red5], A_COMMIT)
    assert red5 in s.piles[0] and la5 in s.table


def test_after_an_escudo_unblock_the_free_place_rule_still_allows_placing():
    red5 = card(VM, 5)
    game, s = position(hands=[[card(LA, 2), card(AM, 1)], [card(VD, 1)]], table=[red5, card(AM, 6)],
                       stock=[card(VD, 2)], target=7, owner={red5: 1}, held=[chuche(escudo=1), chuche()],
                       place_rule="free")
    play(game, s, A_UNBLOCK + KIND[red5])
    slot = {c: i for i, c in enumerate(s.hands[0])}
    assert legal(game, s) == {A_CAPTURE + slot[card(LA, 2)], A_PLACE, A_PLACE + 1}


def test_placing_after_an_escudo_unblock_drops_the_capture_it_was_for():
    """Found by the 100,000-game differential (5 players, place_rule="free"): a place after
    an unblock opened a Bloqueio window with the unblocked kind still marked as the capture's
    must-use card, though no capture can follow and the window may block that very card."""
    red5 = card(VM, 5)
    game, s = position(hands=[[card(LA, 2), card(AM, 1)], [card(VD, 1)]], table=[red5, card(AM, 6)],
                       stock=[card(VD, 2)], target=7, owner={red5: 1},
                       held=[chuche(escudo=1), chuche(bloqueio=1)], place_rule="free")
    play(game, s, A_UNBLOCK + KIND[red5])
    assert s.must_use == KIND[red5]
    play(game, s, A_PLACE + s.hands[0].index(card(AM, 1)))      # checks the invariants, both engines
    assert (s.phase, s.actor, s.must_use) == (BLOQ_WINDOW, 1, -1)
    assert not game.observe(s, 1)[game.obs_layout["must_use"]].any()
    play(game, s, A_BLOCK + KIND[red5])                          # the unblocked card, blocked again
    assert s.owner[red5] == 1
