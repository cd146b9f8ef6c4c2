"""Asked known: once a turn, a reply that asks the user for what they have just told it, or
what core memory says, is held back, and the model is told to react to it instead.

A user who opens with "Hi! I'm Pasoard. I live in Rudaoton and I work as a florist." was
answered "What's your name?", and "Big news: I've moved from Rudaoton to Nollthaenbury!" got
"I'm glad you've moved. What's your new home?" (eval chat seed 15, at both stop 38 commits).
A person who is asked their name right after giving it knows the assistant did not listen.

A question asks for what is known when it is "What's your X?" (``greet_by_name.asks_for``)
with every word of X the words of a core line, or of the user's message: said there ("home"
for "I've moved to ..."), or, for "name", when the message introduces its writer ("I'm
Pasoard", "Pasoard here"). "What's your new home like?" asks for more and is left alone. The
second draft goes out whatever it says.
"""

from __future__ import annotations

from memgpt_local.agent.policy.base import Draft, MemoryView, Policy, reply_target
from memgpt_local.agent.policy.greet_by_name import asks_for, human_lines
from memgpt_local.agent.turn import Hold, Turn
from memgpt_local.text import introduced_name, is_question, label_topics, sentences, words


def told_in(question: str, message: str) -> bool:
    """Whether ``question`` asks for what ``message`` tells: its words of what are the
    message's, or words the message says that are about them ("moved" for "home"), or it asks
    the name of a writer who gave it."""
    said = set(words(message))
    if asks_for(question, "Name:") and introduced_name(message):
        return True
    line = " ".join(sorted(said | {w for w in _asked_words(question) if label_topics(w) & said}))
    return asks_for(question, line)


def _asked_words(question: str) -> list[str]:
    return words(question.rpartition(" your ")[2]) if " your " in question.lower() else []


def known_question(reply: str, message: str, lines: list[str]) -> tuple[str, str] | None:
    """The first question of ``reply`` that asks for what is known, and where it is known from
    (a core line, or "their message"); None when it asks nothing known."""
    for sentence in sentences(reply):
        if not is_question(sentence):
            continue
        if message and told_in(sentence, message):  # first: "What's your new home?" after a move
            return sentence.strip(), "they have just told you in their message"
        line = next((line for line in lines if asks_for(sentence, line)), None)
        if line is not None:
            return sentence.strip(), f'your core memory says "{line}"'
    return None


class AskedKnown(Policy):
    name = "asked_known"

    def review(self, turn: Turn, draft: Draft, memory: MemoryView) -> Hold | None:
        if draft.plan.last or turn.holds[self.name] or turn.kind == "login" or not turn.question:
            return None
        found = known_question(draft.message, turn.question, human_lines(memory))
        if found is None:
            return None
        asked, source = found
        notice = (
            f'Not sent: your reply asks the user "{asked}", and {source}. Do not ask what you know; '
            f"react to what they said, as a friend would. Write your reply to {reply_target(turn)}"
        )
        return Hold(self.name, notice, "it asked what you had just been told", hide_draft=True)
