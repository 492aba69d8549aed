"""Expert iteration on the compiled net-guided search, top to bottom (CleanRL style).

    baralho train rodizio_v1 --algo exit
    baralho train chuche_v1 --algo exit --config num_players=3 --out runs/chuche3
    baralho train chuche_v1 --algo exit --out runs/chuche --resume     # continue that run
    baralho train scala40_v1 --algo exit --ray auto                    # the games on a Ray cluster

1. **Games** (``Games``). ``num_envs`` games at once in a ``baralho.vector`` batch (the compiled
   engine). At every decision with a choice, the compiled net-guided search
   (``core/net_search.py``, what ``ismcts:N:p`` plays: PUCT with the current net's policy as
   prior (its logits divided by ``temperature``) and its values, mixed with a random
   rollout's returns by ``mix``, at new nodes)
   searches every waiting game's root in one call, ``simulations`` each, on ``threads``
   threads. The move is drawn from the root's visits for a game's first ``explore_moves``
   decisions, then the most visited. Each searched decision goes to the learner at once with its
   seat's observation, the mask and the root's visit distribution (the policy target, learned
   from the next learning phase on); when its game ends, the seat's return follows (its value
   target, learned from then on). Forced moves are played and not kept.
   With ``--ray ADDRESS`` the games run in Ray actors on that cluster (``local``: a Ray started
   on this machine), ``--ray-workers`` of them (default one per CPU), each with its own batch;
   the learner gathers their decisions every round and sends them the new net (flat arrays:
   the actors need no torch). Without it they run here.
2. **Learning.** After every round of ``round_decisions`` searched decisions, ``updates`` Adam
   steps on minibatches from the last ``replay`` searched decisions (``Replay``): cross-entropy
   of the masked policy against the visit distribution, plus ``vf_coef`` times the value's
   squared error over the decisions whose game has ended. The games then search with the new net.
3. **Evaluation, checkpoints.** Every ``eval_every`` searched decisions, and at the end, the
   net alone (deterministic, as ``ppo:PATH`` plays it, no search) meets the heuristic on
   ``eval_games`` deals from every seat (``selfplay.evaluate``, Wilson 95% CI), then a
   checkpoint (policy, optimizer, counters; ``--resume`` continues from it with an empty
   replay and new games). Ctrl-C stops the games, evaluates and saves what was learned.
4. ``out/final.json`` + ``final.npz`` is the net: ``ppo:PATH`` plays it alone and
   ``ismcts:N:p:PATH`` searches with it; ``out/summary.json`` holds the run's figures.

The net is SB3's ``MaskableActorCriticPolicy`` (the project's weights-only policy files).
``expert`` fixes the net that guides the games' search: that policy file (``zoo``: the env's zoo
policy) for the whole run, the learner a net apart that the games never read (plain
distillation of a search known to be strong, where the learner guiding its own search drifts
with it); by default the learner guides, as above.
``init`` starts from a policy file (``zoo``: the env's zoo policy) instead of a fresh net. One
net serves one player count (its observation's size depends on it): ``--config num_players=3``.
By default it never asks the heuristic, in training or in play. A net with the heuristic prior
(``--prior heuristic``, or an ``init`` whose card has it, as Scala 40's and Roda de Samba's zoo
nets) reads the heuristic's move as a hint, as the self-play trainer's do: the search asks the
compiled heuristic at every node it takes the prior at, each kept decision keeps its root's hint
(a ``BatchHeuristic`` follows every game), and the learner reads it back. Its value was learned
with its own hint, so its search takes rollouts for a new node's estimate (``mix`` = 1).
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

import baralho
import baralho.vector as bv
from baralho.agents.policy import INPUTS
from baralho.core.search import generator_words

RUN_FILES = ("checkpoint", "tb", "final.json", "final.npz", "summary.json", "run.json")


@dataclass
class ExitConfig:
    env_id: str = "rodizio_v1"
    env_config: dict = field(default_factory=dict)
    seed: int = 0
    num_envs: int = 64                 # games played at once: the roots of one search call
    simulations: int = 64              # per searched decision
    exploration: float = 1.5           # PUCT's c
    mix: float = 0.5                   # a random rollout's share in a new node's estimate (0: the net's value)
    rollouts: str = "random"           # who plays the rollouts: uniform moves, or the compiled heuristic
    horizon: str = "game"              # how far a rollout runs: the game's end, or its segment's (Scala 40's hand)
    temperature: float = 1.0           # the games' prior: the net's logits divided by it (above 1: flatter)
    target_temperature: float = 1.0    # the policy target: visits ** (1 / it), normalised (below 1: sharper)
    target_margin: float = 0.0         # learn a decision's policy only where the most visited move's mean
                                       # return beats the runner-up's by this much (0: every decision's)
    explore_moves: int = 30            # a game's first decisions drawn from the visits; the most visited after
    round_decisions: int = 4096        # searched decisions between two learning phases
    updates: int = 64                  # Adam steps per learning phase
    minibatch: int = 512
    replay: int = 100_000              # the last searched decisions learned from
    learning_rate: float = 1e-3
    vf_coef: float = 1.0
    max_grad_norm: float = 1.0
    net_arch: tuple[int, ...] = (256, 256)
    inputs: str = "symlog"
    prior: str = "none"                # "heuristic": the net reads the heuristic's move (an init's card sets it)
    init: str | None = None            # a policy file to start from ("zoo": the env's), None: a fresh net
    expert: str | None = None          # a policy file guiding the games' search for the whole run ("zoo": the
                                       # env's), the learner apart: plain distillation; None: the learner guides
    decisions: int = 50_000_000        # budget: searched decisions
    max_minutes: float | None = 55.0   # wall budget of this invocation; the final evaluation and save follow
    eval_every: int = 100_000
    eval_games: int = 300              # deals, each played from every seat
    threads: int = 2                   # the search's threads (in this process; a Ray worker searches on one)
    ray: str | None = None             # a Ray cluster's address ("local": start one here): the games in Ray actors
    ray_workers: int = 0               # actors, one CPU and num_envs games each (0: the cluster's CPUs)
    torch_threads: int = 1
    engine: str | None = None          # the evaluation's vector engine (None: compiled); the games need it
    out: str = "runs/exit"
    progress: bool = True
    overwrite: bool = False
    resume: bool = False


def check(cfg: ExitConfig) -> None:
    """Refuse settings that cannot work, before anything starts."""
    if cfg.env_id not in baralho.ENV_IDS:
        raise ValueError(f"unknown env {cfg.env_id!r}; have {baralho.ENV_IDS}")
    for key in ("num_envs", "simulations", "round_decisions", "updates", "minibatch", "replay", "decisions",
                "eval_games", "threads", "torch_threads"):
        value = getattr(cfg, key)
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{key} must be a positive integer, got {value!r} (--{key.replace('_', '-')})")
    if cfg.simulations < 2:           # the first simulation evaluates the root; the visits start with the second
        raise ValueError(f"simulations must be >= 2 (the first evaluates the root), got {cfg.simulations}")
    for key in ("explore_moves", "eval_every", "ray_workers"):
        value = getattr(cfg, key)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"{key} must be an integer >= 0, got {value!r} (--{key.replace('_', '-')})")
    if isinstance(cfg.seed, bool) or not isinstance(cfg.seed, int) or not 0 <= cfg.seed < 2**32:
        raise ValueError(f"seed must be an integer in [0, 2**32), got {cfg.seed!r} (--seed)")
    for key in ("exploration", "mix", "learning_rate", "vf_coef", "max_grad_norm", "target_margin"):
        value = getattr(cfg, key)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
            raise ValueError(f"{key} must be a finite number >= 0, got {value!r} (--{key.replace('_', '-')})")
    if cfg.mix > 1 or cfg.learning_rate == 0 or cfg.max_grad_norm == 0:
        raise ValueError("need mix <= 1, learning_rate > 0 and max_grad_norm > 0")
    check_hinted(cfg)
    from baralho.core.net_search import check_horizon, check_prior  # the search's own bounds

    if cfg.rollouts not in ("random", "heuristic"):
        raise ValueError(f"rollouts must be 'random' or 'heuristic', got {cfg.rollouts!r} (--rollouts)")
    try:
        check_horizon(cfg.horizon, baralho.make(cfg.env_id, engine="reference", **cfg.env_config).unwrapped.game)
    except ValueError as err:
        raise ValueError(f"{err} (--horizon)") from None

    t = cfg.target_temperature
    if isinstance(t, bool) or not isinstance(t, (int, float)) or not math.isfinite(t) or t <= 0:
        raise ValueError(f"target_temperature must be a finite number above 0, got {t!r} (--target-temperature)")
    try:
        check_prior(2, cfg.temperature)
    except ValueError as err:
        raise ValueError(f"{err} (--temperature)") from None
    if cfg.max_minutes is not None and not (isinstance(cfg.max_minutes, (int, float))
                                            and math.isfinite(cfg.max_minutes) and cfg.max_minutes > 0):
        raise ValueError(f"max_minutes must be a number of minutes > 0 (or None), got {cfg.max_minutes!r}")
    if cfg.inputs not in INPUTS:
        raise ValueError(f"inputs must be one of {INPUTS}, got {cfg.inputs!r}")
    if not cfg.net_arch or any(isinstance(w, bool) or not isinstance(w, int) or w < 1 for w in cfg.net_arch):
        raise ValueError(f"net_arch must be hidden layer widths >= 1, got {cfg.net_arch!r}")
    if cfg.engine not in (None, "compiled"):
        raise ValueError("the expert iteration searches on the compiled engine (engine None or 'compiled')")
    from baralho.envs import compiled_ids

    if cfg.env_id not in compiled_ids():
        raise ValueError(f"{cfg.env_id} has no compiled engine: the search it learns from runs on one")


def check_hinted(cfg: ExitConfig) -> None:
    """A net with the heuristic prior searches with rollouts: its value read its own hint, at its
    own turns, so it is no estimate of every seat's at a new node."""
    from baralho.agents.policy import PRIORS

    if cfg.prior not in PRIORS:
        raise ValueError(f"prior {cfg.prior!r} is not one of {PRIORS} (--prior)")
    if cfg.prior == "heuristic" and cfg.mix != 1:
        raise ValueError(f"a net with the heuristic prior{f' (--init {cfg.init})' if cfg.init else ''} reads the "
                         f"heuristic's move at its own turns only: its search takes rollouts, --mix 1 "
                         f"(got mix={cfg.mix})")


