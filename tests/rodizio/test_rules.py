"""Rodízio rules on hand-built tables: legal moves and outcomes.

Card ids (baralho/envs/rodizio/cards.py): value 1: 0, 1 · value 2: 2 (Escolha
Livre), 3, 4 · value 3: 5 (Dupla), 6, 7 · value 4: 8 (Livre), 9, 10 · value 5:
11 (Dupla), 12 · value 6: 13 (Livre), 14 · 7: 15 (Dupla) · 8: 16 · plaquinha: 17.
"""

from __future__ import annotations

import numpy as np
import pytest

import baralho
from baralho.envs.rodizio import cards as C
from baralho.envs.rodizio.rules import EAT, RodizioGame

P = C.PLAQUINHA


def game(**cfg) -> RodizioGame:
    return baralho.make("rodizio_v1", engine="reference", **cfg).unwrapped.game


def table(g: RodizioGame, stacks, piles=None, filler=-1, **kw):
    """A position; pizzas used nowhere go to pile ``filler`` except 3 left for the plates."""
    piles = [list(p) for p in piles] if piles else [[] for _ in range(g.num_eaters)]
    used = {c for st in stacks for c in st} | {c for p in piles for c in p}
    spare = [c for c in range(C.NUM_PIZZAS) if c not in used]
    piles[filler] += spare[:-3]
    return g.position(stacks, piles, **kw)


def legal(g, s):
    return list(np.flatnonzero(g.legal_mask(s)))


# ---------------------------------------------------------------- setup
def test_setup_three_pizza_plates_and_five_cards_per_plate():
    g = game(num_players=3)
    for seed in range(50):
        s = g.new_state(np.random.default_rng(seed))
        assert [len(st) for st in s.stacks] == [5, 5, 5]           # columns 2 + 3 per plate
        assert P not in s.plates and sum(P in st for st in s.stacks) == 1
        g.check_invariants(s)


# ---------------------------------------------------------------- sowing
def test_sowing_deals_top_first_clockwise_from_the_next_plate():
    g = game(num_players=3)
    # plate 0 holds 1 2 3 4 (bottom -> top): 4 goes to plate 1, 3 to plate 2, 2 back to plate 0, 1 to plate 1
    s = table(g, [[0, 3, 6, 9], [16], [14, P]])
    g.apply(s, 0)
    assert s.stacks[0] == [3]
    assert s.stacks[2] == [14, P, 6]
    # plate 1 received 9 then 0 (the last card dealt); the card below it (9) is eaten
    assert s.stacks[1] == [16, 0]
    assert s.eaten[0][-1] == 9


def test_eat_the_card_just_below_the_last_card_dealt():
    g = game(num_players=3)
    s = table(g, [[12], [16, 14], [10, P]])
    g.apply(s, 0)                      # 12 lands on plate 1, on top of 14
    assert s.eaten[0] == [14] and s.stacks[1] == [16, 12] and s.totals[0] == 6


def test_lone_card_is_eaten():
    g = game(num_players=3)
    s = table(g, [[12, 16], [], [10, 9, P]])
    g.apply(s, 0)                      # 16 -> plate 1 (empty), 12 -> plate 2 on top of P
    # last dealt is 12 on plate 2, below it the plaquinha: decision, nothing eaten
    assert s.eaten[0] == []
    s = table(g, [[16], [], [10, 9, P]])
    g.apply(s, 0)                      # 16 alone on plate 1
    assert s.eaten[0] == [16] and s.stacks[1] == []


def test_plaquinha_on_top_is_not_selectable():
    g = game(num_players=3)
    s = table(g, [[16, P], [14], [12]])
    assert legal(g, s) == [1, 2]
    env = baralho.make("rodizio_v1", engine="reference", num_players=3)
    env.reset(seed=0)
    env.unwrapped.game_state = s
    env.unwrapped._mask = None
    with pytest.raises(ValueError, match=r"illegal action 0 \(serve plate 0"):
        env.step(0)


def test_lone_plaquinha_plate_may_be_served_when_nothing_else_can():
    g = game(num_players=3)
    s = table(g, [[16, 14, 12, P], [], []])
    assert legal(g, s) == [0]
    g.apply(s, 0)                      # decision: restriction lifted; the plaquinha was in the stack
    assert s.eaten[0] == [] and sorted(map(len, s.stacks)) == [1, 1, 2]


