"""Information-set Monte Carlo tree search, generic over every baralho Game.

Single-observer ISMCTS (Cowling, Powley & Whitehouse 2012): each iteration
draws a *determinization* — a full state consistent with what the acting seat
knows, from ``game.resample_hidden`` — and walks one shared tree of action
histories with UCB, counting for each action how often it was available
("availability" counts), so that actions legal in only some determinizations
are not over-explored. Rollouts play random legal moves (or the game's
heuristic, each seat from its own observation) to the end of the episode; every node
backs up the return of the seat that acts there.

Guided mode (``guided=True``, spec ``ismcts:N:g``): the game's heuristic
proposes every move and the game's guide (:mod:`baralho.agents.guides`) names,
from the acting seat's observation, the few moves worth comparing at the key
decisions (Scala 40: the draw and the discard; Roda de Samba: draw, instrument,
sambista, discard); the heuristic plays every other decision, in the tree, in
rollouts and at the table. Rollouts are the heuristic's, cut off at the end of
the turn in progress after the guide's ``rollout_depth`` decisions (a position is
never scored half-way through a turn) and scored by its ``evaluate``. The tree only
branches where the game is decided; with ``tree=False`` (Scala 40's guide) the
search is flat Monte Carlo: each simulation plays one root candidate, then the
heuristic. At the root every candidate is played on the same determinizations
with the same rollout seed (common random numbers), and an alternative overrules
the proposal only when its paired advantage is ``confidence`` standard errors
above zero.

On a compiled engine (the default) with random rollouts, the search runs compiled
(:mod:`baralho.core.search`): the same algorithm drawing the same numbers in the same order,
so from the same seed it makes the same simulations as this module's, 20-300x faster;
``engine="reference"``, heuristic rollouts and guided mode run here. Either way ``root_visits``
and ``root_values`` hold the last search's root statistics (per action: visits, summed returns
of the seat searching), what expert iteration trains on.

The agent reads the live state only through ``resample_hidden``, whose draw
depends only on what the seat knows (the conformance suite checks it), so its
decisions are unchanged when the true hidden state is swapped for another one
consistent with the same observation (tests/agents checks that too).
"""

from __future__ import annotations

import dataclasses
import math
import time
from dataclasses import dataclass, field

import numpy as np

#: standard errors an alternative must beat the proposal by, when the guide names none
CONFIDENCE = 1.0


@dataclass
class _Node:
    visits: dict[int, int] = field(default_factory=dict)
    value: dict[int, float] = field(default_factory=dict)
    avail: dict[int, int] = field(default_factory=dict)
    children: dict[int, _Node] = field(default_factory=dict)
    reached: int = 0                        # net-guided: how often (a leaf's estimate backed up at the first)
    logits: np.ndarray | None = None        # net-guided: the policy net's logits, from the prior_visits-th visit


