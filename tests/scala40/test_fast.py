"""The compiled engine (fast.py) on hand-built positions: both engines in lockstep.

Each position is played by a script of actions on the reference and on the compiled
engine; after every action the masks, every seat's observation, the rewards and the
whole state must be equal. The random-play differential test (tests/vector) covers
the positions play reaches; these cover the rules the mask's solver decides."""

from __future__ import annotations

import numba as nb
import numpy as np
import pytest

from baralho.core.chance import Chance
from baralho.envs.scala40 import fast
from tests.scala40.helpers import DRAW, A, Config, Scala40Game, card, disc, meld, position, sel

G2 = Scala40Game(Config(num_players=2))
G3_MUST = Scala40Game(Config(num_players=3, scope="hand", taken_discard="must_use"))
JK = A.SELECT + card("JK")


def lockstep(game, s, *actions: int) -> None:
    """Play ``actions`` on both engines from ``s``, comparing everything after each."""
    from baralho.core.compiled import CompiledGame

    cg = CompiledGame(game, fast)
    c = cg.from_reference(s)
    for a in (*actions, None):
        ref_mask = game.legal_mask(s)
        assert np.flatnonzero(cg.legal_mask(c)).tolist() == np.flatnonzero(ref_mask).tolist()
        for p in range(game.num_players):
            np.testing.assert_array_equal(cg.observe(c, p), game.observe(s, p))
        assert cg.to_reference(c) == s
        if a is None:
            return
        assert ref_mask[a], f"{game.describe_action(s, a)} is not legal"
        r = game.apply(s, a)
        rc = cg.apply(c, a)
        assert cg.current_player(c) == game.current_player(s)
        zero = np.zeros(game.num_players)
        np.testing.assert_array_equal(zero if rc is None else rc, zero if r is None else r)


def test_unopened_takes_the_discard_only_to_open_with_it():
    s = position(G2, {0: "7h 8h Kd Ks Kc 2s 5c 9d 4h Jc 3d 6s Qh"}, discard="9h", phase=DRAW)
    lockstep(G2, s, A.DRAW_DISCARD, *sel("7h 8h 9h"), A.COMMIT, *sel("Kd Ks Kc"), A.COMMIT, disc("2s"))
    s = position(G2, {0: "7h 8h Kd Ks Kc 2s 5c 9d 4h Jc 3d 6s Qh"}, discard="2c", phase=DRAW)
    assert not G2.legal_mask(s)[A.DRAW_DISCARD]
    lockstep(G2, s, A.DRAW_STOCK)


def test_the_taken_discard_steers_the_selects_and_commits():
    # 8♠ 8♥ 8♣ would be a meld but uses the 8♥ the 9♥ needs: the solver must not offer it
    s = position(G2, {0: "7h 8h 8s 8c Kd Ks Kc 2s 5c 4d Jc 3d 6s"}, discard="9h", phase=DRAW)
    lockstep(G2, s, A.DRAW_DISCARD, A.SELECT + card("Kd"), A.SELECT + card("Ks"), A.SELECT + card("Kc"),
             A.COMMIT, *sel("7h 8h 9h"), A.COMMIT)


def test_staged_melds_come_back_on_undo_and_on_the_discard():
    s = position(G2, {0: "7h 8h 9h 2s 2d 2c 5c 9d 4h Jc 3d 6s Qh"}, turn=4)
    lockstep(G2, s, *sel("7h 8h 9h"), A.COMMIT, A.UNDO, *sel("2s 2d 2c"), A.COMMIT, disc("Qh"))


def test_joker_commit_names_its_stand_in_then_layoffs_and_swap():
    s = position(G2, {0: "5h 6h JK 8h 9h Kd Ks Kc Qd 3c 4c 7d 2s"}, turn=4)
    lockstep(G2, s, *sel("5h 6h JK"), A.joker_action(1, 7), *sel("Kd Ks Kc"), A.COMMIT,
             A.SELECT + card("8h"), A.EXTEND + 0, A.SELECT + card("9h"), A.EXTEND + 0, disc("2s"))
    table = [meld("7h JK 9h", joker_as="8h"), meld("5c 6c 7c")]
    s = position(G2, {0: "8h 2c 9d 4c Ac"}, melds=table, opened=(0,))
    lockstep(G2, s, A.SWAP + 0, JK, A.EXTEND + 1, A.SELECT + card("4c"), A.EXTEND + 1, disc("9d"))


