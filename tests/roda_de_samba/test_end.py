"""Hand-built positions: end of the game after the round, scoring, the tie rule, the bounds."""

from __future__ import annotations

import numpy as np
import pytest

from baralho.envs.roda_de_samba.actions import PH_DRAW, PH_LAY
from baralho.envs.roda_de_samba.rules import TURN_DECISIONS

from .helpers import check, do, game_for, legal, table

NINE = ["violao", "cavaquinho", "banjo", "pandeiro", "tanta", "repique_de_mao", "surdo", "tamborim", "agogo"]


def nine_spaces():
    return {i + 1: [f"{nm} 1"] for i, nm in enumerate(NINE)}


def test_a_full_roda_ends_the_game_after_the_round():
    g = game_for(3)
    s = table(g, hands={0: ["garrafa 1", "surdo 2"], 1: ["garrafa 2"], 2: ["garrafa 3"]}, rodas={0: nine_spaces()},
              phase=PH_LAY)
    do(g, s, "lay garrafa 1", "place on space 10")
    assert s.end_triggered and not s.over
    while s.player == 0:
        g.apply(s, int(np.flatnonzero(g.legal_mask(s))[-1]))
    assert s.player == 1 and not s.over  # seats 1 and 2 still play their turn
    while s.player == 1:
        g.apply(s, int(np.flatnonzero(g.legal_mask(s))[0]))
    assert s.player == 2 and not s.over
    while not s.over:
        g.apply(s, int(np.flatnonzero(g.legal_mask(s))[0]))
    assert s.round == 1 and s.turns == 3
    check(g, s)


def test_the_last_seat_triggering_the_end_ends_at_once():
    g = game_for(2)
    s = table(g, hands={1: ["garrafa 1"]}, rodas={1: nine_spaces()}, phase=PH_LAY, player=1)
    r = do(g, s, "lay garrafa 1", "place on space 10", "call nobody")  # empty hand: no discard
    assert s.over and r is not None and g.current_player(s) == -1


def test_an_empty_deck_ends_the_game_after_the_round():
    g = game_for(2)
    s = table(g, hands={0: ["surdo 1"], 1: ["violao 1"]}, deck=["agogo 2", "agogo 3"], park=1,
              piles={"mao": ["tanta 1"]})
    do(g, s, "draw 2 from the deck")
    assert s.end_triggered and not s.deck
    do(g, s, "lay agogo 2")
    while s.player == 0:
        g.apply(s, int(np.flatnonzero(g.legal_mask(s))[-1]))
    assert not s.over and s.player == 1
    assert "draw 2 from the deck" not in legal(g, s)
    while not s.over:
        g.apply(s, int(np.flatnonzero(g.legal_mask(s))[0]))
    assert s.round == 1


def test_the_turn_bound_ends_the_game_after_max_rounds():
    g = game_for(3, max_rounds=2)
    assert g.max_decisions == 2 * 3 * TURN_DECISIONS
    rng = np.random.default_rng(4)
    s = g.new_state(rng)
    steps = 0
    while not s.over:
        g.apply(s, int(rng.choice(np.flatnonzero(g.legal_mask(s)))))
        steps += 1
    assert s.round == 2 and s.turns == 6 and steps <= g.max_decisions


def test_a_turn_takes_at_most_turn_decisions():
    """The longest turn: draw, a quartet, a call with !baixa, another quartet, a malandro, a reserve."""
    g = game_for(2)
    hand = [f"violao {i}" for i in range(1, 5)] + [f"banjo {i}" for i in range(1, 5)] + ["malandro"]
    s = table(g, hands={0: hand}, rodas={0: {1: ["garrafa 1"]}}, piles={"mao": ["tanta 1"]},
              row=["Noel Rosa", "Pixinguinha", "Monarco", "Zeca Pagodinho"], deck=["surdo 1", "surdo 2"])
    decisions = ["draw 2 from the deck", "lay violao 1", "lay violao 2", "lay violao 3", "lay violao 4",
                 "place on space 2", "call open sambista 1", "lay banjo 1", "lay banjo 2", "lay banjo 3",
                 "lay banjo 4", "place on space 3", "discard a malandro onto the mao pile",
                 "reserve open sambista 2"]
    do(g, s, *decisions)
    assert len(decisions) == TURN_DECISIONS == 14
    assert s.player == 1 and s.phase == PH_DRAW


def test_random_games_stay_within_max_decisions():
    for n in (2, 5):
        g = game_for(n)
        rng = np.random.default_rng(n)
        for _ in range(5):
            s, steps, per_turn, turn = g.new_state(rng), 0, 0, 0
            while not s.over:
                g.apply(s, int(rng.choice(np.flatnonzero(g.legal_mask(s)))))
                steps += 1
                per_turn = per_turn + 1 if s.turns == turn else 0
                turn = s.turns
                assert per_turn < TURN_DECISIONS
            assert steps <= g.max_decisions


# ------------------------------------------------------------------- scoring
def finish(g, s):
    """End the game now (seat n-1 ending the last round) and return the rewards."""
    s.end_triggered = True
    return g._finish(s)


def test_score_is_stars_plus_colour_bonus_minus_two_per_atravessado():
    g = game_for(2)
    s = table(g, rodas={0: {1: ["violao 1"], 2: ["surdo 2"], 3: ["tanta 3"]},
                        1: {1: ["pandeiro 1"]}},
              called={0: ["Ismael Silva"], 1: ["Joao da Baiana"]})
    # seat 0: 3 stars + 1 per baqueta space (1) - 2 * 2 atravessados = 0; seat 1: 1 + 1 = 2
    assert s.atrav[0] == 2 and s.fame == [0, 2]
    assert finish(g, s) == [-1.0, 1.0]


def test_a_tie_goes_to_the_most_cards_laid():
    g = game_for(2)
    s = table(g, rodas={0: {1: ["violao 1", "violao 2"]}, 1: {1: ["pandeiro 1"]}})
    assert s.fame == [0, 0] and s.laid_total == [2, 1]
    assert finish(g, s) == [1.0, -1.0]


def test_a_full_tie_is_shared():
    g = game_for(3)
    s = table(g, rodas={0: {1: ["violao 1"]}, 1: {1: ["pandeiro 1"]}})
    rewards = finish(g, s)
    assert rewards == pytest.approx([0.25, 0.25, -0.5]) and sum(rewards) == pytest.approx(0)
    s = table(g)
    assert finish(g, s) == [0.0, 0.0, 0.0]
