"""Each compiled heuristic (a game's fast_heuristic.py) makes heuristic.py's move, every time.

Both play in lockstep on a batch of the compiled engine: env ``i``'s Python heuristic is
``heuristic_for(env_id, game, seed=s_i)`` and the batch's env ``i`` is reset with ``s_i``;
at every decision both are asked, the moves must be equal, and a share of the moves
played are random legal ones instead (other positions than the heuristic reaches, and a
plan kept across a turn broken off: both then forget it). Every config of TEST_CONFIGS."""

from __future__ import annotations

import numpy as np
import pytest

import baralho
import baralho.vector as bv
from baralho.agents import heuristic_for
from baralho.envs import ENV_IDS, game_module, has_module
from baralho.vector.heuristic import BatchHeuristic, forget
from tests.roda_de_samba.made_up_deck import write_made_up_deck

CASES = [(env_id, config) for env_id in sorted(e for e in ENV_IDS if has_module(e, "fast_heuristic"))
         for config in baralho.env_module(env_id).TEST_CONFIGS]
# decisions per config in the default run (a fast module's HEURISTIC_DECISIONS may lower it)
DECISIONS = 6_000


def lockstep(env_id: str, config: dict, decisions: int, batch: int = 32, seed: int = 0,
             random_share: float = 0.2) -> int:
    """Play until ``decisions`` heuristic decisions were compared; returns games finished."""
    venv = bv.make(env_id, batch, seed, **config)
    obs, mask, seat = venv.reset()
    fast = BatchHeuristic(venv.game, batch, engine="compiled")
    seeds = 1000 * seed + np.arange(batch)
    fast.reset(np.arange(batch), seeds)
    slow = [heuristic_for(env_id, venv.game, seed=int(s)) for s in seeds]
    rng = np.random.default_rng(seed)
    compared = finished = 0
    games = seeds.copy()
    everyone = np.arange(batch)
    while compared < decisions:
        got = fast.act(everyone, obs, mask)
        for i in range(batch):
            want = slow[i].act({"observation": obs[i], "action_mask": mask[i]}, f"player_{seat[i]}")
            assert got[i] == want, (f"{env_id} {config} env {i} (heuristic seed {games[i]}), decision "
                                    f"{compared + i}: compiled {got[i]}, heuristic.py {want}")
        compared += batch
        action = got.copy()
        swap = rng.random(batch) < random_share
        random_moves = (rng.random(mask.shape) * mask).argmax(1)
        action[swap] = random_moves[swap]
        changed = np.flatnonzero(action != got)
        fast.forget(changed)
        for i in changed:
            forget(slow[i])
        obs, mask, seat, rewards, done = venv.step(action)
        for i in np.flatnonzero(done):              # a new game: a new seed for both
            games[i] += batch * 1000
            fast.reset([i], [games[i]])
            slow[i].reset(seed=int(games[i]))
            forget(slow[i])
        finished += int(done.sum())
    return finished


@pytest.mark.parametrize("env_id,config", CASES, ids=[f"{e}-{c}" for e, c in CASES])
def test_compiled_heuristic_moves_as_heuristic_py(env_id, config):
    module = game_module(env_id, "fast_heuristic")
    lockstep(env_id, config, getattr(module, "HEURISTIC_DECISIONS", DECISIONS))


@pytest.mark.slow
@pytest.mark.parametrize("env_id,config", CASES, ids=[f"{e}-{c}" for e, c in CASES])
def test_compiled_heuristic_long(env_id, config):
    assert lockstep(env_id, config, 200_000, batch=128, seed=1) > 0


def test_compiled_roda_de_samba_heuristic_on_a_made_up_deck(tmp_path):
    """Roda de Samba's card list is a data file: the compiled heuristic takes every table of it
    from the game (heuristic_tables), so it plays another deck's counts as heuristic.py does."""
    deck = write_made_up_deck(tmp_path / "made_up.json")
    lockstep("roda_de_samba_v1", dict(num_players=3, deck=deck), 3_000)


def test_batch_heuristic_on_the_reference_loop_is_heuristic_py():
    """engine='reference' (any game without a compiled twin) is a loop over heuristic.py."""
    venv = bv.make("chuche_v1", 8, 3, num_players=3)
    obs, mask, seat = venv.reset()
    batch = BatchHeuristic(venv.game, 8, seed=40, engine="reference")
    slow = [heuristic_for("chuche_v1", venv.game, seed=40 + i) for i in range(8)]
    for _ in range(50):
        got = batch.act(np.arange(8), obs, mask)
        want = [slow[i].act({"observation": obs[i], "action_mask": mask[i]}, "") for i in range(8)]
        assert got.tolist() == want
        obs, mask, seat, _, _ = venv.step(got)


def test_act_on_a_subset_reads_those_rows_only():
    venv = bv.make("rodizio_v1", 16, 0, num_players=3, spicy=True)
    obs, mask, _ = venv.reset()
    a = BatchHeuristic(venv.game, 16, seed=9)
    b = BatchHeuristic(venv.game, 16, seed=9)
    some = np.array([3, 7, 11])
    assert a.act(some, obs, mask).tolist() == b.act(np.arange(16), obs, mask)[some].tolist()
    assert a.act(np.array([], np.int64), obs, mask).shape == (0,)
    with pytest.raises(ValueError, match="no compiled heuristic|must be"):
        BatchHeuristic(venv.game, 2, engine="fast")
