"""Compiled engines against their references, move for move (baralho/vector/differential.py).

1,000 games per config in the default run (four chunks of 250); `python -m benchmarks.fuzz --differential`
plays 100,000 per game."""

from __future__ import annotations

import os

import numpy as np
import pytest

import baralho
import baralho.vector as bv
from baralho.envs import compiled_ids
from baralho.vector.differential import differential

GAMES = os.environ.get("BARALHO_DIFF_GAMES")
# Games per config in the default run: 1,000 for every game (issue 23), Scala 40 included, whose
# reference is the slowest (a hand ~200 decisions, a 2-player match ~370, about 3,300 checked
# moves a second per worker); BARALHO_DIFF_GAMES=N (or benchmarks.fuzz --differential) plays more.
DEFAULT_GAMES = 1000


def games_for(env_id: str) -> int:
    return int(GAMES) if GAMES else DEFAULT_GAMES


# a config's games run as chunks of 250 (each its own seed, so its own deals): no test item takes
# minutes, and pytest-xdist can spread one config's games over both workers
CHUNK = 250


def chunks(games: int) -> list[int]:
    n = max(1, games // CHUNK)
    return [games // n + (k < games % n) for k in range(n)]


def compiled_configs():
    for env_id in sorted(compiled_ids()):
        for cfg in baralho.env_module(env_id).TEST_CONFIGS:
            label = f"{env_id}[{','.join(f'{k}={v}' for k, v in cfg.items())}]"
            for k, games in enumerate(chunks(games_for(env_id))):
                yield pytest.param(env_id, cfg, games, 17 + k, id=f"{label}-{k}")


@pytest.mark.parametrize("env_id, config, games, seed", list(compiled_configs()))
def test_compiled_engine_plays_the_reference_game(env_id, config, games, seed):
    result = differential(env_id, config, games=games, batch=min(32, games), seed=seed)
    assert result["games"] >= games
    assert result["differences"] == 0, "\n".join(result["reports"])


def test_the_harness_sees_a_compiled_engine_that_drifts(monkeypatch):
    """Teeth: a compiled state that is off by one pizza point must be reported."""
    from baralho.vector.compiled import CompiledVector

    real = CompiledVector.set_state

    def drifting(self, i, state):
        real(self, i, state)
        if i == 3:
            self._records[i]["totals"][0] += 1

    monkeypatch.setattr(CompiledVector, "set_state", drifting)
    result = differential("rodizio_v1", {"num_players": 3}, games=20, batch=8, seed=1)
    assert result["differences"] > 0 and any("state" in r for r in result["reports"])


def test_compiled_deals_are_valid_and_uniform():
    """The vector's own deals (auto-reset) come from its splitmix streams, not the reference's
    Generator: every one must be a valid table, and the plaquinha's place and the plate pizzas
    must be uniform (chi-square, 4,096 deals)."""
    venv = bv.make("rodizio_v1", num_envs=4096, seed=5, num_players=3)
    venv.reset()
    game = venv.game
    places, plates = np.zeros(15), np.zeros(17)
    for i in range(venv.num_envs):
        s = venv.get_state(i)
        game.check_invariants(s)
        centre = [c for st in s.stacks for c in st]
        places[centre.index(17)] += 1
        plates[s.plates] += 1
    for counts in (places, plates):
        expected = counts.sum() / len(counts)
        chi2 = ((counts - expected) ** 2 / expected).sum()
        assert chi2 < 3 * len(counts), (chi2, counts)       # df 14 / 16: p < 1e-6 beyond this


def _off_by_one(value):
    """``value`` changed in one place: a number by one, a flag flipped, a list's first entry
    (an empty list gets one)."""
    if isinstance(value, bool):
        return not value
    if value is None or isinstance(value, (int, float)):
        return (value or 0) + 1
    if isinstance(value, (list, tuple)):
        return type(value)([_off_by_one(value[0]), *value[1:]] if value else [0])
    raise TypeError(type(value))


# the reference fields that are functions of the others (rebuilt by from_record, not compared
# by same_state: they show in the observation, and the full comparison runs at sampled steps)
DERIVED = {"roda_de_samba_v1": {"space_nums", "obs"},
           "scala40_v1": {"hand_f", "bits", "known_f", "discarded_f", "taken_f", "players_f", "table", "pub"}}


@pytest.mark.parametrize("env_id", sorted(compiled_ids()))
def test_same_state_sees_any_field_off_by_one(env_id):
    """Teeth for every fast module's same_state (the harness's every-step state check): the
    state loaded holds; the same state with any one field off by one does not."""
    import dataclasses

    from baralho.core.compiled import record_lists

    cfg = baralho.env_module(env_id).TEST_CONFIGS[-1]
    venv = bv.make(env_id, num_envs=1, seed=0, **cfg)
    venv.reset()
    game, fast = venv.game, venv.fast
    rng = np.random.default_rng(3)
    s = game.new_state(rng)
    for _ in range(12):                                  # a position some way into the game
        if not game.is_over(s):
            game.apply(s, int(rng.choice(np.flatnonzero(game.legal_mask(s)))))
    venv.set_state(0, s)
    assert venv.holds(0, s) and venv.get_state(0) == s
    fields = record_lists(venv._records[0])
    names = [f.name for f in dataclasses.fields(s) if f.name not in DERIVED.get(env_id, ())]
    assert len(names) >= 9
    for name in names:
        t = s.copy()
        setattr(t, name, _off_by_one(getattr(s, name)))
        assert not fast.same_state(fields, t, game), name
        assert not venv.holds(0, t), name
