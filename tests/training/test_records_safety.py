"""Issue 26.2, 26.4, 26.5, 26.8, 26.9 (records and tournaments): nothing recorded is lost or
replaced, a forged record is caught by re-running the agents, a record never makes replay
read a path, and bad input gets a clear error, not a traceback."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

import baralho
from baralho.cli import main
from baralho.training import records
from baralho.training import tournament as T

SPECS = ["random", "heuristic"]


def run(tmp_path, **kw):
    return T.run("rodizio_v1", kw.pop("specs", SPECS), games=kw.pop("games", 4), num_players=2,
                 seed=kw.pop("seed", 0), workers=1, progress=False, records_dir=str(tmp_path), **kw)


def snapshot(folder):
    return {p.name: p.read_bytes() for p in folder.iterdir()}


# ------------------------------------------------------------------ 26.2: one tournament per folder

def test_a_second_tournament_cannot_replace_the_first_ones_records(tmp_path):
    first = run(tmp_path)
    before = snapshot(tmp_path)
    with pytest.raises(ValueError, match=r"belongs to another tournament \(seed 0\)"):
        run(tmp_path, seed=1)
    with pytest.raises(ValueError, match="belongs to another tournament .agents"):
        run(tmp_path, specs=["heuristic", "random"])
    with pytest.raises(ValueError, match="holds this tournament's records already: add --resume"):
        run(tmp_path)
    assert snapshot(tmp_path) == before
    assert [r.returns for r in run(tmp_path, resume=True)] == [r.returns for r in first]


def test_records_from_before_manifests_are_not_overwritten(tmp_path):
    run(tmp_path)
    (tmp_path / T.MANIFEST).unlink()
    with pytest.raises(ValueError, match="records without a"):
        run(tmp_path)


def test_the_cli_refuses_another_tournament_into_a_records_folder(tmp_path, capsys):
    args = ["tournament", "rodizio_v1", "--agents", "random", "heuristic", "--games", "2", "--quiet",
            "--workers", "1", "--out", str(tmp_path / "out"), "--records", str(tmp_path / "rec")]
    assert main(args) == 0
    assert main(args + ["--seed", "5"]) == 2
    assert "belongs to another tournament" in capsys.readouterr().err
    assert main(args + ["--resume"]) == 0


# ------------------------------------------------------------------ 26.5: concurrent writers

def test_a_folder_in_use_by_another_tournament_is_refused(tmp_path):
    lock = T.claim_records(tmp_path, T.records_identity("rodizio_v1", SPECS, 0, {}), resume=False)
    try:
        with pytest.raises(ValueError, match="another tournament is writing into it"):
            run(tmp_path, resume=True)
    finally:
        lock.close()
    run(tmp_path, resume=True)       # released: the same tournament goes on


def test_a_record_save_never_touches_another_writers_temporary_file(tmp_path):
    rec = records.play_and_record("rodizio_v1", {}, 0, lambda env, a, obs: int(np.flatnonzero(obs["action_mask"])[0]))
    path = tmp_path / "r.json"
    other = tmp_path / "r.json.part"          # the name every writer used to share
    other.write_text("another writer's game, half written")
    rec.save(path)
    assert other.read_text() == "another writer's game, half written"
    assert records.load(path) == rec and not list(tmp_path.glob(".r.json.*"))


# ------------------------------------------------------------------ 26.4: forged records

def forge(tmp_path, match: T.Match, seed: int = 0):
    """Rewrite a recorded game to other legal moves, digest and returns recomputed."""
    path = T.record_path(tmp_path, "rodizio_v1", match)
    honest = records.load(path)
    rng = np.random.default_rng(99)
    forged = records.play_and_record("rodizio_v1", honest.config, honest.seed,
                                     lambda env, a, obs: int(rng.choice(np.flatnonzero(obs["action_mask"]))),
                                     players=honest.players)
    assert forged.actions != honest.actions
    forged.save(path)
    return forged


def test_a_forged_record_replays_but_verify_refuses_it(tmp_path):
    specs = ["heuristic", "ismcts:4"]
    honest = run(tmp_path, specs=specs)
    match = T.Match(honest[0].deal, honest[0].seats)
    forge(tmp_path, match)
    for _ in records.replay(records.load(T.record_path(tmp_path, "rodizio_v1", match))):
        pass                                            # the digest is a checksum: it replays
    run(tmp_path, specs=specs, resume=True)             # and plain --resume counts it (README says so)
    with pytest.raises(records.RecordError, match="not the agents' moves"):
        run(tmp_path, specs=specs, resume=True, verify=True)
    # the honest folder verifies, and gives the results of a whole run
    shutil.rmtree(tmp_path)
    run(tmp_path, specs=specs)
    assert [r.returns for r in run(tmp_path, specs=specs, resume=True, verify=True)] == [r.returns for r in honest]


def test_verify_refuses_agents_whose_moves_depend_on_time(tmp_path):
    run(tmp_path, specs=["random", "ismcts:0.01s"], games=2)
    with pytest.raises(ValueError, match="time"):
        run(tmp_path, specs=["random", "ismcts:0.01s"], games=2, resume=True, verify=True)
    with pytest.raises(ValueError, match="needs resume"):
        run(tmp_path, specs=["random", "ismcts:0.01s"], games=2, verify=True)


# ------------------------------------------------------------------ 26.8: decks by hash, never a path

def deck_record(tmp_path):
    from baralho.envs.roda_de_samba.cards import DEFAULT_DECK

    deck = tmp_path / "my_deck.json"
    shutil.copy(DEFAULT_DECK, deck)
    rng = np.random.default_rng(0)
    rec = records.play_and_record("roda_de_samba_v1", {"deck": str(deck)}, 3,
                                  lambda env, a, obs: int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return rec.save(tmp_path / "game.json"), rec, deck


def test_a_custom_deck_is_recorded_by_hash_and_read_only_from_a_named_file(tmp_path):
    path, rec, deck = deck_record(tmp_path)
    assert rec.config["deck"] == records.deck_digest(deck) and str(tmp_path) not in path.read_text()
    with pytest.raises(records.RecordError, match="name its file with --deck"):
        list(records.replay(records.load(path)))
    assert len(list(records.replay(records.load(path), deck=deck))) == len(rec.actions) + 1
    assert main(["replay", str(path), "--deck", str(deck)]) == 0
    other = tmp_path / "other.json"
    other.write_text(deck.read_text().replace("corda", "cordas", 1))
    with pytest.raises(records.RecordError, match="not the record's deck"):
        list(records.replay(records.load(path), deck=other))


@pytest.mark.parametrize("deck", ["/dev/zero", "/etc/passwd", "/no/such/file"])
def test_a_record_naming_a_deck_path_is_refused_without_reading_it(tmp_path, deck):
    path, rec, _ = deck_record(tmp_path)
    data = json.loads(path.read_text())
    data["config"]["deck"] = deck
    path.write_text(json.dumps(data))
    with pytest.raises(records.RecordError) as err:
        list(records.replay(records.load(path)))
    # the same words whether the path exists or not: a record cannot probe the file system
    assert str(err.value) == (f"the record's config names its deck as {deck!r}, not by content hash "
                              f"(sha256:...); a record never makes replay read a path")


# ------------------------------------------------------------------ 26.9: clear errors

def _saved(tmp_path):
    rng = np.random.default_rng(0)
    rec = records.play_and_record("rodizio_v1", {}, 1,
                                  lambda env, a, obs: int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return rec.save(tmp_path / "r.json")


@pytest.mark.parametrize("edit, match", [
    (lambda d: d.__setitem__("seed", "2"), "'2' is not an integer"),
    (lambda d: d.__setitem__("seed", 2.0), "2.0 is not an integer"),
    (lambda d: d["actions"].__setitem__(0, 2.9), "2.9 is not an integer"),
    (lambda d: d["actions"].__setitem__(0, True), "True is not an integer"),
    (lambda d: d["actions"].__setitem__(0, "1"), "'1' is not an integer"),
    (lambda d: d.__setitem__("returns", ["1", 0]), "not a finite number"),
    (lambda d: d.__setitem__("actions", {"0": 1}), "is not a list"),
    (lambda d: d["config"].__setitem__("render_mode", "human"), "display options"),
    (lambda d: d.__setitem__("config", [1]), "config must be an object"),
])
def test_malformed_record_fields_are_refused_not_converted(tmp_path, edit, match):
    path = _saved(tmp_path)
    data = json.loads(path.read_text())
    edit(data)
    path.write_text(json.dumps(data))
    with pytest.raises(records.RecordError, match=match):
        records.load(path)


@pytest.mark.parametrize("content", [b'{"format": "baralho-record", "x": "\xff\xfe"}', b"[" * 100_000 + b"]" * 100_000])
def test_undecodable_or_deeply_nested_record_files_are_refused(tmp_path, content):
    path = tmp_path / "r.json"
    path.write_bytes(content)
    with pytest.raises(records.RecordError, match="not a readable JSON game record"):
        records.load(path)
    assert main(["replay", str(path)]) == 2


def test_a_record_path_that_is_not_a_file_is_refused(tmp_path):
    with pytest.raises(records.RecordError, match="not a regular file"):
        records.load("/dev/zero")
    with pytest.raises(records.RecordError, match="not a regular file"):
        records.load(tmp_path)


@pytest.mark.parametrize("argv", [
    ["tournament", "rodizio_v1", "--agents", "random", "--games", "0"],
    ["tournament", "rodizio_v1", "--agents", "random", "--games", "-5"],
    ["evaluate", "x.json", "rodizio_v1", "--games", "0"],
    ["replay", "r.json", "--every", "0"],
])
def test_counts_below_one_are_usage_errors(argv, capsys):
    with pytest.raises(SystemExit) as err:
        main(argv)
    assert err.value.code == 2 and "must be above 0" in capsys.readouterr().err


def test_empty_player_ranges_and_records_on_a_file_are_refused(tmp_path, capsys):
    out = tmp_path / "out"
    base = ["tournament", "rodizio_v1", "--agents", "random", "heuristic", "--games", "2", "--quiet",
            "--workers", "1", "--out", str(out)]
    assert main(base + ["--players", "3..2"]) == 2
    assert "empty range" in capsys.readouterr().err and not out.exists()
    (tmp_path / "file").write_text("x")
    assert main(base + ["--records", str(tmp_path / "file")]) == 2
    assert "is a file, not a folder" in capsys.readouterr().err
    with pytest.raises(ValueError, match="at least 1 game"):
        T.run("rodizio_v1", SPECS, games=0, num_players=2, workers=1, progress=False)
    with pytest.raises(ValueError, match="every=0"):
        records.to_images(records.load(_saved(tmp_path)), tmp_path / "x.gif", every=0)


@pytest.mark.parametrize("reward", [float("nan"), float("inf"), -float("inf")])
def test_illegal_reward_must_be_finite(reward):
    with pytest.raises(ValueError, match="must be a finite number"):
        baralho.make("rodizio_v1", illegal_action="penalize", illegal_reward=reward)


def test_adapter_misuse_gets_errors_that_say_what_to_do():
    env = baralho.make("rodizio_v1")
    with pytest.raises(RuntimeError, match=r"call reset\(\) before last\(\)"):
        env.last()
    env.reset(seed=0)
    with pytest.raises(ValueError, match=r"no agent 'player_9'; the agents are \['player_0', 'player_1'\]"):
        env.observe("player_9")
    for _agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))
    assert env.agents == []
    with pytest.raises(RuntimeError, match=r"every agent has been removed; call reset\(\)"):
        env.step(0)
    with pytest.raises(RuntimeError, match=r"every agent has been removed; call reset\(\)"):
        env.last()


def test_a_penalized_illegal_move_scores_as_a_loss_in_records_and_win_rates(tmp_path):
    config = {"illegal_action": "penalize", "illegal_reward": -3.0}
    moves = []

    def choose(env, agent, obs):       # the third move is an illegal one, by player whoever moves
        action = int(np.flatnonzero(obs["action_mask"] == (0 if len(moves) == 2 else 1))[0])
        moves.append((agent, action))
        return action

    rec = records.play_and_record("rodizio_v1", config, 0, choose)
    offender = int(moves[2][0].split("_")[1])
    assert len(rec.actions) == 3
    assert rec.returns[offender] == -3.0 and rec.returns[1 - offender] == 0.0      # not a 0-0 draw
    assert T.is_win(rec.returns, 1 - offender) and not T.is_win(rec.returns, offender)
    path = rec.save(tmp_path / "p.json")
    for _ in records.replay(records.load(path)):       # the penalized game replays exactly
        pass


def test_a_deck_option_naming_a_device_or_a_huge_file_is_refused_before_reading(tmp_path):
    from baralho.core.config import ConfigError

    big = tmp_path / "big.json"
    big.write_bytes(b" " * (2 << 20))
    for path in ("/dev/zero", str(tmp_path), str(big)):
        with pytest.raises(ConfigError, match="not a regular file of at most"):
            baralho.make("roda_de_samba_v1", deck=path)


def test_resuming_after_a_net_changed_is_refused_not_mixed(tmp_path):
    """The manifest holds a digest of every net the agents play: records of one net never count
    as another's games (``ppo`` re-shipped, ``ppo:PATH`` retrained into the same file)."""
    from baralho.agents.policy import build_policy, policy_files, save_policy

    card = save_policy(build_policy("rodizio_v1", {}, {"pi": [8], "vf": [8]}), tmp_path / "net", "rodizio_v1", {})
    specs, folder = ["heuristic", f"ppo:{card}"], tmp_path / "records"
    first = run(folder, specs=specs, games=2)
    assert [r.returns for r in run(folder, specs=specs, games=2, resume=True)] == [r.returns for r in first]
    manifest = json.loads((folder / T.MANIFEST).read_text())
    assert set(manifest["policies"]) == {f"ppo:{card}"}

    weights = policy_files(card)[1]
    arrays = dict(np.load(weights))
    name = sorted(arrays)[0]
    arrays[name] = arrays[name] + 0.5                      # the same file, another net
    np.savez(weights, **arrays)
    before = snapshot(folder)
    with pytest.raises(ValueError, match=r"the net of ppo:\S+ is not the one its games were played with"):
        run(folder, specs=specs, games=4, resume=True)
    assert snapshot(folder) == before

    # a folder from before the digests: resumed when its agents play no net, refused when one does
    (folder / T.MANIFEST).write_text(json.dumps({k: v for k, v in manifest.items() if k != "policies"}))
    with pytest.raises(ValueError, match="the net of .* or the folder is from an older baralho"):
        run(folder, specs=specs, games=2, resume=True)
    (folder / T.MANIFEST).write_text(json.dumps({**manifest, "policies": ["not", "digests"]}))
    with pytest.raises(ValueError, match="the net of .* is not the one its games were played with"):
        run(folder, specs=specs, games=2, resume=True)
    plain = tmp_path / "plain"
    played = run(plain, games=2)
    old = json.loads((plain / T.MANIFEST).read_text())
    assert old.pop("policies") == {}
    (plain / T.MANIFEST).write_text(json.dumps(old))
    assert run(plain, games=2, resume=True) == played


