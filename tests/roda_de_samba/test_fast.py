"""The compiled engine (fast.py) on any deck file: lockstep with the reference on a made-up
deck with other counts, its own deals, and hand-built positions where the requirement
matching (tokens sharing a colour, coringas) decides a call."""

from __future__ import annotations

import os

import numba as nb
import numpy as np
import pytest

import baralho
import baralho.vector as bv
from baralho.core.compiled import CompiledGame, record_lists
from baralho.envs.roda_de_samba import fast
from baralho.envs.roda_de_samba.actions import PH_LAY
from baralho.envs.roda_de_samba.checks import check_observation
from baralho.vector.differential import differential

from .helpers import action, game_for, kind, legal, table
from .made_up_deck import write_made_up_deck

GAMES = int(os.environ.get("BARALHO_DIFF_GAMES", "1000")) // 4


@pytest.fixture(scope="module")
def made_up_deck(tmp_path_factory):
    return write_made_up_deck(tmp_path_factory.mktemp("deck") / "made_up.json")


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_the_compiled_engine_plays_a_made_up_deck_as_the_reference(made_up_deck, n):
    result = differential("roda_de_samba_v1", dict(num_players=n, deck=made_up_deck), games=GAMES, batch=64,
                          seed=23)
    assert result["games"] >= GAMES
    assert result["differences"] == 0, "\n".join(result["reports"])


@pytest.mark.parametrize("deck", [None, "made_up"])
def test_the_vector_deals_valid_tables(made_up_deck, deck):
    """Auto-reset deals come from the record's splitmix stream: every one a valid table whose
    revealed card is an instrument, each instrument card as likely to be it (chi-square)."""
    cfg = dict(num_players=5, deck=made_up_deck if deck else None)
    venv = bv.make("roda_de_samba_v1", num_envs=2048, seed=4, **cfg)
    venv.reset()
    game = venv.game
    d = game.deck
    seen = np.zeros(game.K)
    for i in range(venv.num_envs):
        s = venv.get_state(i)
        game.check_invariants(s)
        check_observation(game, s)
        assert s.hand_size == [5] * 5 and len(s.deck) == sum(d.kind_copies) - 26 and len(s.samb_deck) == game.S - 4
        (c,) = np.flatnonzero(s.pile_size)
        seen += s.piles[c]
    assert seen[game.mal] == 0
    expected = np.array(d.kind_copies[:-1]) / d.num_instrument_cards * venv.num_envs
    chi2 = ((seen[:-1] - expected) ** 2 / expected).sum()
    assert chi2 < 3 * game.KI, chi2


def both(game, s):
    """The position on both engines: (reference state, compiled state, the compiled game)."""
    cg = CompiledGame(game, fast)
    return s, cg.from_reference(s), cg


def play(game, cg, s, c, text):
    a = action(game, s, text)
    r1, r2 = game.apply(s, a), cg.apply(c, a)
    assert r1 == r2 and np.array_equal(game.legal_mask(s), cg.legal_mask(c))
    assert cg.to_reference(c) == s
    for p in range(game.num_players):
        assert np.array_equal(cg.observe(c, p), game.observe(s, p))


@pytest.mark.parametrize("second, callable_", [
    ("cavaquinho 2", True),            # violao + another corda instrument: Cartola comes
    ("frigideira (corda)", True),      # the corda coringa stands for the ?corda
    (None, False),                     # violao alone cannot be both tokens
])
def test_tokens_of_one_colour_need_their_own_cards(second, callable_):
    game = game_for(2)
    rodas = {0: {1: ["violao 1"]} | ({3: [second]} if second else {})}
    s = table(game, hands={0: ["violao 2", "surdo 4"]}, rodas=rodas, row=["Cartola", "Donga", "Candeia", "Monarco"],
              phase=PH_LAY)
    s, c, cg = both(game, s)
    play(game, cg, s, c, "lay violao 2")
    play(game, cg, s, c, "place on space 1")
    assert ("call open sambista 1 Cartola" in legal(game, s)) == callable_
    assert bool(cg.legal_mask(c)[game.A_CALL]) == callable_


def test_a_pair_of_two_coringas_and_a_brought_instrument_call_a_sambista(made_up_deck):
    """??corda from two coringa cards is impossible in the default deck (one per colour); the
    made-up deck's two sopro apitos make B's ??sopro, and trompete, brought by A, the rest."""
    game = game_for(2, deck=made_up_deck)
    s = table(game, hands={0: ["apito (sopro)", "cuica 6"]}, rodas={0: {2: ["apito (sopro)"]}},
              called={0: ["A"]}, row=["B", "C", "D", "I"], deck=["flauta 8", "chocalho 12"], phase=PH_LAY)
    s, c, cg = both(game, s)
    play(game, cg, s, c, "lay apito (sopro)")
    play(game, cg, s, c, "place on space 2")
    assert legal(game, s)[:1] == ["call open sambista 1 B"]
    assert cg.legal_mask(c)[game.A_CALL] == 1
    play(game, cg, s, c, "call open sambista 1 B")    # compra: the deck's two top cards
    hand = cg.to_reference(c).hands[0]
    assert hand[kind(game, "flauta 8")] == hand[kind(game, "chocalho 12")] == hand[kind(game, "cuica 6")] == 1


