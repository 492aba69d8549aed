"""The batched engines (baralho.vector): steps/s by batch size, memory per env, JIT compile time.

    python -m benchmarks.vector [--seconds 2] [--envs rodizio_v1]

Random legal play: the actions are drawn in numpy from the returned masks (uniform over the
legal ones: argmax of uniform noise times the mask) and that draw is counted in the time, as a
learner's sampling would be. One core (threads=1)."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

import baralho
import baralho.vector as bv
from baralho.envs import compiled_ids

BATCHES = (1, 64, 1024, 4096, 16384)


def run_vector(env_id: str, config: dict, batch: int, seconds: float, seed: int = 0) -> float:
    """steps/s (env decisions) of random legal play on ``batch`` envs."""
    venv = bv.make(env_id, num_envs=batch, seed=seed, **config)
    obs, mask, seat = venv.reset()
    rng = np.random.default_rng(seed)
    for _ in range(3):                                   # warm-up (compiled on first call)
        obs, mask, seat, rewards, done = venv.step((rng.random(mask.shape, np.float32) * mask).argmax(1))
    steps = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        for _ in range(8):
            obs, mask, seat, rewards, done = venv.step((rng.random(mask.shape, np.float32) * mask).argmax(1))
        steps += 8 * batch
    return steps / (time.perf_counter() - start)


def memory_per_env(env_id: str, config: dict) -> dict:
    venv = bv.make(env_id, num_envs=1, seed=0, **config)
    state = venv.memory_per_env()
    obs = venv.obs_size * np.dtype(venv.obs_dtype).itemsize
    return dict(state=state, obs=obs, total=state + obs + venv.num_actions + 8 + 4 * venv.num_players + 1)


_COMPILE = """
import time; t = time.perf_counter()
import numpy as np, baralho.vector as bv
venv = bv.make({env_id!r}, num_envs=4, seed=0, **{config!r})
obs, mask, seat = venv.reset()
venv.step((np.random.default_rng(0).random(mask.shape) * mask).argmax(1)); venv.observe()
print(time.perf_counter() - t)
"""


def compile_seconds(env_id: str, config: dict) -> tuple[float, float]:
    """(first use with an empty numba cache, then with the cache it wrote): import + make +
    reset + one step, each in a fresh process."""
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        code = _COMPILE.format(env_id=env_id, config=config)
        times = [float(subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                                      check=True).stdout.strip().splitlines()[-1]) for _ in range(2)]
    return times[0], times[1]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=2.0)
    ap.add_argument("--envs", nargs="*", default=sorted(compiled_ids()), choices=sorted(compiled_ids()))
    args = ap.parse_args(argv)
    for env_id in args.envs:
        cfg = baralho.env_module(env_id).TEST_CONFIGS[0]
        for b in BATCHES:
            print(f"{env_id} batch {b}: {run_vector(env_id, cfg, b, args.seconds):,.0f} steps/s")
        print("memory per env", memory_per_env(env_id, cfg), "compile s", compile_seconds(env_id, cfg))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
