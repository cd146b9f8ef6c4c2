"""Echo guard: once a turn, a reply that asks the user their own question back is held back
and the turn's best search hits are shown instead ("Which book did you say you finished?").

Only a message that asks something has a question to echo: a check-back on news ("The big oven
broke so we baked 400 paczki in the small one." -> "Did you bake 400 paczki in the small
oven?") was held in a `make run` chat, and the redraft denied knowing the user's work."""

from __future__ import annotations

import re

from memgpt_local.agent.policy.base import Draft, MemoryView, Policy
from memgpt_local.agent.policy.greet_by_name import human_lines
from memgpt_local.agent.policy.hits import best_hits
from memgpt_local.agent.turn import Hold, Turn
from memgpt_local.config import GuardSettings
from memgpt_local.functions.results import format_hits
from memgpt_local.text import (
    ASKING_WORDS,
    asks_about_the_user_at_all,
    asks_something,
    content_words,
    denies,
    is_question,
    lines_about,
    questions,
    sentences,
    statements,
    stem,
    words,
)


def restates_question(draft: str, asked: str, *, coverage: float = 0.75, min_words: int = 3) -> bool:
    """Whether a question in ``draft`` is the user's own question asked back: at least
    ``min_words`` content words besides the words of asking ("tell", "remember"), ``coverage``
    of them from the user's message, compared by their first four letters ("Which book by Ann
    Lee did you say you had finished?" to "Which book by Ann Lee did I say I had finished?";
    "Can you tell me when Tomek's swimming lesson is scheduled?" to "When is Tomek's swimming
    lesson?", in a `make run` chat with the lesson's day in core memory)."""
    if any(said_again(sentence, asked) for sentence in re.findall(r"[^.!?]*\?", draft)):
        return True
    said = {stem(w) for w in content_words(asked)}
    if not said:
        return False
    for sentence in re.findall(r"[^.!?]*\?", draft):
        words = [stem(w) for w in content_words(sentence) if w not in ASKING_WORDS]
        if len(words) >= min_words and sum(w in said for w in words) >= coverage * len(words):
            return True
    return False


# fewest words of a question that, said again word for word, ask it back
_ECHO_MIN_WORDS = 4
# a question of the user's own things speaks of them ("what do you know about me")
_OF_THE_USER = frozenset("i me my mine myself i'm i've i'd".split())


def said_again(sentence: str, asked: str) -> bool:
    """Whether ``sentence`` holds a question of ``asked`` word for word, of at least four words:
    "I'm here, what do you know about me so far?" for "What do you know about me so far?" (a
    `make run` chat, stop 60: the answer was written in the step's thought, the question went
    out), or most of it ("What do you know about me?"). Only a question that speaks of the user
    counts: "How are you doing today?" asked back is small talk. Its content words are too few
    for ``restates_question`` to weigh."""
    said = words(sentence)
    for question in sentences(questions(asked)):
        theirs = words(question)
        shorter, longer = sorted((said, theirs), key=len)
        if len(theirs) < _ECHO_MIN_WORDS or len(shorter) < _ECHO_MIN_WORDS or not _OF_THE_USER & set(theirs):
            # a question of the assistant's own asked back is small talk: "I'm well, how are you?"
            continue
        # all of the user's question within the reply's, or the reply's question most of theirs
        # ("What do you know about me?")
        if f" {' '.join(shorter)} " in f" {' '.join(longer)} " and (
            shorter is theirs or 4 * len(said) >= 3 * len(theirs)
        ):
            return True
    return False


def answers_besides(draft: str, asked: str) -> bool:
    """Whether ``draft`` answers the user's question in a sentence of its own besides any question
    it asks: a statement with two content words of the question (compared by stem; one, when
    the question has one) that does not say it does not know ("Sure, Tomek." answers nothing)
    and is not what the user said around the question, told back ("You told me about your sister
    last week." for "I told you about my sister last week. What's her name?").
    "It's never too late to learn a new language! What would you like to know about learning a
    new language?" answered "Is it too late to learn a new language?" (eval chat seed 6: held as
    an echo, and the redraft said "I do not know if it is too late ...")."""
    said = {stem(w) for w in content_words(questions(asked) or asked)}
    told = {stem(w) for w in content_words(statements(asked))}
    enough = min(2, len(said)) or 1
    for sentence in sentences(draft):
        own = {stem(w) for w in content_words(sentence)}
        if is_question(sentence) or said_again(sentence, asked) or denies(sentence) or len(said & own) < enough:
            continue
        if 4 * len(own & told) < 3 * len(own):  # under three quarters of it the user's own statement
            return True
    return False


class EchoGuard(Policy):
    name = "echo_guard"

    def __init__(self, settings: GuardSettings):
        self.hits = settings.hits

    def review(self, turn: Turn, draft: Draft, memory: MemoryView) -> Hold | None:
        if draft.plan.last or turn.holds[self.name] or not turn.question or not asks_something(turn.question):
            return None
        written = draft.written_after(turn.reply_start)
        if not restates_question(written, turn.question) or answers_besides(written, turn.question):
            return None
        hits = best_hits(turn, memory.embed, self.hits)
        known = [("human", line) for line in human_lines(memory)]
        # "What do you know about me so far?" names nothing: all the user's lines answer it
        core = (
            [f"[{block}] {line}" for block, line in known]
            if asks_about_the_user_at_all(turn.question)
            else lines_about(questions(turn.question), known)
        )
        found = (
            "What your searches found (best first):\n" + "\n".join(format_hits(hits, first=1, per_item=300))
            if hits
            else "Your core memory says:\n" + "\n".join(core)
            if core
            else "Your searches found nothing; if you do not know, say so."
        )
        notice = (
            "Not sent: your reply asks the user the question they asked you. Answer it instead, "
            "from what you found. " + found
        )
        return Hold(self.name, notice, "it asked your question back", hide_draft=True)
