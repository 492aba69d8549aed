"""The behaviour-cloning warm start: demonstrations, the fit, the settings and the CLI."""

from __future__ import annotations

import json

import numpy as np
import pytest

from baralho.agents import bind_if_needed, make_agent
from baralho.cli import main
from baralho.training.single_agent import SingleAgentEnv
from baralho.training.train import FINE_TUNING, TrainConfig, check, config_for, train
from baralho.training.warm_start import agreement, collect, fit


def small_model(env_id: str, net_arch=(64, 64)):
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    torch.set_num_threads(1)
    venv = DummyVecEnv([lambda: SingleAgentEnv(env_id, opponents=["random"])])
    return MaskablePPO("MlpPolicy", venv, policy_kwargs=dict(net_arch=list(net_arch)), seed=0, device="cpu")


def test_returns_are_the_learners_game_returns():
    env = SingleAgentEnv("chuche_v1", opponents=["random", "heuristic"])
    demos = collect(env, make_agent("heuristic", "chuche_v1"), steps=600, gamma=1.0, seed=3)
    assert len(demos) == 600 and demos.observations.shape == (600, env.observation_space.shape[0])
    assert demos.masks[np.arange(len(demos)), demos.actions].all(), "every recorded action is legal"
    teacher = make_agent("heuristic", "chuche_v1")
    for episode in np.unique(demos.episodes):
        rows = np.flatnonzero(demos.episodes == episode)
        # replay the episode from its seeds with the teacher, to its end (the last one was cut
        # at 600 decisions): the undiscounted return at every decision is the final one
        env.reset(seed=3 + int(episode))
        teacher.reset(seed=3 + int(episode))
        bind_if_needed(teacher, env.aec)
        played, done = [], False
        while not done:
            played.append(int(teacher.act(env.aec.observe(env.learner), env.learner)))
            done = env.step(played[-1])[2]
        assert played[:len(rows)] == demos.actions[rows].tolist()
        assert len(rows) == len(played) or episode == demos.episodes[-1], "only the last episode is cut"
        final = env.game.returns(env.aec.unwrapped.game_state)[int(env.learner.split("_")[1])]
        assert np.allclose(demos.returns[rows], final)


def collect_by_lists(env, teacher, steps: int, seed: int, gamma: float):
    """The plain way collect() must match: whole episodes, every row in a list, stacked at the end."""
    observations, masks, actions, episodes, returns = [], [], [], [], []
    episode = 0
    while len(actions) < steps:
        obs, _ = env.reset(seed=seed + episode)
        teacher.reset(seed=seed + episode)
        bind_if_needed(teacher, env.aec)
        done, rewards = False, []
        while not done:
            view = env.aec.observe(env.learner)
            action = int(teacher.act(view, env.learner))
            observations.append(obs)
            masks.append(view["action_mask"].astype(bool))
            actions.append(action)
            episodes.append(episode)
            obs, reward, done, _, _ = env.step(action)
            rewards.append(reward)
        returns.extend(sum(r * gamma ** j for j, r in enumerate(rewards[t:])) for t in range(len(rewards)))
        episode += 1
    return (np.stack(observations), np.stack(masks), np.asarray(actions), np.asarray(episodes),
            np.asarray(returns, np.float32))


@pytest.mark.parametrize("env_id, steps", [("chuche_v1", 700), ("rodizio_v1", 301)])
def test_exactly_steps_decisions_in_one_block_of_that_size(env_id, steps):
    env = SingleAgentEnv(env_id, opponents=["random", "heuristic"])
    demos = collect(env, make_agent("heuristic", env_id, seed=1), steps=steps, gamma=0.99, seed=5)
    observations, masks, actions, episodes, returns = collect_by_lists(
        SingleAgentEnv(env_id, opponents=["random", "heuristic"]), make_agent("heuristic", env_id, seed=1),
        steps, seed=5, gamma=0.99)
    assert len(actions) > steps, "the plain collection ran past steps: the cut is tested"
    assert len(demos) == steps
    np.testing.assert_array_equal(demos.observations, observations[:steps])
    np.testing.assert_array_equal(demos.masks, masks[:steps])
    np.testing.assert_array_equal(demos.actions, actions[:steps])
    np.testing.assert_array_equal(demos.episodes, episodes[:steps])
    # the cut episode's returns are those of the whole episode, played to its end
    np.testing.assert_allclose(demos.returns, returns[:steps], rtol=1e-5, atol=1e-6)
    # one allocation of exactly steps rows (no room reserved for the last episode's overflow)
    assert demos.observations.base is None and demos.observations.shape[0] == steps
    assert demos.observations.flags.c_contiguous, "fit() hands it to torch without a copy"


def test_an_episode_past_the_games_bound_is_an_error(monkeypatch):
    env = SingleAgentEnv("chuche_v1", opponents=["random"])
    monkeypatch.setattr(env.game, "max_decisions", 3)   # a Chuche game takes dozens of the learner's decisions
    with pytest.raises(RuntimeError, match="bound of 3 decisions"):
        collect(env, make_agent("heuristic", "chuche_v1"), steps=1, gamma=0.99, seed=0)


