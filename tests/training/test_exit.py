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


def replay_rows(n: int, **columns) -> dict:
    """``n`` decisions of a 2-cell observation and 3 legal moves, with the given columns."""
    return dict(obs=np.zeros((n, 2), np.int8), mask=np.ones((n, 3), bool),
                target=np.full((n, 3), 1 / 3, np.float32), **columns)


def test_the_replay_keeps_the_newest_decisions():
    replay = ex.Replay(4, 2, np.int8, 3)

    def batch(values):
        return replay_rows(len(values), value=np.array(values, np.float32))

    replay.add(batch([1, 2, 3]))
    assert replay.size == 3 and list(replay.value[:3]) == [1, 2, 3]
    replay.add(batch([4, 5]))
    assert replay.size == 4 and sorted(replay.value) == [2, 3, 4, 5]
    replay.add(batch([6, 7, 8, 9, 10]))
    assert sorted(replay.value) == [7, 8, 9, 10]


def test_games_send_every_searched_decision_at_once_and_its_seats_return_when_the_game_ends():
    """Every searched decision comes back from the call that searched it (it had a choice, its
    target is a distribution over its legal moves), with an id; when its game ends, a later call
    (or the same one) sends the return its seat got there (Rodízio: +1, -1 or 0 each), which the
    replay writes to that decision's row; a decision of a game in progress has no value yet."""
    from baralho.agents.policy import build_policy
    from baralho.core.net_search import net_arrays

    cfg = ex.ExitConfig(num_envs=4, simulations=8)
    policy = build_policy("rodizio_v1", {}, dict(pi=[8], vf=[8]))
    games = ex.Games(cfg, 0, net_arrays(policy, np.int8), 1)
    replay = ex.Replay(100_000, 298, np.int8, 18)
    sent, settled = [], {}
    while not settled:
        played = games.play(50)
        n = len(played["target"])
        assert n == played["searched"] >= 50 and played["obs"].shape == (n, 298) and played["id"].shape == (n,)
        assert (played["mask"].sum(1) > 1).all() and "value" not in played
        assert np.allclose(played["target"].sum(1), 1) and not (played["target"] * ~played["mask"]).any()
        sent += played["id"].tolist()
        replay.add(played)
        assert replay.settle(played["ended_id"], played["ended_value"]) == len(played["ended_id"])
        settled.update(zip(played["ended_id"].tolist(), played["ended_value"].tolist()))
    assert len(set(sent)) == len(sent) and set(settled) <= set(sent)
    assert set(settled.values()) <= {-1.0, 0.0, 1.0}
    rows = np.array([sent.index(i) for i in settled])
    assert np.array_equal(replay.value[rows], np.array(list(settled.values()), np.float32))
    pending = np.array([k for k, i in enumerate(sent) if i not in settled])
    assert len(pending) and np.isnan(replay.value[pending]).all()
    early = ex.Games(cfg, 1, net_arrays(policy, np.int8), 1).play(1)     # no game ended yet: no values
    assert early["games"] == 0 and len(early["target"]) >= 1 and early["ended_id"].shape == (0,)
    assert not set(early["id"].tolist()) & set(sent)                      # another stream, other ids


def test_the_replay_forgets_the_ids_of_the_decisions_it_drops():
    replay = ex.Replay(3, 2, np.int8, 3)

    def batch(ids):
        return replay_rows(len(ids), id=np.array(ids, np.int64))

    replay.add(batch([10, 11]))
    replay.add(batch([12, 13]))                            # 10's row now holds 13
    assert replay.settle(np.array([10, 11, 13]), np.array([1.0, -1.0, 0.5])) == 2
    assert replay.value[replay.id == 11] == [-1.0] and replay.value[replay.id == 13] == [0.5]
    assert np.isnan(replay.value[replay.id == 12]).all() and 10 not in replay.id


