"""Hybrid search in Postgres: ``ts_rank_cd`` over tsvector and pgvector KNN, fused by RRF.

The same search as the SQLite file's ``memory.search``, from the same backend-neutral parts
(``memory.common.query``: the words a query looks for, code queries, common words, the tuning;
``memory.common.fusion``: the search asked for, codes first, the page read back), with Postgres
doing each leg:

- text leg: every word of the query (each as a phrase of its tokens, ``phraseto_tsquery``, so
  nothing in the user's text is ever read as query syntax), OR-ed together, ranked by
  ``ts_rank_cd`` (normalized by the log of the row's length) best first, then by id;
- vector leg: the agent's ``vector_candidates`` rows nearest by cosine distance (``<=>``),
  which the HNSW index serves, with ``hnsw.ef_search`` raised to that many; the distances are
  exact, then the same ``min_similarity`` floor and ``similarity_window`` apply;
- focus leg, fusion (``sum(weight / (rrf_k + rank))``), copies of one text counted once, true
  totals and paging: as in ``memory.search.hybrid_search``.

pgvector 0.6 filters an HNSW scan after the fact: with many agents in one database, an agent's
vector leg can see fewer than ``vector_candidates`` rows of its own (the index hands over
``ef_search`` rows of any agent). The planner takes the (exact) agent index instead when the
agent's rows are few, so small agents lose nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from memgpt_local.memory.common.fusion import Found, FusedSearch, codes_first
from memgpt_local.memory.common.query import (
    SearchTuning,
    code_phrases,
    common_among,
    is_code_query,
    match_words,
)
from memgpt_local.memory.postgres.db import PostgresDatabase, vector_text
from memgpt_local.memory.postgres.migrations import TS_CONFIG

MAX_EF_SEARCH = 1000  # pgvector's limit on hnsw.ef_search


@dataclass(frozen=True)
class PgTarget:
    """The columns of one searchable kind of row (messages or passages)."""

    base: str
    words: str  # the generated tsvector column
    same: str  # SQL over the base row ``b``: rows with equal values are copies of one entry


MESSAGES = PgTarget("messages", "search_tsv", "b.role || ':' || b.content")
PASSAGES = PgTarget("passages", "text_tsv", "b.text")


def any_phrase(phrases: Sequence[str], params: dict[str, Any], prefix: str) -> str | None:
    """SQL for a tsquery matching any of ``phrases`` (each its tokens adjacent and in order),
    the phrases put into ``params``; None when there are none."""
    if not phrases:
        return None
    parts = []
    for i, phrase in enumerate(phrases):
        params[f"{prefix}{i}"] = phrase
        parts.append(f"phraseto_tsquery('{TS_CONFIG}', %({prefix}{i})s)")
    return "(" + " || ".join(parts) + ")"


def common_words(
    db: PostgresDatabase, target: PgTarget, agent_id: int, texts: Sequence[str | None], tuning: SearchTuning
) -> frozenset[str]:
    """As ``memory.search.common_words``: the content words of ``texts`` that more than
    ``tuning.common_share`` (and ``common_floor``) of the agent's entries hold."""

    def entries() -> int:
        return int(db.scalar(f"SELECT count(*) FROM {target.base} WHERE agent_id = %s", (agent_id,)))

    def holders(words: list[str], over: int) -> dict[str, int]:
        params: dict[str, Any] = {"agent": agent_id, "over": over}
        counts = []
        for i, word in enumerate(words):
            params[f"w{i}"] = word
            counts.append(
                f"SELECT {i} AS i, (SELECT count(*) FROM (SELECT 1 FROM {target.base} b WHERE b.agent_id = %(agent)s "
                f"AND b.{target.words} @@ phraseto_tsquery('{TS_CONFIG}', %(w{i})s) LIMIT %(over)s) c) AS n"
            )
        return {words[r["i"]]: r["n"] for r in db.rows(" UNION ALL ".join(counts), params)}

    return common_among(texts, tuning, entries, holders)


def _vector_leg_sql(target: PgTarget, where: str) -> str:
    """CTEs ``vec_cand`` (the agent's nearest rows, via HNSW) and ``vec_scored`` (filtered)."""
    return f"""
    vec_cand AS (
        SELECT b.id, b.embedding <=> %(qvec)s::vector AS dist FROM {target.base} b
        WHERE b.agent_id = %(agent)s AND b.embedding IS NOT NULL
        ORDER BY b.embedding <=> %(qvec)s::vector LIMIT %(kbits)s
    ),
    vec_scored AS (
        SELECT c.id, c.dist FROM vec_cand c JOIN {target.base} b ON b.id = c.id
        WHERE b.agent_id = %(agent)s {where}
    )"""


