"""Parametrisation of the conformance suite: every env id x every config it declares."""

from __future__ import annotations

import os

import pytest

import baralho

# Scale of the randomised checks; CI uses the defaults, BARALHO_FUZZ_GAMES=2000 goes deeper.
FUZZ_GAMES = int(os.environ.get("BARALHO_FUZZ_GAMES", "200"))


def env_configs() -> list:
    """Every env id x config, and for a game with a compiled engine each config on both
    engines (``engine`` is an env option, so it rides in the config)."""
    from baralho.envs import compiled_ids

    params = []
    for env_id in baralho.ENV_IDS:
        engines = ("compiled", "reference") if env_id in compiled_ids() else ("reference",)
        for cfg in baralho.env_module(env_id).TEST_CONFIGS:
            for engine in engines:
                label = ",".join(f"{k}={v}" for k, v in cfg.items())
                params.append(pytest.param(env_id, {**cfg, "engine": engine}, id=f"{env_id}[{label}]-{engine}"))
    return params


def pytest_generate_tests(metafunc):
    if {"env_id", "config"} <= set(metafunc.fixturenames):
        metafunc.parametrize(("env_id", "config"), env_configs())
