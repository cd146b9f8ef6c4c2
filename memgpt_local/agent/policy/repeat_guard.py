"""Repeat guard: a message already sent in this turn is not sent again, nor one that only
parrots a function's result back ("Message sent.").

Small models loop on the reply function. When the user already has an answer the turn ends
there; when they have none yet, the next step must answer for real.
"""

from __future__ import annotations

from memgpt_local.agent.policy.base import Draft, MemoryView, Policy
from memgpt_local.agent.turn import Hold, Turn
from memgpt_local.text import normalize_space


class RepeatGuard(Policy):
    name = "repeat_guard"

    def review(self, turn: Turn, draft: Draft, memory: MemoryView) -> Hold | None:
        message = normalize_space(draft.message)
        if not message:
            return None
        answered = bool(turn.messages)
        if any(normalize_space(sent) == message for sent in turn.messages):
            return Hold(
                self.name,
                "Not sent: you already sent this exact message in this turn.",
                "the same message was already sent in this turn.",
                end_turn=answered,
            )
        if any(normalize_space(step.outcome.text) == message for step in turn.steps):
            return Hold(
                self.name,
                "Not sent: that is a function's result, not a message for the user.",
                "that is a function's result, not a message for the user.",
                end_turn=answered,
            )
        return None
