"""Observation (hidden information, public knowledge), descriptions, the reference
mask and the heuristic baseline."""

import numpy as np
import pytest

import baralho
from baralho.envs.scala40.checks import reference_mask
from baralho.envs.scala40.heuristic import Scala40Heuristic, decode_melds
from baralho.envs.scala40.observation import MELD_COLS
from tests.scala40.helpers import (
    DRAW,
    A,
    Config,
    Scala40Game,
    card,
    disc,
    meld,
    play,
    position,
    sel,
)

G2 = Scala40Game(Config(num_players=2))
G3 = Scala40Game(Config(num_players=3))


def test_observation_shows_own_hand_and_public_table_only():
    table = [meld("7h JK 9h", joker_as="8h"), meld("Ks Kd Kc")]
    s = position(G3, {0: "2c 2c 5d JK", 1: "Qs Qd", 2: "3h"}, melds=table, opened=(1,), discard="4s 9d")
    o = G3.obs_layout.decode(G3.observe(s, 0))
    assert o["hand"][card("2c")] == 2 and o["hand_jokers"][0] == 1 and o["hand"].sum() == 3
    assert decode_melds(o["melds"].reshape(-1, MELD_COLS)) == table
    assert o["discard_top"][card("9d")] == 1
    assert o["discard_recent"][0][card("9d")] == 1 and o["discard_recent"][1][card("4s")] == 1
    assert list(o["players"][:, 1]) == [0, 1, 0]  # opened: seat 1 is next after me
    assert list(o["players"][:, 0]) == [4, 2, 1]
    o1 = G3.obs_layout.decode(G3.observe(s, 1))
    assert list(o1["players"][:, 1]) == [1, 0, 0]  # seat-relative: index 0 is the observer
    assert o1["hand"][card("Qs")] == 1 and o1["hand"][card("2c")] == 0


def test_observation_shows_the_pile_sizes():
    s = position(G3, {0: "2c 2c 5d JK", 1: "Qs Qd", 2: "3h"}, discard="4s 9d")
    o = G3.obs_layout.decode(G3.observe(s, 0))
    assert list(o["piles"]) == [len(s.stock), len(s.discard)]


def test_opponent_hidden_cards_never_change_the_observation():
    s = position(G2, {0: "2c 5d 9h", 1: "Qs Qd 3h"})
    t = position(G2, {0: "2c 5d 9h", 1: "4c 8d Ah"})
    assert np.array_equal(G2.observe(s, 0), G2.observe(t, 0))
    rng = np.random.default_rng(0)
    r = G2.resample_hidden(s, 0, rng)
    assert np.array_equal(G2.observe(r, 0), G2.observe(s, 0))
    assert r.hands[0] == s.hands[0] and r.hand_size == s.hand_size


def test_cards_taken_from_the_discard_are_public_until_they_leave():
    s = position(G2, {0: "2c 5d 9h Kd", 1: "7h 8h Ks Kc 2s 4d 9c 3d 6s Jc Qh 10d 5c"}, player=1,
                 phase=DRAW, discard="9h", opened=(1,))
    play(G2, s, A.DRAW_DISCARD)
    o = G2.obs_layout.decode(G2.observe(s, 0))
    assert o["known"][1][card("9h")] == 1 and o["known"][1].sum() == 1
    rng = np.random.default_rng(1)
    for _ in range(10):  # resampling keeps the known card in that hand
        assert G2.resample_hidden(s, 0, rng).hands[1][card("9h")] >= 1
    play(G2, s, *sel("7h 8h 9h"), A.COMMIT)
    o = G2.obs_layout.decode(G2.observe(s, 0))
    assert o["known"][1].sum() == 0


def test_describe_action_is_readable():
    s = position(G2, {0: "7h 8h 9h Qs JK 5c"}, opened=(0,), melds=[meld("2c 3c 4c")])
    assert G2.describe_action(s, disc("Qs")) == "discard Q♠"
    assert G2.describe_action(s, A.SELECT + card("7h")) == "select 7♥"
    play(G2, s, *sel("7h 8h 9h"))
    assert G2.describe_action(s, A.COMMIT) == "meld 7♥ 8♥ 9♥"
    s2 = position(G2, {0: "7h 8h JK 5c"}, opened=(0,), melds=[meld("2c 3c 4c")])
    play(G2, s2, *sel("7h 8h JK"))
    assert G2.describe_action(s2, A.joker_action(1, 9)) == "meld 7♥ 8♥ 🃏(9♥)"
    s3 = position(G2, {0: "5c 9d"}, opened=(0,), melds=[meld("2c 3c 4c")])
    play(G2, s3, A.SELECT + card("5c"))
    assert G2.describe_action(s3, A.EXTEND + 0) == "lay off 5♣ on meld 0 (2♣ 3♣ 4♣) → 2♣ 3♣ 4♣ 5♣"
    assert G2.describe_action(s, A.DRAW_STOCK) == "draw from the stock"
    text = G2.render_text(s, 1)
    assert "▒" in text and "7♥" in text  # the meld is public, player 0's hand is not


