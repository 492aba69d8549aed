"""Issue 26.1 and 26.3: nothing a user loads runs code; a training folder belongs to one run.

Every crafted file below carries a pickle whose ``__reduce__`` creates a file when it is
unpickled; each test asserts the file was NOT created (and the load was refused)."""

from __future__ import annotations

import base64
import json
import pickle
import zipfile
from pathlib import Path

import numpy as np
import pytest

from baralho.agents import make_agent

pytest.importorskip("sb3_contrib")


class Touch:
    """Unpickling this creates ``path``: proof that the loader ran code from the file."""

    def __init__(self, path: Path) -> None:
        self.path = str(path)

    def __reduce__(self):
        return (open, (self.path, "w"))


def crafted_sb3_zip(path: Path, touched: Path) -> Path:
    """A zip shaped like MaskablePPO.save's: the payload in ``data`` (SB3 cloudpickles
    fields there) and in ``policy.pth``."""
    payload = base64.b64encode(pickle.dumps(Touch(touched))).decode()
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("data", json.dumps({"observation_space": {":type:": "<class 'x'>", ":serialized:": payload},
                                       "policy_class": {":type:": "<class 'x'>", ":serialized:": payload}}))
        z.writestr("policy.pth", pickle.dumps(Touch(touched)))
        z.writestr("_stable_baselines3_version", "2.9.2")
    return path


def crafted_card(tmp_path: Path, touched: Path) -> Path:
    """A well-formed card whose .npz holds a pickled object array instead of weights."""
    card = dict(format="baralho-policy", version=1, env_id="rodizio_v1", config={},
                observation_shape=[294], num_actions=18, net_arch={"pi": [16], "vf": [16]},
                activation="tanh", weights="evil.npz")
    (tmp_path / "evil.json").write_text(json.dumps(card))
    np.savez(tmp_path / "evil.npz", **{"action_net.bias": np.array([Touch(touched)], dtype=object)})
    return tmp_path / "evil.json"


def load_through(entry: str, spec: str, tmp_path: Path) -> None:
    if entry == "make_agent":
        make_agent(spec, "rodizio_v1")
    elif entry == "gym_view":
        from baralho.training.single_agent import SingleAgentEnv

        SingleAgentEnv("rodizio_v1", opponents=[spec])
    elif entry == "tournament":
        from baralho.training import tournament

        tournament.run("rodizio_v1", [spec, "random"], games=2, num_players=2, workers=1, progress=False)
    elif entry == "evaluate":
        from baralho import cli

        assert cli.main(["evaluate", spec.removeprefix("ppo:"), "rodizio_v1", "--games", "2", "--quiet",
                         "--workers", "1"]) == 2
        raise ValueError("refused")          # main() printed the error and returned 2


@pytest.mark.parametrize("entry", ["make_agent", "gym_view", "tournament", "evaluate"])
@pytest.mark.parametrize("kind", ["sb3_zip", "card_npz"])
def test_a_crafted_model_file_runs_no_code(tmp_path, entry, kind):
    touched = tmp_path / "pwned"
    path = crafted_sb3_zip(tmp_path / "evil.zip", touched) if kind == "sb3_zip" else crafted_card(tmp_path, touched)
    with pytest.raises(ValueError):
        load_through(entry, f"ppo:{path}", tmp_path)
    assert not touched.exists()


def test_zoo_export_of_a_crafted_zip_runs_no_code(tmp_path):
    from baralho.zoo import export

    touched = tmp_path / "pwned"
    with pytest.raises(ValueError, match="more than weights"):
        export(crafted_sb3_zip(tmp_path / "evil.zip", touched), tmp_path / "out", "rodizio_v1")
    assert not touched.exists() and not (tmp_path / "out.json").exists()


def test_an_sb3_zip_is_refused_with_the_way_to_convert_it(tmp_path):
    with pytest.raises(ValueError, match=r"unpickles.*baralho\.zoo\.export"):
        make_agent(f"ppo:{tmp_path / 'model.zip'}", "rodizio_v1")


def test_weights_that_do_not_fit_the_card_are_refused(tmp_path):
    from baralho.agents.policy import build_policy, save_policy

    card = save_policy(build_policy("rodizio_v1", {}, {"pi": [8], "vf": [8]}), tmp_path / "p", "rodizio_v1", {})
    data = json.loads(card.read_text())
    (tmp_path / "p.json").write_text(json.dumps(dict(data, net_arch={"pi": [16], "vf": [8]})))
    with pytest.raises(ValueError, match="do not fit"):
        make_agent(f"ppo:{card}", "rodizio_v1")
    (tmp_path / "p.json").write_text(json.dumps(data))
    with pytest.raises(ValueError, match="a policy for rodizio_v1, not chuche_v1"):
        make_agent(f"ppo:{card}", "chuche_v1")
    with pytest.raises(ValueError, match="trained for 2 players, this env has 3"):
        make_agent(f"ppo:{card}", "rodizio_v1", config={"num_players": 3})
    assert make_agent(f"ppo:{tmp_path / 'p'}", "rodizio_v1").card["net_arch"] == {"pi": [8], "vf": [8]}
    (tmp_path / "p.npz").unlink()
    with pytest.raises(ValueError, match="missing or not a regular file"):
        make_agent(f"ppo:{card}", "rodizio_v1")


