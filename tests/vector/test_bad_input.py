"""Careless and hostile input to baralho.vector: refused with an error that names it, before any
env changes; never a crash of the interpreter, a read outside a table or a silently wrong state."""

from __future__ import annotations

import numpy as np
import pytest

import baralho
import baralho.vector as bv
from baralho.envs import compiled_ids

ENGINES = ["compiled", "reference"]


def batch(env_id: str, engine: str, num_envs: int = 4, **config):
    venv = bv.make(env_id, num_envs=num_envs, seed=3, engine=engine, **config)
    venv.reset()
    return venv


def snapshot(venv) -> tuple:
    obs, mask, seat = venv.observe()
    return [venv.get_state(i) for i in range(venv.num_envs)], obs.tobytes(), mask.tobytes(), seat.tolist()


def finished(game, seed: int = 0):
    s = game.new_state(np.random.default_rng(seed))
    rng = np.random.default_rng(seed)
    while not game.is_over(s):
        game.apply(s, int(rng.choice(np.flatnonzero(game.legal_mask(s)))))
    return s


def refused(venv, i, state, error, match) -> None:
    """set_state(i, state) raises ``error`` matching ``match`` and changes no env; the batch plays on."""
    before = snapshot(venv)
    with pytest.raises(error, match=match):
        venv.set_state(i, state)
    assert snapshot(venv) == before
    mask = venv.observe()[1]
    venv.step(mask.argmax(1))


@pytest.mark.parametrize("engine", ENGINES)
def test_set_state_refuses_what_is_not_a_state_of_this_game(engine):
    venv = batch("rodizio_v1", engine)
    chuche = baralho.make("chuche_v1", engine="reference").unwrapped.game
    refused(venv, 1, None, TypeError, r"set_state\(1, state\): expected a RodizioState, got NoneType")
    refused(venv, 1, chuche.new_state(np.random.default_rng(0)), TypeError, "expected a RodizioState, got ChucheState")
    aec = baralho.make("chuche_v1")                                   # the compiled engine's state
    aec.reset(seed=0)
    refused(venv, 1, aec.unwrapped.game_state, ValueError, "a compiled state of another game")
    refused(venv, 1, venv, TypeError, "expected a RodizioState")


@pytest.mark.parametrize("engine", ENGINES)
def test_set_state_takes_the_aec_envs_compiled_state(engine):
    venv = batch("rodizio_v1", engine)
    env = baralho.make("rodizio_v1")
    env.reset(seed=5)
    env.step(int(np.flatnonzero(env.last()[0]["action_mask"])[0]))
    venv.set_state(2, env.unwrapped.game_state)
    game = env.unwrapped.game
    assert venv.get_state(2) == game.to_reference(env.unwrapped.game_state)
    obs, mask, seat = venv.observe()
    assert seat[2] == game.current_player(env.unwrapped.game_state)
    assert np.array_equal(obs[2], env.observe(env.agent_selection)["observation"])
    # a game the AEC env plays on the reference engine while its kernel compiles (first use)
    from baralho.core.compiled import CompiledState

    ref = game.to_reference(env.unwrapped.game_state)
    warm = CompiledState(None, game.legal_mask(env.unwrapped.game_state), game.reference.current_player(ref), ref=ref,
                         config=game.config)
    venv.set_state(1, warm)
    assert venv.get_state(1) == ref
    other = baralho.make("rodizio_v1", num_players=3)                 # same record layout, another config
    other.reset(seed=0)
    refused(venv, 2, other.unwrapped.game_state, ValueError, "another config")


