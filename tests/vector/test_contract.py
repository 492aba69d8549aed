"""The baralho.vector contract, on every engine a game has."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import baralho.vector as bv


def random_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return (rng.random(mask.shape) * mask).argmax(1)


ENGINES = ["compiled", "reference"]


@pytest.mark.parametrize("engine", ENGINES)
def test_shapes_dtypes_and_auto_reset(engine):
    venv = bv.make("rodizio_v1", num_envs=16, seed=0, engine=engine, num_players=3, spicy=True)
    obs, mask, seat = venv.reset()
    assert obs.shape == (16, venv.obs_size) and obs.dtype == np.int16
    assert mask.shape == (16, 18) and mask.dtype == np.int8 and seat.dtype == np.int64
    space = venv.single_observation_space
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(60):
        obs, mask, seat, rewards, done = venv.step(random_actions(mask, rng))
        assert rewards.shape == (16, 3) and rewards.dtype == np.float32 and done.dtype == np.bool_
        assert all(space.contains(o) for o in obs) and mask.any(1).all()
        assert (rewards[~done] == 0).all() and np.isin(rewards[done], (-1.0, 1.0)).all()
        for i in np.flatnonzero(done):       # already re-dealt: the new game's first decision
            s = venv.get_state(i)
            assert s.round == 0 and seat[i] == 0 and not any(s.eaten) and sum(map(len, s.stacks)) == 15
        ended += done.sum()
    assert ended > 16


@pytest.mark.parametrize("engine", ENGINES)
def test_an_illegal_action_names_env_action_and_legal_ones_and_changes_no_env(engine):
    venv = bv.make("rodizio_v1", num_envs=8, seed=1, engine=engine)
    obs, mask, seat = venv.reset()
    before = [venv.get_state(i) for i in range(8)]
    actions = random_actions(mask, np.random.default_rng(0))
    bad = int(np.flatnonzero(mask[5] == 0)[0])
    actions[5] = bad
    with pytest.raises(bv.IllegalActionError, match=rf"illegal action {bad} .* in env 5 .*legal actions: "):
        venv.step(actions)
    assert [venv.get_state(i) for i in range(8)] == before
    again = venv.observe()
    assert all(np.array_equal(a, b) for a, b in zip(again, (obs, mask, seat)))
    actions[5] = 99
    with pytest.raises(ValueError, match="illegal action 99 .outside the action space. in env 5"):
        venv.step(actions)
    with pytest.raises(ValueError, match="shape"):
        venv.step(actions[:3])
    with pytest.raises(ValueError, match="integers"):
        venv.step(actions.astype(float))


@pytest.mark.parametrize("engine", ENGINES)
def test_set_state_then_observe_shows_it_and_get_state_round_trips(engine):
    import baralho

    game = baralho.make("rodizio_v1", engine="reference", num_players=2).unwrapped.game
    venv = bv.make("rodizio_v1", num_envs=4, seed=2, engine=engine, num_players=2)
    venv.reset()
    s = game.new_state(np.random.default_rng(9))
    game.apply(s, int(np.flatnonzero(game.legal_mask(s))[0]))
    venv.set_state(2, s)
    obs, mask, seat = venv.observe()
    assert venv.get_state(2) == s and seat[2] == s.seat
    assert np.array_equal(obs[2], game.observe(s, s.seat)) and np.array_equal(mask[2], game.legal_mask(s))
    with pytest.raises(IndexError, match="env index 4"):
        venv.get_state(4)


def _digest(engine: str, threads: int, seed: int) -> str:
    import hashlib

    venv = bv.make("rodizio_v1", num_envs=64, seed=seed, engine=engine, threads=threads, num_players=2)
    obs, mask, seat = venv.reset()
    rng = np.random.default_rng(0)
    h = hashlib.sha256(obs.tobytes())
    for _ in range(40):
        obs, mask, seat, rewards, done = venv.step(random_actions(mask, rng))
        h.update(obs.tobytes() + rewards.tobytes() + done.tobytes())
    return h.hexdigest()


def test_same_seed_same_batch_whatever_the_threads_and_the_process():
    one = _digest("compiled", 1, 3)
    assert one == _digest("compiled", 2, 3) and one != _digest("compiled", 1, 4)
    code = "from tests.vector.test_contract import _digest; print(_digest('compiled', 1, 3))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={"PYTHONHASHSEED": "123", **__import__("os").environ})
    assert out.stdout.strip() == one
    assert _digest("reference", 1, 3) == _digest("reference", 1, 3)


def test_bad_options_are_refused():
    from baralho.core.config import ConfigError

    for kw, match in ((dict(num_envs=0), "num_envs"), (dict(threads=0), "threads"),
                      (dict(engine="gpu"), "engine"), (dict(spicey=True), "spicy"),
                      (dict(num_players=7), "players")):
        with pytest.raises(ConfigError, match=match):
            bv.make("rodizio_v1", **{"num_envs": 2, **kw})
    import baralho.envs

    with pytest.MonkeyPatch.context() as mp:       # a game without a compiled engine
        mp.setattr(baralho.envs, "has_module", lambda env_id, role: role != "fast")
        with pytest.raises(ConfigError, match="no compiled engine"):
            bv.make("rodizio_v1", num_envs=2, engine="compiled")
    with pytest.raises(RuntimeError, match="reset"):
        bv.make("rodizio_v1", num_envs=2).step(np.zeros(2, int))


def test_every_game_runs_on_the_reference_loop():
    import baralho

    for env_id in baralho.ENV_IDS:
        venv = bv.make(env_id, num_envs=3, seed=0, engine="reference")
        obs, mask, seat = venv.reset()
        rng = np.random.default_rng(1)
        for _ in range(5):
            obs, mask, seat, rewards, done = venv.step(random_actions(mask, rng))
        assert obs.shape == (3, venv.obs_size) and mask.any(1).all()


def test_two_record_layouts_never_share_a_symbol_name_across_processes():
    """numba named a record type by a per-process counter, so two layouts (two player counts or
    decks) compiled in two processes got one name, and loaded together from the cache one ran
    the other's code (baralho.core.compiled names a record by its layout)."""
    code = ("import sys, numpy as np, baralho.core.compiled; from numba import typeof; "
            "from numba.core.itanium_mangler import mangle_type; "
            "print(mangle_type(typeof(np.zeros(1, [('x', np.int16, int(sys.argv[1]))])).dtype))")
    names = [subprocess.run([sys.executable, "-c", code, str(k)], capture_output=True, text=True,
                            check=True).stdout.strip() for k in (2, 3, 2)]
    assert names[0] != names[1] and names[0] == names[2]



