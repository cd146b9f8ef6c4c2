"""Answer from core: a question about the user that core memory speaks of has its reply begin
with "You", written by the grammar. Off by default: an experiment.

Over nine eval chat sessions (seeds 6 and 12, stops 35-36), 9 of the 15 wrong answers were
denials written right under the core line that answered the question, which
``core_at_question`` had quoted beside it ("I'm sorry, but I don't know what my job is." under
"[human] Work: architect"). Held and shown the line again (``denial_guard``), the model denied
again ("I do not know the cat's name." with "Pet: Prixquou" shown). The denial is settled in the
reply's first words, copied from an earlier reply ("I'm sorry, but I don't know ..."); a reply
that starts "You" goes on with what it knows about the user ("You work as an architect.") or
says so in the user's terms ("You haven't told me ..."). Only for a question that speaks of
the user ("my", "I") and that core memory speaks of: "When does Lia start school?" is answered
"Lia starts ...".

Measured worse, so off: on eval chat tuning seed 6 (wording 1, 44e3d81) the "You" start became
"You asked about ..." and "You mentioned that ..." before the same denial ("You mentioned that
you have a peanut allergy. I'm sorry, but I don't know what you can't eat or take based on
that."), and 7 of 19 replies copied an earlier sentence's opening. Kept as the variant
``answer-from-core`` to compare a better form of the idea against; see docs/eval/results.md.
"""

from __future__ import annotations

from memgpt_local.agent.policy.base import MemoryView, Policy
from memgpt_local.agent.policy.core_at_question import lines_asked_about
from memgpt_local.agent.turn import Turn
from memgpt_local.schemas import NewMessage
from memgpt_local.text import FIRST_PERSON, questions

START = "You"


class AnswerFromCore(Policy):
    name = "answer_from_core"

    def start(self, turn: Turn, memory: MemoryView) -> list[NewMessage]:
        asked = questions(turn.question or "")
        if turn.kind != "login" and FIRST_PERSON.search(asked) and lines_asked_about(turn.question, memory):
            turn.reply_start = START
        return []
