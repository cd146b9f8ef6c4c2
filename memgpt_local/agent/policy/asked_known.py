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
second draft goes out whatever it says. At a login, a greeting that asks again what an earlier
reply asked is held the same way (``asked_before``).
"""

from __future__ import annotations

from collections.abc import Iterable

from memgpt_local.agent.policy.base import Draft, MemoryView, Policy, reply_target
from memgpt_local.agent.policy.greet_by_name import asks_for, human_lines, known_name, names_a_fact, user_facts
from memgpt_local.agent.policy.repeat_guard import earlier_replies
from memgpt_local.agent.turn import Hold, Turn
from memgpt_local.text import (
    ASKING_WORDS,
    content_words,
    introduced_name,
    is_question,
    label_topics,
    sentences,
    stem,
    words,
)

_QUANTIFIERS = frozenset("some many much more most other others every each".split())


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


# words of any friendly question, never its topic: "How can I help you today?" is asked at every login
_ANY_QUESTION = frozenset(stem(w) for w in "help today day doing going anything else plans".split())
EARLIER_HITS = 5  # replies of earlier sessions a greeting's question is compared with


def _topic(question: str) -> set[str]:
    return {stem(w) for w in content_words(question) if len(w) > 2 and w not in ASKING_WORDS} - _ANY_QUESTION


def asked_before(question: str, earlier: Iterable[str]) -> str | None:
    """The question of the ``earlier`` replies that ``question`` asks again: they share two of
    its topic words at least, and two thirds of them ("What's your favorite thing about sea
    lions?" after "What are some of your favorite things about sea lions?")."""
    asked = _topic(question)
    if len(asked) < 2:
        return None
    for text in earlier:
        for sentence in sentences(text):
            if not is_question(sentence):
                continue
            shared = asked & _topic(sentence)
            if len(shared) >= 2 and 3 * len(shared) >= 2 * len(asked):
                return sentence.strip()
    return None


def repeated_question(greeting: str, turn: Turn, memory: MemoryView) -> tuple[str, str] | None:
    """The question of ``greeting`` that an earlier reply asked, and that reply's question: the
    replies in view before the login and those a search for the question finds."""
    shown = [said for said, _ in earlier_replies(turn, memory)]
    for sentence in sentences(greeting):
        if not is_question(sentence):
            continue
        found = [h.text for h in memory.search("message", sentence, EARLIER_HITS) if h.role == "assistant"]
        earlier = asked_before(sentence, [*shown, *found])
        if earlier is not None:
            return sentence.strip(), earlier
    return None


class AskedKnown(Policy):
    name = "asked_known"

    def review(self, turn: Turn, draft: Draft, memory: MemoryView) -> Hold | None:
        if draft.plan.last or turn.holds[self.name]:
            return None
        if turn.kind == "login":
            return self._review_greeting(turn, draft, memory)
        if not turn.question:
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

    def _review_greeting(self, turn: Turn, draft: Draft, memory: MemoryView) -> Hold | None:
        """A greeting that asks what an earlier session asked: a `make run` chat (stop 43) asked
        "What are some of your favorite things about sea lions?", was answered, and the next
        login's greeting asked "What's your favorite thing about sea lions?" ("Ha, you already
        asked me that.")."""
        known = known_question(draft.message, "", human_lines(memory))
        if known is not None:
            # eval chat seed 31 (stop 51): held for naming no fact, a greeting was redrafted "Hello
            # Prixfeo! What's your favourite music?" under "Favourite music: Fomeicks"
            asked, source = known
            kept_start(turn, draft.message, asked, memory)
            notice = (
                f'Not sent: your greeting asks "{asked}", and {source}. Do not ask what you know: greet them '
                "and say what you remember."
            )
            return Hold(self.name, notice, "the greeting asked what core memory says", hide_draft=True)
        found = repeated_question(draft.message, turn, memory)
        if found is None:
            return None
        asked, earlier = found
        kept_start(turn, draft.message, asked, memory)
        notice = (
            f'Not sent: your greeting asks "{asked}", and you asked the user "{earlier}" before. Do not ask it '
            "again: greet them with something else you know about them."
        )
        # held, "How can I assist you with your mock exams?" was redrafted "How can I help you with your
        # mock tests?" (a `make run` chat, stop 51): the question's own words are not said again
        topic = [
            w for w in dict.fromkeys(content_words(earlier)) if len(w) > 3 and w not in ASKING_WORDS | _QUANTIFIERS
        ]
        return Hold(
            self.name,
            notice,
            "it asked again what an earlier session asked",
            hide_draft=True,
            uncopied=(earlier,),
            banned_words=tuple(form for w in topic for form in (w, w.capitalize())),
        )


def kept_start(turn: Turn, greeting: str, asked: str, memory: MemoryView) -> None:
    """Where a held ``greeting``'s statements before the question ``asked`` greet by name with
    a known fact, the redraft begins with them and may add one sentence: "Hello Marguerite!
    Elodie is coming to stay on the 20th, ... What kind of birthday party would you like to
    have?" was held for its question, and the redraft said "Elodie's coming to stay over
    Christmas", her old plan (a `make run` chat, stop 52)."""
    told = sentences(greeting)
    before = told[: told.index(asked)] if asked in told else []
    kept = [s for s in before if not is_question(s)]
    name = known_name(memory)
    text = " ".join(kept)
    if not kept or name is None or name.lower() not in text.lower() or not names_a_fact(text, user_facts(memory), name):
        return
    turn.reply_start = text
    turn.reply_sentences = len(kept) + 1
