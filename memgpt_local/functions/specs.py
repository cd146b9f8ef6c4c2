"""Declarations of the agent's functions: the one place each is defined.

From a ``FunctionSpec`` the runtime derives both the documentation shown to the model and
the GBNF grammar of its output; the agent validates parsed calls against ``args_model``.
Function names are exactly the names the model sees.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, replace
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

CoreLabel = Literal["persona", "human"]


class Args(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SendMessageArgs(Args):
    message: str = Field(min_length=1, max_length=2000, description="Message text shown to the user.")


class CoreMemoryAppendArgs(Args):
    label: CoreLabel = Field(description="Which core memory block to edit.")
    content: str = Field(min_length=1, max_length=500, description="Text to append as a new line.")


class CoreMemoryReplaceArgs(Args):
    label: CoreLabel = Field(description="Which core memory block to edit.")
    old_content: str = Field(min_length=1, max_length=500, description="Exact text to replace.")
    new_content: str = Field(max_length=500, description="Replacement text; empty deletes old_content.")


class ConversationSearchArgs(Args):
    query: str = Field(min_length=1, max_length=200, description="Words or a phrase to look for.")
    page: int = Field(0, ge=0, le=99, description="Result page, starting at 0.")


class ConversationSearchDateArgs(Args):
    start_date: dt.date = Field(description="First day, YYYY-MM-DD (inclusive).")
    end_date: dt.date = Field(description="Last day, YYYY-MM-DD (inclusive).")
    page: int = Field(0, ge=0, le=99, description="Result page, starting at 0.")


class ArchivalMemoryInsertArgs(Args):
    content: str = Field(min_length=1, max_length=2000, description="Text to store for later.")


class ArchivalMemorySearchArgs(Args):
    query: str = Field(min_length=1, max_length=200, description="What to look for.")
    page: int = Field(0, ge=0, le=99, description="Result page, starting at 0.")


class PauseHeartbeatsArgs(Args):
    minutes: int = Field(ge=1, le=360, description="How long to suppress timed heartbeats.")


@dataclass(frozen=True)
class FunctionSpec:
    name: str
    description: str
    args_model: type[Args]
    allows_heartbeat: bool = True


SEND_MESSAGE = FunctionSpec(
    "send_message",
    "Send a message to the user. This is the only way the user sees anything you say.",
    SendMessageArgs,
)
CORE_MEMORY_APPEND = FunctionSpec(
    "core_memory_append",
    "Append a line to a core memory block (persona = who you are, human = facts about the user).",
    CoreMemoryAppendArgs,
)
CORE_MEMORY_REPLACE = FunctionSpec(
    "core_memory_replace",
    "Replace exact text in a core memory block; an empty new_content deletes the old text.",
    CoreMemoryReplaceArgs,
)
CONVERSATION_SEARCH = FunctionSpec(
    "conversation_search",
    "Search all past messages (recall memory) by words and meaning. Results are paged.",
    ConversationSearchArgs,
)
CONVERSATION_SEARCH_DATE = FunctionSpec(
    "conversation_search_date",
    "List past messages between two dates (inclusive). Results are paged.",
    ConversationSearchDateArgs,
)
ARCHIVAL_MEMORY_INSERT = FunctionSpec(
    "archival_memory_insert",
    "Store text in archival memory, long-term storage that is searchable later.",
    ArchivalMemoryInsertArgs,
)
ARCHIVAL_MEMORY_SEARCH = FunctionSpec(
    "archival_memory_search",
    "Search archival memory (stored notes and documents) by words and meaning. Results are paged.",
    ArchivalMemorySearchArgs,
)
PAUSE_HEARTBEATS = FunctionSpec(
    "pause_heartbeats",
    "Stop timed heartbeat events for some minutes (they resume afterwards).",
    PauseHeartbeatsArgs,
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


def with_message_limit(functions: tuple[FunctionSpec, ...], max_chars: int) -> tuple[FunctionSpec, ...]:
    """The same functions with ``send_message`` bounded to ``max_chars`` characters (the
    grammar follows, so a reply always fits the tokens reserved for it)."""

    class LimitedSendMessageArgs(SendMessageArgs):
        message: str = Field(min_length=1, max_length=max_chars, description="Message text shown to the user.")

    return tuple(replace(f, args_model=LimitedSendMessageArgs) if f.name == "send_message" else f for f in functions)
