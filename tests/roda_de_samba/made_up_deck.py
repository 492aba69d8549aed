"""A made-up Roda de Samba deck file with other counts than the bundled one: the compiled
engine must play any deck the reference accepts (tests/roda_de_samba/test_fast.py, and
``python -m benchmarks.fuzz --differential``, which adds it to the 100k-game run)."""

from __future__ import annotations

import json
from pathlib import Path


def _samb(name, requires, stars, colour, points, benefit):
    return dict(name=name, requires=requires, stars=stars, bonus=dict(colour=colour, points=points), benefit=benefit)


# other counts everywhere: 3 colours, numbers up to 99 repeated within an instrument, a 6-token
# sambista, coringas of 1..3 copies, 7 malandros, 9 sambistas with every benefit
MADE_UP = dict(
    colours=["sopro", "pele", "metal"],
    instruments=[
        dict(name="flauta", colour="sopro", numbers=[1, 1, 2, 3, 5, 8]),
        dict(name="trompete", colour="sopro", numbers=[2, 3, 5, 7, 11]),
        dict(name="clarinete", colour="sopro", numbers=[1, 4, 4, 9]),
        dict(name="atabaque", colour="pele", numbers=[1, 2, 3, 4, 5, 6, 7]),
        dict(name="cuica", colour="pele", numbers=[2, 2, 2, 6, 10]),
        dict(name="triangulo", colour="metal", numbers=[1, 3, 3, 7, 9, 99]),
        dict(name="chocalho", colour="metal", numbers=[4, 8, 12]),
    ],
    coringas=[dict(name="apito", colour="sopro", copies=2), dict(name="apito", colour="metal", copies=1),
              dict(name="tambor", colour="pele", copies=3)],
    malandros=7,
    sambistas=[
        _samb("A", ["flauta", "?sopro"], 2, "sopro", 1, {"instrument": "trompete"}),
        _samb("B", ["??sopro", "trompete"], 3, "pele", 2, {"action": "compra"}),
        _samb("C", ["atabaque", "cuica", "??pele"], 4, "pele", 1, {"action": "descarte"}),
        _samb("D", ["?metal"], 1, "metal", 3, {"action": "baixa"}),
        _samb("E", ["??metal", "?metal", "?sopro"], 5, "sopro", 0, {"action": "malandragem"}),
        _samb("F", ["flauta", "trompete", "clarinete", "atabaque", "cuica", "triangulo"], 6, "metal", 1, None),
        _samb("G", ["?pele", "?sopro", "?metal"], 1, "sopro", 1, {"instrument": "chocalho"}),
        _samb("H", ["chocalho", "??sopro"], 2, "metal", 2, {"action": "malandragem"}),
        _samb("I", ["cuica"], 0, "pele", 0, {"action": "compra"}),
    ],
    rodas=[["a", "A"], ["b", "B"], ["c", "C"], ["d", "D"], ["e", "E"]],
)


def write_made_up_deck(path: str | Path) -> str:
    """Write :data:`MADE_UP` as a deck file at ``path``; returns the path as a string."""
    Path(path).write_text(json.dumps(MADE_UP), encoding="utf-8")
    return str(path)
