"""Later promise: once a turn, a reply that promises to do the asked thing later is held back,
and the model is told to do it now.

A reply ends the turn (``one_reply``), and the assistant only acts when the user writes again,
so "later" never comes. A 1.5B model promises it anyway: asked "Any tips for the best man
speech? Keep it short.", it sent "Sure, I'll think about it and get back to you." (a `make run`
chat, stop 41); asked what it did not know, it sent "I don't know what kind of car you own.
I'll need to search for it later." and "I don't know, but I can look it up for you."
(bench_honesty, stop 40), after its memory had been searched. Held: a sentence in which the
assistant says it will (or can, or needs to) search, look up, check, find out, think about it,
get back or come back to the user. Its own doing in the turn ("I searched", "I'll remember
that") is no promise. No later draft of the turn may say the promise's words of searching
again (``promised_words``); the redraft goes out whatever else it says.
"""

from __future__ import annotations

import re

from memgpt_local.agent.policy.base import Draft, MemoryView, Policy, reply_target
from memgpt_local.agent.turn import Hold, Turn
from memgpt_local.text import sentences

_WHO_WILL = (
    r"(?:i'll|i will|i'm going to|i am going to|let me|i can|i could|i need to|i'll need to|i have to|i'll have to)"
)
_LATER_DOING = (
    r"(?:search|look[\s-]+(?:it[\s-]+|that\s+|this\s+)?(?:up|into)|check|find\s+out|research|dig|get\s+back|come\s+back"
    r"|think\s+(?:about\s+it|about\s+that|it\s+over)|let\s+you\s+know)"
)
# "Let's talk about them in the next conversation." (a `make run` chat, stop 42, instead of the tips)
_PUT_OFF = (
    r"\b(?:talk|chat|discuss|go\s+over)\b[^.!?]*?\b(?:later|next\s+time|another\s+time"
    r"|in\s+(?:the|our)\s+next\s+(?:conversation|chat|session))\b"
)
_PROMISE = re.compile(
    rf"\b{_WHO_WILL}\s+(?:\w+\s+){{0,2}}?{_LATER_DOING}\b|\bget\s+back\s+to\s+you\b|{_PUT_OFF}", re.IGNORECASE
)


def promises_later(reply: str) -> str | None:
    """The sentence of ``reply`` in which the assistant promises to do something later ("Sure,
    I'll think about it and get back to you."), else None."""
    for sentence in sentences(reply):
        if _PROMISE.search(sentence.replace("’", "'")):
            return sentence
    return None


class LaterPromise(Policy):
    name = "later_promise"

    def review(self, turn: Turn, draft: Draft, memory: MemoryView) -> Hold | None:
        # a forced start ("I don't know") is written again: held, "..., but I can look it up in my
        # memory." came back as "... look it-up in my memory." (bench_honesty seed 46)
        if draft.plan.last or turn.holds[self.name] or turn.kind == "login" or turn.reply_start:
            return None
        sentence = promises_later(draft.message)
        if sentence is None:
            return None
        return Hold(
            self.name,
            f"Not sent: {sentence!r} promises to do it later, but your reply ends this turn and you cannot "
            "come back to it. Do it now: if it needs your memory, call a search function first; otherwise "
            f"write what was asked in the reply itself, or say plainly what you do not know. Write your reply to "
            f"{reply_target(turn)}",
            "it promised to do it later",
            hide_draft=True,
            banned_words=promised_words(sentence),
        )


# the words a promise is made with that a later draft of the turn may not say again
_PROMISED = ("search", "research", "look", "check", "later")


def promised_words(sentence: str) -> tuple[str, ...]:
    """The words of the promise ``sentence`` that no later draft of the turn may say: its
    redrafts said it again, "I'll search for it for you. What's your grandson's name?" and then
    "I'll search for it for you." through two more holds, and the last went out (a `make run`
    chat, stop 61; the step's thought, "I need to search for this information.", was copied)."""
    said = set(re.findall(r"[a-z]+", sentence.lower()))
    return tuple(word for word in _PROMISED if word in said)
