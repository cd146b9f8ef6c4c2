"""Reading JSON Lines files for import: chat histories into recall, passages into archival.

Every line is checked before anything is written, so a bad line (reported with its number)
means nothing from the file is imported.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from memgpt_local.errors import InvalidInputError
from memgpt_local.memory.common.archival import NewPassage
from memgpt_local.schemas import MessageRole, NewMessage

T = TypeVar("T")


class ChatLine(BaseModel):
    model_config = ConfigDict(extra="ignore")

    role: MessageRole
    content: str
    timestamp: datetime = Field(default_factory=lambda: datetime.now(timezone.utc))


class PassageLine(BaseModel):
    model_config = ConfigDict(extra="ignore")

    text: str = Field(min_length=1)


def _read(path: Path, parse: Callable[[dict[str, Any]], T]) -> list[T]:
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidInputError(f"cannot read {path}: {exc}") from exc
    items: list[T] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
            if not isinstance(data, dict):
                raise ValueError("expected a JSON object")
            items.append(parse(data))
        except ValidationError as exc:
            err = exc.errors()[0]
            field = ".".join(str(p) for p in err["loc"]) or "line"
            raise InvalidInputError(
                f"{path} line {number}: {field}: {err['msg']}", "fix the line; nothing was imported"
            ) from exc
        except ValueError as exc:
            raise InvalidInputError(
                f"{path} line {number}: not valid JSON ({exc})", "fix the line; nothing was imported"
            ) from exc
    return items


def read_chat_jsonl(path: Path) -> list[NewMessage]:
    """``{"role", "content", "timestamp"}`` lines as messages outside the main context."""

    def parse(data: dict[str, Any]) -> NewMessage:
        line = ChatLine.model_validate(data)
        stamp = line.timestamp if line.timestamp.tzinfo else line.timestamp.replace(tzinfo=timezone.utc)
        return NewMessage(role=line.role, content=line.content, created_at=stamp, in_context=False)

    return _read(path, parse)


def read_passages_jsonl(path: Path) -> list[NewPassage]:
    """``{"text": ...}`` lines as archival passages."""
    return _read(path, lambda data: NewPassage(text=PassageLine.model_validate(data).text))