def test_plaquinha_in_the_stack_means_no_eating():
    g = game(num_players=3)
    s = table(g, [[16, P, 14], [12], [10]])
    g.apply(s, 0)
    assert s.eaten[0] == [] and s.seat == 1
    assert s.stacks == [[16], [12, 14], [10, P]]


def test_plaquinha_is_never_eaten():
    g = game(num_players=3)
    s = table(g, [[16], [P], [14, 12]])
    g.apply(s, 0)                      # 16 on the plaquinha: the card below is the plaquinha
    assert s.eaten[0] == [] and s.stacks[1] == [P, 16]


# ---------------------------------------------------------------- spicy mode
def test_escolha_livre_lets_the_player_choose_any_pizza_of_the_plate():
    g = game(num_players=3, spicy=True)
    s = table(g, [[13], [16, P, 14], [12]])   # 13 = 6 with Escolha Livre
    g.apply(s, 0)                              # 13 lands on plate 1: [16, P, 14, 13]
    assert s.pending == 1 and s.seat == 0
    # depths from the top: 0 = 13 (the card just dealt), 1 = 14, 2 = P (not edible), 3 = 16
    assert legal(g, s) == [EAT + 0, EAT + 1, EAT + 3]
    assert g.describe_action(s, EAT + 3) == "eat 8 at depth 3 of plate 1"
    g.apply(s, EAT + 3)
    assert s.eaten[0] == [16] and s.pending == -1 and s.seat == 1
    s = table(g, [[13], [16, P, 14], [12]])
    g.apply(s, 0)
    g.apply(s, EAT + 0)                        # the just-dealt card itself
    assert s.eaten[0] == [13]


def test_escolha_livre_with_one_pizza_is_taken_at_once():
    g = game(num_players=3, spicy=True)
    s = table(g, [[13], [], [16, 14, P]])
    g.apply(s, 0)
    assert s.pending == -1 and s.eaten[0] == [13]


def test_dupla_acao_eats_twice_below_the_last_card():
    g = game(num_players=3, spicy=True)
    s = table(g, [[15], [16, 14, 12], [10, P]])   # 15 = 7 with Dupla Ação
    g.apply(s, 0)
    assert s.eaten[0] == [12, 14] and s.stacks[1] == [16, 15]


def test_dupla_acao_second_eat_takes_the_lone_last_card():
    g = game(num_players=3, spicy=True)
    s = table(g, [[15], [12], [10, 9, 16, P]])
    g.apply(s, 0)                                   # eats 12, then 15 is alone: eats it
    assert s.eaten[0] == [12, 15]


def test_peppers_do_nothing_without_spicy_mode():
    g = game(num_players=3)
    s = table(g, [[13], [16, P, 14], [12]])
    g.apply(s, 0)
    assert s.pending == -1 and s.eaten[0] == [14]


def test_plaquinha_in_the_stack_cancels_the_pepper():
    g = game(num_players=3, spicy=True)
    s = table(g, [[15, P], [16, 14], [12]])        # decision: no eating at all
    g.apply(s, 0)
    assert s.eaten[0] == [] and s.pending == -1


# ---------------------------------------------------------------- Comilão
def test_comilao_plays_after_both_players_on_the_plaquinha_plate():
    g = game(num_players=2)
    s = table(g, [[16, 14, P], [12, 10], [9, 8, 6]], seat=1, filler=0)
    assert legal(g, s) == [1, 2]                    # players may not serve plate 0
    g.apply(s, 2)        # player_1: 6 -> plate 0, 8 -> plate 1, 9 alone on plate 2: eats 9
    assert s.eaten[1] == [9]
    # the Comilão then serves the plate holding the plaquinha, [16, 14, P, 6]:
    # 6 -> 1, P -> 2, 14 -> 0, 16 -> 1, and eats 6 (below 16) although the plaquinha was in it
    assert s.stacks == [[14], [12, 10, 8, 16], [P]]
    assert s.eaten[2] == [6] and s.totals[2] == 3
    assert s.seat == 0 and s.round == 1


