"""Pydantic models that cross module boundaries.

Rows leaving ``memory/`` (agents, blocks, messages, passages, search pages), what the model
runtime takes and returns (chat messages, completions with counters) and the parsed function
call the agent executes.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


def utcnow() -> datetime:
    """Timezone-aware 'now' in UTC; every stored timestamp uses this."""
    return datetime.now(timezone.utc)


def human_time(when: datetime) -> str:
    """A timestamp as shown to the model and the user: '2026-11-29 09:30 UTC'."""
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return when.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


class Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


# ---------------------------------------------------------------- memory rows


class Agent(Frozen):
    id: int
    name: str
    created_at: datetime
    model: str | None = None
    system_prompt: str = ""
    summary: str = ""  # recursive summary at the head of the FIFO queue
    state: dict[str, Any] = Field(default_factory=dict)  # small agent-level state (timers, flags)


class CoreBlock(Frozen):
    label: str
    value: str
    limit: int
    read_only: bool = False


MessageRole = Literal["system", "user", "assistant", "function"]


class Message(Frozen):
    """One message in recall storage.

    ``assistant`` messages are model steps: ``content`` holds the inner monologue and
    ``function_name``/``function_args`` the call. ``function`` messages are a call's result
    (``content`` holds the result text). ``system`` and ``user`` messages hold events and
    user text. ``seq`` orders messages within an agent; ``in_context`` marks those in the
    main context's FIFO queue.
    """

    id: int
    agent_id: int
    seq: int
    role: MessageRole
    content: str
    function_name: str | None = None
    function_args: dict[str, Any] | None = None
    request_heartbeat: bool = False  # assistant steps: whether the call asked for another step
    created_at: datetime
    in_context: bool = False
    summarized: bool = False  # folded into the agent's recursive summary when evicted


class NewMessage(Frozen):
    """A message to append (the store assigns id and seq)."""

    role: MessageRole
    content: str
    function_name: str | None = None
    function_args: dict[str, Any] | None = None
    request_heartbeat: bool = False
    created_at: datetime = Field(default_factory=utcnow)
    in_context: bool = True


class Passage(Frozen):
    id: int
    agent_id: int
    text: str
    source_id: int | None = None
    chunk_index: int | None = None
    char_start: int | None = None
    char_end: int | None = None
    created_at: datetime
    citation: str | None = None  # e.g. "notes.md#chunk-3"


class Source(Frozen):
    id: int
    agent_id: int
    path: str
    content_hash: str
    passages: int
    created_at: datetime


class SearchHit(Frozen):
    """One search result: a message or a passage, with its real timestamp."""

    kind: Literal["message", "passage"]
    id: int
    text: str
    created_at: datetime
    score: float = 0.0
    role: MessageRole | None = None
    citation: str | None = None
    copies: int = 1  # entries with this same text that the search found (shown once)


class SearchPage(Frozen):
    items: list[SearchHit]
    total: int
    page: int  # 0-based
    page_size: int

    @property
    def pages(self) -> int:
        return max(1, -(-self.total // self.page_size))

    def describe(self) -> str:
        """'showing 1-5 of 23, page 1/5' (1-based for humans)."""
        if not self.items:
            return f"showing 0 of {self.total}, page {self.page + 1}/{self.pages}"
        first = self.page * self.page_size + 1
        last = first + len(self.items) - 1
        return f"showing {first}-{last} of {self.total}, page {self.page + 1}/{self.pages}"


# ---------------------------------------------------------------- model runtime


class ChatMessage(Frozen):
    """A message as rendered into the model's chat template."""

    role: Literal["system", "user", "assistant"]
    content: str


class FunctionCall(Frozen):
    """One model step: inner monologue, then a function call."""

    thought: str = ""
    function: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    request_heartbeat: bool = False


class Completion(Frozen):
    """What a backend returns for one call, with its counters."""

    text: str
    prompt_tokens: int
    evaluated_tokens: int  # prompt tokens actually run through the model (not served from cache)
    generated_tokens: int
    prefill_seconds: float = 0.0
    decode_seconds: float = 0.0
    finish_reason: Literal["stop", "length"] = "stop"
    draft_tokens: int = 0  # tokens proposed by prompt-lookup drafting and verified in batches
    accepted_draft_tokens: int = 0  # of those, the ones greedy decoding picked anyway
