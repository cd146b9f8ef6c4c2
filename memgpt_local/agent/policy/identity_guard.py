"""Identity guard: once a turn, a reply in which the assistant calls itself by the user's name
is held back, and the model is told whose name it is.

A small model continues the words it just read: after "Hello there, Gellhaton here. Nurse by
trade ..." qwen2.5-coder-1.5b replied "Hello! My name is Gellhaton. What is your name?", and
another first reply began "Hello there! My name is ..." with the user's name. The user's name
is the one core memory holds, or the one their message introduces (the notes pass writes it
down only after the reply).
"""

from __future__ import annotations

import re

from memgpt_local.agent.policy.base import Draft, MemoryView, Policy
from memgpt_local.agent.policy.greet_by_name import known_name
from memgpt_local.agent.turn import Hold, Turn
from memgpt_local.text import UPPER

_NAME = rf"([{UPPER}][\w'-]+)"
# how a user introduces themself: "I'm Dana", "my name is Dana", "Dana here", "it's Bruno"
_INTRODUCES = re.compile(
    rf"\b(?:[Ii]'m|I am|[Mm]y name is|[Nn]ame's|[Ii]t's|[Tt]his is|[Cc]all me)\s+{_NAME}|\b{_NAME},? here\b"
)
# how a reply would claim a name for the assistant
_CLAIMS = re.compile(rf"\b(?:[Mm]y name is|I'm|I am|[Cc]all me|[Tt]his is)\s+{_NAME}")


def users_names(message: str | None, memory: MemoryView) -> set[str]:
    """The user's name as core memory holds it and as their message introduces it, lower case."""
    names = {n.lower() for n in (known_name(memory),) if n}
    for match in _INTRODUCES.finditer(message or ""):
        names.add((match.group(1) or match.group(2)).lower())
    return names


def claims_name(draft: str, names: set[str]) -> str | None:
    """The name of ``names`` that ``draft`` claims for its writer ("My name is Dana"), else None."""
    for match in _CLAIMS.finditer(draft):
        if match.group(1).lower() in names:
            return match.group(1)
    return None


class IdentityGuard(Policy):
    name = "identity_guard"

    def review(self, turn: Turn, draft: Draft, memory: MemoryView) -> Hold | None:
        if draft.plan.last or turn.holds[self.name]:
            return None
        name = claims_name(draft.message, users_names(turn.question, memory))
        if name is None:
            return None
        return Hold(
            self.name,
            f"Not sent: {name} is the user's name, not yours; you are their assistant. Reply to {name} again, "
            f"speaking to them, starting with: Hi {name}!",
            "it gave the user's name as the assistant's own",
            hide_draft=True,
        )
