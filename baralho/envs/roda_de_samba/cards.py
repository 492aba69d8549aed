"""The card list of Roda de Samba: one JSON data file, loaded and validated once.

The real card list is unpublished, so every card (instruments, coringas,
malandros, sambistas with requirements, stars, colour bonus and benefit, rodas)
lives in ``deck.json`` next to this module. A user replaces it with
``Config(deck="my_deck.json")``; :func:`load_deck` checks the file and raises a
:class:`DeckError` naming the bad entry. The schema (see ``deck.json``)::

    colours     ["corda", ...]                          the families / discard piles
    instruments [{"name", "colour", "numbers": [1, 2, ...]}]   one card per number
    coringas    [{"name", "colour", "copies"}]          numberless, colour-only harmony
    malandros   int                                     common malandros
    sambistas   [{"name", "requires": [token...], "stars", "bonus": {"colour", "points"},
                  "benefit": {"instrument": name} | {"action": one of BANG_ACTIONS} | null}]
    rodas       [[side A, side B], ...]                 cosmetic boards, one per seat

A requirement token is an instrument name, ``"?colour"`` (any instrument of the
colour) or ``"??colour"`` (two cards of one instrument of the colour).

A card *kind* is an (instrument, number) pair (coringas have no number); the
malandro is the last kind. Hands and piles are count vectors over kinds.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from baralho.core.config import ConfigError

DEFAULT_DECK = Path(__file__).with_name("deck.json")

#: The one-shot ``!`` benefits: draw 2 more cards, take a whole discard pile,
#: lay down once more, attract a sambista as a malandro does.
BANG_ACTIONS = ("compra", "descarte", "baixa", "malandragem")
BANG_COMPRA, BANG_DESCARTE, BANG_BAIXA, BANG_MALANDRAGEM = range(4)

# requirement token kinds
REQ_INSTRUMENT, REQ_ANY, REQ_PAIR = range(3)

MAX_NUMBER = 99
MAX_DECK_BYTES = 1 << 20

# the table: spaces around a roda (space 10 neighbours space 1), open sambistas, cards laid at once
SPACES = 10
ROW = 4
MAX_GROUP = 4  # pair, trio, quartet


class DeckError(ConfigError):
    """A bad card-list file (the message names the file and the entry)."""


@dataclass(frozen=True)
class Sambista:
    name: str
    requires: tuple[tuple[int, int], ...]  # (REQ_*, instrument or colour index)
    stars: int
    bonus_colour: int
    bonus_points: int
    brings: int  # instrument index brought while on top, or -1
    bang: int  # BANG_* index, or -1


@dataclass(frozen=True)
class Deck:
    path: str
    colours: tuple[str, ...]
    inst_names: tuple[str, ...]  # coringas are named "frigideira (corda)"
    inst_colour: tuple[int, ...]
    inst_coringa: tuple[bool, ...]
    numbers: tuple[int, ...]  # the distinct numbers, sorted
    kind_inst: tuple[int, ...]  # per instrument kind (malandro excluded)
    kind_number: tuple[int, ...]  # 0 for coringas
    kind_copies: tuple[int, ...]  # per kind, malandro included (last)
    sambistas: tuple[Sambista, ...]
    rodas: tuple[tuple[str, str], ...]

    @property
    def colour_insts(self) -> tuple[tuple[int, ...], ...]:
        """The non-coringa instruments of each colour."""
        return self._colour_insts

    def __post_init__(self):
        object.__setattr__(self, "_colour_insts", tuple(
            tuple(i for i, c in enumerate(self.inst_colour) if c == col and not self.inst_coringa[i])
            for col in range(len(self.colours))))

    @property
    def num_inst_kinds(self) -> int:
        return len(self.kind_inst)

    @property
    def malandro(self) -> int:
        """The malandro's kind index (after every instrument kind)."""
        return len(self.kind_inst)

    @property
    def num_kinds(self) -> int:
        return len(self.kind_inst) + 1

    @property
    def num_instrument_cards(self) -> int:
        return sum(self.kind_copies[:-1])

    def kind_name(self, k: int) -> str:
        if k == self.malandro:
            return "malandro"
        name = self.inst_names[self.kind_inst[k]]
        return name if self.inst_coringa[self.kind_inst[k]] else f"{name} {self.kind_number[k]}"

    def token_name(self, token: tuple[int, int]) -> str:
        kind, arg = token
        if kind == REQ_INSTRUMENT:
            return self.inst_names[arg]
        return ("?" if kind == REQ_ANY else "??") + self.colours[arg]


