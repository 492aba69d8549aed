"""`python -m benchmarks --quick` runs every section end to end and writes its report."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_quick_benchmark_writes_every_section(tmp_path):
    out = tmp_path / "RESULTS.md"
    res = subprocess.run([sys.executable, "-m", "benchmarks", "--quick", "--out", str(out)], cwd=ROOT,
                         capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr[-2000:]
    text = out.read_text()
    for section in ("## Throughput", "## Fuzzing", "## Memory and copy cost", "## Training throughput",
                    "## Where the step time goes"):
        assert section in text
    assert "null (adapter floor)" in text and "PettingZoo classic wrappers" in text
    fuzz = text.split("## Fuzzing")[1].split("## Memory")[0].split("Long runs")[0]
    rows = [r for r in fuzz.splitlines() if r.startswith("| ") and r.split("|")[1].strip().endswith("_v0")]
    assert len(rows) >= 4 and all(r.split("|")[4].strip() == "0" for r in rows), "fuzzing found failures"
    assert (tmp_path / "throughput.png").stat().st_size > 1000


def test_long_fuzz_is_reproducible_whatever_the_workers(tmp_path):
    from benchmarks import fuzz

    one = fuzz.run("rodizio_v0", games=21, workers=1, chunk=2)
    two = fuzz.run("rodizio_v0", games=21, workers=2, chunk=2)
    assert one["games"] == two["games"] >= 21 and one["failures"] == two["failures"] == 0
    assert [r["steps"] for r in one["configs"]] == [r["steps"] for r in two["configs"]]
    assert fuzz.main(["--games", "7", "--envs", "rodizio_v0", "--out", str(tmp_path)]) == 0
    assert (tmp_path / "rodizio_v0.json").exists()
