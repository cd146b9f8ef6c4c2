"""Grounded reply: once a turn, an answer about the user that rests on nothing the model can
see is held back, and the model is told to search or say it does not know.

In the conversation evaluation a 1.5B model answered "What's my blood type?" (never said)
with "You are a type O blood.", "Where did I go to university?" with "the University of
Auckland", and "What am I allergic to?" (pollen, said two sessions before) with "peanuts and
eggs". Each reply named things that occur nowhere in its main context: not in the
conversation, the summary, core memory or the results it read. A reply to a question about
the user (one that says "I", "my", "we") is held when a name or number in it, or at least
half of its longer content words, appear nowhere in the prompt it was written from. A reply
that says it does not know is never held, and the second draft goes out whatever it says.
What the turn's own steps wrote does not count as seen: a guard's notice quotes the draft it
held ("'I went to the University of Oxford.' speaks as if you were the user"), and the
rewritten "You went to the University of Oxford." then passed as grounded.

Off by default and not yet measured: switch it on with ``grounded_reply`` in ``agent.policies``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memgpt_local.agent.policy.base import Draft, MemoryView, Policy
from memgpt_local.agent.policy.greet_by_name import human_lines
from memgpt_local.agent.turn import Hold, Turn
from memgpt_local.schemas import ChatMessage
from memgpt_local.text import asks_for_help, content_words, denies, named_as_known, questions, words

_ABOUT_THE_USER = re.compile(r"\b(?:i|i'm|i've|me|my|mine|we|our|us)\b", re.I)
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_TOKEN = re.compile(r"[A-Za-z]+|\d+")
_MARK = "grounded_reply"


def asks_about_the_user(message: str) -> bool:
    """Whether a question of ``message`` asks what memory holds about its writer: it speaks of
    them ("my", "I") and asks for no advice ("What am I allergic to?", not "Any tips for
    sleeping better? I keep waking up")."""
    asked = questions(message)
    return bool(_ABOUT_THE_USER.search(asked)) and not asks_for_help(asked)


def names_and_numbers(text: str) -> list[str]:
    """Capitalised words that do not start a sentence, and numbers."""
    out = []
    for sentence in _SENTENCE.split(text.strip()):
        tokens = _TOKEN.findall(sentence)
        out += [t for i, t in enumerate(tokens) if t.isdigit() or (i > 0 and t[0].isupper() and t != "I")]
    return out


def unseen(reply: str, seen_text: str) -> list[str]:
    """The names, numbers and content words of ``reply`` that ``seen_text`` never uses, when
    they are enough to say the reply invents: any name or number, or half its words."""
    seen = set(words(seen_text))
    names = [w for w in names_and_numbers(reply) if w.lower() not in seen]
    if names:
        return names
    longer = [w for w in content_words(reply) if len(w) > 3]
    new = [w for w in longer if w not in seen]
    return new if longer and len(new) * 2 >= len(longer) else []


def seen_before_drafting(turn: Turn, prompt: Sequence[ChatMessage]) -> str:
    """The text of ``prompt`` less what this turn's own steps wrote: their thoughts and calls,
    and the notices of held drafts. Search results and other notices stay."""
    notices = [s.hold.notice for s in turn.steps if s.hold is not None]

    def held(message: ChatMessage) -> bool:  # a hold's notice (it quotes the question too)
        return any(n in message.content for n in notices)

    asked = [
        i
        for i, m in enumerate(prompt)
        if m.role == "user" and turn.question and turn.question in m.content and not held(m)
    ]
    start = asked[-1] + 1 if asked else len(prompt)
    after = [m for m in prompt[start:] if m.role != "assistant" and not held(m)]
    return "\n".join(m.content for m in [*prompt[:start], *after])


class GroundedReply(Policy):
    name = "grounded_reply"

    def review(self, turn: Turn, draft: Draft, memory: MemoryView) -> Hold | None:
        if draft.plan.last or _MARK in turn.marks or not turn.question:
            return None
        # by name too: "What's the name of Tomasz's bakery?" under "Partner: Tomasz" (stop 43)
        if not asks_about_the_user(named_as_known(turn.question, human_lines(memory))):
            return None
        if denies(draft.message):
            return None
        new = unseen(draft.message, seen_before_drafting(turn, draft.prompt))
        if not new:
            return None
        turn.marks.add(_MARK)
        said = ", ".join(dict.fromkeys(new))
        return Hold(
            self.name,
            f"Not sent: your reply says {said}, which nothing in your memory or this conversation says. "
            "Answer only from what you can see or find: search your memory, or tell the user you do not know.",
            "it said things nothing in memory supports",
            hide_draft=True,
        )
