"""Denial guard: once a turn, a reply that says it does not know is held back when memory the
model can see holds words of the question: the core-memory lines and the turn's search hits
that share them are shown, and the model answers again.

A 1.5B model answered "I'm sorry, but I don't know your name" with "Name: Dana" in its core
memory, and "I couldn't find the ferret's name" with "We named her Stoundbea" among its search
hits. It may still say it does not know: the second reply goes out (an honest "I don't know"
is an answer), and a question that shares no words with memory is not held at all.

Core lines are matched by stems ("allergic" finds "Allergy: shellfish") and by the words
people ask about a label with ("Which town am I living in now?" finds "Home: ..."), both
denied in eval chat seeds 8 and 9 with the line in core memory.

Off by default: in a real chat (qwen2.5-coder-1.5b) it fired on "What's my name and where do I
live?" with "Name: Dana" shown, and the model sent the same denial again; not yet measured on
the evaluations.
"""

from __future__ import annotations

from memgpt_local.agent.policy.base import Draft, MemoryView, Policy
from memgpt_local.agent.turn import Hold, Turn
from memgpt_local.config import GuardSettings
from memgpt_local.functions.results import format_hits
from memgpt_local.text import content_words, denies, lines_about


def key_words(text: str) -> set[str]:
    return {w for w in content_words(text) if len(w) > 2}


class DenialGuard(Policy):
    name = "denial_guard"

    def __init__(self, settings: GuardSettings):
        self.hits = settings.hits

    def review(self, turn: Turn, draft: Draft, memory: MemoryView) -> Hold | None:
        if draft.plan.last or turn.holds[self.name] or not turn.question or not denies(draft.message):
            return None
        asked = key_words(turn.question)
        lines = lines_about(turn.question, memory.core_lines())
        hits = [h for h in turn.hits() if len(asked & key_words(h.text)) >= 2][: self.hits]
        if not lines and not hits:
            return None
        shown = []
        if lines:
            shown.append("Your core memory says:\n" + "\n".join(lines))
        if hits:
            shown.append("Your searches found:\n" + "\n".join(format_hits(hits, first=1, per_item=300)))
        notice = (
            "Not sent: your reply says you do not know, but your memory holds words of the question. "
            "Answer from it if it answers the question; if it does not, say so. " + "\n".join(shown)
        )
        return Hold(
            self.name, notice, "it said it did not know, and memory holds words of your question", hide_draft=True
        )
