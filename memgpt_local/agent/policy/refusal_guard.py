"""Refusal guard: once a turn, a reply that refuses ("I'm sorry, but I can't assist with
that.") is held back and leaves the context; the model is told nothing needed refusing.

A companion is never asked for anything it must refuse, yet qwen2.5-coder-1.5b answered
"What a long day. Completely worn out.", "Big news: I've moved from ... to ...!", "I'm
allergic to peanuts, by the way." and "What's my job?" with "I'm sorry, but I can't assist
with that." (the conversation evaluation's seed 6, and `scripts/bench_chat.py`'s own chat).
Once one such reply stood in the conversation, the model copied it for the rest of the
session: four, then seven times in one user's sessions. Held back and out of the context, it
cannot be copied; the second draft goes out whatever it says.
"""

from __future__ import annotations

import re

from memgpt_local.agent.policy.base import Draft, MemoryView, Policy
from memgpt_local.agent.turn import Hold, Turn
from memgpt_local.text import is_leaving_now, questions, sentences, statements

# "I can't assist with that", "I'm unable to help you with this", "I cannot assist."; not the
# idioms "I can't help but smile" or "I can't help thinking"
_REFUSAL = re.compile(
    r"\bI(?:\s+|')(?:can't|cannot|can\s+not|won't\s+be\s+able\s+to|am\s+unable\s+to|m\s+unable\s+to"
    r"|am\s+not\s+able\s+to|m\s+not\s+able\s+to)\s+"
    r"(?:assist\b|help(?:\s+you)?\s+with\s+(?:that|this|it|your|such)\b|help\s*[.!,]|provide\s+(?:that|this)\b"
    # "I'm sorry, but I can't continue the conversation right here." to "Work was so busy today,
    # I'm exhausted." (eval chat seed 35, stop 54)
    r"|continue\s+(?:the|this|our)\s+(?:conversation|chat)\b)",
    re.IGNORECASE,
)


def refuses(reply: str) -> bool:
    """Whether ``reply`` refuses to help ("I'm sorry, but I can't assist with that.")."""
    return bool(_REFUSAL.search(reply.replace("\u2019", "'")))


class RefusalGuard(Policy):
    name = "refusal_guard"

    def review(self, turn: Turn, draft: Draft, memory: MemoryView) -> Hold | None:
        if draft.plan.last or turn.holds[self.name] or not refuses(draft.message):
            return None
        if turn.question is not None and questions(turn.question):
            notice = (
                "Not sent: nothing here needs refusing. Answer the question from what you know about the user "
                "or can search for; if memory does not hold the answer, say you don't know."
            )
        elif turn.question is not None and any(is_leaving_now(s) for s in sentences(statements(turn.question))):
            # "anyway gotta go, my flatmate Rhys is making pasta" got "I'm sorry I can't help with that.",
            # and told to reply to what was said, "I'm sorry to hear about your flatmate." (stop 63)
            notice = (
                "Not sent: nothing here needs refusing; the user is leaving now. Say goodbye warmly, in a sentence."
            )
        elif turn.question is not None:
            notice = (
                "Not sent: nothing here needs refusing; the user asked for nothing, they told you something. "
                "Reply to what they said, in a sentence or two."
            )
        else:
            notice = "Not sent: nothing here needs refusing. Greet the user."
        return Hold(self.name, notice, "it refused a message that needed no refusal", hide_draft=True)
