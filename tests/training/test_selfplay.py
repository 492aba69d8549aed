"""The batched self-play trainer: per-seat crediting with known answers, tiny end-to-end runs
on the compiled engine and on the reference loop, resume, the CLI and the defaults table."""

from __future__ import annotations

import json

import numpy as np
import pytest

from baralho.envs import compiled_ids, game_module
from baralho.training import batch_policy as bp
from baralho.training import selfplay as sp
from baralho.training.seatbook import SeatBook

GAMMA, LAM = 0.9, 0.8


def book(n=16, obs_size=3, num_actions=4):
    return SeatBook(n, obs_size, num_actions)


def decide(b, pending, envs, seats, values):
    k = len(envs)
    b.decide(pending, np.array(envs), np.array(seats), np.zeros((k, 3)), np.ones((k, 4), bool),
             np.zeros(k, np.int64), np.zeros(k), np.array(values, np.float32))


def step(b, pending, rewards, done):
    b.credit(pending, np.array(rewards, np.float32), np.array(done, bool))


# one game of two seats, by hand: seat 0 decides (value 0.2), seat 1 (-0.1), then seat 1's move
# gives seat 0 a reward of 0.5; seat 0 decides (0.4), seat 1 (0.3), and that move ends the game
# with +1 for seat 0 and -1 for seat 1. Per seat, along its own decisions:
#   seat 0, last: 1 - 0.4 = 0.6; first: 0.5 + 0.9*0.4 - 0.2 + 0.9*0.8*0.6 = 1.092
#   seat 1, last: -1 - 0.3 = -1.3; first: 0 + 0.9*0.3 + 0.1 + 0.9*0.8*(-1.3) = -0.566
KNOWN = {"seat0": [1.092, 0.6], "seat1": [-0.566, -1.3]}


def play_known_game(b, pending, env=0, envs=1, cut=None):
    """The game above in env ``env`` of ``envs``; with ``cut``, the rollout ends after that
    step: returns the advantages of the first book, then the book carried over."""
    moves = [(0, 0.2, (0, 0)), (1, -0.1, (0.5, 0)), (0, 0.4, (0, 0)), (1, 0.3, (1, -1))]
    first = None
    for t, (seat, value, reward) in enumerate(moves):
        decide(b, pending, [env], [seat], [value])
        rewards = np.zeros((envs, 2))
        rewards[env] = reward
        done = np.zeros(envs, bool)
        done[env] = t == 3
        step(b, pending, rewards, done)
        if cut == t:
            first = b.advantages(GAMMA, LAM)
            b = b.carry(pending, 16)
    return first, b


def test_each_seat_is_credited_along_its_own_decisions_terminal_reward_included():
    pending = np.full((1, 2), -1)
    _, b = play_known_game(book(), pending)
    adv = b.advantages(GAMMA, LAM)
    np.testing.assert_allclose(adv[[0, 2]], KNOWN["seat0"], atol=1e-6)
    np.testing.assert_allclose(adv[[1, 3]], KNOWN["seat1"], atol=1e-6)
    assert b.closed[:4].all() and (pending == -1).all()


def known(n, closed: dict):
    want = np.full(n, np.nan)
    want[list(closed)] = list(closed.values())
    return want


@pytest.mark.parametrize("cut, first, second", [
    (0, {}, {0: 1.092, 1: -0.566, 2: 0.6, 3: -1.3}),
    (1, {}, {0: 1.092, 1: -0.566, 2: 0.6, 3: -1.3}),
    # seat 0's first decision closed in the first rollout, bootstrapped from its open successor
    # (0.5 + 0.9*0.4 - 0.2); the open ones carry over in (env, seat) order: seat 0's, then seat 1's
    (2, {0: 0.66}, {0: 0.6, 1: -0.566, 2: -1.3}),
])
def test_a_decision_open_at_the_end_of_a_rollout_is_credited_in_the_next(cut, first, second):
    pending = np.full((1, 2), -1)
    adv_first, b = play_known_game(book(), pending, cut=cut)
    np.testing.assert_allclose(adv_first, known(cut + 1, first), atol=1e-6)
    np.testing.assert_allclose(b.advantages(GAMMA, LAM), known(b.n, second), atol=1e-6)
    assert (pending == -1).all()


