"""Hand-built positions: drawing, laying and stacking, harmony, discarding, malandros."""

from __future__ import annotations

import numpy as np

from baralho.envs.roda_de_samba.actions import PH_CALL, PH_DISCARD, PH_DRAW, PH_LAY, PH_PLACE, PH_RESERVE

from .helpers import check, do, game_for, kind, legal, sambista, table


def test_draw_two_from_the_deck():
    g = game_for()
    s = table(g, hands={0: ["violao 1"]}, deck=["surdo 2", "surdo 3"])
    size = len(s.deck)
    do(g, s, "draw 2 from the deck")
    assert s.hands[0][kind(g, "surdo 2")] == s.hands[0][kind(g, "surdo 3")] == 1
    assert len(s.deck) == size - 2 and s.hand_size[0] == 3
    assert s.phase == PH_LAY and not s.end_triggered


def test_draw_the_last_card_takes_one_and_triggers_the_end():
    g = game_for()
    s = table(g, hands={0: ["violao 1"]}, deck=["surdo 2"], park=1)
    do(g, s, "draw 2 from the deck")
    assert s.hand_size[0] == 2 and not s.deck and s.end_triggered


def test_take_a_whole_colour_pile_malandro_included_and_it_becomes_public():
    g = game_for()
    s = table(g, hands={0: ["surdo 1"]}, piles={"corda": ["violao 2", "banjo 3", "malandro"],
                                                 "mao": ["tanta 1"]})
    do(g, s, "take the corda pile")
    for name in ("violao 2", "banjo 3", "malandro"):
        assert s.hands[0][kind(g, name)] == 1 and s.known[0][kind(g, name)] == 1
    assert s.known[0][kind(g, "surdo 1")] == 0
    assert s.pile_size == [0, 1, 0, 0]
    # seat 1 sees exactly the known cards of seat 0 (its row 1), never the surdo
    o1 = g.obs_layout.decode(g.observe(s, 1))
    assert o1["known"][1][kind(g, "violao 2")] == 1 and o1["known"][1][kind(g, "surdo 1")] == 0
    assert o1["hand_size"][1] == 4 and o1["hand"].sum() == s.hand_size[1]
    # laying a known card makes it leave the public knowledge
    do(g, s, "lay violao 2", "place on space 1")
    assert s.known[0][kind(g, "violao 2")] == 0


def test_laying_is_mandatory_and_one_instrument_at_a_time():
    g = game_for()
    s = table(g, hands={0: ["violao 1", "surdo 2", "malandro"]}, phase=PH_LAY, piles={"mao": ["tanta 1"]})
    assert legal(g, s) == ["lay violao 1", "lay surdo 2"]
    do(g, s, "lay violao 1")
    assert legal(g, s) == [f"place on space {i}" for i in range(1, 11)]  # no surdo in the same group


def test_pair_trio_quartet_go_down_at_once_with_numbers_visible():
    g = game_for()
    s = table(g, hands={0: ["violao 1", "violao 2", "violao 3", "violao 4", "surdo 1"]}, phase=PH_LAY)
    do(g, s, "lay violao 1", "lay violao 2", "lay violao 3")
    assert "lay violao 4" in legal(g, s) and "lay surdo 1" not in legal(g, s)
    do(g, s, "lay violao 4")
    assert not any(t.startswith("lay") for t in legal(g, s))  # a quartet at most
    do(g, s, "place on space 4")
    assert s.space_count[0][3] == 4 and s.laid_total[0] == 4
    o = g.obs_layout.decode(g.observe(s, 1))
    assert list(o["space_numbers"][1][3]) == [1, 1, 1, 1]  # seat 0 is row 1 for seat 1
    assert s.phase == PH_DISCARD


def test_an_instrument_already_in_the_roda_stacks_on_its_space():
    g = game_for()
    s = table(g, hands={0: ["violao 2"]}, rodas={0: {3: ["violao 1"]}}, phase=PH_LAY)
    do(g, s, "lay violao 2")
    assert legal(g, s) == ["place on space 3"]
    do(g, s, "place on space 3")
    assert s.space_count[0][2] == 2 and s.space_nums[0][2] == (1 << 1) | (1 << 2)


