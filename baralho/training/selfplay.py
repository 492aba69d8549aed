"""Batched self-play PPO over ``baralho.vector``, top to bottom (CleanRL style).

    baralho train rodizio_v1                                  # --algo selfplay is the default
    baralho train scala40_v1 --seed 0 --out runs/scala40
    baralho train scala40_v1 --out runs/scala40 --resume      # continue that run
    tensorboard --logdir runs/scala40/tb

1. **Envs.** ``num_envs`` games in one ``baralho.vector`` batch: the compiled engine where
   the game has one (``baralho.envs.compiled_ids()``), else the reference engine's Python loop.
2. **One network for every seat.** An sb3-contrib ``MaskableActorCriticPolicy`` (so the
   run's policies are the project's weights-only files, ``ppo:PATH`` in tournaments and
   evaluate), stepped here by hand: each env step, the learner's decisions of every env go
   through one forward pass; PPO updates it with its own Adam.
3. **Opponents.** Each new game of each env draws a role: *self-play* (every seat is the
   learner, every decision trains), a frozen *league* snapshot (one learner seat at random,
   the snapshot plays the others: one batched forward pass per snapshot per step), or the
   *heuristic* (one learner seat, the game's heuristic plays the others). The heuristic is
   ``baralho.vector.heuristic.BatchHeuristic``: one call for every env that asks, compiled
   where the game has a ``fast_heuristic.py`` (a few µs a decision), else a Python call per
   env (70-130 µs, far above a compiled engine step); what it cost in a run is in
   ``summary.json`` (``seconds_this_invocation``: env, net, heuristic, update, eval). The
   shares are per-game defaults (table below).
   With ``prior="heuristic"`` (``--prior heuristic``) the heuristic is asked for its move at
   every decision of every env (the hint), and the policy's logits get a learned bonus,
   ``prior_weight`` (from 4), on the hint (``agents.policy.hinted_logits``): a new policy plays
   the heuristic's moves and PPO learns where to depart from them. It costs a heuristic move
   per decision, in training and in play (``ppo:`` asks its own heuristic.py, which moves as
   the compiled one), and replaces a warm start.
4. **Per-seat crediting.** A decision's reward is everything its seat receives from that
   decision until the same seat's next decision in the same game, or until the game ends
   (the terminal reward included); GAE then runs along each seat's own decision sequence
   (``SeatBook``). A decision still open when the rollout ends (its seat has not played
   again, the game is not over) waits for the next rollout instead of being cut. With
   ``shaping`` > 0 (``--shaping``; Chuche and Roda de Samba) the score margin is added as a
   potential (the game's ``shaping.py``): denser rewards, the same best policy.
5. **PPO**: clipped ratio over the masked distribution, advantages normalised per
   minibatch, value loss, entropy bonus, gradient clipping.
6. **League, evaluation, checkpoints.** Every ``snapshot_every`` decisions a frozen copy
   joins the league (``out/pool``, the newest ``league_size`` play; after a warm start the
   clone is its first member, and with ``init``, ``--init zoo`` or a policy file, the trained
   policy the run starts from, whose architecture and prior it takes). Every ``eval_every``
   decisions, and at the end, the policy (deterministic, as ``ppo:`` plays) meets the
   heuristic on ``eval_games`` deals from every seat (so 2 players: 2 x eval_games games),
   with a Wilson 95% CI, beside heuristic-vs-heuristic on the same deals (the bar for
   Rodízio, where a seat can lose to a tie). A checkpoint (policy, optimizer, counters)
   follows every evaluation; ``--resume`` continues from it.
7. ``out/final.json`` + ``final.npz`` is the policy; ``out/summary.json`` the run's figures,
   including its throughput: env decisions and learner decisions per second, whole run.

Every game: learning stops after its ``minutes`` (``--max-minutes``; issue 24 allows one
``baralho train ENV_ID`` an hour, the final evaluation included) or 50M env decisions
(``--timesteps``; Scala 40's 100M, so its clock binds), whichever comes first, then the final
evaluation and save. Per-game defaults (``DEFAULTS``; flags override):

| env | engine | envs | rollout | net | gamma | epochs | self / heur / league | warm start | prior | shaping | lr/ent/clip | minutes |
|---|---|---:|---:|---|---:|---:|---|---|---|---:|---|---:|
| rodizio_v1 | compiled | 1024 | 16 | 128x128 | 0.99 | 2 | 0.3 / 0.5 / 0.2 | heuristic | none | 0 | 0.0001/0/0.1 | 18 |
| chuche_v1 | compiled | 256 | 16 | 256x256 symlog | 0.995 | 1 | 0.3 / 0.5 / 0.2 | none | none | 0 | 0.0003/0.01/0.2 | 18 |
| roda_de_samba_v1 | compiled | 512 | 16 | 128x128 symlog | 0.995 | 1 | 0.3 / 0.5 / 0.2 | none | heuristic | 1 | 0.0003/0/0.2 | 50 |
| scala40_v1 | compiled | 512 | 16 | 128x128 symlog | 0.98 | 1 | 0.3 / 0.5 / 0.2 | none | heuristic | 1 | 0.0003/0/0.2 | 55 |

How these defaults were found (every trial, with its figures) is in
``benchmarks/TRAINING_NOTES.md``; what the shipped policies reach, in their model cards.

With a warm start the policy first imitates the heuristic on ``warm_start_steps``
decisions (it plays every seat of the batch; behaviour cloning with
``training.warm_start.fit``), and PPO starts from that clone with gentler steps (GENTLE: the
last column with a warm start; ``--warm-start none`` turns both off): the
``--algo sb3`` path measured that lr 3e-4 with an entropy bonus pulls a clone away from
the heuristic in its first updates (``training/train.py``, FINE_TUNING).
"""

