"""A trained sb3-contrib MaskablePPO policy as an Agent (needs the ``train`` extra)."""

from __future__ import annotations

from pathlib import Path

import numpy as np


class PolicyAgent:
    """Acts with a MaskablePPO model: deterministic by default, always within the mask."""

    def __init__(self, path: str | Path, env_id: str | None = None, seed: int | None = None,
                 deterministic: bool = True) -> None:
        path = Path(path)
        if not path.exists() and not path.with_suffix(".zip").exists():
            raise ValueError(f"no MaskablePPO model at {path}")
        import torch
        from sb3_contrib import MaskablePPO

        torch.set_num_threads(1)   # single observations: threads only add contention
        self.model = MaskablePPO.load(str(path), device="cpu")
        self.deterministic = deterministic
        self.name = f"ppo:{path.stem}"
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def act(self, observation: dict, agent_id: str) -> int:
        mask = observation["action_mask"].astype(bool)
        action, _ = self.model.predict(observation["observation"], action_masks=mask,
                                       deterministic=self.deterministic)
        return int(action)
