"""One progress-bar style for every long command (rich), with lines printed above it.

``baralho train`` shows the warm start and PPO's learning with the same bar as
``baralho tournament``, and prints its evaluations while the bar runs; SB3's own
progress bar (tqdm.rich) and tqdm are not used, so the styles do not mix.
"""

from __future__ import annotations

from typing import Any


class Bar:
    """A rich progress bar, or plain prints when disabled (``--quiet``): a context
    manager with ``advance(n)`` and ``print(line)`` (above the bar while it runs)."""

    def __init__(self, label: str, total: int, enabled: bool = True, unit: str = "") -> None:
        self.label, self.total, self.enabled, self.unit = label, total, enabled, unit
        self._bar: Any = None

    def __enter__(self) -> Bar:
        if self.enabled:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

            self._bar = Progress("[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(),
                                 TimeRemainingColumn())
            self._bar.__enter__()
            self._task = self._bar.add_task(self.label + (f" ({self.unit})" if self.unit else ""), total=self.total)
        return self

    def advance(self, n: int = 1) -> None:
        if self._bar is not None:
            self._bar.advance(self._task, n)

    def print(self, line: str) -> None:
        if self._bar is not None:
            self._bar.console.print(line, markup=False, highlight=False)
        elif self.enabled:
            print(line, flush=True)

    def __exit__(self, *exc) -> bool:
        if self._bar is not None:
            self._bar.__exit__(*exc)
            self._bar = None
        return False


def sb3_progress(bar: Bar):
    """An SB3 callback advancing ``bar`` by the env steps of every step call."""
    from stable_baselines3.common.callbacks import BaseCallback

    class Advance(BaseCallback):
        def _on_step(self) -> bool:
            bar.advance(self.training_env.num_envs)
            return True

    return Advance()
