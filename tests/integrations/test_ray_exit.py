"""Expert iteration's games on Ray (``baralho train ENV --algo exit --ray ADDRESS``): a local Ray
instance with two workers plays the games, the learner gathers them and learns.

Needs Ray (the ``ray`` extra, in ``.ci/run``'s integrations step); skipped without it."""

from __future__ import annotations

import json

import pytest

ray = pytest.importorskip("ray", reason="Ray is not installed: pip install '.[ray]'")
pytest.importorskip("torch")

from baralho import cli  # noqa: E402


def test_two_ray_workers_play_the_games_and_the_learner_learns_from_them(tmp_path):
    out = tmp_path / "run"
    try:
        code = cli.main(["train", "rodizio_v1", "--algo", "exit", "--ray", "local", "--ray-workers", "2",
                         "--timesteps", "800", "--num-envs", "8", "--simulations", "16", "--round-decisions", "400",
                         "--updates", "4", "--minibatch", "32", "--eval-every", "0", "--eval-games", "10",
                         "--net-arch", "16", "--out", str(out), "--quiet"])
        assert code == 0
        assert ray.is_initialized() and ray.cluster_resources().get("CPU") == 2
    finally:
        ray.shutdown()
    summary = json.loads((out / "summary.json").read_text())
    assert summary["decisions"] >= 800 and summary["rounds"] == 2 and summary["games"] > 0
    assert summary["losses"] and summary["final"]["games"] == 20
    assert summary["config"]["ray"] == "local" and summary["config"]["ray_workers"] == 2