from __future__ import annotations

import copy
import json
import math
import os
import time
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

import numpy as np

import baralho
import baralho.vector as bv
from baralho.agents.policy import INPUTS, PRIORS, hint_onehot, logits_of
from baralho.envs import ENV_IDS, game_module, has_module
from baralho.training.batch_policy import act_on, inputs, masked, moves_on, rows_of
from baralho.training.checkpoint import load_checkpoint, save_checkpoint
from baralho.training.seatbook import SeatBook
from baralho.training.stats import wilson_interval
from baralho.training.tournament import is_win
from baralho.vector.heuristic import BatchHeuristic

RUN_FILES = ("pool", "checkpoint", "tb", "final.json", "final.npz", "summary.json", "run.json")


@dataclass
class SelfPlayConfig:
    env_id: str = "rodizio_v1"
    env_config: dict = field(default_factory=dict)
    seed: int = 0
    engine: str | None = None          # None: compiled where the game has one
    num_envs: int = 64
    rollout: int = 64                  # env steps per env between updates
    decisions: int = 50_000_000        # budget: env decisions (every seat's) stepped
    max_minutes: float | None = 18.0   # wall budget of this invocation, warm start and evals included;
                                       # the final evaluation and save follow (issue 24: four games back to back)
    learning_rate: float = 3e-4
    gamma: float = 0.99
    gae_lambda: float = 0.95
    clip_range: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    epochs: int = 4
    minibatch: int = 2048
    net_arch: tuple[int, ...] = (256, 256)
    inputs: str = "raw"                # "symlog": each input scaled to [-1, 1] (agents/policy.py symlog_inputs)
    prior: str = "none"                # "heuristic": the logits get prior_weight on the heuristic's move
    prior_weight: float = 4.0          # (agents/policy.py hinted_logits); its starting value, then learned
    critic_warmup: int = 0             # decisions at the start during which only the value net learns
    self_share: float = 0.5            # of new games: every seat is the learner
    heuristic_share: float = 0.1       # of new games: the heuristic plays the other seats
    league_size: int = 8               # the rest: a league snapshot plays them (self-play while it is empty)
    snapshot_every: int = 250_000      # 0: no league
    eval_every: int = 500_000          # 0: evaluate at the end only
    eval_games: int = 300              # deals, each played from every seat
    warm_start: str | None = None      # "heuristic" or None
    init: str | None = None            # a policy file to start from ("zoo": the env's), its architecture
                                       # and prior; then no warm start (None: a fresh net)
    shaping: float = 0.0               # weight of the score-margin potential (the game's shaping.py; 0: off)
    warm_start_steps: int = 100_000
    warm_start_epochs: int = 5
    torch_threads: int = 2
    out: str = "runs/selfplay"
    resume: bool = False
    overwrite: bool = False
    progress: bool = True


# The table in the module docstring shows these (a test keeps the two in step).
GENTLE = dict(learning_rate=1e-4, ent_coef=0.0, clip_range=0.1)     # PPO after a warm start
DEFAULTS: dict[str, dict] = {
    # measured: see the docstring; 2 epochs of 4096 because the update was 70% of Rodízio's time
    "rodizio_v1": dict(num_envs=1024, rollout=16, net_arch=(128, 128), gamma=0.99, epochs=2, minibatch=4096,
                       self_share=0.3, heuristic_share=0.5, warm_start="heuristic"),
    "chuche_v1": dict(num_envs=256, rollout=16, net_arch=(256, 256), inputs="symlog", gamma=0.995, epochs=1,
                      self_share=0.3, heuristic_share=0.5),
    # the heuristic prior and a critic warm-up, as GENTLE steps left the policy where it began; 1 epoch of 512
    # at 128x128 (4 epochs at 256x256 learned as well, at 0.4x the decisions per second);
    # the fame margin as a potential: without it PPO kept the heuristic's level
    "roda_de_samba_v1": dict(num_envs=512, rollout=16, net_arch=(128, 128), inputs="symlog", gamma=0.995,
                             epochs=1, minibatch=512, self_share=0.3, heuristic_share=0.5, prior="heuristic",
                             critic_warmup=400_000, learning_rate=3e-4, ent_coef=0.0, clip_range=0.2,
                             shaping=1.0, max_minutes=50.0, eval_every=6_000_000),   # a 600-game evaluation: ~1.5 min
    "scala40_v1": dict(num_envs=512, rollout=16, net_arch=(128, 128), inputs="symlog", gamma=0.98, epochs=1,
                       minibatch=512, self_share=0.3, heuristic_share=0.5, prior="heuristic",
                       critic_warmup=400_000, learning_rate=3e-4, ent_coef=0.0, clip_range=0.2, shaping=1.0,
                       decisions=100_000_000, max_minutes=55.0, eval_every=10_000_000),   # the clock binds
}


