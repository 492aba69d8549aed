"""`python -m benchmarks`: every section end to end (--quick), re-embedding the ladders (--ladders)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_quick_benchmark_writes_every_section(tmp_path):
    out = tmp_path / "RESULTS.md"
    res = subprocess.run([sys.executable, "-m", "benchmarks", "--quick", "--out", str(out)], cwd=ROOT,
                         capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr[-2000:]
    text = out.read_text()
    for section in ("## Throughput", "## Search speed (ISMCTS)", "## Fuzzing", "## Memory and copy cost",
                    "## Training throughput", "## Where the step time goes"):
        assert section in text
    assert "null (adapter floor)" in text and "PettingZoo classic wrappers" in text
    fuzz = text.split("## Fuzzing")[1].split("## Memory")[0].split("Long runs")[0]
    rows = [r for r in fuzz.splitlines() if r.startswith("| ") and r.split("|")[1].strip().endswith("_v1")]
    assert len(rows) >= 4 and all(r.split("|")[4].strip() == "0" for r in rows), "fuzzing found failures"
    assert (tmp_path / "throughput.png").stat().st_size > 1000


def test_long_fuzz_is_reproducible_whatever_the_workers(tmp_path):
    from benchmarks import fuzz

    one = fuzz.run("rodizio_v1", games=21, workers=1, chunk=2)
    two = fuzz.run("rodizio_v1", games=21, workers=2, chunk=2)
    assert one["games"] == two["games"] >= 21 and one["failures"] == two["failures"] == 0
    assert [r["steps"] for r in one["configs"]] == [r["steps"] for r in two["configs"]]
    assert fuzz.main(["--games", "7", "--envs", "rodizio_v1", "--out", str(tmp_path)]) == 0
    assert (tmp_path / "rodizio_v1.json").exists()


def test_a_long_run_resumes_from_its_chunks_and_refuses_other_settings(tmp_path, monkeypatch):
    from benchmarks import fuzz

    store = tmp_path / "rodizio_v1.chunks.json"
    whole = fuzz.run("rodizio_v1", games=14, chunk=2)
    played = []
    real = fuzz._chunk

    def stop_after_three(job):                 # a sitting cut short after three chunks
        if len(played) == 3:
            raise KeyboardInterrupt
        played.append(job)
        return real(job)

    monkeypatch.setattr(fuzz, "_chunk", stop_after_three)
    with pytest.raises(KeyboardInterrupt):
        fuzz.run("rodizio_v1", games=14, chunk=2, store=store)
    assert len(json.loads(store.read_text())["done"]) == 3
    played.clear()
    monkeypatch.setattr(fuzz, "_chunk", lambda job: played.append(job) or real(job))
    resumed = fuzz.run("rodizio_v1", games=14, chunk=2, store=store)
    assert len(played) == len(json.loads(store.read_text())["done"]) - 3      # only the missing chunks
    assert [r["steps"] for r in resumed["configs"]] == [r["steps"] for r in whole["configs"]]
    assert resumed["games"] == whole["games"]
    with pytest.raises(SystemExit, match="games"):
        fuzz.run("rodizio_v1", games=16, chunk=2, store=store)


def test_ladders_are_re_embedded_without_touching_the_measured_sections(tmp_path):
    from benchmarks.__main__ import LADDERS, main

    measured = "# baralho benchmarks\n\nGenerated on X.\n\n## Throughput\n\n| a | 1 |\n"
    out = tmp_path / "RESULTS.md"
    out.write_text(measured + "\n" + LADDERS + "\n\nold ladder\n\n_Total benchmark time: 600 s._\n")
    assert main(["--ladders", "--out", str(out)]) == 0
    text = out.read_text()
    assert text.startswith(measured) and "old ladder" not in text
    current = len([p for p in (ROOT / "benchmarks" / "ladder").glob("*.md") if p.name != "notes.md"])
    equal_time = len([p for p in (ROOT / "benchmarks" / "ladder" / "equal_time").glob("*.md") if p.name != "notes.md"])
    assert text.count("\n### Tournament: ") == current and "re-embedded by `python -m benchmarks --ladders`" in text
    assert text.count("\n#### Tournament: ") == equal_time and ("### Net-guided search" in text) == (equal_time > 0)
    for notes in [ROOT / "benchmarks" / "ladder" / name / "notes.md" for name in ("", "equal_time")]:
        assert not notes.exists() or notes.read_text().strip() in text      # the notes, as written
    assert "ladders of the retired v0 envs are kept in `benchmarks/ladder/v0/`" in text
    assert text.rstrip().endswith("_Total benchmark time: 600 s._")
    assert main(["--ladders", "--out", str(out)]) == 0          # again: the same section, once
    assert out.read_text().count(LADDERS) == 1
    out.write_text("# some other file\n")
    with pytest.raises(SystemExit, match="not a RESULTS.md"):
        main(["--ladders", "--out", str(out)])


def test_long_runs_are_re_embedded_without_touching_the_measured_sections(tmp_path):
    from benchmarks.__main__ import HERE, LONG_RUNS, main

    out = tmp_path / "RESULTS.md"
    before = "# baralho benchmarks\n\n## Fuzzing\n\n| a | 1 |\n\n"
    after = "\n## Memory and copy cost\n\n| b | 2 |\n"
    out.write_text(before + LONG_RUNS + ", embedded as last run):\n\n| env | x |\n|---|---|\n| old row | 0 |\n" + after)
    assert main(["--long-runs", "--out", str(out)]) == 0
    text = out.read_text()
    assert text.startswith(before) and text.endswith(after) and "old row" not in text
    runs = sorted((HERE / "fuzz_runs").glob("*.json"))
    assert runs and all(f"| {json.loads(r.read_text())['env']} |" in text for r in runs)
    assert main(["--long-runs", "--out", str(out)]) == 0            # again: the same table, once
    assert out.read_text().count(LONG_RUNS) == 1 and out.read_text().endswith(after)
    out.write_text("# some other file\n")
    with pytest.raises(SystemExit, match="no long-runs table"):
        main(["--long-runs", "--out", str(out)])


def test_a_quick_run_does_not_overwrite_the_committed_results_by_default():
    from benchmarks.__main__ import HERE, default_out

    assert default_out(quick=False) == HERE / "RESULTS.md"
    quick = default_out(quick=True)
    assert quick.resolve() != (HERE / "RESULTS.md").resolve() and quick.parent.resolve() != HERE.resolve()
    assert quick.parts[0] == "runs" and "runs/" in (ROOT / ".gitignore").read_text().splitlines()


def test_chart_labels_name_their_config_keys():
    from benchmarks.__main__ import chart_label

    assert chart_label({"env": "scala40_v1", "config": {"num_players": 3, "scope": "hand"}}) == \
        "scala40_v1 num_players=3,scope=hand"
    assert chart_label({"env": "rodizio_v1", "config": {}}) == "rodizio_v1"


def test_the_search_check_is_re_embedded_alone(tmp_path, monkeypatch):
    import benchmarks.__main__ as B

    monkeypatch.setattr(B, "HERE", tmp_path)
    results = tmp_path / "RESULTS.md"
    results.write_text("# baralho benchmarks\n\n## Search speed (ISMCTS)\n\n| speed |\n\n## Fuzzing\n\n| fuzz |\n")
    (tmp_path / "search_check.md").write_text("| first check |\n")
    assert B.embed_search_check(results) == 0
    (tmp_path / "search_check.md").write_text("| second check |\n")
    assert B.embed_search_check(results) == 0            # replaces the block, keeps the rest
    text = results.read_text()
    assert "| second check |" in text and "first check" not in text and text.count(B.SEARCH_CHECK) == 1
    assert text.index("| speed |") < text.index("| second check |") < text.index("## Fuzzing") < text.index("| fuzz |")


def test_the_search_section_is_measured_again_alone(tmp_path, monkeypatch):
    import benchmarks.__main__ as B

    monkeypatch.setattr(B, "HERE", tmp_path)
    monkeypatch.setattr(B.search_bench, "search_table", lambda envs, sims, count, seconds: ["| new speed |"])
    results = tmp_path / "RESULTS.md"
    results.write_text("# baralho benchmarks\n\n## Throughput\n\n| tp |\n\n## Search speed (ISMCTS)\n\n"
                       "| old speed |\n\n" + B.SEARCH_CHECK + "\n\n| check |\n\n## Fuzzing\n\n| fuzz |\n")
    assert B.embed_search(results) == 0
    text = results.read_text()
    assert "| new speed |" in text and "old speed" not in text and "--search` on" in text
    assert text.index("| tp |") < text.index("| new speed |") < text.index("| check |") < text.index("| fuzz |")


def test_the_vector_table_and_the_instruction_counts_are_re_embedded_alone(tmp_path, monkeypatch):
    import benchmarks.__main__ as B

    monkeypatch.setattr(B, "HERE", tmp_path)
    monkeypatch.setattr(B.vector_bench, "floor_table", lambda envs, secs, reps, before: (["| new step |"], {}))
    results = tmp_path / "RESULTS.md"
    results.write_text("# baralho benchmarks\n\n## Throughput\n\n| tp |\n\n" + B.VECTOR + "\n\n| old step |\n\n"
                       + B.VECTOR_END + " (batch):\n\n| sizes |\n\n## Search speed (ISMCTS)\n")
    assert B.embed_vector(results, "2366323") == 0            # no counts yet: the table alone
    text = results.read_text()
    assert "| new step |" in text and "old step" not in text and B.INSTRUCTIONS not in text
    (tmp_path / "instructions.md").write_text("| first counts |\n")
    assert B.embed_instructions(results) == 0
    (tmp_path / "instructions.md").write_text("| second counts |\n")
    assert B.embed_instructions(results) == 0                 # replaces the counts, keeps the table
    text = results.read_text()
    assert "first counts" not in text and text.count(B.INSTRUCTIONS) == 1
    assert (text.index("| tp |") < text.index("| new step |") < text.index("| second counts |")
            < text.index("| sizes |") < text.index("## Search speed"))


@pytest.mark.parametrize("env_id", ["rodizio_v1", "roda_de_samba_v1"])    # (games of ~12 and ~190 steps)
def test_the_rules_column_plays_the_vector_steps_games(env_id):
    """The *rules* kernel is the step's own work: the same actions leave the same games (records),
    masks and returns as the vector step's, auto-reset included."""
    import numpy as np

    import baralho.vector as bv
    from benchmarks import vector

    B = 8
    venv, twin = bv.make(env_id, B, seed=3), bv.make(env_id, B, seed=3)
    _, mask, _ = venv.reset()
    twin.reset()
    run = vector._rules_kernel(twin.fast)
    legal, rewards = mask.copy(), np.zeros((B, twin.num_players), np.float32)
    rng, dones = np.random.default_rng(0), 0
    for _ in range(400):
        actions = vector.pick(mask, rng)
        _, mask, _, step_rewards, done = venv.step(actions)
        rewards[:] = 0
        run(twin._records, twin._tables, actions, legal, rewards)
        np.testing.assert_array_equal(legal, mask)
        np.testing.assert_array_equal(rewards[done], step_rewards[done])
        dones += done.sum()
    assert dones > 0 and venv._records.tobytes() == twin._records.tobytes()
    assert vector.rules_ns(env_id, {}, 0.05, batch=64) > 0
