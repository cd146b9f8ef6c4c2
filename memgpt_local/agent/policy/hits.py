"""Ordering a turn's search hits: by rank, or by similarity to the user's question."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from memgpt_local.agent.turn import Turn
from memgpt_local.schemas import SearchHit

Embed = Callable[[Sequence[str]], np.ndarray]


def unit(vectors: np.ndarray) -> np.ndarray:
    vectors = np.asarray(vectors, dtype=np.float32)
    return vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-9)


def by_similarity(hits: Sequence[SearchHit], question: str, embed: Embed) -> list[SearchHit]:
    """``hits`` ordered by the similarity of their text to ``question``, most similar first
    (ties keep their order)."""
    if not hits:
        return []
    vectors = unit(embed([question, *(h.text for h in hits)]))
    sims = vectors[1:] @ vectors[0]
    order = sorted(range(len(hits)), key=lambda i: (-float(sims[i]), i))
    return [hits[i] for i in order]


def best_hits(turn: Turn, embed: Embed, k: int) -> list[SearchHit]:
    """The turn's ``k`` best search hits: by rank (ties: earlier search first) or, when the turn
    has a question focus, by similarity to the question across all its searches (ranks of
    different searches do not compare: a date search ranks by time)."""
    ranked = turn.hits()
    if ranked and turn.focus:
        ranked = by_similarity(ranked, turn.focus, embed)
    return ranked[:k]