def config_for(env_id: str, **overrides) -> SelfPlayConfig:
    """SelfPlayConfig's settings, then the game's DEFAULTS, then (with a warm start) GENTLE,
    then ``overrides`` (None values ignored; ``warm_start="none"`` turns a default one off)."""
    cfg = SelfPlayConfig(env_id=env_id)
    given = {k: v for k, v in overrides.items() if v is not None}
    settings = {**DEFAULTS.get(env_id, {}), **given}
    if settings.get("warm_start") == "none":
        settings["warm_start"] = given["warm_start"] = None
    if (settings.get("prior") == "heuristic" or settings.get("init")) and "warm_start" not in given:
        settings["warm_start"] = None           # the prior (or the init) starts at the heuristic's moves: no clone first
    if settings.get("warm_start"):
        settings = {**DEFAULTS.get(env_id, {}), **GENTLE, **given}
    for key, value in settings.items():
        if not hasattr(cfg, key):
            raise ValueError(f"unknown self-play setting {key!r}")
        setattr(cfg, key, value)
    check(cfg)
    return cfg


def check(cfg: SelfPlayConfig) -> None:
    """Refuse settings that cannot work, before anything starts."""
    if cfg.env_id not in baralho.ENV_IDS:
        raise ValueError(f"unknown env {cfg.env_id!r}; have {baralho.ENV_IDS}")
    for key in ("num_envs", "rollout", "decisions", "epochs", "minibatch", "eval_games", "torch_threads",
                "warm_start_steps", "warm_start_epochs"):
        if not isinstance(getattr(cfg, key), int) or getattr(cfg, key) < 1:
            raise ValueError(f"{key} must be a positive integer, got {getattr(cfg, key)!r}")
    for key in ("snapshot_every", "eval_every", "league_size", "critic_warmup"):
        if not isinstance(getattr(cfg, key), int) or getattr(cfg, key) < 0:
            raise ValueError(f"{key} must be an integer >= 0 (0: never), got {getattr(cfg, key)!r}")
    if isinstance(cfg.seed, bool) or not isinstance(cfg.seed, int) or not 0 <= cfg.seed < 2**32:
        raise ValueError(f"seed must be an integer in [0, 2**32), got {cfg.seed!r} (--seed)")
    floats = ("learning_rate", "gamma", "gae_lambda", "clip_range", "ent_coef", "vf_coef", "max_grad_norm",
              "self_share", "heuristic_share", "shaping", "prior_weight")
    for key in floats:        # nan passes every comparison below as False, inf most of them: refuse both first
        value = getattr(cfg, key)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise ValueError(f"{key} must be a finite number, got {value!r} (--{key.replace('_', '-')})")
    if cfg.max_minutes is not None and not (isinstance(cfg.max_minutes, (int, float))
                                            and math.isfinite(cfg.max_minutes) and cfg.max_minutes > 0):
        raise ValueError(f"max_minutes must be a number of minutes > 0 (or None: no limit), got "
                         f"{cfg.max_minutes!r} (--max-minutes)")
    if not (cfg.vf_coef >= 0 and cfg.max_grad_norm > 0):
        raise ValueError(f"need vf_coef >= 0 and max_grad_norm > 0, got {cfg.vf_coef} and {cfg.max_grad_norm}")
    if not (0 <= cfg.self_share and 0 <= cfg.heuristic_share and cfg.self_share + cfg.heuristic_share <= 1):
        raise ValueError(f"need self_share, heuristic_share >= 0 with a sum <= 1 (the rest is the league), "
                         f"got {cfg.self_share} and {cfg.heuristic_share}")
    if not (0 < cfg.clip_range <= 1 and cfg.learning_rate > 0 and cfg.ent_coef >= 0
            and 0 < cfg.gamma <= 1 and 0 <= cfg.gae_lambda <= 1):
        raise ValueError("need 0 < clip_range <= 1, learning_rate > 0, ent_coef >= 0, 0 < gamma <= 1, "
                         "0 <= gae_lambda <= 1")
    if not (isinstance(cfg.shaping, (int, float)) and cfg.shaping >= 0):
        raise ValueError(f"shaping must be a number >= 0 (0: off), got {cfg.shaping!r}")
    if cfg.shaping and not has_module(cfg.env_id, "shaping"):
        have = [e for e in ENV_IDS if has_module(e, "shaping")]
        raise ValueError(f"shaping: no score-margin potential for {cfg.env_id!r} (its folder has no "
                         f"shaping.py); have {have}")
    if cfg.inputs not in INPUTS:
        raise ValueError(f"inputs must be one of {INPUTS}, got {cfg.inputs!r}")
    if cfg.prior not in PRIORS:
        raise ValueError(f"prior must be one of {PRIORS}, got {cfg.prior!r}")
    if not (isinstance(cfg.prior_weight, (int, float)) and 0 < cfg.prior_weight < 50):
        raise ValueError(f"prior_weight must be a number in (0, 50), got {cfg.prior_weight!r}")
    if cfg.prior == "heuristic" and cfg.warm_start:
        raise ValueError("prior='heuristic' already starts at the heuristic's moves: no warm start with it "
                         "(--warm-start none)")
    if cfg.init is not None and cfg.warm_start:
        raise ValueError("init starts from a trained policy: no warm start with it (--warm-start none)")
    if cfg.warm_start not in (None, "heuristic"):
        raise ValueError(f"warm_start must be 'heuristic' or None, got {cfg.warm_start!r}")