def test_no_lay_when_the_roda_is_full_and_the_instrument_is_new():
    g = game_for()
    names = ["violao", "cavaquinho", "banjo", "pandeiro", "tanta", "repique_de_mao", "surdo", "tamborim",
             "agogo", "caixa_de_fosforo"]
    s = table(g, hands={0: ["garrafa 1", "violao 2"]}, rodas={0: {i + 1: [f"{nm} 1"] for i, nm in enumerate(names)}},
              phase=PH_LAY)
    assert legal(g, s) == ["lay violao 2"]
    s = table(g, hands={0: ["garrafa 1"]}, rodas={0: {i + 1: [f"{nm} 1"] for i, nm in enumerate(names)}},
              deck=["garrafa 2", "garrafa 3"])
    do(g, s, "draw 2 from the deck")
    assert s.phase in (PH_CALL, PH_DISCARD)  # the lay is skipped


def test_discard_an_instrument_onto_its_colour_pile():
    g = game_for()
    s = table(g, hands={0: ["surdo 2", "violao 1"]}, phase=PH_DISCARD)
    assert legal(g, s) == ["discard violao 1", "discard surdo 2"]
    do(g, s, "discard surdo 2")
    assert s.piles[2][kind(g, "surdo 2")] == 1 and s.player == 1 and s.phase == PH_DRAW


def test_malandro_goes_onto_an_existing_pile_only():
    g = game_for()
    s = table(g, hands={0: ["malandro", "violao 1"]}, piles={"mao": ["tanta 1"]}, phase=PH_DISCARD)
    assert legal(g, s) == ["discard violao 1", "discard a malandro onto the mao pile"]
    s = table(g, hands={0: ["malandro", "violao 1"]}, phase=PH_DISCARD)
    assert legal(g, s) == ["discard violao 1"]


def test_a_hand_of_only_malandros_without_piles_or_an_empty_hand_skips_the_discard():
    g = game_for()
    s = table(g, hands={0: ["violao 1", "malandro"]}, phase=PH_LAY)
    do(g, s, "lay violao 1", "place on space 1")
    assert s.player == 1 and s.phase == PH_DRAW and s.hands[0][kind(g, "malandro")] == 1
    s = table(g, hands={0: ["violao 1"]}, phase=PH_LAY)
    do(g, s, "lay violao 1", "place on space 1")
    assert s.player == 1 and s.hand_size[0] == 0


def test_malandro_reserves_one_sambista_and_a_second_one_swaps():
    g = game_for()
    row = ["Cartola", "Donga", "Candeia", "Monarco"]
    s = table(g, hands={0: ["malandro", "malandro"]}, piles={"mao": ["tanta 1"]}, phase=PH_DISCARD,
              row=row, samb_deck=["Tia Ciata", "Noel Rosa"])
    do(g, s, "discard a malandro onto the mao pile")
    assert s.phase == PH_RESERVE
    assert "reserve nobody" in legal(g, s) and "reserve the sambista deck top" in legal(g, s)
    do(g, s, "reserve open sambista 2")
    assert s.reserved[0] == sambista(g, "Donga")
    assert s.row[1] == sambista(g, "Noel Rosa")  # refilled from the deck top
    # next turn of seat 0: a second malandro swaps the reserved one with an open sambista
    s.player, s.phase = 0, PH_DISCARD
    s.obs = g.encoder.rebuild(s)
    do(g, s, "discard a malandro onto the mao pile", "reserve open sambista 1")
    assert s.reserved[0] == sambista(g, "Cartola") and s.row[0] == sambista(g, "Donga")
    check(g, s)