class Replay:
    """The last ``capacity`` searched decisions (a ring): observation, mask, the root's visit
    distribution (policy target) and its weight in the policy loss (``decisive``: 0 where the
    search did not tell its moves apart), the seat's return (value target: NaN until its game
    ends, then ``settle`` writes it) and, for a net with the heuristic prior, the heuristic's move
    there (its hint; -1 without) and its ``id`` (unique in the run; -1 without), by which
    ``settle`` finds its row while it is kept."""

    def __init__(self, capacity: int, obs_size: int, obs_dtype, actions: int) -> None:
        self.obs = np.zeros((capacity, obs_size), obs_dtype)
        self.mask = np.zeros((capacity, actions), bool)
        self.target = np.zeros((capacity, actions), np.float32)
        self.value = np.full(capacity, np.nan, np.float32)
        self.weight = np.ones(capacity, np.float32)
        self.hint = np.full(capacity, -1, np.int64)
        self.id = np.full(capacity, -1, np.int64)
        self.capacity, self.next, self.size = capacity, 0, 0

    def add(self, batch: dict) -> None:
        batch = {k: batch[k] for k in ("obs", "mask", "target", "value", "hint", "weight", "id") if k in batch}
        n = len(batch["target"])
        if n > self.capacity:                          # more than fits: the newest
            batch, n = {k: v[-self.capacity:] for k, v in batch.items()}, self.capacity
        rows = (self.next + np.arange(n)) % self.capacity
        for key in ("obs", "mask", "target"):
            getattr(self, key)[rows] = batch[key]
        self.value[rows] = batch["value"] if "value" in batch else np.nan
        self.hint[rows] = batch["hint"] if "hint" in batch else -1
        self.weight[rows] = batch["weight"] if "weight" in batch else 1.0
        self.id[rows] = batch["id"] if "id" in batch else -1
        self.next = int((self.next + n) % self.capacity)
        self.size = min(self.size + n, self.capacity)

    def settle(self, ids: np.ndarray, values: np.ndarray) -> int:
        """The value targets of decisions whose games ended (a decision no longer kept is skipped);
        how many were written."""
        if len(ids) == 0:
            return 0
        order = np.argsort(ids)
        at = np.searchsorted(ids[order], self.id).clip(max=len(ids) - 1)
        rows = np.flatnonzero(ids[order][at] == self.id)          # (ids are >= 0: an empty row's -1 matches none)
        self.value[rows] = values[order][at[rows]]
        return len(rows)


