"""Test-session set-up shared by every test folder."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# Each pytest-xdist worker keeps its own numba cache: two processes compiling the same
# kernels into one cache folder at once can leave an entry the other loads half-written.
# Kept between runs (a second run loads the kernels instead of compiling them). The
# controller's choice (ROOT/main) is inherited by the workers it starts: each replaces it
# with its own folder (a NUMBA_CACHE_DIR set by the user is left alone).
ROOT = Path.home() / ".cache" / "baralho-numba"
if os.environ.get("NUMBA_CACHE_DIR", str(ROOT / "main")) == str(ROOT / "main"):
    os.environ["NUMBA_CACHE_DIR"] = str(ROOT / os.environ.get("PYTEST_XDIST_WORKER", "main"))

# The AEC env compiles its kernel before the first move (not in the background, playing on the
# reference engine meanwhile): the warm-up fills the cache, and tests read compiled states
# (tests/test_first_use.py checks the background compile in processes of its own).
os.environ.setdefault("BARALHO_COMPILE", "foreground")

# The engines in two halves of equal compile time (measured alone, empty cache, one core:
# Scala 40 34 s + Roda de Samba 30 s; Rodízio 16 s + Chuche 25 s + Roda de Samba's made-up
# deck, another record layout, 24 s), compiled at once by two processes.
WARM_UP = (["scala40_v1", "roda_de_samba_v1"], ["rodizio_v1", "chuche_v1", "roda_de_samba_v1/made_up"])


def pytest_configure(config):
    """On the pytest-xdist controller (``-n N``, N > 0, the cache folders above): compile every
    engine once (tests/numba_warm_up.py, each half into its own folder) while the workers
    start and collect, then copy both folders into each worker's; a worker waits for that
    before its first test (:func:`pytest_collection_finish`). Without it each worker compiled
    every engine itself. BARALHO_NO_WARM_UP=1 skips it (a few tests of one game, say)."""
    workers = getattr(config.option, "numprocesses", None)
    if hasattr(config, "workerinput") or not isinstance(workers, int) or workers < 1 \
            or os.environ["NUMBA_CACHE_DIR"] != str(ROOT / "main") or os.environ.get("BARALHO_NO_WARM_UP"):
        return
    import shutil
    import subprocess
    import sys
    import threading

    repo = Path(__file__).resolve().parents[1]
    folders = [ROOT / f"warm-up-{k}" for k in range(len(WARM_UP))]
    ready = ROOT / f"warm-up-ready-{os.getpid()}"
    ready.unlink(missing_ok=True)
    os.environ["BARALHO_WARM_UP_READY"] = str(ready)      # the workers, started after this hook, inherit it
    jobs = [subprocess.Popen([sys.executable, "-m", "tests.numba_warm_up", *half], cwd=repo,
                             env={**os.environ, "NUMBA_CACHE_DIR": str(folder)})
            for half, folder in zip(WARM_UP, folders)]

    def finish() -> None:
        failed = any([job.wait() for job in jobs])
        if failed:           # the tests will say what fails; the workers compile for themselves
            print("tests/numba_warm_up.py failed: no warm-up", file=sys.stderr)
        else:
            for k in range(workers):
                for folder in folders:
                    shutil.copytree(folder, ROOT / f"gw{k}", dirs_exist_ok=True)
        ready.write_text("failed" if failed else "ok")      # written after the copies: the workers' signal

    threading.Thread(target=finish, daemon=True).start()


def pytest_collection_finish(session):
    """On a worker: wait for the controller's warm-up (its copy into this worker's cache folder)."""
    import time

    ready = os.environ.get("BARALHO_WARM_UP_READY")
    if ready and hasattr(session.config, "workerinput"):
        deadline = time.monotonic() + 1800
        while not Path(ready).exists() and time.monotonic() < deadline:
            time.sleep(0.2)


def pytest_unconfigure(config):
    ready = os.environ.get("BARALHO_WARM_UP_READY")
    if ready and not hasattr(config, "workerinput"):
        Path(ready).unlink(missing_ok=True)


@pytest.fixture
def empty_zoo(tmp_path, monkeypatch):
    """A zoo with no v1 policy: every game ships one, so this stands for a game without one."""
    import baralho.zoo

    monkeypatch.setattr(baralho.zoo, "V1", tmp_path)
