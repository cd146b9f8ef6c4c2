"""Search uncovered: a question about the user that nothing in view speaks of searches memory
before it is answered.

Asked on a later day, a 1.5B model answers from what it sees, and when that holds nothing it
makes something up or gives up without looking: "What was the band I went to see play live?"
(said two sessions ago, evicted from the context since) got "I don't know the band I went to
see play live." with no search; "Which university did I go to?" (never said) got "You went to
the University of Oxford." A question whose topic core memory or the conversation in view
already speaks of ("what's my cat's name?" with "Pet: Prixquou, a cat") is left to the model;
any other question about the user ("my", "I", "we") has its first step search, and the
results are read before the reply. ``search_first`` does the same for every question while
memory holds more than the context; this one searches only where the answer cannot be in view.
"""

from __future__ import annotations

from memgpt_local.agent.policy.base import MemoryView
from memgpt_local.agent.policy.search_first import SearchFirst
from memgpt_local.agent.turn import Turn
from memgpt_local.schemas import NewMessage
from memgpt_local.text import ASKING_WORDS, FIRST_PERSON, content_words, is_question, sentences, stem

MARK = "search uncovered"


def topic(question: str) -> set[str]:
    """The stems of what the user's questions about themself ask about ("What's my cat's name?":
    "cat"); empty when no sentence is such a question."""
    asked = [s for s in sentences(question) if is_question(s) and FIRST_PERSON.search(s)]
    return {stem(w) for s in asked for w in content_words(s) if len(w) > 2 and w not in ASKING_WORDS}


def covered(question: str, memory: MemoryView, event_id: int | None) -> bool:
    """Whether core memory or the context in view (the question itself and the assistant's own
    steps aside) holds a word of the question's topic. The assistant's replies do not count:
    an invented "You went to the University of Oxford." covered "the band I went to see"."""
    asked = topic(question)
    if not asked:
        return True
    seen = [line for _, line in memory.core_lines()]
    seen += [m.content for m in memory.in_context() if m.id != event_id and m.role != "assistant"]
    return any(asked & {stem(w) for w in content_words(text)} for text in seen)


class SearchUncovered(SearchFirst):
    """``search_first``'s plan and reading, for the questions ``covered`` says are not in view."""

    name = "search_uncovered"
    mark = MARK

    def start(self, turn: Turn, memory: MemoryView) -> list[NewMessage]:
        if turn.question is not None and not covered(turn.question, memory, turn.event_id):
            turn.marks.add(self.mark)
        return []
