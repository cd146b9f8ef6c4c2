"""A search before any SQL: its words, its vectors, its arguments and the tuning.

Both backends' hybrid search (``memory.search`` for the SQLite file, ``memory.postgres.search``)
look for the words and embed the vectors chosen here, and their stores check a search's
arguments with the checks here; ``memory.search``'s docstring tells how the search works.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from memgpt_local.errors import InvalidInputError
from memgpt_local.memory.embed import Embedder
from memgpt_local.text import STOPWORDS, content_words, normalize_space

SearchMode = Literal["hybrid", "text", "vector"]
MODES = ("hybrid", "text", "vector")
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


def match_words(text: str) -> list[str]:
    """The words of ``text`` a text search looks for: its content words (all of its words when
    it has none), lowercase, each once, at most ``MAX_QUERY_TERMS``."""
    words = re.findall(r"\w+", text)
    content = [w for w in words if w.lower() not in STOPWORDS] or words
    return list(dict.fromkeys(w.lower() for w in content))[:MAX_QUERY_TERMS]


def common_candidates(texts: Sequence[str | None]) -> list[str]:
    """The content words of ``texts`` (lowercase, each once) that ``common_words`` counts."""
    return list(dict.fromkeys(w for text in texts if text for w in content_words(text)))[:MAX_QUERY_TERMS]


def common_limit(entries: int, tuning: SearchTuning) -> int | None:
    """How many of an agent's ``entries`` a word must be in, and more, to be common; None when
    no word can be (a small memory)."""
    limit = max(tuning.common_floor, int(tuning.common_share * entries))
    return None if entries <= limit else limit


def common_among(
    texts: Sequence[str | None],
    tuning: SearchTuning,
    entries: Callable[[], int],
    holders: Callable[[list[str], int], Mapping[str, int]],
) -> frozenset[str]:
    """The agent's common words among the content words of ``texts``, whatever stores them:
    ``entries()`` counts the agent's entries, ``holders(words, over)`` how many of them hold
    each word, counting each only up to ``over`` (one more than the limit is enough to know)."""
    words = common_candidates(texts)
    if not words or tuning.common_share <= 0:
        return frozenset()
    limit = common_limit(entries(), tuning)
    if limit is None:
        return frozenset()
    return frozenset(word for word, n in holders(words, limit + 1).items() if n > limit)


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


# words that only say a code is one: "ID 7687a6a1-...", "key = 5a21...". Searched as words beside
# the code, "ID" made the search a fusion with the vector leg, whose look-alike UUIDs came first,
# and the record holding the code was never shown (eval nested-kv seed 8, second wording, stop 49)
_CODE_LABELS = frozenset("id ids key keys value values record records code codes uuid".split())


def _query_words(query: str) -> list[str]:
    return [w for w in (w.strip(".,;:!?()[]{}'\"=#") for w in query.split()) if w]


def _is_code(word: str) -> bool:
    return len(word) >= 4 and any(c.isdigit() for c in word)


def is_code_query(query: str) -> bool:
    """Whether every word of ``query`` is a code: 4+ characters with a digit (an id, an order
    number, a UUID), words that only name it as one ("ID", "key") aside. Words that mean
    something (names, questions) are not codes."""
    words = [w for w in _query_words(query) if w.lower() not in _CODE_LABELS]
    return bool(words) and all(_is_code(w) for w in words)


def code_phrases(query: str) -> list[str]:
    """Each code of ``query`` as its words (lowercase, space-separated), each once."""
    phrases = [" ".join(re.findall(r"\w+", w.lower())) for w in _query_words(query) if _is_code(w)]
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


def check_search(query: str, page: int, page_size: int, mode: str) -> None:
    """Raise ``InvalidInputError`` for an empty query, a page out of range or an unknown mode."""
    check_query(query)
    check_paging(page, page_size)
    check_mode(mode)


def vector_pool(tuning: SearchTuning, cap: int) -> int:
    """How many nearest candidates the vector leg takes before its thresholds, at most ``cap``."""
    return min(cap, max(tuning.candidates, tuning.vector_candidates))


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
