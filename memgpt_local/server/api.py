"""The HTTP API: agents, turns (JSON or server-sent events), core memory, recall and
archival search, documents, the context window; the web UI (``static/``, at ``/``) and the
OpenAI-compatible endpoints (``server/openai_api.py``).

Errors are JSON objects ``{"error": ..., "fix": ...}`` with the same sentence and fix the CLI
prints; no traceback reaches a client (the server log keeps it). FastAPI serves the OpenAPI
description at ``/openapi.json`` and its pages at ``/docs``.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from fastapi import FastAPI, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response, StreamingResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, Field

from memgpt_local import __version__
from memgpt_local.errors import (
    ContextOverflowError,
    InvalidInputError,
    MemGPTLocalError,
    NotFoundError,
)
from memgpt_local.server import openai_api
from memgpt_local.server.hub import AgentHub
from memgpt_local.server.security import Guard
from memgpt_local.server.stream import TurnStream

log = logging.getLogger("memgpt_local.server")
MAX_BODY_BYTES = 1 << 20
MAX_UPLOAD_BYTES = 32 << 20
PAGE_POLICY = "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'"


class AgentIn(BaseModel):
    name: str = Field(min_length=1, max_length=100)
    persona: str | None = None
    human: str | None = None


class MessageIn(BaseModel):
    message: str = ""
    event: Literal["user", "login", "heartbeat"] = "user"
    stream: bool = False


class CommandIn(BaseModel):
    arg: str = ""


class BlockIn(BaseModel):
    value: str


class ForgetIn(BaseModel):
    """Exactly one of search, message, passage, before, source, all; ``apply`` false shows the plan."""

    search: str | None = None
    message: int | None = None
    passage: int | None = None
    before: str | None = Field(None, description="YYYY-MM-DD: everything older")
    source: str | None = None
    all: bool = False
    core_lines: bool = Field(True, description="also remove the core memory lines that match")
    apply: bool = False


def error_status(exc: MemGPTLocalError) -> int:
    if isinstance(exc, NotFoundError):
        return 404
    if isinstance(exc, ContextOverflowError):
        return 413
    if isinstance(exc, InvalidInputError):
        return 400
    return 500 if not exc.hint else 400


def error_body(message: str, fix: str | None) -> dict[str, Any]:
    return {"error": message, "fix": fix}


def sse(events: Iterator[dict[str, Any]]) -> Iterator[str]:
    for event in events:
        yield f"event: {event['type']}\ndata: {json.dumps(event, ensure_ascii=False)}\n\n"


def create_app(
    hub: AgentHub,
    *,
    token: str | None = None,
    max_body_bytes: int = MAX_BODY_BYTES,
    max_upload_bytes: int = MAX_UPLOAD_BYTES,
) -> Guard:
    """The ASGI application serving ``hub``."""
    app = FastAPI(title="memgpt-local", version=__version__, description="A local assistant with long-term memory.")

    @app.exception_handler(MemGPTLocalError)
    async def known_error(request: Request, exc: MemGPTLocalError) -> JSONResponse:
        return JSONResponse(error_body(exc.message, exc.hint), status_code=error_status(exc))

    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, exc: RequestValidationError) -> JSONResponse:
        first = exc.errors()[0] if exc.errors() else {}
        where = ".".join(str(p) for p in first.get("loc", ()) if p != "body")
        message = f"{where}: {first.get('msg', 'invalid request')}" if where else first.get("msg", "invalid request")
        return JSONResponse(error_body(message, "see /docs for the request format"), status_code=422)

    @app.exception_handler(Exception)
    async def unexpected(request: Request, exc: Exception) -> JSONResponse:
        log.exception("request failed: %s %s", request.method, request.url.path)
        return JSONResponse(error_body(f"internal error ({type(exc).__name__})", "see the server log"), 500)

    @app.get("/api/health")
    def health() -> dict[str, Any]:
        return {"ok": True, "version": __version__}

    @app.get("/api/agents")
    def list_agents() -> list[dict[str, Any]]:
        with hub.read_lock:
            return [a.model_dump(mode="json") for a in hub.read_store.agents.list()]

    @app.post("/api/agents", status_code=201)
    def create_agent(body: AgentIn) -> dict[str, Any]:
        return hub.create_agent(body.name, persona=body.persona, human=body.human).model_dump(mode="json")

    @app.get("/api/agents/{name}")
    def show_agent(name: str) -> dict[str, Any]:
        with hub.read_lock:
            store = hub.read_store
            agent = store.agents.get(name)
            return {
                **agent.model_dump(mode="json"),
                "messages": store.recall.count(agent.id),
                "passages": store.archival.count(agent.id),
                "sources": len(store.sources.list(agent.id)),
                "blocks": [b.model_dump() for b in store.core.blocks(agent.id)],
            }

    @app.delete("/api/agents/{name}", status_code=204)
    def delete_agent(name: str) -> None:
        hub.delete_agent(name)

    @app.post("/api/agents/{name}/messages", response_model=None)
    def send(name: str, body: MessageIn) -> dict[str, Any] | StreamingResponse:
        hub.agent(name)  # 404 before anything runs
        if body.event == "user" and not body.message.strip():
            raise InvalidInputError("the message is empty", "send some text")
        if body.stream:
            stream = TurnStream()
            events = stream.run(lambda observer: hub.run_turn(name, body.event, body.message, observer))
            return StreamingResponse(sse(events), media_type="text/event-stream", headers={"Cache-Control": "no-cache"})
        return hub.run_turn(name, body.event, body.message).as_dict()

    @app.get("/api/agents/{name}/messages")
    def transcript(name: str, limit: int = 100) -> list[dict[str, Any]]:
        """The newest ``limit`` messages (user text, steps with their calls, results, events)."""
        with hub.read_lock:
            agent = hub.read_store.agents.get(name)
            messages = hub.read_store.recall.last(agent.id, max(1, min(limit, 1000)))
        return [
            {
                "id": m.id,
                "role": m.role,
                "text": m.content,
                "function": m.function_name,
                "arguments": m.function_args,
                "created_at": m.created_at.isoformat(),
            }
            for m in messages
        ]

    @app.get("/api/agents/{name}/context")
    def context(name: str) -> dict[str, Any]:
        return hub.context(name)

    @app.get("/api/agents/{name}/sources")
    def sources(name: str) -> list[dict[str, Any]]:
        with hub.read_lock:
            agent = hub.read_store.agents.get(name)
            return [source.model_dump(mode="json") for source in hub.read_store.sources.list(agent.id)]

    @app.post("/api/agents/{name}/sources", status_code=201)
    async def upload(name: str, filename: str, request: Request) -> dict[str, Any]:
        """Load the request body as the file ``filename`` (up to the upload bound)."""
        data = await request.body()
        summary = await run_in_threadpool(hub.load_document, name, filename, data)
        return {"summary": summary}

    @app.delete("/api/agents/{name}/sources/{ref}")
    def remove_source(name: str, ref: str) -> dict[str, Any]:
        return {"removed_passages": hub.remove_source(name, ref)}

    @app.post("/api/agents/{name}/commands/{command}")
    def command(name: str, command: str, body: CommandIn) -> StreamingResponse:
        """A chat slash command, streamed like a turn (a command that runs steps streams them)."""
        hub.agent(name)
        stream = TurnStream()
        events = stream.run(lambda observer: hub.run_command(name, command, body.arg, observer))
        return StreamingResponse(sse(events), media_type="text/event-stream", headers={"Cache-Control": "no-cache"})

    @app.post("/api/agents/{name}/forget")
    def forget(name: str, body: ForgetIn) -> dict[str, Any]:
        from memgpt_local.privacy.forget import Selection

        selection = Selection(body.search, body.message, body.passage, body.before, body.source, body.all)
        return hub.forget(name, selection, apply=body.apply, core_lines=body.core_lines)

    @app.get("/api/agents/{name}/export")
    def export(name: str) -> Response:
        text = hub.export(name)
        disposition = f'attachment; filename="{re.sub(r"[^A-Za-z0-9._-]", "_", name)}.json"'
        return Response(text, media_type="application/json", headers={"Content-Disposition": disposition})

    @app.get("/api/agents/{name}/memory/core")
    def core_memory(name: str) -> list[dict[str, Any]]:
        with hub.read_lock:
            agent = hub.read_store.agents.get(name)
            return [b.model_dump() for b in hub.read_store.core.blocks(agent.id)]

    @app.put("/api/agents/{name}/memory/core/{label}")
    def edit_core_memory(name: str, label: str, body: BlockIn) -> dict[str, Any]:
        with hub.write_lock:
            agent = hub.store.agents.get(name)
            return hub.store.core.set_value(agent.id, label, body.value).model_dump()

    @app.get("/api/agents/{name}/search/{kind}")
    def search(name: str, kind: Literal["recall", "archival"], q: str, page: int = 1) -> dict[str, Any]:
        if not q.strip():
            raise InvalidInputError("the query is empty", "pass q=some words")
        if page < 1:
            raise InvalidInputError("pages start at 1", "pass page=1 or more")
        with hub.read_lock:
            store = hub.read_store
            agent = store.agents.get(name)
            memory = store.recall if kind == "recall" else store.archival
            result = memory.search(agent.id, q, page=page - 1)
            return {
                "hits": [hit.model_dump(mode="json") for hit in result.items],
                "total": result.total,
                "page": result.page + 1,
                "pages": result.pages,
            }

    static = Path(str(resources.files("memgpt_local.server") / "static"))
    app.mount("/static", StaticFiles(directory=static), name="static")

    @app.get("/", include_in_schema=False)
    def page() -> FileResponse:
        # the page loads only its own script and style: nothing from elsewhere can run in it
        return FileResponse(static / "index.html", headers={"Content-Security-Policy": PAGE_POLICY})

    openai_api.register(app, hub)
    return Guard(app, token=token, max_body_bytes=max_body_bytes, max_upload_bytes=max_upload_bytes)