def test_the_rollout_end_truncates_gae_at_an_open_successor():
    pending = np.full((1, 2), -1)
    b = book()
    decide(b, pending, [0], [0], [0.2])
    step(b, pending, [[0, 0]], [False])
    decide(b, pending, [0], [1], [-0.1])
    step(b, pending, [[0.5, 0]], [False])
    decide(b, pending, [0], [0], [0.4])          # seat 0's first decision closes; this one is open
    step(b, pending, [[0, 0]], [False])
    adv = b.advantages(GAMMA, LAM)
    np.testing.assert_allclose(adv[0], 0.5 + GAMMA * 0.4 - 0.2, atol=1e-6)     # bootstrapped, no lambda tail
    assert np.isnan(adv[1:3]).all() and not b.closed[1:3].any()


def test_envs_do_not_mix_and_an_opponent_seat_still_ends_the_learners_decision():
    # env 1 plays the known game; in env 0 only seat 0 learns (a league opponent plays seat 1,
    # not recorded) and the opponent's move ends the game: seat 0 gets its -1 terminal reward
    pending = np.full((2, 2), -1)
    b = book()
    decide(b, pending, [0, 1], [0, 0], [0.5, 0.2])
    step(b, pending, [[0, 0], [0, 0]], [False, False])
    decide(b, pending, [1], [1], [-0.1])           # env 0: the opponent moves, the game ends
    step(b, pending, [[-1, 1], [0.5, 0]], [True, False])
    for seat, value, reward, done in [(0, 0.4, (0, 0), False), (1, 0.3, (1, -1), True)]:
        decide(b, pending, [1], [seat], [value])
        step(b, pending, [[0, 0], reward], [False, done])
    adv = b.advantages(GAMMA, LAM)
    np.testing.assert_allclose(adv[0], -1 - 0.5, atol=1e-6)
    np.testing.assert_allclose(adv[[1, 3]], KNOWN["seat0"], atol=1e-6)
    np.testing.assert_allclose(adv[[2, 4]], KNOWN["seat1"], atol=1e-6)


def test_shaping_adds_gamma_phi_next_minus_phi_and_minus_phi_at_the_end():
    # the known game with potentials: seat 0's decisions see phi 0.1 then 0.3, seat 1's -0.2 then 0.05.
    # Shaped rewards: seat 0: first 0.5 + 0.9*0.3 - 0.1 = 0.67, last 1 - 0.3 = 0.7;
    # seat 1: first 0 + 0.9*0.05 + 0.2 = 0.245, last -1 - 0.05 = -1.05
    phis = [0.1, -0.2, 0.3, 0.05]
    moves = [(0, 0.2, (0, 0)), (1, -0.1, (0.5, 0)), (0, 0.4, (0, 0)), (1, 0.3, (1, -1))]
    pending, b = np.full((1, 2), -1), book()
    for t, ((seat, value, reward), phi) in enumerate(zip(moves, phis)):
        b.decide(pending, np.array([0]), np.array([seat]), np.zeros((1, 3)), np.ones((1, 4), bool),
                 np.zeros(1, np.int64), np.zeros(1), np.array([value], np.float32), np.array([phi]))
        step(b, pending, [reward], [t == 3])
    adv = b.advantages(GAMMA, LAM)
    last0, last1 = 0.7 - 0.4, -1.05 - 0.3
    np.testing.assert_allclose(adv, [0.67 + GAMMA * 0.4 - 0.2 + GAMMA * LAM * last0,
                                     0.245 + GAMMA * 0.3 + 0.1 + GAMMA * LAM * last1, last0, last1], atol=1e-6)
    # and along a seat's sequence the bonuses telescope to -phi(first) (gamma 1: 0.5 + 1 - 0.1)
    lam_one = b.advantages(1.0, 1.0)
    np.testing.assert_allclose(lam_one[0] + 0.2, 0.5 + 1 - 0.1, atol=1e-6)


def test_chuche_margin_reads_the_observers_points_against_the_best_other():
    import baralho

    game = baralho.make("chuche_v1", num_players=3, scope="match").unwrapped.game
    layout = game.obs_layout
    obs = np.zeros((2, layout.size), np.int16)
    obs[0, layout["scores"]] = [20, 50, 10]
    obs[0, layout["round_points"]] = [5, 0, 30]
    obs[1, layout["scores"]] = [100, 0, 0]
    phi = game_module("chuche_v1", "shaping").potential(layout, game)(obs)
    np.testing.assert_allclose(phi, [(25 - 50) / 120, 100 / 120])       # the goal at 3 players
    with pytest.raises(ValueError, match="shaping"):
        sp.config_for("rodizio_v1", shaping=1.0)
    with pytest.raises(ValueError, match="shaping"):
        sp.config_for("chuche_v1", shaping=-1)


