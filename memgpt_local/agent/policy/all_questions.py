"""All questions: a reply to a message that asks two or more things, which says nothing of one
of them, is held back once, naming the question it left out. Two questions in one sentence
("What's my cat called, and where do I work?") count as two.

In a `make run` chat, "Do you remember my dog's name? And who is visiting me?" got "I remember
that your sister Kasia is visiting tomorrow." with "Dog: Pierogi" in core memory and both
searched for: the model answered the last question it read and stopped. A question counts as
answered when the reply holds one of its own words ("dog"), or a word of what memory showed
about it: a core-memory line or a search hit of this turn that shares its words ("Pierogi"
from "Dog: Pierogi"). Words that only ask ("remember", "name", "tell") say nothing of what a
question is about and are left out of that comparison; a question made of them only is not
judged.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from memgpt_local.agent.policy.base import Draft, MemoryView, Policy
from memgpt_local.agent.turn import Hold, Turn
from memgpt_local.text import ASKING_WORDS, content_words, is_question, sentences, stem, stems

# "What's my cat called, and where do I work?" asks two things in one sentence
_SECOND_QUESTION = re.compile(
    r",?\s+(?:and|or|also|plus)\s+(?=(?:what|what's|where|where's|who|who's|when|which|why|how|is|are|do|does|did|"
    r"can|could|would|will)\b)",
    re.IGNORECASE,
)


def asked_questions(message: str) -> list[str]:
    """The questions of ``message``: its question sentences, each split where a second
    question joins it ("..., and where do I work?")."""
    out = []
    for sentence in sentences(message):
        if is_question(sentence):
            out += [part.strip() for part in _SECOND_QUESTION.split(sentence) if part.strip()]
    return out


def subject_words(question: str) -> set[str]:
    """What a question is about: its content words, less the words that only ask (as stems)."""
    return {stem(w) for w in content_words(question) if len(w) > 2 and w not in ASKING_WORDS}


def unanswered(reply: str, asked: str, sources: Iterable[str]) -> list[str]:
    """The questions of ``asked`` (two or more) that ``reply`` says nothing of: none of its
    subject words, nor any word of a ``sources`` text (core-memory lines, search hits) that
    shares them. [] when ``asked`` holds fewer than two questions."""
    questions = asked_questions(asked)
    if len(questions) < 2:
        return []
    said = stems(reply)
    texts = [stems(text) for text in sources]
    missing = []
    for question in questions:
        subject = subject_words(question)
        if not subject:
            continue
        about = set(subject)
        for words_of in texts:
            if words_of & subject:
                about |= words_of
        if not said & about:
            missing.append(question)
    return missing


class AllQuestions(Policy):
    name = "all_questions"

    def review(self, turn: Turn, draft: Draft, memory: MemoryView) -> Hold | None:
        if draft.plan.last or turn.holds[self.name] or not turn.question:
            return None
        sources = [line for _, line in memory.core_lines()] + [hit.text for hit in turn.hits()]
        missing = unanswered(draft.message, turn.question, sources)
        if not missing:
            return None
        left = " ".join(f'"{q}"' for q in missing)
        notice = (
            f"Not sent: the user asked more than one thing, and your reply says nothing about {left}. "
            "Write one reply that answers every question of their message."
        )
        return Hold(self.name, notice, "it left a question unanswered", hide_draft=True)
