"""Where the passphrase of an encrypted memory file comes from.

In order: the OS keyring (``keyring``; an entry per memory file, service ``memgpt-local``),
then ``MEMGPT_LOCAL_PASSPHRASE``, then a prompt, only when stdin is a terminal. A keyring
that is missing or broken is skipped silently: many machines (servers, containers, CI)
have none.
"""

from __future__ import annotations

import getpass
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from memgpt_local.errors import InvalidInputError, KeyRequiredError
from memgpt_local.memory.db import is_encrypted

SERVICE = "memgpt-local"
PASSPHRASE_ENV = "MEMGPT_LOCAL_PASSPHRASE"
NEW_PASSPHRASE_ENV = "MEMGPT_LOCAL_NEW_PASSPHRASE"
MIN_PASSPHRASE = 8

Origin = Literal["keyring", "environment", "prompt"]


@dataclass(frozen=True)
class FoundKey:
    key: str
    origin: Origin


def account(db_path: Path) -> str:
    """The keyring user name of a memory file: its absolute path."""
    return str(Path(db_path).expanduser().resolve())


def keyring_get(db_path: Path) -> str | None:
    try:
        import keyring

        return keyring.get_password(SERVICE, account(db_path)) or None
    except Exception:  # no backend, a locked one, a D-Bus error: skip to the next source
        return None


def keyring_set(db_path: Path, key: str) -> bool:
    """Store the passphrase in the keyring; False when there is no usable keyring."""
    try:
        import keyring

        keyring.set_password(SERVICE, account(db_path), key)
        return True
    except Exception:
        return False


def keyring_delete(db_path: Path) -> bool:
    try:
        import keyring

        keyring.delete_password(SERVICE, account(db_path))
        return True
    except Exception:
        return False


def interactive() -> bool:
    try:
        return sys.stdin.isatty()
    except (AttributeError, ValueError):
        return False


def find_key(db_path: Path, *, allow_prompt: bool = True) -> FoundKey | None:
    """The passphrase from the first source that has one, or None."""
    stored = keyring_get(db_path)
    if stored:
        return FoundKey(stored, "keyring")
    env = os.environ.get(PASSPHRASE_ENV)
    if env:
        return FoundKey(env, "environment")
    if allow_prompt and interactive():
        typed = getpass.getpass(f"passphrase for {db_path}: ")
        if typed:
            return FoundKey(typed, "prompt")
    return None


def key_for(db_path: Path) -> str | None:
    """The key to open ``db_path``: None for a plain (or missing) file; raises
    ``KeyRequiredError`` for an encrypted file when no source has a passphrase."""
    if not is_encrypted(Path(db_path)):
        return None
    found = find_key(db_path)
    if found is None:
        raise KeyRequiredError(str(db_path))
    return found.key


def new_passphrase(what: str, env: str = PASSPHRASE_ENV) -> str:
    """A new passphrase: from ``env``, else typed twice at a terminal."""
    value = os.environ.get(env)
    if not value:
        if not interactive():
            raise InvalidInputError(f"no passphrase for {what}", f"set {env} or run in a terminal to type it")
        value = getpass.getpass(f"new passphrase for {what}: ")
        if getpass.getpass("repeat it: ") != value:
            raise InvalidInputError("the two passphrases differ", "run the command again")
    if len(value) < MIN_PASSPHRASE:
        raise InvalidInputError(f"the passphrase has {len(value)} characters", f"use at least {MIN_PASSPHRASE}")
    return value
