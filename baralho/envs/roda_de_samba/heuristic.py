"""A rule-based Roda de Samba player that reads only its observation.

It keeps harmony (lays where no samba atravessado appears, isolated spaces
first), chases the sambistas it can reach (cards that fill a missing
requirement of an open or reserved sambista are worth more, when drawing,
laying and discarding), calls the most famous sambista it can, and uses its
malandros to reserve the best reachable sambista. Static card data (the deck)
and the action offsets are the only things it takes from the game object.
"""

from __future__ import annotations

import numpy as np

from baralho.core.chance import seeded
from baralho.envs.roda_de_samba.actions import PH_CALL, PH_DISCARD, PH_DRAW, PH_LAY, PH_PILE, PH_PLACE
from baralho.envs.roda_de_samba.cards import REQ_INSTRUMENT, SPACES, requirements_met

_DRAW_VALUE = 2.6  # what two unknown cards from the deck are worth to us, roughly


class RodaDeSambaHeuristic:
    def __init__(self, game, seed: int | None = None) -> None:
        game = getattr(game, "reference", game)   # the deck's tables: the rules game's (CompiledGame wraps it)
        self.game = game
        self.deck = d = game.deck
        self.rng = seeded(seed)
        self.kind_inst = list(d.kind_inst)
        self.kind_numidx = [game.encoder.num_index.get(x, -1) for x in d.kind_number]
        self.NI = len(d.inst_names)
        self._num_bits = 1 << np.arange(game.obs_layout.fields["space_numbers"].shape[-1], dtype=np.int64)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = seeded(seed)

    # ------------------------------------------------------------ reading obs
    def _read(self, observation: np.ndarray) -> dict:
        """What the heuristic reads, as plain ints and lists.

        Hot path (a guided search calls the heuristic at every rollout step): only
        the fields used are taken from the observation, each converted in one numpy
        call (profiled: this was 45% of a guided ISMCTS move with per-element loops)."""
        d = self.deck
        o = self.game.obs_layout.decode(observation, _FIELDS)   # the 12 fields used, not all 28
        insts = _argmax_rows(o["space_instrument"][0])
        nums = (o["space_numbers"][0] != 0).astype(np.int64) @ self._num_bits
        nums = nums.tolist()
        counts, coringas = [0] * self.NI, [0] * len(d.colours)
        cards = o["space_cards"][0].astype(np.int64).tolist()
        for s, inst in enumerate(insts):
            if inst >= 0:
                if d.inst_coringa[inst]:
                    coringas[d.inst_colour[inst]] += cards[s]
                else:
                    counts[inst] += cards[s]
        brought = o["brought"][0]
        if brought.any():
            counts[int(brought.argmax())] += 1
        row = _argmax_rows(o["open_row"])
        res = o["reserved"][0]
        reserved = int(res.argmax()) if res.any() else -1
        called = np.flatnonzero(o["sambistas"][0]).tolist()
        targets = [sid for sid in row + [reserved] if sid >= 0]
        top = o["sambista_deck_top"]
        samb_top = int(top.argmax()) if top.any() else -1  # known when a malandro swap put it there
        return dict(o=o, insts=insts, nums=nums, counts=counts, coringas=coringas, row=row,
                    reserved=reserved, called=called, targets=targets, samb_top=samb_top,
                    hand=o["hand"].astype(np.int64).tolist())

    def _missing(self, sid: int, counts, coringas) -> list[tuple[int, int]]:
        """Tokens of sambista ``sid`` that the roda does not fill on its own."""
        reqs = self.deck.sambistas[sid].requires
        return [t for t in reqs if not requirements_met(self.deck, (t,), counts, coringas, True)]

    def _wanted(self, r: dict) -> tuple[set[int], set[int]]:
        """Instruments and colours that would fill a missing requirement of a target."""
        insts, colours = set(), set()
        for sid in r["targets"]:
            for kind, arg in self._missing(sid, r["counts"], r["coringas"]):
                if kind == REQ_INSTRUMENT:
                    insts.add(arg)
                else:
                    colours.add(arg)
        return insts, colours

    def _card_value(self, k: int, r: dict, wanted) -> float:
        d = self.deck
        if k == d.malandro:
            return 1.2
        inst = self.kind_inst[k]
        v = 1.0
        if inst in wanted[0] or d.inst_colour[inst] in wanted[1]:
            v += 1.5
        if inst in r["insts"]:
            v += 0.5  # goes onto its space: more numbers for harmony, no new neighbour
        return v

    # --------------------------------------------------------------- harmony
    def _bad_pairs(self, insts, nums, s: int) -> int:
        d, bad = self.deck, 0
        for t in ((s - 1) % SPACES, (s + 1) % SPACES):
            a, b = insts[s], insts[t]
            if a < 0 or b < 0 or d.inst_colour[a] == d.inst_colour[b]:
                continue
            if d.inst_coringa[a] or d.inst_coringa[b] or not nums[s] & nums[t]:
                bad += 1
        return bad

    def _place_score(self, r: dict, inst: int, bits: int, s: int) -> float:
        insts, nums = list(r["insts"]), list(r["nums"])
        before = self._bad_pairs(insts, nums, s)
        insts[s] = inst
        nums[s] |= bits
        after = self._bad_pairs(insts, nums, s)
        free_neighbours = sum(insts[t] < 0 for t in ((s - 1) % SPACES, (s + 1) % SPACES))
        return -2.0 * (after - before) + 0.1 * free_neighbours

    def _group_bits(self, kinds) -> int:
        bits = 0
        for k in kinds:
            if self.kind_numidx[k] >= 0:
                bits |= 1 << self.kind_numidx[k]
        return bits

    def _best_space(self, r: dict, inst: int, bits: int, spaces) -> tuple[float, int]:
        if inst in r["insts"]:
            s = r["insts"].index(inst)
            return self._place_score(r, inst, bits, s), s
        return max((self._place_score(r, inst, bits, s), s) for s in spaces)

    def _lay_value(self, r: dict, inst: int, kinds) -> tuple[float, int]:
        """Value of laying these cards of ``inst``: harmony, sambistas it unlocks, cards laid."""
        d = self.deck
        empty = [s for s in range(SPACES) if r["insts"][s] < 0]
        score, space = self._best_space(r, inst, self._group_bits(kinds), empty)
        counts, coringas = list(r["counts"]), list(r["coringas"])
        if d.inst_coringa[inst]:
            coringas[d.inst_colour[inst]] += len(kinds)
        else:
            counts[inst] += len(kinds)
        best_call = 0.0
        for sid in r["targets"]:
            if requirements_met(d, d.sambistas[sid].requires, counts, coringas):
                best_call = max(best_call, self._sambista_value(sid, r))
        return score + best_call + 0.3 * len(kinds), space

    def _sambista_value(self, sid: int, r: dict) -> float:
        d = self.deck
        sb = d.sambistas[sid]
        spaces = sum(1 for inst in r["insts"] if inst >= 0 and d.inst_colour[inst] == sb.bonus_colour)
        return sb.stars + sb.bonus_points * (spaces + 1) + (0.5 if sb.brings >= 0 or sb.bang >= 0 else 0)

    # -------------------------------------------------------------------- act
    def act(self, observation: dict, agent_id: str) -> int:
        g, d = self.game, self.deck
        mask = observation["action_mask"]
        legal = np.flatnonzero(mask)
        if len(legal) == 1:
            return int(legal[0])
        r = self._read(observation["observation"])
        phase = int(np.argmax(r["o"]["phase"]))
        wanted = self._wanted(r)
        if phase in (PH_DRAW, PH_PILE):
            best, best_a = (_DRAW_VALUE if mask[g.A_DRAW] and phase == PH_DRAW else -1.0), g.A_DRAW
            for c in range(len(d.colours)):
                a = g.A_PILE + c
                if mask[a]:
                    pile = r["o"]["piles"][c]
                    v = sum(self._card_value(k, r, wanted) * x for k, x in enumerate(pile) if x)
                    if v > best:
                        best, best_a = v, a
            return int(best_a)
        if phase == PH_LAY:
            options = {}
            for a in legal:
                k = int(a) - g.A_LAY
                options.setdefault(self.kind_inst[k], []).append(k)
            best = max(options, key=lambda inst: self._lay_value(
                r, inst, [k for k in options[inst] for _ in range(r["hand"][k])][:4])[0])
            return g.A_LAY + options[best][0]
        if phase == PH_PLACE:
            adds = [int(a) for a in legal if g.A_LAY <= a < g.A_PLACE]
            if adds:  # lay every copy at once: more numbers for harmony, more cards laid
                return adds[0]
            spaces = [int(a) - g.A_PLACE for a in legal]
            sel = [k for k, x in enumerate(r["o"]["selected"]) for _ in range(int(x))]
            inst = self.kind_inst[sel[0]]
            _, s = self._best_space(r, inst, self._group_bits(sel), spaces)
            return g.A_PLACE + s
        if phase == PH_CALL:
            def call_value(a):
                if a == g.A_CALL_NONE:
                    return -1.0
                sid = r["reserved"] if a == g.A_CALL_RESERVED else r["row"][a - g.A_CALL]
                return self._sambista_value(sid, r)
            return int(max(legal, key=call_value))
        if phase == PH_DISCARD:
            mal = [int(a) for a in legal if a >= g.A_DISCARD_MAL]
            if mal and self._reserve_choice(r, legal_reserve=None) is not None:
                sizes = r["o"]["piles"].sum(1)
                return min(mal, key=lambda a: sizes[a - g.A_DISCARD_MAL])
            inst_discards = [int(a) for a in legal if a < g.A_DISCARD_MAL]
            if not inst_discards:
                return mal[0]
            return min(inst_discards, key=lambda a: self._discard_value(a - g.A_DISCARD, r, wanted))
        # PH_RESERVE
        choice = self._reserve_choice(r, legal_reserve=mask)
        return int(choice if choice is not None else g.A_RESERVE_NONE)

    def _discard_value(self, k: int, r: dict, wanted) -> float:
        v = self._card_value(k, r, wanted)
        inst = self.kind_inst[k]
        if inst not in r["insts"]:
            empty = [s for s in range(SPACES) if r["insts"][s] < 0]
            if empty:
                v += 0.5 * max(0.0, self._best_space(r, inst, self._group_bits([k]), empty)[0])
            else:
                v -= 2.0  # can never be laid
        return v + 0.01 * self.rng.random()

    def _reserve_score(self, sid: int, r: dict) -> float:
        missing = self._missing(sid, r["counts"], r["coringas"])
        return self._sambista_value(sid, r) - 2.0 * len(missing)

    def _reserve_choice(self, r: dict, legal_reserve) -> int | None:
        """The reserve action worth taking now (None: keep what we have)."""
        g = self.game
        current = self._reserve_score(r["reserved"], r) if r["reserved"] >= 0 else -99.0
        best, best_a = current + 1.0, None
        options = [(g.A_RESERVE + i, sid) for i, sid in enumerate(r["row"])]
        if r["samb_top"] >= 0:  # the deck's known top is as good as an open one
            options.append((g.A_RESERVE_TOP, r["samb_top"]))
        for a, sid in options:
            if sid < 0 or (legal_reserve is not None and not legal_reserve[a]):
                continue
            v = self._reserve_score(sid, r)
            if v > best:
                best, best_a = v, a
        if (best_a is None and r["reserved"] < 0 and r["samb_top"] < 0 and legal_reserve is not None
                and legal_reserve[g.A_RESERVE_TOP]):  # an unknown top beats nothing
            best_a = g.A_RESERVE_TOP
        return best_a


_FIELDS = ("space_instrument", "space_numbers", "space_cards", "brought", "open_row", "reserved", "sambistas",
           "hand", "phase", "piles", "selected", "sambista_deck_top")


def _argmax_rows(block: np.ndarray) -> list[int]:
    """Per row of a non-negative 2-d block: the index of its largest entry (the first
    one), or -1 for an all-zero row. On Python lists: numpy's per-call cost is most of
    the time on blocks this small."""
    out = []
    for row in block.tolist():
        top = max(row)
        out.append(row.index(top) if top else -1)
    return out


__all__ = ["RodaDeSambaHeuristic"]


#: the registry finds every game's heuristic under this name (baralho.agents.heuristic_for)
Heuristic = RodaDeSambaHeuristic
