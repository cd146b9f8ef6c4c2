"""Reply check: before an answer goes out, look up the rare names it introduces.

A small model answers with the first fact it finds. When that fact names something memory
knows more about ("your cousin is staying at Hotel Aurelia", and a note holds Hotel
Aurelia's address; an id whose own entry points further), the answer is often incomplete
or one step short. The check takes the identifiers in a draft reply that the user did not
write (names, codes, ids: see ``functions/links.identifiers``), finds the memory entries
that mention them and that the model has not read (nothing of them is in its context),
and, if there are any, holds the draft back and shows those entries, so the next step can
answer again with them in view. An entry the model has read never triggers a check, so
the check ends by itself once the model has seen what memory holds about its answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Callable, Sequence

import numpy as np

from memgpt_local.functions.execute import format_hits
from memgpt_local.functions.links import identifiers
from memgpt_local.memory.search import STOPWORDS
from memgpt_local.schemas import SearchHit

Containing = Callable[[str, int], list[SearchHit]]

MAX_IDENTIFIERS = 6  # identifiers of one draft that are looked up
MAX_ENTRIES = 4  # unread entries shown at most


def _normal(text: str) -> str:
    return " ".join(text.split())


@dataclass(frozen=True)
class ReplyCheck:
    """The unread entries about a draft's identifiers (empty: the draft can go out)."""

    identifiers: tuple[str, ...]
    entries: tuple[SearchHit, ...]

    @property
    def holds(self) -> bool:
        return bool(self.entries)

    def notice(self, per_item: int = 300) -> str:
        names = ", ".join(repr(i) for i in self.identifiers)
        lines = format_hits(self.entries, first=1, per_item=per_item)
        # the instruction comes first and the entries last: a small model copies the last
        # thing it read, and an instruction at the end was sent back to the user word for word
        return (
            f"Not sent yet: your reply mentions {names}, and memory holds entries about "
            f"{'them' if len(self.identifiers) > 1 else 'it'} that you had not read. Use them to write "
            "your reply to the user again (corrected or completed if they change it):\n" + "\n".join(lines)
        )


def restates_question(draft: str, asked: str, *, coverage: float = 0.8, min_words: int = 3) -> bool:
    """Whether a question in ``draft`` is the user's own question asked back: at least
    ``min_words`` content words, ``coverage`` of them from the user's message ("Which book by
    Ann Lee did you say you had finished?" to "Which book by Ann Lee did I say I had finished?")."""
    said = set(_content_words(asked))
    if not said:
        return False
    for sentence in re.findall(r"[^.!?]*\?", draft):
        words = _content_words(sentence)
        if len(words) >= min_words and sum(w in said for w in words) >= coverage * len(words):
            return True
    return False


def copied_hit(draft: str, hits: Sequence[SearchHit], *, min_words: int = 6,
               share: float = 0.8) -> SearchHit | None:
    """The hit whose text ``draft`` copies word for word: a run of at least ``min_words``
    words of the hit makes up ``share`` of the draft ("You said: the Verquuels are playing
    at Nathsirksuel Hall next month" copies the stored line it quotes)."""
    words = _words(draft)
    if len(words) < min_words:
        return None
    for hit in hits:
        run = _longest_common_run(words, _words(hit.text))
        if run >= min_words and run >= share * len(words):
            return hit
    return None


def continues_chain(hit: SearchHit, others: Sequence[SearchHit], asked: str) -> bool:
    """Whether ``hit`` shares a name or id the user did not ask about with one of ``others``:
    the next link of a chain ("where is the hotel my cousin stayed at?": "Hotel Aurelia is at
    14 Vana Street" follows "Lena stayed at Hotel Aurelia"), not a rival answer."""
    said = set(_words(asked))
    own = [i for i in identifiers(hit.text) if i.lower() not in said]
    return any(i in other.text for other in others for i in own)


def _words(text: str) -> list[str]:
    return re.findall(r"\w+", text.lower())


def _longest_common_run(a: Sequence[str], b: Sequence[str]) -> int:
    return SequenceMatcher(None, a, b, autojunk=False).find_longest_match(0, len(a), 0, len(b)).size


def _content_words(text: str) -> list[str]:
    return [w for w in _words(text) if w not in STOPWORDS]


def by_similarity(hits: Sequence[SearchHit], question: str, embed) -> list[SearchHit]:
    """``hits`` ordered by the similarity of their text to ``question``, most similar first
    (ties keep their order)."""
    if not hits:
        return []
    vectors = _unit(embed([question, *(h.text for h in hits)]))
    sims = vectors[1:] @ vectors[0]
    order = sorted(range(len(hits)), key=lambda i: (-float(sims[i]), i))
    return [hits[i] for i in order]


def _unit(vectors) -> np.ndarray:
    vectors = np.asarray(vectors, dtype=np.float32)
    return vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-9)


def relevant_to_question(entries: Sequence[SearchHit], *, asked: str, grounds: Sequence[str], embed,
                         window: float) -> list[SearchHit]:
    """The entries about as relevant to the user's question as what the answer was based on.

    ``grounds`` are the texts the model read this turn (its search hits) or, when it read
    nothing, its draft. An entry much less similar to the question than the best of them
    is detail about the answer, not part of it ("who founded the lighthouse?" answered
    with a name: the founder's biography is not shown, and a small model shown it would
    answer with the biography); a chained reference reads like its source and passes.
    """
    if not entries or not asked.strip():
        return list(entries)
    texts = [asked, *grounds, *(e.text for e in entries)]
    vectors = _unit(embed(texts))
    sims = vectors[1:] @ vectors[0]
    reference = float(sims[: len(grounds)].max()) if grounds else 0.0
    entry_sims = sims[len(grounds):]
    return [e for e, sim in zip(entries, entry_sims) if float(sim) >= reference - window]


def unread_entries(draft: str, *, asked: str, context_text: str, sources: Sequence[Containing],
                   max_df: int) -> ReplyCheck:
    """What memory holds about the draft's own identifiers that the context does not show.

    ``asked`` is the user's message: identifiers it contains are what the model searched
    for, not what its answer adds. An identifier held by more than ``max_df`` entries is
    common and links nothing (the same rule as linked memory).
    """
    seen_text = _normal(context_text)
    new_ids = [i for i in identifiers(draft) if i not in asked][:MAX_IDENTIFIERS]
    found: list[SearchHit] = []
    used: list[str] = []
    keys: set[tuple[str, int]] = set()
    for ident in new_ids:
        for containing in sources:
            holders = containing(ident, max_df + 1)
            if len(holders) > max_df:
                continue
            for hit in holders:
                if _normal(hit.text)[:80] in seen_text:
                    continue
                if ident not in used:
                    used.append(ident)
                key = (hit.kind, hit.id)
                if key not in keys:
                    keys.add(key)
                    found.append(hit)
    return ReplyCheck(tuple(used), tuple(found[:MAX_ENTRIES]))