def learned_on(obs: np.ndarray, chosen: int, value: np.ndarray):
    """A fresh Rodízio net after 200 Adam steps on ``len(obs)`` decisions whose first 3 moves are
    legal, the search's choice ``chosen`` at each and the returns ``value`` (NaN: not known yet);
    the net, its mean losses and, for every decision, its policy over the legal moves and its value."""
    import torch

    from baralho.agents.policy import build_policy, logits_of
    from baralho.training.batch_policy import inputs, masked

    n = len(obs)
    cfg = ex.ExitConfig(updates=200, minibatch=n, learning_rate=3e-3)
    policy = build_policy("rodizio_v1", {}, dict(pi=[16], vf=[16]))
    replay = ex.Replay(n, 298, np.int8, 18)
    mask = np.zeros((n, 18), bool)
    mask[:, :3] = True
    target = np.zeros((n, 18), np.float32)
    target[:, chosen] = 1.0
    replay.add(dict(obs=obs, mask=mask, target=target, value=value))
    optimizer = torch.optim.Adam(policy.parameters(), lr=cfg.learning_rate)
    losses = ex.learn(policy, optimizer, replay, cfg, np.random.default_rng(0))
    with torch.no_grad():
        x, _ = inputs(policy, obs)
        logits, latent = logits_of(policy, x, None)
        probs = masked(logits, mask).softmax(-1)
        values = policy.value_net(latent).squeeze(-1)
    return losses, probs.numpy(), values.numpy()


def test_learning_moves_the_policy_toward_the_visits_and_the_value_toward_the_return():
    obs = np.random.default_rng(0).integers(0, 2, (8, 298)).astype(np.int8)
    losses, probs, values = learned_on(obs, 2, np.full(8, 0.75, np.float32))   # the search always chose 2
    assert set(losses) == {"policy_loss", "value_loss", "entropy", "learned_share"}
    assert (probs[:, 2] > 0.9).all() and probs[:, 3:].sum() < 1e-6
    assert np.allclose(values, 0.75, atol=0.1)


def test_the_value_learns_only_from_decisions_whose_game_has_ended():
    """Rows without a value yet (NaN: their game is in progress) take no part in the value loss:
    it stays finite and the known rows' values go to their return."""
    obs = np.zeros((8, 298), np.int8)
    obs[4:, 0] = 1
    losses, _, values = learned_on(obs, 0, np.array([0.75] * 4 + [np.nan] * 4, np.float32))
    assert np.isfinite(losses["value_loss"]) and losses["value_loss"] < 0.1
    assert np.allclose(values[:1], 0.75, atol=0.1)


def test_a_tiny_run_of_a_net_with_the_heuristic_prior_writes_a_hinted_net_and_resumes(tmp_path):
    out = tmp_path / "run"
    argv = ["train", "rodizio_v1", "--algo", "exit", "--timesteps", "400", "--out", str(out), *TINY,
            "--prior", "heuristic", "--mix", "1"]
    assert cli.main(argv) == 0
    card = json.loads((out / "final.json").read_text())
    assert card["prior"] == "heuristic" and card["search"]["mix"] == 1.0
    import baralho

    env = baralho.make("rodizio_v1")
    env.reset(seed=1)
    for spec in (f"ppo:{out / 'final'}", f"ismcts:20:p:{out / 'final'}"):
        agent = make_agent(spec, "rodizio_v1", seed=0)
        bind_if_needed(agent, env)
        obs = env.last()[0]
        assert obs["action_mask"][agent.act(obs, env.agent_selection)] == 1
    argv[argv.index("--timesteps") + 1] = "600"
    assert cli.main([*argv, "--resume"]) == 0
    assert json.loads((out / "summary.json").read_text())["decisions"] >= 600
    assert json.loads((out / "final.json").read_text())["prior"] == "heuristic"


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
    summary = json.loads((out / "summary.json").read_text())
    assert summary["decisions"] >= 900 and summary["command"].startswith("baralho train rodizio_v1 --algo exit")

    # shipped, the zoo finds it for its player count; its card says it never asks the heuristic
    from baralho import zoo
    from baralho.zoo.ship import ship

    card = ship(out, tmp_path / "zoo")
    name = "rodizio_v1" if players == 2 else f"rodizio_v1_{players}p"
    assert card.name == f"{name}.md" and "expert iteration" in card.read_text()
    assert "**Asks the heuristic at play time**: no" in card.read_text()
    zoo.V1 = tmp_path / "zoo"
    try:
        agent = make_agent("ppo", "rodizio_v1", config=config)
        assert agent.name == f"ppo:{name}"
        agent = make_agent("ismcts:10:p", "rodizio_v1", config=config)
        bind_if_needed(agent, env)
        assert obs["action_mask"][agent.act(env.last()[0], env.agent_selection)] == 1
    finally:
        zoo.V1 = zoo.ZOO / "v1"


