"""Test-session set-up shared by every test folder."""

from __future__ import annotations

import os
from pathlib import Path

# Each pytest-xdist worker keeps its own numba cache: two processes compiling the same
# kernels into one cache folder at once can leave an entry the other loads half-written.
# Kept between runs (a second run loads the kernels instead of compiling them).
if "NUMBA_CACHE_DIR" not in os.environ:
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    os.environ["NUMBA_CACHE_DIR"] = str(Path.home() / ".cache" / "baralho-numba" / worker)
