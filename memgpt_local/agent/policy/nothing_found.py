"""Nothing found: a question about the user that nothing in memory speaks of is answered "I
don't know": checked before the first step by a search of both memories for the question's
subject, and again after each search the model runs.

A search always returns something: the nearest messages by meaning, when no message holds the
query's words. A 1.5B model then answers from what it read. Asked "What car do I drive?"
(never said), it searched "car", read two of the user's old questions, searched "pet's name"
next and answered "Your pet's name is Stouwia, she's the boss of the house." (eval chat seed
14); asked "Which university did I study at?", it searched "university" twice, read five
messages none of which says "university", and sent "The university I studied at is
Stobathitonton." (the user's old home town, seed 14 wording 1); on seed 15 a search for "car"
was followed by "Do you want to continue with the conversation ...?". Each of those turns
took 20-90 s of searching for nothing. And asked "Which university did I go to?", the model
answered "You went to Vendnuobury University in Rainpretreenton." in its first step, without a
search (bench_honesty seed 33; eval chat seed 16 wording 1 the same way): so the policy
searches first, as the model would, and a question nothing speaks of is answered at once.

The turn's question must be one question about the user (``my``, ``I``) whose subject words
("car", ``search_uncovered.topic``) neither core memory nor the conversation in view holds
(before this turn's own results), nor any core line the question asks about by its label's
words (``core_at_question``) or that a search showed for its query. After a search none of
whose hits, the user's messages or saved passages, holds a subject word or names an animal or a
place the question asks about by its topic ("pet" finds "ferret", ``text.label_topics``), the
next step must reply, and its reply begins "I don't know" and ends within two sentences. The
assistant's own replies found do not count: an invented answer found again is no evidence. A
question of two parts, one asked at login, one about the conversation ("What did we talk
about?") and a date search are left alone, and words of when ("last week") are no subject
words.
"""

from __future__ import annotations

from memgpt_local.agent.policy.all_questions import asked_questions
from memgpt_local.agent.policy.base import MemoryView, Policy
from memgpt_local.agent.policy.core_at_question import lines_asked_about
from memgpt_local.agent.policy.grounded_reply import asks_about_the_user
from memgpt_local.agent.policy.search_uncovered import topic
from memgpt_local.agent.turn import StepRecord, Turn
from memgpt_local.schemas import NewMessage, SearchHit
from memgpt_local.text import (
    BARE_LABEL_STEMS,
    SENTENCE_OPENERS,
    WHEN_WORDS,
    label_topics,
    lines_about,
    stem,
    stems,
    topic_words,
    words,
)

REASON = "memory holds nothing about the question"
START = "I don't know"
SENTENCES = 2  # "I don't know your blood type." and, at most, one more
# what was said is not a word of what was said: "What did we talk about?" is answered by
# messages that never say "talk"
_CONVERSATION = frozenset(
    stem(w) for w in "talk talked discuss discussed chat chatted conversation speak spoke".split()
)


_A_WHILE_AGO = frozenset("while ago recently lately earlier before".split())


def subject_of(question: str) -> set[str]:
    """The stems a question about the user asks about, less the words of when ("last Tuesday":
    a date search finds messages that never say it), of greeting ("hello there, what ...") and
    "favourite" (bench_honesty seed 34: "Favourite food: gnocchi" in core memory kept "What's
    my favourite football team?" from being answered "I don't know");
    empty for one about the conversation."""
    said = topic(question) | topic(topic_words(question))  # "see live" is a gig, and still "live"
    subject = said - {stem(w) for w in WHEN_WORDS | SENTENCE_OPENERS | _A_WHILE_AGO} - BARE_LABEL_STEMS
    return set() if subject & _CONVERSATION else subject


def in_view_before(turn: Turn, memory: MemoryView) -> list[str]:
    """Core memory's lines and the conversation in view from before the turn's question (the
    assistant's replies aside): this turn's own search results are judged as hits."""
    seen = [line for _, line in memory.core_lines()]
    first = turn.event_id
    return seen + [m.content for m in memory.in_context() if m.role != "assistant" and (first is None or m.id < first)]


def core_lines_found(step: StepRecord, memory: MemoryView) -> list[str]:
    """The core lines a search's first page showed for its query ("beehives" finds "Home:
    Leeds, three beehives on the roof", asked "how many hives do I have?")."""
    query = step.call.arguments.get("query") if step.call is not None else None
    return lines_about(query, memory.core_lines()) if isinstance(query, str) and query.strip() else []


def speaks_of(hit: SearchHit, subject: set[str], asked: set[str]) -> bool:
    """Whether ``hit`` (not the assistant's own) holds a ``subject`` stem, or a word people ask
    about with one of the ``asked`` words ("ferret" for "pet")."""
    if hit.role == "assistant":
        return False
    return bool(subject & stems(hit.text) or asked & label_topics(hit.text))


SEARCHED_HITS = 5  # hits of each memory that the check before the first step reads


def subject_query(question: str, subject: set[str]) -> str:
    """The question's words whose stems are its subject ("car drive"), for a search."""
    said = words(question) + words(topic_words(question))
    return " ".join(dict.fromkeys(w for w in said if stem(w) in subject and len(w) > 2))


class NothingFound(Policy):
    name = "nothing_found"

    def start(self, turn: Turn, memory: MemoryView) -> list[NewMessage]:
        """Before the first step: the subject searched in both memories, as the model would.
        Asked "Which university did I go to?", never said, the model answered "You went to
        Vendnuobury University in Rainpretreenton." in its first step, without a search
        (bench_honesty seed 33, eval chat seed 16)."""
        subject = self._unseen_subject(turn, memory)
        if not subject:
            return []
        query = subject_query(turn.question or "", subject)
        hits = [*memory.search("message", query, SEARCHED_HITS), *memory.search("passage", query, SEARCHED_HITS)]
        if not any(speaks_of(hit, subject, self._asked(turn)) for hit in hits):
            self._deny(turn)
        return []

    def after_step(self, turn: Turn, step: StepRecord, memory: MemoryView) -> list[NewMessage]:
        if not step.outcome.searched or turn.reply_start:
            return []
        if step.call is not None and step.call.function == "conversation_search_date":
            return []
        subject = self._unseen_subject(turn, memory)
        if not subject or any(core_lines_found(s, memory) for s in turn.steps if s.outcome.searched):
            return []
        if not any(speaks_of(hit, subject, self._asked(turn)) for hit in turn.hits()):
            self._deny(turn)
        return []

    @staticmethod
    def _unseen_subject(turn: Turn, memory: MemoryView) -> set[str]:
        """The subject of the turn's one question about the user when nothing in view holds it
        (empty otherwise)."""
        if turn.kind == "login" or not turn.question or turn.reply_start:
            return set()
        if len(asked_questions(turn.question)) != 1 or not asks_about_the_user(turn.question):
            return set()
        subject = subject_of(turn.question)
        if not subject or lines_asked_about(turn.question, memory):
            return set()
        if any(subject & stems(text) for text in in_view_before(turn, memory)):
            return set()
        return subject

    @staticmethod
    def _asked(turn: Turn) -> set[str]:
        question = turn.question or ""
        return set(words(question)) | set(words(topic_words(question)))

    @staticmethod
    def _deny(turn: Turn) -> None:
        turn.require_reply(REASON)
        turn.reply_start, turn.reply_sentences = START, SENTENCES
