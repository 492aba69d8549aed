"""README's "With other RL libraries" section says what these tests run: the versions it
names are the ones pinned in the integrations extra, and its one-liners work as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from baralho.envs import compiled_ids

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


def bash_blocks(text: str) -> list[str]:
    return re.findall(r"```bash\n(.*?)```", text, flags=re.S)


def baralho_commands(text: str) -> list[list[str]]:
    """Every ``baralho ...`` command of README's bash blocks, as argv (comments and the
    install or other commands chained before it dropped)."""
    import shlex

    commands = []
    for block in bash_blocks(text):
        for line in block.splitlines():
            for part in line.split("&&"):
                argv = shlex.split(part, comments=True)
                if argv and argv[0].endswith("bin/baralho"):
                    commands.append(argv[1:])
    return commands


def test_every_baralho_command_readme_shows_is_accepted_as_written():
    from baralho.cli import build_parser

    commands = baralho_commands(README)
    assert len(commands) >= 8 and {c[0] for c in commands} >= {"train", "tournament", "evaluate", "play", "replay"}
    for argv in commands:
        try:
            build_parser().parse_args(argv)
        except SystemExit:
            pytest.fail(f"README's `baralho {' '.join(argv)}` is refused by the CLI")


def test_the_command_check_sees_a_flag_the_cli_lacks():
    text = "```bash\n.venv/bin/baralho play rodizio_v1 --no-such-flag   # a comment\n```\n"
    assert baralho_commands(text) == [["play", "rodizio_v1", "--no-such-flag"]]


#: a subcommand's required words, so that a flag alone can be parsed by it
PREFIXES = (["train", "rodizio_v1"], ["train", "rodizio_v1", "--algo", "exit"],
            ["tournament", "rodizio_v1", "--agents", "random"], ["evaluate", "ppo", "rodizio_v1"],
            ["play", "rodizio_v1"], ["replay", "game.json"], ["demo"], ["train-rllib", "rodizio_v1"])
#: README's placeholders, as a value of their kind
PLACEHOLDERS = {"PATH": "model.json", "DIR": "records", "N": "2", "ADDRESS": "local"}


def inline_flags(text: str) -> list[list[str]]:
    """README's inline code that starts with a flag (`--rollouts heuristic`), as argv, its
    placeholders given a value (a span that starts with another command, `ray start ...`, is not one)."""
    spans = re.findall(r"`(--[a-z][a-z-]*(?: [^`]*)?)`", text)
    return [[PLACEHOLDERS.get(word, word) for word in span.split()] for span in spans]


def accepted(argv: list[str]) -> bool:
    """Some subcommand parses ``argv`` (a flag with its value), or knows the flag (a flag named alone)."""
    from baralho.cli import build_parser

    parser = build_parser()
    for prefix in PREFIXES:
        if len(argv) == 1:
            sub = parser._subparsers._group_actions[0].choices[prefix[0]]
            if argv[0] in sub._option_string_actions:
                return True
            continue
        try:
            parser.parse_args(prefix + argv)
            return True
        except SystemExit:
            continue
    return False


def test_every_flag_readme_names_in_its_text_is_accepted_as_written(capsys):
    spans = inline_flags(README)
    assert len(spans) >= 30 and ["--horizon", "segment"] in spans
    refused = [" ".join(argv) for argv in spans if not accepted(argv)]
    capsys.readouterr()                                  # argparse's complaints about the other subcommands
    assert not refused, f"README names flags no command takes as written: {refused}"


def test_the_flag_check_sees_a_value_of_the_wrong_kind(capsys):
    # exit's rollout player once shared selfplay's --rollout, a count: README's `--rollout heuristic` failed
    assert inline_flags("with `--rollout heuristic`, and `--no-such-flag`") == [["--rollout", "heuristic"],
                                                                                 ["--no-such-flag"]]
    assert not accepted(["--rollout", "heuristic"]) and not accepted(["--no-such-flag"])
    assert accepted(["--rollouts", "heuristic"]) and accepted(["--verify"])
    capsys.readouterr()


def repo_paths(text: str) -> set[str]:
    """The repository paths README names: link targets, and backticked names that start
    with one of the repository's top-level folders (``baralho/core/game.py``)."""
    links = set(re.findall(r"\]\(((?:baralho|benchmarks|tests)/[^)\s]*)\)", text))
    ticked = set(re.findall(r"`((?:baralho|benchmarks|tests)/[\w./-]*)`", text))
    return {p.split("::")[0] for p in links | ticked}


def test_every_path_readme_names_exists():
    paths = repo_paths(README)
    assert len(paths) >= 10
    missing = sorted(p for p in paths if not (ROOT / p).exists())
    assert not missing, f"README names paths that do not exist: {missing}"


def test_readme_says_which_games_have_a_compiled_engine():
    """Once every game has its compiled engine, no sentence may say only some have one."""
    import baralho

    if set(compiled_ids()) != set(baralho.ENV_IDS):
        pytest.skip("not every game has a compiled engine yet")
    stale = [s for s in re.split(r"(?<=[.;])\s+", README) if "compiled" in s
             and re.search(r"so far|until theirs|where a game has one: \w", s)]
    assert not stale, f"README says only some games have a compiled engine: {stale}"
