"""Hand-built positions: harmony, sambista requirements, calls, benefits and `!` actions."""

from __future__ import annotations

import json

import pytest

from baralho.envs.roda_de_samba.actions import PH_CALL, PH_DISCARD, PH_LAY, PH_PILE, PH_RESERVE
from baralho.envs.roda_de_samba.cards import parse_deck, requirements_met
from baralho.envs.roda_de_samba.checks import brute_requirements, roda_units

from .helpers import do, game_for, kind, legal, sambista, table


# ------------------------------------------------------------------ harmony
@pytest.mark.parametrize("left, right, bad", [
    ("violao 1", "cavaquinho 3", 0),  # same colour
    ("violao 1", "surdo 1", 0),  # same number
    ("violao 1", "surdo 2", 1),  # neither: samba atravessado
    ("frigideira (corda)", "violao 2", 0),  # coringa next to its colour
    ("frigideira (corda)", "surdo 2", 1),  # coringa next to another colour: always atravessado
    ("frigideira (corda)", "frigideira (mao)", 1),
])
def test_harmony_between_neighbours(left, right, bad):
    g = game_for()
    s = table(g, rodas={0: {4: [left], 5: [right]}})
    assert s.atrav[0] == bad


def test_harmony_wraps_around_space_10_and_space_1():
    g = game_for()
    s = table(g, hands={0: ["surdo 2"]}, rodas={0: {1: ["violao 1"]}}, phase=PH_LAY)
    do(g, s, "lay surdo 2", "place on space 10")
    assert s.atrav[0] == 1


def test_an_empty_space_separates_instruments():
    g = game_for()
    s = table(g, rodas={0: {1: ["violao 1"], 3: ["surdo 2"]}})
    assert s.atrav[0] == 0


def test_any_visible_number_of_a_stack_harmonises_and_stacking_can_repair():
    g = game_for()
    s = table(g, rodas={0: {1: ["violao 1", "violao 3"], 2: ["surdo 3"]}})
    assert s.atrav[0] == 0
    s = table(g, hands={0: ["surdo 1"]}, rodas={0: {1: ["violao 1"], 2: ["surdo 2"]}}, phase=PH_LAY)
    assert s.atrav[0] == 1
    do(g, s, "lay surdo 1", "place on space 2")
    assert s.atrav[0] == 0


# ------------------------------------------------------------- requirements
def can_call(g, s, name, p=0):
    sid = sambista(g, name)
    fast = g.can_call(s, p, sid)
    assert fast == brute_requirements(g.deck, g.deck.sambistas[sid].requires, roda_units(g, s, p))
    return fast


@pytest.mark.parametrize("roda, name, ok", [
    (["violao 1", "pandeiro 2"], "Donga", True),  # named instruments
    (["violao 1"], "Donga", False),
    (["pandeiro 1", "agogo 2"], "Joao da Baiana", True),  # ?baqueta: any baqueta instrument
    (["pandeiro 1", "violao 2"], "Joao da Baiana", False),
    (["tanta 1", "tanta 2"], "Clementina de Jesus", True),  # ??mao: two of one mao instrument
    (["tanta 1", "pandeiro 1"], "Clementina de Jesus", False),
    (["violao 1", "violao 2"], "Cartola", False),  # violao and ?corda need two instruments
    (["violao 1", "banjo 2"], "Cartola", True),
    (["frigideira (corda)", "pandeiro 2"], "Donga", True),  # coringa as the named violao
    (["frigideira (mao)", "violao 2"], "Donga", True),
    (["frigideira (baqueta)", "violao 2"], "Donga", False),  # wrong colour
    (["tanta 1", "frigideira (mao)"], "Clementina de Jesus", True),  # coringa as the repeated one
    (["frigideira (mao)"], "Clementina de Jesus", False),  # one card is not a pair
    (["cavaquinho 1", "banjo 1", "banjo 2"], "Paulinho da Viola", True),
    (["cavaquinho 1", "cavaquinho 2"], "Paulinho da Viola", False),
])
def test_requirements(roda, name, ok):
    g = game_for()
    spaces = {}
    for card in roda:
        inst = g.deck.kind_inst[kind(g, card)]
        sp = next((sp for sp, cards in spaces.items()
                   if g.deck.kind_inst[kind(g, cards[0])] == inst), 2 * len(spaces) + 1)
        spaces.setdefault(sp, []).append(card)
    s = table(g, rodas={0: spaces})
    assert can_call(g, s, name) == ok


