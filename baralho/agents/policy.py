"""Trained policies: a weights-only file format, and the Agent that plays one (``train`` extra).

A policy is two files side by side, neither of which holds code:

    NAME.json   the card: format, env id, config, observation shape, action count,
                architecture (hidden layer widths of the policy and value nets, activation,
                inputs: "raw" or "symlog", see SymlogInputs; a card without it is "raw";
                prior: "none" or "heuristic", see hinted_logits; a card without it is "none")
    NAME.npz    the weights: one float32 array per parameter, read with
                ``numpy.load(allow_pickle=False)`` (no pickle, no object arrays)

Loading builds sb3-contrib's ``MaskableActorCriticPolicy`` from the card and copies the
arrays in, after checking every name, shape and size against the architecture.

SB3's own ``.zip`` is refused: ``MaskablePPO.load`` unpickles fields of the zip, so a
crafted zip runs code on load. ``baralho.zoo.export(zip, out, env_id)`` converts one,
reading only its ``policy.pth`` with ``torch.load(weights_only=True)`` (tensors only;
a pickle holding anything else is refused) and never its pickled ``data``.
"""

from __future__ import annotations

import io
import json
import math
import os
import zipfile
from pathlib import Path

import numpy as np

import baralho
from baralho.core import files

FORMAT, VERSION = "baralho-policy", 1
ACTIVATIONS = ("tanh", "relu")          # torch.nn.Tanh (SB3's PPO default), torch.nn.ReLU
INPUTS = ("raw", "symlog")              # the observation as it is, or SymlogInputs
PRIORS = ("none", "heuristic")          # the logits as the net gives them, or plus a bonus on the heuristic's move
#: what a card's "search" may set for ismcts:N:p (ISMCTSAgent's arguments of the same names)
SEARCH_KEYS = {"exploration", "mix", "prior_visits", "temperature", "horizon"}
#: a card's search "horizon": core/net_search.py's HORIZONS (named again here: that module reads
#: this one's policies, and the card checks run without numba)
HORIZONS = ("game", "segment")
MAX_CARD_BYTES = 1 << 20
MAX_PTH_BYTES = 1 << 30
#: the most float32 weights a policy may hold (64M parameters; the zoo's policies are under 10 MB):
#: a card naming a bigger network is refused before anything is allocated
MAX_WEIGHTS_BYTES = 256 << 20
_SLACK = 1 << 20                        # an .npz's headers and zip directory, over its weights
_REWRITE = "write weights with save_policy or baralho.zoo.export (numpy.savez of float32 arrays)"


class PolicyError(ValueError):
    """A policy file that cannot be loaded safely (the message says why)."""


def policy_files(path: str | Path) -> tuple[Path, Path]:
    """The card and weights paths of a policy named ``NAME``, ``NAME.json`` or ``NAME.npz``."""
    path = Path(path)
    if path.suffix == ".zip":
        raise PolicyError(f"{path}: an SB3 zip is not loaded (MaskablePPO.load unpickles it, so a crafted "
                          f"zip runs code); convert your own with baralho.zoo.export(zip, out, env_id), which "
                          f"reads only its weights, and load the .json it writes")
    stem = path.with_suffix("") if path.suffix in (".json", ".npz") else path
    return stem.with_name(stem.name + ".json"), stem.with_name(stem.name + ".npz")


def policy_digest(path: str | Path) -> str:
    """The sha256 of a policy's card and weights (each file's digest, hashed in turn): what tells
    one net from another behind a reused path (a tournament's records, a resumed run's expert)."""
    import hashlib

    digest = hashlib.sha256()
    for part, limit, what in zip(policy_files(path), (MAX_CARD_BYTES, MAX_WEIGHTS_BYTES + _SLACK),
                                 ("a policy card (.json)", "the card's weights (.npz)")):
        digest.update(hashlib.sha256(files.read_regular(part, limit, what, PolicyError)).digest())
    return digest.hexdigest()


def net_arch_of(shapes: dict[str, tuple[int, ...]]) -> dict[str, list[int]]:
    """The hidden widths of the policy and value nets, read from parameter shapes."""
    arch = {}
    for net, key in (("pi", "policy_net"), ("vf", "value_net")):
        layers = sorted((int(name.split(".")[2]), shape[0]) for name, shape in shapes.items()
                        if name.startswith(f"mlp_extractor.{key}.") and name.endswith(".weight"))
        arch[net] = [width for _, width in layers]
    return arch