def test_a_fixed_expert_guides_every_game_of_the_run_and_the_learner_moves_apart(tmp_path, monkeypatch):
    """``--expert zoo``: the games search with the zoo net from the first round to the last (and
    after ``--resume``), never with the learner's, which learns and is the run's net."""
    from baralho.zoo import load_init

    zoo_net, _ = ex.searched(load_init("zoo", "rodizio_v1")[0], np.int16)
    guided = []
    init = ex.Games.__init__

    def record(self, cfg, stream, net, threads, prior_weight=0.0):
        init(self, cfg, stream, net, threads, prior_weight)
        guided.append(self)

    def refuse(self, net, prior_weight=0.0):
        raise AssertionError("a fixed expert's games were sent the learner's net")

    monkeypatch.setattr(ex.Games, "__init__", record)
    monkeypatch.setattr(ex.Games, "set_net", refuse)
    out = tmp_path / "run"
    argv = ["train", "rodizio_v1", "--algo", "exit", "--timesteps", "400", "--out", str(out), *TINY,
            "--expert", "zoo"]
    assert cli.main(argv) == 0
    argv[argv.index("--timesteps") + 1] = "600"
    assert cli.main([*argv, "--resume"]) == 0
    assert len(guided) == 2
    for games in guided:
        assert len(games.searcher.net) == len(zoo_net)
        assert all(np.array_equal(a, b) for a, b in zip(games.searcher.net, zoo_net))
    summary = json.loads((out / "summary.json").read_text())
    assert summary["rounds"] >= 3 and summary["config"]["expert"] == "zoo"
    card = json.loads((out / "final.json").read_text())
    assert card["net_arch"]["pi"] == [16]                  # the learner's net, not the expert's 256 x 256


def test_a_resumed_run_refuses_an_expert_whose_net_changed(tmp_path, capsys):
    """``--expert PATH`` rewritten between a run and its ``--resume`` would guide the rest of the
    run with another net: the checkpoint keeps the expert's digest and the resume is refused."""
    from baralho.agents.policy import build_policy, policy_files, save_policy

    expert = save_policy(build_policy("rodizio_v1", {}, dict(pi=[8], vf=[8])), tmp_path / "expert", "rodizio_v1", {})
    out = tmp_path / "run"
    argv = ["train", "rodizio_v1", "--algo", "exit", "--timesteps", "200", "--out", str(out), *TINY,
            "--expert", str(expert)]
    assert cli.main(argv) == 0
    argv[argv.index("--timesteps") + 1] = "400"
    weights = policy_files(expert)[1]
    arrays = dict(np.load(weights))
    arrays["action_net.bias"] = arrays["action_net.bias"] + 1.0
    np.savez(weights, **arrays)
    checkpoint = {p.name: p.read_bytes() for p in (out / "checkpoint").iterdir()}
    assert cli.main([*argv, "--resume"]) != 0
    assert "not the net this run's games were searched with" in capsys.readouterr().err
    assert {p.name: p.read_bytes() for p in (out / "checkpoint").iterdir()} == checkpoint


@pytest.mark.parametrize(("flags", "says"), [
    (["--algo", "exit", "--gamma", "0.9"], "--gamma is not a setting of --algo exit"),
    (["--simulations", "5"], "--simulations is not a setting of --algo selfplay"),
    (["--algo", "exit", "--mix", "2"], "mix"),
    (["--algo", "exit", "--temperature", "0"], "temperature=0.0 must be a finite number above 0 (--temperature)"),
    (["--algo", "exit", "--simulations", "0"], "simulations"),
    (["--algo", "exit", "--simulations", "1"], "first evaluates the root"),
    (["--algo", "exit", "--init", "zoo", "--config", "num_players=4"], "no zoo policy for rodizio_v1 at 4 players"),
    (["--algo", "exit", "--prior", "heuristic"], "its search takes rollouts, --mix 1 (got mix=0.5)"),
    (["--algo", "exit", "--horizon", "segment"], "played in one piece"),
    (["--algo", "exit", "--horizon", "hand"], "horizon='hand' must be one of"),
    (["--algo", "exit", "--target-temperature", "0"], "target_temperature must be a finite number above 0"),
    (["--algo", "exit", "--rollouts", "greedy"], "rollouts must be 'random' or 'heuristic'"),
    (["--algo", "exit", "--target-margin", "-0.1"], "target_margin must be a finite number >= 0"),
    (["--algo", "exit", "--target-margin", "nan"], "target_margin must be a finite number >= 0"),
    (["--algo", "exit", "--expert", "zoo", "--config", "num_players=4"], "no zoo policy for rodizio_v1 at 4"),
    (["--algo", "exit", "--expert", "zoo", "--prior", "heuristic", "--mix", "1"], "the expert (zoo) has the prior"),
])
def test_the_cli_refuses_what_exit_cannot_do_before_claiming_out(tmp_path, capsys, flags, says):
    out = tmp_path / "run"
    try:
        code, said = cli.main(["train", "rodizio_v1", "--out", str(out), "--quiet", *flags]), ""
    except SystemExit as err:
        code, said = err.code, str(err.code)
    assert code not in (0, None) and says in said + capsys.readouterr().err
    assert not (out / "run.json").exists()


