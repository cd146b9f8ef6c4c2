"""Embedding many texts: in slices, so a progress callback can follow along and one call never
holds every vector of a large memory at once. Both backends' stores embed this way; only how
they store a vector differs (the ``write`` they pass).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import numpy as np

from memgpt_local.memory.embed import Embedder

Progress = Callable[[int, int], None]  # (done, total)
BATCH = 256  # texts per embedding call
K = TypeVar("K")


def embed_in_batches(embedder: Embedder, texts: list[str], progress: Progress | None, batch: int = BATCH) -> np.ndarray:
    """Embed ``texts`` in slices so a progress callback can follow along."""
    if progress is None or len(texts) <= batch:
        vectors = embedder.embed(texts) if texts else np.zeros((0, embedder.dim), np.float32)
        if progress is not None:
            progress(len(texts), len(texts))
        return vectors
    parts = []
    for start in range(0, len(texts), batch):
        parts.append(embedder.embed(texts[start : start + batch]))
        progress(min(start + batch, len(texts)), len(texts))
    return np.concatenate(parts)


@dataclass(frozen=True)
class ToEmbed(Generic[K]):
    """Stored rows to give (new) vectors: the kind of row (``kind``, what ``write`` takes to
    know where they go), their ids and their searchable texts."""

    kind: K
    ids: list[int]
    texts: list[str]

    @classmethod
    def of_rows(cls, kind: K, rows: Sequence[Mapping[str, Any]]) -> ToEmbed[K]:
        """From rows with ``id`` and ``text``."""
        return cls(kind, [r["id"] for r in rows], [r["text"] for r in rows])


def embed_and_write(
    embedder: Embedder,
    work: Sequence[ToEmbed[K]],
    write: Callable[[K, list[int], np.ndarray], None],
    progress: Progress | None = None,
    batch: int = BATCH,
) -> int:
    """Embed every text of ``work`` in slices of ``batch`` and ``write(kind, ids, vectors)``
    each slice, calling ``progress(done, total)`` after each; returns the total."""
    total = sum(len(item.ids) for item in work)
    done = 0
    for item in work:
        for start in range(0, len(item.ids), batch):
            chunk = slice(start, start + batch)
            write(item.kind, item.ids[chunk], embedder.embed(item.texts[chunk]))
            done += len(item.ids[chunk])
            if progress is not None:
                progress(done, total)
    return total