def observation_shape(policy) -> list[int]:
    """The env's observation shape (a policy with the heuristic prior also reads the hint, one-hot)."""
    shape = list(policy.observation_space.shape)
    if getattr(policy, "baralho_prior", "none") == "heuristic":
        shape[0] -= int(policy.action_space.n)
    return shape


def save_policy(policy, path: str | Path, env_id: str, config: dict, **extra) -> Path:
    """Write ``policy`` (a MaskableActorCriticPolicy) as NAME.json + NAME.npz; returns the card."""
    card_path, weights_path = policy_files(path)
    card_path.parent.mkdir(parents=True, exist_ok=True)
    state = {k: v.detach().cpu().numpy().astype(np.float32) for k, v in policy.state_dict().items()}
    card = dict(format=FORMAT, version=VERSION, baralho=baralho.__version__, env_id=env_id, config=dict(config),
                observation_shape=observation_shape(policy), num_actions=int(policy.action_space.n),
                net_arch=net_arch_of({k: v.shape for k, v in state.items()}),
                activation=policy.activation_fn.__name__.lower(), inputs=getattr(policy, "baralho_inputs", "raw"),
                prior=getattr(policy, "baralho_prior", "none"),
                weights=weights_path.name, **extra)
    if card["activation"] not in ACTIVATIONS:
        raise PolicyError(f"activation {card['activation']!r} is not one of {ACTIVATIONS}")
    tmp = weights_path.with_name(f".{weights_path.name}.{os.getpid()}.part")
    with open(tmp, "wb") as f:
        np.savez(f, **state)
    os.replace(tmp, weights_path)
    tmp = card_path.with_name(f".{card_path.name}.{os.getpid()}.part")
    tmp.write_text(json.dumps(card, indent=1))
    os.replace(tmp, card_path)            # the card last: a card always has its weights
    return card_path


def open_regular(path: str | Path, max_bytes: int, what: str):
    """``path`` opened when it is a regular file of at most ``max_bytes`` (``core.files``), else a PolicyError."""
    return files.open_regular(path, max_bytes, what, PolicyError)


def architecture_of(card: dict) -> tuple[tuple[int, ...], str, str]:
    """A card's net as a trainer's settings: (net_arch, inputs, prior), to build the same net again."""
    return tuple(card["net_arch"]["pi"]), card.get("inputs", "raw"), card.get("prior", "none")


def read_card(path: str | Path) -> dict:
    card_path, _ = policy_files(path)
    if not card_path.exists() and not card_path.is_symlink():
        raise PolicyError(f"no policy at {path} (expected {card_path.name} and its .npz)")
    raw = files.read_regular(card_path, MAX_CARD_BYTES, "a policy card (.json)", PolicyError)
    try:
        card = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as err:
        raise PolicyError(f"{card_path}: not a readable policy card ({err}); give the .json that "
                          f"baralho train or baralho.zoo.export wrote") from None
    if not isinstance(card, dict) or card.get("format") != FORMAT or card.get("version") != VERSION:
        raise PolicyError(f"{card_path}: not a {FORMAT} card of version {VERSION}")
    arch = card.get("net_arch")
    ok = (card.get("env_id") in baralho.ENV_IDS and isinstance(card.get("config"), dict)
          and card.get("activation") in ACTIVATIONS and card.get("inputs", "raw") in INPUTS
          and card.get("prior", "none") in PRIORS
          and isinstance(arch, dict) and set(arch) == {"pi", "vf"}
          and all(isinstance(w, int) and not isinstance(w, bool) and 0 < w <= 65536
                  for net in arch.values() if isinstance(net, list) for w in net)
          and all(isinstance(net, list) and len(net) <= 16 for net in arch.values()))
    shape, actions = card.get("observation_shape"), card.get("num_actions")
    ok = ok and isinstance(shape, list) and len(shape) == 1 and all(_count(n) for n in shape) and _count(actions)
    search = card.get("search", {})          # how ismcts:N:p searches with the net (an expert iteration run's,
    ok = ok and isinstance(search, dict) and set(search) <= SEARCH_KEYS and all(     # or measured for a zoo net)
        isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v >= 0
        for k, v in search.items() if k != "horizon") \
        and search.get("horizon", "game") in HORIZONS \
        and search.get("mix", 0) <= 1 and search.get("temperature", 1) > 0 \
        and search.get("prior_visits", 2) in range(2, 128)
    if not ok:
        raise PolicyError(f"{card_path}: malformed policy card (env_id, config, observation_shape, num_actions, "
                          f"net_arch, activation, inputs, prior or search); give the .json that baralho train or "
                          f"baralho.zoo.export wrote")
    return card


