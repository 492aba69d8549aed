"""Every env's docstring observation table and its obs_layout stay in step."""

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