def test_the_aec_env_runs_on_the_compiled_engine_by_default():
    """Same seed, same game, same rewards to the bit (4 players: a loser gets -1/3, no float32)."""
    env = baralho.make("roda_de_samba_v1", num_players=4)
    assert env.unwrapped.game.engine == "compiled"
    ref = baralho.make("roda_de_samba_v1", num_players=4, engine="reference")
    for e in (env, ref):
        e.reset(seed=11)
    rng = np.random.default_rng(0)
    ended = False
    for _agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        obs2, reward2, term2, trunc2, _ = ref.last()
        assert np.array_equal(obs["observation"], obs2["observation"]) and reward == reward2
        assert np.array_equal(obs["action_mask"], obs2["action_mask"]) and term == term2
        ended |= term
        a = None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"])))
        env.step(a)
        ref.step(a)
    assert ended and env.unwrapped.game.returns(env.unwrapped.game_state).tolist() == ref.unwrapped.game.returns(
        ref.unwrapped.game_state).tolist()


def test_same_state_sees_every_kind_of_field_differ():
    """The harness's every-step state check: equal for the state loaded, unequal after a change
    to a hidden order, a hand, a list's length or a scalar."""
    game = game_for(3)
    s = game.new_state(np.random.default_rng(2))
    records = fast.new_records(game, 1)
    fast.to_record(records[0], s, game)
    assert fast.same_state(record_lists(records[0]), s, game) and fast.from_record(records[0], fast.STATE, game) == s
    for change in (lambda t: t.deck.reverse(), lambda t: t.samb_deck.reverse(), lambda t: t.hands[2].reverse(),
                   lambda t: t.deck.pop(), lambda t: t.called[1].append(0), lambda t: setattr(t, "turns", 1),
                   lambda t: setattr(t, "end_triggered", True), lambda t: t.returns.__setitem__(2, 1.0)):
        t = s.copy()
        change(t)
        assert not fast.same_state(record_lists(records[0]), t, game)


def test_the_harness_sees_a_compiled_deck_order_that_drifts(monkeypatch):
    """Teeth: two swapped cards deep in the deck change no mask, observation or reward for
    many steps; the state comparison must report them at once."""
    from baralho.vector.compiled import CompiledVector

    real = CompiledVector.set_state

    def drifting(self, i, state):
        real(self, i, state)
        if i == 3:
            deck = self._records[i]["deck"]
            j = int(np.flatnonzero(deck[:self._records[i]["deck_len"]] != deck[0])[0])
            deck[0], deck[j] = deck[j], deck[0]                 # two cards of two kinds swap places

    monkeypatch.setattr(CompiledVector, "set_state", drifting)
    result = differential("roda_de_samba_v1", {"num_players": 2}, games=8, batch=8, seed=1)
    assert result["differences"] > 0 and all("state" in r for r in result["reports"])


def test_one_record_layout_for_every_player_count(made_up_deck):
    """The record's per-seat rows are sized for MAX_PLAYERS: 2..5 players share one dtype per deck."""
    for deck in (None, made_up_deck):
        dtypes = {n: fast.state_dtype(game_for(n, deck=deck)) for n in (2, 3, 4, 5)}
        assert all(dt == dtypes[2] for dt in dtypes.values()), deck
        assert all(fast.new_records(game_for(n, deck=deck), 1).dtype == dtypes[2] for n in (2, 5))


SEAT_FIELDS = ("hands", "hand_size", "known", "space_inst", "space_count", "space_num", "inst_space", "laid",
               "laid_total", "called", "called_len", "reserved", "atrav", "fame", "returns")


def test_the_kernels_compile_once_for_every_player_count():
    """2 then 5 players in one process, on the AEC env and the vector: each entry point has one
    compiled signature for the default deck's records (numba compiles a record type anew: ~25 s each);
    the seats past the player count stay 0 (to_record leaves them as they are)."""
    rng = np.random.default_rng(0)
    for n in (2, 5):
        env = baralho.make("roda_de_samba_v1", num_players=n)
        env.reset(seed=n)
        for _ in range(60):
            if not env.agents:
                env.reset(seed=n + 1)
            obs, _r, term, trunc, _ = env.last()
            env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        cg = env.unwrapped.game
        s = cg.new_state(rng)
        cg.apply(s, int(rng.choice(np.flatnonzero(cg.legal_mask(s)))))
        cg.observe(s, (cg.current_player(s) + 1) % n)
        venv = bv.make("roda_de_samba_v1", num_envs=4, seed=n, num_players=n)
        _obs, mask, _seat = venv.reset()
        for _ in range(20):
            actions = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
            _obs, mask, _seat, _rew, _done = venv.step(actions)
        venv.observe()
        for records in (venv._records, env.unwrapped.game_state.records, s.records):   # the seats past n stay 0
            for name in SEAT_FIELDS:
                assert not records[name][:, n:].any(), (n, name)
    ours = {nb.typeof(fast.new_records(game_for(n), 1)) for n in (2, 5)}
    from baralho.core.batch import kernels

    for k in (kernels(fast).one, kernels(fast).batch):
        signatures = [sig for sig in k.dispatcher.signatures if sig[0] in ours]
        assert len(signatures) == 1, (k.what, signatures)