# --- opponents, evaluation --------------------------------------------------------------

def evaluate(policy, cfg: SelfPlayConfig, deals: int, seed: int) -> dict:
    """``policy`` (deterministic; None: the heuristic itself) against the heuristic in every
    other seat, on ``deals`` deals from every seat; wins with a Wilson 95% CI."""
    wins = games = 0
    hinted = policy is not None and policy.baralho_prior == "heuristic"
    for learner in range(baralho.make(cfg.env_id, **cfg.env_config).unwrapped.game.num_players):
        venv = bv.make(cfg.env_id, deals, seed, engine=cfg.engine, **cfg.env_config)   # same deals each seat
        obs, mask, seat = venv.reset()
        heuristic = BatchHeuristic(venv.game, deals, seed)
        totals = np.zeros((deals, venv.num_players))
        finished = np.zeros(deals, bool)
        while not finished.all():
            action = mask.argmax(1).astype(np.int64)       # finished envs (re-dealt) idle on a legal move
            playing = np.flatnonzero(~finished)
            mine = np.flatnonzero(~finished & (seat == learner)) if policy is not None else np.array([], int)
            # the heuristic's move everywhere it plays, and where the policy takes its hint
            asked = playing if hinted else np.setdiff1d(playing, mine)
            action[asked] = heuristic.act(asked, obs, mask)
            if len(mine):
                hint = action.copy()
                action[mine] = moves_on(policy, *inputs(policy, obs[mine], hint[mine] if hinted else None),
                                        mask[mine], deterministic=True)
                if hinted:
                    heuristic.forget(mine[action[mine] != hint[mine]])
            obs, mask, seat, rewards, done = venv.step(action)
            totals[~finished] += rewards[~finished]
            finished |= done
        wins += sum(is_win(totals[b].tolist(), learner) for b in range(deals))
        games += deals
    low, high = wilson_interval(wins, games)
    return dict(win_rate=wins / games, ci_low=low, ci_high=high, games=games)


# --- warm start: clone the heuristic, every seat of the batch ------------------------------

def clone_heuristic(policy, cfg: SelfPlayConfig, log) -> dict:
    """Behaviour cloning: the heuristic plays every seat; whole games are kept, each decision
    with its seat's discounted return (the critic's target); then warm_start.fit."""
    from baralho.training.warm_start import Demonstrations, fit

    log(f"warm start: the heuristic plays every seat of {cfg.num_envs} envs for {cfg.warm_start_steps:,} "
        f"decisions (whole games)")
    venv = bv.make(cfg.env_id, cfg.num_envs, cfg.seed + 30_000, engine=cfg.engine, **cfg.env_config)
    obs, mask, seat = venv.reset()
    heuristic = BatchHeuristic(venv.game, cfg.num_envs, cfg.seed + 30_000)
    games = [[] for _ in range(cfg.num_envs)]      # per env: (obs, mask, action, seat) of this game
    rows, episodes = [], 0
    everyone = np.arange(cfg.num_envs)
    while sum(len(r[0]) for r in rows) < cfg.warm_start_steps:
        action = heuristic.act(everyone, obs, mask)
        for b in everyone:
            games[b].append((obs[b], mask[b], action[b], seat[b], np.zeros(venv.num_players)))
        obs_next, mask, seat_next, rewards, done = venv.step(action)
        for b in everyone:
            games[b][-1][4][:] = rewards[b]
            if done[b]:
                o, m, a, s, r = map(np.array, zip(*games[b]))
                ret = np.zeros(len(a), np.float32)
                tail = np.zeros(venv.num_players)
                for t in range(len(a) - 1, -1, -1):     # a seat's return, discounted over its own decisions
                    tail += r[t]
                    ret[t] = tail[s[t]]
                    tail[s[t]] *= cfg.gamma
                rows.append((o, m, a, ret, np.full(len(a), episodes)))
                episodes += 1
                games[b] = []
        obs, seat = obs_next, seat_next
    o, m, a, ret, ep = (np.concatenate(c) for c in zip(*rows))
    # observations stay in the env's dtype (Scala 40: int8, a quarter of float32's memory);
    # the SB3 policy casts them to float on the way in
    demos = Demonstrations(o, m.astype(bool), a.astype(np.int64), ret, ep)
    train, held_out = demos.split(0.05)
    history = fit(policy, train, held_out, cfg.warm_start_epochs, 256, 1e-3, 0.5, cfg.seed, log)
    return dict(steps=len(demos), episodes=episodes, accuracy=history[-1]["accuracy"],
                choice_accuracy=history[-1]["choice_accuracy"])


# --- the run ------------------------------------------------------------------------------

