"""Game records: a small JSON file that replays a game exactly.

    {"format": "baralho-record", "version": 1, "baralho": "0.1.0",
     "env_id": "rodizio_v1", "config": {...}, "seed": 7,
     "players": ["random", "heuristic"], "actions": [2, 0, 1, ...],
     "returns": [1.0, -1.0], "digest": "<sha256 of the whole trajectory>"}

``replay`` rebuilds the env from the record and plays its actions; a record
whose actions are illegal, whose length or returns differ, or whose digest
does not match the trajectory (an edited file, another baralho version) is
refused with a ``RecordError`` that says where it diverged.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import baralho

FORMAT, VERSION = "baralho-record", 1


class RecordError(ValueError):
    """A game record that cannot be replayed exactly."""


@dataclass
class Record:
    env_id: str
    config: dict
    seed: int
    actions: list[int] = field(default_factory=list)
    returns: list[float] = field(default_factory=list)
    players: list[str] = field(default_factory=list)
    digest: str = ""

    def to_json(self) -> dict:
        return {"format": FORMAT, "version": VERSION, "baralho": baralho.__version__, "env_id": self.env_id,
                "config": self.config, "seed": self.seed, "players": self.players, "actions": self.actions,
                "returns": self.returns, "digest": self.digest}

    def save(self, path: str | Path) -> Path:
        # written whole then renamed: a run killed mid-write leaves no truncated record behind
        path = Path(path)
        tmp = path.with_name(path.name + ".part")
        tmp.write_text(json.dumps(self.to_json(), separators=(",", ":")))
        os.replace(tmp, path)
        return path


def _hash_step(h, env) -> None:
    agent = env.agent_selection
    obs = env.observe(agent)
    h.update(agent.encode())
    h.update(obs["observation"].tobytes())
    h.update(obs["action_mask"].tobytes())


def play_and_record(env_id: str, config: dict, seed: int, choose: Callable, players: list[str] | None = None,
                    env=None) -> Record:
    """Play one game, choosing moves with ``choose(env, agent, obs) -> action``."""
    env = env or baralho.make(env_id, **config)
    env.reset(seed=seed)
    rec = Record(env_id, dict(config), seed, players=list(players or []))
    h = hashlib.sha256()
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        _hash_step(h, env)
        action = int(choose(env, agent, obs))
        rec.actions.append(action)
        h.update(action.to_bytes(4, "little"))
        env.step(action)
    rec.returns = env.unwrapped.game.returns(env.unwrapped.game_state).tolist()
    rec.digest = h.hexdigest()
    return rec


def load(path: str | Path) -> Record:
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, json.JSONDecodeError) as err:
        raise RecordError(f"{path}: not a readable JSON game record ({err})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise RecordError(f"{path}: not a baralho game record (format {data.get('format')!r})"
                          if isinstance(data, dict) else f"{path}: not a baralho game record")
    if data.get("version") != VERSION:
        raise RecordError(f"{path}: record format version {data.get('version')!r}, this baralho reads {VERSION}")
    try:
        rec = Record(str(data["env_id"]), dict(data["config"]), int(data["seed"]),
                     [int(a) for a in data["actions"]], [float(r) for r in data["returns"]],
                     list(data.get("players", [])), str(data["digest"]))
    except (KeyError, TypeError, ValueError) as err:
        raise RecordError(f"{path}: malformed record ({err!r})") from None
    if rec.env_id not in baralho.ENV_IDS:
        raise RecordError(f"{path}: unknown env id {rec.env_id!r}")
    return rec


def replay(rec: Record, render_mode: str | None = None) -> Iterator:
    """Replay a record step by step, yielding the env after every move; raise
    RecordError at the first divergence."""
    try:
        env = baralho.make(rec.env_id, render_mode=render_mode, **rec.config)
    except ValueError as err:
        raise RecordError(f"record config does not build the env: {err}") from None
    env.reset(seed=rec.seed)
    h = hashlib.sha256()
    moves = iter(enumerate(rec.actions))
    yield env
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        step = next(moves, None)
        if step is None:
            raise RecordError(f"record ends after {len(rec.actions)} moves but the game goes on")
        k, action = step
        if not 0 <= action < len(obs["action_mask"]) or not obs["action_mask"][action]:
            raise RecordError(f"move {k}: action {action} is not legal for {agent} here (edited record, "
                              f"or recorded by another baralho version)")
        _hash_step(h, env)
        h.update(action.to_bytes(4, "little"))
        env.step(action)
        yield env
    if next(moves, None) is not None:
        raise RecordError(f"the game ended but the record has {len(rec.actions)} moves")
    returns = env.unwrapped.game.returns(env.unwrapped.game_state).tolist()
    if returns != rec.returns:
        raise RecordError(f"returns differ: record {rec.returns}, replay {returns}")
    if h.hexdigest() != rec.digest:
        raise RecordError("trajectory digest differs: the record was edited or made by another baralho version")


def to_images(rec: Record, path: str | Path, every: int = 1, view: str | int = "omniscient") -> Path:
    """Replay ``rec`` into a GIF (``.gif``) or a PNG strip of frames (``.png``), a frame
    every ``every`` moves (the first and last always). Needs Pillow."""
    from PIL import Image

    frames = []
    env = None
    for k, env in enumerate(replay(rec, render_mode="rgb_array")):
        env.unwrapped.render_view = view
        if k % every == 0:
            frames.append(Image.fromarray(env.render()))
    if env is not None and (len(rec.actions) % every):
        frames.append(Image.fromarray(env.render()))
    path = Path(path)
    if path.suffix.lower() == ".gif":
        frames[0].save(path, save_all=True, append_images=frames[1:], duration=600, loop=0)
    else:
        cols = min(4, len(frames))
        w, h = frames[0].size
        sheet = Image.new("RGB", (w * cols, h * -(-len(frames) // cols)), (0, 0, 0))
        for i, f in enumerate(frames):
            sheet.paste(f, ((i % cols) * w, (i // cols) * h))
        sheet.save(path)
    return path
