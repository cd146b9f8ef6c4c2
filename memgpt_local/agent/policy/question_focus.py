"""Question focus: a turn's searches rank their hits by the user's question as well as by the
model's query.

A terse query ("Zuxhao Hall") finds every mention; the question ("which band did we see live
there?") puts the mention that answers it first. Hits the turn has already shown get no push
from it, so the next link of a chain of lookups is not buried under the first. The recap and
the echo guard then order the turn's hits by the question too.

A message that chats before it asks is focused on its questions only: with the whole of
"Chocolate is a safe bet, she loves it. What's my dog called?" the recap put a message about a
chocolate cake first and the one naming the dog nowhere, and the reply was about the cake.
"""

from __future__ import annotations

from memgpt_local.agent.policy.base import MemoryView, Policy
from memgpt_local.agent.turn import Turn
from memgpt_local.schemas import NewMessage
from memgpt_local.text import questions


class QuestionFocus(Policy):
    name = "question_focus"

    def start(self, turn: Turn, memory: MemoryView) -> list[NewMessage]:
        if turn.question:
            turn.focus = questions(turn.question) or turn.question
        return []