class Games:
    """``num_envs`` games at once, every choice searched by the compiled net-guided search: what
    one process plays, in this one or in a Ray actor (``--ray``). ``play(n)`` plays on until ``n``
    more decisions are searched and returns them (with no value yet, each with its ``id``) and the
    values of every decision whose game ended meanwhile (``ended_id``, ``ended_value``: the seat's
    return), which may have been returned by an earlier call (a game in progress goes on at the
    next call). Needs no torch: the net comes as ``net_arrays``."""

    def __init__(self, cfg: ExitConfig, stream: int, net: tuple, threads: int, prior_weight: float = 0.0) -> None:
        from baralho.core.net_search import NetSearcher

        self.cfg = cfg
        self.next_id = stream << 40                 # the decisions' ids: unique across the run's streams
        B = cfg.num_envs
        self.venv = bv.make(cfg.env_id, B, cfg.seed + 7919 * stream, engine="compiled", **cfg.env_config)
        game = baralho.make(cfg.env_id, engine="compiled", **cfg.env_config).unwrapped.game
        if self.venv.roots([0]).dtype != game._blank.dtype:
            raise RuntimeError(f"{cfg.env_id}: the vector env's records are not the compiled game's")
        self.searcher = NetSearcher(game, threads=threads, mix=cfg.mix, net=net, temperature=cfg.temperature,
                                    prior_weight=prior_weight if cfg.prior == "heuristic" else 0.0,
                                    rollout=cfg.rollouts, horizon=cfg.horizon)
        self.gens = np.stack([generator_words(np.random.default_rng([cfg.seed, stream, b])) for b in range(B)])
        self.rng = np.random.default_rng([cfg.seed, stream, B])
        self.heuristic = None
        if cfg.prior == "heuristic":           # the hint the net reads at a kept decision, as it will in play
            from baralho.vector.heuristic import BatchHeuristic

            self.heuristic = BatchHeuristic(self.venv.game, B, int(self.rng.integers(2**31)))
        self.obs, self.mask, self.seat = self.venv.reset()
        self.totals = np.zeros((B, self.venv.num_players))         # each game's returns so far
        self.moves = np.zeros(B, np.int64)                          # each game's searched decisions so far
        self.kept: list[list[tuple]] = [[] for _ in range(B)]       # each game's (id, seat), until it ends
        self.seconds = dict(search=0.0, env=0.0)

    def set_net(self, net: tuple, prior_weight: float = 0.0) -> None:
        self.searcher.net = net
        if self.heuristic is not None:
            self.searcher.prior_weight = np.float32(prior_weight)

    def play(self, decisions: int) -> dict:
        cfg, venv, new_rows, finished = self.cfg, self.venv, [], []
        searched = games = 0
        while searched < decisions:
            # search every game that has a choice; a forced move is played as it is, and not kept
            obs, mask, seat = self.obs, self.mask, self.seat
            action = mask.argmax(1).astype(np.int64)
            rows = np.flatnonzero(mask.sum(1) > 1)
            hint = (self.heuristic.act(np.arange(len(mask)), obs, mask) if self.heuristic is not None
                    else np.full(len(mask), -1, np.int64))
            if len(rows):
                t0 = time.perf_counter()
                g = self.gens[rows]
                visits, value = self.searcher._run(venv.roots(rows), seat[rows].astype(np.int64),
                                               np.full(len(rows), cfg.simulations, np.int64),
                                               float(cfg.exploration), g, False)
                self.gens[rows] = g
                # the visits' distribution, drawn by inverse CDF on the integer counts (an unvisited
                # action is never drawn; with a choice at the root, simulations >= 2 visit some child)
                cdf = visits.cumsum(1)
                target = policy_target(visits, cfg.target_temperature)
                weight = decisive(visits, value, cfg.target_margin)
                drawn = (cdf > self.rng.random((len(rows), 1)) * cdf[:, -1:]).argmax(1)
                action[rows] = np.where(self.moves[rows] < cfg.explore_moves, drawn, visits.argmax(1))
                for k, b in enumerate(rows):
                    new_rows.append((obs[b].copy(), mask[b].astype(bool), target[k], int(hint[b]), weight[k],
                                     self.next_id))
                    self.kept[b].append((self.next_id, int(seat[b])))
                    self.next_id += 1
                self.moves[rows] += 1
                searched += len(rows)
                self.seconds["search"] += time.perf_counter() - t0
            t0 = time.perf_counter()
            if self.heuristic is not None:               # another move than its own: it plans afresh
                self.heuristic.forget(np.flatnonzero(action != hint))
            self.obs, self.mask, self.seat, rewards, done = venv.step(action)
            self.totals += rewards
            for b in np.flatnonzero(done):               # a game ended: its decisions' value targets
                finished += [(i, self.totals[b, s]) for i, s in self.kept[b]]
                self.kept[b], self.totals[b], self.moves[b] = [], 0.0, 0
                games += 1
            if self.heuristic is not None and done.any():  # the next deal's heuristic (auto-reset)
                ended = np.flatnonzero(done)
                self.heuristic.reset(ended, self.rng.integers(2**31, size=len(ended)))
            self.seconds["env"] += time.perf_counter() - t0
        A, n = venv.num_actions, len(new_rows)
        return dict(obs=np.array([r[0] for r in new_rows], self.obs.dtype).reshape(n, self.obs.shape[1]),
                    mask=np.array([r[1] for r in new_rows], bool).reshape(n, A),
                    target=np.array([r[2] for r in new_rows], np.float32).reshape(n, A),
                    hint=np.array([r[3] for r in new_rows], np.int64),
                    weight=np.array([r[4] for r in new_rows], np.float32),
                    id=np.array([r[5] for r in new_rows], np.int64),
                    ended_id=np.array([i for i, _ in finished], np.int64),
                    ended_value=np.array([v for _, v in finished], np.float32),
                    searched=searched, games=games)