def test_the_policy_target_is_the_visit_shares_sharpened_by_its_temperature():
    visits = np.array([[0, 1, 3, 6], [0, 0, 2, 0]])
    np.testing.assert_allclose(ex.policy_target(visits, 1.0), [[0, .1, .3, .6], [0, 0, 1, 0]], rtol=1e-6)
    np.testing.assert_allclose(ex.policy_target(visits, 0.5), [[0, 1 / 46, 9 / 46, 36 / 46], [0, 0, 1, 0]],
                               rtol=1e-6)
    sharp = ex.policy_target(np.array([[1, 50, 100]]), 1e-4)     # no overflow: the most visited alone
    assert np.isfinite(sharp).all() and sharp[0, 2] > 0.99


def test_a_decision_is_learned_only_where_the_search_told_its_best_move_from_the_runner_up():
    # mean returns: row 0 best 0.5 (20 visits) vs 0.2 (10); row 1 0.30 vs 0.25; row 2 one move visited
    visits = np.array([[0, 10, 20, 0], [5, 0, 40, 30], [0, 0, 9, 0]])
    value = np.array([[0, 2.0, 10.0, 0], [0, 0, 12.0, 7.5], [0, 0, -9.0, 0]])
    assert list(ex.decisive(visits, value, 0.0)) == [1, 1, 1]
    assert list(ex.decisive(visits, value, 0.1)) == [1, 0, 1]
    assert list(ex.decisive(visits, value, 0.04)) == [1, 1, 1]
    assert list(ex.decisive(visits, value, 0.31)) == [0, 0, 1]


def test_a_decision_of_weight_zero_teaches_the_policy_nothing():
    """Two decisions with the same observation and opposite targets: weighted 1 and 0, the net
    learns the first's move as if the second were absent."""
    import torch

    from baralho.agents.policy import build_policy, logits_of
    from baralho.training.batch_policy import inputs, masked

    cfg = ex.ExitConfig(updates=150, minibatch=8, learning_rate=3e-3)
    policy = build_policy("rodizio_v1", {}, dict(pi=[16], vf=[16]))
    replay = ex.Replay(8, 298, np.int8, 18)
    obs = np.zeros((8, 298), np.int8)
    mask = np.zeros((8, 18), bool)
    mask[:, :3] = True
    target = np.zeros((8, 18), np.float32)
    target[:4, 1] = 1.0
    target[4:, 2] = 1.0
    weight = np.array([1, 1, 1, 1, 0, 0, 0, 0], np.float32)
    replay.add(dict(obs=obs, mask=mask, target=target, value=np.zeros(8, np.float32), weight=weight))
    losses = ex.learn(policy, torch.optim.Adam(policy.parameters(), lr=cfg.learning_rate), replay, cfg,
                      np.random.default_rng(0))
    assert losses["learned_share"] == pytest.approx(0.5)
    with torch.no_grad():
        x, _ = inputs(policy, obs[:1])
        probs = masked(logits_of(policy, x, None)[0], mask[:1]).softmax(-1)
    assert probs[0, 1] > 0.9


