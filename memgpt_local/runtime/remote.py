"""A model on an OpenAI-compatible inference server (llama.cpp's server, llama-cpp-python's
``llama_cpp.server``, vLLM, Ollama), used like the in-process one.

``--model http://HOST:PORT/v1`` (or ``https://``; ``#NAME`` picks one of the server's models).

- **Every step parses.** The step's GBNF grammar goes with the request (``grammar``), which
  llama.cpp's server and ``llama_cpp.server`` apply while sampling. For servers without GBNF
  (``model.remote_constraint = "json_schema"``: vLLM, Ollama) a call grammar is sent as a JSON
  schema of its functions (``response_format``); a step that still does not parse is the agent
  loop's invalid-output step, as with any model.
- **The server applies the chat template.** Messages go as they are.
- **Token counts.** llama.cpp's server renders and tokenizes a prompt exactly
  (``/apply-template``, ``/tokenize``); ``llama_cpp.server`` tokenizes text
  (``/extras/tokenize/count``), so a prompt is counted as its messages' text plus a margin for
  the template (``TEMPLATE_TOKENS`` per message, then ``ESTIMATE_MARGIN``); a server with
  neither is estimated from characters (``CHARS_PER_TOKEN``, with the margin). Counts err high,
  so the queue manager evicts a little early rather than overflowing the server's window.
- **The window** is the server's own context size where it reports one (llama.cpp's
  ``/props``), else ``model.remote_n_ctx``; without either the backend refuses to start.
- Sampling is greedy at ``model.temperature``; the repeat ban (``avoid``) needs the sampler and
  is not applied; the KV cache is the server's.
"""

from __future__ import annotations

import json
import math
import time
from typing import Any, Literal

import httpx

from memgpt_local.errors import ContextOverflowError, ModelError
from memgpt_local.runtime.base import Grammar, RepeatBan, TextCallback
from memgpt_local.schemas import ChatMessage, Completion

REMOTE_PREFIXES = ("http://", "https://")
TEMPLATE_TOKENS = 8  # a chat template's tokens around one message (ChatML: 5), counted high
ESTIMATE_MARGIN = 1.10  # an estimated count is raised by a tenth
CHARS_PER_TOKEN = 3.0  # for a server that tokenizes nothing: English runs near 4 characters a token

Counting = Literal["exact", "text", "chars"]


def is_remote(model: str) -> bool:
    return model.startswith(REMOTE_PREFIXES)


def _message(m: ChatMessage) -> dict[str, str]:
    return {"role": m.role, "content": m.content}


def call_schema(grammar: Grammar) -> dict[str, Any]:
    """A JSON schema admitting what a call grammar admits (for servers without GBNF)."""
    options = []
    thought: dict[str, Any] = {"type": "string"}
    if grammar.thought_max_chars is not None:
        thought["maxLength"] = grammar.thought_max_chars
    for spec in grammar.specs:
        properties: dict[str, Any] = {
            "thought": thought,
            "function": {"const": spec.name},
            "arguments": spec.args_model.model_json_schema(),
        }
        if grammar.heartbeat and spec.allows_heartbeat:
            properties["request_heartbeat"] = {"type": "boolean"}
        options.append(
            {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}
        )
    return {"anyOf": options} if len(options) != 1 else options[0]


