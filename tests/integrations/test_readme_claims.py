"""README's "With other RL libraries" section says what these tests run: the versions it
names are the ones pinned in the integrations extra, and its one-liners work as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
SECTION = README[README.index("## With other RL libraries"):README.index("## Envs")]


def test_readme_names_the_pinned_versions_of_the_integrations_extra():
    tomllib = pytest.importorskip("tomllib")          # Python 3.11+
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    for pin in extras["integrations"]:
        name, version = pin.split("==")
        assert f"{name} {version}" in SECTION, pin
    for extra in ("train", "dev"):                    # CI's default install stays as it was
        assert not {p.split("=")[0] for p in extras[extra]} & {"tianshou", "torchrl", "tensordict"}


def test_readme_says_check_env_needs_penalize_and_its_line_passes():
    line = next(ln for ln in SECTION.splitlines() if "check_env" in ln)
    assert "without the mask" in line
    call = re.search(r'`(gymnasium\.make\("baralho/Rodizio-v1", illegal_action="penalize"\))`', SECTION).group(1)
    import gymnasium
    from gymnasium.utils.env_checker import check_env

    import baralho  # noqa: F401  (registers the ids)

    check_env(eval(call, {"gymnasium": gymnasium}))


def test_readme_pettingzoo_make_line_runs():
    import pettingzoo

    if not hasattr(pettingzoo, "register"):
        pytest.skip("this PettingZoo has no registry")
    call = re.search(r'`(pettingzoo\.make\("aec", "baralho/rodizio-v1", num_players=3\))`', SECTION).group(1)
    import baralho  # noqa: F401

    env = eval(call, {"pettingzoo": pettingzoo})
    assert len(env.possible_agents) == 3


def test_readme_says_how_to_get_a_cpu_only_torch():
    assert "pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu" in README
