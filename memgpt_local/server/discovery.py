"""How `send` and `chat` find a running server for their data dir: ``serve`` writes ``server.json`` there
(address, process id and token, readable by the owner only) and removes it when it stops. A
file whose process is gone, or whose server does not answer, is ignored (and removed), so a
crashed server never stops `send` from running the turn itself.

Only the standard library is used: `send` and `chat` start as fast without a server as before.
"""

from __future__ import annotations

import contextlib
import json
import os
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from memgpt_local.errors import MemGPTLocalError

SERVER_FILE = "server.json"


@dataclass(frozen=True)
class ServerInfo:
    url: str
    pid: int
    token: str | None = None
    store: str | None = None  # where its memory lives (the file's path, a URL without password)


def server_file(data_dir: Path) -> Path:
    return data_dir / SERVER_FILE


def announce(data_dir: Path, info: ServerInfo) -> None:
    path = server_file(data_dir)
    tmp = path.with_suffix(".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump(asdict(info), handle)
    os.replace(tmp, path)


def withdraw(data_dir: Path, pid: int) -> None:
    """Remove the file if it is this process's."""
    found = _read(server_file(data_dir))
    if found is not None and found.pid == pid:
        server_file(data_dir).unlink(missing_ok=True)


def _read(path: Path) -> ServerInfo | None:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        store = raw.get("store")
        return ServerInfo(
            url=str(raw["url"]),
            pid=int(raw["pid"]),
            token=raw.get("token"),
            store=None if store is None else str(store),
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def running_server(data_dir: Path, store: str | None = None, *, timeout: float = 2.0) -> ServerInfo | None:
    """The server serving ``data_dir``, if one runs and answers (and, given ``store``, serves
    the memory there: a server on a database is not used for the data dir's file)."""
    path = server_file(data_dir)
    info = _read(path)
    if info is None or (store is not None and info.store is not None and info.store != store):
        return None
    try:
        if _alive(info.pid):
            with urllib.request.urlopen(f"{info.url}/api/health", timeout=timeout) as response:
                if response.status == 200:
                    return info
    except (urllib.error.URLError, OSError):
        pass
    if not _alive(info.pid):
        path.unlink(missing_ok=True)  # left by a server that crashed
    return None


def post(info: ServerInfo, path: str, body: dict[str, Any], *, timeout: float = 3600.0) -> Any:
    """POST ``body`` as JSON; the decoded reply, or ``MemGPTLocalError`` with the server's
    own sentence and fix."""
    with _open(info, path, body, timeout) as response:
        return json.loads(response.read().decode("utf-8"))


def post_stream(info: ServerInfo, path: str, body: dict[str, Any], *, timeout: float = 3600.0) -> Iterator[Any]:
    """POST ``body`` and yield the events of the server-sent event stream it answers with."""
    with _open(info, path, body, timeout) as response:
        for raw in response:
            line = raw.decode("utf-8").rstrip("\n")
            if line.startswith("data: "):
                yield json.loads(line[6:])


@contextlib.contextmanager
def _open(info: ServerInfo, path: str, body: dict[str, Any], timeout: float) -> Iterator[Any]:
    headers = {"Content-Type": "application/json"}
    if info.token:
        headers["Authorization"] = f"Bearer {info.token}"
    data = json.dumps(body).encode("utf-8")
    request = urllib.request.Request(f"{info.url}{path}", data=data, headers=headers, method="POST")
    try:
        response = urllib.request.urlopen(request, timeout=timeout)
    except urllib.error.HTTPError as exc:
        try:
            error = json.loads(exc.read().decode("utf-8"))
        except ValueError:
            error = {}
        raise MemGPTLocalError(error.get("error") or f"the server answered {exc.code}", error.get("fix")) from exc
    except (urllib.error.URLError, OSError) as exc:
        raise MemGPTLocalError(
            f"the server at {info.url} did not answer: {exc}", "stop it, or remove server.json"
        ) from exc
    with response:
        yield response


def ensure_agent(info: ServerInfo, name: str) -> None:
    """Create agent ``name`` on the server when it has none of that name (as `send` and `chat`
    create it in their own process)."""
    try:
        post(info, "/api/agents", {"name": name})
    except MemGPTLocalError as exc:
        if "already exists" not in exc.message:
            raise
