"""Reply required: a turn a user's message or a login started never ends without a message.

When the model would end such a turn without any message (a search without a heartbeat, a
memory edit), one more step runs whose grammar allows only the reply function. At a login that
message is the greeting (the paper's conversation opener): the model otherwise edited its
persona and said nothing.
"""

from __future__ import annotations

from memgpt_local.agent.policy.base import Policy
from memgpt_local.agent.turn import Turn


class ReplyRequired(Policy):
    name = "reply_required"

    def before_end(self, turn: Turn) -> str | None:
        if turn.messages:
            return None
        if turn.question is not None:
            return "the user has no answer yet"
        if turn.kind == "login":
            return "greet the user"
        return None
