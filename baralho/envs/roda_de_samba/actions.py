"""The factored action space of Roda de Samba: action ids, the legal mask, action texts.

One Discrete space; a turn is a short sequence of choices from it (see env.py
for the table): draw / take a pile, lay card kinds of one instrument then
place them on a space, call a sambista, discard, reserve. ``RodaActions`` is
the part of :class:`~.rules.RodaDeSambaGame` that speaks in action ids.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from baralho.envs.roda_de_samba.cards import MAX_GROUP, ROW, SPACES

if TYPE_CHECKING:
    from baralho.envs.roda_de_samba.rules import RodaState


#: the decision a turn asks for now (the state's ``phase``)
PHASES = ("draw", "lay", "place", "call", "pile", "discard", "reserve")
PH_DRAW, PH_LAY, PH_PLACE, PH_CALL, PH_PILE, PH_DISCARD, PH_RESERVE = range(len(PHASES))

_ONE = bytes([0] + [1] * 255)  # bytes.translate table: any count -> 1


class RodaActions:
    """Action ids and legality; mixed into the game (which holds the state logic)."""

    def _init_actions(self) -> None:
        C, KI = self.C, self.KI
        self.A_DRAW = 0
        self.A_PILE = 1
        self.A_LAY = self.A_PILE + C
        self.A_PLACE = self.A_LAY + KI
        self.A_CALL = self.A_PLACE + SPACES  # ROW open slots, then reserved, then none
        self.A_CALL_RESERVED = self.A_CALL + ROW
        self.A_CALL_NONE = self.A_CALL_RESERVED + 1
        self.A_DISCARD = self.A_CALL_NONE + 1
        self.A_DISCARD_MAL = self.A_DISCARD + KI
        self.A_RESERVE = self.A_DISCARD_MAL + C  # ROW open slots, then deck top, then none
        self.A_RESERVE_TOP = self.A_RESERVE + ROW
        self.A_RESERVE_NONE = self.A_RESERVE_TOP + 1
        self.num_actions = self.A_RESERVE_NONE + 1
        self._mask_cache: dict[tuple[int, ...], np.ndarray] = {}
        A = self.num_actions
        self._pre_lay, self._post_lay = bytes(self.A_LAY), bytes(A - self.A_PLACE)
        self._pre_discard, self._post_discard = bytes(self.A_DISCARD), bytes(A - self.A_RESERVE)
        self._no_piles = bytes(C)

    def legal_mask(self, s: RodaState) -> np.ndarray:
        """``int8[num_actions]``, read-only (masks of the phases with few distinct action
        sets are shared between positions: copy before writing into one; the env's
        ``observe`` hands out such a copy)."""
        if s.over:
            return np.zeros(self.num_actions, np.int8)
        ph, p = s.phase, s.player
        hand = s.hands[p]
        if ph == PH_DISCARD:  # built as bytes: the held instrument kinds, then malandro piles
            mal = bytes(1 if size else 0 for size in s.pile_size) if hand[self.mal] else self._no_piles
            return np.frombuffer(self._pre_discard + bytes(hand[:self.KI]).translate(_ONE) + mal
                                 + self._post_discard, np.int8)
        if ph == PH_LAY and -1 in s.space_inst[p]:  # a free space: every held instrument kind
            return np.frombuffer(self._pre_lay + bytes(hand[:self.KI]).translate(_ONE) + self._post_lay,
                                 np.int8)
        # the other phases have few distinct action sets: their masks are cached, read-only
        key = tuple(self.legal_actions(s))
        m = self._mask_cache.get(key)
        if m is None:
            if len(self._mask_cache) > 50_000:
                self._mask_cache.clear()
            m = np.zeros(self.num_actions, np.int8)
            m[list(key)] = 1
            m.flags.writeable = False
            self._mask_cache[key] = m
        return m

    def legal_actions(self, s: RodaState) -> list[int]:
        ph, hand = s.phase, s.hands[s.player]
        if ph == PH_DRAW or ph == PH_PILE:
            a = self.A_PILE
            acts = [a + c for c, size in enumerate(s.pile_size) if size]
            if ph == PH_DRAW and s.deck:
                acts.append(self.A_DRAW)
            return acts
        if ph == PH_LAY:
            sp, ks, free = s.inst_space[s.player], self.kind_inst, -1 in s.space_inst[s.player]
            a = self.A_LAY
            return [a + k for k in range(self.KI) if hand[k] and (free or sp[ks[k]] >= 0)]
        if ph == PH_PLACE:
            acts = []
            if len(s.selected) < MAX_GROUP:
                a = self.A_LAY
                acts = [a + k for k in self.inst_kinds[s.sel_inst] if hand[k]]
            sp = s.inst_space[s.player][s.sel_inst]
            if sp >= 0:
                acts.append(self.A_PLACE + sp)
            else:
                a = self.A_PLACE
                acts.extend(a + i for i, x in enumerate(s.space_inst[s.player]) if x < 0)
            return acts
        if ph == PH_CALL:
            return s.callable + [self.A_CALL_NONE]
        if ph == PH_DISCARD:
            a = self.A_DISCARD
            acts = [a + k for k in range(self.KI) if hand[k]]
            if hand[self.mal]:
                a = self.A_DISCARD_MAL
                acts.extend(a + c for c, size in enumerate(s.pile_size) if size)
            return acts
        # PH_RESERVE
        a = self.A_RESERVE
        acts = [a + i for i in range(ROW) if s.row[i] >= 0]
        if s.samb_deck:
            acts.append(self.A_RESERVE_TOP)
        acts.append(self.A_RESERVE_NONE)
        return acts

    def describe_action(self, s: RodaState, action: int) -> str:
        text = self._static_desc[action]
        return text if text is not None else self._describe(s, action)

    def _describe(self, s: RodaState | None, action: int) -> str | None:
        """The text of ``action``; with ``s`` None, only the texts that do not depend on the state."""
        d = self.deck
        dynamic = (self.A_PILE <= action < self.A_LAY or self.A_CALL <= action < self.A_CALL_NONE
                   or self.A_RESERVE <= action < self.A_RESERVE_TOP)
        if s is None and dynamic:
            return None
        if action == self.A_DRAW:
            return "draw 2 from the deck"
        if action < self.A_LAY:
            c = action - self.A_PILE
            return f"take the {d.colours[c]} pile ({sum(s.piles[c])} cards)"
        if action < self.A_PLACE:
            return f"lay {d.kind_name(action - self.A_LAY)}"
        if action < self.A_CALL:
            return f"place on space {action - self.A_PLACE + 1}"
        if action == self.A_CALL_NONE:
            return "call nobody"
        if action == self.A_CALL_RESERVED:
            r = s.reserved[s.player] if s.player >= 0 else -1
            return "call the reserved sambista" + (f" {d.sambistas[r].name}" if r >= 0 else "")
        if action < self.A_DISCARD:
            slot = action - self.A_CALL
            sid = s.row[slot]
            return f"call open sambista {slot + 1}" + (f" {d.sambistas[sid].name}" if sid >= 0 else "")
        if action < self.A_DISCARD_MAL:
            return f"discard {d.kind_name(action - self.A_DISCARD)}"
        if action < self.A_RESERVE:
            return f"discard a malandro onto the {d.colours[action - self.A_DISCARD_MAL]} pile"
        if action == self.A_RESERVE_TOP:
            return "reserve the sambista deck top"
        if action == self.A_RESERVE_NONE:
            return "reserve nobody"
        slot = action - self.A_RESERVE
        sid = s.row[slot]
        return f"reserve open sambista {slot + 1}" + (f" {d.sambistas[sid].name}" if sid >= 0 else "")