def test_two_coringas_make_a_pair_and_requirements_match_brute_force():
    g = game_for()
    d = g.deck
    raw = json.loads(open(d.path).read())  # a deck with two mao coringas
    raw["coringas"][1]["copies"] = 2
    d2 = parse_deck(raw)
    tanta = d2.inst_names.index("tanta")
    coringa_mao = [0] * len(d2.colours)
    coringa_mao[1] = 2
    counts = [0] * len(d2.inst_names)
    assert requirements_met(d2, d2.sambistas[sambista(g, "Clementina de Jesus")].requires, counts, coringa_mao)
    counts[tanta] = 1
    assert requirements_met(d2, d2.sambistas[sambista(g, "Tia Ciata")].requires, counts, [0, 1, 1, 0])


def test_the_instrument_brought_by_the_top_sambista_counts_for_calls():
    g = game_for()
    # Cartola brings a cavaquinho: with a pandeiro, Dona Ivone Lara (cavaquinho, ?mao) can come
    s = table(g, rodas={0: {1: ["pandeiro 1"]}}, called={0: ["Cartola"]})
    assert can_call(g, s, "Dona Ivone Lara")
    s = table(g, rodas={0: {1: ["pandeiro 1"]}}, called={0: ["Cartola", "Candeia"]})
    assert not can_call(g, s, "Dona Ivone Lara")  # only the top sambista's benefit applies


# -------------------------------------------------------------------- calls
def test_call_goes_on_top_refills_the_row_and_allows_one_per_turn():
    g = game_for()
    row = ["Donga", "Cartola", "Candeia", "Monarco"]
    s = table(g, hands={0: ["violao 2", "surdo 1"]}, rodas={0: {1: ["pandeiro 1"], 5: ["banjo 1"]}},
              phase=PH_LAY, row=row, samb_deck=["Noel Rosa"], called={0: ["Ismael Silva"]})
    do(g, s, "lay violao 2", "place on space 2")
    assert s.phase == PH_CALL
    assert legal(g, s) == ["call open sambista 1 Donga", "call open sambista 2 Cartola", "call nobody"]
    do(g, s, "call open sambista 1")
    assert s.called[0] == [sambista(g, "Ismael Silva"), sambista(g, "Donga")]
    assert s.row[0] == sambista(g, "Noel Rosa")
    assert s.phase == PH_DISCARD  # Cartola is still callable, but one sambista per turn
    o = g.obs_layout.decode(g.observe(s, 0))
    assert o["top_sambista"][0][sambista(g, "Donga")] == 1 and o["sambistas"][0].sum() == 2
    assert o["brought"][0][g.deck.inst_names.index("tamborim")] == 1


def test_calling_is_optional_and_the_reserved_sambista_can_be_called():
    g = game_for()
    s = table(g, hands={0: ["violao 2"]}, rodas={0: {1: ["pandeiro 1"]}}, phase=PH_LAY,
              row=["Cartola", "Candeia", "Monarco", "Pixinguinha"], reserved={0: "Donga"})
    do(g, s, "lay violao 2", "place on space 2")
    assert legal(g, s) == ["call the reserved sambista Donga", "call nobody"]
    do(g, s, "call the reserved sambista")
    assert s.reserved[0] == -1 and s.called[0] == [sambista(g, "Donga")]