def ppo_update(policy, optimizer, book: SeatBook, adv: np.ndarray, cfg: SelfPlayConfig, rng,
               actor: bool = True) -> dict:
    """Clipped PPO epochs over the book's closed decisions (``actor=False``: the value loss only,
    the critic warm-up)."""
    import torch

    rows = np.flatnonzero(book.closed[:book.n])
    keys = ("policy_loss", "value_loss", "entropy", "approx_kl", "clip_fraction")
    if len(rows) == 0:              # nothing closed yet (long games, a short rollout): no step
        return dict(dict.fromkeys(keys, 0.0), decisions=0)
    onehot = hint_onehot(policy, book.hint[rows])         # hint -1: none
    action = torch.as_tensor(book.action[rows])
    old_logp = torch.as_tensor(book.logp[rows])
    advantage = torch.as_tensor(adv[rows])
    target = advantage + torch.as_tensor(book.value[rows])       # the lambda-return
    stats = []
    for _ in range(cfg.epochs):
        for mb in np.array_split(rng.permutation(len(rows)), max(1, len(rows) // cfg.minibatch)):
            features = torch.from_numpy(book.x[rows[mb]])    # one gather from the book, per minibatch
            logits, latent_vf = logits_of(policy, features, None if onehot is None else onehot[mb])
            logits = masked(logits, book.mask[rows[mb]])
            values = policy.value_net(latent_vf).squeeze(-1)
            logits = logits.log_softmax(-1)       # Categorical's log_prob and entropy, without its logsumexp
            logp = logits.gather(-1, action[mb].unsqueeze(-1)).squeeze(-1)
            ratio = (logp - old_logp[mb]).exp()
            a = advantage[mb]
            a = (a - a.mean()) / (a.std() + 1e-8) if len(mb) > 1 else a
            pg_loss = torch.max(-a * ratio, -a * ratio.clamp(1 - cfg.clip_range, 1 + cfg.clip_range)).mean()
            v_loss = 0.5 * ((values - target[mb]) ** 2).mean()
            entropy = -(logits.exp() * logits).sum(-1).mean()     # a masked action: 0 * -1e8 adds 0
            loss = cfg.vf_coef * v_loss + ((pg_loss - cfg.ent_coef * entropy) if actor else 0.0)
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), cfg.max_grad_norm)
            optimizer.step()
            with torch.no_grad():
                kl = ((ratio - 1) - (logp - old_logp[mb])).mean()
                clipped = ((ratio - 1).abs() > cfg.clip_range).float().mean()
            stats.append((pg_loss.item(), v_loss.item(), entropy.item(), kl.item(), clipped.item()))
    return dict(zip(keys, np.mean(stats, axis=0).tolist()), decisions=len(rows))


class TrainingDiverged(ValueError):
    """The loss or the weights became NaN or infinite: the run stops, its last checkpoint kept."""


def diverged(cfg: SelfPlayConfig, out: Path, counters: dict) -> str:
    where = (f"the last good checkpoint ({counters['last_eval']:,} decisions) is {out / 'checkpoint'}: "
             f"--resume --out {out} with a lower --learning-rate continues from it"
             if counters["evals"] else f"no checkpoint was written yet: run again with --overwrite --out {out}")
    return (f"{cfg.env_id}: the loss or the weights became NaN or infinite in update {counters['updates'] + 1} "
            f"(learning_rate {cfg.learning_rate:g}, clip_range {cfg.clip_range:g}); training stopped and no final "
            f"policy was saved; {where}")


