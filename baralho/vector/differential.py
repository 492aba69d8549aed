"""The differential harness: a compiled engine in lockstep with its reference.

Deal with the reference, load the state into the compiled batch (``set_state``),
play random legal or heuristic actions in both, and compare after every step:
the player to act, the mask, the observation, the rewards, the end of the game
and the whole state: every step with ``CompiledVector.holds`` (a fast
module's cheap ``same_state`` where it has one), and as reference states
(``get_state`` against the reference state, which checks ``from_record`` in
full) wherever that fails and at sampled steps (one in ``invariants_every``
per env), where the reference's ``check_invariants`` runs on ``get_state``. Used by
``tests/vector`` (1,000 games per config) and ``python -m benchmarks.fuzz
--differential`` (100,000 games per game).
"""

from __future__ import annotations

import time

import numpy as np

import baralho.vector as bv

# the defaults of the two sampling knobs; a fast module's ``DIFFERENTIAL`` dict may change them for
# its game (a slow reference or heuristic: the default test run must stay affordable)
DEFAULTS = dict(heuristic_share=0.5, invariants_every=7)


def differential(env_id: str, config: dict, games: int, batch: int = 64, seed: int = 0,
                 heuristic_share: float | None = None, invariants_every: int | None = None,
                 max_reports: int = 10) -> dict:
    """Play ``games`` games on both engines; returns counts and the first differences found."""
    from baralho.agents.base import heuristic_for

    venv = bv.make(env_id, num_envs=batch, seed=seed, engine="compiled", **config)
    knobs = {**DEFAULTS, **getattr(venv.fast, "DIFFERENTIAL", {})}
    heuristic_share = knobs["heuristic_share"] if heuristic_share is None else heuristic_share
    invariants_every = knobs["invariants_every"] if invariants_every is None else invariants_every
    game = venv.game
    venv.reset()
    rng = np.random.default_rng(seed)
    # one heuristic per env: Scala 40's keeps a plan across a turn's decisions, and one shared by
    # the batch played one env's plan in another wherever that was legal there (and replanned at
    # almost every call)
    heuristics = [heuristic_for(env_id, game, seed * 10_000_019 + i) for i in range(batch)]
    refs = [game.new_state(rng) for _ in range(batch)]
    for i, s in enumerate(refs):
        venv.set_state(i, s)
    # a share of the envs is played by the heuristic (its moves reach other positions than random's)
    by_heuristic = rng.random(batch) < heuristic_share
    differences: list[str] = []
    finished = steps = moves = 0
    games = max(games, batch)                 # every env's first deal is played out
    game_no = list(range(batch))              # which game each env plays, for the reports
    started = batch
    t0 = time.perf_counter()

    def differ(i: int, what: str) -> None:
        if len(differences) < max_reports:
            differences.append(f"{env_id} {config} game {game_no[i]} step {steps}: {what}")
        else:
            differences.append("")             # counted, not reported

    # an env whose game ends once ``games`` games have been dealt is not dealt another: it idles
    # (compiled moves only, unchecked) while the games still in play finish, so every game dealt
    # is played to its end and none is cut off (a run of a few hundred games wastes no steps)
    idle = np.zeros(batch, bool)
    obs, mask, seat = venv.observe()
    while finished < games:
        actions = mask.argmax(1)                 # an idle env's move: its first legal one
        for i, s in enumerate(refs):
            if idle[i]:
                continue
            player = game.current_player(s)
            ref_mask = game.legal_mask(s)
            if seat[i] != player:
                differ(i, f"player to act {seat[i]} != {player}")
            if mask[i].tobytes() != ref_mask.tobytes():      # both int8: as bytes, cheaper than array_equal
                differ(i, f"mask {np.flatnonzero(mask[i]).tolist()} != {np.flatnonzero(ref_mask).tolist()}")
            ref_obs = game.observe(s, player)
            if obs[i].dtype != ref_obs.dtype or obs[i].tobytes() != ref_obs.tobytes():
                bad = np.flatnonzero(obs[i] != ref_obs)
                differ(i, f"observation differs at {bad[:8].tolist()}")
            # the state: every step (cheaply where the fast module can), in full (get_state) where
            # that fails and at the sampled steps, where the invariants run too
            sampled = steps % invariants_every == i % invariants_every
            if sampled or not venv.holds(i, s):
                state = venv.get_state(i)
                if state != s:
                    differ(i, f"state {state} != {s}")
            if sampled:
                try:
                    game.check_invariants(state)
                except AssertionError as err:
                    differ(i, f"invariant: {err}")
            if by_heuristic[i]:
                actions[i] = heuristics[i].act({"observation": ref_obs, "action_mask": ref_mask}, f"player_{player}")
            else:
                legal = np.flatnonzero(ref_mask)
                actions[i] = legal[rng.integers(len(legal))]
        obs, mask, seat, rewards, done = venv.step(actions)
        steps += 1
        moves += batch - int(idle.sum())
        redealt = False
        for i, s in enumerate(refs):
            if idle[i]:
                continue
            r = game.apply(s, int(actions[i]))
            if (rewards[i].any() if r is None else rewards[i].tolist() != np.float32(r).tolist()):
                differ(i, f"rewards {rewards[i].tolist()} != {[0.0] * game.num_players if r is None else r}")
            over = game.is_over(s)
            if bool(done[i]) != over:
                differ(i, f"done {bool(done[i])} != {over}")
            if over:
                finished += 1
                if started >= games:
                    idle[i] = True
                    continue
                refs[i] = game.new_state(rng)
                venv.set_state(i, refs[i])
                heuristics[i].reset(seed * 10_000_019 + started)      # no plan carried into the new game
                game_no[i] = started
                started += 1
                redealt = True
        if redealt:
            obs, mask, seat = venv.observe()
    return dict(env=env_id, config=config, games=finished, steps=moves, differences=len(differences),
                reports=[d for d in differences if d], seconds=time.perf_counter() - t0)
