"""Self-play training with sb3-contrib's MaskablePPO, top to bottom.

    baralho train rodizio_v1 --timesteps 200000 --seed 0

1. Vectorised single-agent envs (SubprocVecEnv on both cores): the learner
   takes a random seat each episode against a pool of opponents — the
   baselines (random, heuristic) plus frozen snapshots of itself.
2. MaskablePPO with the per-game defaults below (override by flags).
   With ``--warm-start heuristic`` the policy first imitates the heuristic
   (behaviour cloning, training/warm_start.py) and PPO then fine-tunes it with
   gentler settings (FINE_TUNING); the warm start's time counts in ``--max-minutes``.
3. Callbacks: every ``--snapshot-every`` steps a snapshot joins the pool;
   every ``--eval-every`` steps the policy plays ``--eval-games`` games against
   random and against the heuristic (win rates logged to TensorBoard and kept
   for the learning curve); MaskableEvalCallback keeps the best model against
   the heuristic; CheckpointCallback saves checkpoints.
4. The final policy (``final.json`` + ``final.npz``, weights only: what ``ppo:`` loads;
   ``final.zip`` beside it is SB3's own, pickle-bearing, never loaded by baralho),
   ``curve.json`` and ``curve.png`` go to ``--out``.

``--out`` belongs to one run: ``run.json`` (its manifest) names the run, env and config,
and every snapshot's card names its run. Another run's folder (or a folder with files
but no manifest) is refused unless ``--overwrite`` (which clears it) or, for the same
run, ``--resume`` (which starts from its latest policy and keeps its pool). Only this
run's snapshots, for this env and config, join the pool.
"""

from __future__ import annotations

import json
import shutil
import time
import uuid
import warnings
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

import baralho
from baralho.training.progress import Bar, sb3_progress
from baralho.training.single_agent import SingleAgentEnv
from baralho.training.stats import wilson_interval
from baralho.training.tournament import is_win
from baralho.training.warm_start import warm_start


@dataclass
class TrainConfig:
    env_id: str = "rodizio_v1"
    timesteps: int = 200_000
    seed: int = 0
    num_envs: int = 2
    vec: str = "subproc"          # "subproc" (one process per env) or "dummy" (in process)
    env_config: dict = field(default_factory=dict)
    opponents: tuple[str, ...] = ("random", "heuristic")
    snapshot_every: int = 20_000
    pool_size: int = 5
    self_play_weight: float = 1.0
    eval_every: int = 20_000
    eval_games: int = 200
    learning_rate: float = 3e-4
    n_steps: int = 1024
    batch_size: int = 256
    n_epochs: int = 10
    gamma: float = 0.99
    ent_coef: float = 0.01
    clip_range: float = 0.2
    opponent_weights: tuple[float, ...] | None = None   # draw weights of ``opponents`` (default: equal)
    warm_start: str | None = None      # an agent spec to imitate before PPO ("heuristic"), or None
    warm_start_steps: int = 100_000    # decisions of it to collect
    warm_start_epochs: int = 10        # supervised passes over them
    net_arch: tuple[int, ...] = (256, 256)
    max_minutes: float | None = None   # wall-clock budget: learning stops there (issue 7: runs of at most 1 h)
    out: str = "runs/train"
    progress_bar: bool = True
    overwrite: bool = False            # clear another run's --out folder instead of refusing it
    resume: bool = False               # continue the run recorded in --out (same env and config)


# Per-game defaults (CLI flags override); documented in README. "fine_tuning" replaces
# FINE_TUNING's settings for that game when the run starts with a warm start.
DEFAULTS: dict[str, dict] = {
    "rodizio_v1": dict(timesteps=300_000, n_steps=512, batch_size=256, net_arch=(128, 128)),
    # a 2,646-wide observation: a 128-wide first layer keeps the shipped policy ~3 MB
    "scala40_v1": dict(net_arch=(128, 128)),
}

