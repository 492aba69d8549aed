"""Roda de Samba: the rules engine (one Game, one State). Imports numpy only.

Rules as implemented: RULES.md next to this file. The card list is data
(``deck.json``, see :mod:`.cards`). A turn is a short sequence of factored
decisions: draw → lay (select cards of one instrument, then a space) → call a
sambista (and resolve its ``!``) → discard (→ reserve after a malandro).
"""

from __future__ import annotations

import copy
import pickle
import re
from dataclasses import dataclass, field

import numpy as np

from baralho.core.checks import check_seat
from baralho.core.config import ConfigError, check_player_count
from baralho.envs.roda_de_samba import scoring
from baralho.envs.roda_de_samba.actions import (
    PH_CALL,
    PH_DISCARD,
    PH_DRAW,
    PH_LAY,
    PH_PILE,
    PH_PLACE,
    PH_RESERVE,
    PHASES,
    action_ids,
    describe,
)
from baralho.envs.roda_de_samba.cards import (
    BANG_ACTIONS,
    BANG_BAIXA,
    BANG_COMPRA,
    BANG_DESCARTE,
    BANG_MALANDRAGEM,
    MAX_GROUP,
    REQ_ANY,
    REQ_INSTRUMENT,
    ROW,
    SPACES,
    DeckError,
    load_deck,
    requirements_met,
    tokens_independent,
)
from baralho.envs.roda_de_samba.observation import DTYPE, Encoder, has_hidden, resample_hidden

ENV_ID = "roda_de_samba_v1"
HAND_SIZE = 5
#: decisions in one turn at most: draw 1, lay 4 + place 1, call 1, `!baixa` 4 + 1, discard 1, reserve 1
TURN_DECISIONS = 1 + (MAX_GROUP + 1) + 1 + (MAX_GROUP + 1) + 1 + 1
#: the most players a game takes (the compiled engine sizes its per-seat rows by it)
MAX_PLAYERS = 5


@dataclass(frozen=True)
class Config:
    """``deck``: path of a card-list JSON file (None: the bundled default).
    ``max_rounds``: the turn bound; the game ends after this many rounds."""
    num_players: int = 2
    deck: str | None = None
    max_rounds: int = 30

    def __post_init__(self):
        check_player_count(ENV_ID, self.num_players, 2, MAX_PLAYERS)
        if self.deck is not None and not isinstance(self.deck, str):
            raise ConfigError(f"{ENV_ID}: option deck={self.deck!r} must be a file path (str) or None")
        if isinstance(self.max_rounds, bool) or not isinstance(self.max_rounds, int) \
                or not 1 <= self.max_rounds <= 200:
            raise ConfigError(f"{ENV_ID}: option max_rounds={self.max_rounds!r} must be an integer in 1..200")


@dataclass(eq=False)
class RodaState:
    hands: list[list[int]]  # [seat][kind] counts
    hand_size: list[int]
    known: list[list[int]]  # [seat][kind] cards publicly known in that hand
    deck: list[int]  # instrument deck, kinds, top = end; order hidden
    piles: list[list[int]]  # [colour][kind] counts, all visible
    pile_size: list[int]
    space_inst: list[list[int]]  # [seat][space] instrument or -1
    space_count: list[list[int]]  # [seat][space] cards stacked
    space_nums: list[list[int]]  # [seat][space] bitmask of visible numbers
    inst_space: list[list[int]]  # [seat][instrument] its space or -1
    laid: list[list[int]]  # [seat][instrument kind] counts
    laid_total: list[int]
    called: list[list[int]]  # [seat] sambista ids, top last
    reserved: list[int]  # [seat] sambista id or -1
    row: list[int]  # open sambistas (-1: empty slot)
    samb_deck: list[int]  # top = end; order hidden, but for a known top (samb_top_known)
    atrav: list[int]
    fame: list[int]
    obs: np.ndarray  # the base observation vector (observation.py)
    samb_top_known: bool = False  # samb_deck[-1] is a sambista a malandro swap put there face up
    player: int = 0
    phase: int = PH_DRAW
    bang: int = -1  # the `!` benefit being resolved
    selected: list[int] = field(default_factory=list)  # the lay group being built (kinds)
    sel_inst: int = -1
    callable: list[int] = field(default_factory=list)  # call actions legal now
    called_this_turn: bool = False
    turns: int = 0
    round: int = 0
    end_triggered: bool = False
    over: bool = False
    returns: list[float] = field(default_factory=list)

    def __eq__(self, other: object) -> bool:  # the observation array has no plain ==
        return isinstance(other, RodaState) and pickle.dumps(self) == pickle.dumps(other)

    __hash__ = None  # mutable

    def copy(self) -> RodaState:
        new = copy.copy(self)
        for name in ("hands", "known", "piles", "space_inst", "space_count", "space_nums", "inst_space",
                     "laid", "called"):
            setattr(new, name, [list(x) for x in getattr(self, name)])
        for name in ("hand_size", "pile_size", "deck", "laid_total", "reserved", "row", "samb_deck", "atrav",
                     "fame", "selected", "callable", "returns"):
            setattr(new, name, list(getattr(self, name)))
        new.obs = self.obs.copy()
        return new