def test_a_call_needs_the_requirements_met_and_other_reserved_sambistas_are_private():
    g = game_for()
    s = table(g, hands={0: ["violao 2", "surdo 1"]}, rodas={0: {1: ["pandeiro 1"]}}, phase=PH_LAY,
              row=["Cartola", "Candeia", "Monarco", "Pixinguinha"], reserved={1: "Donga"})
    do(g, s, "lay violao 2", "place on space 2")
    assert s.phase == PH_DISCARD  # Donga is seat 1's: not callable by seat 0


# ---------------------------------------------------------------- ! actions
def called_with(g, name, roda, hand, **kw):
    """Seat 0 lays the last card needed and calls ``name`` from open slot 1."""
    s = table(g, hands={0: hand}, rodas={0: roda}, phase=PH_LAY,
              row=[name] + [x for x in ("Pixinguinha", "Monarco", "Zeca Pagodinho") if x != name], **kw)
    do(g, s, f"lay {hand[0]}", "place on space 2", "call open sambista 1")
    return s


def test_bang_compra_draws_two_more_at_once():
    g = game_for()
    s = table(g, hands={0: ["cavaquinho 2", "surdo 1"]}, rodas={0: {1: ["pandeiro 1"]}}, phase=PH_LAY,
              row=["Nelson Cavaquinho", "Pixinguinha", "Monarco", "Zeca Pagodinho"], deck=["agogo 1", "agogo 2"])
    do(g, s, "lay cavaquinho 2", "place on space 2", "call open sambista 1")
    assert s.hands[0][kind(g, "agogo 1")] == s.hands[0][kind(g, "agogo 2")] == 1
    assert s.phase == PH_DISCARD


def test_bang_descarte_takes_a_discard_pile_of_your_choice():
    g = game_for()
    s = called_with(g, "Joao da Baiana", {1: ["surdo 1"]}, ["pandeiro 1", "violao 4"],
                    piles={"corda": ["violao 3"], "criativos": ["garrafa 2", "garrafa 3"]})
    assert s.phase == PH_PILE and legal(g, s) == ["take the corda pile (1 cards)",
                                                   "take the criativos pile (2 cards)"]
    do(g, s, "take the criativos pile")
    assert s.hands[0][kind(g, "garrafa 2")] == 1 and s.phase == PH_DISCARD


def test_bang_baixa_lays_once_more_but_calls_nobody_else():
    g = game_for()
    s = table(g, hands={0: ["violao 1", "banjo 1"]}, rodas={0: {1: ["garrafa 1"]}}, phase=PH_LAY,
              row=["Noel Rosa", "Cartola", "Monarco", "Zeca Pagodinho"])
    do(g, s, "lay violao 1", "place on space 2", "call open sambista 1")
    assert s.phase == PH_LAY and s.bang >= 0
    do(g, s, "lay banjo 1", "place on space 3")
    assert s.phase == PH_DISCARD or s.player == 1  # Cartola is now callable, but not this turn
    assert s.called[0] == [sambista(g, "Noel Rosa")]


def test_bang_malandragem_reserves_a_sambista_then_discards():
    g = game_for()
    s = called_with(g, "Dona Ivone Lara", {1: ["pandeiro 1"]}, ["cavaquinho 2", "surdo 1"])
    assert s.phase == PH_RESERVE
    do(g, s, "reserve open sambista 2")
    assert s.reserved[0] == sambista(g, "Pixinguinha") and s.phase == PH_DISCARD


def test_fame_counts_every_sambista_called():
    g = game_for()
    s = table(g, rodas={0: {1: ["violao 1"], 2: ["banjo 2"], 3: ["cavaquinho 3"], 4: ["surdo 4"]}},
              called={0: ["Cartola", "Donga"]})
    # stars 3 + 2, corda bonus 1 + 1 per corda space (3 spaces), one atravessado (cavaquinho 3 | surdo 4)
    assert s.atrav[0] == 1
    assert s.fame[0] == 3 + 2 + 3 + 3 - 2
