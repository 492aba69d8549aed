"""baralho.vector: thousands of games per call, identical to the rules engines.

    import baralho.vector as bv
    venv = bv.make("rodizio_v1", num_envs=4096, seed=0, **config)  # same config keys as baralho.make
    obs, mask, seat = venv.reset()
    obs, mask, seat, rewards, done = venv.step(actions)

| array | shape, dtype | meaning |
|---|---|---|
| `obs` | (B, D), the AEC env's observation dtype | the acting seat's observation of each env (same layout as the AEC env's) |
| `mask` | (B, A) int8 | the exact legal mask of each env's acting seat |
| `seat` | (B,) int64 | the acting seat of each env |
| `rewards` | (B, num_players) float32 | what each seat received from this step |
| `done` | (B,) bool | this step ended that env's game; it has already been re-dealt (auto-reset), so `obs`, `mask` and `seat` are the new game's first decision |

* ``venv.observe()`` gives the current ``(obs, mask, seat)`` without stepping;
  ``venv.get_state(i)`` is env ``i``'s state as a reference-engine state and
  ``venv.set_state(i, state)`` loads one (``observe()`` then shows it).
* Every call returns fresh arrays (a rollout buffer may keep them). With ``copy=False``
  (EnvPool's choice) every call returns the same arrays, overwritten by the next call: no
  allocation per step, for a caller that reads or copies them before stepping again. Either
  way an edited mask changes nothing: actions are checked against the engine's own copy.
* An illegal action in any env raises ``IllegalActionError`` (a ``ValueError``)
  naming the env index, the action and its legal ones, and changes no env:
  every action is checked before any is applied.
* The same ``seed`` gives the same batch of games in any process and with any
  number of ``threads`` (each env has its own random stream).
* ``threads=1`` (default) steps on one core; ``threads=k`` spreads the batch
  over ``k`` numba threads (``prange``; the kernels release the GIL).
* ``engine="compiled"`` (the default where a game has one: ``baralho.envs.compiled_ids()``)
  or ``"reference"``: a Python loop over the rules engine, the same contract,
  for games whose compiled engine is not there yet and for checking.

``baralho.vector.gym`` adds a ``gymnasium.vector.VectorEnv`` view (one learner
seat against batched opponents) and an SB3 ``VecEnv`` view.
"""

from __future__ import annotations

from baralho.vector.base import IllegalActionError, VectorEnv

__all__ = ["IllegalActionError", "VectorEnv", "make"]


def adapter_options() -> tuple[str, ...]:
    """The AEC env's own options (``render_mode``, ``illegal_action``, ...): not game config,
    so a vector env refuses them rather than ignore them."""
    import inspect

    from baralho.core.aec import BaralhoEnv

    return tuple(name for name in inspect.signature(BaralhoEnv.__init__).parameters
                 if name not in ("self", "game", "engine"))


def _refuse_adapter_options(env_id: str, config: dict) -> None:
    from baralho.core.config import ConfigError

    given = sorted(set(config) & set(adapter_options()))
    if given:
        one = len(given) == 1
        raise ConfigError(f"{env_id}: {', '.join(given)} {'is an option' if one else 'are options'} of the AEC env "
                          f"(baralho.make), not of a vector env: an illegal action raises IllegalActionError here "
                          f"and nothing renders; remove {'it' if one else 'them'} "
                          f"(venv.game.render_text(venv.get_state(i)) shows an env's table)")


def make(env_id: str, num_envs: int = 1, seed: int | None = None, threads: int = 1,
         engine: str | None = None, copy: bool = True, **config) -> VectorEnv:
    """``num_envs`` games of ``env_id`` stepped together (see the module docstring)."""
    import baralho
    from baralho.core.config import ConfigError
    from baralho.envs import has_module

    if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
        raise ConfigError(f"{env_id}: num_envs={num_envs!r} must be a positive integer")
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
        raise ConfigError(f"{env_id}: threads={threads!r} must be a positive integer")
    if not isinstance(copy, bool):
        raise ConfigError(f"{env_id}: copy={copy!r} must be True or False")
    _refuse_adapter_options(env_id, config)
    game = baralho.make(env_id, engine="reference", **config).unwrapped.game
    compiled = has_module(env_id, "fast")
    if engine is None:
        engine = "compiled" if compiled else "reference"
    if engine == "compiled":
        if not compiled:
            raise ConfigError(f"{env_id}: no compiled engine yet; use engine='reference'")
        from baralho.vector.compiled import CompiledVector

        return CompiledVector(game, num_envs, seed, threads, copy)
    if engine == "reference":
        from baralho.vector.reference import ReferenceVector

        return ReferenceVector(game, num_envs, seed, threads, copy)
    raise ConfigError(f"{env_id}: engine={engine!r} must be 'compiled' or 'reference'")
