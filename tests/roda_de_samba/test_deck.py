"""The card list is one replaceable data file, validated on load with clear errors."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest

import baralho
from baralho.core.config import ConfigError
from baralho.envs.roda_de_samba.cards import DEFAULT_DECK, DeckError, load_deck

RAW = json.loads(DEFAULT_DECK.read_text(encoding="utf-8"))


def write(tmp_path, raw, name="deck.json"):
    path = tmp_path / name
    path.write_text(json.dumps(raw) if not isinstance(raw, str) else raw, encoding="utf-8")
    return str(path)


def test_the_default_deck():
    d = load_deck()
    assert len(d.colours) == 4 and d.num_instrument_cards == 52 and d.kind_copies[-1] == 4
    assert sum(d.inst_coringa) == 4 and len(d.inst_names) == 16
    assert 20 <= len(d.sambistas) <= 24 and len(d.rodas) >= 5
    assert d.rodas[0] == ("Pedra do Sal", "Praca Onze e Estacio")


def test_a_replacement_deck_is_played(tmp_path):
    raw = copy.deepcopy(RAW)
    raw["sambistas"] = raw["sambistas"][:6]
    raw["instruments"][0]["numbers"] = [1, 1, 2, 5]
    env = baralho.make("roda_de_samba_v1", engine="reference", deck=write(tmp_path, raw))
    game = env.unwrapped.game
    assert len(game.deck.sambistas) == 6 and game.deck.numbers == (1, 2, 3, 4, 5)
    rng = np.random.default_rng(0)
    for _ in range(3):
        s = game.new_state(rng)
        while not s.over:
            game.apply(s, int(rng.choice(np.flatnonzero(game.legal_mask(s)))))
            game.check_invariants(s)


def mutate(fn):
    raw = copy.deepcopy(RAW)
    fn(raw)
    return raw


BAD = [
    ("missing", None, "cannot be read"),
    ("not json", "{oops", "not valid JSON"),
    ("no sambistas key", mutate(lambda r: r.pop("sambistas")), "missing key(s) ['sambistas']"),
    ("unknown key", mutate(lambda r: r.update(jokers=2)), "unknown key(s) ['jokers']"),
    ("unknown requirement", mutate(lambda r: r["sambistas"][2]["requires"].__setitem__(0, "violino")),
     "sambistas[2] ('Noel Rosa') requirement 'violino': 'violino' is not an instrument"),
    ("unknown colour", mutate(lambda r: r["instruments"][4].__setitem__("colour", "sopro")),
     "instruments[4] ('tanta'): colour 'sopro' is not one of"),
    ("bad ? colour", mutate(lambda r: r["sambistas"][0]["requires"].__setitem__(1, "?sopro")),
     "sambistas[0] ('Cartola') requirement '?sopro': colour 'sopro' is not one of"),
    ("bad number", mutate(lambda r: r["instruments"][1].__setitem__("numbers", [1, "dois"])),
     "instruments[1] ('cavaquinho') numbers: 'dois' must be an integer"),
    ("duplicate instrument", mutate(lambda r: r["instruments"][1].__setitem__("name", "violao")),
     "instruments[1] ('violao'): duplicate instrument name"),
    ("duplicate sambista", mutate(lambda r: r["sambistas"][1].__setitem__("name", "Cartola")),
     "sambistas[1] ('Cartola'): duplicate sambista name"),
    ("bad action", mutate(lambda r: r["sambistas"][1].__setitem__("benefit", {"action": "voar"})),
     "sambistas[1] ('Nelson Cavaquinho') benefit: action 'voar' is not one of"),
    ("bad benefit", mutate(lambda r: r["sambistas"][1].__setitem__("benefit", "cavaquinho")),
     "sambistas[1] ('Nelson Cavaquinho') benefit: 'cavaquinho' must be null"),
    ("negative stars", mutate(lambda r: r["sambistas"][3].__setitem__("stars", -1)),
     "sambistas[3] ('Pixinguinha') stars: -1 must be an integer"),
    ("empty requires", mutate(lambda r: r["sambistas"][3].__setitem__("requires", [])),
     "sambistas[3] ('Pixinguinha') requires: must be a list of at least 1"),
    ("bad roda", mutate(lambda r: r["rodas"].__setitem__(0, ["Lapa"])), "rodas[0]: ['Lapa'] must be a pair"),
    ("coringa copies", mutate(lambda r: r["coringas"][0].__setitem__("copies", 0)),
     "coringas[0] ('frigideira (corda)') copies: 0 must be an integer in 1..4"),
]


@pytest.mark.parametrize("label, raw, message", BAD, ids=[b[0] for b in BAD])
def test_a_bad_deck_file_names_the_bad_entry(tmp_path, label, raw, message):
    path = str(tmp_path / "absent.json") if raw is None else write(tmp_path, raw)
    with pytest.raises(DeckError) as err:
        baralho.make("roda_de_samba_v1", deck=path)
    assert message in str(err.value) and path in str(err.value)
    assert isinstance(err.value, ConfigError)


def test_a_deck_too_small_for_the_players(tmp_path):
    raw = mutate(lambda r: [i.__setitem__("numbers", [1]) for i in r["instruments"]])
    path = write(tmp_path, raw)
    baralho.make("roda_de_samba_v1", deck=path, num_players=2)
    with pytest.raises(DeckError, match="5 players need at least 27"):
        baralho.make("roda_de_samba_v1", deck=path, num_players=5)
    raw = mutate(lambda r: r.__setitem__("rodas", r["rodas"][:2]))
    with pytest.raises(DeckError, match="2 roda"):
        baralho.make("roda_de_samba_v1", deck=write(tmp_path, raw, "r.json"), num_players=3)


@pytest.mark.parametrize("kwargs, message", [
    (dict(num_players=1), "2-5 players"),
    (dict(num_players=6), "2-5 players"),
    (dict(max_rounds=0), "max_rounds=0"),
    (dict(max_rounds=True), "max_rounds=True"),
    (dict(deck=3), "deck=3"),
    (dict(decks="x.json"), "did you mean 'deck'"),
])
def test_bad_configs_raise_config_error(kwargs, message):
    with pytest.raises(ConfigError, match=message):
        baralho.make("roda_de_samba_v1", **kwargs)
