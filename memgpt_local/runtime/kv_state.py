"""Saved KV state: the model's cache for an agent's prompt, kept on disk between processes.

A new process (``send``, a chat start, a restarted chat) would otherwise re-read the whole
prompt: 1,300 tokens of a short conversation cost ~15 s on two laptop cores. The backend
writes the token list it has evaluated and llama.cpp's state of that sequence into one file
next to the memory file; the next process restores it when the first call's prompt shares a
prefix with those tokens and evaluates only the rest.

File layout: ``MAGIC``, a 4-byte little-endian header length, a JSON header (format, the
``StateKey``, the token count, sha256 of tokens and state), the tokens as int32, the state
bytes. A file written for another model file, context size or library version, a file that
fails its checksums and a file that cannot be read are ignored (the caller is told why, once)
and replaced at the next save. Files are written to a temporary name and renamed, so a reader
sees an old file or a new one, never a torn one.

Encrypted memory files get no state file: the cache is derived from the conversation's text,
and this module does not encrypt. ``memgpt-local forget`` deletes the state files.
"""

from __future__ import annotations

import hashlib
import json
import os
import struct
import tempfile
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from memgpt_local.runtime.base import StatePersisting

if TYPE_CHECKING:
    from memgpt_local.config import ModelSettings

MAGIC = b"MEMGPT-LOCAL-KV\n"
FORMAT = 1
SUFFIX = ".kvstate"


@dataclass(frozen=True)
class StateKey:
    """What a saved state is valid for; any difference makes it unusable."""

    model_path: str
    model_size: int
    model_mtime_ns: int
    n_ctx: int
    library: str

    @classmethod
    def for_model(cls, path: Path, n_ctx: int, library: str) -> StateKey:
        stat = path.stat()
        return cls(str(path.resolve()), stat.st_size, stat.st_mtime_ns, n_ctx, library)


@dataclass(frozen=True)
class SavedState:
    tokens: list[int]
    data: bytes


class StateFileError(Exception):
    """A state file that cannot be used (the message says why)."""


def state_dir(db_path: Path) -> Path:
    """Where the state files of the memory file ``db_path`` live."""
    return db_path.with_name(db_path.name + ".kv")


def state_path(db_path: Path, agent_id: int) -> Path:
    return state_dir(db_path) / f"agent-{agent_id}{SUFFIX}"


def attach_saved_state(
    backend: object,
    db_path: Path,
    agent_id: int,
    settings: ModelSettings,
    *,
    encrypted: bool,
    warn: Callable[[str], None] | None = None,
) -> bool:
    """Give ``backend`` the agent's state file when it keeps one and ``model.persist_kv`` is on;
    never for an encrypted memory file, whose text the state is derived from. True if attached."""
    if not isinstance(backend, StatePersisting) or not settings.persist_kv or encrypted:
        return False
    backend.attach_state_file(state_path(db_path, agent_id), max_bytes=settings.persist_kv_max_mb << 20, warn=warn)
    return True


def save_saved_state(backend: object, warn: Callable[[str], None] | None = None) -> None:
    """Write ``backend``'s KV state file after a turn, when it keeps one; a failure to write is
    a warning (the next start reads the prompt again), never an error."""
    if not isinstance(backend, StatePersisting):
        return
    try:
        backend.save_state_file()
    except OSError as exc:
        if warn is not None:
            warn(f"the model state could not be saved ({exc}); the next start reads the prompt again")


def remove_states(db_path: Path) -> int:
    """Delete every state file of ``db_path``; returns how many went."""
    folder = state_dir(db_path)
    removed = 0
    if folder.is_dir():
        for path in folder.iterdir():
            if path.suffix == SUFFIX or path.name.startswith(".tmp-"):
                path.unlink(missing_ok=True)
                removed += 1
    return removed


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def write_state(path: Path, key: StateKey, state: SavedState) -> int:
    """Write ``state`` atomically; returns the file's size in bytes."""
    tokens = np.asarray(state.tokens, dtype="<i4").tobytes()
    header = json.dumps(
        {
            "format": FORMAT,
            "key": asdict(key),
            "n_tokens": len(state.tokens),
            "tokens_sha256": _digest(tokens),
            "state_bytes": len(state.data),
            "state_sha256": _digest(state.data),
        }
    ).encode("utf-8")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(MAGIC + struct.pack("<I", len(header)) + header)
            out.write(tokens)
            out.write(state.data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return len(MAGIC) + 4 + len(header) + len(tokens) + len(state.data)


def _header(raw: bytes) -> tuple[dict, int]:
    if not raw.startswith(MAGIC) or len(raw) < len(MAGIC) + 4:
        raise StateFileError("not a memgpt-local KV state file")
    (size,) = struct.unpack("<I", raw[len(MAGIC) : len(MAGIC) + 4])
    start = len(MAGIC) + 4
    try:
        header = json.loads(raw[start : start + size])
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise StateFileError(f"its header is damaged ({exc})") from exc
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise StateFileError("it was written by another version of memgpt-local")
    return header, start + size


def read_state(path: Path, key: StateKey) -> SavedState:
    """The state saved at ``path`` for ``key``; ``StateFileError`` when it cannot be used."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise StateFileError(f"it cannot be read ({exc.strerror or exc})") from exc
    header, offset = _header(raw)
    if header.get("key") != asdict(key):
        raise StateFileError("it was saved for another model file, context size or llama.cpp version")
    try:
        n_tokens, n_bytes = int(header["n_tokens"]), int(header["state_bytes"])
        tokens = raw[offset : offset + 4 * n_tokens]
        data = raw[offset + 4 * n_tokens :]
        if len(tokens) != 4 * n_tokens or len(data) != n_bytes:
            raise StateFileError("it is shorter or longer than its header says")
        if _digest(tokens) != header["tokens_sha256"] or _digest(data) != header["state_sha256"]:
            raise StateFileError("its checksums do not match (a damaged file)")
    except (KeyError, TypeError, ValueError) as exc:
        raise StateFileError(f"its header is incomplete ({exc})") from exc
    return SavedState(np.frombuffer(tokens, dtype="<i4").tolist(), data)
