"""Parametrisation of the conformance suite: every env id x every config it declares."""

from __future__ import annotations

import os

import pytest

import baralho

# Scale of the randomised checks; CI uses the defaults, BARALHO_FUZZ_GAMES=2000 goes deeper.
FUZZ_GAMES = int(os.environ.get("BARALHO_FUZZ_GAMES", "200"))


def env_configs() -> list:
    params = []
    for env_id in baralho.ENV_IDS:
        for cfg in baralho.env_module(env_id).TEST_CONFIGS:
            label = ",".join(f"{k}={v}" for k, v in cfg.items())
            params.append(pytest.param(env_id, cfg, id=f"{env_id}[{label}]"))
    return params


def pytest_generate_tests(metafunc):
    if {"env_id", "config"} <= set(metafunc.fixturenames):
        metafunc.parametrize(("env_id", "config"), env_configs())
