"""Every env's docstring observation table and its obs_layout stay in step, and no doc calls
the handed-out `action_mask` read-only (it is a writable copy)."""

from __future__ import annotations

import re

import pytest

import baralho


def documented_fields(doc: str) -> set[str]:
    """Field names of the observation table: from the 'Observation space' heading to the next
    'Rewards' heading, the first cell of each table row that is a backticked name."""
    start = doc.index("Observation space")
    end = doc.find("Reward", start)
    names = set()
    for line in doc[start:end if end > 0 else None].splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")] if line.lstrip().startswith("|") else []
        for cell in cells:
            m = re.fullmatch(r"`([a-z_][a-z_0-9]*)`", cell)
            if m:
                names.add(m.group(1))
                break
    return names


@pytest.mark.parametrize("env_id", baralho.ENV_IDS)
def test_the_docstring_documents_every_observation_field_and_no_other(env_id):
    doc = baralho.env_module(env_id).__doc__
    layout = baralho.make(env_id).unwrapped.game.obs_layout
    fields = set(layout.fields)
    documented = documented_fields(doc)
    assert fields - documented == set(), f"fields missing from {env_id}'s docstring table"
    assert documented - fields == set(), f"{env_id}'s docstring documents fields the layout does not have"
    assert str(layout.dtype) in doc, f"{env_id}'s docstring does not name the observation dtype {layout.dtype}"


def test_the_docs_check_sees_a_missing_field():
    doc = "### Observation space\n\n| name | shape |\n|---|---|\n| `hand` | (3,) |\n\n### Rewards\n| `x` | y |\n"
    assert documented_fields(doc) == {"hand"}


def action_mask_claims(text: str) -> list[str]:
    """The sentences that say something of `action_mask`, the mask an observation hands out
    (the game's own ``legal_mask`` may be read-only; that one is never handed out)."""
    return [s for s in re.split(r"(?<=[.;])\s+|\n\s*\n", text) if "`action_mask`" in s]


def documents(env_id: str) -> dict[str, str]:
    from pathlib import Path

    import baralho.core.aec as aec

    readme = Path(baralho.__file__).parent.parent / "README.md"
    return {f"{env_id}'s docstring": baralho.env_module(env_id).__doc__, "core/aec.py": aec.__doc__,
            "README.md": readme.read_text() if readme.is_file() else ""}


@pytest.mark.parametrize("env_id", baralho.ENV_IDS)
def test_the_docs_say_the_handed_out_mask_is_writable_as_it_is(env_id):
    env = baralho.make(env_id)
    env.reset(seed=0)
    mask = env.observe(env.agent_selection)["action_mask"]
    assert mask.flags.writeable, "the adapter hands out a writable copy (README: torch warns on read-only)"
    for where, text in documents(env_id).items():
        wrong = [s for s in action_mask_claims(text) if re.search(r"read[- ]only", s)]
        assert not wrong, f"{where} calls the handed-out action_mask read-only: {wrong}"


def test_the_mask_docs_check_sees_a_read_only_claim():
    old = ("`.table()` prints the exact slices. `action_mask` is int8 and read-only\n"
           "(the game shares one mask array).\n\nAction space")
    assert [s for s in action_mask_claims(old) if "read-only" in s] == [
        "`action_mask` is int8 and read-only\n(the game shares one mask array)."]
