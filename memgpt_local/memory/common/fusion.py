"""One hybrid search as both backends run it, apart from its SQL.

A store describes the search it wants as a ``FusedSearch`` (the query, its vectors, the page,
an extra condition on the base rows); each backend's ``hybrid_search`` turns that into one SQL
statement (``memory.search``, ``memory.postgres.search``) and reads the statement's rows back
with ``FusedSearch.page``. ``codes_first`` is the step before the statement and ``hits_page``
the step after it, the same for both backends.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol, TypeVar

import numpy as np

from memgpt_local.memory.common.query import SearchMode, SearchTuning, is_code_query, vector_pool
from memgpt_local.schemas import SearchHit, SearchPage

Ranked = list[tuple[int, float, int]]  # (id, fused score, copies), best first
Found = tuple[Ranked, int]  # one page of the ranking, and how many entries it holds in all


@dataclass(frozen=True)
class FusedSearch:
    """What one hybrid search asks for; the fields are the arguments ``hybrid_search`` documents.

    ``where`` is SQL over the base row ``b`` in the backend's own parameter style, with its
    parameters in ``where_params``; ``offset`` and ``limit`` select the page.
    """

    query: str
    vector: np.ndarray | None
    mode: SearchMode
    offset: int
    limit: int
    tuning: SearchTuning
    where: str = ""
    where_params: Mapping[str, Any] = field(default_factory=dict)
    focus: np.ndarray | None = None
    focus_skips: Sequence[int] = ()

    @property
    def text_leg(self) -> bool:
        """Whether the query's words are looked for (hybrid and text mode)."""
        return self.mode in ("hybrid", "text")

    @property
    def vector_leg(self) -> bool:
        """Whether the query's vector is looked for (hybrid and vector mode, given a vector)."""
        return self.mode in ("hybrid", "vector") and self.vector is not None

    @property
    def focus_leg(self) -> bool:
        """Whether the focus question reorders what the other legs found (only beside a vector leg)."""
        return self.focus is not None and self.vector_leg

    def text_only(self) -> FusedSearch:
        """The same search with its text leg alone."""
        return replace(self, vector=None, mode="text", focus=None, focus_skips=())

    def params(self, agent_id: int) -> dict[str, Any]:
        """The parameters every fused statement takes (``agent``, the candidate ``cap``,
        ``rrf_k``, the page's ``lo`` and ``hi`` positions) and ``where``'s."""
        return {
            "agent": agent_id,
            "cap": self.tuning.candidates,
            "rrf_k": self.tuning.rrf_k,
            "lo": self.offset,
            "hi": self.offset + self.limit,
            **self.where_params,
        }

    def vector_params(self, encode: Callable[[np.ndarray], Any], pool_cap: int) -> dict[str, Any]:
        """The vector leg's parameters: the query vector as the backend sends one (``qvec``),
        the distance floor (``maxdist``) and window (``window``), and how many nearest rows it
        takes (``kbits``, at most ``pool_cap``)."""
        assert self.vector is not None, "no vector leg without a vector"
        return {
            "qvec": encode(self.vector),
            "maxdist": 1.0 - self.tuning.min_similarity,
            "window": self.tuning.similarity_window,
            "kbits": vector_pool(self.tuning, pool_cap),
        }

    def focus_params(
        self, encode: Callable[[np.ndarray], Any], encode_ids: Callable[[list[int]], Any]
    ) -> dict[str, Any]:
        """The focus leg's parameters: the focus vector (``fvec``), its weight (``fw``) and the
        ids it skips (``fskip``), each as the backend sends it."""
        assert self.focus is not None, "no focus leg without a focus vector"
        return {
            "fvec": encode(self.focus),
            "fw": self.tuning.focus_weight,
            "fskip": encode_ids([int(i) for i in self.focus_skips]),
        }

    def page(self, rows: Sequence[Mapping[str, Any]]) -> Found:
        """This search's page from the statement's rows, and the total.

        The statement returns the page's rows and, to carry the total, the best one (``pos``
        1) even when the page starts later; each row has ``id``, ``score``, ``copies``, ``pos``
        and ``total``.
        """
        total = int(rows[0]["total"]) if rows else 0
        end = self.offset + self.limit
        page = [(int(r["id"]), float(r["score"]), int(r["copies"])) for r in rows if self.offset < r["pos"] <= end]
        return page, total


def codes_first(run: Callable[[FusedSearch], Found], search: FusedSearch) -> Found:
    """``run(search)``, except that a hybrid search for codes runs its text leg alone first and
    keeps what that finds: a code is found by its characters or not at all, and when the text
    leg finds it the vector leg's "similar-looking" codes are noise (50 of them, for a UUID
    among UUIDs)."""
    if search.mode == "hybrid" and is_code_query(search.query):
        exact = run(search.text_only())
        if exact[1]:
            return exact
    return run(search)


class Stored(Protocol):
    """A stored entry a search can find (a ``Message`` or a ``Passage``)."""

    @property
    def id(self) -> int: ...


S = TypeVar("S", bound=Stored)


def hits_page(
    found: Found,
    fetch: Callable[[list[int]], Sequence[S]],
    hit: Callable[[S, float, int], SearchHit],
    page: int,
    page_size: int,
) -> SearchPage:
    """The ``SearchPage`` of a ranking: its entries fetched by id (``fetch``) and made hits
    (``hit(entry, score, copies)``) in ranked order; an entry deleted meanwhile is left out."""
    ranked, total = found
    by_id = {entry.id: entry for entry in fetch([i for i, _, _ in ranked])}
    hits = [hit(by_id[i], score, copies) for i, score, copies in ranked if i in by_id]
    return SearchPage(items=hits, total=total, page=page, page_size=page_size)
