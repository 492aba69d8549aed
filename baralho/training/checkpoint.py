"""The self-play run's checkpoint: ``out/checkpoint/`` holds the policy, the optimizer and the
run's counters, written after every evaluation; ``--resume`` continues from it.

Every file is written beside its place and renamed over it (a kill mid-write leaves the
previous file whole), ``counters.json`` last: a checkpoint with counters is complete. A file
that cannot be read is named, with what ``--resume`` needs; nothing in the run is deleted.
"""

from __future__ import annotations

import json
import os
from pathlib import Path


class DamagedCheckpoint(ValueError):
    """A checkpoint file that cannot be read (the message names it and the way out)."""


def _replace(path: Path, write) -> None:
    """``write(tmp)`` then rename over ``path``: readers see the old file or the new one."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.part")
    try:
        write(tmp)
        tmp.replace(path)
    finally:
        tmp.unlink(missing_ok=True)


def save_checkpoint(out: Path, policy, optimizer, counters: dict, cfg, run_id: str) -> None:
    import torch

    from baralho.agents.policy import save_policy

    ck = out / "checkpoint"
    ck.mkdir(parents=True, exist_ok=True)
    # tensors and numbers only: torch.load(weights_only=True) reads it back
    _replace(ck / "optimizer.pt", lambda tmp: torch.save(optimizer.state_dict(), tmp))
    save_policy(policy, ck / "policy", cfg.env_id, cfg.env_config, run_id=run_id, **counters["policy_card"])
    _replace(ck / "counters.json", lambda tmp: tmp.write_text(json.dumps(counters, indent=1)))


def _damaged(path: Path, err: Exception, out: Path) -> DamagedCheckpoint:
    return DamagedCheckpoint(
        f"--resume: {path} cannot be read ({type(err).__name__}: {err}); the run's other files are kept. "
        f"--resume needs a whole checkpoint (policy.json + policy.npz, optimizer.pt, counters.json, written "
        f"after every evaluation): restore that file, or start afresh with --overwrite --out {out} "
        f"(the policies in {out / 'pool'} stay usable as ppo:PATH)")


def load_checkpoint(out: Path, policy, optimizer, cfg) -> dict:
    """The checkpoint's policy and optimizer loaded into ``policy`` and ``optimizer``; its counters."""
    import torch

    from baralho.agents.policy import PolicyError, load_policy

    ck = out / "checkpoint"
    if not (ck / "counters.json").exists():
        raise ValueError(f"--resume: {out} has no checkpoint yet (it is written after every evaluation)")
    try:
        counters = json.loads((ck / "counters.json").read_text())
        if not isinstance(counters, dict) or not isinstance(counters.get("decisions"), int):
            raise ValueError("not the counters of a self-play run")
    except (OSError, UnicodeDecodeError, ValueError) as err:
        raise _damaged(ck / "counters.json", err, out) from None
    try:
        saved, _ = load_policy(ck / "policy", cfg.env_id, cfg.env_config)
    except PolicyError as err:
        raise _damaged(ck / "policy.json", err, out) from None
    policy.load_state_dict(saved.state_dict())
    try:
        optimizer.load_state_dict(torch.load(ck / "optimizer.pt", weights_only=True))
    except Exception as err:      # torch raises RuntimeError, EOFError, UnpicklingError, KeyError... on a bad file
        raise _damaged(ck / "optimizer.pt", err, out) from None
    for group in optimizer.param_groups:      # this invocation's --learning-rate, not the saved one
        group["lr"] = cfg.learning_rate
    return counters