def _count(n) -> bool:
    return isinstance(n, int) and not isinstance(n, bool) and 0 < n <= 1 << 24


def card_shapes(card: dict) -> dict[str, tuple[int, ...]]:
    """Every parameter of the card's network, name -> shape, from the card alone (sb3-contrib's
    MaskableActorCriticPolicy over a flat observation: each layer's weights and biases, the action
    and value heads, the prior's weight): what loading it would allocate, checked before it is built."""
    actions, prior = card["num_actions"], card.get("prior", "none") == "heuristic"
    inputs = card["observation_shape"][0] + (actions if prior else 0)
    shapes, last = {}, {}
    for net, key in (("pi", "policy_net"), ("vf", "value_net")):
        width = inputs
        for k, w in enumerate(card["net_arch"][net]):
            layer = f"mlp_extractor.{key}.{2 * k}"
            shapes[f"{layer}.weight"], shapes[f"{layer}.bias"] = (w, width), (w,)
            width = w
        last[net] = width
    shapes.update({"action_net.weight": (actions, last["pi"]), "action_net.bias": (actions,),
                   "value_net.weight": (1, last["vf"]), "value_net.bias": (1,)})
    if prior:
        shapes["prior_weight"] = ()
    return shapes


def card_parameters(card: dict) -> int:
    """How many float32 parameters the card's network holds (:func:`card_shapes`)."""
    return sum(int(np.prod(s)) for s in card_shapes(card).values())


def symlog_inputs():
    """SB3's flatten, then each value x as sign(x) log(1 + |x|) / log(1 + b), b its bound in the
    observation space (max |low|, |high|; at least 1): every input in [-1, 1], flags and one-hots
    unchanged. The observations are integer counts and points (Chuche's scores reach 140, Scala
    40's card indices 52): raw, they saturate the first tanh layer. The scale comes from the
    space alone, so a policy file holds no extra weights for it."""
    import torch
    from stable_baselines3.common.torch_layers import FlattenExtractor

    class SymlogInputs(FlattenExtractor):
        def __init__(self, observation_space) -> None:
            super().__init__(observation_space)
            bound = np.maximum(np.abs(observation_space.low), np.abs(observation_space.high)).astype(np.float64)
            scale = 1.0 / np.log1p(np.maximum(bound.reshape(-1), 1.0))
            self.register_buffer("scale", torch.as_tensor(scale, dtype=torch.float32), persistent=False)

        def forward(self, observations):
            x = super().forward(observations)
            return torch.sign(x) * torch.log1p(x.abs()) * self.scale

    return SymlogInputs


def build_policy(env_id: str, config: dict, net_arch: dict, activation: str = "tanh", inputs: str = "raw",
                 prior: str = "none", prior_weight: float = 4.0):
    """An untrained MaskableActorCriticPolicy with this architecture for this env; with
    ``prior="heuristic"`` it has one more parameter, ``prior_weight`` (see hinted_logits)."""
    import torch
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    if inputs not in INPUTS:
        raise PolicyError(f"inputs {inputs!r} is not one of {INPUTS}")
    if prior not in PRIORS:
        raise PolicyError(f"prior {prior!r} is not one of {PRIORS}")
    env = baralho.make(env_id, **config)
    space = env.observation_space(env.possible_agents[0])["observation"]
    actions = env.action_space(env.possible_agents[0])
    if prior == "heuristic":                 # the net also reads the hint, one-hot after the observation
        import gymnasium as gym

        space = gym.spaces.Box(np.concatenate([space.low, np.zeros(actions.n)]).astype(np.float32),
                               np.concatenate([space.high, np.ones(actions.n)]).astype(np.float32))
    extra = dict(features_extractor_class=symlog_inputs()) if inputs == "symlog" else {}
    policy = MaskableActorCriticPolicy(space, actions,
                                       lambda _: 0.0, net_arch=dict(net_arch),
                                       activation_fn=torch.nn.Tanh if activation == "tanh" else torch.nn.ReLU,
                                       **extra)
    policy.baralho_inputs = inputs           # what save_policy writes on the card
    policy.baralho_prior = prior
    if prior == "heuristic":                 # a parameter of the module: saved, loaded and learned with the rest
        policy.prior_weight = torch.nn.Parameter(torch.tensor(float(prior_weight)))
        policy.predict = _predict_needs_a_hint
    return policy


