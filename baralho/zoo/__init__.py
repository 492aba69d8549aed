"""The model zoo: one trained MaskablePPO policy per game, shipped in the package.

``baralho/zoo/<env_id>.zip`` is the policy and ``<env_id>.md`` its model card
(command, timesteps, wall time, win rates). Load one with the agent spec
``ppo`` (the zoo model of the env) or ``ppo:<env_id>``.

``v0/`` keeps the model cards of the v0 policies for the record. Their weights
are not shipped: they were trained on v0 observations, which v1 changed, so no
v1 env can use them; ``ppo`` on a v1 env without a zoo model says so.
"""

from __future__ import annotations

from pathlib import Path

ZOO = Path(__file__).parent


def zoo_path(env_id: str) -> Path | None:
    path = ZOO / f"{env_id}.zip"
    return path if path.exists() else None


def available() -> list[str]:
    return sorted(p.stem for p in ZOO.glob("*.zip"))


def export(model: str | Path, out: str | Path) -> Path:
    """Save a MaskablePPO zip for shipping: the same policy without Adam's moment estimates
    (two extra copies of every weight), so it loads and acts identically at a third of the size.
    Needs the ``train`` extra."""
    from sb3_contrib import MaskablePPO

    loaded = MaskablePPO.load(str(model), device="cpu")
    loaded.policy.optimizer.state.clear()      # keep param_groups: load() still finds an optimizer
    out = Path(out)
    loaded.save(out)
    return out.with_suffix(".zip")