def test_scala40_margin_is_the_best_others_standing_minus_the_observers():
    """Standing = match total + this hand if it ended now: the observer's own penalty points
    (ace 11, a 7, a joker 25), the others' cards times the deck's mean penalty (two decks, two
    jokers: 810 / 106); an eliminated seat is out of reach."""
    import baralho

    game = baralho.make("scala40_v1", num_players=3).unwrapped.game
    layout = game.obs_layout
    obs = np.zeros((1, layout.size), np.int8)
    obs[0, layout["hand"].start + np.array([0, 6])] = 1   # the ace and the 7 of the first suit
    obs[0, layout["hand_jokers"]] = 1
    obs[0, layout["players"]] = [3, 1, 0, 40,   2, 1, 0, 60,   9, 0, 1, 101]
    mean = 810 / 106
    phi = game_module("scala40_v1", "shaping").potential(layout, game)(obs)
    np.testing.assert_allclose(phi, [((60 + 2 * mean) - (40 + 11 + 7 + 25)) / 100], rtol=1e-5)


def test_in_real_play_each_seat_is_credited_its_own_game_return_once():
    import baralho.vector as bv

    B, P, T = 24, 3, 90
    # the reference loop: three players and two in one process trip a numba-cache fault in the
    # compiled engine (reported to the lead), and crediting does not depend on the engine
    venv = bv.make("rodizio_v1", B, seed=4, num_players=P, engine="reference")
    obs, mask, seat = venv.reset()
    b, pending = SeatBook(B * T, venv.obs_size, venv.num_actions), np.full((B, P), -1)
    game, owner, returns = np.zeros(B, int), [], {}
    rng = np.random.default_rng(0)
    for _ in range(T):
        action = (rng.random(mask.shape) * mask).argmax(1)
        owner += [(e, game[e], seat[e]) for e in range(B)]
        b.decide(pending, np.arange(B), seat, obs, mask, action, np.zeros(B), np.zeros(B))
        obs, mask, seat, rewards, done = venv.step(action)
        for e in range(B):
            for s in range(P):
                returns[e, game[e], s] = returns.get((e, game[e], s), 0.0) + rewards[e, s]
        b.credit(pending, rewards, done)
        game[done] += 1
    finished = {key for key in set(owner) if key[1] < game[key[0]]}
    assert len(finished) > 3 * B
    for key in finished:
        rows = [i for i, o in enumerate(owner) if o == key]
        assert b.closed[rows].all() and b.terminal[rows].sum() == 1 and b.terminal[rows[-1]]
        assert b.reward[rows].sum() == returns[key] and returns[key] in (-1, 1)


def test_actions_stay_in_the_mask_and_an_empty_batch_is_no_forward_pass():
    from baralho.agents.policy import build_policy

    policy = build_policy("rodizio_v1", {}, dict(pi=[8], vf=[8]))
    mask = np.zeros((64, 18), np.int8)
    mask[np.arange(64), np.arange(64) % 18] = 1
    mask[::2, 5] = 1
    for deterministic in (False, True):
        actions, logp, values = bp.act(policy, np.random.default_rng(0).normal(size=(64, 298)), mask, deterministic)
        assert mask[np.arange(64), actions].all() and (logp <= 0).all() and values.shape == (64,)
    assert [len(x) for x in bp.act(policy, np.zeros((0, 298)), np.zeros((0, 18), np.int8))] == [0, 0, 0]