def train(cfg: SelfPlayConfig) -> Path:
    import torch
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
    from torch.utils.tensorboard import SummaryWriter

    from baralho.agents.policy import architecture_of, build_policy, load_policy, read_card, save_policy
    from baralho.training.train import claim_out, pool_snapshots

    check(cfg)
    start = time.perf_counter()
    torch.set_num_threads(cfg.torch_threads)
    torch.manual_seed(cfg.seed)
    out = Path(cfg.out)
    baralho.make(cfg.env_id, **cfg.env_config)            # a bad config fails before --out is claimed
    policy = card = None
    if cfg.init is not None and not cfg.resume:           # and a bad --init
        from baralho.zoo import load_init

        policy, card = load_init(cfg.init, cfg.env_id, cfg.env_config)
    manifest = claim_out(cfg, run_files=RUN_FILES, algo="selfplay")
    run_id = manifest["run_id"]
    if cfg.resume and (out / "checkpoint" / "policy.json").exists():   # the run's own architecture
        card = read_card(out / "checkpoint" / "policy")
    if card is not None:
        cfg.net_arch, cfg.inputs, cfg.prior = architecture_of(card)
    if policy is None:
        policy = build_policy(cfg.env_id, cfg.env_config, dict(pi=list(cfg.net_arch), vf=list(cfg.net_arch)),
                              inputs=cfg.inputs, prior=cfg.prior, prior_weight=cfg.prior_weight)
    policy.set_training_mode(False)
    # fused: one kernel over every parameter (the per-tensor loop was 5% of a Scala 40 run's samples)
    optimizer = torch.optim.Adam(policy.parameters(), lr=cfg.learning_rate, eps=1e-5, fused=True)
    counters = dict(updates=0, decisions=0, learner_decisions=0, seconds=0.0, snapshots=0,
                    last_snapshot=0, last_eval=0, evals=[], baseline=None, warm_start=None)
    if cfg.resume:
        counters = load_checkpoint(out, policy, optimizer, cfg)
    league = [load_policy(p, cfg.env_id, cfg.env_config)[0]
              for p in pool_snapshots(out, run_id, cfg.env_id, cfg.env_config)[-cfg.league_size:]
              if cfg.league_size]
    writer = SummaryWriter(str(out / "tb"))
    log = print if cfg.progress else (lambda line: None)

    def first_opponent(**origin) -> None:
        """The policy the run starts from joins the league (a snapshot of 0 decisions)."""
        if cfg.league_size:
            counters["snapshots"] += 1
            save_policy(policy, out / "pool" / f"snapshot_{counters['snapshots']:04d}", cfg.env_id,
                        cfg.env_config, run_id=run_id, decisions=0, **origin)
            league.append(copy.deepcopy(policy))

    if cfg.warm_start and not cfg.resume:
        counters["warm_start"] = clone_heuristic(policy, cfg, log)
        policy.set_training_mode(False)
        first_opponent(clone_of="heuristic")          # the clone is the league's first opponent
    if cfg.init is not None and not cfg.resume:       # the trained policy the run starts from, likewise
        first_opponent(init=cfg.init if cfg.init == "zoo" else Path(cfg.init).name)
    if counters["baseline"] is None:            # heuristic vs heuristic on the evaluation deals
        counters["baseline"] = evaluate(None, cfg, cfg.eval_games, cfg.seed + 50_000)
    writer.add_scalar("eval/heuristic_vs_heuristic", counters["baseline"]["win_rate"], counters["decisions"])

    # the batch; a resumed run deals on from a seed of its own
    venv = bv.make(cfg.env_id, cfg.num_envs, cfg.seed + 7919 * counters["updates"], engine=cfg.engine,
                   **cfg.env_config)
    B, P = cfg.num_envs, venv.num_players
    rng = np.random.default_rng([cfg.seed, counters["updates"]])
    obs, mask, seat = venv.reset()
    hinted = cfg.prior == "heuristic"        # every decision takes the heuristic's move as a hint
    everyone = np.arange(B)
    row = np.zeros(B, np.int64)                # env -> its row of this step's net inputs
    heuristic = BatchHeuristic(venv.game, B, cfg.seed) if cfg.heuristic_share > 0 or hinted else None
    phi = game_module(cfg.env_id, "shaping").potential(venv.game.obs_layout, venv.game) if cfg.shaping else None
    role = np.zeros(B, np.int64)               # 0 self-play, -1 heuristic, k > 0 league snapshot k-1
    learner = np.ones((B, P), bool)            # which seats of each env the learner plays
    games = np.zeros(B, np.int64)

    def new_games(envs: np.ndarray) -> None:
        u = rng.random(len(envs))
        role[envs] = np.where(u < cfg.self_share, 0, np.where(u < cfg.self_share + cfg.heuristic_share, -1,
                                                              1 + rng.integers(max(1, len(league)), size=len(envs))))
        if not league:
            role[envs[role[envs] > 0]] = 0
        learner[envs] = role[envs, None] == 0
        learner[envs, rng.integers(P, size=len(envs))] = True
        if heuristic is not None:
            heuristic.reset(envs, cfg.seed * 1_000_003 + envs * 10_007 + games[envs])
        games[envs] += 1

    new_games(np.arange(B))
    pending = np.full((B, P), -1, np.int64)
    capacity = B * (cfg.rollout + P)
    book = SeatBook(capacity, inputs(policy, obs[:1], np.zeros(1, np.int64))[0].shape[1], venv.num_actions)
    split = dict(env=0.0, net=0.0, heuristic=0.0, update=0.0, eval=0.0)
    seconds_before = counters["seconds"]
    progress = Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                        TextColumn("{task.fields[status]}"), TimeElapsedColumn(), disable=not cfg.progress)
    task = progress.add_task(f"{cfg.env_id} self-play", total=cfg.decisions, completed=counters["decisions"],
                             status="")

    status, interrupted = "", False

    def out_of_time() -> bool:
        return cfg.max_minutes is not None and time.perf_counter() - start > 60 * cfg.max_minutes

    def evaluate_and_checkpoint(step: int) -> str:
        t0 = time.perf_counter()
        result = dict(decisions=step, **evaluate(policy, cfg, cfg.eval_games, cfg.seed + 50_000),
                      minutes=(time.perf_counter() - start) / 60,
                      load_average=os.getloadavg()[0])    # the model card says what else was running
        split["eval"] += time.perf_counter() - t0
        counters["evals"].append(result)
        counters["last_eval"] = step
        for key in ("win_rate", "ci_low", "ci_high"):
            writer.add_scalar(f"eval/{key}_vs_heuristic", result[key], step)
        counters["seconds"] = seconds_before + time.perf_counter() - start
        counters["policy_card"] = dict(decisions=step)
        save_checkpoint(out, policy, optimizer, counters, cfg, run_id)
        line = f"vs heuristic {result['win_rate']:.3f} [{result['ci_low']:.3f}, {result['ci_high']:.3f}]"
        if cfg.progress:
            progress.console.print(f"{step:,} decisions: {line} over {result['games']} games", highlight=False)
        return line

    progress.start()
    try:
        while counters["decisions"] < cfg.decisions and not out_of_time():
            # 1. rollout: every env steps cfg.rollout times
            for _ in range(cfg.rollout):
                t0 = time.perf_counter()
                mine = learner[np.arange(B), seat]
                # the heuristic's move where it plays the seat, and everywhere when the policy takes it as a hint
                asked = everyone if hinted else np.flatnonzero(~mine & (role == -1))
                hint = np.full(B, -1, np.int64)     # -1 where not asked: no hint (so none without the prior)
                hint[asked] = heuristic.act(asked, obs, mask)
                action = hint.copy()
                t1 = time.perf_counter()
                # the nets' inputs once: the learner's straight into the book, the league's apart
                envs = np.flatnonzero(mine)
                x, onehot = inputs(policy, obs[envs], hint[envs], out=book.inputs_of_next(len(envs)))
                a, logp, value = act_on(policy, x, onehot, mask[envs])
                action[envs] = a
                book.decide(pending, envs, seat[envs], None, mask[envs], a, logp, value,
                            None if phi is None else cfg.shaping * phi(obs[envs]), hint[envs])
                netted = np.flatnonzero(~mine & (role > 0))
                if len(netted):
                    x, onehot = inputs(policy, obs[netted], hint[netted])
                    row[netted] = np.arange(len(netted))
                for k, snapshot in enumerate(league):
                    theirs = netted[role[netted] == k + 1]
                    if len(theirs):
                        action[theirs] = moves_on(snapshot, *rows_of(x, onehot, row[theirs]), mask[theirs])
                if hinted:
                    heuristic.forget(np.flatnonzero(action != hint))
                t2 = time.perf_counter()
                obs, mask, seat, rewards, done = venv.step(action)
                book.credit(pending, rewards, done)
                if done.any():
                    new_games(np.flatnonzero(done))
                split["heuristic"] += t1 - t0
                split["net"] += t2 - t1
                split["env"] += time.perf_counter() - t2
            counters["decisions"] += B * cfg.rollout

            # 2. PPO on the decisions whose outcome is known; the open ones wait
            t0 = time.perf_counter()
            policy.set_training_mode(True)
            stats = ppo_update(policy, optimizer, book, book.advantages(cfg.gamma, cfg.gae_lambda), cfg, rng,
                               actor=counters["decisions"] > cfg.critic_warmup)
            policy.set_training_mode(False)
            if not (all(map(math.isfinite, stats.values())) and all(bool(w.isfinite().all()) for w in policy.parameters())):
                raise TrainingDiverged(diverged(cfg, out, counters))
            book = book.carry(pending, capacity)
            counters["updates"] += 1
            counters["learner_decisions"] += stats["decisions"]
            split["update"] += time.perf_counter() - t0
            step = counters["decisions"]
            for key, value in stats.items():
                writer.add_scalar(f"ppo/{key}", value, step)
            elapsed = seconds_before + time.perf_counter() - start
            writer.add_scalar("throughput/decisions_per_s", step / max(elapsed, 1e-9), step)
            writer.add_scalar("throughput/learner_decisions", counters["learner_decisions"], step)
            writer.add_scalar("league/size", len(league), step)

            # 3. the league, evaluation and a checkpoint
            if cfg.snapshot_every and step - counters["last_snapshot"] >= cfg.snapshot_every:
                counters["snapshots"] += 1
                counters["last_snapshot"] = step
                save_policy(policy, out / "pool" / f"snapshot_{counters['snapshots']:04d}", cfg.env_id,
                            cfg.env_config, run_id=run_id, decisions=step)
                # the newest league_size play; when the oldest leaves, games it was playing
                # go on against the next one (roles index the list)
                league = (league + [copy.deepcopy(policy)])[-cfg.league_size:] if cfg.league_size else []
            last = step >= cfg.decisions or out_of_time()
            if (cfg.eval_every and step - counters["last_eval"] >= cfg.eval_every) or last:
                status = evaluate_and_checkpoint(step)
            progress.update(task, completed=min(step, cfg.decisions),
                            status=f"{status} · {step / max(elapsed, 1e-9):,.0f} decisions/s")
    except KeyboardInterrupt:       # Ctrl-C: stop learning (a rollout cut short is dropped), keep the rest
        interrupted = True
        progress.stop()
        print(f"\ninterrupted at {counters['decisions']:,} decisions: evaluating and saving the policy so far",
              flush=True)
        evaluate_and_checkpoint(counters["decisions"])
    finally:
        progress.stop()
    policy.set_training_mode(False)
    writer.close()

    # 4. the policy and the run's figures
    counters["seconds"] = seconds_before + time.perf_counter() - start
    save_policy(policy, out / "final", cfg.env_id, cfg.env_config, run_id=run_id, decisions=counters["decisions"])
    summary = dict(config={**asdict(cfg), "net_arch": list(cfg.net_arch)}, engine=venv.engine,
                   decisions=counters["decisions"], learner_decisions=counters["learner_decisions"],
                   updates=counters["updates"], wall_seconds=counters["seconds"],
                   decisions_per_second=counters["decisions"] / max(counters["seconds"], 1e-9),
                   learner_decisions_per_second=counters["learner_decisions"] / max(counters["seconds"], 1e-9),
                   seconds_this_invocation=split, baseline=counters["baseline"],
                   final=counters["evals"][-1] if counters["evals"] else None, evals=counters["evals"],
                   warm_start=counters["warm_start"], interrupted=interrupted)
    (out / "summary.json").write_text(json.dumps(summary, indent=1))
    return out


