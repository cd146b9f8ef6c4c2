"""A fact the user tells in answer to the assistant, asked about with the assistant's words beside it.

Read alone, an answer names no topic. Told "I don't know when Orla's birthday is.", the user
wrote "the 22nd, I told you earlier." and the notes pass, shown only that, wrote "Date: 22nd"
or nothing (a `make run` chat, stop 50); the next time, the assistant still did not know. A
short message that answers a denial or a question of the assistant's (``answers_the_assistant``)
is asked one more, short question (``answer_prompt``) with the assistant's message beside it,
when the notes pass found nothing to keep in it alone: the label may come from the assistant's
words, the value must come from the user's.
"""

from __future__ import annotations

import json
import re

from memgpt_local.agent.few_shot import few_shot
from memgpt_local.schemas import ChatMessage
from memgpt_local.text import PETS, RELATIONS, asks_something, denies, names_within, not_leaving, sentences, words

ANSWER_INSTRUCTIONS = (
    "You keep an assistant's notes about its user. The assistant said something and the user's message "
    'answers it. Write what the answer tells as short "Label: value" lines: the label says what the '
    "assistant asked about or did not know, the value is in the user's own words. If the answer tells "
    "nothing to keep, write an empty list."
)
# (the assistant's message, the user's answer, the lines): the notes examples' Sam and his people
ANSWER_EXAMPLES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    (
        "I'm sorry, I don't know when your sister's wedding is.",
        "It's on the 14th of June, I told you!",
        ("Sister's wedding: on the 14th of June",),
    ),
    ("What's your cat called?", "Miso. She's a rescue.", ("Cat: Miso, a rescue",)),
    ("How was your weekend?", "Quiet, thanks. Yours?", ()),
)
ANSWER_MAX_TOKENS = 60
ANSWER_MAX_WORDS = 30  # a longer message says its own topic, and the notes pass reads it
_DAY_OR_NUMBER = re.compile(
    r"\d|\b(?:today|tomorrow|yesterday|monday|tuesday|wednesday|thursday|friday|saturday|sunday|january|february"
    r"|march|april|may|june|july|august|september|october|november|december)\b",
    re.IGNORECASE,
)

# a name or a place: "Glasgow, born and bred." to "I don't know where you were from." (stop 61)
_ASKS_A_NAME = re.compile(r"\b(?:name|named|called|who|where)\b", re.IGNORECASE)


def answer_said(message: str) -> str:
    """The part of ``message`` that may answer the assistant: its sentences before the first one
    that asks. "Glasgow, born and bred. What does Callum do again?" to "I don't know where you
    were from." was read as a request of its own, and Glasgow was never saved (a `make run` chat,
    stop 61); "Any ideas what I could cook ...? He's vegetarian." answers nothing."""
    said = []
    for sentence in sentences(message):
        if asks_something(sentence):
            break
        said.append(sentence)
    # a sign-off answers nothing: "ok gotta get back to chapter 3, speak later" (stop 61)
    return " ".join(kept for s in said if (kept := not_leaving(s)))


def answers_the_assistant(message: str, answering: str) -> bool:
    """Whether ``message`` may answer ``answering`` (the assistant's message before it) with a
    fact: the assistant denied knowing something or asked, and the user's short message, asking
    nothing itself, holds a name, a number or a day. "Any ideas what I could cook for my brother
    Tiago's birthday on the 18th? He's vegetarian." after "Is there anything you want to know
    about him?" (of the dog) was read as an answer about the dog, "Figo's diet: vegetarian", and
    the birthday was dropped (a `make run` chat, stop 50)."""
    message = answer_said(message)  # what it asks after is the user's own request, not an answer
    if not answering or not message or len(words(message)) > ANSWER_MAX_WORDS:
        return False
    if not (denies(answering) or asks_something(answering)):
        return False
    if _DAY_OR_NUMBER.search(message) or names_within(message):
        return True
    # a bare name, asked for one: "Miso. She's a rescue." to "What's your cat called?", or a place
    first = message.split()[0].strip(",.!?;:") if message.split() else ""
    return bool(_ASKS_A_NAME.search(answering)) and first[:1].isupper() and first.isalpha()


_YOU = re.compile(r"\b(?:you|your|yours|yourself)\b", re.IGNORECASE)


def asks_the_writer(answering: str) -> bool:
    """Whether ``answering`` (the assistant's message) asks the user about themself and no one
    else: "What's your name?". Its answer speaks of its writer though it says no "I": "Hey, Kwame
    here. Bus driver, the 42 route through Manchester, eleven years now." kept only the name, the
    work read as no one's (a `make run` chat, stop 59)."""
    asked = [s for s in sentences(answering) if s.endswith("?")]
    return any(_YOU.search(s) and not names_within(s) and not set(words(s)) & (RELATIONS | PETS) for s in asked)


def answer_prompt(answering: str, message: str) -> list[ChatMessage]:
    """The prompt that asks what ``message`` tells in answer to ``answering``."""

    def ask(assistant: str, user: str) -> str:
        return f"Assistant: {json.dumps(assistant, ensure_ascii=False)}\nUser: {json.dumps(user, ensure_ascii=False)}"

    examples = ((ask(assistant, user), lines) for assistant, user, lines in ANSWER_EXAMPLES)
    return few_shot(ANSWER_INSTRUCTIONS, examples, ask(answering, message))