def test_act_scores_as_torch_categorical_and_samples_its_distribution():
    """act's log-probabilities are Categorical's; its inverse-CDF draws follow the masked
    softmax (frequencies within 5 standard errors over 40,000 draws) and never a masked action,
    also when u * total rounds up to the total."""
    import torch

    from baralho.agents.policy import build_policy

    policy = build_policy("rodizio_v1", {}, dict(pi=[8], vf=[8]))
    rng = np.random.default_rng(1)
    obs, mask = rng.normal(size=(64, 298)).astype(np.float32), rng.random((64, 18)) < 0.4
    mask[:, 3] = True
    actions, logp, values = bp.act(policy, obs, mask)
    with torch.no_grad():
        logits, want_values = bp.forward(policy, *bp.inputs(policy, obs), mask)
        dist = torch.distributions.Categorical(logits=logits)
    assert mask[np.arange(64), actions].all() and len(set(actions.tolist())) > 1
    assert np.allclose(logp, dist.log_prob(torch.as_tensor(actions)).numpy(), atol=1e-5)
    assert np.array_equal(values, want_values.numpy())
    assert np.array_equal(bp.act(policy, obs, mask, deterministic=True)[0], logits.argmax(-1).numpy())
    # moves_on (a league snapshot's and an evaluation's moves: the policy net alone) plays the same
    # argmax and draws from the same distribution, never a masked action
    assert np.array_equal(bp.moves_on(policy, *bp.inputs(policy, obs), mask, deterministic=True),
                          logits.argmax(-1).numpy())
    torch.manual_seed(2)
    drawn = np.stack([bp.moves_on(policy, *bp.inputs(policy, obs[:1].repeat(4000, 0)), mask[:1].repeat(4000, 0))
                      for _ in range(5)]).ravel()
    want = dist.probs[0].numpy()
    freq = np.bincount(drawn, minlength=18) / len(drawn)
    assert np.all(np.abs(freq - want) < 5 * np.sqrt(want * (1 - want) / len(drawn)) + 1e-9), (freq, want)
    assert len(bp.moves_on(policy, *bp.inputs(policy, obs[:0]), mask[:0])) == 0

    probs = torch.tensor([[0.0, 0.5, 0.0, 0.3, 0.2, 0.0]]).repeat(40_000, 1)
    drawn = bp.sample(probs).numpy()
    freq = np.bincount(drawn, minlength=6) / len(drawn)
    assert np.all(np.abs(freq - probs[0].numpy()) < 5 * np.sqrt(0.25 / len(drawn))), freq
    real_rand = torch.rand
    try:                    # u * total rounded up to the total (u = 1 stands for it): the last possible action
        torch.rand = lambda *shape: torch.ones(shape)
        assert bp.sample(torch.tensor([[0.1, 0.2, 0.7, 0.0, 0.0]])).tolist() == [2]
        torch.rand = lambda *shape: torch.zeros(shape)
        assert bp.sample(torch.tensor([[0.0, 0.0, 1.0]])).tolist() == [2]
    finally:
        torch.rand = real_rand


def tiny(out, env_id="rodizio_v1", **kw):
    return sp.config_for(env_id, **{**dict(num_envs=16, rollout=8, decisions=1024, eval_every=512, eval_games=4,
                                           snapshot_every=256, net_arch=(16,), minibatch=64, epochs=1,
                                           warm_start="none",
                                           torch_threads=1, heuristic_share=0.25, out=str(out), progress=False),
                                    **kw})


def test_a_tiny_run_on_the_compiled_engine_writes_a_loadable_policy_and_resumes(tmp_path):
    import baralho
    from baralho.agents import make_agent
    from baralho.agents.policy import load_policy

    out = sp.train(tiny(tmp_path, decisions=2048))
    s = json.loads((out / "summary.json").read_text())
    assert s["engine"] == "compiled" and s["decisions"] == 2048 and s["updates"] == 16
    assert 0 < s["learner_decisions"] <= 2048 and s["final"]["games"] == 8
    assert 0 <= s["final"]["ci_low"] <= s["final"]["win_rate"] <= s["final"]["ci_high"] <= 1
    assert len(list((out / "pool").glob("snapshot_*.json"))) == 8

    agent = make_agent(f"ppo:{out / 'final'}", "rodizio_v1")        # what tournaments and evaluate load
    env = baralho.make("rodizio_v1")
    env.reset(seed=0)
    obs = env.observe(env.agent_selection)
    assert obs["action_mask"][agent.act(obs, env.agent_selection)]

    # resume with no budget left: nothing is learned, the policy is the checkpoint's
    before = load_policy(out / "checkpoint" / "policy", "rodizio_v1")[0].state_dict()
    sp.train(tiny(tmp_path, decisions=2048, resume=True))
    after = load_policy(out / "final", "rodizio_v1")[0].state_dict()
    assert all(np.array_equal(before[k], after[k]) for k in before)
    # resume with more: the counters, the league and the snapshot numbering go on
    sp.train(tiny(tmp_path, decisions=3072, resume=True, net_arch=(32, 32)))    # the run's net, not this one
    s2 = json.loads((out / "summary.json").read_text())
    assert s2["decisions"] == 3072 and s2["updates"] == 24 and s2["learner_decisions"] > s["learner_decisions"]
    assert [e["decisions"] for e in s2["evals"]] == [512, 1024, 1536, 2048, 2560, 3072]
    assert (out / "pool" / "snapshot_0012.json").exists() and s2["config"]["net_arch"] == [16]
    with pytest.raises(ValueError, match="num_players"):
        sp.train(tiny(tmp_path / "bad", env_config={"num_players": 9}))
    assert not (tmp_path / "bad" / "run.json").exists()