def policy_target(visits: np.ndarray, temperature: float) -> np.ndarray:
    """The root visits as a distribution, ``visits ** (1 / temperature)`` normalised per row (1: the
    visit shares as AlphaZero learns them; below 1 sharper, toward the most visited). A flat prior
    (``--temperature`` above 1) spreads a few hundred simulations over many moves: the net learns
    that spread, and its own most likely move is then a weak one (measured in Scala 40:
    benchmarks/TRAINING_NOTES.md, expert iteration); a sharper target keeps more of the search's choice."""
    share = visits / visits.max(1, keepdims=True)      # in [0, 1]: no overflow for any temperature
    sharp = share ** (1.0 / temperature)
    return (sharp / sharp.sum(1, keepdims=True)).astype(np.float32)


def decisive(visits: np.ndarray, value: np.ndarray, margin: float) -> np.ndarray:
    """Each root's weight in the policy loss: 1 where the most visited move's mean return (``value``
    holds the acting seat's summed returns) beats the runner-up's (the second most visited) by
    ``margin`` or more, or the runner-up was never visited; else 0 (the search did not tell them
    apart: its visits there follow the prior, and teaching them back teaches the net nothing but
    noise). ``margin`` 0: every root 1."""
    if margin <= 0:
        return np.ones(len(visits), np.float32)
    order = np.argsort(-visits, axis=1, kind="stable")
    rows = np.arange(len(visits))
    best, second = order[:, 0], order[:, 1]
    n_best, n_second = visits[rows, best], visits[rows, second]
    q_best = value[rows, best] / np.maximum(n_best, 1)
    q_second = value[rows, second] / np.maximum(n_second, 1)
    return ((n_second == 0) | (q_best - q_second >= margin)).astype(np.float32)


