"""What a player sees and what it cannot; the invariant check has teeth; text views."""

from __future__ import annotations

import numpy as np
import pytest

import baralho
from baralho.envs.roda_de_samba.actions import PH_DISCARD
from baralho.envs.roda_de_samba.checks import check_observation

from .helpers import do, game_for, kind, sambista, table


def test_incremental_observation_equals_a_rebuild_on_every_move():
    for n in (2, 4):
        g = game_for(n)
        rng = np.random.default_rng(n)
        for _ in range(3):
            s = g.new_state(rng)
            check_observation(g, s)
            while not s.over:
                g.apply(s, int(rng.choice(np.flatnonzero(g.legal_mask(s)))))
                check_observation(g, s)


def test_observation_is_seat_relative_and_hides_other_hands():
    g = game_for(3)
    s = table(g, hands={0: ["violao 1"], 1: ["surdo 2", "surdo 3"], 2: ["garrafa 4"]},
              rodas={2: {1: ["tanta 1"]}}, reserved={1: "Donga"})
    for p in range(3):
        o = g.obs_layout.decode(g.observe(s, p))
        assert (o["hand"] == np.array(s.hands[p])).all()
        assert list(o["hand_size"]) == [s.hand_size[(p + r) % 3] for r in range(3)]
        assert o["current"][(0 - p) % 3] == 1
        rel = (2 - p) % 3  # seat 2's row in p's view
        assert o["space_instrument"][rel][0][g.deck.inst_names.index("tanta")] == 1
        assert o["reserved"][(1 - p) % 3][sambista(g, "Donga")] == 1  # reserved sambistas are face up
    # seat 0's view does not change when seat 1's unknown cards do
    t = table(g, hands={0: ["violao 1"], 1: ["agogo 2", "agogo 3"], 2: ["garrafa 4"]},
              rodas={2: {1: ["tanta 1"]}}, reserved={1: "Donga"})
    o_s, o_t = g.obs_layout.decode(g.observe(s, 0)), g.obs_layout.decode(g.observe(t, 0))
    for name in o_s:
        if name not in ("deck_size",):
            assert (o_s[name] == o_t[name]).all(), name


def test_resampling_keeps_cards_known_from_a_pile_in_their_hand():
    g = game_for(2)
    s = table(g, hands={0: ["surdo 1"], 1: ["violao 1"]}, piles={"criativos": ["garrafa 2", "garrafa 3"]})
    do(g, s, "take the criativos pile")
    rng = np.random.default_rng(0)
    seen = set()
    for _ in range(20):
        r = g.resample_hidden(s, 1, rng)
        check_observation(g, r)
        assert r.hands[0][kind(g, "garrafa 2")] == r.hands[0][kind(g, "garrafa 3")] == 1
        assert r.hands[1] == s.hands[1]
        assert (g.observe(r, 1) == g.observe(s, 1)).all()
        seen.add(tuple(r.hands[0]))
    assert len(seen) > 1  # the unknown surdo was redrawn


def corrupt(g, s, how):
    if how == "card twice":
        s.hands[0][kind(g, "violao 1")] += 1
        s.hand_size[0] += 1
    elif how == "fame":
        s.fame[0] += 1
    elif how == "pile colour":
        k = kind(g, "violao 1")
        s.hands[0][k] -= 1
        s.hand_size[0] -= 1
        s.piles[1][k] += 1
        s.pile_size[1] += 1
    elif how == "sambista twice":
        s.reserved[1] = s.row[0]
    elif how == "known not in hand":
        s.known[1][kind(g, "garrafa 1")] = 1
    elif how == "space count":
        s.space_count[0][0] += 1


@pytest.mark.parametrize("how", ["card twice", "fame", "pile colour", "sambista twice", "known not in hand",
                                 "space count"])
def test_a_corrupted_state_fails_the_invariants(how):
    g = game_for(2)
    s = table(g, hands={0: ["violao 1"]}, rodas={0: {1: ["surdo 1"]}})
    g.check_invariants(s)
    corrupt(g, s, how)
    with pytest.raises(AssertionError):
        g.check_invariants(s)


