"""Encryption at rest: init --encrypt, encrypt/decrypt/rekey, key sources, wrong keys."""

from __future__ import annotations

import hashlib

import keyring
import pytest
from keyring.backend import KeyringBackend
from privacy_helpers import SECRET, mentions, run

from memgpt_local.memory import open_store
from memgpt_local.memory.db import is_encrypted
from memgpt_local.privacy import crypto, keys

PASS = "correct horse battery"


@pytest.fixture(autouse=True)
def shared_embedder(embedder, monkeypatch):
    monkeypatch.setattr("memgpt_local.memory.embed.make_embedder", lambda settings: embedder)
    monkeypatch.delenv(keys.PASSPHRASE_ENV, raising=False)
    monkeypatch.delenv(keys.NEW_PASSPHRASE_ENV, raising=False)


class MemoryKeyring(KeyringBackend):
    priority = 1

    def __init__(self):
        super().__init__()
        self.items: dict[tuple[str, str], str] = {}

    def get_password(self, service, username):
        return self.items.get((service, username))

    def set_password(self, service, username, password):
        self.items[(service, username)] = password

    def delete_password(self, service, username):
        self.items.pop((service, username))


def digest(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_init_encrypt_holds_no_plaintext(cli_runner, data_home, monkeypatch, embedder):
    db = data_home / "memory.db"
    monkeypatch.setenv(keys.PASSPHRASE_ENV, PASS)
    assert "created encrypted memory file" in run(cli_runner, "init", "--encrypt").output
    assert is_encrypted(db)
    run(cli_runner, "agents", "create", "alice")
    run(cli_runner, "archival", "insert", "--agent", "alice", f"The vault code is {SECRET}.")
    out = run(cli_runner, "archival", "search", "--agent", "alice", "vault code").output
    assert SECRET in out  # FTS5 and sqlite-vec work on the encrypted file
    assert not mentions(db, SECRET) and not mentions(db, "vault")
    with open_store(db, embedder, key=PASS) as store:
        assert store.integrity_check() == "ok"
    # the same again is refused
    assert "already exists" in run(cli_runner, "init", "--encrypt", ok=False).stderr


@pytest.mark.parametrize("env", [None, "wrong passphrase"])
def test_missing_or_wrong_key_is_one_line_and_touches_nothing(cli_runner, data_home, monkeypatch, env):
    monkeypatch.setenv(keys.PASSPHRASE_ENV, PASS)
    run(cli_runner, "init", "--encrypt")
    run(cli_runner, "agents", "create", "alice")
    db = data_home / "memory.db"
    before = digest(db)
    if env is None:
        monkeypatch.delenv(keys.PASSPHRASE_ENV)
    else:
        monkeypatch.setenv(keys.PASSPHRASE_ENV, env)
    for args in (
        ["agents", "list"],
        ["recall", "search", "--agent", "alice", "x"],
        ["decrypt"],
        ["rekey"],
        ["export", "--agent", "alice"],
    ):
        result = run(cli_runner, *args, ok=False, input="")
        assert result.exit_code == 1
        assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1
        assert ("no key was found" if env is None else "cannot decrypt") in result.stderr
    assert digest(db) == before


def test_encrypt_decrypt_rekey_keep_every_row(cli_runner, data_home, monkeypatch):
    db = data_home / "memory.db"
    run(cli_runner, "agents", "create", "alice")
    run(cli_runner, "archival", "insert", "--agent", "alice", f"The vault code is {SECRET}.")
    assert mentions(db, SECRET)
    monkeypatch.setenv(keys.PASSPHRASE_ENV, PASS)
    assert "plain -> encrypted" in run(cli_runner, "encrypt").output
    assert is_encrypted(db) and not mentions(db, SECRET)
    assert not crypto.temp_path(db).exists()
    assert SECRET in run(cli_runner, "archival", "search", "--agent", "alice", "vault").output
    assert "already encrypted" in run(cli_runner, "encrypt", ok=False).stderr

    monkeypatch.setenv(keys.NEW_PASSPHRASE_ENV, "another passphrase")
    run(cli_runner, "rekey")
    assert "cannot decrypt" in run(cli_runner, "agents", "list", ok=False).stderr
    monkeypatch.setenv(keys.PASSPHRASE_ENV, "another passphrase")
    assert "alice" in run(cli_runner, "agents", "list").output

    assert "encrypted -> plain" in run(cli_runner, "decrypt").output
    assert not is_encrypted(db) and mentions(db, SECRET)
    monkeypatch.delenv(keys.PASSPHRASE_ENV)
    assert SECRET in run(cli_runner, "archival", "search", "--agent", "alice", "vault").output


def test_short_passphrase_and_no_terminal(cli_runner, monkeypatch):
    assert "no passphrase" in run(cli_runner, "init", "--encrypt", ok=False).stderr
    monkeypatch.setenv(keys.PASSPHRASE_ENV, "short")
    assert "at least 8" in run(cli_runner, "init", "--encrypt", ok=False).stderr


@pytest.mark.parametrize("stage", ["copy", "verify", "swap"])
def test_interrupted_conversion_leaves_the_old_file(cli_runner, data_home, monkeypatch, stage, embedder):
    db = data_home / "memory.db"
    run(cli_runner, "agents", "create", "alice")
    run(cli_runner, "archival", "insert", "--agent", "alice", "keep me")
    before = digest(db)

    def interrupt(*args, **kwargs):
        raise KeyboardInterrupt

    target = {"copy": (crypto.Database, "copy_to"), "verify": (crypto, "verify_copy"), "swap": (crypto.os, "replace")}[
        stage
    ]
    monkeypatch.setattr(*target, interrupt)
    with pytest.raises(KeyboardInterrupt):
        crypto.convert(db, old_key=None, new_key=PASS)
    assert digest(db) == before and not is_encrypted(db)
    assert not any(data_home.glob("*.converting*"))
    with open_store(db, embedder) as store:
        assert store.archival.count(store.agents.get("alice").id) == 1


def test_key_from_keyring_first_and_missing_keyring_is_skipped(cli_runner, data_home, monkeypatch):
    db = data_home / "memory.db"
    assert keys.keyring_get(db) is None  # no backend on this machine: skipped silently
    ring = MemoryKeyring()
    previous = keyring.get_keyring()
    keyring.set_keyring(ring)
    try:
        monkeypatch.setenv(keys.PASSPHRASE_ENV, PASS)
        assert "stored the passphrase" in run(cli_runner, "init", "--encrypt", "--keyring").output
        monkeypatch.setenv(keys.PASSPHRASE_ENV, "not the passphrase")
        run(cli_runner, "agents", "create", "alice")  # the keyring wins over the environment
        assert keys.find_key(db).origin == "keyring"
        monkeypatch.setenv(keys.NEW_PASSPHRASE_ENV, "a new passphrase")
        run(cli_runner, "rekey")  # the keyring entry follows the new passphrase
        assert ring.items[(keys.SERVICE, keys.account(db))] == "a new passphrase"
        assert "alice" in run(cli_runner, "agents", "list").output
        run(cli_runner, "key", "forget")
        assert "cannot decrypt" in run(cli_runner, "agents", "list", ok=False).stderr
    finally:
        keyring.set_keyring(previous)
