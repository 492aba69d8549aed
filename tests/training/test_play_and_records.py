"""Terminal play driven by a scripted human, and game records that replay exactly."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest

import baralho
from baralho.cli import main
from baralho.training import records
from baralho.training.play import play


def test_a_scripted_human_plays_a_whole_game(tmp_path):
    answers = "nonsense\n0\n99\n#17\n" + "1\n" * 200        # bad inputs first, then the first move
    out = io.StringIO()
    rc = play("rodizio_v1", 0, ["heuristic"], {}, seed=4, stdin=io.StringIO(answers), stdout=out,
              record_path=str(tmp_path / "game.json"))
    text = out.getvalue()
    assert rc == 0 and "game over: your reward" in text
    assert "no legal move matches 'nonsense'" in text and "choose 1.." in text
    assert "action #17 is not legal now" in text
    rec = records.load(tmp_path / "game.json")
    assert rec.players == ["human", "agent"]
    assert len(list(records.replay(rec))) == len(rec.actions) + 1


def test_moves_can_be_typed_by_name():
    out = io.StringIO()
    play("rodizio_v1", 1, ["random"], {"num_players": 3}, seed=0,
         stdin=io.StringIO("serve plate\nserve plate 0\n" + "1\n" * 100), stdout=out)
    assert "more than one legal move matches 'serve plate'" in out.getvalue()


def test_end_of_input_leaves_cleanly():
    out = io.StringIO()
    assert play("rodizio_v1", 0, ["heuristic"], {}, seed=1, stdin=io.StringIO(""), stdout=out) == 0
    assert out.getvalue().rstrip().endswith("bye")


def test_bad_seat_is_refused():
    with pytest.raises(ValueError, match="seats 0..1"):
        play("rodizio_v1", 2, ["random"], {}, seed=0, stdin=io.StringIO(""), stdout=io.StringIO())


def _record(tmp_path, env_id="rodizio_v1", config=None, seed=3):
    rng = np.random.default_rng(seed)
    config = {"num_players": 3, "spicy": True} if config is None else config
    rec = records.play_and_record(env_id, config, seed,
                                  lambda env, agent, obs: rng.choice(np.flatnonzero(obs["action_mask"])))
    return rec.save(tmp_path / "r.json"), rec


@pytest.mark.parametrize("env_id", baralho.ENV_IDS)
def test_records_replay_exactly_for_every_env(tmp_path, env_id):
    path, rec = _record(tmp_path, env_id, config={})
    again = records.load(path)
    assert again == rec
    envs = list(records.replay(again))
    assert len(envs) == len(rec.actions) + 1
    assert main(["replay", str(path)]) == 0


@pytest.mark.parametrize("edit, match", [
    (lambda d: d["actions"].__setitem__(2, (d["actions"][2] + 1) % 3),
     "move \\d+: action|digest|returns|record ends|ended"),
    (lambda d: d.__setitem__("version", 99), "format version 99"),
    (lambda d: d.__setitem__("format", "chess-pgn"), "not a baralho game record"),
    (lambda d: d["actions"].pop(), "record ends"),
    (lambda d: d["actions"].append(0), "the game ended but"),
    (lambda d: d.__setitem__("seed", d["seed"] + 1), "move|digest|returns|record ends|ended"),
    (lambda d: d.__setitem__("digest", "0" * 64), "digest differs"),
    (lambda d: d.__setitem__("returns", [9.0, 9.0, 9.0]), "returns differ"),
    (lambda d: d["config"].__setitem__("num_players", 9), "config does not build"),
    (lambda d: d.__setitem__("env_id", "poker_v0"), "unknown env id"),
    (lambda d: d.pop("actions"), "malformed"),
])
def test_records_that_do_not_match_are_refused(tmp_path, edit, match):
    path, _ = _record(tmp_path)
    data = json.loads(path.read_text())
    edit(data)
    path.write_text(json.dumps(data))
    with pytest.raises(records.RecordError, match=match):
        for _ in records.replay(records.load(path)):
            pass


def test_a_file_that_is_not_json_is_refused(tmp_path):
    p = tmp_path / "x.json"
    p.write_text("{not json")
    with pytest.raises(records.RecordError, match="not a readable JSON"):
        records.load(p)


def test_replay_draws_a_gif_and_a_png_strip(tmp_path):
    from PIL import Image

    path, rec = _record(tmp_path, "rodizio_v1", config={})
    assert main(["replay", str(path), "--images", str(tmp_path / "game.gif")]) == 0
    gif = Image.open(tmp_path / "game.gif")
    assert gif.n_frames == len(rec.actions) + 1
    records.to_images(rec, tmp_path / "strip.png", every=4)
    strip = Image.open(tmp_path / "strip.png")
    assert strip.size[0] == 4 * 560 and strip.size[1] % 420 == 0
