"""Melds, drawing and the opening: hand-built positions, checked through the mask."""

import numba as nb
import numpy as np
import pytest

from tests.scala40.helpers import (
    DRAW,
    A,
    Config,
    Scala40Game,
    card,
    disc,
    legal,
    meld,
    play,
    position,
    sel,
)

G2 = Scala40Game(Config(num_players=2))
JK = A.SELECT + card("JK")


def joker_as(text: str) -> int:
    k = card(text)
    pos = 14 if text.startswith("A") and text.endswith("!") else k % 13 + 1
    return A.joker_action(k // 13, pos)


@pytest.mark.parametrize("n,jokers", [(2, 2), (3, 2), (4, 4), (5, 2), (5, 4)])
def test_deck_and_deal(n, jokers):
    g = Scala40Game(Config(num_players=n, num_jokers=jokers))
    s = g.new_state(np.random.default_rng(3))
    assert s.hand_size == [13] * n
    assert len(s.discard) == 1
    assert len(s.stock) == 104 + jokers - 13 * n - 1
    assert s.phase == DRAW and s.player == 0
    g.check_invariants(s)


def test_draw_stock_always_and_unusable_discard_refused():
    s = position(G2, {0: "7h 8h Kd Ks Kc 2s 5c 9d 4h Jc 3d 6s Qh"}, discard="2c", phase=DRAW)
    assert legal(G2, s) == {A.DRAW_STOCK}


def test_unopened_may_take_discard_that_opens():
    s = position(G2, {0: "7h 8h Kd Ks Kc 2s 5c 9d 4h Jc 3d 6s Qh"}, discard="9h", phase=DRAW)
    assert legal(G2, s) == {A.DRAW_STOCK, A.DRAW_DISCARD}
    play(G2, s, A.DRAW_DISCARD)
    assert s.obligation == card("9h") and s.known[0][card("9h")] == 1
    # no discard before the opening that uses the 9♥
    assert not any(A.DISCARD <= a for a in legal(G2, s))
    play(G2, s, *sel("7h 8h 9h"), A.COMMIT)
    assert not s.opened[0] and s.ob_used and s.staged_value == 24
    play(G2, s, *sel("Kd Ks Kc"), A.COMMIT)
    assert s.opened[0] and s.staged == 0 and s.obligation == -1
    assert disc("2s") in legal(G2, s)


def test_taken_discard_steers_the_opening():
    # 8♠ 8♥ 8♣ would be a meld, but it uses the 8♥ the 9♥ needs: not offered
    s = position(G2, {0: "7h 8h 8s 8c Kd Ks Kc 2s 5c 4d Jc 3d 6s"}, discard="9h", phase=DRAW)
    play(G2, s, A.DRAW_DISCARD)
    acts = legal(G2, s)
    assert A.SELECT + card("8s") not in acts and A.SELECT + card("8c") not in acts
    assert {A.SELECT + card(c) for c in ("7h", "8h", "9h", "Kd", "Ks", "Kc")} <= acts
    assert A.UNDO not in acts


def test_first_player_free_pick_of_the_dealt_discard():
    s = position(G2, {0: "2s 5c 9d 4h Jc 3d 6s Qh 7h 8d Ks 2c 10d"}, discard="JK", phase=DRAW, turn=0)
    assert A.DRAW_DISCARD in legal(G2, s)
    play(G2, s, A.DRAW_DISCARD)
    assert s.obligation == -1  # no need to open with it
    assert disc("JK") in legal(G2, s) and disc("2s") in legal(G2, s)
    s.turn = 1  # later, the same card would have to open
    s.phase = DRAW
    s.hands[0][card("JK")] -= 1
    s.hand_size[0] -= 1
    s.discard.append(card("JK"))
    s.known[0][card("JK")] = 0
    G2._sync(s)
    assert A.DRAW_DISCARD not in legal(G2, s)


def test_dealt_joker_reshuffle_option():
    g = Scala40Game(Config(num_players=2, dealt_joker="reshuffle"))
    tops = {g.new_state(np.random.default_rng(seed)).discard[-1] for seed in range(300)}
    assert card("JK") not in tops
    g2 = Scala40Game(Config(num_players=2))
    assert card("JK") in {g2.new_state(np.random.default_rng(seed)).discard[-1] for seed in range(300)}


def test_set_needs_different_suits():
    s = position(G2, {0: "7h 7h 7s 7d 2c 9d"}, opened=(0,))
    play(G2, s, *sel("7h 7s"))
    assert A.SELECT + card("7h") not in legal(G2, s)
    play(G2, s, A.SELECT + card("7d"))
    assert A.COMMIT in legal(G2, s)
    play(G2, s, A.COMMIT)
    assert s.melds[-1] == meld("7h 7s 7d")


def test_runs_ace_low_and_high_never_around_the_corner():
    s = position(G2, {0: "Qs Ks As 2s 3s 9d 9c"}, opened=(0,))
    play(G2, s, *sel("Ks As"))
    assert A.SELECT + card("Qs") in legal(G2, s)
    assert A.SELECT + card("2s") not in legal(G2, s)  # K-A-2 never
    play(G2, s, A.SELECT + card("Qs"), A.COMMIT)
    assert s.melds[-1] == (0, 0, 12, 14, 0)  # a ♠ run at positions 12..14: Q-K-A
    s = position(G2, {0: "As 2s 3s Ks 9d 9c"}, opened=(0,))
    play(G2, s, *sel("As 2s 3s"), A.COMMIT)
    assert s.melds[-1] == (0, 0, 1, 3, 0)


def test_one_joker_per_meld_and_its_stand_in_is_named():
    g = Scala40Game(Config(num_players=2, num_jokers=4))
    s = position(g, {0: "5h 6h 7h JK JK 9c 2d"}, opened=(0,))
    play(g, s, *sel("5h 6h"), JK)
    acts = legal(g, s)
    assert JK not in acts  # a second joker never
    assert A.COMMIT not in acts
    assert {joker_as("4h"), joker_as("7h")} <= acts
    play(g, s, joker_as("4h"))
    assert s.melds[-1] == (0, 1, 4, 6, 4)
    s = position(g, {0: "5h 7h JK 9c 2d"}, opened=(0,))
    play(g, s, *sel("5h 7h"), JK)
    assert {a for a in legal(g, s) if A.COMMIT <= a < A.EXTEND} == {joker_as("6h")}


def test_joker_in_a_set_names_its_suit():
    s = position(G2, {0: "9s 9d JK 4c 2h"}, opened=(0,))
    play(G2, s, *sel("9s 9d"), JK)
    assert {a for a in legal(G2, s) if A.COMMIT <= a < A.EXTEND} == {joker_as("9h"), joker_as("9c")}
    play(G2, s, joker_as("9c"))
    assert s.melds[-1] == (1, 9, 0b1101, 0, 4)


def test_opening_needs_40_without_joker():
    s = position(G2, {0: "Qs Qd Qc Ah 2h 3h Jh Qh Kh 5c 9d", 1: "2c"})
    play(G2, s, *sel("Qs Qd Qc"), A.COMMIT, *sel("Ah 2h 3h"), A.COMMIT)
    assert not s.opened[0] and s.staged_value == 36
    assert A.UNDO in legal(G2, s)
    assert not any(A.EXTEND <= a < A.UNDO for a in legal(G2, s))
    play(G2, s, *sel("Jh Qh Kh"), A.COMMIT)
    assert s.opened[0] and s.staged == 0
    assert A.UNDO not in legal(G2, s)


def test_opening_with_joker_counts_its_stand_in():
    s = position(G2, {0: "Ks Kd JK Ac 2c 3c 4c 9h 5d"})
    play(G2, s, *sel("Ks Kd"), JK, joker_as("Kh"), *sel("2c 3c 4c"), A.COMMIT)
    assert not s.opened[0] and s.staged_value == 39
    s = position(G2, {0: "Ks Kd JK Ac 2c 3c 4c 9h 5d"})
    play(G2, s, *sel("Ks Kd"), JK, joker_as("Kh"), *sel("Ac 2c 3c 4c"), A.COMMIT)
    assert s.opened[0]


def test_staged_melds_return_on_undo_and_on_discard():
    s = position(G2, {0: "7h 8h 9h 5s 5d 5c 4d Jc"})
    play(G2, s, *sel("7h 8h 9h"), A.COMMIT, A.UNDO)
    assert s.melds == [] and s.hands[0][card("8h")] == 1
    assert s.known[0][card("8h")] == 1  # everyone saw it
    play(G2, s, *sel("5s 5d 5c"), A.COMMIT)
    assert A.UNDO not in legal(G2, s)  # one undo per turn
    play(G2, s, disc("Jc"))
    assert s.melds == [] and s.hands[0][card("5s")] == 1 and s.player == 1


def test_layoff_only_after_opening_and_in_the_opening_turn():
    table = [meld("7c 8c 9c")]
    s = position(G2, {0: "10c Ks Kd Kc Qs Qd Qh 2h"}, melds=table)
    assert A.SELECT + card("10c") not in legal(G2, s)
    play(G2, s, *sel("Ks Kd Kc"), A.COMMIT, *sel("Qs Qd Qh"), A.COMMIT)
    assert s.opened[0]
    play(G2, s, A.SELECT + card("10c"), A.EXTEND + 0)
    assert s.melds[0] == (0, 3, 7, 10, 0)


def test_layoff_on_any_meld_low_or_high():
    table = [meld("5h 6h 7h")]
    s = position(G2, {0: "JK 2c 9d"}, melds=table, opened=(0,))
    play(G2, s, JK)
    assert {A.EXTEND, A.EXTEND_LOW} <= legal(G2, s)
    play(G2, s, A.EXTEND_LOW)
    assert s.melds[0] == (0, 1, 4, 7, 4)


def test_joker_swap():
    table = [meld("7h JK 9h", joker_as="8h")]
    s = position(G2, {0: "8h 2c 9d"}, melds=table, opened=(0,))
    assert A.SWAP + 0 in legal(G2, s)
    play(G2, s, A.SWAP + 0)
    assert s.melds[0] == (0, 1, 7, 9, 0)
    assert s.hands[0][card("JK")] == 1 and s.known[0][card("JK")] == 1
    s = position(G2, {0: "8h 2c 9d"}, melds=table)
    assert A.SWAP + 0 not in legal(G2, s)  # not opened


def test_must_use_option_after_opening():
    g = Scala40Game(Config(num_players=2, taken_discard="must_use"))
    table = [meld("7c 8c 9c")]
    s = position(g, {0: "2h 5d 9s"}, melds=table, opened=(0,), phase=DRAW, discard="10c")
    play(g, s, A.DRAW_DISCARD)
    assert legal(g, s) == {A.SELECT + card("10c")}
    play(g, s, A.SELECT + card("10c"), A.EXTEND + 0)
    assert disc("2h") in legal(g, s)
    s = position(g, {0: "2h 5d 9s"}, melds=table, opened=(0,), phase=DRAW, discard="Kd")
    assert A.DRAW_DISCARD not in legal(g, s)
    s = position(G2, {0: "2h 5d 9s"}, melds=table, opened=(0,), phase=DRAW, discard="Kd")
    assert A.DRAW_DISCARD in legal(G2, s)  # default: free after opening


def _random_hands(seed: int, count: int):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        hand = [0] * 53
        for k in rng.integers(0, 53, rng.integers(0, 16)):
            if hand[k] < (4 if k == 52 else 2):
                hand[k] += 1
        yield hand


def test_meldable_kinds_are_the_cards_of_every_formable_meld():
    # the bit-mask shortcut of meldable_kinds against the plain definition over all_melds
    from baralho.envs.scala40.melds import meldable_kinds
    from baralho.envs.scala40.solver import all_melds

    for hand in _random_hands(5, 3000):
        want = sorted({k for cards, _, _ in all_melds(hand) for k in cards})
        assert sorted(meldable_kinds(hand)) == want, hand


def test_kind_meldable_answers_for_one_card_what_meldable_kinds_says():
    # the draw-phase shortcut (one card, no whole-hand pass) against meldable_kinds, and its
    # compiled twin (fast_melds.kind_meldable, the compiled legal mask's draw prefilter) alike
    from baralho.envs.scala40 import fast_melds
    from baralho.envs.scala40.melds import kind_meldable, meldable_kinds

    @nb.njit(cache=False)      # the compiled one runs only inside compiled code
    def compiled(hand, k):
        return fast_melds.kind_meldable(hand, k)

    hits = 0
    for hand in _random_hands(6, 3000):
        kinds = set(meldable_kinds(hand))
        row = np.array(hand, np.int8)
        for k in range(52):
            if hand[k]:
                assert kind_meldable(hand, k) == (k in kinds) == compiled(row, k), (hand, k)
                hits += k in kinds
    assert hits > 100   # the sample holds meldable cards, not only loose ones


def _random_group(rng: np.random.Generator) -> list[int]:
    """Cards being built into a meld: 1-3 cards of one suit or 1-2 of one rank, plus a joker 30% of the time."""
    s, r = int(rng.integers(4)), int(rng.integers(13))
    if rng.random() < 0.5:
        group = [s * 13 + int(x) for x in rng.choice(13, rng.integers(1, 4), replace=False)]
    else:
        group = [int(u) * 13 + r for u in rng.choice(4, rng.integers(1, 3), replace=False)]
    if rng.random() < 0.3:
        group.append(52)
    return group


def test_new_meld_extra_matches_a_search_over_every_meld():
    # the memoised window arithmetic against brute force over checks.py's meld table
    from baralho.envs.scala40.melds import new_meld_extra, templates

    _, counts, _, sizes = templates()
    rng = np.random.default_rng(6)
    for hand in _random_hands(7, 1500):
        group = _random_group(rng)
        g = np.bincount(group, minlength=53)
        fits = ((counts >= g) & (counts <= g + np.array(hand))).all(1)
        want = int((sizes[fits] - len(group)).min()) if fits.any() else None
        assert new_meld_extra(group, hand) == want, (group, hand)


def test_select_extras_matches_new_meld_extra_per_candidate():
    # the mask's one-pass candidate arithmetic against one new_meld_extra call per card
    from baralho.envs.scala40.melds import new_meld_extra, select_extras

    rng = np.random.default_rng(8)
    checked = 0
    for hand in _random_hands(9, 3000):
        group = _random_group(rng)
        got = select_extras(group, hand)
        for k in range(53):
            if hand[k]:
                hand[k] -= 1
                want = new_meld_extra(group + [k], hand)
                hand[k] += 1
                assert got.get(k) == want, (group, k, hand)
                checked += want is not None
    assert checked > 1000  # the comparison is not vacuous
    with pytest.raises(ValueError):
        select_extras([52], hand)
