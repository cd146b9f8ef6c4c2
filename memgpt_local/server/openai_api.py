"""OpenAI-compatible endpoints, so tools that speak the OpenAI API can talk to an agent.

- ``GET /v1/models`` lists the agents: each agent is a "model".
- ``POST /v1/chat/completions`` runs one turn of the agent named by ``model``. The agent has
  its own memory (core memory, the conversation so far, recall and archival storage), so only
  the **last user message** of the request is the user's turn; the earlier messages, any system
  message and sampling parameters (``temperature``, ``max_tokens``, ...) are ignored, because
  the agent's context and its model settings are its own. The reply is the turn's messages to
  the user, joined by blank lines. ``stream: true`` sends each reply once it has passed the
  policies' review: an OpenAI stream cannot take text back, and a draft a guard holds back
  (an "I don't know" with the answer in memory, the user's own words sent back) must never
  reach the client. The native API (``/api/agents/{name}/messages``) streams drafts as they
  are generated and says which were held.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from typing import Any

from fastapi import FastAPI
from fastapi.responses import JSONResponse, StreamingResponse
from pydantic import BaseModel, ConfigDict

from memgpt_local.errors import InvalidInputError, NotFoundError
from memgpt_local.server.hub import AgentHub
from memgpt_local.server.stream import TurnStream


class ChatRequestMessage(BaseModel):
    model_config = ConfigDict(extra="allow")
    role: str
    content: str | list[dict[str, Any]] | None = None


class ChatRequest(BaseModel):
    model_config = ConfigDict(extra="allow")  # sampling parameters and the rest are accepted, and ignored
    model: str
    messages: list[ChatRequestMessage]
    stream: bool = False


def last_user_text(messages: list[ChatRequestMessage]) -> str:
    """The text of the last user message (string content, or its text parts)."""
    for message in reversed(messages):
        if message.role != "user":
            continue
        if isinstance(message.content, str):
            text = message.content
        else:
            text = "".join(str(p.get("text", "")) for p in message.content or [] if p.get("type") == "text")
        if text.strip():
            return text
    raise InvalidInputError("the request has no user message with text", "end messages with a user message")


def openai_error(status: int, message: str, code: str) -> JSONResponse:
    return JSONResponse({"error": {"message": message, "type": "invalid_request_error", "code": code}}, status)


def register(app: FastAPI, hub: AgentHub) -> None:
    @app.get("/v1/models")
    def models() -> dict[str, Any]:
        with hub.read_lock:
            agents = hub.read_store.agents.list()
        data = [
            {"id": a.name, "object": "model", "created": int(a.created_at.timestamp()), "owned_by": "memgpt-local"}
            for a in agents
        ]
        return {"object": "list", "data": data}

    @app.post("/v1/chat/completions", response_model=None)
    def chat_completions(body: ChatRequest) -> Any:
        try:
            hub.agent(body.model)
        except NotFoundError as exc:
            return openai_error(404, str(exc), "model_not_found")
        try:
            text = last_user_text(body.messages)
        except InvalidInputError as exc:
            return openai_error(400, str(exc), "invalid_messages")
        completion_id = f"chatcmpl-{uuid.uuid4().hex[:24]}"
        created = int(time.time())
        if body.stream:
            chunks = _stream(hub, body.model, text, completion_id, created)
            return StreamingResponse(chunks, media_type="text/event-stream", headers={"Cache-Control": "no-cache"})
        turn = hub.run_turn(body.model, "user", text)
        generated = sum(s.completion.generated_tokens for s in turn.steps)
        prompt = sum(s.completion.prompt_tokens for s in turn.steps)
        return {
            "id": completion_id,
            "object": "chat.completion",
            "created": created,
            "model": body.model,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": "\n\n".join(turn.messages)},
                    "finish_reason": "stop",
                }
            ],
            "usage": {"prompt_tokens": prompt, "completion_tokens": generated, "total_tokens": prompt + generated},
        }


def _stream(hub: AgentHub, name: str, text: str, completion_id: str, created: int) -> Iterator[str]:
    def chunk(delta: dict[str, Any], finish: str | None = None) -> str:
        body = {
            "id": completion_id,
            "object": "chat.completion.chunk",
            "created": created,
            "model": name,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }
        return f"data: {json.dumps(body, ensure_ascii=False)}\n\n"

    yield chunk({"role": "assistant", "content": ""})
    stream = TurnStream()
    messages_sent = 0  # replies streamed so far: a second one starts after a blank line
    draft: list[str] = []  # the step's reply so far, sent once no policy holds it back
    for event in stream.run(lambda observer: hub.run_turn(name, "user", text, observer)):
        if event["type"] == "step":
            draft = []
        elif event["type"] == "message":
            draft.append(event["delta"])
        elif event["type"] == "call" and draft:
            if event["held"] is None:  # an OpenAI stream cannot take back what it sent
                yield chunk({"content": ("\n\n" if messages_sent else "") + "".join(draft)})
                messages_sent += 1
            draft = []
        elif event["type"] == "error":
            yield f"data: {json.dumps({'error': {'message': event['error'], 'type': 'server_error'}})}\n\n"
            break
    yield chunk({}, "stop")
    yield "data: [DONE]\n\n"
