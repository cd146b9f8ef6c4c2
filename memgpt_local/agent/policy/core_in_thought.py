"""Core in thought: a question about the user that core memory speaks of has each step's
thought begin with those lines, written by the grammar ("My core memory says: Work: baker.").
Off by default: an experiment.

Over nine eval chat sessions (seeds 6 and 12, stops 35-36), 9 of the 15 wrong answers were
denials written right under the core line that answered the question, which
``core_at_question`` had quoted beside it: "I'm sorry, but I don't know what my job is." under
"[human] Work: baker", its thought the same words. Held and shown the line again
(``denial_guard``), the model denied again; made to begin its reply with "You" (stop 36's
``answer_from_core``, which this replaces), it wrote "You mentioned that ..." into the same
denial. The thought is the model's own reasoning, written right before the reply: there the
line is the last thing it read, in its own voice, and the model goes on from it ("The user asks
about their job, so I will tell them."). The lines are quoted as they stand, a day as a person
says it; a line that does not answer (asked for a blood group, "Hobby: chess" matched a shared
word) leaves the model to say so or search. Only for a question that speaks of the user ("my",
"I"): "When does Lia start school?" is left alone.
"""

from __future__ import annotations

from memgpt_local.agent.policy.base import MemoryView, Policy
from memgpt_local.agent.policy.core_at_question import lines_asked_about
from memgpt_local.agent.turn import Turn
from memgpt_local.memory.dates import spoken_days
from memgpt_local.schemas import NewMessage
from memgpt_local.text import FIRST_PERSON, questions

LEAD = "My core memory says: "


def thought_start(lines: list[str]) -> str:
    """The thought's forced first words: ``LEAD`` and the lines without their block tag, each
    ending as a sentence ("My core memory says: Work: baker; Home: Leeds.")."""
    said = "; ".join(line.split("] ", 1)[-1].rstrip(" .") for line in lines)
    return f"{LEAD}{said}."


class CoreInThought(Policy):
    name = "core_in_thought"

    def start(self, turn: Turn, memory: MemoryView) -> list[NewMessage]:
        asked = questions(turn.question or "")
        if turn.kind == "login" or not FIRST_PERSON.search(asked):
            return []
        lines = lines_asked_about(turn.question, memory)
        if lines:
            turn.thought_start = thought_start([spoken_days(line, turn.clock().date()) for line in lines])
        return []
