"""Thought answer: once a turn, a reply that points at an answer written only in the step's
inner thought ("I hope these tips are helpful!") is held back, and the redraft writes it with
no thought of its own, so the answer can only go into the message.

The user reads the message and never the thought. Asked "Any tips for keeping fifteen-year-olds
focused in a lab?", a `make run` chat (stop 42) thought "I can suggest some tips ... First, make
sure they understand the experiment ... Next, provide them with clear instructions ..." and sent
"I hope these tips are helpful! Let me know if you have any other questions.": the tips never
reached the user. Held: a reply that speaks of "these tips" (suggestions, ideas, steps, advice,
...) or hopes "this helps" while the thought holds many more words than the message, and the
message few of them. The redraft's thought is empty (``StepPlan.thought_max_chars``) and it may
not point again (``POINTING_WORDS``); the held step, thought included, stays in view to be
written out.
"""

from __future__ import annotations

import re
from dataclasses import replace

from memgpt_local.agent.policy.base import Draft, MemoryView, Policy, StepPlan, reply_target
from memgpt_local.agent.policy.greet_by_name import human_lines
from memgpt_local.agent.turn import Hold, Turn
from memgpt_local.text import asks_about_the_user_at_all, content_words

_CONTENT = (
    r"tips?|suggestions?|ideas?|steps?|options?|recommendations?|advice|pointers?|strategies|strategy|points?"
    r"|information|info|answer|list|suggestion|ways?|methods?|techniques?"
)
_POINTS_AT = re.compile(
    rf"\b(?:these|those|the above|the following|this|that|my)\s+(?:\w+\s+)?(?:{_CONTENT})\b"
    r"|\bhope\s+(?:this|that|it)\s+helps\b",
    re.IGNORECASE,
)
# the thought says this many content words the message does not: an answer, not a plan
UNSENT_WORDS = 12
# words the redraft may not say: held, it went "I hope these tips help Tui remain calm during a
# thunderstorm." (a `make run` chat, stop 42)
POINTING_WORDS = ("these", "These", "those", "Those", "hope", "Hope", "above", "following")


def pointed_at(message: str, thought: str, question: str = "") -> str | None:
    """The words of ``message`` that point at an answer only ``thought`` holds ("these tips"),
    else None. The words of the user's ``question`` are none of it: a thought that says their
    message again ("Wiremu tried three strategies ...") holds no answer."""
    found = _POINTS_AT.search(message)
    if found is None:
        return None
    said = set(content_words(message))
    unsent = [w for w in content_words(thought) if w not in said | set(content_words(question))]
    return found.group(0) if len(unsent) >= UNSENT_WORDS and len(said) < len(set(unsent)) else None


def knowledge_unsent(question: str, draft: Draft, memory: MemoryView) -> str:
    """The user's saved lines, joined, when ``question`` asks what is known of them at all and
    the message says no word of any line's value while the thought does: "Tell me everything
    you remember about me." was thought out in full ("I remember the user's name is Ingrid, ...")
    and sent as "Sure, I remember that. What else would you like to hear about me?" (a `make
    run` chat, stop 60). "" otherwise."""
    if not asks_about_the_user_at_all(question):
        return ""
    lines = [line for line in human_lines(memory) if ":" in line]
    values = {w for line in lines for w in content_words(line.partition(":")[2])}
    said, thought = set(content_words(draft.message)), set(content_words(draft.thought))
    if not values or said & values or not thought & values:
        return ""
    return "; ".join(lines)


class ThoughtAnswer(Policy):
    name = "thought_answer"

    def plan(self, turn: Turn, plan: StepPlan) -> StepPlan:
        last = turn.steps[-1].hold if turn.steps else None
        return replace(plan, thought_max_chars=0) if last is not None and last.reason == self.name else plan

    def review(self, turn: Turn, draft: Draft, memory: MemoryView) -> Hold | None:
        if draft.plan.last or turn.holds[self.name] or turn.kind == "login":
            return None
        pointer = pointed_at(draft.message, draft.thought, turn.question or "")
        if pointer is None and (unsent := knowledge_unsent(turn.question or "", draft, memory)):
            return Hold(
                self.name,
                "Not sent: the user asked what you know about them, and your message tells none of it; they read "
                f"only the message, never your thoughts. Tell them, in the message itself: {unsent}. Write your "
                f"reply to {reply_target(turn)}",
                "it told what it knows of the user only in its thought",
            )
        if pointer is None:
            return None
        return Hold(
            self.name,
            f"Not sent: your message speaks of {pointer!r}, but the user reads only the message, never your "
            "thoughts, so they have not seen them. Write them out in the message itself, in full. Write your "
            f"reply to {reply_target(turn)}",
            "it pointed at an answer written only in its thought",
            banned_words=POINTING_WORDS,
        )