def test_every_exit_flag_reaches_its_field_with_its_value():
    """The exit flags are generated beside selfplay's: each parses to its own field's kind (the
    search's ``rollouts`` once shared selfplay's ``--rollout``, an int, so ``heuristic`` was refused)."""
    from baralho.training.selfplay import settings_of

    args = cli.build_parser().parse_args(["train", "scala40_v1", "--algo", "exit", "--rollouts", "heuristic",
                                          "--horizon", "segment", "--temperature", "8", "--simulations", "50"])
    assert settings_of(args, ex.ExitConfig) == dict(rollouts="heuristic", horizon="segment", temperature=8.0,
                                                    simulations=50)


def test_a_config_field_that_shares_a_flag_of_another_kind_is_refused_when_the_parser_is_built():
    import argparse
    from dataclasses import dataclass

    from baralho.training.selfplay import add_flags

    @dataclass
    class Words:
        rollout: str = "random"

    parser = argparse.ArgumentParser()
    add_flags(parser)                                      # selfplay's --rollout, a count
    with pytest.raises(TypeError, match="Words.rollout takes a str but --rollout"):
        add_flags(parser, Words, {}, trainer="exit")


def test_init_starts_from_the_zoo_net_with_its_prior_and_a_hinted_one_searches_with_rollouts():
    cfg = ex.ExitConfig(env_id="chuche_v1", init="zoo")
    ex.initial_policy(cfg)
    assert cfg.net_arch == (256, 256) and cfg.inputs == "symlog" and cfg.prior == "none"
    with pytest.raises(ValueError, match="--init zoo.*--mix 1"):
        ex.initial_policy(ex.ExitConfig(env_id="roda_de_samba_v1", init="zoo"))
    cfg = ex.ExitConfig(env_id="roda_de_samba_v1", init="zoo", mix=1.0)
    policy = ex.initial_policy(cfg)
    assert cfg.prior == "heuristic" and policy.baralho_prior == "heuristic"
    assert ex.searched(policy, np.int16)[1] == pytest.approx(float(policy.prior_weight.detach()))


def test_a_hinted_nets_games_keep_the_heuristics_move_and_the_learner_reads_it():
    """A net with the heuristic prior: every kept decision has the heuristic's move there (a legal
    one, the move the compiled heuristic makes from that observation when it has no plan yet), and
    learning moves the policy with the hint in its inputs (the same observation, two hints, two
    targets: only the hint tells them apart)."""
    import torch

    from baralho.agents.policy import build_policy, logits_of
    from baralho.training.batch_policy import inputs, masked
    from baralho.vector.heuristic import BatchHeuristic

    torch.manual_seed(0)                                   # the net, so the games, the same every run
    cfg = ex.ExitConfig(num_envs=4, simulations=8, prior="heuristic", mix=1.0)
    policy = build_policy("rodizio_v1", {}, dict(pi=[8], vf=[8]), prior="heuristic")
    net, weight = ex.searched(policy, np.int8)
    games = ex.Games(cfg, 0, net, 1, weight)
    played = games.play(200)
    n = len(played["target"])
    assert n > 0 and played["hint"].shape == (n,)
    assert played["mask"][np.arange(n), played["hint"]].all()
    ended = np.isin(played["id"], played["ended_id"])    # whole games' decisions, as the games sent them before
    assert ended.sum() > 0
    fresh = BatchHeuristic(games.venv.game, int(ended.sum()))
    agree = fresh.act(np.arange(ended.sum()), played["obs"][ended], played["mask"][ended].astype(np.int8))
    assert (agree == played["hint"][ended]).mean() > 0.9

    cfg = ex.ExitConfig(updates=300, minibatch=8, learning_rate=3e-3, prior="heuristic", mix=1.0)
    policy = build_policy("rodizio_v1", {}, dict(pi=[16], vf=[16]), prior="heuristic")
    replay = ex.Replay(8, 298, np.int8, 18)
    obs = np.zeros((8, 298), np.int8)
    mask = np.zeros((8, 18), bool)
    mask[:, :3] = True
    hint = np.array([0, 1] * 4)
    target = np.zeros((8, 18), np.float32)
    target[np.arange(8), 2 - hint] = 1.0                   # the search went against the hint: 2 or 1
    replay.add(dict(obs=obs, mask=mask, target=target, value=np.zeros(8, np.float32), hint=hint))
    ex.learn(policy, torch.optim.Adam(policy.parameters(), lr=cfg.learning_rate), replay, cfg,
             np.random.default_rng(0))
    with torch.no_grad():
        x, onehot = inputs(policy, obs, hint)
        probs = masked(logits_of(policy, x, onehot)[0], mask).softmax(-1)
    assert (probs[np.arange(8), 2 - hint] > 0.8).all()