# PPO after a warm start: the defaults above (lr 3e-4, entropy bonus 0.01, clip 0.2) are
# made to explore from a random policy and pull a cloned one away from the heuristic in
# the first updates; these keep the steps small and put more weight on the heuristic.
# Measured on roda_de_samba_v1 (one policy cloned from 100k heuristic decisions, 10 epochs:
# 0.99 vs random, 0.12 vs heuristic over 100 games), then 3 minutes of PPO (~40k steps,
# 2 dummy envs, one core) and the same 100 games: lr 3e-4, ent 0.01, clip 0.2, equal
# weights -> 0.02 vs heuristic (collapsed); lr 3e-4, ent 0, clip 0.1, heuristic x3 -> 0.04;
# lr 1e-4, ent 0, clip 0.1, heuristic x3 -> 0.13 (kept). All three kept 0.98-0.99 vs random.
FINE_TUNING: dict = dict(learning_rate=1e-4, ent_coef=0.0, clip_range=0.1, opponent_weights=(1.0, 3.0))


def config_for(env_id: str, warm_start: str | None = None, **overrides) -> TrainConfig:
    """The run's settings: TrainConfig's, then the game's DEFAULTS, then (with a warm start)
    the fine-tuning ones, then ``overrides`` (None values are ignored)."""
    cfg = TrainConfig(env_id=env_id, warm_start=warm_start)
    defaults = dict(DEFAULTS.get(env_id, {}))
    fine_tuning = {**FINE_TUNING, **defaults.pop("fine_tuning", {})}
    overrides = {key: value for key, value in overrides.items() if value is not None}
    for key, value in {**defaults, **(fine_tuning if warm_start else {}), **overrides}.items():
        setattr(cfg, key, value)
    return cfg


def check(cfg: TrainConfig) -> None:
    """Refuse settings that cannot work, with a clear error, before anything starts."""
    if cfg.warm_start is not None:
        if cfg.warm_start_steps < 1 or cfg.warm_start_epochs < 1:
            raise ValueError(f"a warm start needs warm_start_steps >= 1 and warm_start_epochs >= 1, "
                             f"got {cfg.warm_start_steps} and {cfg.warm_start_epochs}")
    if cfg.opponent_weights is not None and (len(cfg.opponent_weights) != len(cfg.opponents)
                                             or min(cfg.opponent_weights) < 0 or sum(cfg.opponent_weights) <= 0):
        raise ValueError(f"opponent_weights {cfg.opponent_weights} must be one non-negative weight per "
                         f"opponent {cfg.opponents}, not all zero")
    if not 0 < cfg.clip_range <= 1 or cfg.learning_rate <= 0 or cfg.ent_coef < 0:
        raise ValueError(f"need 0 < clip_range <= 1, learning_rate > 0, ent_coef >= 0; got {cfg.clip_range}, "
                         f"{cfg.learning_rate}, {cfg.ent_coef}")


MANIFEST = "run.json"
RUN_FILES = ("pool", "best", "checkpoints", "eval", "tb", "final.json", "final.npz", "final.zip",
             "curve.json", "curve.png", MANIFEST)


