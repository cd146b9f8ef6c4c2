"""The arguments of the agent's functions, as pydantic models.

Each model is the schema of one function's ``arguments`` object: the grammar is built from it,
parsed calls are validated against it, and its field descriptions are what the model reads.
"""

from __future__ import annotations

import datetime as dt
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