def test_init_zoo_takes_the_zoo_net_of_the_configured_player_count():
    import torch

    from baralho.agents.policy import load_policy
    from baralho.zoo import zoo_path

    config = {"num_players": 3}
    started = ex.initial_policy(ex.ExitConfig(env_id="rodizio_v1", init="zoo", env_config=config))
    three, _ = load_policy(zoo_path("rodizio_v1", 3), "rodizio_v1", config)
    two, _ = load_policy(zoo_path("rodizio_v1"), "rodizio_v1")
    weights = [dict(p.state_dict()) for p in (started, three, two)]
    assert all(torch.equal(weights[0][k], weights[1][k]) for k in weights[0])
    assert not all(torch.equal(weights[0][k], weights[2][k]) for k in weights[0])


@pytest.mark.parametrize("search", [{"mix": 2}, {"exploration": -1}, {"exploration": "1"}, {"depth": 3}, [1],
                                    {"temperature": 0}, {"temperature": True}, {"prior_visits": 1},
                                    {"prior_visits": 128}, {"prior_visits": 2.5}, {"horizon": "hand"},
                                    {"horizon": 1}])
def test_a_card_whose_search_settings_cannot_be_is_refused(tmp_path, search):
    from baralho.agents.policy import PolicyError, build_policy, load_policy, save_policy

    path = save_policy(build_policy("rodizio_v1", {}, dict(pi=[8], vf=[8])), tmp_path / "p", "rodizio_v1", {},
                       search=search)
    with pytest.raises(PolicyError, match="search"):
        load_policy(path, "rodizio_v1")


def test_a_card_that_searches_to_the_hands_end_is_played_so_where_the_game_has_hands(tmp_path):
    """A card's search horizon "segment" (an expert iteration run's --horizon): Scala 40's search
    rolls out to the hand's end; a game in one piece refuses it."""
    import baralho
    from baralho.agents.policy import build_policy, save_policy

    search = {"mix": 1.0, "horizon": "segment"}
    path = save_policy(build_policy("scala40_v1", {}, dict(pi=[8], vf=[8])), tmp_path / "s", "scala40_v1", {},
                       search=search)
    env = baralho.make("scala40_v1")
    env.reset(seed=0)
    agent = make_agent(f"ismcts:10:p:{path}", "scala40_v1")
    bind_if_needed(agent, env)
    assert agent.horizon == "segment" and agent._searcher.horizon
    assert ex.search_card(ex.ExitConfig(env_id="scala40_v1", mix=1.0, horizon="segment")) == {
        "exploration": 1.5, **search}
    assert "horizon" not in ex.search_card(ex.ExitConfig())
    path = save_policy(build_policy("rodizio_v1", {}, dict(pi=[8], vf=[8])), tmp_path / "r", "rodizio_v1", {},
                       search=search)
    env = baralho.make("rodizio_v1")
    env.reset(seed=0)
    with pytest.raises(ValueError, match="one piece"):
        bind_if_needed(make_agent(f"ismcts:10:p:{path}", "rodizio_v1"), env)


def test_the_net_guided_search_plays_with_the_exploration_and_mix_its_net_was_trained_with(tmp_path):
    from baralho.agents.policy import build_policy, save_policy

    path = save_policy(build_policy("rodizio_v1", {}, dict(pi=[8], vf=[8])), tmp_path / "p", "rodizio_v1", {},
                       search={"exploration": 2.5, "mix": 0.25})
    import baralho

    env = baralho.make("rodizio_v1")
    env.reset(seed=0)
    agent = make_agent(f"ismcts:10:p:{path}", "rodizio_v1")
    bind_if_needed(agent, env)
    assert (agent.c, agent.mix, agent._searcher.mix) == (2.5, 0.25, 0.25)
    plain = make_agent("ismcts:10", "rodizio_v1")
    assert plain.c == 0.7 and make_agent("ismcts:10:p", "rodizio_v1").c is None     # PUCT's, set at bind
