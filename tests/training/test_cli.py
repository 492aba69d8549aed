"""The command line: help that says every default and every agent spec, --version,
options that never silently disagree, and the reports it writes."""

from __future__ import annotations

import argparse
import io
import json
from contextlib import redirect_stdout

import numpy as np
import pytest

import baralho
from baralho.cli import build_parser, main, model_spec, parse_config


def subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def test_every_option_has_help_that_states_its_default():
    for name, sub in subparsers(build_parser()).items():
        formatter = sub._get_formatter()
        for action in sub._actions:
            if isinstance(action, argparse._HelpAction):
                continue
            assert action.help, f"{name} {action.dest}: no help"
            text = formatter._get_help_string(action) % {"default": action.default, "prog": name}
            if not action.option_strings or action.required or isinstance(action, argparse._StoreTrueAction):
                continue                                      # positionals, required options, flags
            if action.default is None:
                assert "default" in text, f"{name} {action.option_strings}: says nothing of what None means"
            else:
                shown = " ".join(map(str, action.default)) if isinstance(action.default, list) else str(action.default)
                assert f"(default: {shown or 'none'})" in text, f"{name} {action.option_strings}: {text!r}"


def test_help_has_no_raw_rst_and_lists_every_agent_spec(capsys):
    parser = build_parser()
    texts = [parser.format_help()] + [sub.format_help() for sub in subparsers(parser).values()]
    for text in texts:
        assert "``" not in text and ":class:" not in text
    tournament = subparsers(parser)["tournament"].format_help().replace("\n", " ")
    tournament = " ".join(tournament.split())
    for spec in ("random", "heuristic", "ismcts:N ", "ismcts:Ts", "ismcts:N:h", "ismcts:N:g", "ppo (", "ppo:PATH"):
        assert spec in tournament, spec


def test_version(capsys):
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0 and capsys.readouterr().out.strip() == f"baralho {baralho.__version__}"


def test_config_values_take_pythons_spelling_of_booleans():
    assert parse_config(["spicy=True", "memory=none", "max_rounds=12", "x=False"]) == \
        {"spicy": True, "memory": "none", "max_rounds": 12, "x": False}
    assert parse_config(["spicy=true"]) == {"spicy": True}
    assert baralho.make("rodizio_v1", **parse_config(["spicy=True"])).unwrapped.game.config.spicy


@pytest.mark.parametrize("argv", [
    ["tournament", "rodizio_v1", "--agents", "random", "--players", "3", "--config", "num_players=2"],
    ["evaluate", "x.zip", "rodizio_v1", "--players", "3", "--config", "num_players=2"],
    ["play", "rodizio_v1", "--players", "3", "--config", "num_players=2"],
])
def test_players_and_config_num_players_never_silently_disagree(argv, capsys):
    assert main(argv) == 2
    assert "disagree" in capsys.readouterr().err


def test_evaluate_takes_the_zoo_spec_as_tournament_does(capsys, request):
    assert model_spec("ppo") == "ppo" and model_spec("ppo:runs/x.zip") == "ppo:runs/x.zip"
    assert model_spec("runs/train/final.zip") == "ppo:runs/train/final.zip"
    assert main(["evaluate", "ppo", "rodizio_v1", "--games", "2", "--quiet", "--workers", "1"]) == 0   # shipped
    request.getfixturevalue("empty_zoo")          # every game ships one: an empty zoo has none
    assert main(["evaluate", "ppo", "scala40_v1", "--games", "2", "--quiet", "--workers", "1"]) == 2
    assert "no zoo model for 'scala40_v1'" in capsys.readouterr().err     # not "no file ppo"


def test_tournament_report_is_json_and_duplicate_agents_get_distinct_rows(tmp_path):
    out = io.StringIO()
    with redirect_stdout(out):
        rc = main(["tournament", "rodizio_v1", "--agents", "random", "random", "--games", "4", "--workers", "1",
                   "--quiet", "--config", "num_players=3", "--out", str(tmp_path)])
    assert rc == 0
    [path] = tmp_path.glob("*.json")
    assert path.name == "rodizio_v1_3p.json", "--config num_players=3 sets the player count"

    def no_nan(token):
        raise AssertionError(f"{token} is not JSON")

    report = json.loads(path.read_text(), parse_constant=no_nan)
    summary = report["by_players"]["3"]
    assert [a["agent"] for a in summary["agents"]] == ["random", "random (2)"]
    assert summary["head_to_head"][0][0] is None                  # an agent never meets itself
    assert "| random (2) |" in out.getvalue()