_ONE = bytes([0] + [1] * 255)  # bytes.translate table: any count -> 1


class RodaDeSambaGame:
    env_id = ENV_ID

    def __init__(self, config: Config | None = None) -> None:
        self.config = config = config or Config()
        self.deck = d = load_deck(config.deck)
        # terminal colours (render_mode="human"): every instrument and pile in its family's colour
        palette = ("brown", "orange", "blue", "magenta", "green", "cyan", "yellow", "red")
        names = [(re.escape(name.split(" (")[0]), d.inst_colour[i]) for i, name in enumerate(d.inst_names)]
        names += [(re.escape(c), i) for i, c in enumerate(d.colours)]
        self.ansi_rules = tuple((rf"\b{n}\b", palette[c % len(palette)])
                                for n, c in sorted(set(names), key=lambda x: -len(x[0])))
        n = self.num_players = config.num_players
        if len(d.rodas) < n:
            raise DeckError(f"deck file {d.path}: rodas: {len(d.rodas)} roda(s) for {n} players")
        if d.num_instrument_cards < HAND_SIZE * n + 2:
            raise DeckError(f"deck file {d.path}: instruments: {d.num_instrument_cards} instrument cards, "
                            f"{n} players need at least {HAND_SIZE * n + 2}")
        self.encoder = Encoder(d, n, config.max_rounds)
        self.obs_layout = self.encoder.layout
        self.C, self.K, self.KI = len(d.colours), d.num_kinds, d.num_inst_kinds
        self.I, self.S = len(d.inst_names), len(d.sambistas)
        KI = self.KI
        ids = action_ids(self.C, KI)
        for name, value in vars(ids).items():           # the game's A_* attributes (and num_actions)
            setattr(self, name, value)
        self._mask_cache: dict[tuple[int, ...], np.ndarray] = {}
        A, C = self.num_actions, self.C
        self._pre_lay, self._post_lay = bytes(self.A_LAY), bytes(A - self.A_PLACE)
        self._pre_discard, self._post_discard = bytes(self.A_DISCARD), bytes(A - self.A_RESERVE)
        self._no_piles = bytes(C)
        self.max_decisions = config.max_rounds * n * TURN_DECISIONS
        # static tables as plain lists (hot paths)
        self.kind_inst = list(d.kind_inst)
        self.kind_colour = [d.inst_colour[i] for i in d.kind_inst] + [-1]
        self.kind_bit = [(1 << d.kind_number[k]) if d.kind_number[k] else 0 for k in range(KI)]
        self.inst_colour = list(d.inst_colour)
        self.inst_coringa = list(d.inst_coringa)
        self.num_idx = [self.encoder.num_index.get(d.kind_number[k], -1) for k in range(KI)]
        self.mal = d.malandro
        self.independent = [tokens_independent(d, sb.requires) for sb in d.sambistas]
        self.inst_kinds = [[k for k in range(KI) if d.kind_inst[k] == i] for i in range(self.I)]
        self._cards = np.array([k for k in range(self.K) for _ in range(d.kind_copies[k])], np.int64)
        # colours a sambista's tokens need (each token needs a card of its colour): a cheap first filter
        self.need_bits = [0] * self.S
        for sid, sb in enumerate(d.sambistas):
            for kind_, arg in sb.requires:
                self.need_bits[sid] |= 1 << (self.inst_colour[arg] if kind_ == REQ_INSTRUMENT else arg)
        self.tokens = [[(k_, a_, self.inst_colour[a_] if k_ == REQ_INSTRUMENT else a_) for k_, a_ in sb.requires]
                       for sb in d.sambistas]
        self.brings = [sb.brings for sb in d.sambistas]
        self._static_desc = [describe(self, None, a) for a in range(self.num_actions)]

    # ------------------------------------------------------------------ setup
    def new_state(self, rng: np.random.Generator) -> RodaState:
        n, K = self.num_players, self.K
        deck = rng.permutation(self._cards).tolist()
        hands = [[0] * K for _ in range(n)]
        for p in range(n):
            hand = hands[p]
            for k in deck[-HAND_SIZE:]:
                hand[k] += 1
            del deck[-HAND_SIZE:]
        piles = [[0] * K for _ in range(self.C)]
        while deck[-1] == self.mal:  # a revealed malandro goes back: reshuffle, reveal again
            deck = rng.permutation(deck).tolist()
        first = deck.pop()
        piles[self.kind_colour[first]][first] += 1
        samb = [int(i) for i in rng.permutation(self.S)]
        row = [samb.pop() if samb else -1 for _ in range(ROW)]
        s = RodaState(
            hands=hands, hand_size=[HAND_SIZE] * n, known=[[0] * K for _ in range(n)], deck=deck, piles=piles,
            space_inst=[[-1] * SPACES for _ in range(n)], space_count=[[0] * SPACES for _ in range(n)],
            space_nums=[[0] * SPACES for _ in range(n)], inst_space=[[-1] * self.I for _ in range(n)],
            laid=[[0] * self.KI for _ in range(n)], laid_total=[0] * n, called=[[] for _ in range(n)],
            reserved=[-1] * n, row=row, samb_deck=samb, atrav=[0] * n, fame=[0] * n,
            pile_size=[sum(pl) for pl in piles], obs=np.zeros(0, DTYPE), returns=[0.0] * n)
        s.obs = self.encoder.initial(s)
        return s

    # --------------------------------------------------------------- protocol
    def current_player(self, s: RodaState) -> int:
        return -1 if s.over else s.player

    def is_over(self, s: RodaState) -> bool:
        return s.over

    def returns(self, s: RodaState) -> np.ndarray:
        return np.array(s.returns, dtype=np.float64)

    def observe(self, s: RodaState, player: int) -> np.ndarray:
        if type(player) is not int or not 0 <= player < self.num_players:   # a seat, or a clear error
            player = check_seat(self, player)
        return s.obs.take(self.encoder.index[player], mode="clip")  # indices are in range: skip the check

    def has_hidden(self, s: RodaState, player: int) -> bool:
        return has_hidden(self, s, check_seat(self, player))

    # ------------------------------------------------------------------ legal actions
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
        return text if text is not None else describe(self, s, action)

    # ------------------------------------------------------------------ apply
    def apply(self, s: RodaState, action: int):
        p, o, v = s.player, s.obs, self.encoder
        if action < self.A_LAY:  # draw from the deck, or take a whole pile (draw phase or !descarte)
            if action == self.A_DRAW:
                self._draw(s, p, 2)
            else:
                c = action - self.A_PILE
                pile, hand, known = s.piles[c], s.hands[p], s.known[p]
                K = self.K
                for k in [k for k, x in enumerate(pile) if x]:
                    x = pile[k]
                    hand[k] += x
                    known[k] += x  # cards taken from a pile are public knowledge
                    pile[k] = 0
                    o[v.o_hands + p * K + k] = hand[k]
                    o[v.o_known + p * K + k] = known[k]
                    o[v.o_piles + c * K + k] = 0
                s.hand_size[p] += s.pile_size[c]
                s.pile_size[c] = 0
                o[v.o_hand_size + p] = s.hand_size[p]
            if s.phase == PH_PILE:
                self._set_bang(s, -1)
                self._to_discard(s)
            else:
                self._to_lay(s)
        elif action < self.A_PLACE:  # select one more card of the lay group
            k = action - self.A_LAY
            self._take_from_hand(s, p, k)
            s.selected.append(k)
            o[v.o_selected + k] += 1
            if s.phase == PH_LAY:
                s.sel_inst = self.kind_inst[k]
                self._set_phase(s, PH_PLACE)
        elif action < self.A_CALL:
            self._place(s, p, action - self.A_PLACE)
            if s.bang == BANG_BAIXA:
                self._set_bang(s, -1)
                self._to_discard(s)
            else:
                self._to_call(s)
        elif action < self.A_DISCARD:
            if action != self.A_CALL_NONE:
                self._call(s, p, action)
            else:
                self._to_discard(s)
        elif action < self.A_RESERVE:
            if action < self.A_DISCARD_MAL:
                k = action - self.A_DISCARD
                c = self.kind_colour[k]
            else:
                k, c = self.mal, action - self.A_DISCARD_MAL
            self._take_from_hand(s, p, k)
            s.piles[c][k] += 1
            s.pile_size[c] += 1
            o[v.o_piles + c * self.K + k] += 1
            if k == self.mal and (any(x >= 0 for x in s.row) or s.samb_deck):
                self._set_phase(s, PH_RESERVE)
            else:
                self._set_phase(s, -1)
        else:
            if action != self.A_RESERVE_NONE:
                self._reserve(s, p, action)
            if s.bang == BANG_MALANDRAGEM:
                self._set_bang(s, -1)
                self._to_discard(s)
            else:
                self._set_phase(s, -1)
        if s.phase == -1:  # the turn is over
            return self._end_turn(s)
        return None

    # -------------------------------------------------------------- the steps
    def _draw(self, s: RodaState, p: int, count: int) -> None:
        o, v, hand, K = s.obs, self.encoder, s.hands[p], self.K
        for _ in range(min(count, len(s.deck))):
            k = s.deck.pop()
            hand[k] += 1
            o[v.o_hands + p * K + k] = hand[k]
            s.hand_size[p] += 1
        o[v.o_hand_size + p] = s.hand_size[p]
        o[v.o_deck_size] = len(s.deck)
        if not s.deck:
            self._trigger_end(s)

    def _take_from_hand(self, s: RodaState, p: int, k: int) -> None:
        o, v, K = s.obs, self.encoder, self.K
        hand, known = s.hands[p], s.known[p]
        hand[k] -= 1
        s.hand_size[p] -= 1
        o[v.o_hands + p * K + k] = hand[k]
        o[v.o_hand_size + p] = s.hand_size[p]
        if known[k]:  # the public cannot tell which copy left: the known count drops
            known[k] -= 1
            o[v.o_known + p * K + k] = known[k]

    def _place(self, s: RodaState, p: int, sp: int) -> None:
        o, v = s.obs, self.encoder
        inst = s.sel_inst
        bad_before = self._bad_around(s, p, sp)
        fame = s.fame[p]
        if s.space_inst[p][sp] < 0:  # a new space: colour bonuses of the sambistas called grow
            colour = self.inst_colour[inst]
            s.space_inst[p][sp] = inst
            s.inst_space[p][inst] = sp
            o[v.o_sp_inst + (p * SPACES + sp) * self.I + inst] = 1
            o[v.o_sp_col + (p * SPACES + sp) * self.C + colour] = 1
            sambs = self.deck.sambistas
            for sid in s.called[p]:
                if sambs[sid].bonus_colour == colour:
                    fame += sambs[sid].bonus_points
        nnum, laid, num_idx = len(self.deck.numbers), s.laid[p], self.num_idx
        nums = s.space_nums[p][sp]
        for k in s.selected:
            laid[k] += 1
            nums |= self.kind_bit[k]
            o[v.o_laid + p * self.KI + k] += 1
            o[v.o_selected + k] = 0
            if num_idx[k] >= 0:
                o[v.o_sp_num + (p * SPACES + sp) * nnum + num_idx[k]] += 1
        s.space_nums[p][sp] = nums
        g = len(s.selected)
        s.space_count[p][sp] += g
        s.laid_total[p] += g
        o[v.o_sp_cards + p * SPACES + sp] = s.space_count[p][sp]
        o[v.o_cards_laid + p] = s.laid_total[p]
        s.selected = []
        s.sel_inst = -1
        atrav = s.atrav[p] - bad_before + self._bad_around(s, p, sp)
        if atrav != s.atrav[p]:
            fame -= 2 * (atrav - s.atrav[p])
            s.atrav[p] = atrav
            o[v.o_atrav + p] = atrav
        if fame != s.fame[p]:
            s.fame[p] = fame
            o[v.o_fame + p] = fame
        if -1 not in s.space_inst[p]:
            self._trigger_end(s)

    def _update_fame(self, s: RodaState, p: int) -> None:
        s.fame[p] = self.fame_of(s, p) if s.called[p] else -2 * s.atrav[p]
        s.obs[self.encoder.o_fame + p] = s.fame[p]

    def can_call(self, s: RodaState, p: int, sid: int) -> bool:
        counts, coringas = self.roda_resources(s, p)
        return requirements_met(self.deck, self.deck.sambistas[sid].requires, counts, coringas)

    def roda_resources(self, s: RodaState, p: int) -> tuple[list[int], list[int]]:
        """(cards per instrument incl. the one the top sambista brings, coringa cards per colour)."""
        counts, coringas = [0] * self.I, [0] * self.C
        for sp, inst in enumerate(s.space_inst[p]):
            if inst >= 0:
                if self.inst_coringa[inst]:
                    coringas[self.inst_colour[inst]] += s.space_count[p][sp]
                else:
                    counts[inst] += s.space_count[p][sp]
        if s.called[p]:
            b = self.deck.sambistas[s.called[p][-1]].brings
            if b >= 0:
                counts[b] += 1
        return counts, coringas

    def _call(self, s: RodaState, p: int, action: int) -> None:
        o, v, S = s.obs, self.encoder, self.S
        if action == self.A_CALL_RESERVED:
            sid = s.reserved[p]
            s.reserved[p] = -1
            o[v.o_reserved + p * S + sid] = 0
        else:
            slot = action - self.A_CALL
            sid = s.row[slot]
            self._refill(s, slot)
        old = s.called[p][-1] if s.called[p] else -1
        if old >= 0:
            o[v.o_top + p * S + old] = 0
            if self.deck.sambistas[old].brings >= 0:
                o[v.o_brought + p * self.I + self.deck.sambistas[old].brings] = 0
        s.called[p].append(sid)
        s.called_this_turn = True
        sb = self.deck.sambistas[sid]
        o[v.o_called + p * S + sid] = 1
        o[v.o_top + p * S + sid] = 1
        if sb.brings >= 0:
            o[v.o_brought + p * self.I + sb.brings] = 1
        self._update_fame(s, p)
        bang = sb.bang
        if bang == BANG_COMPRA:
            self._draw(s, p, 2)
        elif bang == BANG_DESCARTE and any(s.pile_size):
            self._set_bang(s, bang)
            self._set_phase(s, PH_PILE)
            return
        elif bang == BANG_BAIXA and self._can_lay(s, p):
            self._set_bang(s, bang)
            self._set_phase(s, PH_LAY)
            return
        elif bang == BANG_MALANDRAGEM and (any(x >= 0 for x in s.row) or s.samb_deck):
            self._set_bang(s, bang)
            self._set_phase(s, PH_RESERVE)
            return
        self._to_discard(s)

    def _refill(self, s: RodaState, slot: int) -> None:
        o, v, S = s.obs, self.encoder, self.S
        o[v.o_row + slot * S + s.row[slot]] = 0
        s.row[slot] = self._pop_sambista(s) if s.samb_deck else -1
        if s.row[slot] >= 0:
            o[v.o_row + slot * S + s.row[slot]] = 1

    def _pop_sambista(self, s: RodaState) -> int:
        """The top of the sambista deck; below it nothing is known."""
        sid = s.samb_deck.pop()
        self._set_sambista_top(s, False)
        return sid

    def _set_sambista_top(self, s: RodaState, known: bool) -> None:
        o, v = s.obs, self.encoder
        o[v.o_samb_top:v.o_samb_top + self.S] = 0
        s.samb_top_known = known
        if known:
            o[v.o_samb_top + s.samb_deck[-1]] = 1
        o[v.o_sdeck] = len(s.samb_deck)

    def _reserve(self, s: RodaState, p: int, action: int) -> None:
        """Attract a sambista beside the roda; a previously reserved one swaps places with it."""
        o, v, S = s.obs, self.encoder, self.S
        old = s.reserved[p]
        if action == self.A_RESERVE_TOP:
            sid = self._pop_sambista(s)
            if old >= 0:  # the old one takes the new one's place: the deck's top, face up (public)
                s.samb_deck.append(old)
                self._set_sambista_top(s, True)
        else:
            slot = action - self.A_RESERVE
            sid = s.row[slot]
            if old >= 0:
                o[v.o_row + slot * S + sid] = 0
                s.row[slot] = old
                o[v.o_row + slot * S + old] = 1
            else:
                self._refill(s, slot)
        if old >= 0:
            o[v.o_reserved + p * S + old] = 0
        s.reserved[p] = sid
        o[v.o_reserved + p * S + sid] = 1

    # ------------------------------------------------------------ transitions
    def _set_phase(self, s: RodaState, ph: int) -> None:
        o, at = s.obs, self.encoder.o_phase
        if s.phase >= 0:
            o[at + s.phase] = 0
        s.phase = ph
        if ph >= 0:
            o[at + ph] = 1

    def _set_bang(self, s: RodaState, bang: int) -> None:
        o, v = s.obs, self.encoder
        if s.bang >= 0:
            o[v.o_bang + s.bang] = 0
        s.bang = bang
        if bang >= 0:
            o[v.o_bang + bang] = 1

    def _can_lay(self, s: RodaState, p: int) -> bool:
        hand = s.hands[p]
        if s.hand_size[p] == hand[self.mal]:
            return False  # no instrument in hand
        if -1 in s.space_inst[p]:
            return True
        sp, ks = s.inst_space[p], self.kind_inst
        return any(hand[k] and sp[ks[k]] >= 0 for k in range(self.KI))

    def _to_lay(self, s: RodaState) -> None:
        if self._can_lay(s, s.player):
            self._set_phase(s, PH_LAY)
        else:
            self._to_call(s)

    def _to_call(self, s: RodaState) -> None:
        """Enter the call phase when some sambista can come (one pass over the roda)."""
        p, col, cor_flag, C = s.player, self.inst_colour, self.inst_coringa, self.C
        counts, coringas, anyc, maxc = [0] * self.I, [0] * C, [0] * C, [0] * C
        have = 0  # colours present: every token needs a card of its colour
        for inst, cnt in zip(s.space_inst[p], s.space_count[p], strict=True):
            if inst >= 0:
                c = col[inst]
                have |= 1 << c
                if cor_flag[inst]:
                    coringas[c] += cnt
                else:
                    counts[inst] = cnt
                    anyc[c] = 1
                    if cnt > maxc[c]:
                        maxc[c] = cnt
        if s.called[p]:
            b = self.brings[s.called[p][-1]]
            if b >= 0:  # the top sambista's instrument counts as one more card
                c = col[b]
                counts[b] += 1
                have |= 1 << c
                anyc[c] = 1
                if counts[b] > maxc[c]:
                    maxc[c] = counts[b]
        need, meets, a = self.need_bits, self._meets, self.A_CALL
        acts = [a + i for i, sid in enumerate(s.row)
                if sid >= 0 and not need[sid] & ~have and meets(sid, counts, coringas, anyc, maxc)]
        r = s.reserved[p]
        if r >= 0 and not need[r] & ~have and meets(r, counts, coringas, anyc, maxc):
            acts.append(self.A_CALL_RESERVED)
        s.callable = acts
        if acts:
            self._set_phase(s, PH_CALL)
        else:
            self._to_discard(s)

    def _meets(self, sid: int, counts, coringas, anyc, maxc) -> bool:
        """``requirements_met`` with per-colour aggregates (tokens of one colour each: O(tokens))."""
        if not self.independent[sid]:
            return requirements_met(self.deck, self.deck.sambistas[sid].requires, counts, coringas, False)
        for kind_, arg, c in self.tokens[sid]:
            j = coringas[c]
            if kind_ == REQ_INSTRUMENT:
                if not counts[arg] and not j:
                    return False
            elif kind_ == REQ_ANY:
                if not anyc[c] and not j:
                    return False
            elif not (maxc[c] >= 2 or j >= 2 or (maxc[c] and j)):
                return False
        return True

    def _to_discard(self, s: RodaState) -> None:
        hand = s.hands[s.player]
        if s.hand_size[s.player] > hand[self.mal] or (hand[self.mal] and any(s.pile_size)):
            self._set_phase(s, PH_DISCARD)
        else:
            self._set_phase(s, -1)  # nothing to discard: the turn ends

    def _trigger_end(self, s: RodaState) -> None:
        if not s.end_triggered:
            s.end_triggered = True
            s.obs[self.encoder.o_end] = 1

    def _end_turn(self, s: RodaState):
        o, v, n = s.obs, self.encoder, self.num_players
        s.turns += 1
        s.callable = []
        s.called_this_turn = False
        self._set_phase(s, PH_DRAW)
        o[v.o_current + s.player] = 0
        if s.player == n - 1:
            s.round += 1
            o[v.o_round] = s.round
            o[v.o_rounds_left] = self.config.max_rounds - s.round
            if s.end_triggered or s.round >= self.config.max_rounds:
                return self._finish(s)
        s.player = (s.player + 1) % n
        o[v.o_current + s.player] = 1
        if not s.deck and not any(s.pile_size):
            self._to_lay(s)  # nothing to draw: the draw is skipped
            if s.phase == -1:
                return self._end_turn(s)
        return None

    def _finish(self, s: RodaState) -> list[float]:
        s.over = True
        self._set_phase(s, -1)
        s.player = -1
        rewards = self.rewards_for(s.fame, s.laid_total)
        s.returns = rewards
        return rewards

    # harmony and fame (scoring.py): methods of the game
    _bad_around, atravessados, fame_of = scoring.bad_around, scoring.atravessados, scoring.fame_of
    rewards_for, winners = scoring.rewards_for, scoring.winners

    # ----------------------------------------------------- hidden information
    def resample_hidden(self, s: RodaState, player: int, rng: np.random.Generator) -> RodaState:
        return resample_hidden(self, s, check_seat(self, player), rng)

    # ------------------------------------------------------------------- text
    def render_text(self, s: RodaState, player: int | None = None) -> str:
        from baralho.envs.roda_de_samba.text import render_text

        return render_text(self, s, player)

    def render_image(self, s: RodaState, player: int | None = None) -> np.ndarray:
        """The table as an RGB picture (needs Pillow)."""
        from baralho.envs.roda_de_samba.picture import render_image

        return render_image(self, s, player)

    # ------------------------------------------------------------- invariants
    def check_invariants(self, s: RodaState) -> None:
        from baralho.envs.roda_de_samba.checks import check_invariants
        check_invariants(self, s)

    def reference_legal_mask(self, s: RodaState) -> np.ndarray:
        from baralho.envs.roda_de_samba.checks import reference_legal_mask
        return reference_legal_mask(self, s)


__all__ = ["BANG_ACTIONS", "Config", "ENV_ID", "PHASES", "RodaDeSambaGame", "RodaState"]