class ISMCTSAgent:
    """``ISMCTSAgent(simulations=200)`` or ``ISMCTSAgent(seconds=0.5)`` per move;
    ``rollout="heuristic"`` plays rollouts with the game's heuristic (every seat
    from its own observation) instead of uniformly random moves.
    ``guided=True`` searches only the key decisions the game's guide names, among
    the heuristic's proposal and a few alternatives (module docstring); it implies
    heuristic rollouts, ``rollout_depth`` overrides the guide's cut-off (None: the guide's),
    ``tree`` whether the search grows a tree below the root's candidates (False: flat Monte
    Carlo, every simulation is the candidate then the heuristic; None: the guide's), and an
    alternative replaces the proposal only when it beats it by ``confidence`` standard
    errors of the paired (same determinization) differences."""

    def __init__(self, simulations: int | None = 200, seconds: float | None = None,
                 exploration: float | None = None, max_rollout: int = 10_000, seed: int | None = None,
                 rollout: str = "random", guided: bool = False, rollout_depth: int | None = None,
                 confidence: float | None = None, tree: bool | None = None, belief_tries: int = 30,
                 race: float | None = None, race_min: int = 8, policy: str | None = None,
                 mix: float | None = None, prior_visits: int | None = None,
                 temperature: float | None = None, horizon: str | None = None) -> None:
        if simulations is None and seconds is None:
            raise ValueError("ISMCTSAgent needs a budget: simulations or seconds")
        if simulations is not None and (isinstance(simulations, bool) or not isinstance(simulations, int)
                                        or simulations < 1):
            raise ValueError(f"simulations={simulations!r} must be an integer >= 1")
        # nan compares false with everything: `not 0 < x` catches it, math.isfinite catches inf
        if seconds is not None and not (isinstance(seconds, (int, float)) and math.isfinite(seconds)
                                        and 0 < seconds):
            raise ValueError(f"seconds={seconds!r} must be a finite number above 0")
        self.simulations = simulations
        self.seconds = seconds
        # UCB's constant (0.7) by default; net-guided, PUCT's: the one the net was trained with (its
        # card's ``search``), else 1.5
        self.c = exploration if exploration is not None else None if policy is not None else 0.7
        self.max_rollout = max_rollout
        if rollout not in ("random", "heuristic"):
            raise ValueError(f"rollout={rollout!r} must be 'random' or 'heuristic'")
        if rollout_depth is not None and rollout_depth < 0:
            raise ValueError(f"rollout_depth={rollout_depth} must be >= 0 (or None)")
        self.guided = guided
        self.rollout = "heuristic" if guided else rollout
        self.rollout_depth = rollout_depth
        self.confidence = confidence
        self.tree = tree
        if belief_tries < 0:
            raise ValueError(f"belief_tries={belief_tries} must be >= 0")
        self.belief_tries = belief_tries
        if race_min < 2:
            raise ValueError(f"race_min={race_min} must be >= 2 (a standard error needs two draws)")
        self.race, self.race_min = race, race_min
        if policy is not None and guided:
            raise ValueError("a net-guided search (policy=) is not the heuristic-guided one: it is not :g")
        self.policy = policy           # net-guided (ismcts:N:p): a policy file, or "" for the env's zoo policy
        if mix is not None and not 0.0 <= mix <= 1.0:
            raise ValueError(f"mix={mix!r} must be in [0, 1]")
        # net-guided: the share of a random rollout in a new node's estimate (None: the card's, else 0)
        self.mix = mix
        if prior_visits is not None or temperature is not None:
            from baralho.core.net_search import check_prior

            check_prior(2 if prior_visits is None else prior_visits, 1.0 if temperature is None else temperature)
        # net-guided: a node's visit at which the net is asked (None: the card's, else 2: the first
        # walk through it) and the prior's temperature (None: the card's, else 1)
        self.prior_visits, self.temperature = prior_visits, temperature
        if horizon is not None:
            from baralho.core.net_search import check_horizon

            check_horizon(horizon)
        # net-guided: how far a leaf's rollout runs (None: the card's, else to the game's end;
        # "segment": to the end of the game's part, Scala 40's hand, valued by the game's estimate)
        self.horizon = horizon
        self._net = None               # (SB3 policy, its card) once bound
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self.env = None
        self._policy = None     # the heuristic of the search (every seat, every determinization)
        self._own = None        # guided: the heuristic at the table, fed this seat's real observations
        self._guide = None
        self._searcher = None   # the compiled search of the bound env's game, where it has one
        self._words = None      # self.rng's state while the compiled search draws from it (_sync_rng)
        self.root_visits: np.ndarray | None = None     # the last search's root statistics
        self.root_values: np.ndarray | None = None
        budget = f"{simulations}" if seconds is None else f"{seconds}s"
        self.name = f"ismcts:{budget}" + (":g" if guided else ":h" if rollout == "heuristic" else "")
        if policy is not None:
            style = ":ph" if rollout == "heuristic" else ":p"
            self.name = f"ismcts:{budget}{style}" + (f":{policy}" if policy else "")

    def bind(self, env) -> None:
        self.env = env.unwrapped
        game = self.env.game
        from baralho.envs import has_module

        before, self._searcher = self._searcher, None
        if self.policy is not None:
            self._bind_net(game)
            return
        if not self.guided and hasattr(getattr(game, "fast", None), "resample_hidden") and (
                self.rollout == "random" or has_module(game.env_id, "fast_heuristic")):
            from baralho.core.search import Searcher

            self._searcher = Searcher(game, rollout=self.rollout,
                                      heuristic_seed=None if self.seed is None else self.seed + 1)
            if (before is not None and before.has_heuristic and self._searcher.has_heuristic
                    and before._hmemory.dtype == self._searcher._hmemory.dtype):
                self._searcher._hmemory[:] = before._hmemory      # one heuristic across games, as _policy
        if self.rollout == "heuristic" and self._policy is None:
            from baralho.agents.base import heuristic_for

            self._policy = heuristic_for(game.env_id, game, seed=None if self.seed is None else self.seed + 1)
        if self.guided and self._own is None:
            from baralho.agents.base import heuristic_for
            from baralho.agents.guides import guide_for

            self._own = heuristic_for(game.env_id, game, seed=self.seed)
            self._guide = guide_for(game)
            if self.rollout_depth is None:
                self.rollout_depth = self._guide.rollout_depth
            if self.tree is None:
                self.tree = self._guide.tree
            if self.confidence is None:
                self.confidence = getattr(self._guide, "confidence", CONFIDENCE)
            if self.race is None:
                self.race = getattr(self._guide, "race", None)

    def _bind_net(self, game) -> None:
        """Net-guided: load the policy (once) and, on a compiled engine, the compiled search with it."""
        if self._net is None:
            from baralho.agents.policy import load_policy
            from baralho.zoo import is_zoo_name, zoo_path

            # a zoo name plays the zoo's net, as ppo:NAME does (and as the tournament's digest reads it)
            named = zoo_path(self.policy) if self.policy and is_zoo_name(self.policy) else self.policy
            path = named or zoo_path(game.env_id, game.num_players)
            if path is None:
                raise ValueError(f"ismcts:N:p: no zoo policy for {game.env_id} at {game.num_players} players; "
                                 f"name one, ismcts:N:p:PATH")
            self._net = load_policy(path, game.env_id, dataclasses.asdict(game.config))
            trained = self._net[1].get("search") or {}        # how an expert iteration run searched with it
            if self.c is None:
                self.c = float(trained.get("exploration", 1.5))
            if self.mix is None:        # rollouts by default: a self-play net's value head guides less than one
                self.mix = float(trained.get("mix", 1.0))   # rollout (measured: benchmarks/RESULTS.md)
            if self.prior_visits is None:
                self.prior_visits = int(trained.get("prior_visits", 2))
            if self.temperature is None:
                self.temperature = float(trained.get("temperature", 1.0))
            if self.horizon is None:
                self.horizon = str(trained.get("horizon", "game"))
        hinted = self._net[1].get("prior", "none") != "none"
        if (hinted or self.rollout == "heuristic") and self._policy is None:
            from baralho.agents.base import heuristic_for  # the Python search's hints and rollouts

            self._policy = heuristic_for(game.env_id, game, seed=None if self.seed is None else self.seed + 1)
        if hinted and self.mix != 1:
            raise ValueError(f"ismcts:N:p: {self._net[1].get('env_id', game.env_id)}'s net reads the heuristic's move "
                             f"(its card's prior), so its values are for its own turns only: it searches with "
                             f"rollouts (mix=1), not mix={self.mix}")
        if hasattr(getattr(game, "fast", None), "resample_hidden"):
            from baralho.core.net_search import NetSearcher

            self._searcher = NetSearcher(game, self._net[0], mix=self.mix, max_rollout=self.max_rollout,
                                         rollout=self.rollout, prior_visits=self.prior_visits,
                                         temperature=self.temperature, horizon=self.horizon,
                                         heuristic_seed=None if self.seed is None else self.seed + 1)

    def _net_outputs(self, observation: np.ndarray, hint: int = -1) -> tuple[np.ndarray, float]:
        """(logits, value) of the bound policy on one observation (and the heuristic's move, for a
        policy with the prior), by torch (the Python search's net)."""
        import torch

        from baralho.training.batch_policy import forward, inputs

        policy = self._net[0]
        with torch.no_grad():
            x, onehot = inputs(policy, np.asarray(observation)[None], np.array([hint]))
            logits, value = forward(policy, x, onehot, np.ones((1, policy.action_space.n), bool))
        return logits[0].numpy(), float(value[0])

    def _hint(self, game, s, actor: int, mask: np.ndarray) -> int:
        """The heuristic's move for ``actor`` at ``s``, planned afresh (net_search's ``_hint``); -1
        for a policy without the prior."""
        if self._net[1].get("prior", "none") == "none":
            return -1
        if hasattr(self._policy, "plan"):
            self._policy.plan = []
        obs = {"observation": game.observe(s, actor), "action_mask": mask}
        return int(self._policy.act(obs, f"player_{actor}"))

    def reset(self, seed: int | None = None) -> None:
        # The heuristics the search holds are reseeded too (their tie noise draws from their own
        # rng): without it a game's play depended on the games the instance played before it.
        if seed is not None:
            self.seed = seed
            self.rng = np.random.default_rng(seed)
            self._words = None
            if self._own is not None:
                self._own.reset(seed=seed)
            if self._policy is not None:
                self._policy.reset(seed=seed + 1)
            if self._searcher is not None and self._searcher.has_heuristic:
                self._searcher.reset_heuristic(seed + 1)       # the compiled twin of _policy

    def act(self, observation: dict[str, np.ndarray], agent_id: str) -> int:
        if self.env is None:
            raise RuntimeError("ISMCTSAgent.act needs bind(env) first (it searches the env's game)")
        legal = np.flatnonzero(observation["action_mask"])
        if len(legal) == 1:
            return int(legal[0])
        game, state = self.env.game, self.env.game_state
        seat = self.env.possible_agents.index(agent_id)
        if not self.guided:
            return self.search(game, state, seat)
        proposal = int(self._own.act(observation, agent_id))
        candidates = self._guide.candidates(self._own, observation, proposal)
        if len(candidates) == 1:
            return proposal
        return self.search(game, state, seat, candidates)

    def search(self, game, state, seat: int, candidates: list[int] | None = None) -> int:
        """The move to play for ``seat``; guided, one of ``candidates`` (the heuristic's
        proposal first, which wins ties)."""
        if self.guided and self._guide is None:
            raise RuntimeError("a guided ISMCTSAgent.search needs bind(env) first")
        if self.guided and not candidates:
            raise ValueError("a guided search needs the root candidates (the proposal first)")
        if self._searcher is not None and game is self._searcher.game and state.records is not None:
            return self._search_compiled(state, seat)
        self._sync_rng()
        root = _Node()
        rng = self.rng
        deadline = None if self.seconds is None else time.perf_counter() + self.seconds
        n = 0
        paired: list[list[float]] = []      # guided: per determinization, each candidate's return
        alive = list(range(len(candidates or ())))   # guided: the candidates still compared
        while True:
            det = self._determinize(game, state, seat, rng)
            if self.guided:
                # every candidate on the same determinization and the same rollout seed
                # (common random numbers: the comparison sees the move, less the deal)
                row = [math.nan] * len(candidates)
                for j in alive:
                    row[j] = self._iterate_guided(game, det.copy(), root, [candidates[j]], rollout_seed=n)
                paired.append(row)
                n += len(alive)
                if self.race is not None and len(paired) >= self.race_min:
                    alive = self._race(alive, np.asarray(paired))
                    if len(alive) == 1:
                        break
            elif self._net is not None:
                self._iterate_net(game, det, root, rng)
                n += 1
            else:
                self._iterate(game, det, root, rng)
                n += 1
            if self.simulations is not None and n >= self.simulations:
                break
            if deadline is not None and time.perf_counter() >= deadline:
                break
        if self.guided:
            return self._choose([candidates[j] for j in alive], np.asarray(paired)[:, alive])
        self.root_visits = np.zeros(game.num_actions, np.int64)
        self.root_values = np.zeros(game.num_actions, np.float64)
        for a, v in root.visits.items():
            self.root_visits[a], self.root_values[a] = v, root.value[a]
        # most visited root action (ties: lowest id, deterministic)
        return max(sorted(root.visits), key=lambda a: root.visits[a])

    def _search_compiled(self, state, seat: int) -> int:
        """The same search on the compiled engine (baralho.core.search), drawing from this agent's
        generator: a budget of simulations in one call, a budget of seconds in chunks."""
        from baralho.core.search import generator_words

        if self._words is None:       # the generator as the compiled search draws from it, kept
            self._words = generator_words(self.rng)[None].copy()
        g = self._words
        if self.seconds is None:
            visits, values = self._searcher.search_one(state, seat, self.simulations, self.c, g)
        else:
            start = time.perf_counter()
            deadline, chunk, done, resume = start + self.seconds, 8, 0, False
            while True:                      # chunks of about a tenth of the budget (or what is left)
                visits, values = self._searcher.search_one(state, seat, chunk, self.c, g, resume=resume)
                resume, done = True, done + chunk
                now = time.perf_counter()
                if now >= deadline:
                    break
                rate = done / max(now - start, 1e-6)
                chunk = max(1, int(rate * min(deadline - now, self.seconds / 10)))
        self.root_visits, self.root_values = visits, values
        return int(np.argmax(visits))             # most visited (ties: the lowest id)

    def _sync_rng(self) -> None:
        """``self.rng`` where the compiled search left its generator (the same stream either way)."""
        if self._words is not None:
            from baralho.core.search import set_generator

            set_generator(self.rng, self._words[0])
            self._words = None

    def _determinize(self, game, state, seat: int, rng: np.random.Generator):
        """A determinization from ``resample_hidden`` (the only read of the live state);
        guided, with a guide that models the opponents (``violations``), the first of up to
        ``belief_tries`` draws that the guide finds plausible, else the least implausible."""
        det = game.resample_hidden(state, seat, rng)
        check = getattr(self._guide, "violations", None) if self.guided else None
        if check is None or self.belief_tries <= 1:
            return det
        best, best_bad = det, check(det, seat)
        for _ in range(self.belief_tries - 1):
            if best_bad == 0:
                break
            det = game.resample_hidden(state, seat, rng)
            bad = check(det, seat)
            if bad < best_bad:
                best, best_bad = det, bad
        return best

    def _iterate(self, game, s, root: _Node, rng: np.random.Generator) -> None:
        path: list[tuple[_Node, int, int]] = []
        node = root
        while not game.is_over(s):
            legal = np.flatnonzero(game.legal_mask(s)).tolist()
            node = self._tree_step(game, s, node, legal, game.current_player(s), path, rng)
            if node is None:
                break
        self._rollout(game, s, rng)
        self._backup(path, game.returns(s))

    def _iterate_net(self, game, s, root: _Node, rng: np.random.Generator) -> None:
        """One simulation of the net-guided search (core/net_search.py's, for the reference engine):
        PUCT down the tree; a new leaf backs up the value net's estimate for every seat and/or a
        random rollout's returns (``mix``; a finished game, its returns); at its ``prior_visits``-th
        visit (the root: its first) it gets the policy net's logits from its actor's observation,
        divided by ``temperature`` (before: a uniform prior)."""
        path: list[tuple[_Node, int, int]] = []
        node = root
        while True:
            if game.is_over(s):
                ret = game.returns(s)
                break
            actor = game.current_player(s)
            mask = game.legal_mask(s)
            legal = np.flatnonzero(mask).tolist()
            if not node.reached and path:
                node.reached = 1
                ret = [0.0] * game.num_players
                if self.mix < 1:
                    ret = [self._net_outputs(game.observe(s, p))[1] for p in range(game.num_players)]
                if self.mix > 0:                 # to the game's end, or its segment's (net_search's horizon)
                    segment = self.horizon == "segment"
                    self._rollout(game, s, rng, until=game.segment(s) if segment else None)
                    end = game.estimate(s) if segment else game.returns(s)
                    ret = [(1.0 - self.mix) * v + self.mix * float(r) for v, r in zip(ret, end)]
                break
            for a in legal:
                node.avail[a] = node.avail.get(a, 0) + 1
            best = legal[0]
            if len(legal) > 1:                   # a forced move needs no prior
                if node.logits is None:
                    if path and node.reached + 1 < self.prior_visits:
                        node.reached += 1        # walked through, not yet at its prior's visit
                    else:                        # the root, or a node's prior_visits-th visit
                        logits = self._net_outputs(game.observe(s, actor), self._hint(game, s, actor, mask))[0]
                        node.logits = (logits.astype(np.float64) / self.temperature).astype(np.float32)  # as numba
                if node.logits is not None:
                    top = max(float(node.logits[a]) for a in legal)
                    total = sum(math.exp(float(node.logits[a]) - top) for a in legal)
                best, best_score = -1, -math.inf
                for a in legal:
                    n = node.visits.get(a, 0)
                    q = node.value[a] / n if n else 0.0
                    prior = (math.exp(float(node.logits[a]) - top) / total if node.logits is not None
                             else 1.0 / len(legal))
                    score = q + self.c * prior * math.sqrt(node.avail[a]) / (1 + n)
                    if score > best_score:
                        best, best_score = a, score
            path.append((node, best, actor))
            game.apply(s, best)
            node = node.children.setdefault(best, _Node())
        self._backup(path, ret)

    def _tree_step(self, game, s, node: _Node, choices: list[int], actor: int,
                   path: list[tuple[_Node, int, int]], rng: np.random.Generator | None) -> _Node | None:
        """One step down the tree among ``choices``: count their availability, then expand a
        fresh one (drawn with ``rng``, or the first one when ``rng`` is None) and return None,
        or follow UCB and return the child. The move is applied to ``s`` and recorded in ``path``."""
        for a in choices:
            node.avail[a] = node.avail.get(a, 0) + 1
        fresh = [a for a in choices if a not in node.children]
        if fresh:
            a = fresh[int(rng.integers(len(fresh)))] if rng is not None else fresh[0]
            node.children[a] = _Node()
            path.append((node, a, actor))
            game.apply(s, a)
            return None
        a = self._ucb(node, choices)
        path.append((node, a, actor))
        game.apply(s, a)
        return node.children[a]

    @staticmethod
    def _backup(path: list[tuple[_Node, int, int]], ret) -> None:
        for nd, a, actor in path:
            nd.visits[a] = nd.visits.get(a, 0) + 1
            nd.value[a] = nd.value.get(a, 0.0) + float(ret[actor])

    def _race(self, alive: list[int], paired: np.ndarray) -> list[int]:
        """Racing: drop an alternative once its paired advantage over the proposal is
        ``race`` standard errors below zero (or exactly zero so far: it changes nothing), so
        the budget goes to the decisions still in doubt."""
        keep = [0]
        for j in alive[1:]:
            diff = paired[:, j] - paired[:, 0]
            if diff.mean() + self.race * diff.std(ddof=1) / math.sqrt(len(diff)) > 0:
                keep.append(j)
        return keep

    def _choose(self, candidates: list[int], paired: np.ndarray) -> int:
        """The best mean return, but the proposal (column 0) unless the best beats it by
        ``confidence`` standard errors of their paired differences: a few noisy rollouts
        should not overrule the heuristic."""
        means = paired.mean(axis=0)
        best = int(np.argmax(means))             # ties: the earlier candidate, the proposal first
        if best == 0:
            return candidates[0]
        diff = paired[:, best] - paired[:, 0]
        spread = diff.std(ddof=1) / math.sqrt(len(diff)) if len(diff) > 1 else math.inf
        confidence = CONFIDENCE if self.confidence is None else self.confidence   # unbound: the default
        return candidates[best] if diff.mean() > confidence * spread else candidates[0]

    def _iterate_guided(self, game, s, root: _Node, candidates: list[int], rollout_seed: int) -> float:
        """One simulation of the guided search from ``candidates`` at the root: the tree
        branches only at the guide's key decisions (UCB below the root); the heuristic
        plays the others and the rollout."""
        policy, guide = self._policy, self._guide
        policy.reset(seed=rollout_seed)     # its noise is shared by the candidates; no stale plan
        path: list[tuple[_Node, int, int]] = []
        node, cands = root, candidates
        while not game.is_over(s):
            mask = game.legal_mask(s)
            actor = game.current_player(s)
            if cands is None:
                legal = np.flatnonzero(mask)
                if len(legal) == 1:
                    game.apply(s, int(legal[0]))
                    continue
                obs = {"observation": game.observe(s, actor), "action_mask": mask}
                proposal = int(policy.act(obs, f"player_{actor}"))
                cands = guide.candidates(policy, obs, proposal)
                if len(cands) == 1:
                    game.apply(s, proposal)
                    cands = None
                    continue
            # expand in the guide's order (rng None): the proposal first
            node, cands = self._tree_step(game, s, node, cands, actor, path, None), None
            if node is None or not self.tree:
                break
        # the rollout stops at the first change of actor after rollout_depth decisions: a
        # position is scored between turns, never half-way through one
        depth = self.max_rollout if self.rollout_depth is None else self.rollout_depth
        last = path[-1][2] if path else None
        for step in range(self.max_rollout):
            if game.is_over(s):
                break
            seat = game.current_player(s)
            if step >= depth and seat != last:
                break
            obs = {"observation": game.observe(s, seat), "action_mask": game.legal_mask(s)}
            game.apply(s, int(policy.act(obs, f"player_{seat}")))
            last = seat
        ret = guide.evaluate(game, s)
        self._backup(path, ret)
        return float(ret[path[0][2]])

    def _ucb(self, node: _Node, legal: list[int]) -> int:
        best, best_score = legal[0], -math.inf
        for a in legal:
            v = node.visits.get(a, 0)
            if v == 0:
                return a
            score = node.value[a] / v + self.c * math.sqrt(math.log(node.avail[a]) / v)
            if score > best_score:
                best, best_score = a, score
        return best

    def _rollout(self, game, s, rng: np.random.Generator, until: int | None = None) -> None:
        """To the game's end (at most ``max_rollout`` moves), or while its segment is ``until``."""
        policy = self._policy if self.rollout == "heuristic" else None   # (a hinted net's search holds one too)
        for _ in range(self.max_rollout):
            if game.is_over(s) or (until is not None and game.segment(s) != until):
                return
            mask = game.legal_mask(s)
            if policy is not None:
                # the heuristic plays every seat from that seat's own observation
                seat = game.current_player(s)
                obs = {"observation": game.observe(s, seat), "action_mask": mask}
                game.apply(s, policy.act(obs, f"player_{seat}"))
            else:
                legal = np.flatnonzero(mask)
                game.apply(s, int(legal[rng.integers(len(legal))]))