def test_symlog_inputs_are_on_the_card_and_a_policy_plays_the_same_after_loading(tmp_path):
    import torch

    from baralho.agents.policy import build_policy, load_policy, save_policy
    from baralho.training.batch_policy import forward as forward_on
    from baralho.training.batch_policy import inputs

    def forward(policy, obs, mask):
        return forward_on(policy, *inputs(policy, obs), mask)

    policy = build_policy("chuche_v1", {}, {"pi": [8], "vf": [8]}, inputs="symlog")
    space = policy.observation_space
    top = torch.as_tensor(np.maximum(np.abs(space.low), np.abs(space.high)).astype(np.float32)[None])
    assert torch.allclose(policy.features_extractor(top), torch.ones_like(top))          # a bound is 1
    assert torch.equal(policy.features_extractor(torch.zeros_like(top)), torch.zeros_like(top))
    card = save_policy(policy, tmp_path / "p", "chuche_v1", {})
    assert json.loads(card.read_text())["inputs"] == "symlog"
    loaded, _ = load_policy(card, "chuche_v1")
    obs = np.random.default_rng(0).integers(0, 3, (5, space.shape[0])).astype(np.float32)
    obs[:, -5:] = 140                                    # large counts and points
    mask = np.ones((5, policy.action_space.n), bool)
    for a, b in zip(forward(policy, obs, mask), forward(loaded, obs, mask)):
        assert torch.allclose(a, b)
    raw, _ = load_policy(card, "chuche_v1")
    data = json.loads(card.read_text())
    (tmp_path / "p.json").write_text(json.dumps({k: v for k, v in data.items() if k != "inputs"}))
    raw, _ = load_policy(card, "chuche_v1")              # a card from before: raw inputs
    assert raw.baralho_inputs == "raw" and not torch.allclose(forward(raw, obs, mask)[1], forward(policy, obs, mask)[1])
    (tmp_path / "p.json").write_text(json.dumps(dict(data, inputs="whitened")))
    with pytest.raises(ValueError, match="inputs"):
        load_policy(card, "chuche_v1")


# ------------------------------------------------------------------ 26.3: one run per --out

def tiny(out: Path, **kw):
    from baralho.training.train import TrainConfig

    return TrainConfig(**{**dict(env_id="rodizio_v1", timesteps=128, num_envs=1, n_steps=64, batch_size=64,
                                 n_epochs=1, eval_every=0, eval_games=2, snapshot_every=64, net_arch=(8,),
                                 out=str(out), progress_bar=False), **kw})


def test_pool_takes_only_this_runs_snapshots_of_this_env_and_config(tmp_path):
    from baralho.agents.policy import build_policy, save_policy
    from baralho.training.train import pool_snapshots

    pool = tmp_path / "pool"
    for name, run, env_id, config in [("snapshot_0001", "me", "rodizio_v1", {}),
                                      ("snapshot_0002", "older", "rodizio_v1", {}),
                                      ("snapshot_0003", "me", "rodizio_v1", {"num_players": 3}),
                                      ("snapshot_0004", "me", "chuche_v1", {}),
                                      ("snapshot_0005", "me", "rodizio_v1", {})]:
        save_policy(build_policy(env_id, config, {"pi": [4], "vf": [4]}), pool / name, env_id, config, run_id=run)
    (pool / "snapshot_0006.json").write_text("not json")
    assert [p.stem for p in pool_snapshots(tmp_path, "me", "rodizio_v1", {})] == ["snapshot_0001", "snapshot_0005"]


def test_a_folder_of_another_run_is_refused_unless_overwrite(tmp_path):
    from baralho.training.train import claim_out, train

    (tmp_path / "pool").mkdir()
    (tmp_path / "pool" / "snapshot_0009.zip").write_bytes(b"an old run's snapshot")
    with pytest.raises(ValueError, match="already holds files of another run"):
        train(tiny(tmp_path))
    first = claim_out(tiny(tmp_path, overwrite=True))
    assert not (tmp_path / "pool").exists()            # the stale pool is gone
    with pytest.raises(ValueError, match=f"already holds run {first['run_id']}"):
        claim_out(tiny(tmp_path))
    with pytest.raises(ValueError, match="is a run of rodizio_v1 {}, not rodizio_v1 {'num_players': 3}"):
        claim_out(tiny(tmp_path, resume=True, env_config={"num_players": 3}))
    assert claim_out(tiny(tmp_path, resume=True)) == first
    with pytest.raises(ValueError, match="no run to continue"):
        claim_out(tiny(tmp_path / "empty", resume=True))


