"""Observation layouts: one flat float32 vector with named slices.

A game declares its observation once::

    layout = ObsLayout()
    layout.add("hand", (13,), high=2)
    layout.add("table_top", (52,), high=1)
    layout.freeze()

and then writes into ``obs[layout["hand"]]``; researchers read the same names
back with :meth:`ObsLayout.decode`. The layout also builds the gymnasium Box,
so bounds are stated in one place and ``Box.contains`` checks them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from gymnasium import spaces


@dataclass(frozen=True)
class Field:
    name: str
    shape: tuple[int, ...]
    start: int
    stop: int
    low: float
    high: float
    doc: str


class ObsLayout:
    """Named, bounded slices of a flat ``float32`` observation vector."""

    def __init__(self) -> None:
        self.fields: dict[str, Field] = {}
        self.size = 0
        self._frozen = False

    def add(self, name: str, shape: int | tuple[int, ...], low: float = 0.0,
            high: float = 1.0, doc: str = "") -> Field:
        if self._frozen:
            raise RuntimeError("layout is frozen")
        if name in self.fields:
            raise ValueError(f"duplicate observation field {name!r}")
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        n = int(np.prod(shape)) if shape else 1
        f = Field(name, shape, self.size, self.size + n, float(low), float(high), doc)
        self.fields[name] = f
        self.size += n
        return f

    def freeze(self) -> ObsLayout:
        self._frozen = True
        self.low = np.zeros(self.size, np.float32)
        self.high = np.zeros(self.size, np.float32)
        for f in self.fields.values():
            self.low[f.start:f.stop] = f.low
            self.high[f.start:f.stop] = f.high
        return self

    def __getitem__(self, name: str) -> slice:
        f = self.fields[name]
        return slice(f.start, f.stop)

    def box(self) -> spaces.Box:
        return spaces.Box(self.low, self.high, dtype=np.float32)

    def zeros(self) -> np.ndarray:
        return np.zeros(self.size, np.float32)

    def decode(self, obs: np.ndarray, names: tuple[str, ...] | None = None) -> dict[str, np.ndarray]:
        """Views of ``obs`` by field name, each in its declared shape; only ``names`` when
        given (agents on a hot path read a few of many fields)."""
        obs = np.asarray(obs)
        fields = self.fields.values() if names is None else [self.fields[n] for n in names]
        return {f.name: obs[f.start:f.stop].reshape(f.shape) for f in fields}

    def table(self) -> str:
        """A markdown table of the layout (for env docstrings and docs)."""
        rows = ["| slice | name | shape | range | meaning |", "|---|---|---|---|---|"]
        for f in self.fields.values():
            rows.append(f"| {f.start}:{f.stop} | `{f.name}` | {f.shape} | "
                        f"[{f.low:g}, {f.high:g}] | {f.doc} |")
        return "\n".join(rows)
