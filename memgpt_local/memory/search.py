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
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from memgpt_local.errors import InvalidInputError
from memgpt_local.memory.db import Database
from memgpt_local.memory.embed import Embedder
from memgpt_local.text import STOPWORDS, content_words, normalize_space

SearchMode = Literal["hybrid", "text", "vector"]
MODES = ("hybrid", "text", "vector")
MAX_VEC_K = 4096  # sqlite-vec's limit on k
MAX_QUERY_TERMS = 64


@dataclass(frozen=True)
class SearchTuning:
    candidates: int = 50  # rows each leg contributes to the fusion (and so to ``total``)
    vector_candidates: int = 100  # bit-index candidates of the vector leg, rescored exactly
    oversample: int = 10  # ``nearest(k)``: bit-index candidates per wanted row
    min_similarity: float = 0.2  # cosine similarity floor of the vector leg
    # ... and a relative one: a vector hit far below the best one is noise (with MiniLM,
    # unrelated short messages score 0.2-0.3 against any query), dropped so that totals and
    # "more results" pages mean something to the model
    similarity_window: float = 0.3
    rrf_k: int = 60  # reciprocal rank fusion constant: score = sum(weight / (rrf_k + rank))
    focus_weight: float = 2.0  # weight of the focus leg (the question's) against 1 for each query leg
    # recall search: a word more than this share of the agent's messages hold (and more than
    # ``common_floor`` of them) is common, and left out of the text embedded for the vector
    # leg and the focus leg
    common_share: float = 0.05
    common_floor: int = 20


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


def match_words(text: str) -> list[str]:
    """The words of ``text`` a text search looks for: its content words (all of its words when
    it has none), lowercase, each once, at most ``MAX_QUERY_TERMS``."""
    words = re.findall(r"\w+", text)
    content = [w for w in words if w.lower() not in STOPWORDS] or words
    return list(dict.fromkeys(w.lower() for w in content))[:MAX_QUERY_TERMS]


def fts_match(text: str) -> str | None:
    """An FTS5 query matching any word of ``text``, each quoted; None if it has no words."""
    unique = match_words(text)
    if not unique:
        return None
    return " OR ".join(f'"{w}"' for w in unique)


def common_candidates(texts: Sequence[str | None]) -> list[str]:
    """The content words of ``texts`` (lowercase, each once) that ``common_words`` counts."""
    return list(dict.fromkeys(w for text in texts if text for w in content_words(text)))[:MAX_QUERY_TERMS]


def common_limit(entries: int, tuning: SearchTuning) -> int | None:
    """How many of an agent's ``entries`` a word must be in, and more, to be common; None when
    no word can be (a small memory)."""
    limit = max(tuning.common_floor, int(tuning.common_share * entries))
    return None if entries <= limit else limit


def common_words(
    db: Database, target: Target, agent_id: int, texts: Sequence[str | None], tuning: SearchTuning
) -> frozenset[str]:
    """The content words of ``texts`` (lowercase) that more than ``tuning.common_share`` of the
    agent's entries hold, and more than ``tuning.common_floor`` of them (a small memory has
    none). Each word's entries are counted up to that limit only, in one query."""
    words = common_candidates(texts)
    if not words or tuning.common_share <= 0:
        return frozenset()
    entries = db.scalar(f"SELECT count(*) FROM {target.base} WHERE agent_id = ?", (agent_id,))
    limit = common_limit(entries, tuning)
    if limit is None:
        return frozenset()
    params: dict[str, Any] = {"agent": agent_id, "over": limit + 1}
    counts = []
    for i, word in enumerate(words):
        params[f"w{i}"] = f'"{word}"'
        counts.append(
            f"SELECT {i} AS i, (SELECT count(*) FROM (SELECT 1 FROM {target.fts} f JOIN {target.base} b "
            f"ON b.id = f.rowid WHERE {target.fts} MATCH :w{i} AND b.agent_id = :agent LIMIT :over)) AS n"
        )
    rows = db.rows(" UNION ALL ".join(counts), params)
    return frozenset(words[r["i"]] for r in rows if r["n"] > limit)


