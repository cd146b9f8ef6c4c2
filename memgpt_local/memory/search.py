"""Hybrid search in SQL: BM25 over FTS5 and vector KNN, fused by reciprocal rank fusion.

Both recall (messages) and archival (passages) search go through ``hybrid_search``. The
vector leg takes candidates from the ``bit[dim]`` vec0 index (hamming distance, agent id as
the partition key), rescores them with the exact float vectors (cosine distance) and keeps
those at least ``min_similarity`` close. The text leg quotes every word of the user's text,
so FTS5 syntax in it (``-``, ``:``, ``"``, ``AND``, ``NEAR``…) is only ever matched as words.

``total`` is the number of distinct entries (rows, copies of one text counted once) found by either leg,
where each leg contributes at
most ``SearchTuning.candidates`` rows: the text leg every FTS match (best BM25 first), the
vector leg every candidate at least ``min_similarity`` close and within ``similarity_window``
of the best one, among the ``vector_candidates`` nearest by hamming distance (rescored exactly). The candidate sets do
not depend on the page, so every page of one query reports the same total; pages beyond
``total`` are empty.

Recall search embeds its query (and its focus) without the agent's *common words*
(``common_words``): the words that more than ``SearchTuning.common_share`` of the agent's
messages hold. In a long chat they are the two friends' names ("Hey Mira!", "Thanks
Dorbeck") and small talk ("haha"). A question names a friend ("What did Mira name her
puppy?"), and with the name in it the query's vector was nearest to "Night Mira!" and "Bye
Mira!" (an invented name dominates the vector of a short text): the fusion ranked worse than
its text leg alone (scripts/bench_recall_ranking.py). The text leg keeps every word: BM25
already weighs a frequent word little, and one can still tell the two closest entries apart
(the employer's name in "my new manager at ..."). Archival search keeps every word: in
documents the frequent words are their subject ("founded", "Observatory"), and leaving them
out cost the doc-qa benchmark its answers.

sqlite-vec 0.1.9 scans brute force and its top-k selection costs O(rows x k), so the bit
index (32x smaller than float32) with modest oversampling is what keeps large archives fast;
scripts/bench_archival.py measures latency and recall@10 against exact search.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from memgpt_local.memory.common.fusion import Found, FusedSearch, codes_first
from memgpt_local.memory.common.query import SearchMode as SearchMode  # re-exported: callers name it from here
from memgpt_local.memory.common.query import (
    SearchTuning,
    code_phrases,
    common_among,
    is_code_query,
    match_words,
    phrase_words,
)
from memgpt_local.memory.db import Database

MAX_VEC_K = 4096  # sqlite-vec's limit on k


@dataclass(frozen=True)
class Target:
    """The tables of one searchable kind of row (messages or passages)."""

    base: str
    fts: str
    embeddings: str
    key: str
    bits: str
    same: str  # SQL over the base row ``b``: rows with equal values are copies of one entry


MESSAGES = Target(
    "messages", "messages_fts", "message_embeddings", "message_id", "message_bits", "b.role || ':' || b.content"
)
PASSAGES = Target("passages", "passages_fts", "passage_embeddings", "passage_id", "passage_bits", "b.text")


def fts_match(text: str) -> str | None:
    """An FTS5 query matching any word of ``text``, each quoted; None if it has no words."""
    unique = match_words(text)
    if not unique:
        return None
    return " OR ".join(f'"{w}"' for w in unique)


def common_words(
    db: Database, target: Target, agent_id: int, texts: Sequence[str | None], tuning: SearchTuning
) -> frozenset[str]:
    """The content words of ``texts`` (lowercase) that more than ``tuning.common_share`` of the
    agent's entries hold, and more than ``tuning.common_floor`` of them (a small memory has
    none). Each word's entries are counted up to that limit only, in one query."""

    def entries() -> int:
        return int(db.scalar(f"SELECT count(*) FROM {target.base} WHERE agent_id = ?", (agent_id,)))

    def holders(words: list[str], over: int) -> dict[str, int]:
        params: dict[str, Any] = {"agent": agent_id, "over": over}
        counts = []
        for i, word in enumerate(words):
            params[f"w{i}"] = f'"{word}"'
            counts.append(
                f"SELECT {i} AS i, (SELECT count(*) FROM (SELECT 1 FROM {target.fts} f JOIN {target.base} b "
                f"ON b.id = f.rowid WHERE {target.fts} MATCH :w{i} AND b.agent_id = :agent LIMIT :over)) AS n"
            )
        return {words[r["i"]]: r["n"] for r in db.rows(" UNION ALL ".join(counts), params)}

    return common_among(texts, tuning, entries, holders)