def learn(policy, optimizer, replay: Replay, cfg: ExitConfig, rng: np.random.Generator) -> dict:
    """``updates`` Adam steps on minibatches of searched decisions (the value learned where the
    game has ended); the mean losses."""
    import torch

    from baralho.agents.policy import logits_of
    from baralho.training.batch_policy import inputs, masked

    if replay.size < cfg.minibatch:
        return {}
    hinted = getattr(policy, "baralho_prior", "none") == "heuristic"
    policy.set_training_mode(True)
    totals = dict(policy_loss=0.0, value_loss=0.0, entropy=0.0, learned_share=0.0)
    for _ in range(cfg.updates):
        rows = rng.choice(replay.size, cfg.minibatch, replace=False)
        x, onehot = inputs(policy, replay.obs[rows], replay.hint[rows] if hinted else None)
        logits, latent_vf = logits_of(policy, x, onehot)
        logp = masked(logits, replay.mask[rows]).log_softmax(-1)
        target = torch.as_tensor(replay.target[rows])
        weight = torch.as_tensor(replay.weight[rows])     # (a decision the search did not decide: 0)
        policy_loss = -(weight * (target * logp).sum(-1)).sum() / weight.sum().clamp(min=1.0)
        value = policy.value_net(latent_vf).squeeze(-1)
        returns = torch.as_tensor(replay.value[rows])
        known = torch.isfinite(returns)                   # (a game still in progress: no value yet)
        value_loss = ((value - returns.nan_to_num()) ** 2 * known).sum() / known.sum().clamp(min=1)
        loss = policy_loss + cfg.vf_coef * value_loss
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(policy.parameters(), cfg.max_grad_norm)
        optimizer.step()
        with torch.no_grad():
            totals["entropy"] += float(-(logp.exp() * logp.clamp(min=-1e4)).sum(-1).mean())
        totals["policy_loss"] += policy_loss.item()
        totals["learned_share"] += float(weight.mean())
        totals["value_loss"] += value_loss.item()
    policy.set_training_mode(False)
    return {k: v / cfg.updates for k, v in totals.items()}