def test_reserving_the_deck_top_puts_the_old_one_face_up_on_top_of_the_deck():
    # the seed: "troque de lugar o anterior com o novo sambista escolhido (na mesa ou no topo do baralho)"
    g = game_for()
    s = table(g, hands={0: ["malandro"], 1: ["malandro"]}, piles={"mao": ["tanta 1"]}, phase=PH_DISCARD,
              row=["Cartola", "Donga", "Candeia", "Monarco"], reserved={0: "Zeca Pagodinho"},
              samb_deck=["Tia Ciata", "Noel Rosa"])
    zeca, noel, tia = sambista(g, "Zeca Pagodinho"), sambista(g, "Noel Rosa"), sambista(g, "Tia Ciata")
    below = list(s.samb_deck[:-1])
    do(g, s, "discard a malandro onto the mao pile", "reserve the sambista deck top")
    assert s.reserved[0] == noel
    assert s.samb_deck == below + [zeca] and below[-1] == tia and s.samb_top_known
    # public: every seat sees the known top, and resampling keeps it there
    for p in (0, 1):
        top = g.obs_layout.decode(g.observe(s, p))["sambista_deck_top"]
        assert np.flatnonzero(top).tolist() == [zeca]
        for seed in range(5):
            r = g.resample_hidden(s, p, np.random.default_rng(seed))
            assert r.samb_deck[-1] == zeca and sorted(r.samb_deck) == sorted(s.samb_deck)
    assert len({tuple(g.resample_hidden(s, 1, np.random.default_rng(i)).samb_deck) for i in range(9)}) > 1
    assert "Zeca Pagodinho" in g.render_text(s, 1)
    # the known top is the next refill; below it nothing is known
    s.player, s.phase = 1, PH_DISCARD
    s.obs = g.encoder.rebuild(s)
    do(g, s, "discard a malandro onto the mao pile", "reserve open sambista 1")
    assert s.reserved[1] == sambista(g, "Cartola") and s.row[0] == zeca
    assert not s.samb_top_known and s.samb_deck[-1] == tia
    assert not g.obs_layout.decode(g.observe(s, 0))["sambista_deck_top"].any()


def test_a_second_swap_with_the_known_top_puts_the_next_one_on_top():
    g = game_for()
    s = table(g, hands={0: ["malandro"], 1: ["malandro"]}, piles={"mao": ["tanta 1"]}, phase=PH_DISCARD,
              row=["Cartola", "Donga", "Candeia", "Monarco"], reserved={0: "Zeca Pagodinho", 1: "Clementina de Jesus"},
              samb_deck=["Tia Ciata", "Noel Rosa"])
    do(g, s, "discard a malandro onto the mao pile", "reserve the sambista deck top")
    s.player, s.phase = 1, PH_DISCARD
    s.obs = g.encoder.rebuild(s)
    do(g, s, "discard a malandro onto the mao pile", "reserve the sambista deck top")
    assert s.reserved[1] == sambista(g, "Zeca Pagodinho")  # the known top, taken knowingly
    assert s.samb_deck[-1] == sambista(g, "Clementina de Jesus") and s.samb_top_known


def test_reserving_is_optional():
    g = game_for()
    s = table(g, hands={0: ["malandro"]}, piles={"mao": ["tanta 1"]}, phase=PH_DISCARD)
    do(g, s, "discard a malandro onto the mao pile", "reserve nobody")
    assert s.reserved[0] == -1 and s.player == 1


def test_no_draw_possible_skips_the_draw():
    g = game_for()
    s = table(g, hands={0: ["violao 1"]}, park=1, phase=PH_LAY)
    s.end_triggered = True  # the deck is empty
    s.obs = g.encoder.rebuild(s)
    do(g, s, "lay violao 1", "place on space 1")  # empty hand: no discard, no pile appears
    assert s.player == 1 and s.phase == PH_LAY  # nothing to draw: straight to laying


def test_place_choices_are_every_empty_space():
    g = game_for()
    s = table(g, hands={0: ["surdo 1"]}, rodas={0: {1: ["violao 1"], 5: ["tanta 2"]}}, phase=PH_LAY)
    do(g, s, "lay surdo 1")
    assert s.phase == PH_PLACE
    assert legal(g, s) == [f"place on space {i}" for i in (2, 3, 4, 6, 7, 8, 9, 10)]


def test_setup_deals_five_reveals_an_instrument_and_opens_four(tmp_path):
    import json

    from baralho.envs.roda_de_samba.cards import DEFAULT_DECK
    raw = json.loads(DEFAULT_DECK.read_text(encoding="utf-8"))
    raw["malandros"] = 20  # a revealed malandro is frequent: it must go back until an instrument shows
    path = tmp_path / "many_malandros.json"
    path.write_text(json.dumps(raw), encoding="utf-8")
    for g in (game_for(3), game_for(3, deck=str(path))):
        rng = np.random.default_rng(0)
        for _ in range(40):
            s = g.new_state(rng)
            check(g, s)
            assert s.hand_size == [5, 5, 5] and s.player == 0 and s.phase == PH_DRAW
            assert sum(s.pile_size) == 1 and sum(pl[g.deck.malandro] for pl in s.piles) == 0
            assert len(set(s.row)) == 4 and min(s.row) >= 0 and len(s.samb_deck) == len(g.deck.sambistas) - 4
            assert g.deck.rodas[0][0] == "Pedra do Sal"
