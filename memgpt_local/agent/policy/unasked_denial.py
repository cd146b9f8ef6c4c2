"""Unasked denial: once a turn, a reply that says it does not know, to a message that asked
nothing, is held back, and the model is told it was told something, not asked.

A 1.5B model answers what it reads as a lookup: "By the way, I'm allergic to penicillin, and my
favourite dinner is gnocchi." got "I'm sorry, but I don't know your favourite dinner. I'll look
it up for you.", and once that reply stood in the conversation it came back for every message
of the session ("Last Saturday I saw the Douthqueettes play live" -> "I'm sorry, but I don't
know about the Douthqueettes", the weather, a sister's visit, a move). A user who tells the
assistant something asked for no knowledge, so a denial is never the answer; the redraft goes
out whatever it says.

On by default since stop 33. In its first measurement (eval chat, seed 5, wording 1, stops
25-26) it held the first reply ("I'm sorry, but I don't know much about carpentry or
Zapruenton."), the redraft denied again, and that session ended worse than the same seed
without it, so it was switched off. At stop 33, with the formula stop (``agent.
reply_formula_words``) in place, eval chat seed 6 wording 1 sent the denial formula to every
statement and then to questions without it (3/6 answers right), and 5/6 with it: a held
denial leaves the context, so it never becomes the example the next reply copies
(docs/eval/results.md, stop 33, with the seed-8 report). There the redraft denied again in
every hold read (4 of 4: "I'm sorry, but I don't know anything about Brallhaette's chewing
habits."), so the notice now gives the reply's first words, as the greeting's does: "Thanks for
telling me".

A request for advice or ideas (``text.asks_for_help``) asks for no memory either: "What can I do
to make Tui less anxious when there's a storm?" was answered "I'm sorry, but I don't have any
information about Tui's fear of thunder or how to make it less anxious." (a `make run` chat,
stop 42, copied from the same answer a session before). Held, the model is told to give the
help it knows.
"""

from __future__ import annotations

from memgpt_local.agent.policy.base import Draft, MemoryView, Policy, reply_target
from memgpt_local.agent.turn import Hold, Turn
from memgpt_local.text import asks_for_help, asks_something, denies, questions

# the redraft of a denied request for help may not apologise again
HELP_DENIAL_WORDS = ("sorry", "Sorry", "information")


class UnaskedDenial(Policy):
    name = "unasked_denial"

    def review(self, turn: Turn, draft: Draft, memory: MemoryView) -> Hold | None:
        if draft.plan.last or turn.holds[self.name] or not turn.question:
            return None
        if not denies(draft.message):
            return None
        if asks_something(turn.question):
            return self._help_denied(turn) if asks_for_help(questions(turn.question)) else None
        return Hold(
            self.name,
            "Not sent: the user asked you nothing, they told you something, so there is nothing to know "
            "or to look up. React to what they said, as a friend would, in your own words. "
            f"Write your reply to {reply_target(turn)}. Start with: Thanks for telling me",
            "it said it did not know, but the user had asked nothing",
            hide_draft=True,
        )

    def _help_denied(self, turn: Turn) -> Hold:
        return Hold(
            self.name,
            "Not sent: the user asked for advice, not for something they told you, so there is nothing to look "
            "up. Give the help you know, in a few concrete points that fit what you know of them. "
            f"Write your reply to {reply_target(turn)}",
            "it said it did not know, but the user had asked for advice",
            hide_draft=True,
            banned_words=HELP_DENIAL_WORDS,
        )
