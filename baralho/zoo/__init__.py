"""The model zoo: one trained MaskablePPO policy per game, shipped in the package.

``baralho/zoo/<env_id>.zip`` is the policy and ``<env_id>.md`` its model card
(command, timesteps, wall time, win rates). Load one with the agent spec
``ppo`` (the zoo model of the env) or ``ppo:<env_id>``.
"""

from __future__ import annotations

from pathlib import Path

ZOO = Path(__file__).parent


def zoo_path(env_id: str) -> Path | None:
    path = ZOO / f"{env_id}.zip"
    return path if path.exists() else None


def available() -> list[str]:
    return sorted(p.stem for p in ZOO.glob("*.zip"))