def claim_out(cfg, run_files: tuple[str, ...] = RUN_FILES, algo: str = "sb3") -> dict:
    """The manifest of the run in ``cfg.out``: a new one for an empty folder (or with
    ``overwrite``, after clearing the folder's run files), the existing one with ``resume``
    when it is this trainer (``algo``: sb3 here, selfplay in training/selfplay.py), env and
    config; anything else is refused before training starts."""
    out = Path(cfg.out)
    if out.exists() and not out.is_dir():
        raise ValueError(f"--out {out} is a file, not a folder")
    path = out / MANIFEST
    try:
        old = json.loads(path.read_text()) if path.exists() else None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise ValueError(f"{path}: unreadable run manifest ({err}); pass --overwrite to start afresh") from None
    if cfg.resume:
        if not isinstance(old, dict) or "run_id" not in old:
            raise ValueError(f"--resume: {out} holds no run to continue (no {MANIFEST})")
        if (old.get("env_id"), old.get("env_config")) != (cfg.env_id, cfg.env_config):
            raise ValueError(f"--resume: {out} is a run of {old.get('env_id')} {old.get('env_config')}, "
                             f"not {cfg.env_id} {cfg.env_config}")
        if old.get("algo", "sb3") != algo:
            raise ValueError(f"--resume: {out} is a run of --algo {old.get('algo', 'sb3')}, not {algo}")
        return old
    used = [p.name for p in out.iterdir() if p.name in run_files or p.name in RUN_FILES] if out.is_dir() else []
    if used and not cfg.overwrite:
        what = (f"run {old.get('run_id')} of {old.get('env_id')} {old.get('env_config')}"
                if isinstance(old, dict) else f"files of another run ({', '.join(sorted(used))})")
        raise ValueError(f"--out {out} already holds {what}: pass --resume to continue it, --overwrite to "
                         f"replace it, or another --out")
    for name in used:                                   # --overwrite: the old run's files only
        target = out / name
        shutil.rmtree(target) if target.is_dir() else target.unlink()
    manifest = dict(format="baralho-train-run", run_id=uuid.uuid4().hex, algo=algo, env_id=cfg.env_id,
                    env_config=cfg.env_config, seed=cfg.seed, started=time.strftime("%Y-%m-%dT%H:%M:%S"))
    out.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(manifest, indent=1))
    return manifest


def pool_snapshots(out: Path, run_id: str, env_id: str, env_config: dict) -> list[Path]:
    """This run's snapshot cards in ``out/pool``, oldest first: a card of another run,
    env or config (a stale folder, a copied file) is left out, however it is named."""
    from baralho.agents.policy import PolicyError, read_card

    keep = []
    for path in sorted((out / "pool").glob("snapshot_*.json")):
        try:
            card = read_card(path)
        except PolicyError:
            continue
        if card.get("run_id") == run_id and card["env_id"] == env_id and card["config"] == env_config:
            keep.append(path)
    return keep


def win_rate(model, env_id: str, opponent: str, games: int, seed: int, config: dict) -> float:
    """The policy (deterministic, masked) against ``opponent`` in every other seat."""
    env = SingleAgentEnv(env_id, opponents=[opponent], **config)
    wins = 0
    for g in range(games):
        obs, info = env.reset(seed=seed + g)
        done = False
        while not done:
            action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
            obs, _, done, _, _ = env.step(int(action))
        wins += is_win(env.aec.unwrapped.returns().tolist(), info["seat"])
    return wins / games


