"""Each user's workspace in Redis: safe names, a quota that loses nothing, code's changes collected,
sealed for confidential users, exported with /export and erased with /delete_me."""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path

import pytest
from redis import Redis

from deputy.agent.confidential_records import seal_existing
from deputy.bot.export import export_user
from deputy.core.confidential import ConfidentialKeys, Locked
from deputy.executor.erasure import erase_user
from deputy.workspace.files import Workspace, WorkspaceError, WorkspaceLimits, clean_name

ANN, BOB = 6101, 6102
UNLOCK_KEY = b"k" * 32


def test_names_stay_inside_the_workspace() -> None:
    assert clean_name("/work/reports/june.csv") == "reports/june.csv"
    assert clean_name("./notes.txt") == "notes.txt"
    for bad in ("../etc/passwd", "a/../../b", "", "con:tab", "x\x00y"):
        with pytest.raises(WorkspaceError):
            clean_name(bad)


def test_each_user_sees_only_their_own_files(redis: Redis) -> None:
    workspace = Workspace(redis)
    workspace.write(ANN, "list.txt", b"Ann's list")
    assert [f.name for f in workspace.list(BOB)] == []
    with pytest.raises(WorkspaceError, match="no file named"):
        workspace.read(BOB, "list.txt")
    assert workspace.read(ANN, "list.txt") == b"Ann's list"


def test_a_write_over_the_quota_is_refused_whole_and_loses_nothing(redis: Redis) -> None:
    workspace = Workspace(redis, limits=WorkspaceLimits(quota_bytes=1000, max_files=3))
    workspace.write(ANN, "a.txt", b"a" * 600)
    with pytest.raises(WorkspaceError, match="over its 1000 bytes quota"):
        workspace.write_many(ANN, {"a.txt": b"b" * 300, "big.txt": b"c" * 800}, "Deputy")
    assert workspace.read(ANN, "a.txt") == b"a" * 600, "the earlier file is untouched"
    assert [f.name for f in workspace.list(ANN)] == ["a.txt"]
    workspace.write(ANN, "a.txt", b"a" * 900)  # replacing a file counts its new size only
    with pytest.raises(WorkspaceError, match="at most 3 files"):
        workspace.write_many(ANN, {"b": b"", "c": b"", "d": b""}, "Deputy")


def test_a_file_sent_twice_is_kept_once_and_another_of_the_same_name_is_numbered(redis: Redis) -> None:
    workspace = Workspace(redis)
    first = workspace.add_sent(ANN, "C:\\Users\\ann\\sales.csv", b"1,2")
    again = workspace.add_sent(ANN, "sales.csv", b"1,2")
    other = workspace.add_sent(ANN, "sales.csv", b"3,4")
    assert (first.name, again.name, other.name) == ("sales.csv", "sales.csv", "sales (2).csv")
    assert first.made_by == "you"


def test_what_code_wrote_changed_or_deleted_is_collected_and_links_are_not_followed(
    redis: Redis, tmp_path: Path
) -> None:
    workspace = Workspace(redis)
    workspace.write(ANN, "keep.txt", b"same")
    workspace.write(ANN, "edit.txt", b"old")
    workspace.write(ANN, "gone.txt", b"bye")
    before = workspace.materialise(ANN, tmp_path)
    (tmp_path / "edit.txt").write_bytes(b"new")
    (tmp_path / "gone.txt").unlink()
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "made.csv").write_bytes(b"x,y")
    secret = tmp_path.parent / "secret.key"
    secret.write_bytes(b"vault key")
    os.symlink(secret, tmp_path / "stolen.key")
    written, removed = workspace.collect(ANN, tmp_path, before)
    assert sorted(f.name for f in written) == ["edit.txt", "out/made.csv"]
    assert removed == ["gone.txt"]
    assert sorted(f.name for f in workspace.list(ANN)) == ["edit.txt", "keep.txt", "out/made.csv"]
    assert workspace.read(ANN, "edit.txt") == b"new"


def test_a_confidential_users_files_are_sealed_and_open_only_while_unlocked(redis: Redis) -> None:
    keys = ConfidentialKeys(redis, UNLOCK_KEY)
    keys.turn_on(ANN, "a long and private passphrase")
    workspace = Workspace(redis, keys=keys)
    workspace.write(ANN, "divorce-papers.txt", b"my private diary")
    stored = b" ".join(key + b" " + b" ".join(k + v for k, v in redis.hgetall(key).items())
                       for key in redis.keys(f"deputy:user:{ANN}:workspace:*"))
    assert b"private diary" not in stored and b"divorce" not in stored, "contents and names are sealed"
    with pytest.raises(Locked):
        workspace.read(ANN, "divorce-papers.txt")
    with pytest.raises(Locked):
        workspace.list(ANN)
    assert workspace.used(ANN) == len(b"my private diary"), "the quota still counts while locked"
    keys.unlock(ANN, "a long and private passphrase", 3600)
    assert workspace.read(ANN, "divorce-papers.txt") == b"my private diary"


def test_files_kept_before_confidential_mode_are_sealed_when_it_is_turned_on(redis: Redis) -> None:
    Workspace(redis).add_sent(ANN, "lease.txt", b"the flat on quince street")
    keys = ConfidentialKeys(redis, UNLOCK_KEY)
    keys.turn_on(ANN, "a long and private passphrase")
    keys.unlock(ANN, "a long and private passphrase", 3600)

    assert seal_existing(redis, ANN, keys) >= 2  # the file and its entry
    stored = b" ".join(v for key in redis.keys(f"deputy:user:{ANN}:workspace:*") if redis.type(key) == b"hash"
                       for v in redis.hgetall(key).values())
    assert b"quince" not in stored and b"lease.txt" not in stored
    workspace = Workspace(redis, keys=keys)
    assert workspace.read(ANN, "lease.txt") == b"the flat on quince street"
    assert [f.name for f in workspace.list(ANN)] == ["lease.txt"]


def test_export_holds_the_files_and_delete_me_erases_them_and_nobody_elses(redis: Redis) -> None:
    workspace = Workspace(redis)
    workspace.write(ANN, "totals.csv", b"month,total\n2026-10,109.55\n")
    workspace.write(ANN, "photo.bin", b"\x89PNG\x00\xff")
    workspace.write(BOB, "bob.txt", b"Bob's")
    exported = {f["name"]: f for f in json.loads(export_user(redis, ANN, 0.0))["workspace"]}
    assert exported["totals.csv"]["text"].startswith("month,total")
    assert base64.b64decode(exported["photo.bin"]["base64"]) == b"\x89PNG\x00\xff"
    erase_user(redis, ANN)
    assert workspace.list(ANN) == []
    assert [f.name for f in workspace.list(BOB)] == ["bob.txt"]
