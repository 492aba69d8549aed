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

ENV_ID = "rodizio_v1"

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
    # The observation, kept up to date by apply so that observe() is a single
    # numpy gather (profiled: building it per call dominated the step):
    # faces[p] = packed features of plate p's cards, top first; public = the
    # packed cells after the plates (eaters in absolute order) + one 0 cell.
    faces: list[bytes] = field(default_factory=list)
    public: bytearray = field(default_factory=bytearray)

    def copy(self) -> RodizioState:
        return RodizioState([s[:] for s in self.stacks], self.plates[:], [e[:] for e in self.eaten],
                            self.totals[:], self.seat, self.round, self.pending, self.over, self.final[:],
                            self.faces[:], bytearray(self.public))


# Observation cells are float32 packed with struct: numpy's per-call cost is
# ~20x a bytes operation here, so numpy is called once per observe, not per cell.
_NUM = tuple(struct.pack("<f", v) for v in range(256))    # packed small integers
_ONE = _NUM[1]
FACE = 20                                                  # bytes per card: 5 float32 features
# Per card id: [present, value, plaquinha, escolha livre, dupla ação].
_CARD_BYTES = tuple(
    struct.pack("<5f", 1, C.VALUE[c], c == C.PLAQUINHA, C.PEPPER[c] == C.LIVRE, C.PEPPER[c] == C.DUPLA)
    for c in range(C.NUM_CARDS))
_PAD = tuple(bytes(FACE * (MAX_STACK - k)) for k in range(MAX_STACK + 1))


