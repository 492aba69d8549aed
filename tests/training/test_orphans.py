"""Issue 26.6: a tournament's pool workers die with its main process."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="reads /proc (Linux)")

SCRIPT = textwrap.dedent("""
    import sys
    from baralho.training import tournament as T
    T.run("rodizio_v1", ["random", "ismcts:40"], games=400, num_players=2, workers=2, progress=False,
          records_dir=sys.argv[1])
""")


def children(pid: int) -> list[int]:
    kids = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        kids += [int(k) for k in (task / "children").read_text().split()]
    return kids


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state not in ("Z", "X")


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_workers_die_with_the_main_process(tmp_path, sig):
    main = subprocess.Popen([sys.executable, "-c", SCRIPT, str(tmp_path)], cwd=os.getcwd())
    workers: list[int] = []
    try:
        deadline = time.time() + 120
        while not list(tmp_path.glob("rodizio_v1_*.json")) or len(children(main.pid)) < 2:
            assert main.poll() is None and time.time() < deadline, "the tournament did not start"
            time.sleep(0.2)
        workers = children(main.pid)
        main.send_signal(sig)
        main.wait(30)
        deadline = time.time() + 10
        while any(alive(w) for w in workers) and time.time() < deadline:
            time.sleep(0.2)
        assert not [w for w in workers if alive(w)], "pool workers outlived the tournament"
        written = len(list(tmp_path.glob("rodizio_v1_*.json")))
        time.sleep(1.5)
        assert len(list(tmp_path.glob("rodizio_v1_*.json"))) == written     # nobody records on
    finally:                    # a failed run leaves nothing behind: its own processes, by id
        if main.poll() is None:
            main.kill()
            main.wait()
        for w in workers:
            if alive(w):
                os.kill(w, signal.SIGKILL)