def test_comilao_ignores_both_plaquinha_restrictions():
    g = game(num_players=2)
    s = table(g, [[12, 16, P], [9], [14, 10]], seat=1, filler=0)
    g.apply(s, 1)                  # player_1: 9 lands on plate 2 over 10: eats 10
    assert s.eaten[1] == [10]
    # Comilão: serves plate 0 although the plaquinha tops it: P -> 1, 16 -> 2,
    # 12 -> 0 where it is alone: eats it
    assert s.stacks == [[], [P], [14, 9, 16]]
    assert s.eaten[2] == [12]


def test_comilao_does_no_pepper_action_on_an_escolha_livre():
    """v1: the Comilão eats one pizza by the normal rule ("Em seguida, ele 'come' uma pizza")."""
    g = game(num_players=2, spicy=True)
    s = table(g, [[13, 9, P], [16, 14], [10, 0]], seat=1, filler=0)
    g.apply(s, 2)                  # player_1: 0 -> plate 0, 10 -> plate 1 over 14: eats 14
    assert s.eaten[1] == [14]
    # Comilão serves plate 0 [13, 9, P, 0]: 0 -> 1, P -> 2, 9 -> 0, 13 -> 1; 13 shows
    # Escolha Livre, plate 1 is [16, 10, 0, 13]: no choice, it eats 0, just below 13
    assert s.eaten[2] == [0] and s.stacks == [[9], [16, 10, 13], [P]]
    assert s.pending == -1 and s.seat == 0


def test_comilao_does_no_pepper_action_on_a_dupla_acao():
    g = game(num_players=2, spicy=True)
    s = table(g, [[15, 9, P], [16, 14], [10, 0]], seat=1, filler=0)
    g.apply(s, 2)                  # player_1: 0 -> plate 0, 10 -> plate 1 over 14: eats 14
    # Comilão serves [15, 9, P, 0]: 0 -> 1, P -> 2, 9 -> 0, 15 (Dupla) -> 1 over 0:
    # one eat only, the 0 below it (a Dupla would also have eaten the 10)
    assert s.eaten[2] == [0] and s.stacks == [[9], [16, 10, 15], [P]]


# ---------------------------------------------------------------- end and winner
def test_game_ends_when_three_cards_remain():
    g = game(num_players=3)
    s = table(g, [[16], [P, 14], [12]])              # 4 in the centre
    r = g.apply(s, 0)                                # 16 lands on 14: eats 14 -> 3 left
    assert g.is_over(s) and r is not None and g.current_player(s) == -1
    assert sum(map(len, s.stacks)) == 3


def test_dupla_acao_stops_when_the_game_ends():
    g = game(num_players=3, spicy=True)
    s = table(g, [[15], [P, 14, 12], []])            # 4 in the centre; Dupla would eat twice
    g.apply(s, 0)
    assert s.eaten[0] == [12] and g.is_over(s)


@pytest.mark.parametrize("totals, winners", [
    ([10, 7, 3], {1}),            # second highest wins
    ([10, 10, 5], {2}),           # distinct totals: the two 10s share first, 5 is second
    ([10, 7, 7], {1, 2}),         # ties for second share the win
    ([4, 4, 4], set()),           # no second total: nobody wins (decision)
])
def test_second_highest_total_wins(totals, winners):
    g = game(num_players=3)
    assert g.winners(totals) == winners


def test_comilao_second_means_everyone_loses():
    g = game(num_players=2)
    assert g.winners([12, 3, 9]) == set()            # Comilão (index 2) holds 9, second
    # v1: "Se o Comilão tiver a segunda maior soma, todos os jogadores perdem", tie or not
    assert g.winners([12, 9, 9]) == set()
    assert g.winners([9, 12, 9]) == set()
    assert g.winners([12, 9, 3]) == {1}              # the Comilão third: the second player wins
    assert g.winners([3, 9, 12]) == {1}              # the Comilão first does not stop the second


def test_rewards_at_the_end_through_the_env():
    env = baralho.make("rodizio_v1", engine="reference", num_players=3)
    env.reset(seed=0)
    g = env.unwrapped.game
    env.unwrapped.game_state = table(g, [[16], [P, 14], [12]], piles=[[9], [10, 8], []], filler=2)
    env.unwrapped._mask = None
    env.step(0)                                       # player_0 eats 14 (6): totals 10, 8, rest
    totals = env.unwrapped.game_state.totals
    assert totals[0] == 4 + 6 and totals[1] == 8
    expected = {f"player_{i}": (1.0 if i in g.winners(totals) else -1.0) for i in range(3)}
    assert env.rewards == expected and all(env.terminations.values())