def test_replay_text_and_pictures_show_the_same_view(tmp_path, monkeypatch, capsys):
    from baralho.training import records

    rng = np.random.default_rng(0)
    rec = records.play_and_record("rodizio_v1", {}, 3,
                                  lambda env, agent, obs: rng.choice(np.flatnonzero(obs["action_mask"])))
    path = rec.save(tmp_path / "r.json")
    views = []
    monkeypatch.setattr(records, "to_images", lambda rec, out, every, view, deck=None: views.append(view) or out)
    assert main(["replay", str(path), "-v", "--images", str(tmp_path / "g.gif")]) == 0
    text = capsys.readouterr().out
    assert "omniscient" in text and "'s view" not in text and views == ["omniscient"]
    assert main(["replay", str(path), "-v", "--view", "1", "--images", str(tmp_path / "g.gif")]) == 0
    text = capsys.readouterr().out
    assert "player_1's view" in text and "omniscient" not in text and views[-1] == 1


def test_ctrl_c_during_the_warm_start_exits_cleanly_and_says_nothing_was_trained(tmp_path, monkeypatch, capsys):
    """The trainer's own Ctrl-C handler covers PPO; one during the heuristic warm start
    (here: inside the behaviour cloning's fit) must end as plainly, not in a traceback."""
    import baralho.training.warm_start as ws

    def interrupted_fit(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(ws, "fit", interrupted_fit)
    try:
        code = main(["train", "rodizio_v1", "--num-envs", "4", "--warm-start", "heuristic",
                     "--warm-start-steps", "40", "--out", str(tmp_path), "--quiet"])
    except KeyboardInterrupt:
        pytest.fail("Ctrl-C during the warm start escaped baralho train as a traceback")
    err = capsys.readouterr().err
    assert code == 130
    assert "interrupted" in err and "nothing was trained yet" in err and str(tmp_path) in err, err
    assert not (tmp_path / "final.json").exists()


def test_evaluate_one_seat_compares_with_the_opponent_in_the_same_seat_on_the_same_deals(capsys):
    from baralho.training.tournament import one_seat

    # the heuristic against itself: every game is the opponents' game, so the rates are equal, unpaired nowhere
    same = one_seat("rodizio_v1", "heuristic", "heuristic", 6, 3, workers=1, progress=False)
    assert same["games"] == 18 and same["win_rate"] == same["opponent_win_rate"]
    assert same["won_where_opponent_lost"] == same["lost_where_opponent_won"] == 0
    # random play in one seat: the same deals, so the opponent's rate is the heuristic's in that seat
    rand = one_seat("rodizio_v1", "random", "heuristic", 6, 3, workers=1, progress=False)
    assert rand["opponent_win_rate"] == same["opponent_win_rate"]
    assert rand["win_rate"] != same["win_rate"] or rand["won_where_opponent_lost"] > 0
    assert main(["evaluate", "heuristic", "rodizio_v1", "--one-seat", "--players", "3", "--games", "2",
                 "--quiet", "--workers", "1"]) == 0
    assert "heuristic (same deals, same seat)" in capsys.readouterr().out


def test_evaluate_paired_pairs_the_two_models_games_by_deal_and_seat(capsys):
    from baralho.training.tournament import paired, run, summarize

    # the same agent twice: every paired game is the same game, so the difference is exactly 0
    same = paired("rodizio_v1", "random", "random", "heuristic", 8, 2, workers=1, progress=False)
    assert same["games"] == 8 and same["difference"] == 0.0 and same["difference_ci95"] == [0.0, 0.0]
    assert same["won_where_baseline_lost"] == same["lost_where_baseline_won"] == 0
    # the baseline's games are evaluate's own: its rate is the tournament's on those deals, and the
    # difference is the two rates' (each game counted once in both)
    r = paired("rodizio_v1", "heuristic", "random", "heuristic", 8, 2, seed=3, workers=1, progress=False)
    alone = summarize(run("rodizio_v1", ["random", "heuristic"], 8, 2, seed=3, workers=1, progress=False),
                      ["random", "heuristic"])
    assert r["baseline_win_rate"] == alone["agents"][0]["win_rate"]
    assert abs(r["difference"] - (r["win_rate"] - r["baseline_win_rate"])) < 1e-12
    assert r["difference_ci95"][0] <= r["difference"] <= r["difference_ci95"][1]
    assert r["won_where_baseline_lost"] - r["lost_where_baseline_won"] == round(r["difference"] * r["games"])
    # one seat at 3 players: each alone in each seat of each deal
    three = paired("rodizio_v1", "heuristic", "random", "heuristic", 3, 3, workers=1, progress=False, one_seat=True)
    assert three["games"] == 9
    assert main(["evaluate", "heuristic", "rodizio_v1", "--paired", "random", "--games", "4", "--quiet",
                 "--workers", "1"]) == 0
    out = capsys.readouterr().out
    assert "random (same deals, same seats)" in out and "Paired difference heuristic − random" in out
