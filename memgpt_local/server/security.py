"""The server's front door, as one ASGI middleware: a bearer token when one is set, no
requests from other sites' pages, and bounded request bodies.

- **Token.** With ``token`` set, every request but ``/api/health`` must carry
  ``Authorization: Bearer TOKEN`` (what the ``openai`` client sends as its API key). The CLI
  refuses to bind beyond loopback without one.
- **Origin.** A browser page on another site can send requests to a local port. Browsers add
  an ``Origin`` header to such requests; one whose host is not the ``Host`` the request was sent
  to is refused (403), so only pages served by this server (or clients that are not browsers)
  get in.
- **Host.** Without a token, a request must name a loopback host (``127.0.0.1``, ``localhost``,
  ``[::1]``): a site whose own name was made to resolve to 127.0.0.1 (DNS rebinding) sends its
  own name as ``Host``, and its own origin too, so the Origin check alone would let it in.
- **Size.** A body longer than ``max_body_bytes`` (``max_upload_bytes`` for an upload of a
  source) is refused (413), whether it announces its
  length or not (an unannounced one is read here, up to the bound, before the app sees it).
"""

from __future__ import annotations

import hmac
import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import urlsplit

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

OPEN_PATHS = frozenset({"/api/health"})


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", []):
        if key.lower() == name:
            return value.decode("latin-1")
    return None


async def _refuse(send: Send, status: int, error: str, fix: str) -> None:
    body = json.dumps({"error": error, "fix": fix}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


LOOPBACK_NAMES = frozenset({"127.0.0.1", "localhost", "[::1]", "::1"})


def loopback_host(host: str | None) -> bool:
    """Whether a ``Host`` header names this machine's loopback (any port)."""
    if not host:
        return False
    name = host.lower()
    if name.startswith("["):
        name = name.split("]")[0] + "]"
    else:
        name = name.rsplit(":", 1)[0] if name.count(":") == 1 else name
    return name in LOOPBACK_NAMES


def same_origin(origin: str, host: str | None) -> bool:
    """Whether an ``Origin`` header names the host the request was sent to."""
    if origin == "null" or host is None:
        return False
    return urlsplit(origin).netloc.lower() == host.lower()


class Guard:
    """See the module docstring."""

    def __init__(self, app: ASGIApp, *, token: str | None, max_body_bytes: int, max_upload_bytes: int = 0):
        self.app = app
        self.token = token
        self.max_body_bytes = max_body_bytes
        self.max_upload_bytes = max(max_upload_bytes, max_body_bytes)

    def limit(self, scope: Scope) -> int:
        """Bytes a body may have: uploads of sources get the larger bound."""
        is_upload = scope.get("method") == "POST" and str(scope["path"]).endswith("/sources")
        return self.max_upload_bytes if is_upload else self.max_body_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if self.token is None and not loopback_host(_header(scope, b"host")):
            await _refuse(send, 403, "this server answers only to 127.0.0.1 and localhost", "use http://127.0.0.1:PORT")
            return
        origin = _header(scope, b"origin")
        if origin is not None and not same_origin(origin, _header(scope, b"host")):
            await _refuse(send, 403, f"requests from {origin} are not accepted", "open the page this server serves")
            return
        if self.token is not None and scope["path"] not in OPEN_PATHS:
            given = _header(scope, b"authorization") or ""
            scheme, _, value = given.partition(" ")
            if scheme.lower() != "bearer" or not hmac.compare_digest(value.strip(), self.token):
                await _refuse(send, 401, "a valid token is required", "send the header Authorization: Bearer TOKEN")
                return
        length, limit = _header(scope, b"content-length"), self.limit(scope)
        if length is not None and length.isdigit() and int(length) > limit:
            await _refuse(send, 413, f"the request body is over {limit} bytes", "send less at a time")
            return
        await self._bounded(scope, receive, send, limit)

    async def _bounded(self, scope: Scope, receive: Receive, send: Send, limit: int) -> None:
        """Read a body of unannounced length here, bounded, and hand it on whole (FastAPI turns
        an error raised while it reads a body into its own 400)."""
        if _header(scope, b"content-length") is not None or scope.get("method") in ("GET", "HEAD", "DELETE"):
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        received = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                break
            chunks.append(message.get("body", b""))
            received += len(chunks[-1])
            if received > limit:
                await _refuse(send, 413, f"the request body is over {limit} bytes", "send less at a time")
                return
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        delivered = False

        async def replay() -> Message:
            nonlocal delivered
            if delivered:
                return await receive()
            delivered = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)