@pytest.mark.parametrize("engine", ENGINES)
def test_set_state_refuses_another_player_count(engine):
    venv = batch("chuche_v1", engine, num_players=2)
    three = baralho.make("chuche_v1", engine="reference", num_players=3).unwrapped.game
    refused(venv, 0, three.new_state(np.random.default_rng(1)), ValueError, r"field hands must have 2 items")
    venv = batch("scala40_v1", engine, num_players=2)
    three = baralho.make("scala40_v1", engine="reference", num_players=3).unwrapped.game
    refused(venv, 0, three.new_state(np.random.default_rng(1)), ValueError, "field num_players=3")


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("change, match", [
    (lambda s: s.plates.__setitem__(0, 18), r"field plates\[0\]=18 is outside 0..17"),      # a card past the deck
    (lambda s: s.stacks[1].append(40), r"field stacks\[1\]\[\d+\]=40"),
    (lambda s: setattr(s, "seat", 2), "field seat=2 is outside 0..1"),                    # a seat past the table
    (lambda s: setattr(s, "seat", -1), "field seat=-1"),
    (lambda s: setattr(s, "pending", 7), "field pending=7"),
    (lambda s: setattr(s, "seat", "0"), "field seat must be an integer"),
    (lambda s: s.eaten.pop(), "field eaten must have 3 items"),
    (lambda s: s.totals.__setitem__(0, s.totals[0] + 1), "invariants"),                  # in range, inconsistent
    (lambda s: setattr(s, "plates", s.plates[:2] + [s.stacks[0][0]]), "invariants"),      # a card in two places
])
def test_set_state_refuses_a_hand_built_state_out_of_range_or_inconsistent(engine, change, match):
    venv = batch("rodizio_v1", engine)
    s = venv.get_state(0)
    change(s)
    refused(venv, 0, s, ValueError, match)


@pytest.mark.parametrize("env_id", compiled_ids())
@pytest.mark.parametrize("engine", ENGINES)
def test_set_state_refuses_a_finished_game_on_both_engines(env_id, engine):
    venv = batch(env_id, engine, num_envs=2)
    refused(venv, 0, finished(venv.game), ValueError, "over; .*load a position before its end")


def test_out_of_range_card_ids_are_refused_in_every_game():
    """A card id past the deck, in each game's own list of cards (the compiled kernels index
    their card tables with it)."""
    cases = {
        "chuche_v1": lambda s: s.table.__setitem__(0, 200),
        "roda_de_samba_v1": lambda s: s.deck.__setitem__(0, 500),
        "scala40_v1": lambda s: s.stock.__setitem__(0, 53),
    }
    for env_id, change in cases.items():
        venv = batch(env_id, "compiled", num_envs=2)
        s = venv.get_state(1)
        change(s)
        refused(venv, 1, s, ValueError, "is outside")
    venv = batch("roda_de_samba_v1", "compiled", num_envs=2)
    s = venv.get_state(0)
    s.callable = [0]                       # the kernel marks these in the mask: only call actions
    refused(venv, 0, s, ValueError, r"field callable\[0\]=0 is outside")


@pytest.mark.parametrize("engine", ENGINES)
def test_indices_are_checked(engine):
    venv = batch("rodizio_v1", engine)
    s = venv.get_state(0)
    for i in (4, -1, 1.0, True, "0"):
        with pytest.raises(IndexError, match="env index"):
            venv.set_state(i, s)
        with pytest.raises(IndexError, match="env index"):
            venv.get_state(i)


@pytest.mark.parametrize("engine", ENGINES)
def test_an_action_past_int64_is_illegal_and_reported_as_given(engine):
    venv = batch("rodizio_v1", engine)
    actions = venv.observe()[1].argmax(1).astype(np.uint64)
    actions[2] = 2**64 - 1
    before = snapshot(venv)
    with pytest.raises(bv.IllegalActionError,
                       match=r"illegal action 18446744073709551615 \(outside the action space\) in env 2"):
        venv.step(actions)
    assert snapshot(venv) == before


