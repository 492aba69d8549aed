"""Expert iteration (training/exit.py): the replay's value targets, the learning step's targets,
tiny end-to-end runs (2 and 3 players) that write a policy the agents load, resume, and the CLI."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("torch")

from baralho import cli  # noqa: E402
from baralho.agents import bind_if_needed, make_agent  # noqa: E402
from baralho.training import exit as ex  # noqa: E402

TINY = ["--num-envs", "8", "--simulations", "16", "--round-decisions", "200", "--updates", "4", "--minibatch", "32",
        "--eval-every", "600", "--eval-games", "10", "--threads", "1", "--net-arch", "16", "--quiet"]


def test_a_decision_gets_its_seats_return_when_its_game_ends_unless_overwritten():
    replay = ex.Replay(4, 2, np.int8, 3)
    target = np.full((3, 3), 1 / 3, np.float32)
    first = replay.add(np.zeros((3, 2)), np.ones((3, 3), bool), target, np.array([7, 8, 7]), np.array([0, 1, 1]))
    assert not replay.ready.any()
    replay.finish(first[[0, 2]], 7, np.array([1.0, -1.0]))
    assert replay.value[first[0]] == 1.0 and replay.value[first[2]] == -1.0
    assert replay.ready[first[[0, 2]]].all() and not replay.ready[first[1]]
    second = replay.add(np.zeros((2, 2)), np.ones((2, 3), bool), target[:2], np.array([9, 9]), np.array([0, 0]))
    assert set(second) == {3, 0}                  # the ring wraps over game 7's first decision
    replay.finish(first[[1]], 8, np.array([0.5, 0.25]))
    assert replay.value[first[1]] == 0.25
    replay.finish(first[[0, 2]], 7, np.array([3.0, 3.0]))     # row 0 is game 9's now: untouched
    assert not replay.ready[0] and replay.value[first[2]] == 3.0


def test_learning_moves_the_policy_toward_the_visits_and_the_value_toward_the_return():
    import torch

    from baralho.agents.policy import build_policy, logits_of
    from baralho.training.batch_policy import inputs, masked

    cfg = ex.ExitConfig(updates=200, minibatch=8, learning_rate=3e-3)
    policy = build_policy("rodizio_v1", {}, dict(pi=[16], vf=[16]))
    replay = ex.Replay(8, 298, np.int8, 18)
    rng = np.random.default_rng(0)
    obs = rng.integers(0, 2, (8, 298)).astype(np.int8)
    mask = np.zeros((8, 18), bool)
    mask[:, :3] = True
    target = np.zeros((8, 18), np.float32)
    target[:, 2] = 1.0                                      # the search always chose action 2
    rows = replay.add(obs, mask, target, np.zeros(8, np.int64), np.zeros(8, np.int64))
    replay.finish(rows, 0, np.array([0.75, -0.75]))
    optimizer = torch.optim.Adam(policy.parameters(), lr=cfg.learning_rate)
    losses = ex.learn(policy, optimizer, replay, cfg, rng)
    assert set(losses) == {"policy_loss", "value_loss", "entropy"}
    with torch.no_grad():
        x, _ = inputs(policy, obs)
        logits, latent = logits_of(policy, x, None)
        probs = masked(logits, mask).softmax(-1)
        values = policy.value_net(latent).squeeze(-1)
    assert (probs[:, 2] > 0.9).all() and probs[:, 3:].sum() < 1e-6
    assert np.allclose(values.numpy(), 0.75, atol=0.1)


@pytest.mark.parametrize("players", [2, 3])
def test_a_tiny_run_writes_a_net_that_plays_alone_and_guides_the_search_and_resumes(tmp_path, players):
    out = tmp_path / "run"
    argv = ["train", "rodizio_v1", "--algo", "exit", "--timesteps", "600", "--out", str(out), *TINY]
    if players != 2:
        argv += ["--config", f"num_players={players}"]
    assert cli.main(argv) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["algo"] == "exit" and summary["decisions"] >= 600 and summary["rounds"] >= 2
    assert summary["final"]["games"] == 10 * players
    card = json.loads((out / "final.json").read_text())
    assert card["prior"] == "none" and card["algo"] == "exit" and card["config"] == (
        {} if players == 2 else {"num_players": players})
    import baralho

    config = card["config"]
    env = baralho.make("rodizio_v1", **config)
    env.reset(seed=1)
    for spec in (f"ppo:{out / 'final'}", f"ismcts:20:p:{out / 'final'}"):
        agent = make_agent(spec, "rodizio_v1", seed=0, config=config)
        bind_if_needed(agent, env)
        obs = env.last()[0]
        assert obs["action_mask"][agent.act(obs, env.agent_selection)] == 1
    argv[argv.index("--timesteps") + 1] = "900"
    assert cli.main([*argv, "--resume"]) == 0
    assert json.loads((out / "summary.json").read_text())["decisions"] >= 900


@pytest.mark.parametrize(("flags", "says"), [
    (["--algo", "exit", "--gamma", "0.9"], "--gamma is not a setting of --algo exit"),
    (["--simulations", "5"], "--simulations is not a setting of --algo selfplay"),
    (["--algo", "exit", "--mix", "2"], "mix"),
    (["--algo", "exit", "--simulations", "0"], "simulations"),
    (["--algo", "exit", "--init", "zoo", "--config", "num_players=3"], "players"),
])
def test_the_cli_refuses_what_exit_cannot_do_before_claiming_out(tmp_path, capsys, flags, says):
    out = tmp_path / "run"
    try:
        code, said = cli.main(["train", "rodizio_v1", "--out", str(out), "--quiet", *flags]), ""
    except SystemExit as err:
        code, said = err.code, str(err.code)
    assert code not in (0, None) and says in said + capsys.readouterr().err
    assert not (out / "run.json").exists()


def test_init_starts_from_the_zoo_net_and_refuses_one_with_the_heuristic_prior():
    cfg = ex.ExitConfig(env_id="chuche_v1", init="zoo")
    ex.initial_policy(cfg)
    assert cfg.net_arch == (256, 256) and cfg.inputs == "symlog"
    with pytest.raises(ValueError, match="heuristic"):
        ex.initial_policy(ex.ExitConfig(env_id="roda_de_samba_v1", init="zoo"))
