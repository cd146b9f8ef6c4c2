"""Greet by name: at a login, a greeting without the user's name is held back once, when core
memory knows the name.

The login event quotes core memory and asks for a greeting by name, and still a 1.5B model
often copies an earlier greeting instead: a returning user, "Name: Lena" in core memory, was
met with "Hello! How can I help you today? What is your name?", the words of the first login.
Told only to use the name ("Greet Lena by name"), the model wrote "Hello! How can I help you
with your goats?": the notice now ends with the words to start from ("Hello Lena!"; a small
model continues from the last thing it read). The second draft goes out whatever it says.
"""

from __future__ import annotations

from memgpt_local.agent.policy.base import Draft, MemoryView, Policy
from memgpt_local.agent.turn import Hold, Turn

NAME_LABELS = ("name", "first name", "full name")


def known_name(memory: MemoryView) -> str | None:
    """The user's name as the human block holds it ("Name: Lena Maier" -> "Lena"), if any."""
    for label, line in memory.core_lines():
        key, _, value = line.partition(":")
        if label == "human" and key.strip().lower() in NAME_LABELS and value.strip():
            return value.strip().split()[0].strip(",.;")
    return None


class GreetByName(Policy):
    name = "greet_by_name"

    def review(self, turn: Turn, draft: Draft, memory: MemoryView) -> Hold | None:
        if turn.kind != "login" or turn.holds[self.name] or draft.plan.last:
            return None
        name = known_name(memory)
        if name is None or name.lower() in draft.message.lower():
            return None
        return Hold(
            self.name,
            "Not sent: your greeting left out the user's name. Write it again with one thing you know "
            f"about them from core memory, starting with: Hello {name}!",
            "the greeting left out the user's name",
            hide_draft=True,
        )