def test_a_resumed_run_starts_from_its_policy_and_numbers_snapshots_on(tmp_path):
    from baralho.agents.policy import load_policy
    from baralho.training.train import train

    train(tiny(tmp_path))
    before = sorted(p.name for p in (tmp_path / "pool").glob("*.json"))
    first = load_policy(tmp_path / "final", "rodizio_v1")[0].state_dict()
    train(tiny(tmp_path, resume=True, learning_rate=1e-12, n_epochs=1))
    after = sorted(p.name for p in (tmp_path / "pool").glob("*.json"))
    assert after[:len(before)] == before and len(after) > len(before)
    second = load_policy(tmp_path / "final", "rodizio_v1")[0].state_dict()
    # a near-zero learning rate: the resumed run's policy is the first run's, not a fresh one
    assert all(np.allclose(first[k].numpy(), second[k].numpy(), atol=1e-5) for k in first)
    run_ids = {json.loads(p.read_text())["run_id"] for p in (tmp_path / "pool").glob("*.json")}
    assert run_ids == {json.loads((tmp_path / "run.json").read_text())["run_id"]}



def test_the_train_command_refuses_another_runs_folder(tmp_path, capsys):
    from baralho.cli import main
    from baralho.training.train import claim_out

    first = claim_out(tiny(tmp_path))
    assert main(["train", "chuche_v1", "--out", str(tmp_path), "--quiet"]) == 2
    assert f"already holds run {first['run_id']} of rodizio_v1" in capsys.readouterr().err
    assert main(["train", "chuche_v1", "--out", str(tmp_path), "--quiet", "--resume"]) == 2
    assert "is a run of rodizio_v1 {}, not chuche_v1 {}" in capsys.readouterr().err
    assert json.loads((tmp_path / "run.json").read_text()) == first          # left as it was


def test_the_heuristic_prior_is_on_the_card_its_weight_in_the_npz_and_an_agent_plays_the_heuristic(tmp_path):
    """A new policy with the heuristic prior plays the heuristic's moves (the net's head starts
    near zero, the prior adds 4 to the hint's logit); saved and loaded it keeps the prior and its
    weight; ppo: asks its own heuristic for the hint; a card naming another prior is refused."""
    import torch

    import baralho
    from baralho.agents import heuristic_for, make_agent
    from baralho.agents.policy import PolicyError, build_policy, hinted_logits, load_policy, save_policy

    policy = build_policy("rodizio_v1", {}, {"pi": [8], "vf": [8]}, prior="heuristic", prior_weight=2.5)
    with torch.no_grad():
        policy.prior_weight.fill_(3.0)                   # a learned value, not the starting one
    card = save_policy(policy, tmp_path / "p", "rodizio_v1", {})
    data = json.loads(card.read_text())
    assert data["prior"] == "heuristic"
    with np.load(tmp_path / "p.npz") as npz:
        assert float(npz["prior_weight"]) == 3.0
    loaded, _ = load_policy(card, "rodizio_v1")
    assert loaded.baralho_prior == "heuristic" and loaded.prior_weight.item() == 3.0
    x = torch.zeros((2, 298))                            # Rodizio's observation; the nets read 298 + 18
    assert data["observation_shape"] == [298] and policy.observation_space.shape == (298 + 18,)
    onehot = torch.zeros((2, 18))
    onehot[0, 4] = 1.0                                   # row 0's hint is move 4, row 1 has none
    with torch.no_grad():
        net = policy.action_net(policy.mlp_extractor(policy.features_extractor(torch.cat([x, onehot], 1)))[0])
        hinted = hinted_logits(loaded, x, [4, -1])[0]
    assert torch.allclose(hinted, net + 3.0 * onehot)
    with pytest.raises(PolicyError, match="hint"):
        hinted_logits(loaded, x, None)

    agent, env = make_agent(f"ppo:{card}", "rodizio_v1", seed=3), baralho.make("rodizio_v1")
    teacher = heuristic_for("rodizio_v1", env.unwrapped.game, 3)
    env.reset(seed=2)
    for _, agent_id in zip(range(60), env.agent_iter()):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            break
        action = agent.act(obs, agent_id)
        assert action == teacher.act(obs, agent_id)
        env.step(action)
    (tmp_path / "p.json").write_text(json.dumps({k: v for k, v in data.items() if k != "prior"}))
    # a card without it
    with pytest.raises(ValueError, match=r"do not fit the card's network: .*unexpected \['prior_weight'\]"):
        load_policy(card, "rodizio_v1")
    (tmp_path / "p.json").write_text(json.dumps(dict(data, prior="oracle")))
    with pytest.raises(ValueError, match="prior"):
        load_policy(card, "rodizio_v1")
    with pytest.raises(PolicyError, match="predict"):     # SB3's predict would play without the hint
        build_policy("rodizio_v1", {}, {"pi": [8], "vf": [8]}, prior="heuristic").predict(np.zeros(298))