@pytest.mark.parametrize("env_id", ["chuche_v1", "roda_de_samba_v1"])
def test_fit_raises_agreement_with_the_heuristic(env_id):
    model = small_model(env_id)
    env = SingleAgentEnv(env_id, opponents=["random", "heuristic"])
    demos = collect(env, make_agent("heuristic", env_id, seed=0), steps=1500, gamma=model.gamma, seed=0)
    train_part, held_out = demos.split(0.2)
    assert len(held_out) and not set(train_part.episodes) & set(held_out.episodes)
    before = agreement(model.policy, held_out)["choice_accuracy"]
    history = fit(model.policy, train_part, held_out, epochs=4, batch_size=128, learning_rate=1e-3,
                  value_coef=0.5, seed=0, log=lambda line: None)
    after = history[-1]["choice_accuracy"]
    assert after > before + 0.15, (before, after)
    assert history[-1]["nll"] < history[0]["nll"]
    assert model.policy.optimizer.param_groups[0]["lr"] == pytest.approx(3e-4), "PPO's lr is restored"


def test_fine_tuning_settings_apply_only_with_a_warm_start():
    plain = config_for("scala40_v1")
    warm = config_for("scala40_v1", "heuristic", learning_rate=5e-5, timesteps=None)
    assert plain.ent_coef == TrainConfig.ent_coef and plain.opponent_weights is None
    assert warm.ent_coef == FINE_TUNING["ent_coef"] and warm.clip_range == FINE_TUNING["clip_range"]
    assert warm.learning_rate == 5e-5, "a flag beats the fine-tuning default"
    assert warm.net_arch == plain.net_arch == (128, 128), "the game's defaults still apply"


def test_a_games_own_fine_tuning_settings_win(monkeypatch):
    import baralho.training.train as t

    monkeypatch.setitem(t.DEFAULTS, "chuche_v1", dict(n_steps=512, fine_tuning=dict(ent_coef=0.002)))
    cfg = config_for("chuche_v1", "heuristic")
    assert (cfg.n_steps, cfg.ent_coef, cfg.learning_rate) == (512, 0.002, FINE_TUNING["learning_rate"])
    assert config_for("chuche_v1").ent_coef == TrainConfig.ent_coef


@pytest.mark.parametrize("bad", [dict(warm_start_steps=0), dict(warm_start_epochs=-1),
                                 dict(opponent_weights=(1.0,)), dict(opponent_weights=(0.0, 0.0)),
                                 dict(clip_range=0.0), dict(ent_coef=-0.1)])
def test_bad_settings_are_refused(bad):
    with pytest.raises(ValueError):
        check(TrainConfig(warm_start="heuristic", **bad))


@pytest.mark.parametrize("flags, message", [
    (["--warm-start-steps", "0"], "must be above 0"),
    (["--warm-start-epochs", "two"], "not an integer"),
    (["--warm-start", "ismcts:10"], "invalid choice"),
    (["--clip-range", "-1"], "must be above 0"),
])
def test_cli_refuses_bad_warm_start_flags(flags, message, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["train", "rodizio_v1", *flags])
    assert exit_.value.code == 2 and message in capsys.readouterr().err


def test_cli_passes_the_warm_start_flags(monkeypatch, tmp_path):
    import baralho.training.train as t

    seen = {}

    def fake_train(cfg):
        seen["cfg"] = cfg
        (tmp_path / "curve.json").write_text(json.dumps(dict(curve=[dict(timesteps=0, seconds=0.0,
                                                                         vs_random=0.5, vs_heuristic=0.5)])))
        return tmp_path

    monkeypatch.setattr(t, "train", fake_train)
    assert main(["train", "rodizio_v1", "--algo", "sb3", "--warm-start", "heuristic", "--warm-start-steps", "5000",
                 "--warm-start-epochs", "3", "--ent-coef", "0.001", "--quiet"]) == 0
    cfg = seen["cfg"]
    assert (cfg.warm_start, cfg.warm_start_steps, cfg.warm_start_epochs) == ("heuristic", 5000, 3)
    assert cfg.ent_coef == 0.001 and cfg.learning_rate == FINE_TUNING["learning_rate"]


def test_tiny_training_run_with_a_warm_start(tmp_path):
    out = train(TrainConfig(env_id="rodizio_v1", timesteps=128, num_envs=1, n_steps=128, batch_size=64,
                            n_epochs=1, eval_every=128, eval_games=4, snapshot_every=128, net_arch=(16,),
                            warm_start="heuristic", warm_start_steps=300, warm_start_epochs=2,
                            out=str(tmp_path), progress_bar=False))
    run = json.loads((out / "curve.json").read_text())
    first, warm = run["curve"][0], run["warm_start"]
    assert first["timesteps"] == 0 and first["warm_start"] and 0 <= first["vs_heuristic"] <= 1
    assert warm["steps"] >= 300 and len(warm["epochs"]) == 2 and 0 <= warm["accuracy"] <= 1
    assert warm["seconds"] <= run["wall_seconds"] and run["curve"][-1]["timesteps"] >= 128