def test_reference_mask_agrees_on_hand_built_positions():
    positions = [
        position(G2, {0: "7h 8h Kd Ks Kc 2s 5c 9d 4h Jc 3d 6s Qh"}, discard="9h", phase=DRAW),
        position(G2, {0: "7h 8h 8s 8c Kd Ks Kc 2s 5c 4d Jc 3d 6s 9h"}),
        position(G2, {0: "5h 6h JK 9c 2d As"}, opened=(0,), melds=[meld("7h JK 9h", joker_as="8h")]),
        position(G2, {0: "8h 2c 9d Qs Ks As"}, opened=(0,), melds=[meld("7h JK 9h", joker_as="8h"),
                                                                 meld("2s 3s 4s")]),
    ]
    s = position(G2, {0: "7h 8h 8s 8c Kd Ks Kc 2s 5c 4d Jc 3d 6s"}, discard="9h", phase=DRAW)
    play(G2, s, A.DRAW_DISCARD, A.SELECT + card("7h"))
    positions.append(s)
    for s in positions:
        np.testing.assert_array_equal(G2.legal_mask(s), reference_mask(G2, s))


def test_heuristic_beats_random_play():
    env = baralho.make("scala40_v1", engine="reference", num_players=2)
    hero = Scala40Heuristic(env.unwrapped.game, seed=0)
    rng = np.random.default_rng(0)
    wins = 0
    games = 12
    for g in range(games):
        env.reset(seed=g)
        seat = f"player_{g % 2}"
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            if agent == seat:
                a = hero.act(obs, agent)
            else:
                legal = np.flatnonzero(obs["action_mask"])
                a = int(legal[rng.integers(len(legal))])
            env.step(a)
        wins += env.unwrapped.game_state.winners == [g % 2]
    assert wins >= games - 1


def test_state_pickled_in_the_old_format_is_refused_clearly():
    # before hidden chance became (seed, draws), a match state pickled a live generator as 'rng'
    import pickle

    s = baralho.make("scala40_v1", engine="reference").unwrapped.game.new_state(np.random.default_rng(0))
    assert pickle.loads(pickle.dumps(s)).seed == s.seed is not None
    old = s.__getstate__()
    old["rng"] = {"bit_generator": "PCG64"}
    clone = object.__new__(type(s))
    with pytest.raises(ValueError, match="older baralho"):
        clone.__setstate__(old)


def test_taking_from_a_deep_discard_pile_moves_every_recent_row_up():
    # 20 cards on the pile: the observation shows the top 16 in order; after the top is taken
    # the 17th from the top comes into view (apply updates these rows in place)
    pile = "As 2s 3s 4s 5s 6s 7s 8s 9s 10s Js Qs Ks Ah 2h 3h 4h 5h 6h 7h"
    s = position(G2, {0: "7h 8h 2c", 1: "9d"}, discard=pile, phase=DRAW, opened=(0,))
    before = G2.obs_layout.decode(G2.observe(s, 1))
    play(G2, s, A.DRAW_DISCARD)                      # check_invariants rebuilds the block and compares
    for seat in (0, 1):
        o = G2.obs_layout.decode(G2.observe(s, seat))
        shown = [int(np.flatnonzero(row)[0]) for row in o["discard_recent"]]
        assert shown == [card(c) for c in reversed(pile.split()[:-1])][:16]
        assert o["discard_top"][card("6h")] == 1 and o["discard_top"].sum() == 1
        assert o["discard_counts"][card("7h")] == 0 and o["discard_counts"].sum() == 19
        assert (o["discard_recent"][:15] == before["discard_recent"][1:]).all()
        assert o["known"][(0 - seat) % 2][card("7h")] == 1     # the taken card is public


def test_the_turn_fields_follow_the_turn():
    # player 0 (unopened) takes the 8h to open with 7h 8h 9h + Ks Kd Kc (57 points), then discards
    s = position(G2, {0: "7h 9h Ks Kd Kc 2c 5d", 1: "9d 3c"}, discard="4c 8h", phase=DRAW)
    lay = G2.obs_layout

    def turn_fields(seat=0):
        o = lay.decode(G2.observe(s, seat))
        return o["phase"].tolist(), o["turn"].tolist(), np.flatnonzero(o["obligation"]).tolist(), o["building"]

    phase, turn, ob, _ = turn_fields()
    assert phase == [1, 0] and turn == [1, 0, 0, 1, 0, 0] and ob == []
    play(G2, s, A.DRAW_DISCARD)
    phase, turn, ob, _ = turn_fields()
    assert phase == [0, 1] and turn[5] == 1 and ob == [card("8h")]
    play(G2, s, *sel("7h 8h"))
    assert turn_fields(1)[3][card("7h")] == 1 and turn_fields(1)[3].sum() == 2   # public
    play(G2, s, *sel("9h"), A.COMMIT)
    phase, turn, ob, building = turn_fields()
    # staged 24 points; the 8h stays the card to meld until the opening is reached
    assert building.sum() == 0 and turn[4] == 24 and ob == [card("8h")]
    play(G2, s, *sel("Ks Kd Kc"), A.COMMIT)
    phase, turn, ob, _ = turn_fields()
    assert turn[2:5] == [1, 0, 0] and ob == []     # opened this turn: no undo, nothing staged
    play(G2, s, disc("2c"))
    phase, turn, ob, _ = turn_fields(1)
    assert phase == [1, 0] and turn == [1, 0, 0, 1, 0, 0] and ob == []
    assert lay.decode(G2.observe(s, 1))["to_act"].tolist() == [1, 0]
