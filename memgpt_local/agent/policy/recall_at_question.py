"""Recall at question: a question about the user that only past conversations answer is met
with the user's own words from them, beside it, before the model's first step.

Asked "What was the band I went to see play live?", said two sessions ago and evicted since,
the model answered "The band I went to see play live was 'The Beatles'." in its first step,
without a search, in every configuration but one that forced a search first (bench_honesty
seed 34; ``search_uncovered``, which costs a whole step). ``nothing_found`` already searches
both memories for the question's subject before the first step (``nothing_found.evidence``);
what it found there, the user's messages (not their questions, nor the assistant's replies)
and saved passages that hold the subject, is quoted in a notice after the question, with the
day each was said, as ``core_at_question`` quotes core lines. The quotes are the user's own
words, "I saw the Grarklaans play live", and the model took them as its own ("I saw the
Grarklaans play live last Saturday. It was a great night!", held by ``perspective_guard``, eval
chat seed 18): the notice says who "I" is.

Shown "- the user, on Monday 5 May: "My brother Stondgruard is visiting this weekend."" beside
"When is Stondgruard coming over?", after two honest denials of other questions, the model
answered "I don't know when Stondgruard is coming over." (bench_honesty seed 54, stop 44). When
the first quote names whom the question asks about and shares a word of what it asks
(``answers_from``), and no core line set the reply's start, the reply begins with who said it
and when ("On Monday 5 May, you told me"), as ``answer_start`` begins one from a core line; the
day also keeps "this weekend" from being read as this week's. When an earlier reply in view
began so, the words go the other way round ("You told me on Monday 5 May"), and neither is
forced when both did: begun like "On Monday 5 May, you told me that your sister Telshoen is
visiting this weekend.", the answer to "What was the band I went to see play live?" went on
with the same words (bench_honesty seed 54); with no start at all, "When is Fotraiard coming
over?" after the band's answer was "I don't know when Fotraiard is coming over.", the quote
beside it (bench_honesty seed 57, stop 45).
"""

from __future__ import annotations

from datetime import date

from memgpt_local import events
from memgpt_local.agent.policy.all_questions import asked_questions
from memgpt_local.agent.policy.answer_start import UNSAID_IN_ANSWER
from memgpt_local.agent.policy.base import MemoryView, Policy
from memgpt_local.agent.policy.greet_by_name import human_lines
from memgpt_local.agent.policy.grounded_reply import asks_about_the_user, person_asked
from memgpt_local.agent.policy.nothing_found import ASKS_WHAT_WAS_TOLD, START, evidence
from memgpt_local.agent.policy.repeat_guard import earlier_replies
from memgpt_local.agent.turn import Turn
from memgpt_local.memory.dates import spoken_day
from memgpt_local.schemas import NewMessage, SearchHit
from memgpt_local.text import (
    asks_the_past,
    is_question,
    named_as_known,
    questions,
    sentences,
    stems,
    tells_the_past,
    topic_words,
    words,
)

QUOTED = 3  # hits quoted at most
QUOTE_CHARS = 300


def quote(hit: SearchHit, today: date) -> str:
    """One hit as a line of the notice: who said it, and when."""
    text = hit.text if len(hit.text) <= QUOTE_CHARS else hit.text[:QUOTE_CHARS].rsplit(" ", 1)[0] + " ..."
    if hit.kind == "passage":
        return f'- archival memory, saved {spoken_day(hit.created_at.date(), today)}: "{text}"'
    return f'- the user, on {spoken_day(hit.created_at.date(), today)}: "{text}"'


def tells(hit: SearchHit) -> bool:
    """Whether ``hit`` tells something: a message of the user's that is not only questions
    ("What car do I drive?" asked before is no answer to it), or a passage."""
    if hit.kind == "passage":
        return True
    return hit.role == "user" and not all(is_question(s) for s in sentences(hit.text))


def answers_from(hit: SearchHit, question: str) -> bool:
    """Whether the user's message ``hit`` answers ``question`` (one about the user, names said as
    their relation by ``named_as_known``): it names each person the question asks about by name
    ("Stondgruard") and shares the stem of a word of what is asked beyond them ("coming over"
    is a visit: "visiting"). "I work as a baker" does not answer "What does Stondgruard do for
    work?"."""
    if hit.kind != "message" or hit.role != "user":
        return False
    person = person_asked(question)
    said = set(words(hit.text))
    named = {w for w in person if w not in said}
    asked = stems(topic_words(question)) - stems(" ".join(person))
    return not named and bool(asked & stems(hit.text))


def told_on(hit: SearchHit, today: date) -> tuple[str, str]:
    """The starts of a reply that answers from ``hit``, in two orders: "On Monday 5 May, you
    told me" and "You told me on Monday 5 May"."""
    day = hit.created_at.date()
    when = "earlier today" if day == today else f"on {spoken_day(day, today)}"
    return f"{when[0].upper()}{when[1:]}, you told me", f"You told me {when}"


class RecallAtQuestion(Policy):
    name = "recall_at_question"

    def start(self, turn: Turn, memory: MemoryView) -> list[NewMessage]:
        if turn.reply_start.startswith(START):  # nothing_found found nothing
            return []
        # a search result further up is no answer the model reads: "What was the band I went to
        # see play live?", found by a search two turns before, was answered "I have saved the
        # band I went to see play live for later." (bench_honesty seed 42)
        found = [hit for hit in evidence(turn, memory, seen=("user",)) or [] if tells(hit)]
        if not found:
            return []
        if asks_the_past(questions(turn.question or "")):
            # what happened first: asked "Which hotel did we book when we went to Koutua?", the
            # reply began with the day of "my cousin says the Drortonzao Hotel is the place to stay"
            # (found first), not of "Our room at the Faquais Hotel looked straight onto the sea"
            # (dmr seed 15, reworded, stop 53)
            found.sort(key=lambda hit: not tells_the_past(hit.text))
        found = found[:QUOTED]
        today = turn.clock().date()
        question = named_as_known(turn.question or "", human_lines(memory))
        asked = questions(question)
        # what the user told, found beyond core memory, is answered from it even where a core line
        # set the start: begun "Your work", "What did I tell you about that rough night at work?"
        # was answered "Your work schedule is mostly night shifts" beside the quote (stop 53)
        told = bool(ASKS_WHAT_WAS_TOLD.search(asked))
        if (
            (not turn.reply_start or told)
            and len(asked_questions(asked)) == 1
            and (asks_about_the_user(asked) or person_asked(asked))
            and answers_from(found[0], asked)
        ):
            earlier = [said for said, _ in earlier_replies(turn, memory)]
            start = next((s for s in told_on(found[0], today) if not any(e.startswith(s) for e in earlier)), None)
            if start is not None:
                turn.reply_start, turn.reply_sentences = start, 1
                turn.reply_unsaid = (*turn.reply_unsaid, *UNSAID_IN_ANSWER)
        text = (
            "For you, not the user: past conversations say this about the user's question:\n"
            + "\n".join(quote(hit, today) for hit in found)
            + '\nAnswer from it if it answers the question, to the user as "you" (in their words, "I" is the '
            "user); search only for what it does not say."
        )
        return [events.system_event("recall memory", text, when=turn.clock())]
