"""What a memory policy is: a small part with four optional hooks around the step loop.

- ``start(turn, memory)``: before the first step; may return notices to put beside the event
  (prefetch) and may set up the turn (question focus, search first).
- ``plan(turn, plan)``: before each step; may narrow the functions the step may call.
- ``review(turn, draft, memory)``: a draft reply, before the user sees it; may hold it back
  with a typed ``Hold`` (its notice becomes the step's result).
- ``after_step(turn, step, memory)``: after each step that was not held back; may ask for
  another step or a reply, or end the turn, and may return notices to append (recap).
- ``before_end(turn)``: when the turn would end; may return a reason to run one more step
  that must reply.

A policy sees the turn and a read-only ``MemoryView``, so each one is tested alone with a
fake view: no embedder, SQLite or model needed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import ClassVar, Literal, Protocol

import numpy as np

from memgpt_local.agent.turn import Hold, StepRecord, Turn
from memgpt_local.functions.links import Link
from memgpt_local.functions.specs import FunctionKind
from memgpt_local.schemas import ChatMessage, Message, NewMessage, SearchHit
from memgpt_local.text import denies

SearchKind = Literal["message", "passage"]
ALL_KINDS: frozenset[FunctionKind] = frozenset(("reply", "search", "memory_edit", "control"))


@dataclass(frozen=True)
class StepPlan:
    """Which kinds of function the next step may call, and why it is narrowed."""

    kinds: frozenset[FunctionKind] = ALL_KINDS
    last: bool = False  # the chain cap: no step follows this one
    reason: str | None = None
    thought_max_chars: int | None = None  # a tighter bound on the step's thought than the settings' (0: none)

    @property
    def reply_only(self) -> bool:
        return self.kinds == frozenset(("reply",))

    def only(self, *kinds: FunctionKind, reason: str) -> StepPlan:
        return replace(self, kinds=frozenset(kinds), reason=reason)


@dataclass(frozen=True)
class Draft:
    """A reply the model wrote, not yet shown to the user."""

    message: str
    prompt: Sequence[ChatMessage]  # the main context the step was written from
    plan: StepPlan
    thought: str = ""  # the step's inner thought, which the user never sees

    def written_after(self, start: str) -> str:
        """The message less the words a policy began it with (``Turn.reply_start``): what the
        model itself wrote. "On Monday 5 May, you told me" is no claim, no copy and no echo of
        the model's. A forced "I don't know" stays: it is what the rest of the sentence says
        (without it, "where Thailduard went to school." read as a claim, bench_honesty seed 55)."""
        return self.message.removeprefix(start).lstrip() if start and not denies(start) else self.message


class MemoryView(Protocol):
    """What policies may read of the agent's memory (the agent's own view implements it)."""

    def in_context(self) -> Sequence[Message]:
        """The FIFO queue of the main context, oldest first."""
        ...

    def beyond_context(self) -> bool:
        """Whether recall or archival memory holds anything the context does not show."""
        ...

    def search(self, kind: SearchKind, text: str, k: int) -> list[SearchHit]:
        """The top ``k`` recall messages outside the context, or archival passages, for ``text``
        ([] when it has no searchable words)."""
        ...

    def links(self, kind: SearchKind, hits: Sequence[SearchHit]) -> dict[int, list[Link]] | None:
        """Linked memory for ``hits`` when it is switched on (``agent.link_depth``), else None."""
        ...

    def containing(self, kind: SearchKind, text: str, limit: int) -> list[SearchHit]:
        """Entries whose text contains ``text`` exactly (recall: outside the context only)."""
        ...

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """One unit vector per text."""
        ...

    def core_lines(self) -> list[tuple[str, str]]:
        """(block label, line) for every non-empty line of core memory."""
        ...


def reply_target(turn: Turn) -> str:
    """What a held draft's notice tells the model to answer: the user's words when a user
    started the turn, else the event above (a login, a document, a heartbeat). The words are
    quoted inside the sentence, never left last: a notice that ended with them was followed by
    a copy of them in 7 of 15 redrafts across the evaluation traces, against 2 of 113 after
    other notices ("Hey Mumgrouel, help me out here. Who is my boss at Bisu Library these
    days?" sent back to the user, dmr seed 16, stop 53)."""
    return f"{users_message(turn)}, in your own words, without copying it" if turn.question else "the event above"


def reply_before(turn: Turn, memory: MemoryView) -> str:
    """The assistant's last message sent before the turn's event (all of the conversation in view
    when the event is not stored yet), else ""."""
    sent = [
        str((m.function_args or {}).get("message") or "")
        for m in memory.in_context()
        if m.role == "assistant" and (turn.event_id is None or m.id < turn.event_id)
    ]
    return next((text for text in reversed(sent) if text), "")


def users_message(turn: Turn) -> str:
    """The user's message of the turn, quoted for a notice: 'the user's message ("...")'."""
    return f'the user\'s message ("{turn.question}")'


class Policy:
    """Base class: every hook does nothing. Subclasses set ``name`` (the config key)."""

    name: ClassVar[str]

    def start(self, turn: Turn, memory: MemoryView) -> list[NewMessage]:
        return []

    def plan(self, turn: Turn, plan: StepPlan) -> StepPlan:
        return plan

    def review(self, turn: Turn, draft: Draft, memory: MemoryView) -> Hold | None:
        return None

    def after_step(self, turn: Turn, step: StepRecord, memory: MemoryView) -> list[NewMessage]:
        return []

    def before_end(self, turn: Turn) -> str | None:
        return None