_WORD_AND_POSSESSIVE = re.compile(r"(\w+)(?:['’]s\b)?")


def without_words(text: str, common: frozenset[str]) -> str:
    """``text`` without the ``common`` words (and their possessive 's), for embedding: "What
    did Mira's kids take up?" -> "What did kids take up?". ``text`` itself when that would
    leave no content word."""
    if not common:
        return text
    kept = _WORD_AND_POSSESSIVE.sub(lambda m: "" if m.group(1).lower() in common else m.group(0), text)
    kept = normalize_space(re.sub(r"\s+([?.!,;:])", r"\1", kept)).lstrip(",;: ")
    return kept if content_words(kept) else text


def phrase_words(text: str) -> list[str]:
    """The words of ``text`` in order: what ``containing`` looks for adjacent and in order."""
    return re.findall(r"\w+", text)


def phrase_match(text: str) -> str | None:
    """An FTS5 query matching ``text``'s words adjacent and in order; None if it has no words."""
    words = phrase_words(text)
    return '"' + " ".join(words) + '"' if words else None


def is_code_query(query: str) -> bool:
    """Whether every word of ``query`` is a code: 4+ characters with a digit (an id, an order
    number, a UUID). Words that mean something (names, questions) are not codes."""
    words = [w.strip(".,;:!?()[]{}'\"") for w in query.split()]
    return bool(words) and all(len(w) >= 4 and any(c.isdigit() for c in w) for w in words)


def code_match(query: str) -> str:
    """An FTS5 query matching any of the codes in ``query``, each as a whole: the tokenizer
    splits "4c1d-7f3e" into two tokens, and either alone would match other codes."""
    return " OR ".join(f'"{p}"' for p in code_phrases(query))


def code_phrases(query: str) -> list[str]:
    """Each code of ``query`` as its words (lowercase, space-separated), each once."""
    phrases = [" ".join(re.findall(r"\w+", w.lower())) for w in query.split()]
    return list(dict.fromkeys(p for p in phrases if p))[:MAX_QUERY_TERMS]


def check_query(query: str) -> str:
    if not isinstance(query, str) or not query.strip():
        raise InvalidInputError("the search query is empty", "search for at least one word")
    return query


def check_paging(page: int, page_size: int) -> None:
    if page < 0:
        raise InvalidInputError(f"page {page} is negative", "pages start at 0")
    if not 1 <= page_size <= 1000:
        raise InvalidInputError(f"page size {page_size} is out of range", "use 1 to 1000")


def check_mode(mode: str) -> None:
    if mode not in MODES:
        raise InvalidInputError(f"unknown search mode {mode!r}", f"use one of {', '.join(MODES)}")


def vector_leg_sql(target: Target, where: str) -> str:
    """CTEs ``vec_cand`` (bit-index KNN) and ``vec_scored`` (exact cosine distance)."""
    return f"""
    vec_cand AS (
        SELECT rowid AS id FROM {target.bits}
        WHERE embedding MATCH vec_quantize_binary(vec_f32(:qvec)) AND k = :kbits
          AND agent_id = :agent
    ),
    vec_scored AS (
        SELECT c.id, vec_distance_cosine(e.embedding, vec_f32(:qvec)) AS dist
        FROM vec_cand c
        JOIN {target.embeddings} e ON e.{target.key} = c.id
        JOIN {target.base} b ON b.id = c.id
        WHERE b.agent_id = :agent {where}
    )"""


def vector_pool(tuning: SearchTuning, cap: int) -> int:
    """How many nearest candidates the vector leg takes before its thresholds, at most ``cap``."""
    return min(cap, max(tuning.candidates, tuning.vector_candidates))


def nearest(
    db: Database, target: Target, agent_id: int, vector: np.ndarray, k: int, oversample: int = SearchTuning.oversample
) -> list[tuple[int, float]]:
    """The ``k`` rows nearest to ``vector`` as (id, cosine distance), via the bit index."""
    sql = f"WITH {vector_leg_sql(target, '')} SELECT id, dist FROM vec_scored ORDER BY dist, id LIMIT :k"
    params = {"qvec": _blob(vector), "kbits": min(MAX_VEC_K, k * oversample), "agent": agent_id, "k": k}
    return [(r["id"], r["dist"]) for r in db.rows(sql, params)]