def phrase_match(text: str) -> str | None:
    """An FTS5 query matching ``text``'s words adjacent and in order; None if it has no words."""
    words = phrase_words(text)
    return '"' + " ".join(words) + '"' if words else None


def code_match(query: str) -> str:
    """An FTS5 query matching any of the codes in ``query``, each as a whole: the tokenizer
    splits "4c1d-7f3e" into two tokens, and either alone would match other codes."""
    return " OR ".join(f'"{p}"' for p in code_phrases(query))


def vector_leg_sql(target: Target, where: str, *, probes: int | None = None) -> str:
    """CTEs ``vec_cand`` (bit-index KNN) and ``vec_scored`` (exact cosine distance). With
    ``probes`` (a clustered archive, memory/cells.py), the candidates come from the ``:probes``
    cells whose centroids are nearest to the query."""
    if probes and target is not PASSAGES:
        raise ValueError("only archival passages are clustered")
    if probes:  # vec0 returns k rows per cell: the best :kbits of all of them are the candidates
        candidates = """
    vec_cells AS MATERIALIZED (
        SELECT rowid AS id, distance FROM passage_cells
        WHERE embedding MATCH vec_quantize_binary(vec_f32(:qvec)) AND k = :kbits AND agent_id = :agent
          AND cell IN (SELECT rowid FROM passage_centroids
                       WHERE centroid MATCH vec_f32(:qvec) AND k = :probes AND agent_id = :agent)
    ),
    vec_cand AS (SELECT id FROM vec_cells ORDER BY distance, id LIMIT :kbits),"""
    else:
        candidates = f"""
    vec_cand AS (
        SELECT rowid AS id FROM {target.bits}
        WHERE embedding MATCH vec_quantize_binary(vec_f32(:qvec)) AND k = :kbits
          AND agent_id = :agent
    ),"""
    return f"""{candidates}
    vec_scored AS (
        SELECT c.id, vec_distance_cosine(e.embedding, vec_f32(:qvec)) AS dist
        FROM vec_cand c
        JOIN {target.embeddings} e ON e.{target.key} = c.id
        JOIN {target.base} b ON b.id = c.id
        WHERE b.agent_id = :agent {where}
    )"""


def nearest(
    db: Database,
    target: Target,
    agent_id: int,
    vector: np.ndarray,
    k: int,
    oversample: int = SearchTuning.oversample,
    *,
    probes: int | None = None,
) -> list[tuple[int, float]]:
    """The ``k`` rows nearest to ``vector`` as (id, cosine distance), via the bit index (or,
    with ``probes``, the ``probes`` nearest cells of a clustered archive: memory/cells.py)."""
    sql = f"WITH {vector_leg_sql(target, '', probes=probes)} SELECT id, dist FROM vec_scored ORDER BY dist, id LIMIT :k"
    params = {"qvec": _blob(vector), "kbits": min(MAX_VEC_K, k * oversample), "agent": agent_id, "k": k}
    if probes:
        params["probes"] = probes
    return [(r["id"], r["dist"]) for r in db.rows(sql, params)]


def hybrid_search(
    db: Database, target: Target, agent_id: int, search: FusedSearch, *, probes: int | None = None
) -> Found:
    """One page of (id, fused score, copies), best first, and the total (see the module docstring).

    Entries found more than once with the same text (a greeting said in every session, a
    passage loaded twice) are one result: the best-scoring copy, with the number of copies.
    Without this, 15 copies of "Did anything funny happen at the studio?" filled three pages
    of a search and the one message that answered was on the fourth.

    ``search.where`` is an extra condition on the base table aliased ``b`` (e.g. a role filter).
    ``search.focus`` (the vector of the question the search serves, in hybrid and vector mode)
    adds a third leg to the fusion: the rows the text leg found (the vector leg's, in vector
    mode), ranked by their similarity to it. It reorders, never adds: a terse query ("Zuxhao Hall") finds every
    mention, and the question ("which band did we see live there?") picks among them.
    Rows in ``search.focus_skips`` (those the searcher has already read) get nothing from it: in a
    chain of lookups the question resembles the entries that started the chain, not the next
    link, and promoting what was read leads back to it. A search for codes tries its text leg
    alone first (``fusion.codes_first``).
    """
    return codes_first(lambda s: _fused(db, target, agent_id, s, probes), search)


