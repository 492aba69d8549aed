"""Rodízio's rules engine: a small sowing game where the SECOND highest total wins.

Pure functions over a :class:`RodizioState` (numpy and the stdlib only). See
RULES.md beside this file for every rule, the test that checks it, and each
decision we took where the seed is silent.

Vocabulary: three *plates* (pratos) each hold a *stack* of cards; a turn
*serves* a plate (distribuir: its whole stack is dealt, top card first, one
card onto each plate clockwise starting with the next) and then *eats* a pizza
(comer). The *plaquinha* card blocks plates. With two players the *Comilão*,
an automatic eater, plays after them.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from baralho.core.config import check_player_count
from baralho.core.spaces import ObsLayout
from baralho.envs.rodizio import cards as C

ENV_ID = "rodizio_v0"

# Actions: 0..2 serve plate p; 3..17 eat the card at depth d (0 = top) of the
# plate being eaten from, after an Escolha Livre pepper.
SERVE = 0
EAT = C.NUM_PLATES
MAX_STACK = C.CENTRE_CARDS  # no stack can hold more than the centre's 15 cards
NUM_ACTIONS = EAT + MAX_STACK


@dataclass(frozen=True)
class Config:
    """Rodízio options (see the env docstring)."""

    num_players: int = 2
    spicy: bool = False
    memory: Literal["perfect", "none"] = "perfect"
    max_rounds: int = 30

    def __post_init__(self) -> None:
        from baralho.core.config import ConfigError
        check_player_count(ENV_ID, self.num_players, 2, 5)
        if not 1 <= self.max_rounds <= 1000:
            raise ConfigError(f"{ENV_ID}: max_rounds={self.max_rounds} must be in 1..1000")


@dataclass
class RodizioState:
    stacks: list[list[int]]          # per plate, bottom -> top card ids
    plates: list[int]                # the 3 pizza cards lying plate-side up (never eaten)
    eaten: list[list[int]]           # per eater: players 0..n-1, then the Comilão (2 players)
    totals: list[int]                # pizza value eaten, per eater
    seat: int = 0                    # the player to act
    round: int = 0                   # completed rounds (every player, then the Comilão)
    pending: int = -1                # plate awaiting an Escolha Livre choice, else -1
    over: bool = False
    final: list[float] = field(default_factory=list)  # rewards, set at the end
    # Everything public, encoded once and kept up to date by apply (eaters in
    # absolute order, one trailing 0 cell); observe() is one gather from it.
    # Profiling showed encoding from scratch dominated the step.
    public: bytearray = field(default_factory=bytearray)

    def copy(self) -> RodizioState:
        return RodizioState([s[:] for s in self.stacks], self.plates[:], [e[:] for e in self.eaten],
                            self.totals[:], self.seat, self.round, self.pending, self.over, self.final[:],
                            bytearray(self.public))


# The public encoding is a bytearray of float32 cells written with plain
# slice assignments: numpy's per-call cost dominated the step when the vector
# was built with numpy (profiled), so numpy is only called once per observe.
_F32 = struct.Struct("<f")
_NUM = tuple(_F32.pack(v) for v in range(256))    # packed small integers
_ZERO, _ONE = _NUM[0], _NUM[1]
# Per card id, [present, value, plaquinha, escolha livre, dupla ação] packed.
_CARD_BYTES = tuple(
    struct.pack("<5f", 1, C.VALUE[c], c == C.PLAQUINHA, C.PEPPER[c] == C.LIVRE, C.PEPPER[c] == C.DUPLA)
    for c in range(C.NUM_CARDS))
_PAD = tuple(bytes(20 * (MAX_STACK - k)) for k in range(MAX_STACK + 1))


class RodizioGame:
    """The Game protocol for Rodízio under one :class:`Config`."""

    env_id = ENV_ID
    num_actions = NUM_ACTIONS

    def __init__(self, config: Config) -> None:
        self.config = config
        self.num_players = n = config.num_players
        self.comilao = n == 2
        self.num_eaters = n + self.comilao
        self.spicy = config.spicy
        self.perfect_memory = config.memory == "perfect"
        self.max_rounds = config.max_rounds
        # per round: every seat serves once, an Escolha Livre adds one choice
        self.max_decisions = 2 * n * config.max_rounds

        e = self.num_eaters
        lay = ObsLayout()
        lay.add("plates", (C.NUM_PLATES, MAX_STACK, 5), high=C.MAX_VALUE,
                doc="per plate, per depth from the top: present, value, plaquinha, escolha livre, dupla")
        lay.add("stack_size", C.NUM_PLATES, high=MAX_STACK, doc="cards on each plate")
        lay.add("eaten", (e, C.NUM_PIZZAS), doc="pizza ids eaten per eater, seat-relative "
                "(self first, Comilão last); others' rows only with memory='perfect'")
        lay.add("eaten_count", e, high=C.CENTRE_CARDS, doc="pile size per eater")
        lay.add("eaten_total", e, high=C.TOTAL_VALUE, doc="pile value per eater (others: perfect memory)")
        lay.add("to_act", e, doc="one-hot: the eater whose turn it is, seat-relative")
        lay.add("pending", C.NUM_PLATES, doc="one-hot: plate awaiting an Escolha Livre choice")
        lay.add("round", 1, high=config.max_rounds, doc="completed rounds")
        lay.add("flags", 2, doc="spicy mode, memory='perfect'")
        self.obs_layout = lay.freeze()
        self._off = {name: f.start for name, f in lay.fields.items()}
        self._plates = lay["plates"]
        self._views = [self._view_index(p) for p in range(n)]
        # the 8 serve masks, by which plates may be served
        self._masks: dict[int, np.ndarray] = {}   # by bitset of legal action ids
        o = self._off      # byte offsets of each eater's cells in the public encoding
        self._eaten_at = [4 * (o["eaten"] + w * C.NUM_PIZZAS) for w in range(e)]
        self._count_at = [4 * (o["eaten_count"] + w) for w in range(e)]
        self._total_at = [4 * (o["eaten_total"] + w) for w in range(e)]

    def _view_index(self, player: int) -> np.ndarray:
        """Gather index: observation cell -> public cell (the last cell is a 0)."""
        lay, e, zero = self.obs_layout, self.num_eaters, self.obs_layout.size
        idx = np.arange(lay.size)
        order = self._eater_order(player)
        for k, who in enumerate(order):
            hidden = k > 0 and not self.perfect_memory
            for name, width in (("eaten", C.NUM_PIZZAS), ("eaten_count", 1),
                                ("eaten_total", 1), ("to_act", 1)):
                start = lay.fields[name].start
                src = range(start + who * width, start + (who + 1) * width)
                dst = range(start + k * width, start + (k + 1) * width)
                private = hidden and name in ("eaten", "eaten_total")
                idx[dst.start:dst.stop] = zero if private else np.array(src)
        assert e == len(order)
        return idx

    # ------------------------------------------------------------------ setup
    def new_state(self, rng: np.random.Generator) -> RodizioState:
        pizzas = rng.permutation(C.NUM_PIZZAS).tolist()
        # The seed draws 3 random cards for plates and swaps out the plaquinha:
        # the same as drawing 3 random pizzas; the plaquinha then lies at a
        # uniform position among the 15 centre cards.
        plates, centre = pizzas[:3], pizzas[3:]
        centre.insert(int(rng.integers(C.CENTRE_CARDS)), C.PLAQUINHA)
        stacks: list[list[int]] = [[] for _ in range(C.NUM_PLATES)]
        pos = 0
        for col, size in enumerate(C.COLUMNS):   # columns 2k, 2k+1 lie in front of plate k
            stacks[col // 2].extend(centre[pos:pos + size])
            pos += size
        e = self.num_eaters
        st = RodizioState(stacks, plates, [[] for _ in range(e)], [0] * e)
        st.public = self.encode_public(st)
        return st

    def encode_public(self, s: RodizioState) -> bytearray:
        """The public encoding from scratch (apply keeps it up to date incrementally)."""
        pub = bytearray(4 * (self.obs_layout.size + 1))
        o = self._off
        self._put(pub, o["flags"], self.spicy)
        self._put(pub, o["flags"] + 1, self.perfect_memory)
        self._encode_plates(s, pub)
        for w, pile in enumerate(s.eaten):
            for card in pile:
                self._put(pub, o["eaten"] + w * C.NUM_PIZZAS + card, 1)
            self._put(pub, o["eaten_count"] + w, len(pile))
            self._put(pub, o["eaten_total"] + w, s.totals[w])
        self._encode_turn(s, pub)
        return pub

    @staticmethod
    def _put(pub: bytearray, cell: int, value: int) -> None:
        pub[4 * cell:4 * cell + 4] = _NUM[value]

    def _encode_plates(self, s: RodizioState, pub: bytearray) -> None:
        at, size = 4 * self._off["plates"], self._off["stack_size"]
        for p, st in enumerate(s.stacks):
            pub[at:at + 20 * MAX_STACK] = b"".join([_CARD_BYTES[c] for c in reversed(st)]) + _PAD[len(st)]
            at += 20 * MAX_STACK
            pub[4 * (size + p):4 * (size + p) + 4] = _NUM[len(st)]

    def _encode_turn(self, s: RodizioState, pub: bytearray) -> None:
        o = self._off
        a, b = 4 * o["to_act"], 4 * o["pending"]
        pub[a:a + 4 * self.num_eaters] = bytes(4 * self.num_eaters)
        pub[b:b + 12] = bytes(12)
        if not s.over:
            pub[a + 4 * s.seat:a + 4 * s.seat + 4] = _ONE
            if s.pending >= 0:
                pub[b + 4 * s.pending:b + 4 * s.pending + 4] = _ONE
        self._put(pub, o["round"], s.round)

    # ------------------------------------------------------------------ queries
    def current_player(self, s: RodizioState) -> int:
        return -1 if s.over else s.seat

    def is_over(self, s: RodizioState) -> bool:
        return s.over

    def returns(self, s: RodizioState) -> np.ndarray:
        return np.array(s.final if s.over else [0.0] * self.num_players, dtype=np.float64)

    def servable(self, s: RodizioState) -> list[int]:
        """Plates a player may serve: not empty, not topped by the plaquinha.

        Decision: if no plate qualifies (the only non-empty plate is topped by
        the plaquinha), that plate may be served."""
        ok = [p for p, st in enumerate(s.stacks) if st and st[-1] != C.PLAQUINHA]
        return ok or [p for p, st in enumerate(s.stacks) if st]

    def legal_mask(self, s: RodizioState) -> np.ndarray:
        """The legal mask; a shared read-only array (there are few distinct masks)."""
        if s.over:
            bits = 0
        elif s.pending >= 0:
            st = s.stacks[s.pending]
            top = len(st) - 1
            bits = sum(1 << (EAT + d) for d in range(len(st)) if st[top - d] != C.PLAQUINHA)
        else:
            bits = blocked = 0
            for p, st in enumerate(s.stacks):
                if st:
                    if st[-1] == C.PLAQUINHA:
                        blocked = 1 << (SERVE + p)
                    else:
                        bits |= 1 << (SERVE + p)
            bits = bits or blocked      # see servable(): the lone plaquinha plate
        mask = self._masks.get(bits)
        if mask is None:
            mask = np.array([bits >> a & 1 for a in range(NUM_ACTIONS)], np.int8)
            mask.flags.writeable = False
            self._masks[bits] = mask
        return mask

    # ------------------------------------------------------------------ play
    def apply(self, s: RodizioState, action: int) -> list[float] | None:
        if s.pending >= 0:
            st = s.stacks[s.pending]
            self._eat(s, s.seat, st.pop(len(st) - 1 - (action - EAT)))
            s.pending = -1
            r = self._end_turn(s)
        else:
            self._serve(s, action, s.seat)
            # after an Escolha Livre the same player now chooses what to eat
            r = None if s.pending >= 0 else self._end_turn(s)
        self._encode_plates(s, s.public)
        self._encode_turn(s, s.public)
        return r

    def _end_turn(self, s: RodizioState) -> list[float] | None:
        if not s.over:
            s.seat += 1
            if s.seat == self.num_players:
                if self.comilao:
                    self._comilao_turn(s)
                s.seat = 0
                if not s.over:
                    s.round += 1
                    if s.round >= self.max_rounds:
                        s.over = True     # the turn bound: score as usual
        if s.over:
            s.final = self.final_rewards(s)
            return s.final
        return None

    def _comilao_turn(self, s: RodizioState) -> None:
        plate = next(p for p, st in enumerate(s.stacks) if C.PLAQUINHA in st)
        self._serve(s, plate, self.num_players)

    def _serve(self, s: RodizioState, plate: int, eater: int) -> None:
        """Deal the stack of ``plate`` (top first, clockwise from the next plate), then eat."""
        stacks = s.stacks
        hand = stacks[plate]
        stacks[plate] = []
        q = plate
        for card in reversed(hand):
            q = (q + 1) % C.NUM_PLATES
            stacks[q].append(card)
        comilao = eater == self.num_players
        if C.PLAQUINHA in hand and not comilao:
            return                                  # the plaquinha was in the plate: no pizza
        last = hand[0]                              # the bottom card is dealt last, onto plate q
        pepper = C.PEPPER[last] if self.spicy else C.NONE
        if pepper == C.LIVRE:
            choices = [c for c in stacks[q] if c != C.PLAQUINHA]
            if len(choices) == 1 or (comilao and choices):
                # decision: the Comilão takes the highest value (the topmost of equals)
                best = max(reversed(range(len(stacks[q]))),
                           key=lambda i: -1 if stacks[q][i] == C.PLAQUINHA else C.VALUE[stacks[q][i]])
                self._eat(s, eater, stacks[q].pop(best))
            elif choices:
                s.pending = q
        else:
            self._eat_below(s, eater, q)
            if pepper == C.DUPLA and not s.over:
                self._eat_below(s, eater, q)

    def _eat_below(self, s: RodizioState, eater: int, q: int) -> None:
        """The normal rule on plate q, whose top is the last card dealt: eat the
        card just below it, or the card itself when it is alone. Decision: the
        plaquinha is never eaten (nothing happens instead)."""
        st = s.stacks[q]
        if not st:
            return
        i = len(st) - 2 if len(st) >= 2 else 0
        if st[i] != C.PLAQUINHA:
            self._eat(s, eater, st.pop(i))

    def _eat(self, s: RodizioState, eater: int, card: int) -> None:
        s.eaten[eater].append(card)
        s.totals[eater] += C.VALUE[card]
        pub = s.public
        at = self._eaten_at[eater] + 4 * card
        pub[at:at + 4] = _ONE
        at = self._count_at[eater]
        pub[at:at + 4] = _NUM[len(s.eaten[eater])]
        at = self._total_at[eater]
        pub[at:at + 4] = _NUM[s.totals[eater]]
        if sum(len(st) for st in s.stacks) <= C.END_CENTRE:
            s.over = True

    def final_rewards(self, s: RodizioState) -> list[float]:
        """+1 to each player with the second highest total (distinct totals), −1 to the rest."""
        winners = self.winners(s.totals)
        return [1.0 if i in winners else -1.0 for i in range(self.num_players)]

    def winners(self, totals: list[int]) -> set[int]:
        distinct = sorted(set(totals), reverse=True)
        if len(distinct) < 2:
            return set()                            # decision: everyone equal, no second total
        second = distinct[1]
        # the Comilão (index n) may hold the second total; it is not a player, so
        # if it is alone there, nobody wins
        return {i for i in range(self.num_players) if totals[i] == second}

    # ------------------------------------------------------------------ observation
    def observe(self, s: RodizioState, player: int) -> np.ndarray:
        return np.frombuffer(s.public, np.float32).take(self._views[player])

    def _eater_order(self, player: int) -> list[int]:
        n = self.num_players
        order = [(player + k) % n for k in range(n)]
        return order + [n] if self.comilao else order

    # ------------------------------------------------------------------ hidden information
    def _hidden_pool(self, s: RodizioState, player: int) -> list[int]:
        """Eaters whose piles ``player`` cannot see (memory='none': everyone else)."""
        return [] if self.perfect_memory else [w for w in range(self.num_eaters) if w != player]

    def has_hidden(self, s: RodizioState, player: int) -> bool:
        # The plate cards lie pizza side down: which pizza is under which plate is
        # never seen, so something is always hidden.
        return True

    def resample_hidden(self, s: RodizioState, player: int, rng: np.random.Generator) -> RodizioState:
        t = s.copy()
        piles = self._hidden_pool(s, player)
        pool = t.plates + [c for w in piles for c in t.eaten[w]]
        pool = [pool[i] for i in rng.permutation(len(pool))]
        t.plates, pos = pool[:3], 3
        for w in piles:
            k = len(t.eaten[w])
            t.eaten[w] = pool[pos:pos + k]
            t.totals[w] = sum(C.VALUE[c] for c in t.eaten[w])
            pos += k
        if t.over:
            t.final = self.final_rewards(t)
        t.public = self.encode_public(t)
        return t

    # ------------------------------------------------------------------ text
    def describe_action(self, s: RodizioState, action: int) -> str:
        if SERVE <= action < EAT:
            st = s.stacks[action]
            return f"serve plate {action} ({len(st)} card{'s' * (len(st) != 1)})"
        d = action - EAT
        if s.pending >= 0 and d < len(s.stacks[s.pending]):
            card = s.stacks[s.pending][-1 - d]
            return f"eat {C.card_name(card)} at depth {d} of plate {s.pending}"
        return f"eat the card at depth {d} (Escolha Livre)"

    def eater_name(self, w: int) -> str:
        return "Comilão" if w == self.num_players else f"player_{w}"

    def render_text(self, s: RodizioState, player: int | None = None) -> str:
        view = "omniscient" if player is None else f"player_{player}'s view"
        status = "game over" if s.over else (
            f"{self.eater_name(s.seat)} to act" + (f" (Escolha Livre on plate {s.pending})"
                                                   if s.pending >= 0 else ""))
        lines = [f"Rodízio · round {s.round}/{self.max_rounds} · {status} · {view}"]
        for p, st in enumerate(s.stacks):
            plate = C.card_name(s.plates[p]) if player is None else "?"
            lines.append(f"  plate {p} [{plate}]: " + " ".join(C.card_name(c) for c in st) + "   (bottom → top)")
        for w in range(self.num_eaters):
            known = player is None or w == player or self.perfect_memory
            pile = (" ".join(C.card_name(c) for c in s.eaten[w]) + f" = {s.totals[w]}") if known \
                else f"{len(s.eaten[w])} cards face down"
            lines.append(f"  {self.eater_name(w)}: {pile}")
        if s.over:
            lines.append("  rewards: " + ", ".join(f"player_{i} {r:+g}" for i, r in enumerate(s.final)))
        return "\n".join(lines)

    # ------------------------------------------------------------------ invariants
    def check_invariants(self, s: RodizioState) -> None:
        where = [c for st in s.stacks for c in st] + list(s.plates) + [c for e in s.eaten for c in e]
        assert sorted(where) == list(range(C.NUM_CARDS)), f"cards lost or doubled: {sorted(where)}"
        assert len(s.stacks) == C.NUM_PLATES and len(s.plates) == C.NUM_PLATES
        assert C.PLAQUINHA not in s.plates and all(C.PLAQUINHA not in e for e in s.eaten)
        assert len(s.eaten) == self.num_eaters
        for w in range(self.num_eaters):
            assert s.totals[w] == sum(C.VALUE[c] for c in s.eaten[w]), "pile total mismatch"
        centre = sum(len(st) for st in s.stacks)
        assert C.END_CENTRE <= centre <= C.CENTRE_CARDS
        assert s.over or centre > C.END_CENTRE or s.round >= self.max_rounds
        assert 0 <= s.round <= self.max_rounds and 0 <= s.seat < self.num_players
        if s.pending >= 0:
            assert self.spicy and not s.over and s.stacks[s.pending]
        assert s.public == self.encode_public(s), "incremental encoding drifted"
        if s.over:
            assert s.final == self.final_rewards(s)
        else:
            assert s.round < self.max_rounds
