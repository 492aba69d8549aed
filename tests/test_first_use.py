"""First use of a compiled engine, in fresh processes with an empty numba cache: a notice when
a kernel compiles, the AEC env playing at once (the reference engine plays while the kernel
compiles in the background, then the same games go on compiled), nothing compiled twice across
processes, and a damaged cache file recompiled with a warning instead of failing every run."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

PLAY = """
import sys, time, numpy as np, baralho
t0, c0 = time.perf_counter(), time.thread_time()
env = baralho.make("rodizio_v1"); env.reset(seed=0)
print("first", time.thread_time() - c0, flush=True)     # this thread's CPU time: not the load's, not the compile's
ref = baralho.make("rodizio_v1", engine="reference")
rng = np.random.default_rng(0)
engines = []
for game in range(100_000):
    env.reset(seed=game); ref.reset(seed=game)
    for agent in env.agent_iter():
        obs, r, term, trunc, _ = env.last()
        obs2, r2, *_ = ref.last()
        assert (obs["observation"] == obs2["observation"]).all() and (obs["action_mask"] == obs2["action_mask"]).all()
        assert r == r2
        action = None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"])))
        env.step(action); ref.step(action)
    engines.append(env.unwrapped.game_state.records is not None)
    if engines[-1] and len(engines) > 50 or time.perf_counter() - t0 > 120:
        break
print("games", len(engines), "reference first", not engines[0], "compiled last", engines[-1], flush=True)
"""


def _run(code: str, cache: Path, **env) -> subprocess.CompletedProcess:
    base = {k: v for k, v in os.environ.items() if k != "BARALHO_COMPILE"}   # conftest sets it
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=300,
                          env={**base, "NUMBA_CACHE_DIR": str(cache), **env})


def test_the_aec_env_plays_at_once_and_moves_to_the_compiled_engine_when_it_is_ready(tmp_path):
    out = _run(PLAY, tmp_path)
    assert out.returncode == 0, out.stderr
    assert "compiling the Rodízio engine in the background" in out.stderr
    lines = dict(line.split(" ", 1) for line in out.stdout.splitlines())
    # no compile before the first move: a compile on this thread costs it seconds of CPU; its wall
    # time would also count the other test workers' load (a cold run of the suite compiles beside it)
    assert float(lines["first"]) < 3.0
    assert lines["games"].endswith("reference first True compiled last True"), lines
    again = _run(PLAY, tmp_path)                   # cached now: compiled from the first game, no notice
    assert again.returncode == 0, again.stderr
    assert "compiling" not in again.stderr
    assert dict(line.split(" ", 1) for line in again.stdout.splitlines())["games"].endswith(
        "reference first False compiled last True")


def test_a_vector_kernel_compiles_once_with_a_notice_and_a_damaged_cache_file_is_recompiled(tmp_path):
    code = ("import numpy as np, baralho.vector as bv; v = bv.make('rodizio_v1', 8, seed=0); "
            "o, m, s = v.reset(); v.step(m.argmax(1)); print('ok')")
    first = _run(code, tmp_path)
    assert first.returncode == 0 and "compiling the Rodízio batch engine" in first.stderr, first.stderr
    second = _run(code, tmp_path)
    assert second.returncode == 0 and "compiling" not in second.stderr, second.stderr
    damaged = [p for p in tmp_path.rglob("*.nbi") if "step_batch" in p.name]
    assert damaged
    for p in damaged + [p for p in tmp_path.rglob("*.nbc") if "step_batch" in p.name]:
        p.write_bytes(p.read_bytes()[:40])         # a run killed mid-write, a full disk
    third = _run(code, tmp_path)
    assert third.returncode == 0 and third.stdout.strip() == "ok", third.stderr
    assert "is damaged" in third.stderr and "compiling the Rodízio batch engine" in third.stderr
    fourth = _run(code, tmp_path)                 # rewritten: cached again
    assert fourth.returncode == 0 and "compiling" not in fourth.stderr and "damaged" not in fourth.stderr


@pytest.mark.parametrize("mode", ["foreground"])
def test_baralho_compile_foreground_compiles_before_the_first_move(tmp_path, mode):
    code = ("import numpy as np, baralho; e = baralho.make('rodizio_v1'); e.reset(seed=0); "
            "print(e.unwrapped.game_state.records is not None)")
    out = _run(code, tmp_path, BARALHO_COMPILE=mode)
    assert out.returncode == 0 and out.stdout.strip() == "True", out.stderr
    assert "compiling the Rodízio engine, first use only" in out.stderr


def test_a_data_file_of_the_engines_folder_is_part_of_its_cache_stamp(tmp_path):
    """A deck.json read into constants at import is compiled in: editing it must invalidate the
    compiled engine's cache, as editing a module does (the stamp covered only .py files)."""
    from baralho.core.jit import folder_stamp

    (tmp_path / "fast.py").write_text("X = 1\n")
    (tmp_path / "deck.json").write_text('{"cards": [1, 2, 3]}')
    before = folder_stamp(tmp_path)
    folder_stamp.cache_clear()
    (tmp_path / "deck.json").write_text('{"cards": [1, 2, 3, 4]}')
    assert folder_stamp(tmp_path) != before and "deck.json" in {name for name, *_ in before}