# --- the command line: one flag per SelfPlayConfig field -------------------------------------

#: flags shared with ``--algo sb3`` that name a field otherwise (sb3 counts timesteps)
FLAG_OF = {"decisions": "timesteps"}
#: what the generated flags mean (the flags shared with sb3 have their help in cli.py)
HELP = dict(rollout="env steps per env between updates", gamma="discount", gae_lambda="GAE's lambda",
            vf_coef="value loss weight", max_grad_norm="gradient clipping norm", epochs="PPO epochs per update",
            minibatch="PPO minibatch size", net_arch="hidden layer sizes of the policy and value nets",
            prior_weight="with --prior heuristic: the bonus's starting value",
            init="a policy file to start from ('zoo': the env's zoo policy; its architecture and prior; "
                 "no warm start then; default: a fresh net)",
            critic_warmup="decisions at the start during which only the value net learns",
            self_share="share of new games where every seat is the learner",
            heuristic_share="share of new games where the heuristic plays the other seats (the rest: the league)",
            league_size="frozen snapshots that play (0: no league)", torch_threads="torch's CPU threads")
#: fields set otherwise: the positional env, ``--config KEY=VALUE``, ``--quiet``
NOT_FLAGS = ("env_id", "env_config", "progress")


def add_flags(parser, config=None, helps: dict | None = None, trainer: str = "selfplay") -> list[str]:
    """Give ``parser`` (``baralho train``'s) a ``--flag`` for every field of ``config`` (a trainer's
    config dataclass: SelfPlayConfig, exit.ExitConfig) it does not have yet, of the field's type
    (the value is checked by the trainer's ``check``); returns their names, which the other
    trainers refuse."""
    taken = {a.dest: a for a in parser._actions}
    added = []
    config, helps = config or SelfPlayConfig, HELP if helps is None else helps
    where = "per game, DEFAULTS in training/selfplay.py" if trainer == "selfplay" else f"training/{trainer}.py"
    for f in fields(config):
        if f.name in NOT_FLAGS:
            continue
        kind = str(f.type)
        parse = None if kind == "bool" else int if kind.startswith(("int", "tuple[int")) else \
            float if kind.startswith("float") else str
        shared = taken.get(FLAG_OF.get(f.name, f.name))
        if shared is not None:
            # two trainers share a flag by name: it must take one kind of value for both (a word here
            # and a number there would be refused by argparse before the trainer sees it)
            if parse is not None and (parse is str) != (shared.type in (None, str)):
                raise TypeError(f"{config.__name__}.{f.name} takes a {kind} but --{shared.dest.replace('_', '-')}, "
                                f"which it shares, parses another kind of value: rename the field")
            continue
        opts = dict(dest=f.name, default=None,
                    help=f"{trainer}: {helps.get(f.name, f.name)} (default: {where})")
        if parse is None:
            opts.update(action="store_true")
        elif kind.startswith("tuple[int"):
            opts.update(type=int, nargs="+", metavar="N")
        else:
            opts.update(type=parse)
        parser.add_argument(f"--{f.name.replace('_', '-')}", **opts)
        added.append(f.name)
    return added


