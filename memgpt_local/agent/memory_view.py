"""``StoreView``: the read-only view of one agent's memory that policies see."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from memgpt_local.agent.policy.base import SearchKind
from memgpt_local.config import AgentSettings
from memgpt_local.errors import InvalidInputError
from memgpt_local.functions.links import Link, LinkExpander
from memgpt_local.schemas import Message, SearchHit

if TYPE_CHECKING:
    from memgpt_local.memory.protocol import Store


class StoreView:
    """Implements ``policy.base.MemoryView`` over a ``Store``."""

    def __init__(self, store: Store, agent_id: int, settings: AgentSettings):
        self.store = store
        self.agent_id = agent_id
        self.settings = settings

    def in_context(self) -> Sequence[Message]:
        return self.store.recall.in_context(self.agent_id)

    def beyond_context(self) -> bool:
        in_context = len(self.in_context())
        return self.store.archival.count(self.agent_id) > 0 or self.store.recall.count(self.agent_id) > in_context

    def search(self, kind: SearchKind, text: str, k: int) -> list[SearchHit]:
        try:
            if kind == "message":
                page = self.store.recall.search(
                    self.agent_id, text, page_size=k, mode=self.settings.recall_search_mode, outside_context=True
                )
            else:
                page = self.store.archival.search(
                    self.agent_id, text, page_size=k, mode=self.settings.archival_search_mode
                )
        except InvalidInputError:  # no searchable words
            return []
        return list(page.items)

    def containing(self, kind: SearchKind, text: str, limit: int) -> list[SearchHit]:
        if kind == "passage":
            return self.store.archival.containing(self.agent_id, text, limit)
        shown = {m.id for m in self.in_context()}
        hits = self.store.recall.containing(self.agent_id, text, limit + len(shown))
        return [h for h in hits if h.id not in shown][:limit]

    def links(self, kind: SearchKind, hits: Sequence[SearchHit]) -> dict[int, list[Link]] | None:
        if not self.settings.link_depth or not hits:
            return None
        source = self.store.recall if kind == "message" else self.store.archival
        expander = LinkExpander(
            lambda text, limit: source.containing(self.agent_id, text, limit),
            depth=self.settings.link_depth,
            max_df=self.settings.link_max_df,
        )
        return expander.expand(hits)

    def core_lines(self) -> list[tuple[str, str]]:
        return [
            (block.label, line)
            for block in self.store.core.blocks(self.agent_id)
            for line in block.value.splitlines()
            if line.strip()
        ]

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return self.store.embedder.embed(list(texts))