def test_any_integer_action_array_steps_without_a_new_compile():
    """Strided, read-only, narrow or unsigned action arrays are normalised to one contiguous int64
    array before the kernel: it gets no second signature (a recompile, seconds)."""
    venvs = [batch("rodizio_v1", "compiled", num_envs=4) for _ in range(2)]
    venvs[0].step(venvs[0].observe()[1].argmax(1))           # the plain int64 array: compiled (or cached)
    kernel = venvs[0]._kernel.dispatcher
    signatures = len(kernel.signatures)

    def frozen(a):
        a = a.copy()
        a.flags.writeable = False
        return a

    for form in (lambda a: np.repeat(a, 2)[::2], frozen, lambda a: a.astype(np.int8), lambda a: a.astype(np.uint16),
                 lambda a: a.astype(np.uint64), lambda a: np.asfortranarray(a.astype(np.int32)), lambda a: a.tolist(),
                 lambda a: a.astype(">i8")):
        venvs[1].step(form(venvs[1].observe()[1].argmax(1)))
        assert len(kernel.signatures) == signatures


def test_vector_make_refuses_the_aec_envs_options():
    for option, value in (("illegal_action", "penalize"), ("illegal_reward", -2.0), ("render_mode", "ansi"),
                          ("render_view", "omniscient")):
        with pytest.raises(baralho.ConfigError, match=rf"{option} is an option of the AEC env .*remove it"):
            bv.make("rodizio_v1", num_envs=2, **{option: value})
    with pytest.raises(baralho.ConfigError, match="illegal_action, illegal_reward are options"):
        bv.make("rodizio_v1", num_envs=2, illegal_action="penalize", illegal_reward=-2.0)


@pytest.mark.parametrize("engine", ENGINES)
def test_batch_heuristic_checks_env_indices_and_array_shapes(engine):
    """An env index past the batch crashed the interpreter (the compiled kernel indexes without
    bounds checks), a negative one wrapped in silence, an observation narrower than the layout
    was read past its end: each is a ValueError naming the argument now."""
    from baralho.vector.heuristic import BatchHeuristic

    venv = batch("rodizio_v1", "compiled")
    obs, mask, _ = venv.observe()
    heuristic = BatchHeuristic(venv.game, 4, seed=0, engine=engine)
    want = heuristic.act(np.arange(4), obs, mask)
    for envs in ([4], [0, 1_000_000], [-1], np.array([True, False, True, True])):
        with pytest.raises(ValueError, match=r"BatchHeuristic\.act\(envs, \.\.\.\): (env index -?\d+ is not in "
                                             r"0\.\.3|envs must be a 1-d array of env indices)"):
            heuristic.act(envs, obs, mask)
    for wrong in (obs[:, :-1], obs[:2], obs.astype(np.float32), obs[0]):
        with pytest.raises(ValueError, match=r"obs must be the vector env's integer array of shape \(4, \d+\)"):
            heuristic.act(np.arange(4), wrong, mask)
    with pytest.raises(ValueError, match=r"mask must be .* of shape \(4, 18\)"):
        heuristic.act(np.arange(4), obs, mask[:, :10])
    for method, args in (("reset", ([5], [0])), ("forget", ([-2],))):
        with pytest.raises(ValueError, match=rf"BatchHeuristic\.{method}\(envs, \.\.\.\): env index"):
            getattr(heuristic, method)(*args)
    # other integer dtypes and a bool mask are taken (converted: no new compile) and give the same moves
    again = BatchHeuristic(venv.game, 4, seed=0, engine=engine)
    assert again.act(np.arange(4, dtype=np.uint8), obs.astype(np.int64), mask.astype(bool)).tolist() == want.tolist()


@pytest.mark.parametrize("engine", ["compiled", "reference"])
def test_a_bad_seed_is_named_at_make_and_at_reset(engine):
    from baralho.core.config import ConfigError

    for seed in (-1, 1.5, "0"):
        with pytest.raises(ConfigError, match=rf"seed={seed!r} must be None or an integer >= 0"):
            bv.make("rodizio_v1", 2, seed, engine=engine)
    venv = bv.make("rodizio_v1", 2, 0, engine=engine)
    with pytest.raises(ConfigError, match="seed=-3 must be None or an integer >= 0"):
        venv.reset(seed=-3)
