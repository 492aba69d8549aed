"""Game records: a small JSON file that replays a game exactly.

    {"format": "baralho-record", "version": 1, "baralho": "0.1.0",
     "env_id": "rodizio_v1", "config": {...}, "seed": 7,
     "players": ["random", "heuristic"], "actions": [2, 0, 1, ...],
     "returns": [1.0, -1.0], "digest": "<sha256 of the whole trajectory>"}

``replay`` rebuilds the env from the record and plays its actions; a record
whose actions are illegal, whose length or returns differ, or whose digest
does not match the trajectory (an edited file, another baralho version) is
refused with a ``RecordError`` that says where it diverged. The digest is a
checksum, not a signature: it catches damaged and hand-edited files and other
versions, but a record rewritten to other legal moves with its digest and returns
recomputed replays; only re-running the agents (``tournament --resume --verify``)
tells the moves are theirs.

A record's config never makes replay read a path: a custom deck is recorded by
the SHA-256 of its file (``"deck": "sha256:..."``) and replay reads it only from a
file the user names (``replay(rec, deck=PATH)``, ``baralho replay --deck PATH``),
checked against that hash. Display options (``render_mode``, ``render_view``) are
not part of a record.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import baralho

FORMAT, VERSION = "baralho-record", 1
DISPLAY_KEYS = ("render_mode", "render_view")      # not the game's: never recorded
MAX_RECORD_BYTES = 64 << 20
MAX_DECK_BYTES = 1 << 20
DECK_HASH = re.compile(r"sha256:[0-9a-f]{64}")


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
        # written whole then renamed: a run killed mid-write leaves no truncated record behind;
        # the temporary name is unique, so two writers never share one
        path = Path(path)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
        try:
            with os.fdopen(fd, "w") as f:
                f.write(json.dumps(self.to_json(), separators=(",", ":")))
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        return path


def deck_digest(path: str | Path) -> str:
    """``sha256:<hex>`` of a deck file the user named (a regular file of at most 1 MB)."""
    path = Path(path)
    try:
        if not path.is_file() or path.stat().st_size > MAX_DECK_BYTES:
            raise RecordError(f"deck {path}: not a regular file of at most {MAX_DECK_BYTES} bytes")
        return "sha256:" + hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError as err:
        raise RecordError(f"deck {path}: cannot be read ({err.strerror or err})") from None


def recorded_config(config: dict) -> dict:
    """The config as a record keeps it: no display options, a custom deck by its hash."""
    out = {k: v for k, v in config.items() if k not in DISPLAY_KEYS}
    if isinstance(out.get("deck"), str) and not DECK_HASH.fullmatch(out["deck"]):
        out["deck"] = deck_digest(out["deck"])
    return out


def env_config(rec: Record, deck: str | Path | None = None) -> dict:
    """The config that rebuilds ``rec``'s env: its deck (if any) read only from ``deck``,
    the file the user names, after checking it is the recorded one."""
    config = dict(rec.config)
    recorded = config.get("deck")
    if recorded is None:
        if deck is not None:
            raise RecordError("the record was played with the bundled deck; drop --deck")
        return config
    if not (isinstance(recorded, str) and DECK_HASH.fullmatch(recorded)):
        raise RecordError(f"the record's config names its deck as {recorded!r}, not by content hash "
                          f"(sha256:...); a record never makes replay read a path")
    if deck is None:
        raise RecordError(f"the record was played with a custom deck ({recorded}); name its file with --deck PATH")
    if deck_digest(deck) != recorded:
        raise RecordError(f"deck {deck} is not the record's deck (its hash differs from {recorded})")
    config["deck"] = str(deck)
    return config


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
    rec = Record(env_id, recorded_config(config), seed, players=list(players or []))
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
    rec.returns = env.unwrapped.returns().tolist()
    rec.digest = h.hexdigest()
    return rec


def _int(value) -> int:
    if type(value) is not int:      # not "2", 2.9, 2.0 or True: a record is written with ints
        raise TypeError(f"{value!r} is not an integer")
    return value


def _number(value) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise TypeError(f"{value!r} is not a finite number")
    return float(value)


def _list(value) -> list:
    if not isinstance(value, list):
        raise TypeError(f"{value!r} is not a list")
    return value


def load(path: str | Path) -> Record:
    path = Path(path)
    try:
        if not path.is_file() or path.stat().st_size > MAX_RECORD_BYTES:
            raise RecordError(f"{path}: not a regular file of at most {MAX_RECORD_BYTES} bytes")
        data = json.loads(path.read_bytes().decode("utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError) as err:
        reason = "nested too deeply" if isinstance(err, RecursionError) else err
        raise RecordError(f"{path}: not a readable JSON game record ({reason})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise RecordError(f"{path}: not a baralho game record (format {data.get('format')!r})"
                          if isinstance(data, dict) else f"{path}: not a baralho game record")
    if data.get("version") != VERSION:
        raise RecordError(f"{path}: record format version {data.get('version')!r}, this baralho reads {VERSION}")
    try:
        if not isinstance(data["config"], dict) or not isinstance(data["digest"], str) \
                or not all(isinstance(p, str) for p in _list(data.get("players", []))):
            raise TypeError("config must be an object, digest a string, players strings")
        rec = Record(data["env_id"], dict(data["config"]), _int(data["seed"]),
                     [_int(a) for a in _list(data["actions"])], [_number(r) for r in _list(data["returns"])],
                     list(data.get("players", [])), data["digest"])
    except (KeyError, TypeError, ValueError) as err:
        raise RecordError(f"{path}: malformed record ({err})") from None
    if rec.env_id not in baralho.ENV_IDS:
        raise RecordError(f"{path}: unknown env id {rec.env_id!r}")
    shown = [k for k in rec.config if k in DISPLAY_KEYS]
    if shown:
        raise RecordError(f"{path}: the record's config holds display options {shown}, which a record never has")
    return rec


def replay(rec: Record, render_mode: str | None = None, deck: str | Path | None = None) -> Iterator:
    """Replay a record step by step, yielding the env after every move; raise
    RecordError at the first divergence. ``deck``: the file of the record's custom deck."""
    config = env_config(rec, deck)
    try:
        env = baralho.make(rec.env_id, render_mode=render_mode, **{k: v for k, v in config.items()
                                                                   if k not in DISPLAY_KEYS})
    except (ValueError, TypeError) as err:
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
        penalized = env.unwrapped.illegal_action == "penalize"   # an illegal move ends such a game
        if not 0 <= action < len(obs["action_mask"]) or not (obs["action_mask"][action] or penalized):
            raise RecordError(f"move {k}: action {action} is not legal for {agent} here (edited record, "
                              f"or recorded by another baralho version)")
        _hash_step(h, env)
        h.update(action.to_bytes(4, "little"))
        env.step(action)
        yield env
    if next(moves, None) is not None:
        raise RecordError(f"the game ended but the record has {len(rec.actions)} moves")
    returns = env.unwrapped.returns().tolist()
    if returns != rec.returns:
        raise RecordError(f"returns differ: record {rec.returns}, replay {returns}")
    if h.hexdigest() != rec.digest:
        raise RecordError("trajectory digest differs: the record was edited or made by another baralho version")


def to_images(rec: Record, path: str | Path, every: int = 1, view: str | int = "omniscient",
              deck: str | Path | None = None) -> Path:
    """Replay ``rec`` into a GIF (``.gif``) or a PNG strip of frames (``.png``), a frame
    every ``every`` moves (the first and last always). Needs Pillow."""
    from PIL import Image

    if type(every) is not int or every < 1:
        raise ValueError(f"every={every!r} must be an integer >= 1 (a frame every N moves)")
    frames = []
    env = None
    for k, env in enumerate(replay(rec, render_mode="rgb_array", deck=deck)):
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
