"""The conformance checks can fail: each is run on a deliberately broken game."""

from __future__ import annotations

import numpy as np
import pytest

import baralho
import baralho.envs.rodizio.cards

from .helpers import check_hidden_information, check_resamples_play_on, positions


class LeakyRodizio:
    """Rodízio with memory='none' whose observation leaks every pile (the bug
    the hidden-information test exists to catch)."""

    def __init__(self):
        self.inner = baralho.make("rodizio_v1", engine="reference", num_players=3, memory="none").unwrapped.game
        self.leak = baralho.make("rodizio_v1", engine="reference", num_players=3, memory="perfect").unwrapped.game

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def observe(self, state, player):
        obs = self.leak.observe(state, player)
        obs[-2:] = (0, 0)     # the flags would differ anyway; keep only the leak
        return obs


def test_hidden_information_check_catches_a_leak():
    game = LeakyRodizio()
    states = positions("rodizio_v1", dict(engine="reference", num_players=3, memory="none"), games=20, seed=1, every=3)
    with pytest.raises(AssertionError, match="observation changed under resampling"):
        check_hidden_information(game, states)


def test_hidden_information_check_catches_a_lying_has_hidden():
    game = baralho.make("rodizio_v1", engine="reference").unwrapped.game

    class Lying:
        def __getattr__(self, name):
            return getattr(game, name)

        def resample_hidden(self, state, player, rng):
            return state.copy()          # claims hidden info but never redraws it

    states = positions("rodizio_v1", {"engine": "reference"}, games=5, seed=1)
    with pytest.raises(AssertionError, match="resamples changed nothing"):
        check_hidden_information(Lying(), states)


def test_invariant_check_catches_a_lost_card():
    game = baralho.make("rodizio_v1", engine="reference").unwrapped.game
    state = game.new_state(np.random.default_rng(0))
    state.stacks[0].pop()
    with pytest.raises(AssertionError):
        game.check_invariants(state)


def test_hidden_information_check_catches_a_resample_that_reads_the_truth():
    game = baralho.make("rodizio_v1", engine="reference", num_players=3, memory="none").unwrapped.game

    class Peeking:
        """Shuffles the hidden cards starting from their true places (not canonical)."""

        def __getattr__(self, name):
            return getattr(game, name)

        def resample_hidden(self, state, player, rng):
            t = state.copy()
            others = [w for w in range(game.num_eaters) if w != player]
            pool = t.plates + [c for w in others for c in t.eaten[w]]   # true order, unsorted
            pool = [pool[i] for i in rng.permutation(len(pool))]
            t.plates, pos = pool[:3], 3
            for w in others:
                k = len(t.eaten[w])
                t.eaten[w], pos = pool[pos:pos + k], pos + k
                t.totals[w] = sum(baralho.envs.rodizio.cards.VALUE[c] for c in t.eaten[w])
            return t

    states = positions("rodizio_v1", dict(engine="reference", num_players=3, memory="none"), games=5, seed=1)
    with pytest.raises(AssertionError, match="depends on the true hidden state"):
        check_hidden_information(Peeking(), states)


def test_resample_check_catches_an_actor_left_without_a_move():
    """Scala 40 with the v0 resample (one uniform redraw, no condition): about 6% of
    the redraws for a seat not acting leave the actor part-way through a meld with
    no legal move."""
    from baralho.envs.scala40.observation import _redraw

    game = baralho.make("scala40_v1", engine="reference", scope="hand").unwrapped.game

    class Unconditioned:
        def __getattr__(self, name):
            return getattr(game, name)

        def resample_hidden(self, state, player, rng):
            return _redraw(game, state, player, rng)

    states = positions("scala40_v1", dict(engine="reference", scope="hand"), games=30, seed=21, every=3)
    with pytest.raises(AssertionError, match="no legal action"):
        check_resamples_play_on(Unconditioned(), states)
