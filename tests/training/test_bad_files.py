"""Damaged, mislabelled and hostile policy files: each refused with one line that names the file,
what is wrong and what to do, before the network is built or a weight is read (no traceback, no
allocation the file asks for, no read without end)."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from baralho.agents import policy as P  # noqa: E402
from baralho.zoo import V1  # noqa: E402


def npy(a: np.ndarray) -> bytes:
    b = io.BytesIO()
    np.save(b, a)
    return b.getvalue()


def npy_header(shape: tuple, descr: str = "<f4") -> bytes:
    b = io.BytesIO()
    np.lib.format.write_array_header_1_0(b, {"descr": descr, "fortran_order": False, "shape": shape})
    return b.getvalue()


def write_zip(path: Path, members: dict[str, bytes]) -> None:
    with zipfile.ZipFile(path, "w") as z:
        for name, data in members.items():
            z.writestr(name, data)


def zoo_weights() -> dict[str, np.ndarray]:
    with np.load(V1 / "rodizio_v1.npz") as z:
        return {k: z[k] for k in z.files}


def spoil(kind: str, tmp: Path) -> tuple[Path, str]:
    """A copy of Rodízio's zoo policy spoiled as ``kind``; (its card, what the error says)."""
    card = json.loads((V1 / "rodizio_v1.json").read_text())
    weights = zoo_weights()
    npz = tmp / "p.npz"
    bias = weights["action_net.bias"]
    members = {f"{k}.npy": npy(v) for k, v in weights.items()}
    match = None
    if kind == "npy_named_npz":
        npz.write_bytes(npy(np.zeros(10, np.float32)))
        match = r"p\.npz: not an \.npz \(a zip of \.npy arrays\): a single \.npy array"
    elif kind == "member_not_an_array":
        write_zip(npz, {**members, "action_net.bias.npy": b"hello, not an array"})
        match = r"p\.npz: member 'action_net\.bias\.npy' is not a \.npy array"
    elif kind == "member_not_npy":
        write_zip(npz, {**members, "README.txt": b"hi"})
        match = r"p\.npz: member 'README\.txt' is not one \.npy array of a parameter"
    elif kind == "header_of_4_tib":
        write_zip(npz, {**members, "action_net.bias.npy": npy_header((2**40,)) + bias.tobytes()})
        match = r"p\.npz: member 'action_net\.bias\.npy' is \d+ bytes, its header says 4,398,046,511,\d+"
    elif kind == "object_array":
        write_zip(npz, {**members, "action_net.bias.npy": npy(np.array([None] * 18, dtype=object))})
        match = r"p\.npz: member 'action_net\.bias\.npy' is object, weights are float32"
    elif kind == "float64":
        write_zip(npz, {**members, "action_net.bias.npy": npy(bias.astype(np.float64))})
        match = r"member 'action_net\.bias\.npy' is float64, weights are float32"
    elif kind == "huge_network":                        # a tiny card naming a network of 0.5 TB
        card["net_arch"] = {"pi": [65536] * 16, "vf": [65536] * 16}
        write_zip(npz, members)
        match = r"p\.json: the card's network \(pi 16 layers up to 65536 wide.*over the 268,435,456"
    elif kind == "another_network":
        card["net_arch"] = {"pi": [256, 256], "vf": [128, 128]}
        write_zip(npz, members)
        match = r"p\.npz: the weights do not fit the card's network"
    elif kind in ("nan", "inf"):
        bad = bias.copy()
        bad[3] = np.nan if kind == "nan" else -np.inf
        write_zip(npz, {**members, "action_net.bias.npy": npy(bad)})
        match = r"p\.npz: weights \['action_net\.bias'\] hold NaN or infinite values"
    elif kind == "weights_link_to_dev_zero":
        os.symlink("/dev/zero", npz)
        match = r"p\.npz: missing or not a regular file \(the card's weights \(\.npz\): this is a device"
    elif kind == "card_is_a_fifo":
        write_zip(npz, members)
        os.mkfifo(tmp / "p.json")
        return tmp / "p.json", r"p\.json: missing or not a regular file \(a policy card \(\.json\): this is a"
    card["weights"] = "p.npz"
    (tmp / "p.json").write_text(json.dumps(card))
    return tmp / "p.json", match


KINDS = ["npy_named_npz", "member_not_an_array", "member_not_npy", "header_of_4_tib", "object_array", "float64",
         "huge_network", "another_network", "nan", "inf", "weights_link_to_dev_zero", "card_is_a_fifo"]
# refused before the network is built: from the card and the .npz's headers alone
BEFORE_BUILDING = {"npy_named_npz", "member_not_an_array", "member_not_npy", "header_of_4_tib", "object_array",
                   "float64", "huge_network", "another_network", "weights_link_to_dev_zero", "card_is_a_fifo"}


@pytest.mark.parametrize("kind", KINDS)
def test_a_bad_policy_file_is_refused_with_one_clear_error(kind, tmp_path, monkeypatch):
    card, match = spoil(kind, tmp_path)
    if kind in BEFORE_BUILDING:
        def build(*args, **kwargs):
            raise AssertionError("the network was built before the file was checked")
        monkeypatch.setattr(P, "build_policy", build)
    with pytest.raises(P.PolicyError, match=match):
        P.load_policy(card, "rodizio_v1")


@pytest.mark.parametrize("kind", ["npy_named_npz", "header_of_4_tib", "huge_network", "nan", "card_is_a_fifo"])
def test_evaluate_says_which_file_and_what_in_one_line(kind, tmp_path, capsys):
    from baralho import cli

    card, match = spoil(kind, tmp_path)
    assert cli.main(["evaluate", str(card), "rodizio_v1", "--games", "2", "--quiet", "--workers", "1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"baralho: {tmp_path}") and "Traceback" not in err, err


def test_the_card_names_every_parameter_of_every_zoo_network():
    """card_shapes (the check before building) is the built network's parameters, the prior's
    and symlog inputs' included."""
    for card_path in sorted(V1.glob("*.json")):
        policy, card = P.load_policy(card_path)
        assert P.card_shapes(card) == {k: tuple(v.shape) for k, v in policy.state_dict().items()}, card_path.name


def test_zoo_export_refuses_a_zip_linked_to_dev_zero(tmp_path):
    """ZipFile('/dev/zero') reads without end (it looks for the zip's directory): refused at once,
    in a child process so that a regression cannot hang the suite."""
    os.symlink("/dev/zero", tmp_path / "model.zip")
    code = ("import sys; from baralho.zoo import export\n"
            "try: export(sys.argv[1], sys.argv[2], 'rodizio_v1')\n"
            "except ValueError as err: print(err); raise SystemExit(3)\n")
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path / "model.zip"), str(tmp_path / "out")],
                          capture_output=True, text=True, timeout=120, cwd=Path(__file__).parents[2])
    assert done.returncode == 3, done.stderr[-2000:]
    assert "model.zip: missing or not a regular file (an SB3 zip: this is a device" in done.stdout
    assert not (tmp_path / "out.json").exists()


def test_a_tournament_manifest_linked_to_dev_zero_is_refused(tmp_path):
    from baralho.training import tournament

    os.symlink("/dev/zero", tmp_path / tournament.MANIFEST)
    with pytest.raises(ValueError, match=r"tournament\.manifest: missing or not a regular file \(a tournament's "
                                         r"manifest: this is a device"):
        tournament.claim_records(tmp_path, {"env_id": "rodizio_v1"}, resume=True)
