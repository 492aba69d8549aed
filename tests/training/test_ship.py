"""A finished self-play run ships into the zoo: the policy ``ppo`` loads, its card, its curve."""

import json

import pytest

import baralho
from baralho.training import selfplay as sp
from baralho.zoo import ship as S


def test_a_tiny_run_ships_as_a_zoo_policy_with_its_model_card(tmp_path, monkeypatch):
    from baralho.agents import make_agent
    from baralho.cli import main

    run = tmp_path / "run"
    assert main(["train", "rodizio_v1", "--num-envs", "8", "--timesteps", "256", "--eval-every", "128",
                 "--eval-games", "2", "--warm-start", "none", "--out", str(run), "--quiet"]) == 0
    zoo = tmp_path / "v1"
    card = S.ship(run, zoo)
    assert sorted(p.name for p in zoo.iterdir()) == ["rodizio_v1.json", "rodizio_v1.md", "rodizio_v1.npz",
                                                      "rodizio_v1_curve.png"]
    text = card.read_text()
    summary = json.loads((run / "summary.json").read_text())
    assert "`baralho train rodizio_v1 --num-envs 8 --timesteps 256 --eval-every 128 --eval-games 2" in text
    assert f"{summary['decisions']:,} env decisions" in text
    assert f"{summary['learner_decisions_per_second']:,.0f} learned from per second" in text
    assert "heuristic vs heuristic" in text and "load average" in text and "rodizio_v1_curve.png" in text
    assert text.count("| 1") + text.count("| 2") >= 2           # a row per evaluation

    import baralho.zoo as zoo_module

    monkeypatch.setattr(zoo_module, "V1", zoo)                  # what `ppo` reads, pointed at the try-out
    assert zoo_module.available() == ["rodizio_v1"]
    agent = make_agent("ppo", "rodizio_v1", seed=0)
    env = baralho.make("rodizio_v1")
    env.reset(seed=0)
    obs = env.observe(env.agent_selection)
    assert obs["action_mask"][agent.act(obs, env.agent_selection)]

    # an evaluation on other deals, quoted with its command
    held = tmp_path / "held_out.md"
    held.write_text("baralho evaluate ppo rodizio_v1 --one-seat --seed 4242\n### rodizio_v1 · 2 players\n\n| a | b |\n")
    text = S.ship(run, zoo, held_out=held).read_text()
    assert "## On deals it was not evaluated on during training" in text
    assert "`baralho evaluate ppo rodizio_v1 --one-seat --seed 4242`:" in text and "#### rodizio_v1 · 2 players" in text

    # several, from the command line: each quoted with its command, in order, under one heading
    again = tmp_path / "held_out_2.md"
    again.write_text("baralho evaluate ppo rodizio_v1 --one-seat --seed 77\n### rodizio_v1 · again\n\n| c |\n")
    assert S.main([str(run), "--to", str(zoo), "--held-out", str(held), str(again)]) == 0
    text = (zoo / "rodizio_v1.md").read_text()
    assert text.count("## On deals it was not evaluated on during training") == 1
    assert text.index("--seed 4242`:") < text.index("--seed 77`:") < text.index("#### rodizio_v1 · again")


def test_a_run_without_a_final_evaluation_or_too_big_is_refused(tmp_path, monkeypatch):
    run = sp.train(sp.config_for("rodizio_v1", num_envs=8, rollout=8, decisions=64, eval_games=2,
                                 net_arch=(16,), warm_start="none", torch_threads=1, out=str(tmp_path / "run"),
                                 progress=False))
    monkeypatch.setattr(S, "MAX_BYTES", 100)
    with pytest.raises(ValueError, match="over the zoo's"):
        S.ship(run, tmp_path / "v1")
    s = json.loads((run / "summary.json").read_text())
    (run / "summary.json").write_text(json.dumps({**s, "final": None}))
    with pytest.raises(ValueError, match="no final evaluation"):
        S.ship(run, tmp_path / "v1")