def test_a_tiny_run_on_the_reference_loop_with_a_warm_start(tmp_path):
    out = sp.train(tiny(tmp_path, env_id="chuche_v1", engine="reference", decisions=1024, eval_games=2,
                        warm_start="heuristic",
                        warm_start_steps=300, warm_start_epochs=1))
    s = json.loads((out / "summary.json").read_text())
    assert s["engine"] == "reference" and s["decisions"] == 1024
    first = json.loads((out / "pool" / "snapshot_0001.json").read_text())
    assert first["clone_of"] == "heuristic" and first["decisions"] == 0
    assert s["warm_start"]["steps"] >= 300 and 0 <= s["warm_start"]["accuracy"] <= 1
    assert s["baseline"]["games"] == 4 and s["seconds_this_invocation"]["heuristic"] > 0
    from baralho.agents import make_agent

    assert make_agent(f"ppo:{out / 'final'}", "chuche_v1").card["env_id"] == "chuche_v1"


def test_resume_refuses_an_sb3_run_and_the_cli_runs_selfplay(tmp_path, capsys):
    from baralho.cli import main
    from baralho.training.train import TrainConfig, claim_out

    claim_out(TrainConfig(env_id="rodizio_v1", out=str(tmp_path / "sb3")))
    with pytest.raises(ValueError, match="is a run of --algo sb3, not selfplay"):
        sp.train(tiny(tmp_path / "sb3", resume=True))
    assert main(["train", "rodizio_v1", "--num-envs", "8", "--timesteps", "128", "--eval-games", "2",
                 "--warm-start", "none",
                 "--out", str(tmp_path / "cli"), "--quiet"]) == 0
    assert "vs heuristic over 4 games" in capsys.readouterr().out
    assert json.loads((tmp_path / "cli" / "run.json").read_text())["algo"] == "selfplay"


def test_ctrl_c_stops_learning_then_evaluates_saves_and_exits_130(tmp_path, monkeypatch, capsys):
    from baralho.cli import main

    real, calls = sp.ppo_update, []

    def interrupted_update(*args, **kwargs):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(sp, "ppo_update", interrupted_update)
    assert main(["train", "rodizio_v1", "--num-envs", "8", "--timesteps", "100000", "--eval-games", "2",
                 "--warm-start", "none",
                 "--out", str(tmp_path), "--quiet"]) == 130
    out = capsys.readouterr().out
    assert "interrupted at 384 decisions" in out and "(interrupted)" in out
    s = json.loads((tmp_path / "summary.json").read_text())
    assert s["interrupted"] and s["updates"] == 2 and s["final"]["decisions"] == 384   # stepped, 2 updates
    from baralho.agents import make_agent

    assert make_agent(f"ppo:{tmp_path / 'final'}", "rodizio_v1").card["decisions"] == 384


def test_bad_settings_are_refused_before_anything_starts(tmp_path):
    with pytest.raises(ValueError, match="sum <= 1"):
        sp.config_for("rodizio_v1", self_share=0.8, heuristic_share=0.5)
    with pytest.raises(ValueError, match="num_envs must be a positive integer"):
        sp.config_for("rodizio_v1", num_envs=0)
    with pytest.raises(ValueError, match="eval_every must be an integer >= 0"):
        sp.config_for("rodizio_v1", eval_every=-1)
    with pytest.raises(ValueError, match="unknown self-play setting"):
        sp.config_for("rodizio_v1", timesteps=5)
    assert not tmp_path.joinpath("run.json").exists()


def test_a_warm_start_brings_gentler_ppo_and_none_turns_both_off():
    on, off = sp.config_for("rodizio_v1"), sp.config_for("rodizio_v1", warm_start="none")
    assert on.warm_start == "heuristic" and on.learning_rate == sp.GENTLE["learning_rate"]
    assert off.warm_start is None and (off.learning_rate, off.ent_coef, off.clip_range) == (3e-4, 0.01, 0.2)
    assert sp.config_for("chuche_v1", warm_start="heuristic").clip_range == sp.GENTLE["clip_range"]
    assert sp.config_for("rodizio_v1", learning_rate=5e-4).learning_rate == 5e-4       # a flag wins


def test_the_docstring_table_shows_the_defaults():
    rows = {line.split("|")[1].strip(): [c.strip() for c in line.split("|")[2:-1]]
            for line in sp.__doc__.splitlines() if line.startswith("| ") and "_v1" in line}
    assert set(rows) == set(sp.DEFAULTS)

    for env_id in sp.DEFAULTS:
        cfg = sp.config_for(env_id)
        league = round(1 - cfg.self_share - cfg.heuristic_share, 6)
        assert rows[env_id] == ["compiled" if env_id in compiled_ids() else "reference", str(cfg.num_envs),
                                str(cfg.rollout),
                                "x".join(map(str, cfg.net_arch)) + ("" if cfg.inputs == "raw" else f" {cfg.inputs}"),
                                f"{cfg.gamma:g}", str(cfg.epochs),
                                f"{cfg.self_share:g} / {cfg.heuristic_share:g} / {league:g}",
                                cfg.warm_start or "none", cfg.prior, f"{cfg.shaping:g}",
                                f"{cfg.learning_rate:g}/{cfg.ent_coef:g}/{cfg.clip_range:g}",
                                f"{cfg.max_minutes:g}"], \
            f"{env_id}: the table or DEFAULTS is out of date (a new compiled engine wants a bigger batch)"


