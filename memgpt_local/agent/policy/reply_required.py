"""Reply required: a turn a user's message started never ends without an answer.

When the model would end such a turn without any message (a search without a heartbeat, a
memory edit), one more step runs whose grammar allows only the reply function.
"""

from __future__ import annotations

from memgpt_local.agent.policy.base import Policy
from memgpt_local.agent.turn import Turn


class ReplyRequired(Policy):
    name = "reply_required"

    def before_end(self, turn: Turn) -> str | None:
        if turn.question is not None and not turn.messages:
            return "the user has no answer yet"
        return None