class RandomPolicy:
    """A uniformly random legal player with MaskablePPO's ``predict``: the chance level."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)

    def predict(self, obs, action_masks, deterministic=True):
        legal = np.flatnonzero(action_masks)
        return legal[self.rng.integers(len(legal))], None


def ignore_sigint_in_workers() -> None:
    """In a SubprocVecEnv worker, leave Ctrl-C to the trainer: it stops learning, then
    evaluates, saves and closes the workers, which must still be alive for that."""
    import multiprocessing
    import signal

    if multiprocessing.parent_process() is not None:
        signal.signal(signal.SIGINT, signal.SIG_IGN)


class CtrlC:
    """While learning, the first Ctrl-C only asks to stop: the callback ends ``learn`` at the next
    step boundary. A KeyboardInterrupt raised inside SubprocVecEnv's pipe reads could leave one
    worker's reply unread, and ``close()`` then waits for it forever (the flaky hang this
    replaces). A second Ctrl-C raises KeyboardInterrupt as usual."""

    def __init__(self):
        self.asked = False
        self._previous = None

    def _handler(self, signum, frame):
        if self.asked:
            raise KeyboardInterrupt
        self.asked = True

    def __enter__(self):
        import signal
        import threading

        if threading.current_thread() is threading.main_thread():     # signal handlers: main thread only
            self._previous = signal.signal(signal.SIGINT, self._handler)
        return self

    def __exit__(self, *exc):
        import signal

        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)
            self._previous = None
        return False


def train(cfg: TrainConfig) -> Path:
    import torch
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.callbacks import MaskableEvalCallback
    from stable_baselines3.common.callbacks import BaseCallback, CheckpointCallback
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    # Small MLPs: one intra-op thread is fastest, and the env workers own the other core
    # (profiled: with 2 threads on a loaded 2-core machine the policy forward stalled).
    torch.set_num_threads(1)
    check(cfg)
    start = time.perf_counter()                          # --max-minutes counts from here, warm start included
    out = Path(cfg.out)
    baralho.make(cfg.env_id, **cfg.env_config)          # fail fast on a bad config
    run_id = claim_out(cfg)["run_id"]
    (out / "pool").mkdir(parents=True, exist_ok=True)
    from baralho.agents.policy import load_policy, save_policy

    # 1. envs --------------------------------------------------------------------
    def make_env():
        ignore_sigint_in_workers()
        return SingleAgentEnv(cfg.env_id, opponents=cfg.opponents, weights=cfg.opponent_weights,
                              **cfg.env_config)

    vec_cls = SubprocVecEnv if cfg.num_envs > 1 and cfg.vec == "subproc" else DummyVecEnv
    venv = make_vec_env(make_env, n_envs=cfg.num_envs, seed=cfg.seed, vec_env_cls=vec_cls)
    eval_env = make_vec_env(lambda: SingleAgentEnv(cfg.env_id, opponents=["heuristic"], **cfg.env_config),
                            n_envs=1, seed=cfg.seed + 10_000)

    # 2. model -------------------------------------------------------------------
    model = MaskablePPO("MlpPolicy", venv, learning_rate=cfg.learning_rate, n_steps=cfg.n_steps,
                        batch_size=cfg.batch_size, n_epochs=cfg.n_epochs, gamma=cfg.gamma,
                        ent_coef=cfg.ent_coef, clip_range=cfg.clip_range,
                        policy_kwargs=dict(net_arch=list(cfg.net_arch)), seed=cfg.seed,
                        tensorboard_log=str(out / "tb"), device="cpu", verbose=0)
    pool = pool_snapshots(out, run_id, cfg.env_id, cfg.env_config)
    if cfg.resume:      # start from this run's latest policy; its snapshots stay in the pool
        latest = out / "final.json" if (out / "final.json").exists() else (pool[-1] if pool else None)
        if latest is not None:
            model.policy.load_state_dict(load_policy(latest, cfg.env_id, cfg.env_config)[0].state_dict())
        if pool:
            venv.env_method("set_snapshots", [str(p) for p in pool[-cfg.pool_size:]], cfg.self_play_weight)
    snapshots = [len(pool)]     # snapshots numbered on from the run's last one

    # 3. warm start: imitate the heuristic, then PPO fine-tunes ---------------------------
    curve: list[dict] = []
    warm = None
    if cfg.warm_start and not cfg.resume:           # a resumed run starts from its own policy
        warm = warm_start(model, make_env, cfg.warm_start, cfg.warm_start_steps, cfg.warm_start_epochs,
                          seed=cfg.seed + 20_000, progress=cfg.progress_bar,
                          log=print if cfg.progress_bar else lambda line: None)
        point = dict(timesteps=0, seconds=time.perf_counter() - start, warm_start=True)
        for opp in ("random", "heuristic"):
            point[f"vs_{opp}"] = warm[f"vs_{opp}"] = win_rate(model, cfg.env_id, opp, cfg.eval_games,
                                                              seed=cfg.seed + 50_000, config=cfg.env_config)
        curve.append(point)

    # 4. callbacks -----------------------------------------------------------------

    bar = Bar(f"{cfg.env_id}: PPO", cfg.timesteps, enabled=cfg.progress_bar, unit="timesteps")

    class SelfPlayAndCurve(BaseCallback):
        def _on_step(self) -> bool:
            t = self.num_timesteps
            if ctrl_c.asked:
                return False                        # Ctrl-C: stop at this step boundary (see CtrlC)
            if cfg.max_minutes is not None and time.perf_counter() - start > 60 * cfg.max_minutes:
                return False                        # SB3 stops learn() when a callback returns False
            if cfg.snapshot_every and t % cfg.snapshot_every < cfg.num_envs:
                snapshots[0] += 1
                save_policy(self.model.policy, out / "pool" / f"snapshot_{snapshots[0]:04d}", cfg.env_id,
                            cfg.env_config, run_id=run_id, timesteps=t)
                pool = pool_snapshots(out, run_id, cfg.env_id, cfg.env_config)[-cfg.pool_size:]
                self.training_env.env_method("set_snapshots", [str(p) for p in pool], cfg.self_play_weight)
            if cfg.eval_every and t % cfg.eval_every < cfg.num_envs:
                point = dict(timesteps=t, seconds=time.perf_counter() - start)
                for opp in ("random", "heuristic"):
                    point[f"vs_{opp}"] = win_rate(self.model, cfg.env_id, opp, cfg.eval_games,
                                                  seed=cfg.seed + 50_000, config=cfg.env_config)
                    self.logger.record(f"eval/win_rate_vs_{opp}", point[f"vs_{opp}"])
                curve.append(point)
                bar.print(f"{t:>10,} timesteps: win rate vs random {point['vs_random']:.3f}, "
                          f"vs heuristic {point['vs_heuristic']:.3f} ({cfg.eval_games} games each)")
            return True

    ctrl_c = CtrlC()
    callbacks = [
        sb3_progress(bar),
        SelfPlayAndCurve(),
        MaskableEvalCallback(eval_env, n_eval_episodes=min(cfg.eval_games, 100),
                             eval_freq=max(cfg.eval_every // cfg.num_envs, 1),
                             best_model_save_path=str(out / "best"), log_path=str(out / "eval"),
                             deterministic=True, verbose=0),
        CheckpointCallback(save_freq=max(cfg.eval_every // cfg.num_envs, 1), save_path=str(out / "checkpoints"),
                           name_prefix="model"),
    ]

    # 5. learn, save, plot ----------------------------------------------------------
    learn_start = time.perf_counter()
    interrupted = False
    with warnings.catch_warnings():
        # the eval env is a DummyVecEnv on purpose (one in-process env): SB3 warns on every
        # run that it is "not the same type" as a SubprocVecEnv training env
        warnings.filterwarnings("ignore", message="Training and eval env are not of the same type")
        try:
            with bar, ctrl_c:
                model.learn(cfg.timesteps, callback=callbacks, progress_bar=False)
        except KeyboardInterrupt:     # a second Ctrl-C: stop now, still keep what was learned
            interrupted = True
            if isinstance(venv, SubprocVecEnv):
                venv.waiting = False      # a step reply may be left unread: close() must not wait for it
        interrupted = interrupted or ctrl_c.asked
        if interrupted:
            print(f"\ninterrupted at {model.num_timesteps:,} timesteps: evaluating and saving the model so far",
                  flush=True)
    learn_seconds = time.perf_counter() - learn_start
    final = dict(timesteps=model.num_timesteps, seconds=time.perf_counter() - start)
    games = cfg.eval_games
    for opp in ("random", "heuristic"):
        final[f"vs_{opp}"] = win_rate(model, cfg.env_id, opp, games, seed=cfg.seed + 90_000, config=cfg.env_config)
        final[f"ci95_vs_{opp}"] = list(wilson_interval(round(final[f"vs_{opp}"] * games), games))
        # the same games with a random player in the learner's seat: what "no skill" scores
        final[f"chance_vs_{opp}"] = win_rate(RandomPolicy(cfg.seed), cfg.env_id, opp, games,
                                             seed=cfg.seed + 90_000, config=cfg.env_config)
    final["eval_games"] = games
    curve.append(final)
    model.save(out / "final.zip")        # SB3's own (pickles): for SB3 users; baralho loads final.json
    save_policy(model.policy, out / "final", cfg.env_id, cfg.env_config, run_id=run_id,
                timesteps=model.num_timesteps)
    if (out / "best" / "best_model.zip").exists():     # the eval callback's, in the loadable format too
        from baralho.zoo import export

        export(out / "best" / "best_model.zip", out / "best" / "best_model", cfg.env_id, cfg.env_config)
    venv.close()
    (out / "curve.json").write_text(json.dumps(dict(
        config=asdict(cfg), curve=curve, warm_start=warm, interrupted=interrupted,
        fps=model.num_timesteps / learn_seconds,                 # SB3 fps: PPO's own steps over its own time
        wall_seconds=time.perf_counter() - start), indent=1))
    plot_curve(curve, out / "curve.png", cfg.env_id)
    return out


def plot_curve(curve: list[dict], path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.5))
    t = [p["timesteps"] for p in curve]
    for opp in ("random", "heuristic"):
        ax.plot(t, [p[f"vs_{opp}"] for p in curve], marker="o", label=f"vs {opp}")
    ax.set_xlabel("timesteps")
    ax.set_ylabel("win rate")
    ax.set_ylim(0, 1)
    ax.grid(alpha=0.3)
    warm = bool(curve and curve[0].get("warm_start"))
    if warm:
        ax.axvline(0, color="grey", lw=0.8, ls="--")
        ax.annotate("cloned heuristic", (0, 0.02), xytext=(4, 0), textcoords="offset points", fontsize=8)
    ax.legend()
    ax.set_title(f"{title}: MaskablePPO self-play" + (" after a warm start" if warm else ""))
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def summary_table(curve: list[dict]) -> str:
    """The final evaluation: win rates with Wilson 95% CIs beside the chance level (a
    random player in the same seat, same games), so that e.g. 0.38 at 3 players reads right."""
    last = curve[-1]
    rows = ["| opponent | win rate | 95% CI | random player, same games |", "|---|---:|---|---:|"]
    for opp in ("random", "heuristic"):
        lo, hi = last.get(f"ci95_vs_{opp}", (float("nan"), float("nan")))
        chance = last.get(f"chance_vs_{opp}", float("nan"))
        rows.append(f"| {opp} | {last[f'vs_{opp}']:.3f} | [{lo:.3f}, {hi:.3f}] | {chance:.3f} |")
    games = last.get("eval_games")
    rows.append(f"\n{games} games per row, the learner in a random seat; a win is holding the best return "
                f"(shared when tied, none when all are equal). The last column is the chance level: a "
                f"uniformly random player in the learner's seat against the same opponents on the same deals.")
    return "\n".join(rows)


def main(args) -> int:
    flags = ("timesteps", "seed", "num_envs", "vec", "eval_every", "eval_games", "snapshot_every", "out",
             "max_minutes", "warm_start_steps", "warm_start_epochs", "learning_rate", "ent_coef", "clip_range",
             "overwrite", "resume")
    cfg = config_for(args.env_id, getattr(args, "warm_start", None),
                     **{key: getattr(args, key, None) for key in flags},
                     env_config=args.config, progress_bar=not args.quiet)
    out = train(cfg)
    report = json.loads((out / "curve.json").read_text())
    curve = report["curve"]
    stopped = " (interrupted)" if report.get("interrupted") else ""
    print(f"\n{args.env_id}: {curve[-1]['timesteps']} timesteps in {curve[-1]['seconds']:.0f} s{stopped}; "
          f"final policy {out / 'final.json'}\n")
    print(summary_table(curve))
    return 130 if report.get("interrupted") else 0