class RemoteBackend:
    """``Backend`` over HTTP (see the module docstring)."""

    def __init__(
        self,
        url: str,
        *,
        n_ctx: int | None = None,
        api_key: str | None = None,
        constraint: Literal["grammar", "json_schema"] = "grammar",
        temperature: float = 0.0,
        seed: int = 0,
        timeout: float = 600.0,
        client: httpx.Client | None = None,
    ):
        base, _, model = url.partition("#")
        self.base = base.rstrip("/")
        self.root = self.base[: -len("/v1")] if self.base.endswith("/v1") else self.base
        if not self.base.endswith("/v1"):
            self.base += "/v1"
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self.http = client or httpx.Client(headers=headers, timeout=timeout)
        self.constraint = constraint
        self.temperature = temperature
        self.seed = seed
        self.model = model or self._first_model()
        self.name = self.model
        reported = self._reported_n_ctx()
        if reported is None and n_ctx is None:
            raise ModelError(
                f"the server at {self.root} does not report its context size: set model.remote_n_ctx in "
                "config.toml (or pass --n-ctx) to the context size the server was started with"
            )
        self.n_ctx = min(n for n in (reported, n_ctx) if n is not None)
        self.counting: Counting = self._probe_counting()

    # ------------------------------------------------------------ server facts

    def _get(self, url: str) -> httpx.Response:
        try:
            return self.http.get(url)
        except httpx.HTTPError as exc:
            raise ModelError(f"cannot reach the model server at {self.root}: {exc}") from exc

    def _post(self, url: str, body: dict[str, Any]) -> httpx.Response:
        try:
            return self.http.post(url, json=body)
        except httpx.HTTPError as exc:
            raise ModelError(f"cannot reach the model server at {self.root}: {exc}") from exc

    def _first_model(self) -> str:
        response = self._get(f"{self.base}/models")
        if response.status_code != 200:
            raise ModelError(f"the server at {self.root} did not list its models ({response.status_code})")
        models = [m.get("id") for m in response.json().get("data", []) if m.get("id")]
        if not models:
            raise ModelError(f"the server at {self.root} serves no model")
        return str(models[0])

    def _reported_n_ctx(self) -> int | None:
        response = self._get(f"{self.root}/props")
        if response.status_code != 200:
            return None
        props = response.json()
        n_ctx = props.get("n_ctx") or (props.get("default_generation_settings") or {}).get("n_ctx")
        return int(n_ctx) if n_ctx else None

    def _probe_counting(self) -> Counting:
        probe = [ChatMessage(role="user", content="hi")]
        options: tuple[Counting, ...] = ("exact", "text")
        for counting in options:
            try:
                self._count(probe, counting)
                return counting
            except (ModelError, KeyError, ValueError):
                continue
        return "chars"

    # ------------------------------------------------------------ Backend

    def _count(self, messages: list[ChatMessage], counting: Counting) -> int:
        if counting == "exact":
            rendered = self._post(f"{self.root}/apply-template", {"messages": [_message(m) for m in messages]})
            if rendered.status_code != 200:
                raise ModelError("no /apply-template")
            tokens = self._post(f"{self.root}/tokenize", {"content": rendered.json()["prompt"], "add_special": True})
            if tokens.status_code != 200:
                raise ModelError("no /tokenize")
            return len(tokens.json()["tokens"])
        text = "\n".join(f"{m.role}\n{m.content}" for m in messages)
        if counting == "text":
            counted = self._post(f"{self.root}/extras/tokenize/count", {"input": text, "model": self.model})
            if counted.status_code != 200:
                raise ModelError("no /extras/tokenize/count")
            raw = int(counted.json()["count"])
        else:
            raw = math.ceil(len(text) / CHARS_PER_TOKEN)
        return math.ceil((raw + TEMPLATE_TOKENS * len(messages) + TEMPLATE_TOKENS) * ESTIMATE_MARGIN)

    def count_tokens(self, messages: list[ChatMessage]) -> int:
        """The prompt's tokens: exact where the server renders and tokenizes, else an estimate
        that errs high (see the module docstring)."""
        return self._count(messages, self.counting)

    def _constraint(self, grammar: Grammar | None) -> dict[str, Any]:
        if grammar is None:
            return {}
        if self.constraint == "grammar":
            return {"grammar": grammar.text}
        if grammar.kind == "call" and grammar.specs:
            schema = call_schema(grammar)
        else:
            schema = {"type": "object"}
        return {"response_format": {"type": "json_schema", "json_schema": {"name": "step", "schema": schema}}}

    def complete(
        self,
        messages: list[ChatMessage],
        *,
        grammar: Grammar | None,
        max_tokens: int,
        on_text: TextCallback | None = None,
        avoid: RepeatBan | None = None,
    ) -> Completion:
        if max_tokens < 1:
            raise ModelError("max_tokens must be at least 1")
        prompt_tokens = self.count_tokens(messages)
        if prompt_tokens + max_tokens > self.n_ctx:
            raise ContextOverflowError(prompt_tokens, self.n_ctx, max_tokens)
        body = {
            "model": self.model,
            "messages": [_message(m) for m in messages],
            "max_tokens": max_tokens,
            "temperature": self.temperature,
            "seed": self.seed,
            "stream": True,
            **self._constraint(grammar),
        }
        started = time.perf_counter()
        first: float | None = None
        pieces: list[str] = []
        finish = "stop"
        usage: dict[str, Any] = {}
        try:
            with self.http.stream("POST", f"{self.base}/chat/completions", json=body) as response:
                if response.status_code != 200:
                    response.read()
                    raise ModelError(
                        f"the model server at {self.root} answered {response.status_code}: {response.text[:300]}"
                    )
                for line in response.iter_lines():
                    if not line.startswith("data:"):
                        continue
                    data = line[len("data:") :].strip()
                    if data == "[DONE]":
                        break
                    chunk = json.loads(data)
                    usage = chunk.get("usage") or usage
                    for choice in chunk.get("choices") or []:
                        delta = (choice.get("delta") or {}).get("content") or ""
                        if delta:
                            first = first or time.perf_counter()
                            pieces.append(delta)
                            if on_text is not None:
                                on_text(delta)
                        if choice.get("finish_reason") == "length":
                            finish = "length"
        except httpx.HTTPError as exc:
            raise ModelError(f"the model server at {self.root} failed mid-reply: {exc}") from exc
        ended = time.perf_counter()
        text = "".join(pieces)
        generated = int(usage.get("completion_tokens") or 0) or max(1, len(pieces))
        return Completion(
            text=text,
            prompt_tokens=int(usage.get("prompt_tokens") or prompt_tokens),
            evaluated_tokens=int(usage.get("prompt_tokens") or prompt_tokens),  # the server's cache is not reported
            generated_tokens=generated,
            prefill_seconds=(first or ended) - started,
            decode_seconds=ended - (first or ended),
            finish_reason="length" if finish == "length" else "stop",
        )

    def reset_cache(self) -> None:
        """The server keeps its own cache: nothing to forget here."""

    def close(self) -> None:
        self.http.close()
