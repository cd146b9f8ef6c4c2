"""Recall at question: a question about the user that only past conversations answer is met
with the user's own words from them, beside it, before the model's first step.

Asked "What was the band I went to see play live?", said two sessions ago and evicted since,
the model answered "The band I went to see play live was 'The Beatles'." in its first step,
without a search, in every configuration but one that forced a search first (bench_honesty
seed 34; ``search_uncovered``, which costs a whole step). ``nothing_found`` already searches
both memories for the question's subject before the first step (``nothing_found.evidence``);
what it found there, the user's messages (not their questions, nor the assistant's replies)
and saved passages that hold the subject, is quoted in a notice after the question, with the
day each was said, as ``core_at_question`` quotes core lines. The quotes are the user's own
words, "I saw the Grarklaans play live", and the model took them as its own ("I saw the
Grarklaans play live last Saturday. It was a great night!", held by ``perspective_guard``, eval
chat seed 18): the notice says who "I" is.
"""

from __future__ import annotations

from datetime import date

from memgpt_local import events
from memgpt_local.agent.policy.base import MemoryView, Policy
from memgpt_local.agent.policy.nothing_found import START, evidence
from memgpt_local.agent.turn import Turn
from memgpt_local.memory.dates import spoken_day
from memgpt_local.schemas import NewMessage, SearchHit
from memgpt_local.text import is_question, sentences

QUOTED = 3  # hits quoted at most
QUOTE_CHARS = 300


def quote(hit: SearchHit, today: date) -> str:
    """One hit as a line of the notice: who said it, and when."""
    text = hit.text if len(hit.text) <= QUOTE_CHARS else hit.text[:QUOTE_CHARS].rsplit(" ", 1)[0] + " ..."
    if hit.kind == "passage":
        return f'- archival memory, saved {spoken_day(hit.created_at.date(), today)}: "{text}"'
    return f'- the user, on {spoken_day(hit.created_at.date(), today)}: "{text}"'


def tells(hit: SearchHit) -> bool:
    """Whether ``hit`` tells something: a message of the user's that is not only questions
    ("What car do I drive?" asked before is no answer to it), or a passage."""
    if hit.kind == "passage":
        return True
    return hit.role == "user" and not all(is_question(s) for s in sentences(hit.text))


class RecallAtQuestion(Policy):
    name = "recall_at_question"

    def start(self, turn: Turn, memory: MemoryView) -> list[NewMessage]:
        if turn.reply_start == START:  # nothing_found found nothing
            return []
        # a search result further up is no answer the model reads: "What was the band I went to
        # see play live?", found by a search two turns before, was answered "I have saved the
        # band I went to see play live for later." (bench_honesty seed 42)
        found = [hit for hit in evidence(turn, memory, seen=("user",)) or [] if tells(hit)][:QUOTED]
        if not found:
            return []
        today = turn.clock().date()
        text = (
            "For you, not the user: past conversations say this about the user's question:\n"
            + "\n".join(quote(hit, today) for hit in found)
            + '\nAnswer from it if it answers the question, to the user as "you" (in their words, "I" is the '
            "user); search only for what it does not say."
        )
        return [events.system_event("recall memory", text, when=turn.clock())]