@pytest.mark.parametrize("env_id, config", [("rodizio_v1", {}), ("scala40_v1", {"scope": "hand"})])
def test_a_new_policy_with_the_heuristic_prior_plays_as_the_heuristic(env_id, config):
    """Evaluated against the heuristic, a new prior policy plays every deal exactly as the heuristic
    does against itself (Scala 40's heuristic keeps a plan across the turn: the hint is the plan's move)."""
    from baralho.agents.policy import build_policy

    cfg = sp.config_for(env_id, env_config=config, prior="heuristic")
    policy = build_policy(env_id, config, dict(pi=[16], vf=[16]), inputs="symlog", prior="heuristic")
    policy.set_training_mode(False)
    assert sp.evaluate(policy, cfg, 6, 11) == sp.evaluate(None, cfg, 6, 11)


def test_a_tiny_run_with_the_heuristic_prior_learns_its_weight_and_resumes_with_it(tmp_path):
    from baralho.agents import make_agent

    out = sp.train(tiny(tmp_path, prior="heuristic", decisions=1024))
    s = json.loads((out / "summary.json").read_text())
    agent = make_agent(f"ppo:{out / 'final'}", "rodizio_v1")
    assert agent.card["prior"] == "heuristic" and agent.policy.prior_weight.item() != 4.0   # learned
    assert s["seconds_this_invocation"]["heuristic"] > 0 and s["config"]["prior"] == "heuristic"
    sp.train(tiny(tmp_path, decisions=1536, resume=True))          # the run's prior, not this config's none
    assert make_agent(f"ppo:{out / 'final'}", "rodizio_v1").card["prior"] == "heuristic"


def test_the_heuristic_prior_replaces_a_default_warm_start_and_is_refused_beside_one():
    cfg = sp.config_for("scala40_v1", prior="heuristic")
    assert cfg.warm_start is None and cfg.clip_range == 0.2          # PPO's own steps, not GENTLE's
    with pytest.raises(ValueError, match="no warm start with it"):
        sp.config_for("scala40_v1", prior="heuristic", warm_start="heuristic")
    with pytest.raises(ValueError, match="prior must be one of"):
        sp.config_for("rodizio_v1", prior="oracle")
    with pytest.raises(ValueError, match="prior_weight"):
        sp.config_for("rodizio_v1", prior="heuristic", prior_weight=0)


def test_the_critic_warm_up_moves_the_value_net_only():
    import torch

    from baralho.agents.policy import build_policy

    policy = build_policy("rodizio_v1", {}, dict(pi=[8], vf=[8]), prior="heuristic")
    optimizer = torch.optim.Adam(policy.parameters(), lr=1e-2)
    b, pending = SeatBook(64, 298 + 18, 18), np.full((16, 2), -1, np.int64)    # the hint one-hot after
    rng = np.random.default_rng(0)
    for t in range(3):
        envs = np.arange(16)
        obs, mask = rng.normal(size=(16, 298)), np.ones((16, 18), bool)
        x, onehot = bp.inputs(policy, obs, np.full(16, 2))
        a, logp, v = bp.act_on(policy, x, onehot, mask)
        b.decide(pending, envs, np.full(16, t % 2), x.numpy(), mask, a, logp, v, hint=np.full(16, 2))
        b.credit(pending, rng.normal(size=(16, 2)).astype(np.float32), np.full(16, t == 2))
    before = {k: v.clone() for k, v in policy.state_dict().items()}
    cfg = sp.config_for("rodizio_v1", minibatch=16, epochs=2)
    sp.ppo_update(policy, optimizer, b, b.advantages(0.99, 0.95), cfg, rng, actor=False)
    moved = {k for k, v in policy.state_dict().items() if not torch.equal(v, before[k])}
    assert moved and all(k.startswith(("mlp_extractor.value_net", "value_net")) for k in moved), moved
    sp.ppo_update(policy, optimizer, b, b.advantages(0.99, 0.95), cfg, rng)
    moved = {k for k, v in policy.state_dict().items() if not torch.equal(v, before[k])}
    assert "prior_weight" in moved and "action_net.weight" in moved


