"""A fake memory view and ready-made turns for testing policies alone: no embedder, SQLite or
model. Embeddings are bags of words hashed into 256 dimensions (texts sharing words are
similar), so "closer to the question" means what it says."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone

import numpy as np

from memgpt_local.agent.turn import StepRecord, Turn
from memgpt_local.functions.results import FunctionOutcome, RankedHit
from memgpt_local.schemas import Completion, FunctionCall, Message, SearchHit

WHEN = datetime(2026, 5, 1, 12, 0, tzinfo=timezone.utc)
STOP = {"the", "a", "at", "we", "did", "which", "is", "are", "of", "to", "in", "with", "my", "i", "you"}


def bag_of_words(texts: Sequence[str]) -> np.ndarray:
    out = np.zeros((len(texts), 256), np.float32)
    for row, text in enumerate(texts):
        for word in re.findall(r"\w+", text.lower()):
            if word not in STOP:
                out[row, int(hashlib.md5(word.encode()).hexdigest(), 16) % 256] += 1.0
    return out


def hit(i: int, text: str, kind: str = "passage", role: str | None = None) -> SearchHit:
    return SearchHit(kind=kind, id=i, text=text, created_at=WHEN, role=role)


@dataclass
class FakeMemory:
    """``MemoryView`` over plain lists."""

    entries: list[SearchHit] = field(default_factory=list)
    context: list[Message] = field(default_factory=list)
    beyond: bool = False
    link_map: dict[int, list] | None = None
    embedded: list[str] = field(default_factory=list)
    core: list[tuple[str, str]] = field(default_factory=list)  # (label, line)

    def in_context(self) -> Sequence[Message]:
        return self.context

    def beyond_context(self) -> bool:
        return self.beyond

    def search(self, kind: str, text: str, k: int) -> list[SearchHit]:
        asked = set(re.findall(r"\w+", text.lower())) - STOP
        found = [e for e in self.entries if e.kind == kind and asked & set(re.findall(r"\w+", e.text.lower()))]
        return found[:k]

    def links(self, kind: str, hits: Sequence[SearchHit]):
        return self.link_map

    def containing(self, kind: str, text: str, limit: int) -> list[SearchHit]:
        return [e for e in self.entries if e.kind == kind and text in e.text][:limit]

    def core_lines(self) -> list[tuple[str, str]]:
        return list(self.core)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.embedded.extend(texts)
        return bag_of_words(texts)


def completion() -> Completion:
    return Completion(text="", prompt_tokens=10, evaluated_tokens=10, generated_tokens=5)


def step(
    index: int,
    function: str = "send_message",
    outcome: FunctionOutcome | None = None,
    heartbeat: bool = False,
    **arguments: object,
) -> StepRecord:
    call = FunctionCall(thought="t", function=function, arguments=dict(arguments), request_heartbeat=heartbeat)
    return StepRecord(index, "", call, outcome or FunctionOutcome(True, "ok"), completion())


def search_step(index: int, hits: Sequence[SearchHit], query: str = "q") -> StepRecord:
    ranked = [RankedHit(rank, h) for rank, h in enumerate(hits, start=1)]
    outcome = FunctionOutcome(True, "\n".join(h.text for h in hits), hits=ranked, searched=True)
    return step(index, "archival_memory_search", outcome, heartbeat=True, query=query)


def searched_turn(question: str, texts: Sequence[str], *, focus: bool = True) -> Turn:
    """A user's turn whose one search returned ``texts`` as passages 1, 2, ... in that order."""
    turn = Turn(question=question, event_id=100, focus=question if focus else None)
    turn.add(search_step(0, [hit(i, t) for i, t in enumerate(texts, start=1)]))
    return turn