def _predict_needs_a_hint(*args, **kwargs):
    raise PolicyError("this policy plays with the heuristic's move as a hint (its card's prior): SB3's predict() "
                      "would leave it out; play it with PolicyAgent (ppo:PATH) or hinted_logits")


def hinted_logits(policy, observations, hints):
    """The action logits of a batch of float observations (a tensor) and the value latent.

    A policy with the heuristic prior takes each row's hint (the heuristic's move in that
    position, an int per row; -1: none): the nets read it one-hot after the observation, and
    the logits get ``prior_weight`` on it. The policy net's head starts near zero (SB3
    initialises it with gain 0.01), so a new policy with the prior plays the heuristic's moves
    (argmax) and samples them with probability e^w / (e^w + legal - 1); PPO then learns where
    to depart from them, knowing what the heuristic would play (residual policy learning; the
    heuristic is called at every decision, in training and in play)."""
    return logits_of(policy, *features_of(policy, observations, hints))


def features_of(policy, observations, hints):
    """hinted_logits' first half: the features extractor's output (the observation, with the
    hint one-hot after it for a policy with the prior; symlog-scaled for ``inputs="symlog"``)
    and the one-hot of the hints (None without the prior). No learned weight takes part, so a
    trainer computes them once for the epochs of an update."""
    import torch

    onehot = hint_onehot(policy, hints)
    if onehot is not None:
        observations = torch.cat([observations, onehot], 1)
    return policy.features_extractor(observations), onehot


def hint_onehot(policy, hints):
    """The hints one-hot (a row of zeros for a hint of -1: none), for a policy with the
    heuristic prior; None for one without."""
    import torch

    if getattr(policy, "baralho_prior", "none") != "heuristic":
        return None
    if hints is None:
        raise PolicyError("this policy plays with the heuristic's hint (its card's prior), and none was given")
    hints = torch.as_tensor(np.asarray(hints, np.int64))
    rows = (hints >= 0).nonzero()[:, 0]
    onehot = torch.zeros((len(hints), policy.action_space.n))
    onehot[rows, hints[rows]] = 1.0
    return onehot


def logits_of(policy, features, onehot):
    """hinted_logits' second half: (logits, value latent) from features_of's output."""
    latent_pi, latent_vf = policy.mlp_extractor(features)
    return with_prior(policy, policy.action_net(latent_pi), onehot), latent_vf


def actor_logits(policy, features, onehot):
    """logits_of's logits alone, through the policy net only (a move needs no value)."""
    return with_prior(policy, policy.action_net(policy.mlp_extractor.forward_actor(features)), onehot)


def prior_weight_of(policy) -> float:
    """The learned weight of a policy's heuristic prior (what its hint adds to a logit); 0.0 without the prior."""
    return float(policy.prior_weight.detach()) if getattr(policy, "baralho_prior", "none") == "heuristic" else 0.0


def with_prior(policy, logits, onehot):
    """The logits, plus ``prior_weight`` on each row's hint for a policy with the prior."""
    return logits if onehot is None else logits + policy.prior_weight * onehot


def forget_plan(heuristic, action: int, hint: int) -> None:
    """A move other than the heuristic's hint leaves the heuristic's plan for the turn (Scala 40's
    keeps one across a turn's decisions) off the position: it plans afresh at its next call."""
    if action != hint and hasattr(heuristic, "plan"):
        heuristic.plan = []


def load_weights(policy, state: dict, source: str | Path = "weights") -> None:
    """Copy ``state`` (name -> array) into ``policy``: the same names and shapes, finite values."""
    import torch

    want = {k: tuple(v.shape) for k, v in policy.state_dict().items()}
    got = {k: tuple(v.shape) for k, v in state.items()}
    if want != got:
        missing, extra = sorted(set(want) - set(got)), sorted(set(got) - set(want))
        wrong = sorted(k for k in set(want) & set(got) if want[k] != got[k])
        raise PolicyError(f"{source}: weights do not fit the architecture: missing {missing}, unexpected {extra}, "
                          f"other shapes {wrong}")
    bad = sorted(k for k, v in state.items() if not np.isfinite(np.asarray(v)).all())
    if bad:
        raise PolicyError(f"{source}: weights {bad} hold NaN or infinite values (a diverged training run); "
                          f"load an earlier checkpoint or snapshot")
    policy.load_state_dict({k: torch.as_tensor(np.asarray(v, np.float32)) for k, v in state.items()})
    policy.set_training_mode(False)