def test_the_zoo_net_of_every_player_count_is_in_the_digest():
    assert [p.name for p in T.policy_files_of("scala40_v1", "ppo")] == ["scala40_v1.json", "scala40_v1_3p.json"]
    assert [p.name for p in T.policy_files_of("scala40_v1", "ismcts:300:ph")] == \
        ["scala40_v1.json", "scala40_v1_3p.json"]
    assert [p.name for p in T.policy_files_of("scala40_v1", "ppo:scala40_v1_3p")] == ["scala40_v1_3p.json"]
    assert T.policy_files_of("scala40_v1", "ismcts:300:h") == T.policy_files_of("scala40_v1", "heuristic") == []
    assert T.policy_digests("rodizio_v1", ["ppo", "random"]).keys() == {"ppo"}


def test_replay_changed_plays_a_changed_nets_games_again_and_keeps_the_old_records(tmp_path, capsys):
    """After ``ppo:PATH`` is retrained into the same file, ``--resume --replay-changed`` moves that
    agent's records to superseded-1/ (with the manifest they were made under), plays its games
    again with the new net, and counts the other agents' games as recorded."""
    from baralho.agents.policy import build_policy, policy_files, save_policy

    card = save_policy(build_policy("rodizio_v1", {}, {"pi": [8], "vf": [8]}), tmp_path / "net", "rodizio_v1", {})
    specs, folder = ["random", "heuristic", f"ppo:{card}"], tmp_path / "records"
    run(folder, specs=specs, games=6)
    before = snapshot(folder)
    mine = {n for n in before if n.endswith(".json") and f"ppo:{card}" in json.loads(before[n])["players"]}
    assert 0 < len(mine) < len(before) - 1

    weights = policy_files(card)[1]
    arrays = dict(np.load(weights))
    arrays["action_net.bias"] = arrays["action_net.bias"] + np.arange(len(arrays["action_net.bias"]), dtype=np.float32)
    np.savez(weights, **arrays)
    with pytest.raises(ValueError, match="replay_changed .* needs resume"):
        run(folder, specs=specs, games=6, replay_changed=True)
    played = run(folder, specs=specs, games=6, resume=True, replay_changed=True)

    aside = folder / "superseded-1"
    assert {p.name for p in aside.iterdir()} == mine | {T.MANIFEST}
    assert all((aside / n).read_bytes() == before[n] for n in mine | {T.MANIFEST})
    assert all((folder / n).read_bytes() == before[n] for n in before if n not in mine | {T.MANIFEST, T.LOCK})
    assert all((folder / n).exists() for n in mine)                  # played again with the new net
    fresh = run(tmp_path / "fresh", specs=specs, games=6)
    assert played == fresh                                            # as if the tournament had started now
    assert run(folder, specs=specs, games=6, resume=True) == fresh   # and the folder is this tournament's now

    argv = ["tournament", "rodizio_v1", "--agents", *specs, "--games", "6", "--records", str(folder),
            "--replay-changed", "--quiet", "--out", str(tmp_path / "out")]
    assert main(argv) != 0 and "--replay-changed goes with --resume" in capsys.readouterr().err


def test_a_zoo_name_in_a_guided_search_plays_the_zoo_net_its_digest_covers():
    """``ismcts:N:p:NAME`` with NAME a zoo name plays that zoo net (as ``ppo:NAME`` does), the file
    the tournament's digest covers: before, the digest read the zoo's file and the search looked
    for NAME as a path."""
    import baralho
    from baralho.agents import bind_if_needed, make_agent
    from baralho.zoo import zoo_path

    spec = "ismcts:4:p:scala40_v1_3p"
    assert T.policy_files_of("scala40_v1", spec) == [zoo_path("scala40_v1_3p")]
    env = baralho.make("scala40_v1", num_players=3)
    env.reset(seed=0)
    agent = make_agent(spec, "scala40_v1", config={"num_players": 3})
    bind_if_needed(agent, env)
    assert agent._net[1] == json.loads(zoo_path("scala40_v1_3p").read_text())
