"""Test-session set-up shared by every test folder."""

from __future__ import annotations

import os
from pathlib import Path

# Each pytest-xdist worker keeps its own numba cache: two processes compiling the same
# kernels into one cache folder at once can leave an entry the other loads half-written.
# Kept between runs (a second run loads the kernels instead of compiling them). The
# controller's choice (ROOT/main) is inherited by the workers it starts: each replaces it
# with its own folder (a NUMBA_CACHE_DIR set by the user is left alone).
ROOT = Path.home() / ".cache" / "baralho-numba"
if os.environ.get("NUMBA_CACHE_DIR", str(ROOT / "main")) == str(ROOT / "main"):
    os.environ["NUMBA_CACHE_DIR"] = str(ROOT / os.environ.get("PYTEST_XDIST_WORKER", "main"))

# The engines in two halves of about equal compile time (empty cache, one core: Scala 40
# 37 s + Rodízio 15 s; Roda de Samba 29 s and about as much again for its made-up deck's
# layout, + Chuche 24 s), compiled at once by two processes before the workers start.
WARM_UP = (["scala40_v1", "rodizio_v1"], ["roda_de_samba_v1", "chuche_v1"])


def pytest_configure(config):
    """On the pytest-xdist controller (``-n N``, N > 0, the cache folders above): compile every
    engine once (tests/numba_warm_up.py, each half into its own folder), then copy both
    into each worker's folder. Without it each worker compiled every engine itself.
    BARALHO_NO_WARM_UP=1 skips it (a few tests of one game on an empty cache)."""
    workers = getattr(config.option, "numprocesses", None)
    if hasattr(config, "workerinput") or not isinstance(workers, int) or workers < 1 \
            or os.environ["NUMBA_CACHE_DIR"] != str(ROOT / "main") or os.environ.get("BARALHO_NO_WARM_UP"):
        return
    import shutil
    import subprocess
    import sys

    repo = Path(__file__).resolve().parents[1]
    folders = [ROOT / f"warm-up-{k}" for k in range(len(WARM_UP))]
    jobs = [subprocess.Popen([sys.executable, "-m", "tests.numba_warm_up", *half], cwd=repo,
                             env={**os.environ, "NUMBA_CACHE_DIR": str(folder)})
            for half, folder in zip(WARM_UP, folders)]
    if any([job.wait() for job in jobs]):      # the tests will say what fails; the workers compile for themselves
        print("tests/numba_warm_up.py failed: no warm-up", file=sys.stderr)
        return
    for k in range(workers):
        for folder in folders:
            shutil.copytree(folder, ROOT / f"gw{k}", dirs_exist_ok=True)