def load_policy(path: str | Path, env_id: str | None = None, config: dict | None = None,
                max_bytes: int = MAX_WEIGHTS_BYTES):
    """(policy, card) from a NAME.json + NAME.npz pair, checked against ``env_id`` and ``config``.

    Everything is checked before the network is built or a weight read: the card against the env
    (player count, observation and action sizes), the network the card names against ``max_bytes``,
    and every member of the .npz from its .npy header (numpy's format helpers) against the card's
    parameter count; then names and shapes against the built network, and the values (finite)."""
    card = read_card(path)
    card_path, weights_path = policy_files(path)
    if env_id is not None and card["env_id"] != env_id:
        raise PolicyError(f"{card_path}: a policy for {card['env_id']}, not {env_id}")
    config = card["config"] if config is None else config
    envs = [baralho.make(card["env_id"], **c) for c in (card["config"], config)]
    players = [len(e.possible_agents) for e in envs]
    if players[0] != players[1]:
        raise PolicyError(f"{card_path}: trained for {players[0]} players, this env has {players[1]}")
    agent = envs[1].possible_agents[0]
    shape, actions = list(envs[1].observation_space(agent)["observation"].shape), envs[1].action_space(agent).n
    if card["observation_shape"] != shape or card["num_actions"] != actions:
        raise PolicyError(f"{card_path}: trained on observations {card['observation_shape']} and "
                          f"{card['num_actions']} actions, this env ({card['env_id']} {config}) has "
                          f"{shape} and {actions}")
    size = 4 * card_parameters(card)
    if size > max_bytes:
        arch = ", ".join(f"{net} {len(w)} layers up to {max(w, default=0)} wide" for net, w in card["net_arch"].items())
        raise PolicyError(f"{card_path}: the card's network ({arch}) holds {size:,} bytes of weights, over the "
                          f"{max_bytes:,} a policy may hold here (baralho.agents.policy.MAX_WEIGHTS_BYTES); "
                          f"not loaded: is this the card of your run?")
    with open_regular(weights_path, max_bytes + _SLACK, "the card's weights (.npz)") as f:
        z = _weights_zip(f, weights_path)
        with z:
            headers = _npy_headers(z, weights_path)
            want, got = card_shapes(card), {k: s for k, (s, _) in headers.items()}
            if want != got:
                raise PolicyError(f"{weights_path}: the weights do not fit the card's network: missing "
                                  f"{sorted(set(want) - set(got))}, unexpected {sorted(set(got) - set(want))}, "
                                  f"other shapes {sorted(k for k in set(want) & set(got) if want[k] != got[k])}; "
                                  f"give the card its own .npz")
            policy = build_policy(card["env_id"], config, card["net_arch"], card["activation"],
                                  card.get("inputs", "raw"), card.get("prior", "none"))
            built = {k: tuple(v.shape) for k, v in policy.state_dict().items()}
            if built != want:
                raise PolicyError(f"{card_path}: this sb3-contrib builds the card's network with other parameters "
                                  f"({sorted(set(built) ^ set(want))}); use the sb3-contrib the policy was saved with")
            state = {name: _npy_array(z, info, weights_path) for name, (_, info) in headers.items()}
    load_weights(policy, state, weights_path)
    return policy, card


def _weights_zip(f, path: Path) -> zipfile.ZipFile:
    try:
        return zipfile.ZipFile(f)
    except (zipfile.BadZipFile, OSError, EOFError) as err:
        f.seek(0)
        npy = f.read(6) == b"\x93NUMPY"
        raise PolicyError(f"{path}: not an .npz (a zip of .npy arrays){': a single .npy array' if npy else ''} "
                          f"({err}); {_REWRITE}") from None


def _npy_headers(z: zipfile.ZipFile, path: Path) -> dict:
    """name -> (shape, member) of every member of a weights .npz, read from its .npy header
    alone: float32, and the member exactly its header plus its data (no more, no less)."""
    headers = {}
    for info in z.infolist():
        name = info.filename.removesuffix(".npy")
        if name == info.filename or name in headers:
            raise PolicyError(f"{path}: member {info.filename!r} is not one .npy array of a parameter; {_REWRITE}")
        try:
            with z.open(info) as m:
                version = np.lib.format.read_magic(m)
                if version not in ((1, 0), (2, 0)):
                    raise ValueError(f".npy format version {version}")
                read = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
                shape, _, dtype = read(m)
                start = m.tell()
        except (ValueError, OSError, EOFError, zipfile.BadZipFile) as err:
            raise PolicyError(f"{path}: member {info.filename!r} is not a .npy array ({err}); {_REWRITE}") from None
        if dtype.kind != "f" or dtype.itemsize != 4:
            raise PolicyError(f"{path}: member {info.filename!r} is {dtype}, weights are float32; {_REWRITE}")
        if info.file_size != start + 4 * int(np.prod(shape)):
            raise PolicyError(f"{path}: member {info.filename!r} is {info.file_size:,} bytes, its header says "
                              f"{start + 4 * int(np.prod(shape)):,} (shape {shape}): damaged or crafted; {_REWRITE}")
        headers[name] = (tuple(shape), info)
    return headers