def test_a_cached_kernel_is_out_of_date_when_any_source_of_its_engine_changes(tmp_path):
    """numba checks only the file a function is defined in: a cached Chuche ``step_one`` (fast.py)
    kept running the old rules after an edit of fast_rules.py, and the card values of an edited
    deck.json. A kernel's cache key holds the stamps of every module and data file of its game's
    folder and of baralho/core; here a copy of the folder is edited."""
    import shutil

    from baralho.core import batch, jit
    from baralho.envs.chuche import fast

    k = batch.kernels(fast).one
    k.dispatcher = k._build()
    cache = k.dispatcher._cache
    assert isinstance(cache, jit.KernelCache)
    folder, core = cache._stamp
    assert {"fast.py", "fast_rules.py", "cards.py", "deck.json"} <= {name for name, *_ in folder}
    assert {"batch.py", "jit.py"} <= {name for name, *_ in core}
    copy = tmp_path / "chuche"
    shutil.copytree(Path(fast.__file__).parent, copy, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("cards.py", "deck.json"):
        stamp = jit.folder_stamp.__wrapped__(copy)              # uncached
        (copy / name).write_text((copy / name).read_text() + "\n")
        assert jit.folder_stamp.__wrapped__(copy) != stamp, name


def test_a_rule_called_from_python_raises_instead_of_crashing():
    """The compiled rules are linked into the kernels and have no Python entry point: numba would
    jump to code that does not exist (a segfault); they refuse the call instead."""
    from baralho.core import fast_chance
    from baralho.envs.rodizio import fast

    with pytest.raises(TypeError, match="only inside compiled code"):
        fast_chance.seed_event(np.zeros(6, np.uint64), 1, 0)
    venv = bv.make("rodizio_v1", num_envs=2, seed=0)
    venv.reset()                                   # the rules compiled into a kernel: still refused
    with pytest.raises(TypeError, match="only inside compiled code"):
        fast.legal_mask(venv._records[0], None, np.zeros(18, np.int8))
