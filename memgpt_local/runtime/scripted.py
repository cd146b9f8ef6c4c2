"""``ScriptedBackend``: a deterministic fake model for tests above the runtime.

It replays a script in order. A ``FunctionCall`` is validated against the request's call
grammar (the function must be one it admits, its arguments must fit that function's spec,
the one the grammar was built from) and is returned as the exact text that grammar makes a
real model write; with ``functions``, calls are also checked when they are scripted, and may
answer requests without a call grammar. A ``str`` is returned verbatim (free text, or
malformed output on purpose). Every request is recorded in ``requests``. Tokens come from a simple deterministic
tokenizer over a simple chat rendering, and the KV-cache prefix reuse of a real backend is
simulated on those token lists, so the agent's cache-friendliness can be tested.
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from dataclasses import dataclass

from memgpt_local.errors import ContextOverflowError, ScriptExhaustedError
from memgpt_local.runtime.base import CallSpec, Grammar, RepeatBan, TextCallback, reusable_prefix
from memgpt_local.runtime.grammar import InvalidScriptError, render_call
from memgpt_local.schemas import ChatMessage, Completion, FunctionCall

# a scripted message that begins so is begun with the grammar's forced start (``ScriptedBackend._with_start``)
AT_FORCED_START = "<forced start>"
_TOKEN = re.compile(r"\s*(?:\w+|[^\w\s])", re.UNICODE)


def simple_tokens(text: str) -> list[str]:
    """Words and single punctuation marks, each with its leading whitespace."""
    return _TOKEN.findall(text)


def render_simple(messages: Sequence[ChatMessage]) -> str:
    """A plain chat rendering with the generation prompt appended."""
    parts = [f"<|{m.role}|>{m.content}<|end|>\n" for m in messages]
    return "".join(parts) + "<|assistant|>"


@dataclass(frozen=True)
class ScriptedRequest:
    messages: list[ChatMessage]
    grammar: Grammar | None
    max_tokens: int
    avoid: RepeatBan | None = None


class ScriptedBackend:
    """Replays ``script``; see the module docstring."""

    def __init__(
        self,
        script: list[FunctionCall | str],
        *,
        n_ctx: int = 4096,
        name: str = "scripted",
        functions: Sequence[CallSpec] | None = None,
    ):
        self.name = name
        self.n_ctx = n_ctx
        self._specs = {spec.name: spec for spec in functions} if functions is not None else None
        self._script: list[FunctionCall | str] = []
        self._check(script)
        self._script.extend(script)
        self._position = 0
        self._cache: list[str] = []
        self.requests: list[ScriptedRequest] = []

    @property
    def remaining(self) -> int:
        return len(self._script) - self._position

    def enqueue(self, *items: FunctionCall | str) -> None:
        """Append to the script (validated like the constructor's script)."""
        self._check(items)
        self._script.extend(items)

    def _check(self, items: Sequence[FunctionCall | str]) -> None:
        """Early errors: a script item of the wrong type; with ``functions``, an unknown
        function or arguments its spec refuses."""
        for offset, item in enumerate(items):
            i = len(self._script) + offset
            if isinstance(item, FunctionCall):
                if self._specs is None:
                    continue
                if item.function not in self._specs:
                    raise InvalidScriptError(f"script item {i}: unknown function {item.function!r}")
                render_call(item, self._specs[item.function])  # validates the arguments
            elif not isinstance(item, str):
                raise InvalidScriptError(f"script item {i} is neither a FunctionCall nor a str")

    def count_tokens(self, messages: list[ChatMessage]) -> int:
        return len(simple_tokens(render_simple(messages)))

    def _reply_text(self, item: FunctionCall | str, grammar: Grammar | None) -> str:
        if isinstance(item, str):
            return item
        heartbeat = grammar.heartbeat if grammar is not None else True
        return render_call(item, self._spec_for(item, grammar), heartbeat=heartbeat)

    @staticmethod
    def _with_start(item: FunctionCall | str, grammar: Grammar | None) -> FunctionCall | str:
        """``item`` with a message that begins with ``AT_FORCED_START`` begun with the grammar's
        forced start instead: for scripts whose start depends on data the test does not spell
        out (a day the evaluation generated)."""
        message = item.arguments.get("message") if isinstance(item, FunctionCall) else None
        if not isinstance(message, str) or not message.startswith(AT_FORCED_START):
            return item
        assert isinstance(item, FunctionCall)
        start = grammar.message_start if grammar is not None else ""
        filled = start + message.removeprefix(AT_FORCED_START)
        return item.model_copy(update={"arguments": {**item.arguments, "message": filled}})

    @staticmethod
    def _check_start(item: FunctionCall | str, grammar: Grammar | None) -> None:
        """A scripted reply must begin as the grammar forces a real model's to."""
        start = grammar.message_start if grammar is not None else ""
        message = item.arguments.get("message") if isinstance(item, FunctionCall) else None
        if start and isinstance(message, str) and not message.startswith(start):
            raise InvalidScriptError(
                f"scripted message {message!r} does not begin with the grammar's forced start {start!r}",
                "script the message with that start",
            )

    def _spec_for(self, call: FunctionCall, grammar: Grammar | None) -> CallSpec:
        """The spec ``call`` is rendered (and its arguments validated) with: the request's call
        grammar's own, else the one given to the constructor."""
        if grammar is not None and grammar.kind == "call":
            if call.function not in grammar.function_names:
                raise InvalidScriptError(
                    f"scripted call of {call.function!r} is not allowed by this request's grammar "
                    f"(allowed: {', '.join(grammar.function_names)})"
                )
            if grammar.thought_max_chars is not None and len(call.thought) > grammar.thought_max_chars:
                raise InvalidScriptError(
                    f"scripted thought of {len(call.thought)} characters exceeds the grammar's "
                    f"{grammar.thought_max_chars}"
                )
            spec = grammar.spec(call.function)
            if spec is not None:
                return spec
        if self._specs is not None and call.function in self._specs:
            return self._specs[call.function]
        if grammar is None or grammar.kind != "call":
            what = "no grammar" if grammar is None else f"a {grammar.kind} grammar"
            raise InvalidScriptError(
                f"scripted call of {call.function!r} answers a request with {what}, not a call grammar",
                "script a str for this request, or pass functions= to ScriptedBackend to render calls here",
            )
        raise InvalidScriptError(
            f"scripted call of {call.function!r}: this request's grammar carries no spec for it",
            "build the grammar with build_call_grammar, or pass functions= to ScriptedBackend",
        )

    def complete(
        self,
        messages: list[ChatMessage],
        *,
        grammar: Grammar | None,
        max_tokens: int,
        on_text: TextCallback | None = None,
        avoid: RepeatBan | None = None,
    ) -> Completion:
        self.requests.append(ScriptedRequest(list(messages), grammar, max_tokens, avoid))
        prompt = simple_tokens(render_simple(messages))
        if len(prompt) + max_tokens > self.n_ctx:
            raise ContextOverflowError(len(prompt), self.n_ctx, max_tokens)
        if self._position >= len(self._script):
            raise ScriptExhaustedError(
                f"the scripted backend ran out after {len(self._script)} completions",
                "add more items to the script",
            )
        started = time.perf_counter()
        reused = reusable_prefix(self._cache, prompt)
        item = self._with_start(self._script[self._position], grammar)
        self._position += 1
        text = self._reply_text(item, grammar)
        self._check_start(item, grammar)
        tokens = simple_tokens(text)
        finish = "stop"
        if len(tokens) > max_tokens:
            tokens, finish = tokens[:max_tokens], "length"
            text = "".join(tokens)
        if on_text is not None:
            for piece in tokens:
                on_text(piece)
        self._cache = prompt + tokens
        elapsed = time.perf_counter() - started
        return Completion(
            text=text,
            prompt_tokens=len(prompt),
            evaluated_tokens=len(prompt) - reused,
            generated_tokens=len(tokens),
            prefill_seconds=elapsed,
            decode_seconds=0.0,
            finish_reason=finish,
        )

    def reset_cache(self) -> None:
        self._cache = []

    def close(self) -> None:
        self._cache = []