def test_turn_bound_ends_the_game_and_scores_it():
    g = game(num_players=3, max_rounds=1)
    assert g.max_decisions == 2 * 3 * 1
    s = g.new_state(np.random.default_rng(0))
    while not g.is_over(s):
        g.apply(s, int(np.flatnonzero(g.legal_mask(s))[0]))
    assert s.round == 1 and sum(map(len, s.stacks)) > 3
    assert s.final == [1.0 if i in g.winners(s.totals) else -1.0 for i in range(3)]


@pytest.mark.parametrize("bound", [255, 256, 257, 1000])
def test_every_accepted_bound_plays_to_its_end(bound):
    """v0 crashed at round 256 (a packed-number table of 256 entries)."""
    g = game(num_players=3, max_rounds=bound)
    s = table(g, [[16, 14, 12, 11, 10], [9, P, 8, 7, 6], [5, 4, 3, 2, 1]], round=bound - 2)
    while not g.is_over(s):
        obs = g.obs_layout.decode(g.observe(s, s.seat))
        assert obs["round"][0] == s.round and obs["rounds_left"][0] == bound - s.round
        g.apply(s, int(np.flatnonzero(g.legal_mask(s))[0]))
        g.check_invariants(s)
    assert s.round == bound and sum(map(len, s.stacks)) > 3      # ended by the bound


def test_a_game_that_never_eats_ends_at_the_bound():
    """Serving the plaquinha plate again and again eats nothing; the bound ends it."""
    g = game(num_players=3, max_rounds=5)
    s = table(g, [[16, 14, 12, P], [], []])
    steps = 0
    while not g.is_over(s):
        g.apply(s, int(np.flatnonzero(g.legal_mask(s))[-1]))
        steps += 1
    assert steps <= g.max_decisions


# ---------------------------------------------------------------- memory
def test_memory_perfect_shows_every_pile_and_none_only_sizes():
    for memory in ("perfect", "none"):
        g = game(num_players=3, memory=memory)
        s = table(g, [[16], [P, 14, 13], [12, 11]], piles=[[9], [10, 8], []], filler=2)
        obs = g.obs_layout.decode(g.observe(s, 0))
        assert obs["eaten"][0, 9] == 1 and obs["eaten_total"][0] == 4
        assert obs["eaten_count"][1] == 2                       # pile sizes always public
        seen = obs["eaten"][1, 10] == 1 and obs["eaten_total"][1] == 8
        assert seen == (memory == "perfect")
        # seat-relative: player_1 sees its own pile first
        obs1 = g.obs_layout.decode(g.observe(s, 1))
        assert obs1["eaten"][0, 10] == 1 and obs1["eaten_count"][2] == 1


def test_render_hides_piles_without_memory():
    g = game(num_players=3, memory="none")
    s = table(g, [[16], [P, 14, 13], [12, 11]], piles=[[9], [10, 8], []], filler=2)
    text = g.render_text(s, 0)
    assert "2 cards face down" in text and "[?]" in text
    assert "[?]" not in g.render_text(s, None)


# ---------------------------------------------------------------- config
@pytest.mark.parametrize("bad, match", [
    (dict(num_players=1), "num_players=1"),
    (dict(num_players=6), "2-5 players"),
    (dict(memory="partial"), "memory"),
    (dict(spicy="yes"), "expected bool"),
    (dict(max_rounds=0), "max_rounds"),
    (dict(spicey=True), "did you mean 'spicy'"),
])
def test_bad_config_is_refused(bad, match):
    with pytest.raises(ValueError, match=match):
        baralho.make("rodizio_v1", **bad)


def test_corrupted_state_is_detected():
    g = game(num_players=3)
    s = table(g, [[16], [P, 14, 13], [12, 11]])
    s.totals[0] += 1
    with pytest.raises(AssertionError, match="total"):
        g.check_invariants(s)
    s = table(g, [[16], [P, 14, 13], [12, 11]])
    s.stacks[0].append(14)
    with pytest.raises(AssertionError, match="lost or doubled"):
        g.check_invariants(s)