def _fused(db: Database, target: Target, agent_id: int, search: FusedSearch, probes: int | None = None) -> Found:
    """``hybrid_search``'s one statement: the legs ``search`` asks for, fused."""
    query, where = search.query, search.where
    if search.text_leg:
        match = code_match(query) if is_code_query(query) else fts_match(query)
    else:
        match = None
    params = search.params(agent_id)
    ctes: list[str] = []
    legs: list[str] = []
    if match is not None:
        params["match"] = match
        ctes.append(f"""
        text_leg AS (
            SELECT f.rowid AS id, row_number() OVER (ORDER BY f.rank, f.rowid) AS r
            FROM {target.fts} f JOIN {target.base} b ON b.id = f.rowid
            WHERE {target.fts} MATCH :match AND b.agent_id = :agent {where}
            ORDER BY f.rank, f.rowid LIMIT :cap
        )""")
        legs.append("SELECT id, r, 1.0 AS w FROM text_leg")
    if search.vector_leg:
        params.update(search.vector_params(_blob, MAX_VEC_K))
        if probes:
            params["probes"] = probes
        ctes.append(vector_leg_sql(target, where, probes=probes))
        ctes.append("""
        vec_leg AS (
            SELECT id, row_number() OVER (ORDER BY dist, id) AS r
            FROM vec_scored
            WHERE dist <= :maxdist AND dist <= (SELECT min(dist) FROM vec_scored) + :window
            ORDER BY dist, id LIMIT :cap
        )""")
        legs.append("SELECT id, r, 1.0 AS w FROM vec_leg")
    if not legs:
        return [], 0
    if search.focus_leg:
        params.update(search.focus_params(_blob, json.dumps))
        # the rows the query's words found (its meaning alone, in vector mode): the vector leg's
        # far candidates are noise that a question resembling them all would push to the top
        found = "SELECT id FROM text_leg" if match is not None else "SELECT id FROM vec_leg"
        ctes.append(f"""
        focus_leg AS (
            SELECT c.id, row_number() OVER (ORDER BY vec_distance_cosine(e.embedding, vec_f32(:fvec)), c.id) AS r
            FROM ({found}) c JOIN {target.embeddings} e ON e.{target.key} = c.id
            WHERE c.id NOT IN (SELECT value FROM json_each(:fskip))
        )""")
        legs.append("SELECT id, r, :fw AS w FROM focus_leg")
    sql = (
        "WITH "
        + ",".join(ctes)
        + f""",
    fused AS (
        SELECT id, sum(w / (:rrf_k + r)) AS score FROM ({" UNION ALL ".join(legs)}) GROUP BY id
    ),
    copies AS (
        SELECT f.id, f.score,
               row_number() OVER (PARTITION BY {target.same} ORDER BY f.score DESC, f.id DESC) AS copy_rank,
               count(*) OVER (PARTITION BY {target.same}) AS copies
        FROM fused f JOIN {target.base} b ON b.id = f.id
    ),
    ranked AS (
        SELECT id, score, copies, row_number() OVER (ORDER BY score DESC, id DESC) AS pos,
               count(*) OVER () AS total
        FROM copies WHERE copy_rank = 1
    )
    SELECT id, score, copies, pos, total FROM ranked
    WHERE (pos > :lo AND pos <= :hi) OR pos = 1 ORDER BY pos"""
    )
    return search.page(db.rows(sql, params))


def _blob(vector: np.ndarray) -> bytes:
    return np.ascontiguousarray(vector, dtype=np.float32).reshape(-1).tobytes()


def write_vectors(db: Database, target: Target, ids: list[int], vectors: np.ndarray) -> None:
    """Store (or replace) the float vectors of rows; triggers keep the bit index in step.

    A replaced vector is deleted and inserted: vec0 cannot update or upsert a row.
    """
    if len(ids) != len(vectors):
        raise ValueError(f"{len(ids)} ids but {len(vectors)} vectors")
    db.execute(
        f"DELETE FROM {target.embeddings} WHERE {target.key} IN (SELECT value FROM json_each(?))",
        (json.dumps([int(i) for i in ids]),),
    )
    db.executemany(
        f"INSERT INTO {target.embeddings}({target.key}, embedding) VALUES (?, ?)",
        [(i, _blob(v)) for i, v in zip(ids, vectors)],
    )