def initial_policy(cfg: ExitConfig):
    """A fresh net of ``net_arch``, or the ``init`` policy's (its card's architecture)."""
    from baralho.agents.policy import architecture_of, build_policy

    if cfg.init is None:
        return build_policy(cfg.env_id, cfg.env_config, dict(pi=list(cfg.net_arch), vf=list(cfg.net_arch)),
                            inputs=cfg.inputs, prior=cfg.prior)
    from baralho.zoo import load_init

    policy, card = load_init(cfg.init, cfg.env_id, cfg.env_config)
    cfg.net_arch, cfg.inputs, cfg.prior = architecture_of(card)
    check_hinted(cfg)
    return policy


def expert_policy(cfg: ExitConfig):
    """The fixed policy guiding the games' search (``expert``), or None: the learner guides. It reads
    the heuristic's move as the learner does or not at all (the games keep one hint per decision)."""
    if cfg.expert is None:
        return None
    from baralho.agents.policy import architecture_of
    from baralho.zoo import load_init

    policy, card = load_init(cfg.expert, cfg.env_id, cfg.env_config)
    prior = architecture_of(card)[2]
    if prior != cfg.prior:
        raise ValueError(f"the expert ({cfg.expert}) has the prior {prior!r} and the learner {cfg.prior!r}: the "
                         f"games keep the hint one of them reads (--expert, --prior, --init)")
    return policy


def expert_digest(cfg: ExitConfig) -> str | None:
    """``policy_digest`` of the expert's files (None: no expert): a resumed run checks its expert
    is still the net its first games were searched with."""
    from baralho.agents.policy import policy_digest
    from baralho.zoo import zoo_path

    if cfg.expert is None:
        return None
    return policy_digest(zoo_path(cfg.env_id, cfg.env_config.get("num_players")) if cfg.expert == "zoo" else cfg.expert)


def searched(policy, obs_dtype) -> tuple[tuple, float]:
    """What the games' search reads of ``policy``: its flat arrays and its heuristic prior's weight
    (0 without the prior)."""
    from baralho.agents.policy import prior_weight_of
    from baralho.core.net_search import net_arrays

    return net_arrays(policy, obs_dtype), prior_weight_of(policy)


def connect_ray(cfg: ExitConfig) -> int:
    """Join the Ray cluster at ``cfg.ray`` (``local``: start one in this machine) and return how many
    game actors to run: ``ray_workers``, or one per CPU of the cluster."""
    try:
        import ray
    except ImportError:
        raise SystemExit("--ray needs Ray: pip install 'baralho[ray]' (or ray) on every node") from None
    if not ray.is_initialized():
        ray.init(address=None if cfg.ray == "local" else cfg.ray, include_dashboard=False, log_to_driver=False,
                 **({"num_cpus": max(cfg.ray_workers, 1)} if cfg.ray == "local" and cfg.ray_workers else {}))
    return cfg.ray_workers or max(1, int(ray.cluster_resources().get("CPU", 1)))