def test_the_ace_runs_high_and_low_and_a_lone_joker_layoff():
    table = [meld("5h 6h 7h"), meld("Qs Ks As")]
    s = position(G2, {0: "JK 2c 9d Ah 2h 3h 4h"}, melds=table, opened=(0,))
    lockstep(G2, s, JK, A.EXTEND_LOW + 0, *sel("Ah 2h 3h"), A.COMMIT, disc("9d"))


def test_must_use_after_opening_and_closing_with_the_double_penalty():
    table = [meld("7c 8c 9c")]
    s = position(G3_MUST, {0: "2h 5d 9s"}, melds=table, opened=(0,), phase=DRAW, discard="10c")
    lockstep(G3_MUST, s, A.DRAW_DISCARD, A.SELECT + card("10c"), A.EXTEND + 0, disc("2h"))
    s = position(G3_MUST, {0: "2h 5d 9s"}, melds=table, opened=(0,), phase=DRAW, discard="Kd")
    assert not G3_MUST.legal_mask(s)[A.DRAW_DISCARD]
    # closing in hand, never opened before: the others pay double
    s = position(G3_MUST, {0: "7h 8h 9h Kd Ks Kc Qd Qs Qc 4s 5s 6s 2d", 1: "Ah 3c"}, turn=3)
    lockstep(G3_MUST, s, *sel("7h 8h 9h"), A.COMMIT, *sel("Kd Ks Kc"), A.COMMIT, *sel("Qd Qs Qc"), A.COMMIT,
             *sel("4s 5s 6s"), A.COMMIT, disc("2d"))
    assert s.phase == 2 and s.last_penalties[1] == 2 * (11 + 3)


@nb.njit(cache=False)
def _chance_permutation(records, n):
    fast._pcg_seed(records[0])
    return fast._permutation(records[0], n, True)


@pytest.mark.parametrize("seed", [0, 1, 2 ** 62 + 12345, 2 ** 63 - 1])
def test_in_play_chance_is_the_references_pcg64_permutation(seed):
    """A shuffled turnover and a match's next deal draw Generator.permutation from
    chance.pcg64_state(seed, draws): the compiled port must give the same numbers."""
    class S:
        draws = 0

    s = S()
    s.seed = seed
    rec = fast.new_records(G2, 1)
    rec[0]["seed"] = seed
    chance = Chance()
    for n in (1, 2, 7, 40, 106, 108, 3000):
        expected = chance.next(s).permutation(n)
        assert _chance_permutation(rec, n).tolist() == expected.tolist()
        assert rec[0]["draws"] == s.draws


@pytest.mark.parametrize("cfg", [dict(num_players=2), dict(num_players=4, num_jokers=4, scope="hand",
                                                                 dealt_joker="reshuffle")])
def test_the_batch_deals_valid_games(cfg):
    """The batch's own deals (its splitmix streams, not the reference's generator)."""
    import baralho.vector as bv

    venv = bv.make("scala40_v1", num_envs=64, seed=4, **cfg)
    obs, mask, seat = venv.reset()
    game = venv.game
    tops = set()
    for i in range(64):
        s = venv.get_state(i)
        game.check_invariants(s)
        assert s.turn == 0 and s.player == seat[i] == 0 and all(h == 13 for h in s.hand_size)
        assert (s.seed is not None) == (cfg.get("scope", "match") == "match")
        if cfg.get("dealt_joker") == "reshuffle":
            assert s.discard[-1] != card("JK")
        tops.add(s.discard[-1])
        np.testing.assert_array_equal(mask[i], game.legal_mask(s))
        np.testing.assert_array_equal(obs[i], game.observe(s, 0))
    assert len(tops) > 30          # the up-card varies: the streams are not all the same


def test_the_batch_is_the_same_game_with_threads_and_auto_resets():
    import baralho.vector as bv

    cfg = dict(num_players=3, scope="hand")
    one = bv.make("scala40_v1", num_envs=8, seed=11, **cfg)
    two = bv.make("scala40_v1", num_envs=8, seed=11, threads=2, **cfg)
    a, b = one.reset(), two.reset()
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(400):
        assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
        actions = (rng.random(a[1].shape) * a[1]).argmax(1)
        a, b = one.step(actions), two.step(actions)
        rewards, done = a[3], a[4]
        assert (rewards[~done] == 0).all() and (rewards[done] <= 0).all()
        ended += done.sum()
        for i in np.flatnonzero(done):       # already re-dealt: the new game's first decision
            s = one.get_state(i)
            assert s.turn == 0 and s.phase == DRAW and not s.melds
    assert ended >= 4