def test_a_stale_observation_fails_the_observation_check():
    g = game_for(2)
    s = table(g, hands={0: ["violao 1"]})
    s.obs[g.encoder.o_deck_size] += 1
    with pytest.raises(AssertionError, match="deck_size"):
        check_observation(g, s)


def test_describe_and_render():
    g = game_for(2)
    s = table(g, hands={0: ["violao 1", "malandro"], 1: ["surdo 2"]}, piles={"mao": ["tanta 1"]},
              reserved={1: "Donga"})
    assert g.describe_action(s, g.A_DRAW) == "draw 2 from the deck"
    assert g.describe_action(s, g.A_DISCARD + kind(g, "violao 1")) == "discard violao 1"
    assert g.describe_action(s, g.A_DISCARD_MAL + 1) == "discard a malandro onto the mao pile"
    view1 = g.render_text(s, 1)
    assert "surdo 2" in view1 and "violao 1" not in view1 and "hand: 2 cards" in view1
    assert "reserved: Donga" in view1
    omni = g.render_text(s, None)
    assert "violao 1" in omni and "surdo 2" in omni
    env = baralho.make("roda_de_samba_v1", render_mode="ansi")
    env.reset(seed=3)
    assert "to act: player_0 (draw)" in env.render()


def test_the_observer_sees_its_place_in_the_turn_order():
    # last round, three seats: the same table seen by the seat to act, once as the last seat (its
    # discard ends the game) and once as the middle seat (seat 2 still plays)
    g = game_for(3)
    last = table(g, hands={2: ["violao 1"]}, player=2, phase=PH_DISCARD, round=4)
    middle = table(g, hands={1: ["violao 1"]}, player=1, phase=PH_DISCARD, round=4)
    for s in (last, middle):
        g._trigger_end(s)
    o_last, o_middle = g.observe(last, 2), g.observe(middle, 1)
    assert not np.array_equal(o_last, o_middle)
    assert list(g.obs_layout.decode(o_last)["position"]) == [0, 0, 1]
    assert list(g.obs_layout.decode(o_middle)["position"]) == [0, 1, 0]
    assert list(g.obs_layout.decode(g.observe(last, 0))["position"]) == [1, 0, 0]
    do(g, last, "discard violao 1")
    do(g, middle, "discard violao 1")
    assert last.over and not middle.over


def test_the_observer_sees_the_rounds_left_before_the_turn_bound():
    # round 9 of a 10-round game is the last; of a 30-round game it is not
    short, long_ = game_for(2, max_rounds=10), game_for(2, max_rounds=30)
    a = table(short, hands={1: ["violao 1"]}, player=1, phase=PH_DISCARD, round=9)
    b = table(long_, hands={1: ["violao 1"]}, player=1, phase=PH_DISCARD, round=9)
    o_a, o_b = short.observe(a, 1), long_.observe(b, 1)
    assert not np.array_equal(o_a, o_b)
    assert short.obs_layout.decode(o_a)["rounds_left"][0] == 1
    assert long_.obs_layout.decode(o_b)["rounds_left"][0] == 21
    do(short, a, "discard violao 1")
    do(long_, b, "discard violao 1")
    assert a.over and not b.over
    assert short.obs_layout.decode(short.observe(a, 0))["rounds_left"][0] == 0


def test_the_observation_is_int16_and_within_its_bounds():
    g = game_for(5)
    box = g.obs_layout.box()
    assert box.dtype == np.int16 and g.obs_layout.dtype == np.int16
    rng = np.random.default_rng(5)
    s = g.new_state(rng)
    while not s.over:
        for p in range(5):
            o = g.observe(s, p)
            assert o.dtype == np.int16 and box.contains(o)
        g.apply(s, int(rng.choice(np.flatnonzero(g.legal_mask(s)))))
