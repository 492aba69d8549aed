"""baralho's benchmarks: ``python -m benchmarks`` (see __main__.py)."""

from __future__ import annotations

import subprocess
from pathlib import Path


def git_head() -> str:
    """The short commit the benchmarks ran on ("unknown" outside a git checkout)."""
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                              cwd=Path(__file__).parent, timeout=10).stdout.strip() or "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"
