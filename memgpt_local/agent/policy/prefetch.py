"""Prefetch (read-ahead): the top recall and archival hits for the user's words are shown as
one notice beside the user's message, before the model's first step."""

from __future__ import annotations

from memgpt_local import events
from memgpt_local.agent.policy.base import MemoryView, Policy, SearchKind
from memgpt_local.agent.turn import Turn
from memgpt_local.config import PrefetchSettings
from memgpt_local.functions.results import format_hits
from memgpt_local.schemas import NewMessage

SECTIONS: tuple[tuple[SearchKind, str], ...] = (
    ("message", "From past conversations (conversation_search finds more)"),
    ("passage", "From archival memory (archival_memory_search finds more)"),
)


class Prefetch(Policy):
    name = "prefetch"

    def __init__(self, settings: PrefetchSettings):
        self.hits = settings.hits

    def start(self, turn: Turn, memory: MemoryView) -> list[NewMessage]:
        if not turn.question:
            return []
        sections = []
        for kind, title in SECTIONS:
            hits = memory.search(kind, turn.question, self.hits)
            if hits:
                lines = format_hits(hits, first=1, per_item=300, links=memory.links(kind, hits))
                sections.append(title + ":\n" + "\n".join(lines))
        if not sections:
            return []
        body = (
            "Stored memories that may be relevant to the user's message (found automatically; they may not "
            "answer it):\n"
        )
        return [events.system_event("memory read-ahead", body + "\n".join(sections), when=turn.clock())]