@pytest.mark.parametrize("env_id, inputs, prior", [("scala40_v1", "symlog", "heuristic"),
                                                   ("chuche_v1", "symlog", "none"),
                                                   ("rodizio_v1", "raw", "heuristic"),
                                                   ("roda_de_samba_v1", "raw", "none")])
def test_the_trainers_inputs_are_the_features_extractors_bit_for_bit(env_id, inputs, prior):
    """sp.inputs looks the integer observations up in a table; a policy plays through
    features_of (torch's symlog): both must give the nets the same numbers, the dtype's
    extremes (beyond any observation's bounds) and hints of -1 (none) included."""
    import torch

    from baralho.agents.policy import build_policy, features_of

    policy = build_policy(env_id, {}, dict(pi=[8], vf=[8]), inputs=inputs, prior=prior)
    size = policy.observation_space.shape[0] - (policy.action_space.n if prior == "heuristic" else 0)
    rng = np.random.default_rng(0)
    dtype = baralho_vector_dtype(env_id)
    low, high = np.iinfo(dtype).min, np.iinfo(dtype).max
    obs = rng.integers(-200, 200, (300, size)).astype(dtype)
    obs[:2, :3] = [[low, high, 0], [-1, 1, high - 1]]
    obs[2:258, 3] = np.arange(-128, 128)
    hint = rng.integers(-1, policy.action_space.n, 300) if prior == "heuristic" else None
    x, onehot = bp.inputs(policy, obs, hint)
    with torch.no_grad():
        want, want_onehot = features_of(policy, torch.as_tensor(obs, dtype=torch.float32), hint)
    assert x.dtype == want.dtype and x.shape == want.shape
    assert torch.equal(x, want)
    assert (onehot is None) == (want_onehot is None)
    if onehot is not None:
        assert torch.equal(onehot, want_onehot) and (hint == -1).any()


def baralho_vector_dtype(env_id):
    import baralho.vector as bv

    return bv.make(env_id, 1, 0).reset()[0].dtype


# --- careless options and damaged runs (issue 42) ----------------------------------------------

@pytest.mark.parametrize("flags, says", [
    (["--max-minutes", "nan"], "--max-minutes: must be above 0 and finite"),
    (["--max-minutes", "-1"], "--max-minutes: must be above 0 and finite"),
    (["--learning-rate", "inf"], "--learning-rate: must be above 0 and finite"),
    (["--seed", "-1"], "--seed: must be an integer >= 0"),
    (["--ent-coef", "nan"], "--ent-coef: must be a finite number >= 0"),
    (["--shaping", "inf"], "--shaping: must be a finite number >= 0"),
])
def test_the_cli_refuses_options_that_cannot_work_before_claiming_out(tmp_path, capsys, flags, says):
    from baralho.cli import main

    with pytest.raises(SystemExit) as exit_:
        main(["train", "rodizio_v1", *flags, "--out", str(tmp_path / "run"), "--quiet"])
    assert exit_.value.code == 2 and says in capsys.readouterr().err
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("setting, says", [
    (dict(max_minutes=float("nan")), "max_minutes must be a number of minutes > 0"),
    (dict(max_minutes=-1), "max_minutes must be a number of minutes > 0"),
    (dict(learning_rate=float("inf")), "learning_rate must be a finite number"),
    (dict(gamma=float("nan")), "gamma must be a finite number"),
    (dict(seed=-1), r"seed must be an integer in \[0, 2\*\*32\)"),
    (dict(seed=1.5), "seed must be an integer"),
])
def test_the_config_refuses_non_finite_and_negative_settings(tmp_path, setting, says):
    with pytest.raises(ValueError, match=says):
        sp.train(tiny(tmp_path / "run", **setting))
    assert not (tmp_path / "run").exists()


def test_a_run_whose_weights_go_non_finite_stops_and_keeps_its_last_good_checkpoint(tmp_path, monkeypatch):
    import torch

    from baralho.agents.policy import load_policy

    real, calls = sp.ppo_update, []

    def poisoned_update(policy, *args, **kwargs):
        calls.append(1)
        stats = real(policy, *args, **kwargs)
        if len(calls) == 6:                      # after the first evaluation and checkpoint (4 updates)
            with torch.no_grad():
                next(policy.parameters()).fill_(float("nan"))
        return stats

    monkeypatch.setattr(sp, "ppo_update", poisoned_update)
    with pytest.raises(sp.TrainingDiverged, match=r"NaN or infinite in update 6 .* last good checkpoint "
                                                  r"\(512 decisions\) .* --resume"):
        sp.train(tiny(tmp_path))
    assert not (tmp_path / "final.json").exists()
    saved, card = load_policy(tmp_path / "checkpoint" / "policy", "rodizio_v1")   # finite: it loads
    assert card["decisions"] == 512
    assert json.loads((tmp_path / "checkpoint" / "counters.json").read_text())["decisions"] == 512
    monkeypatch.setattr(sp, "ppo_update", real)
    sp.train(tiny(tmp_path, resume=True))          # and the run goes on from it
    assert json.loads((tmp_path / "summary.json").read_text())["decisions"] == 1024


