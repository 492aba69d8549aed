"""Random play at engine level and through the env, shared by the conformance tests."""

from __future__ import annotations

import numpy as np

import baralho


def random_action(mask: np.ndarray, rng: np.random.Generator) -> int:
    legal = np.flatnonzero(mask)
    assert len(legal) > 0, "a live state with no legal action (dead end)"
    return int(legal[rng.integers(len(legal))])


def positions(env_id: str, config: dict, games: int, seed: int = 0, every: int = 1):
    """Yield the state at every ``every``-th decision of random games (engine level)."""
    game = baralho.make(env_id, **config).unwrapped.game
    rng = np.random.default_rng(seed)
    k = 0
    for _ in range(games):
        state = game.new_state(rng)
        while not game.is_over(state):
            if k % every == 0:
                yield state
            k += 1
            game.apply(state, random_action(game.legal_mask(state), rng))


def check_hidden_information(game, states, limit: int = 150, seed: int = 11) -> int:
    """The hidden-information check on up to ``limit`` states; returns how many."""
    from baralho.core.game import state_key

    rng = np.random.default_rng(seed)
    checked = 0
    for state in states:
        if checked >= limit:
            break
        checked += 1
        key = state_key(state)
        actor = game.current_player(state)
        for p in range(game.num_players):
            obs = game.observe(state, p)
            hidden = game.has_hidden(state, p)
            changed = False
            for _ in range(30 if hidden else 3):
                seed = int(rng.integers(2**32))
                r = game.resample_hidden(state, p, np.random.default_rng(seed))
                # The draw may depend only on what p knows: from any state p cannot
                # tell apart, the same rng gives the same state. (Search agents rely
                # on it: their decisions cannot depend on the true hidden state.)
                alt = game.resample_hidden(state, p, np.random.default_rng(seed + 1))
                again = game.resample_hidden(alt, p, np.random.default_rng(seed))
                assert state_key(again) == state_key(r), (
                    "resample_hidden depends on the true hidden state, not only on what the player "
                    "knows: canonicalise the hidden pool (e.g. sort it) before shuffling")
                game.check_invariants(r)
                np.testing.assert_array_equal(game.observe(r, p), obs,
                                              err_msg=f"seat {p}'s observation changed under resampling")
                assert game.current_player(r) == actor
                if p == actor:
                    np.testing.assert_array_equal(game.legal_mask(r), game.legal_mask(state))
                changed |= state_key(r) != key
                if changed and hidden:
                    break
            assert state_key(state) == key, "resample_hidden mutated its input"
            if hidden:
                assert changed, f"has_hidden is True for seat {p} but 30 resamples changed nothing"
            else:
                assert not changed, f"has_hidden is False for seat {p} but a resample changed the state"
    return checked


def play_on_checked(game, state, seed: int, moves: int | None = None) -> int:
    """Random legal moves from ``state`` (to the end, or ``moves`` of them), the
    invariants after each; random_action fails on a live state without a move."""
    rng = np.random.default_rng(seed)
    game.check_invariants(state)
    steps = 0
    while not game.is_over(state) and (moves is None or steps < moves):
        game.apply(state, random_action(game.legal_mask(state), rng))
        game.check_invariants(state)
        steps += 1
    return steps


def check_resamples_play_on(game, states, limit: int = 60, seed: int = 4) -> int:
    """At up to ``limit`` states, for every seat that is not acting: the resample has
    the same actor, and random legal moves from it never meet a live state without a
    legal move (the first few resamples are played to the end, the others for a
    stretch), invariants checked after every move. Returns how many resamples."""
    rng = np.random.default_rng(seed)
    resamples = 0
    for k, state in enumerate(states):
        if k >= limit:
            break
        actor = game.current_player(state)
        for p in range(game.num_players):
            if p == actor:
                continue
            r = game.resample_hidden(state, p, np.random.default_rng(int(rng.integers(2**32))))
            assert game.current_player(r) == actor
            play_on_checked(game, r, seed=resamples, moves=None if resamples < 6 else 25)
            resamples += 1
    return resamples
