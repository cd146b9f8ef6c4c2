"""The backend-neutral store code (``memory.common``) on its own: no database involved.

Both backends' stores run through it, so the store tests (parametrized over SQLite and
Postgres) cover it too; these pin the pieces whose edge cases a store test does not reach.
"""

from __future__ import annotations

import numpy as np
import pytest

from memgpt_local.errors import StoreError
from memgpt_local.memory.common import schema
from memgpt_local.memory.common.embedding import ToEmbed, embed_and_write
from memgpt_local.memory.common.fusion import FusedSearch, codes_first
from memgpt_local.memory.common.query import SearchMode, SearchTuning, common_among


class CountingEmbedder:
    name = "counting"
    dim = 2

    def __init__(self) -> None:
        self.calls: list[int] = []

    def embed(self, texts: list[str]) -> np.ndarray:
        self.calls.append(len(texts))
        return np.ones((len(texts), self.dim), np.float32)


def _search(query: str = "tea", mode: SearchMode = "hybrid", offset: int = 0, limit: int = 2) -> FusedSearch:
    return FusedSearch(
        query=query,
        vector=np.ones(2, np.float32),
        mode=mode,
        offset=offset,
        limit=limit,
        tuning=SearchTuning(),
        where_params={"roles": ["user"]},
        focus=np.ones(2, np.float32),
        focus_skips=(3,),
    )


def test_embed_and_write_goes_in_slices_and_reports_progress_across_kinds():
    embedder = CountingEmbedder()
    written: list[tuple[str, list[int]]] = []
    progress: list[tuple[int, int]] = []
    work = [ToEmbed("a", [1, 2, 3], ["x", "y", "z"]), ToEmbed("b", [], []), ToEmbed("c", [9], ["w"])]
    total = embed_and_write(
        embedder, work, lambda kind, ids, vectors: written.append((kind, ids)), lambda *p: progress.append(p), batch=2
    )
    assert total == 4
    assert embedder.calls == [2, 1, 1]
    assert written == [("a", [1, 2]), ("a", [3]), ("c", [9])]
    assert progress == [(2, 4), (3, 4), (4, 4)]


def test_fused_search_legs_params_and_page():
    search = _search(offset=2, limit=2)
    assert search.text_leg and search.vector_leg and search.focus_leg
    assert search.params(7) == {"agent": 7, "cap": 50, "rrf_k": 60, "lo": 2, "hi": 4, "roles": ["user"]}
    text = search.text_only()
    assert (text.mode, text.vector, text.focus, text.vector_leg, text.focus_leg) == ("text", None, None, False, False)
    rows = [
        {"id": 5, "score": 0.5, "copies": 1, "pos": 1, "total": 9},  # the best row, sent for the total
        {"id": 6, "score": 0.4, "copies": 2, "pos": 3, "total": 9},
        {"id": 4, "score": 0.3, "copies": 1, "pos": 4, "total": 9},
    ]
    assert search.page(rows) == ([(6, 0.4, 2), (4, 0.3, 1)], 9)
    assert search.page([]) == ([], 0)
    assert search.focus_params(list, tuple)["fskip"] == (3,)


def test_codes_first_keeps_the_text_legs_hits_for_a_code_and_falls_back_without():
    seen: list[str] = []

    def run(found: int):
        def search(s: FusedSearch):
            seen.append(s.mode)
            return ([(1, 1.0, 1)], found) if s.mode == "text" else ([(2, 0.5, 1)], 1)

        return search

    assert codes_first(run(1), _search("A1B2-C3D4")) == ([(1, 1.0, 1)], 1)
    assert seen == ["text"]
    seen.clear()
    assert codes_first(run(0), _search("A1B2-C3D4")) == ([(2, 0.5, 1)], 1)
    assert seen == ["text", "hybrid"]
    seen.clear()
    codes_first(run(1), _search("what tea"))
    assert seen == ["hybrid"]


def test_common_among_counts_only_in_a_large_enough_memory():
    tuning = SearchTuning(common_share=0.1, common_floor=2)
    holders = lambda words, over: {w: (over if w == "mira" else 1) for w in words}
    assert common_among(["Mira likes tea"], tuning, lambda: 100, holders) == {"mira"}
    assert common_among(["Mira likes tea"], tuning, lambda: 2, holders) == frozenset()  # a small memory
    assert common_among([None, ""], tuning, lambda: 100, holders) == frozenset()


def test_schema_rules():
    migrations = (schema.Migration("a", lambda db, dim: None), schema.Migration("b", lambda db, dim: None))
    assert [m.name for m in schema.pending(["a"], migrations)] == ["b"]
    assert not schema.written_by_newer(["a", "b"], 2, migrations)
    assert schema.written_by_newer(["a", "b"], 3, migrations)
    assert schema.written_by_newer(["a", "z"], 2, migrations)
    with pytest.raises(StoreError, match="duplicate migration names"):
        schema.check_names((*migrations, schema.Migration("a", lambda db, dim: None)))