@pytest.mark.parametrize("name, damage", [
    ("counters.json", lambda p: p.write_bytes(p.read_bytes()[:20])),
    ("optimizer.pt", lambda p: p.write_bytes(p.read_bytes()[:100])),
    ("policy.npz", lambda p: p.write_bytes(p.read_bytes()[:100])),
])
def test_resume_names_a_damaged_checkpoint_file_and_keeps_the_run(tmp_path, name, damage):
    from baralho.training.checkpoint import DamagedCheckpoint

    sp.train(tiny(tmp_path, decisions=512))
    files = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file())
    damage(tmp_path / "checkpoint" / name)
    shown = "policy.json" if name == "policy.npz" else name
    with pytest.raises(DamagedCheckpoint, match=rf"checkpoint/{shown} cannot be read .* --overwrite"):
        sp.train(tiny(tmp_path, decisions=1024, resume=True))
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file()) == files


def test_a_checkpoint_is_replaced_whole(tmp_path, monkeypatch):
    """A write that dies half-way leaves the previous file, not a truncated one."""
    from baralho.training import checkpoint

    target = tmp_path / "counters.json"
    target.write_text('{"decisions": 1}')

    def dies(tmp):
        tmp.write_text('{"deci')
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        checkpoint._replace(target, dies)
    assert json.loads(target.read_text()) == {"decisions": 1} and list(tmp_path.iterdir()) == [target]


def test_every_setting_is_a_flag_of_the_train_command(tmp_path, capsys):
    from dataclasses import fields

    from baralho.cli import build_parser, main

    flags = {a.dest for a in next(a for a in build_parser()._subparsers._actions if a.choices)
             .choices["train"]._actions}
    names = {sp.FLAG_OF.get(f.name, f.name) for f in fields(sp.SelfPlayConfig) if f.name not in sp.NOT_FLAGS}
    assert names <= flags, names - flags
    assert main(["train", "rodizio_v1", "--num-envs", "8", "--timesteps", "128", "--eval-games", "2",
                 "--warm-start", "none", "--gamma", "0.9", "--net-arch", "16", "8", "--self-share", "0.5",
                 "--out", str(tmp_path), "--quiet"]) == 0
    s = json.loads((tmp_path / "summary.json").read_text())
    assert s["config"]["gamma"] == 0.9 and s["config"]["net_arch"] == [16, 8] and s["config"]["self_share"] == 0.5
    assert "--gamma 0.9" in s["command"] and "--net-arch 16 8" in s["command"] and "--out" not in s["command"]
    with pytest.raises(SystemExit, match="--gamma is a selfplay setting"):
        main(["train", "rodizio_v1", "--algo", "sb3", "--gamma", "0.9", "--out", str(tmp_path / "sb3")])


def test_init_starts_from_a_trained_policy_its_net_and_prior_the_leagues_first_member(tmp_path):
    from baralho.agents.policy import load_policy

    first = sp.train(tiny(tmp_path / "a", prior="heuristic", net_arch=(8,), decisions=512))
    start = load_policy(first / "final", "rodizio_v1")[0].state_dict()
    # a fresh 16-wide net without the prior is asked for; the init's 8-wide hinted net is taken
    out = sp.train(tiny(tmp_path / "b", init=str(first / "final.json"), decisions=512))
    s = json.loads((out / "summary.json").read_text())
    assert s["config"]["net_arch"] == [8] and s["config"]["prior"] == "heuristic"
    member = json.loads((out / "pool" / "snapshot_0001.json").read_text())
    assert member["init"] == "final.json" and member["decisions"] == 0
    seeded = load_policy(out / "pool" / "snapshot_0001", "rodizio_v1")[0].state_dict()
    assert all(np.array_equal(start[k], seeded[k]) for k in start)
    assert sp.config_for("rodizio_v1", init="zoo").warm_start is None        # the default clone is dropped
    with pytest.raises(ValueError, match="no warm start with it"):
        sp.config_for("rodizio_v1", init="zoo", warm_start="heuristic")
    with pytest.raises(ValueError, match="no zoo policy for rodizio_v1 at 4 players"):
        sp.train(tiny(tmp_path / "c", init="zoo", env_config={"num_players": 4}))
    assert not (tmp_path / "c" / "run.json").exists()
