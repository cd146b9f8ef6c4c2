"""Declarations of the agent's functions: the one place each is defined.

A ``FunctionSpec`` carries the function's name (exactly the name the model sees), its
documentation, its argument model, its handler and its kind. From the specs the runtime
derives the documentation shown to the model and the GBNF grammar of its output, the
executor validates and runs calls, and the agent's policies pick functions by kind (a step
that must reply may only call a ``reply`` function). Nothing else lists function names.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from pydantic import Field

from memgpt_local.functions import args as a
from memgpt_local.functions import handlers
from memgpt_local.functions.results import FunctionOutcome

FunctionKind = Literal["reply", "search", "memory_edit", "control"]
Handler = Callable[[handlers.FunctionContext, Any], FunctionOutcome]


@dataclass(frozen=True)
class FunctionSpec:
    name: str
    description: str
    args_model: type[a.Args]
    kind: FunctionKind
    handler: Handler
    allows_heartbeat: bool = True


SEND_MESSAGE = FunctionSpec(
    "send_message",
    "Send a message to the user. This is the only way the user sees anything you say.",
    a.SendMessageArgs,
    "reply",
    handlers.send_message,
)
CORE_MEMORY_APPEND = FunctionSpec(
    "core_memory_append",
    "Append a line to a core memory block (persona = who you are, human = facts about the user).",
    a.CoreMemoryAppendArgs,
    "memory_edit",
    handlers.core_memory_append,
)
CORE_MEMORY_REPLACE = FunctionSpec(
    "core_memory_replace",
    "Replace exact text in a core memory block; an empty new_content deletes the old text.",
    a.CoreMemoryReplaceArgs,
    "memory_edit",
    handlers.core_memory_replace,
)
CONVERSATION_SEARCH = FunctionSpec(
    "conversation_search",
    "Search all past messages (recall memory) by words and meaning. Results are paged.",
    a.ConversationSearchArgs,
    "search",
    handlers.conversation_search,
)
CONVERSATION_SEARCH_DATE = FunctionSpec(
    "conversation_search_date",
    "List past messages between two dates (inclusive). Results are paged.",
    a.ConversationSearchDateArgs,
    "search",
    handlers.conversation_search_date,
)
ARCHIVAL_MEMORY_INSERT = FunctionSpec(
    "archival_memory_insert",
    "Store text in archival memory, long-term storage that is searchable later.",
    a.ArchivalMemoryInsertArgs,
    "memory_edit",
    handlers.archival_memory_insert,
)
ARCHIVAL_MEMORY_SEARCH = FunctionSpec(
    "archival_memory_search",
    "Search archival memory (stored notes and documents) by words and meaning. Results are paged.",
    a.ArchivalMemorySearchArgs,
    "search",
    handlers.archival_memory_search,
)
PAUSE_HEARTBEATS = FunctionSpec(
    "pause_heartbeats",
    "Stop timed heartbeat events for some minutes (they resume afterwards).",
    a.PauseHeartbeatsArgs,
    "control",
    handlers.pause_heartbeats,
    allows_heartbeat=False,
)

DEFAULT_FUNCTIONS: tuple[FunctionSpec, ...] = (
    SEND_MESSAGE,
    CORE_MEMORY_APPEND,
    CORE_MEMORY_REPLACE,
    CONVERSATION_SEARCH,
    CONVERSATION_SEARCH_DATE,
    ARCHIVAL_MEMORY_INSERT,
    ARCHIVAL_MEMORY_SEARCH,
    PAUSE_HEARTBEATS,
)

FUNCTIONS_BY_NAME: dict[str, FunctionSpec] = {spec.name: spec for spec in DEFAULT_FUNCTIONS}


def of_kind(functions: Sequence[FunctionSpec], *kinds: FunctionKind) -> tuple[FunctionSpec, ...]:
    """The functions of the given kinds, in their declared order."""
    return tuple(f for f in functions if f.kind in kinds)


def with_message_limit(functions: tuple[FunctionSpec, ...], max_chars: int) -> tuple[FunctionSpec, ...]:
    """The same functions with the reply function bounded to ``max_chars`` characters (the
    grammar follows, so a reply always fits the tokens reserved for it)."""

    class LimitedSendMessageArgs(a.SendMessageArgs):
        message: str = Field(min_length=1, max_length=max_chars, description="Message text shown to the user.")

    return tuple(
        replace(f, args_model=LimitedSendMessageArgs) if f.args_model is a.SendMessageArgs else f for f in functions
    )