class RodizioGame:
    # terminal colours (render_mode="human"): peppers red, the plaquinha blue
    ansi_rules = ((r"\b\d[LD]\b", "red"), (r"\bP\b", "blue"))
    """The Game protocol for Rodízio under one :class:`Config`."""

    env_id = ENV_ID
    num_actions = NUM_ACTIONS

    def __init__(self, config: Config) -> None:
        self.config = config
        self.num_players = n = config.num_players
        self.comilao = n == 2
        self.num_eaters = e = n + self.comilao
        self.spicy = config.spicy
        self.perfect_memory = config.memory == "perfect"
        self.max_rounds = config.max_rounds
        # per round: every seat serves once, an Escolha Livre adds one choice
        self.max_decisions = 2 * n * config.max_rounds

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
        # byte offsets inside state.public, which starts at the "eaten" field
        base = lay.fields["eaten"].start
        at = {name: 4 * (f.start - base) for name, f in lay.fields.items() if f.start >= base}
        self._public_size = 4 * (lay.size - base + 1)
        self._eaten_at = [at["eaten"] + 4 * w * C.NUM_PIZZAS for w in range(e)]
        self._count_at = [at["eaten_count"] + 4 * w for w in range(e)]
        self._total_at = [at["eaten_total"] + 4 * w for w in range(e)]
        self._to_act_at, self._pending_at, self._round_at = at["to_act"], at["pending"], at["round"]
        self._flags_at = at["flags"]
        self._views = [self._view_index(p) for p in range(n)]
        self._masks: dict[int, np.ndarray] = {}   # shared read-only masks by bitset of legal ids

    def _view_index(self, player: int) -> np.ndarray:
        """Gather index: observation cell -> cell of the packed buffer observe()
        builds (absolute eater order, a trailing 0 cell for what is hidden)."""
        lay = self.obs_layout
        zero = lay.size
        idx = np.arange(lay.size)
        for k, who in enumerate(self._eater_order(player)):
            hidden = k > 0 and not self.perfect_memory
            for name, width in (("eaten", C.NUM_PIZZAS), ("eaten_count", 1),
                                ("eaten_total", 1), ("to_act", 1)):
                start = lay.fields[name].start
                dst = slice(start + k * width, start + (k + 1) * width)
                private = hidden and name in ("eaten", "eaten_total")
                idx[dst] = zero if private else np.arange(start + who * width, start + (who + 1) * width)
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
        self._encode(st)
        return st

    def position(self, stacks: list[list[int]], eaten: list[list[int]] | None = None, seat: int = 0,
                 round: int = 0, pending: int = -1) -> RodizioState:
        """A hand-built table (for tests and analysis): card ids, stacks bottom -> top.

        The pizzas used nowhere become the 3 plates; there must be exactly 3."""
        eaten = [list(e) for e in eaten] if eaten else [[] for _ in range(self.num_eaters)]
        if len(eaten) != self.num_eaters or len(stacks) != C.NUM_PLATES:
            raise ValueError(f"need {C.NUM_PLATES} stacks and {self.num_eaters} piles")
        used = [c for st in stacks for c in st] + [c for e in eaten for c in e]
        plates = [c for c in range(C.NUM_PIZZAS) if c not in used]
        if len(plates) != C.NUM_PLATES or len(set(used)) != len(used):
            raise ValueError(f"every card once, 3 left for the plates; left: {plates}")
        st = RodizioState([list(x) for x in stacks], plates, eaten,
                          [sum(C.VALUE[c] for c in e) for e in eaten], seat, round, pending)
        self._encode(st)
        self.check_invariants(st)
        return st

    def _encode(self, s: RodizioState) -> None:
        s.faces, s.public = self.encode_faces(s), self.encode_public(s)

    def encode_faces(self, s: RodizioState) -> list[bytes]:
        return [b"".join([_CARD_BYTES[c] for c in reversed(st)]) for st in s.stacks]

    def encode_public(self, s: RodizioState) -> bytearray:
        """The packed cells after the plates, from scratch (apply keeps them up to date)."""
        pub = bytearray(self._public_size)
        for w, pile in enumerate(s.eaten):
            for card in pile:
                pub[self._eaten_at[w] + 4 * card:self._eaten_at[w] + 4 * card + 4] = _ONE
            pub[self._count_at[w]:self._count_at[w] + 4] = _NUM[len(pile)]
            pub[self._total_at[w]:self._total_at[w] + 4] = _NUM[s.totals[w]]
        f = self._flags_at
        pub[f:f + 8] = _NUM[self.spicy] + _NUM[self.perfect_memory]
        self._encode_turn(s, pub)
        return pub

    def _encode_turn(self, s: RodizioState, pub: bytearray) -> None:
        a, b = self._to_act_at, self._pending_at
        pub[a:a + 4 * self.num_eaters] = bytes(4 * self.num_eaters)
        pub[b:b + 12] = bytes(12)
        if not s.over:
            a += 4 * s.seat
            pub[a:a + 4] = _ONE
            if s.pending >= 0:
                b += 4 * s.pending
                pub[b:b + 4] = _ONE
        pub[self._round_at:self._round_at + 4] = _NUM[s.round]

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
            bits = sum(1 << (SERVE + p) for p in self.servable(s))
        mask = self._masks.get(bits)
        if mask is None:
            mask = np.array([bits >> a & 1 for a in range(NUM_ACTIONS)], np.int8)
            mask.flags.writeable = False
            self._masks[bits] = mask
        return mask

    # ------------------------------------------------------------------ play
    def apply(self, s: RodizioState, action: int) -> list[float] | None:
        if s.pending >= 0:
            self._eat(s, s.seat, s.pending, action - EAT)
            s.pending = -1
            r = self._end_turn(s)
        else:
            self._serve(s, action, s.seat)
            # after an Escolha Livre the same player now chooses what to eat
            r = None if s.pending >= 0 else self._end_turn(s)
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
        stacks, faces = s.stacks, s.faces
        hand = stacks[plate]
        stacks[plate] = []
        faces[plate] = b""
        q = plate
        for card in reversed(hand):
            q = q + 1 if q < 2 else 0
            stacks[q].append(card)
            faces[q] = _CARD_BYTES[card] + faces[q]
        comilao = eater == self.num_players
        if C.PLAQUINHA in hand and not comilao:
            return                                  # the plaquinha was in the plate: no pizza
        last = hand[0]                              # the bottom card is dealt last, onto plate q
        pepper = C.PEPPER[last] if self.spicy else C.NONE
        if pepper == C.LIVRE:
            st = stacks[q]
            depths = [d for d in range(len(st)) if st[-1 - d] != C.PLAQUINHA]
            if len(depths) == 1 or (comilao and depths):
                # decision: the Comilão takes the highest value (the topmost of equals)
                self._eat(s, eater, q, max(depths, key=lambda d: (C.VALUE[st[-1 - d]], -d)))
            elif depths:
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
        if st:
            depth = 1 if len(st) >= 2 else 0
            if st[-1 - depth] != C.PLAQUINHA:
                self._eat(s, eater, q, depth)

    def _eat(self, s: RodizioState, eater: int, q: int, depth: int) -> None:
        """``eater`` eats the card at ``depth`` (0 = top) of plate ``q``."""
        st = s.stacks[q]
        card = st.pop(len(st) - 1 - depth)
        f = s.faces[q]
        s.faces[q] = f[:FACE * depth] + f[FACE * (depth + 1):]
        s.eaten[eater].append(card)
        s.totals[eater] += C.VALUE[card]
        pub = s.public
        at = self._eaten_at[eater] + 4 * card
        pub[at:at + 4] = _ONE
        at = self._count_at[eater]
        pub[at:at + 4] = _NUM[len(s.eaten[eater])]
        at = self._total_at[eater]
        pub[at:at + 4] = _NUM[s.totals[eater]]
        if len(s.stacks[0]) + len(s.stacks[1]) + len(s.stacks[2]) <= C.END_CENTRE:
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
        f, st = s.faces, s.stacks
        a, b, c = len(st[0]), len(st[1]), len(st[2])
        packed = b"".join((f[0], _PAD[a], f[1], _PAD[b], f[2], _PAD[c], _NUM[a], _NUM[b], _NUM[c], s.public))
        return np.frombuffer(packed, np.float32).take(self._views[player])

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
        # sorted first, so the draw depends only on what ``player`` knows
        pool = sorted(t.plates + [c for w in piles for c in t.eaten[w]])
        pool = [pool[i] for i in rng.permutation(len(pool))]
        t.plates, pos = pool[:3], 3
        for w in piles:
            k = len(t.eaten[w])
            t.eaten[w] = pool[pos:pos + k]
            t.totals[w] = sum(C.VALUE[c] for c in t.eaten[w])
            pos += k
        if t.over:
            t.final = self.final_rewards(t)
        self._encode(t)
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
            if not s.eaten[w]:
                pile = "nothing eaten"
            elif known:
                pile = " ".join(C.card_name(c) for c in s.eaten[w]) + f" = {s.totals[w]}"
            else:
                pile = f"{len(s.eaten[w])} cards face down"
            lines.append(f"  {self.eater_name(w)}: {pile}")
        if s.over:
            lines.append("  rewards: " + ", ".join(f"player_{i} {r:+g}" for i, r in enumerate(s.final)))
        return "\n".join(lines)

    def render_image(self, s: RodizioState, player: int | None = None) -> np.ndarray:
        """The table as an RGB picture (needs Pillow)."""
        from baralho.envs.rodizio.picture import render_image

        return render_image(self, s, player)

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
        assert s.faces == self.encode_faces(s) and s.public == self.encode_public(s), \
            "incremental encoding drifted"
        if s.over:
            assert s.final == self.final_rewards(s)
        else:
            assert s.round < self.max_rounds