def train(cfg: ExitConfig) -> Path:
    import torch
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
    from torch.utils.tensorboard import SummaryWriter

    from baralho.agents.policy import architecture_of, read_card, save_policy
    from baralho.training.checkpoint import load_checkpoint, save_checkpoint
    from baralho.training.selfplay import evaluate
    from baralho.training.train import claim_out

    check(cfg)
    start = time.perf_counter()
    torch.set_num_threads(cfg.torch_threads)
    torch.manual_seed(cfg.seed)
    out = Path(cfg.out)
    game = baralho.make(cfg.env_id, engine="compiled", **cfg.env_config).unwrapped.game  # a bad config fails here
    policy = None if cfg.resume else initial_policy(cfg)          # a bad --init fails before --out is claimed
    expert = None if cfg.resume else expert_policy(cfg)           # and a bad --expert
    manifest = claim_out(cfg, run_files=RUN_FILES, algo="exit")
    run_id = manifest["run_id"]
    if cfg.resume:
        if (out / "checkpoint" / "policy.json").exists():       # the run's own architecture
            card = read_card(out / "checkpoint" / "policy")
            cfg.net_arch, cfg.inputs, cfg.prior = architecture_of(card)
        cfg.init = None
        policy = initial_policy(cfg)
        expert = expert_policy(cfg)
    policy.set_training_mode(False)
    optimizer = torch.optim.Adam(policy.parameters(), lr=cfg.learning_rate)
    counters = dict(decisions=0, games=0, rounds=0, seconds=0.0, last_eval=0, evals=[], baseline=None,
                    policy_card={})
    digest = expert_digest(cfg)
    if cfg.resume:
        counters = load_checkpoint(out, policy, optimizer, cfg)
        if counters.setdefault("expert_digest", digest) != digest:       # a checkpoint from before: none kept
            raise ValueError(f"--expert {cfg.expert}: not the net this run's games were searched with (its card "
                             f"or weights changed since); resume with that net, or start a new run")
    counters["expert_digest"] = digest
    writer = SummaryWriter(str(out / "tb"))
    if counters["baseline"] is None:            # heuristic vs heuristic on the evaluation deals
        counters["baseline"] = evaluate(None, cfg, cfg.eval_games, cfg.seed + 50_000)

    # 1. the games, in this process or in Ray actors (one batch of games each), guided by the learner
    #    or by the fixed expert
    net, weight = searched(policy if expert is None else expert, game.obs_layout.dtype)
    workers = connect_ray(cfg) if cfg.ray else 0
    if workers:
        import ray

        actor = ray.remote(num_cpus=1)(Games)
        players = [actor.remote(cfg, 1 + counters["rounds"] * workers + k, net, 1, weight) for k in range(workers)]
    else:
        players = [Games(cfg, 1 + counters["rounds"], net, cfg.threads, weight)]
    rng = np.random.default_rng([cfg.seed, counters["rounds"], 1])
    replay = Replay(cfg.replay, game.obs_layout.size, game.obs_layout.dtype, game.num_actions)
    split = dict(games=0.0, learn=0.0, eval=0.0)
    seconds_before = counters["seconds"]
    losses: dict = {}
    progress = Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                        TextColumn("{task.fields[status]}"), TimeElapsedColumn(), disable=not cfg.progress)
    task = progress.add_task(f"{cfg.env_id} expert iteration", total=cfg.decisions,
                             completed=counters["decisions"], status="")
    status, interrupted = "", False

    def out_of_time() -> bool:
        return cfg.max_minutes is not None and time.perf_counter() - start > 60 * cfg.max_minutes

    def evaluate_and_checkpoint(step: int) -> str:
        t0 = time.perf_counter()
        result = dict(decisions=step, **evaluate(policy, cfg, cfg.eval_games, cfg.seed + 50_000),
                      minutes=(time.perf_counter() - start) / 60)
        split["eval"] += time.perf_counter() - t0
        counters["evals"].append(result)
        counters["last_eval"] = step
        for key in ("win_rate", "ci_low", "ci_high"):
            writer.add_scalar(f"eval/vs_heuristic_{key}", result[key], step)
        counters["seconds"] = seconds_before + time.perf_counter() - start
        counters["policy_card"] = dict(decisions=step, algo="exit", search=search_card(cfg))
        save_checkpoint(out, policy, optimizer, counters, cfg, run_id)
        return f"vs heuristic {result['win_rate']:.3f} [{result['ci_low']:.3f}, {result['ci_high']:.3f}]"

    progress.start()
    try:
        while counters["decisions"] < cfg.decisions and not out_of_time():
            # 2. a round of games: round_decisions searched decisions, spread over the players
            t0 = time.perf_counter()
            share = -(-cfg.round_decisions // len(players))
            if workers:
                import ray

                rounds = ray.get([p.play.remote(share) for p in players])
            else:
                rounds = [p.play(share) for p in players]
            for played in rounds:
                replay.add(played)
                replay.settle(played["ended_id"], played["ended_value"])
                counters["decisions"] += played["searched"]
                counters["games"] += played["games"]
            split["games"] += time.perf_counter() - t0

            # 3. learn, and search with the new net (a fixed expert goes on guiding)
            t0 = time.perf_counter()
            losses = learn(policy, optimizer, replay, cfg, rng)
            if expert is None:
                net, weight = searched(policy, game.obs_layout.dtype)
                for p in players:
                    p.set_net.remote(net, weight) if workers else p.set_net(net, weight)
            counters["rounds"] += 1
            split["learn"] += time.perf_counter() - t0
            step = counters["decisions"]
            for key, value in losses.items():
                writer.add_scalar(f"exit/{key}", value, step)
                if not math.isfinite(value):
                    from baralho.training.selfplay import TrainingDiverged

                    raise TrainingDiverged(f"the {key} went non-finite at {step:,} decisions; the last "
                                           f"checkpoint is in {out / 'checkpoint'}")
            elapsed = time.perf_counter() - start
            writer.add_scalar("throughput/searched_decisions_per_s", step / max(elapsed, 1e-9), step)
            if cfg.eval_every and step - counters["last_eval"] >= cfg.eval_every:
                status = evaluate_and_checkpoint(step)
            progress.update(task, completed=min(step, cfg.decisions),
                            status=f"{status} · {step / max(elapsed, 1e-9):,.0f} searched decisions/s · "
                                   f"{counters['games']:,} games ended")
        status = evaluate_and_checkpoint(counters["decisions"])
    except KeyboardInterrupt:       # Ctrl-C: stop the games, keep what was learned
        interrupted = True
        progress.stop()
        print(f"\ninterrupted at {counters['decisions']:,} decisions: evaluating and saving the net so far", flush=True)
        evaluate_and_checkpoint(counters["decisions"])
    finally:
        progress.stop()
    writer.close()

    # 4. the net and the run's figures
    save_policy(policy, out / "final", cfg.env_id, cfg.env_config, run_id=run_id, decisions=counters["decisions"],
                algo="exit", search=search_card(cfg))   # ismcts:N:p searches so
    summary = dict(config={**asdict(cfg), "net_arch": list(cfg.net_arch)}, algo="exit",
                   decisions=counters["decisions"], games=counters["games"], rounds=counters["rounds"],
                   wall_seconds=time.perf_counter() - start, seconds_this_invocation=split, losses=losses,
                   baseline=counters["baseline"], final=counters["evals"][-1], evals=counters["evals"],
                   interrupted=interrupted)
    (out / "summary.json").write_text(json.dumps(summary, indent=1))
    return out


def search_card(cfg: ExitConfig) -> dict:
    """How the run's games searched, for its card's ``search`` (ismcts:N:p searches so; the
    rollouts' player is the spec's, :p or :ph)."""
    return dict(exploration=cfg.exploration, mix=cfg.mix, **({"horizon": cfg.horizon} if cfg.horizon != "game"
                                                              else {}))


# --- the command line ------------------------------------------------------------------------

#: what the generated flags mean (the flags shared with the other trainers have their help in cli.py)
HELP = dict(simulations="simulations per searched decision", exploration="PUCT's exploration constant",
            mix="a random rollout's share in a new node's estimate (0: the net's value alone)",
            rollouts="who plays the search's rollouts: random (uniform moves) or heuristic (the compiled heuristic)",
            horizon="how far a rollout runs: game (to its end) or segment (to the end of the game's part, Scala 40's "
                    "hand, valued from the penalty totals)",
            target_margin="learn a decision's policy only where the most visited move's mean return beats the "
                          "runner-up's by this much (0: every decision's)",
            target_temperature="the policy target: the root visits ** (1 / it), normalised (below 1: sharper, "
                               "toward the most visited move)",
            temperature="the games' prior: the net's logits divided by it (above 1: a flatter prior, the visits "
                        "nearer the search's own)",
            explore_moves="a game's first decisions drawn from the root visits (then the most visited)",
            round_decisions="searched decisions between learning phases", updates="Adam steps per learning phase",
            minibatch="decisions per Adam step", replay="the last finished decisions learned from",
            vf_coef="value loss weight", max_grad_norm="gradient clipping norm",
            net_arch="hidden layer sizes of the policy and value nets",
            init="a policy file to start from ('zoo': the env's zoo policy; default: a fresh net)",
            expert="a policy file that guides the games' search for the whole run ('zoo': the env's zoo policy), "
                   "the learner a net apart (default: the learner guides its own search)",
            threads="the search's threads", torch_threads="torch's CPU threads",
            ray="play the games in Ray actors on the cluster at this address ('local': start Ray here)",
            ray_workers="Ray actors, one CPU and --num-envs games each (default: one per CPU of the cluster)")


def main(args) -> int:
    """``baralho train ENV --algo exit``: the CLI flags onto ExitConfig."""
    from baralho.training.selfplay import command_line, settings_of

    cfg = ExitConfig(env_id=args.env_id, env_config=args.config, progress=not args.quiet,
                     **settings_of(args, ExitConfig))
    out = train(cfg)
    s = json.loads((out / "summary.json").read_text())
    s["command"] = command_line(args, ExitConfig)          # for the model card (zoo/ship.py)
    (out / "summary.json").write_text(json.dumps(s, indent=1))
    final, base = s["final"], s["baseline"]
    print(f"\n{cfg.env_id}: {s['decisions']:,} searched decisions, {s['games']:,} games in {s['wall_seconds']:.0f} s"
          f"{' (interrupted)' if s['interrupted'] else ''}; net {out / 'final.json'}")
    print(f"the net alone vs heuristic over {final['games']} games: {final['win_rate']:.3f} "
          f"[{final['ci_low']:.3f}, {final['ci_high']:.3f}]; heuristic vs heuristic {base['win_rate']:.3f}")
    return 130 if s["interrupted"] else 0