def settings_of(args, config=None) -> dict:
    """The fields of ``config`` (default SelfPlayConfig) the command line gave (flag values, by field name)."""
    given = {f.name: getattr(args, FLAG_OF.get(f.name, f.name), None) for f in fields(config or SelfPlayConfig)
             if f.name not in NOT_FLAGS}
    if given.get("net_arch") is not None:
        given["net_arch"] = tuple(given["net_arch"])
    return {k: v for k, v in given.items() if v is not None and v is not False}


def command_line(args, config=None) -> str:
    """The ``baralho train`` command of the flags given (the fields of ``config``, default
    SelfPlayConfig), as a model card quotes it."""
    words = ["baralho", "train", args.env_id] + (["--algo", args.algo] if getattr(args, "algo", None) not in
                                                 (None, "selfplay") else [])
    for name, value in settings_of(args, config).items():
        if name == "out":          # the user's folder: a card names no path of the machine that trained it
            continue
        values = value if isinstance(value, tuple) else () if value is True else (value,)
        words += [f"--{FLAG_OF.get(name, name).replace('_', '-')}", *map(str, values)]
    if args.config:
        words += ["--config", *(f"{k}={json.dumps(v)}" for k, v in args.config.items())]
    return " ".join(words)


def main(args) -> int:
    """``baralho train ENV --algo selfplay``: the CLI flags onto SelfPlayConfig."""
    cfg = config_for(args.env_id, env_config=args.config, progress=not args.quiet, **settings_of(args))
    out = train(cfg)
    s = json.loads((out / "summary.json").read_text())
    s["command"] = command_line(args)             # for the model card (zoo/ship.py)
    (out / "summary.json").write_text(json.dumps(s, indent=1))
    final, base = s["final"], s["baseline"]
    print(f"\n{cfg.env_id}: {s['decisions']:,} decisions ({s['learner_decisions']:,} learned from) in "
          f"{s['wall_seconds']:.0f} s{' (interrupted)' if s['interrupted'] else ''}, "
          f"{s['decisions_per_second']:,.0f} decisions/s; policy {out / 'final.json'}")
    if final:
        print(f"vs heuristic over {final['games']} games: {final['win_rate']:.3f} "
              f"[{final['ci_low']:.3f}, {final['ci_high']:.3f}]; heuristic vs heuristic {base['win_rate']:.3f}")
    return 130 if s["interrupted"] else 0