def _npy_array(z: zipfile.ZipFile, info: zipfile.ZipInfo, path: Path) -> np.ndarray:
    try:
        with z.open(info) as m:
            return np.lib.format.read_array(m, allow_pickle=False).astype(np.float32, copy=False)
    except (ValueError, OSError, EOFError, zipfile.BadZipFile) as err:
        raise PolicyError(f"{path}: member {info.filename!r} cannot be read ({err}); {_REWRITE}") from None


def weights_from_sb3_zip(path: str | Path) -> dict:
    """The policy parameters of an SB3 zip: only ``policy.pth``, with torch's weights-only
    unpickler (tensors and plain containers; anything else is refused). ``data``, the
    zip's pickled fields, is never read."""
    import torch

    try:
        with open_regular(path, MAX_PTH_BYTES + _SLACK, "an SB3 zip") as f, zipfile.ZipFile(f) as z:
            if z.getinfo("policy.pth").file_size > MAX_PTH_BYTES:
                raise PolicyError(f"{path}: policy.pth is over {MAX_PTH_BYTES} bytes")
            raw = z.read("policy.pth")
    except (OSError, KeyError, zipfile.BadZipFile, EOFError) as err:
        raise PolicyError(f"{path}: not an SB3 zip with a policy.pth ({err}); give the zip MaskablePPO.save "
                          f"wrote") from None
    try:
        state = torch.load(io.BytesIO(raw), map_location="cpu", weights_only=True)
    except Exception as err:            # noqa: BLE001 - the weights-only unpickler refused something
        raise PolicyError(f"{path}: policy.pth holds more than weights; refused ({err})") from None
    if not isinstance(state, dict) or not all(isinstance(v, torch.Tensor) for v in state.values()):
        raise PolicyError(f"{path}: policy.pth is not a state dict of tensors")
    return {k: v.numpy() for k, v in state.items()}


class PolicyAgent:
    """Acts with a trained policy (NAME.json + NAME.npz): deterministic by default, always within the
    mask. A policy with the heuristic prior (its card's ``prior``) asks its own heuristic for the
    hint at every decision."""

    def __init__(self, path: str | Path, env_id: str | None = None, seed: int | None = None,
                 deterministic: bool = True, config: dict | None = None,
                 max_bytes: int = MAX_WEIGHTS_BYTES) -> None:
        import torch

        torch.set_num_threads(1)   # single observations: threads only add contention
        self.policy, self.card = load_policy(path, env_id, config, max_bytes)
        self.deterministic = deterministic
        self.name = f"ppo:{policy_files(path)[0].stem}"
        self.rng = np.random.default_rng(seed)
        self.hint = None
        if self.card.get("prior", "none") == "heuristic":
            from baralho.agents.base import heuristic_for

            game = baralho.make(self.card["env_id"], **(self.card["config"] if config is None else config))
            self.hint = heuristic_for(self.card["env_id"], game.unwrapped.game, seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)
            if self.hint is not None:
                self.hint.reset(seed)

    def act(self, observation: dict, agent_id: str) -> int:
        import torch

        mask = observation["action_mask"].astype(bool)
        if self.hint is None:
            action, _ = self.policy.predict(observation["observation"], action_masks=mask,
                                            deterministic=self.deterministic)
            return int(action)
        hint = self.hint.act(observation, agent_id)
        with torch.no_grad():
            x = torch.as_tensor(np.asarray(observation["observation"], np.float32)[None])
            logits = hinted_logits(self.policy, x, [hint])[0][0].numpy().astype(np.float64)
        logits[~mask] = -np.inf
        if self.deterministic:
            action = int(logits.argmax())
        else:
            p = np.exp(logits - logits.max())
            action = int(self.rng.choice(len(p), p=p / p.sum()))
        forget_plan(self.hint, action, hint)
        return action