def hybrid_search(
    db: Database,
    target: Target,
    agent_id: int,
    *,
    query: str,
    vector: np.ndarray | None,
    mode: SearchMode,
    offset: int,
    limit: int,
    tuning: SearchTuning,
    where: str = "",
    where_params: dict[str, Any] | None = None,
    focus: np.ndarray | None = None,
    focus_skips: Sequence[int] = (),
) -> tuple[list[tuple[int, float, int]], int]:
    """One page of (id, fused score, copies), best first, and the total (see the module docstring).

    Entries found more than once with the same text (a greeting said in every session, a
    passage loaded twice) are one result: the best-scoring copy, with the number of copies.
    Without this, 15 copies of "Did anything funny happen at the studio?" filled three pages
    of a search and the one message that answered was on the fourth.

    ``where`` is an extra condition on the base table aliased ``b`` (e.g. a role filter).
    ``focus`` (the vector of the question the search serves, in hybrid and vector mode)
    adds a third leg to the fusion: the rows the text leg found (the vector leg's, in vector
    mode), ranked by their similarity to it. It reorders, never adds: a terse query ("Zuxhao Hall") finds every
    mention, and the question ("which band did we see live there?") picks among them.
    Rows in ``focus_skips`` (those the searcher has already read) get nothing from it: in a
    chain of lookups the question resembles the entries that started the chain, not the next
    link, and promoting what was read leads back to it.
    """
    if mode == "hybrid" and is_code_query(query):
        # a code is found by its characters or not at all: when the text leg finds it, the
        # vector leg's "similar-looking" codes are noise (50 of them, for a UUID among UUIDs)
        exact = hybrid_search(
            db,
            target,
            agent_id,
            query=query,
            vector=None,
            mode="text",
            offset=offset,
            limit=limit,
            tuning=tuning,
            where=where,
            where_params=where_params,
        )
        if exact[1]:
            return exact
    if mode in ("hybrid", "text"):
        match = code_match(query) if is_code_query(query) else fts_match(query)
    else:
        match = None
    use_vector = mode in ("hybrid", "vector") and vector is not None
    params: dict[str, Any] = {
        "agent": agent_id,
        "cap": tuning.candidates,
        "rrf_k": tuning.rrf_k,
        "lo": offset,
        "hi": offset + limit,
        **(where_params or {}),
    }
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
    if use_vector:
        assert vector is not None
        params.update(
            qvec=_blob(vector),
            maxdist=1.0 - tuning.min_similarity,
            window=tuning.similarity_window,
            kbits=vector_pool(tuning, MAX_VEC_K),
        )
        ctes.append(vector_leg_sql(target, where))
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
    if focus is not None and use_vector:
        params.update(fvec=_blob(focus), fw=tuning.focus_weight, fskip=json.dumps([int(i) for i in focus_skips]))
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
    rows = db.rows(sql, params)
    total = rows[0]["total"] if rows else 0
    page = [(r["id"], r["score"], r["copies"]) for r in rows if offset < r["pos"] <= offset + limit]
    return page, total


def query_vectors(
    embedder: Embedder, query: str, focus: str | None, mode: SearchMode, common: frozenset[str] = frozenset()
) -> tuple[np.ndarray | None, np.ndarray | None]:
    """The vectors a search needs: the query's (none in text mode) and the focus question's
    (only beside a vector leg, and only when it says more than the query itself), each
    embedded without the ``common`` words."""
    if mode == "text":
        return None, None
    query = without_words(query, common)
    focus = without_words(focus, common) if focus else focus
    if not focus or not focus.strip() or normalize_space(focus) == normalize_space(query):
        return embedder.embed([query])[0], None
    vectors = embedder.embed([query, focus])
    return vectors[0], vectors[1]


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