def load_deck(path: str | Path | None = None) -> Deck:
    """Load and validate a card-list file (``None``: the default ``deck.json``)."""
    path = Path(DEFAULT_DECK if path is None else path)
    where = str(path)
    try:
        if path.exists() and (not path.is_file() or path.stat().st_size > MAX_DECK_BYTES):   # not /dev/zero
            raise DeckError(f"deck file {where}: not a regular file of at most {MAX_DECK_BYTES} bytes")
        raw = json.loads(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise DeckError(f"deck file {where}: cannot be read ({e.strerror or e})") from None
    except json.JSONDecodeError as e:
        raise DeckError(f"deck file {where}: not valid JSON ({e})") from None
    except (UnicodeDecodeError, RecursionError) as e:
        raise DeckError(f"deck file {where}: not valid JSON ({type(e).__name__})") from None
    return parse_deck(raw, where)


def _fail(where: str, entry: str, msg: str) -> DeckError:
    return DeckError(f"deck file {where}: {entry}: {msg}")


def _int(where, entry, value, lo, hi) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise _fail(where, entry, f"{value!r} must be an integer in {lo}..{hi}")
    return value


def _name(where, entry, value) -> str:
    if not isinstance(value, str) or not value.strip():
        raise _fail(where, entry, f"name {value!r} must be a non-empty string")
    return value


def _object(where, entry, value, required: tuple[str, ...], optional: tuple[str, ...] = ()) -> dict:
    if not isinstance(value, dict):
        raise _fail(where, entry, f"must be an object with keys {list(required)}, got {type(value).__name__}")
    missing = [k for k in required if k not in value]
    if missing:
        raise _fail(where, entry, f"missing key(s) {missing}")
    extra = [k for k in value if k not in required + optional]
    if extra:
        raise _fail(where, entry, f"unknown key(s) {extra}; allowed: {list(required + optional)}")
    return value


def _list(where, entry, value, min_len: int = 1) -> list:
    if not isinstance(value, list) or len(value) < min_len:
        raise _fail(where, entry, f"must be a list of at least {min_len} item(s), got {value!r}"[:200])
    return value


def parse_deck(raw: object, where: str = "<data>") -> Deck:
    """Validate an already-parsed card list (see the module docstring)."""
    top = _object(where, "top level", raw,
                  ("colours", "instruments", "coringas", "malandros", "sambistas", "rodas"), ("about",))
    colours = [_name(where, f"colours[{i}]", c)
               for i, c in enumerate(_list(where, "colours", top["colours"]))]
    if len(set(colours)) != len(colours):
        raise _fail(where, "colours", f"duplicate colour in {colours}")
    colour_of = {c: i for i, c in enumerate(colours)}

    def colour(entry: str, value) -> int:
        if value not in colour_of:
            raise _fail(where, entry, f"colour {value!r} is not one of {colours}")
        return colour_of[value]

    inst_names, inst_colour, inst_coringa = [], [], []
    kind_inst, kind_number, kind_copies = [], [], []
    for i, e in enumerate(_list(where, "instruments", top["instruments"])):
        entry = f"instruments[{i}]"
        e = _object(where, entry, e, ("name", "colour", "numbers"))
        name = _name(where, entry, e["name"])
        entry = f"instruments[{i}] ({name!r})"
        if name in inst_names:
            raise _fail(where, entry, "duplicate instrument name")
        if name.startswith("?"):
            raise _fail(where, entry, "an instrument name may not start with '?'")
        nums = [_int(where, f"{entry} numbers", v, 1, MAX_NUMBER) for v in _list(where, f"{entry} numbers",
                                                                                 e["numbers"])]
        inst = len(inst_names)
        inst_names.append(name)
        inst_colour.append(colour(entry, e["colour"]))
        inst_coringa.append(False)
        for v in sorted(set(nums)):
            kind_inst.append(inst)
            kind_number.append(v)
            kind_copies.append(nums.count(v))
    for i, e in enumerate(_list(where, "coringas", top["coringas"], 0)):
        entry = f"coringas[{i}]"
        e = _object(where, entry, e, ("name", "colour", "copies"))
        name = f"{_name(where, entry, e['name'])} ({e['colour']})"
        entry = f"coringas[{i}] ({name!r})"
        c = colour(entry, e["colour"])
        if name in inst_names:
            raise _fail(where, entry, "duplicate coringa (one entry per name and colour)")
        inst_names.append(name)
        inst_colour.append(c)
        inst_coringa.append(True)
        kind_inst.append(len(inst_names) - 1)
        kind_number.append(0)
        kind_copies.append(_int(where, f"{entry} copies", e["copies"], 1, 4))
    if max(kind_copies) > 4:
        k = kind_copies.index(max(kind_copies))
        raise _fail(where, f"instrument {inst_names[kind_inst[k]]!r}",
                    f"number {kind_number[k]} appears {kind_copies[k]} times (at most 4 copies of a card)")
    malandros = _int(where, "malandros", top["malandros"], 0, 20)
    kind_copies.append(malandros)
    inst_of = {n: i for i, n in enumerate(inst_names) if not inst_coringa[i]}

    def instrument(entry: str, value) -> int:
        if value not in inst_of:
            raise _fail(where, entry, f"{value!r} is not an instrument; instruments are {list(inst_of)}")
        return inst_of[value]

    sambistas, names = [], set()
    for i, e in enumerate(_list(where, "sambistas", top["sambistas"])):
        entry = f"sambistas[{i}]"
        e = _object(where, entry, e, ("name", "requires", "stars", "bonus", "benefit"))
        name = _name(where, entry, e["name"])
        entry = f"sambistas[{i}] ({name!r})"
        if name in names:
            raise _fail(where, entry, "duplicate sambista name")
        names.add(name)
        reqs = []
        tokens = _list(where, f"{entry} requires", e["requires"])
        if len(tokens) > 6:
            raise _fail(where, f"{entry} requires", "at most 6 requirement tokens")
        for t in tokens:
            if not isinstance(t, str):
                raise _fail(where, f"{entry} requires", f"token {t!r} must be a string")
            if t.startswith("??"):
                reqs.append((REQ_PAIR, colour(f"{entry} requirement {t!r}", t[2:])))
            elif t.startswith("?"):
                reqs.append((REQ_ANY, colour(f"{entry} requirement {t!r}", t[1:])))
            else:
                reqs.append((REQ_INSTRUMENT, instrument(f"{entry} requirement {t!r}", t)))
        if len({r for r in reqs if r[0] == REQ_INSTRUMENT}) != sum(r[0] == REQ_INSTRUMENT for r in reqs):
            raise _fail(where, f"{entry} requires",
                        "an instrument is named twice (use '??colour' for a pair)")
        stars = _int(where, f"{entry} stars", e["stars"], 0, 20)
        bonus = _object(where, f"{entry} bonus", e["bonus"], ("colour", "points"))
        bonus_colour = colour(f"{entry} bonus", bonus["colour"])
        bonus_points = _int(where, f"{entry} bonus points", bonus["points"], 0, 5)
        brings, bang = -1, -1
        benefit = e["benefit"]
        if benefit is not None:
            if not (isinstance(benefit, dict) and len(benefit) == 1
                    and {"instrument", "action"} & set(benefit)):
                raise _fail(where, f"{entry} benefit", f"{benefit!r} must be null, {{'instrument': name}} "
                            f"or {{'action': one of {list(BANG_ACTIONS)}}}")
            if "instrument" in benefit:
                brings = instrument(f"{entry} benefit", benefit["instrument"])
            elif benefit["action"] in BANG_ACTIONS:
                bang = BANG_ACTIONS.index(benefit["action"])
            else:
                raise _fail(where, f"{entry} benefit", f"action {benefit['action']!r} is not one of "
                            f"{list(BANG_ACTIONS)}")
        sambistas.append(Sambista(name, tuple(reqs), stars, bonus_colour, bonus_points, brings, bang))
    rodas = []
    for i, r in enumerate(_list(where, "rodas", top["rodas"])):
        if not (isinstance(r, list) and len(r) == 2 and all(isinstance(x, str) and x for x in r)):
            raise _fail(where, f"rodas[{i}]", f"{r!r} must be a pair of side names [side A, side B]")
        rodas.append((r[0], r[1]))
    return Deck(where, tuple(colours), tuple(inst_names), tuple(inst_colour), tuple(inst_coringa),
                tuple(sorted(set(kind_number) - {0})), tuple(kind_inst), tuple(kind_number),
                tuple(kind_copies), tuple(sambistas), tuple(rodas))


# --------------------------------------------------------------- requirements
def requirements_met(deck: Deck, requires, counts, coringas, independent: bool | None = None) -> bool:
    """Whether a roda meets a sambista's requirements.

    ``counts[i]``: cards of the (non-coringa) instrument ``i`` the roda offers
    (its space's stack, plus one when the sambista on top brings it);
    ``coringas[c]``: coringa cards of colour ``c`` laid in the roda. Every
    token takes its own instrument; a coringa card stands for any one
    instrument of its colour (a repeated one too, so a card plus a coringa or
    two coringas make a ``??``).
    """
    colour = deck.inst_colour
    for kind, arg in requires:  # each token alone: exact when no two tokens share a colour
        if kind == REQ_INSTRUMENT:
            if not counts[arg] and not coringas[colour[arg]]:
                return False
        elif kind == REQ_ANY:
            if not coringas[arg] and not any(counts[i] for i in deck.colour_insts[arg]):
                return False
        else:
            j = coringas[arg]
            if j < 2 and not any(counts[i] >= 2 or (counts[i] and j) for i in deck.colour_insts[arg]):
                return False
    if independent is None:
        independent = tokens_independent(deck, requires)
    if independent:
        return True  # tokens of different colours never compete for a card
    return _match(deck, requires, 0, counts, list(coringas), set())


def tokens_independent(deck: Deck, requires) -> bool:
    """True when no two tokens share a colour (then each can be checked alone)."""
    return len({arg if kind != REQ_INSTRUMENT else deck.inst_colour[arg] for kind, arg in requires}) \
        == len(requires)


def _match(deck: Deck, reqs, j: int, counts, cor: list, used: set) -> bool:
    if j == len(reqs):
        return True
    kind, arg = reqs[j]
    if kind == REQ_INSTRUMENT:
        options = [(arg, 0)] if counts[arg] >= 1 and arg not in used else []
        colour = deck.inst_colour[arg]
    else:
        colour = arg
        options = []
        for i in deck.colour_insts[colour]:
            if i in used or counts[i] == 0:
                continue
            if kind == REQ_ANY or counts[i] >= 2:
                options.append((i, 0))
            else:
                options.append((i, 1))  # a single card repeated by a coringa
    for i, jokers in options:
        if cor[colour] >= jokers:
            cor[colour] -= jokers
            used.add(i)
            ok = _match(deck, reqs, j + 1, counts, cor, used)
            used.discard(i)
            cor[colour] += jokers
            if ok:
                return True
    need = 2 if kind == REQ_PAIR else 1
    if cor[colour] >= need:
        cor[colour] -= need
        ok = _match(deck, reqs, j + 1, counts, cor, used)
        cor[colour] += need
        return ok
    return False