def _set_ef_search(db: PostgresDatabase, k: int) -> None:
    """Let one HNSW scan return ``k`` rows (the default, 40, is below the vector pool)."""
    db.execute(f"SET LOCAL hnsw.ef_search = {max(40, min(MAX_EF_SEARCH, int(k)))}")


def nearest(
    db: PostgresDatabase,
    target: PgTarget,
    agent_id: int,
    vector: np.ndarray,
    k: int,
    oversample: int = SearchTuning.oversample,
) -> list[tuple[int, float]]:
    """The ``k`` rows nearest to ``vector`` as (id, cosine distance), nearest first; the HNSW
    scan keeps ``k * oversample`` candidates (``hnsw.ef_search``, at most 1000)."""
    params = {"qvec": vector_text(vector), "agent": agent_id, "kbits": k}
    with db.transaction():
        _set_ef_search(db, k * oversample)
        rows = db.rows(
            f"WITH {_vector_leg_sql(target, '')} SELECT id, dist FROM vec_scored ORDER BY dist, id",
            params,
        )
    return [(int(r["id"]), float(r["dist"])) for r in rows]


def hybrid_search(db: PostgresDatabase, target: PgTarget, agent_id: int, search: FusedSearch) -> Found:
    """One page of (id, fused score, copies), best first, and the total; the search and the
    result are those of ``memory.search.hybrid_search`` (``search.where`` is SQL over ``b`` with
    ``%(name)s`` parameters from ``search.where_params``)."""
    return codes_first(lambda s: _fused(db, target, agent_id, s), search)


def _fused(db: PostgresDatabase, target: PgTarget, agent_id: int, search: FusedSearch) -> Found:
    """``hybrid_search``'s one statement: the legs ``search`` asks for, fused."""
    query, where = search.query, search.where
    params = search.params(agent_id)
    match = None
    if search.text_leg:
        phrases = code_phrases(query) if is_code_query(query) else match_words(query)
        match = any_phrase(phrases, params, "t")
    ctes: list[str] = []
    legs: list[str] = []
    if match is not None:
        ctes.append(f"""
        text_query AS (SELECT {match} AS q),
        text_leg AS (
            SELECT b.id, row_number() OVER (ORDER BY ts_rank_cd(b.{target.words}, t.q, 1) DESC, b.id) AS r
            FROM {target.base} b, text_query t
            WHERE b.{target.words} @@ t.q AND b.agent_id = %(agent)s {where}
            ORDER BY ts_rank_cd(b.{target.words}, t.q, 1) DESC, b.id LIMIT %(cap)s
        )""")
        legs.append("SELECT id, r, 1.0::float8 AS w FROM text_leg")
    if search.vector_leg:
        params.update(search.vector_params(vector_text, MAX_EF_SEARCH))
        ctes.append(_vector_leg_sql(target, where))
        ctes.append("""
        vec_leg AS (
            SELECT id, row_number() OVER (ORDER BY dist, id) AS r
            FROM vec_scored
            WHERE dist <= %(maxdist)s AND dist <= (SELECT min(dist) FROM vec_scored) + %(window)s
            ORDER BY dist, id LIMIT %(cap)s
        )""")
        legs.append("SELECT id, r, 1.0::float8 AS w FROM vec_leg")
    if not legs:
        return [], 0
    if search.focus_leg:
        params.update(search.focus_params(vector_text, list))
        found = "SELECT id FROM text_leg" if match is not None else "SELECT id FROM vec_leg"
        ctes.append(f"""
        focus_leg AS (
            SELECT c.id, row_number() OVER (ORDER BY b.embedding <=> %(fvec)s::vector, c.id) AS r
            FROM ({found}) c JOIN {target.base} b ON b.id = c.id
            WHERE b.embedding IS NOT NULL AND c.id <> ALL(%(fskip)s::bigint[])
        )""")
        legs.append("SELECT id, r, %(fw)s::float8 AS w FROM focus_leg")
    sql = (
        "WITH "
        + ",".join(ctes)
        + f""",
    fused AS (
        SELECT id, sum(w / (%(rrf_k)s + r)) AS score FROM ({" UNION ALL ".join(legs)}) legs GROUP BY id
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
    WHERE (pos > %(lo)s AND pos <= %(hi)s) OR pos = 1 ORDER BY pos"""
    )
    with db.transaction():
        if search.vector_leg:
            _set_ef_search(db, params["kbits"])
        rows = db.rows(sql, params)
    return search.page(rows)
