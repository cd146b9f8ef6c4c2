"""Copy guard: once a turn, a reply that copies a search hit word for word is held back when
another hit of the turn is closer to the user's question.

A small model answers with the last line of a result page, copied whole, even when the line
that answers comes first on that page ("which band did we see live at the hall?" answered with
"The Verquuels are playing at the hall next month", the line under "Last night we saw The
Shoulundvoels live at the hall"). A copy of the hit closest to the question goes out: quoting
the right memory is an answer. So does a copy of the next link of a chain (a hit that shares a
name the user did not mention with a closer one): the answer to a two-step question reads less
like the question than its first step does.
"""

from __future__ import annotations

from collections.abc import Sequence

from memgpt_local.agent.policy.base import Draft, MemoryView, Policy
from memgpt_local.agent.policy.echo_guard import restates_question
from memgpt_local.agent.policy.hits import by_similarity
from memgpt_local.agent.turn import Hold, Turn
from memgpt_local.config import GuardSettings
from memgpt_local.functions.links import identifiers
from memgpt_local.functions.results import format_hits
from memgpt_local.schemas import SearchHit
from memgpt_local.text import asks_the_past, longest_common_run, tells_the_past, words


def copied_hit(draft: str, hits: Sequence[SearchHit], *, min_words: int = 6, share: float = 0.8) -> SearchHit | None:
    """The hit whose text ``draft`` copies word for word: a run of at least ``min_words``
    words of the hit makes up ``share`` of the draft ("You said: the Verquuels are playing
    at Nathsirksuel Hall next month" copies the stored line it quotes)."""
    drafted = words(draft)
    if len(drafted) < min_words:
        return None
    for hit in hits:
        run = longest_common_run(drafted, words(hit.text))
        if run >= min_words and run >= share * len(drafted):
            return hit
    return None


def continues_chain(hit: SearchHit, others: Sequence[SearchHit], asked: str) -> bool:
    """Whether ``hit`` shares a name or id the user did not ask about with one of ``others``:
    the next link of a chain ("where is the hotel my cousin stayed at?": "Hotel Aurelia is at
    14 Vana Street" follows "Lena stayed at Hotel Aurelia"), not a rival answer."""
    said = set(words(asked))
    own = [i for i in identifiers(hit.text) if i.lower() not in said]
    return any(i in other.text for other in others for i in own)


class CopyGuard(Policy):
    name = "copy_guard"

    def __init__(self, settings: GuardSettings):
        self.hits = settings.hits

    def review(self, turn: Turn, draft: Draft, memory: MemoryView) -> Hold | None:
        if draft.plan.last or turn.holds[self.name] or not turn.question or not turn.question.strip():
            return None
        asked = turn.question
        hits = turn.hits()
        copied = copied_hit(draft.written_after(turn.reply_start), hits)
        if copied is None:
            return None
        # The turn itself (the question, the model's own steps: a date search finds them) and any
        # memory that asks the question again read like the question without answering it: no rivals.
        rivals = [
            h
            for h in hits
            if h is copied
            or not (
                (h.kind == "message" and turn.event_id is not None and h.id >= turn.event_id)
                or restates_question(h.text, asked)
            )
        ]
        ranked = by_similarity(rivals, asked, memory.embed)
        closer = ranked[: next(i for i, h in enumerate(ranked) if h is copied)]
        if asks_the_past(asked) and tells_the_past(copied.text):
            # what happened answers what happened: "Our room at the Faquais Hotel looked onto the sea"
            # was held for "my cousin says the Drortonzao Hotel is the place to stay", closer to
            # "Which hotel did we book when we went to Koutua?" (dmr seed 15, reworded, stop 53)
            closer = [h for h in closer if tells_the_past(h.text)]
        if not closer or continues_chain(copied, closer, asked):
            return None
        # only the closer results, the closest last: shown the copied line again, or shown it
        # last, the model sent the same copy again (it answers from the last thing it read)
        closest_last = list(reversed(closer[: self.hits]))
        notice = (
            "Not sent: your reply copies a search result word for word, and other results are closer to the "
            "user's question. Answer the question itself, in your own words, from the results that match it "
            "better (the closest last):\n" + "\n".join(format_hits(closest_last, first=1, per_item=300))
        )
        return Hold(
            self.name, notice, "it copied a memory that other results match your question better", hide_draft=True
        )
