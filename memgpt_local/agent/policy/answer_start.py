"""Answer start: a question about the user that a core-memory line answers has its reply begin
with that line's label in the user's terms ("Your parrot"), written by the grammar.

Over ten eval chat sessions (seeds 6 and 12, stops 35-37), most wrong answers were denials
written right under the core line that answered the question, which ``core_at_question`` had
quoted beside it: "I'm sorry, but I don't know the parrot's name." under "[human] Parrot:
Brallhaette", with a thought that read "the core memory only mentions that the parrot is called
Brallhaette". The denial is settled by the reply's first words, "I'm sorry, but", copied from
earlier replies; made to begin with "You" (stop 36), the model wrote "You mentioned that ..."
into the same denial. Begun "Your parrot", a reply has one way on that reads well: what the
line says. The label is that of the first quoted line the question asks about (a shared stem,
or a word people ask about the label with, ``names_the_topic``); a question that asks about no
label is left alone, as is one whose label names someone else ("Your Grace's surgery"), is a
verb or holds a clause. Only for a question that speaks of the user ("my", "I"), or asks
"who" with the words of a line about one of their people ("Who is coming to visit this
weekend?" begins "Your brother" under "Brother: Tiago, coming to visit on Saturday"). Such an
answer to one question is one sentence (``ANSWER_SENTENCES``): the sampler closes it there.

On by default since stop 37: on eval chat tuning seed 6, wording 1 (42ca932), correct 3/6 ->
6/6 against the defaults of fbd2a43 ("Your parrot is called Brallhaette.", "Your home is
Tezetonbury.", "Your work is as a baker."); on reporting seed 13, both wordings, 10/12 -> 12/12
against stop 36's code, invented 0/16 -> 1/16. Stop 37's core_in_thought, which wrote the line
at the start of the step's thought instead, went on "I don't know what the parrot's name is."
and was dropped. See docs/eval/results.md, stop 37.
"""

from __future__ import annotations

import re

from memgpt_local.agent.policy.all_questions import asked_questions
from memgpt_local.agent.policy.base import MemoryView, Policy, reply_before
from memgpt_local.agent.policy.core_at_question import lines_asked_about
from memgpt_local.agent.policy.greet_by_name import human_lines
from memgpt_local.agent.turn import Turn
from memgpt_local.schemas import NewMessage
from memgpt_local.text import (
    BARE_LABEL_STEMS,
    CLAUSE_WORDS,
    FIRST_PERSON,
    PETS,
    RELATIONS,
    content_words,
    label_topics,
    named_as_known,
    names_the_relative,
    questions,
    stems,
    topic_words,
    words,
)

# an answer begun from a core line is that line said: what followed it was invented ("Your favorite
# band is Sheldeens. Sheldeens is a Swedish rock band that formed in 1988 ...", 300 tokens, eval chat
# seed 16) or generic ("Your allergy to sesame is a common food allergy. It can cause ...")
ANSWER_SENTENCES = 1
# nor does it deny what its line says: begun "Your favorite band", an answer went on "was
# Drorbroels, and I don't have any information about ..." (eval chat seed 21, stop 42); a redraft
# begun "Your allergy" went on "to peanuts is not mentioned in my memory or the conversation."
# (eval chat seed 22, stop 45)
UNSAID_IN_ANSWER = ("information", "sorry", "not", "mentioned", "memory")
# a label that holds a clause is no noun to put after "Your": "Fosveel is allergic: penicillin"
# (a note the model wrote) became "Your fosveel is allergic to penicillin." (eval chat seed 13)


def label_of(line: str) -> str:
    """The label of a quoted core line ("[human] Parrot: Brallhaette" -> "Parrot")."""
    return line.split("] ", 1)[-1].partition(":")[0].strip()


def your(label: str, asked: str = "") -> str | None:
    """``label`` said to the user ("Favourite meal" -> "Your favourite meal"), or None when it
    names someone else ("Grace's hip surgery"), is the verb the question ``asked`` uses ("Plays:
    violin" for "What do I play?": "Your plays" is no English) or is no label at all."""
    said = words(label)
    if not said or len(said) > 4:
        return None
    if len(said) == 1 and said[0].endswith("s") and said[0][:-1] in words(asked):
        return None
    if CLAUSE_WORDS & set(said):
        return None
    owner = label.split("'s", 1)[0] if "'s" in label else None
    if owner is not None and owner.strip().lower() not in RELATIONS:
        return None
    return "Your " + label[0].lower() + label[1:]


def names_the_topic(label: str, question: str) -> bool:
    """Whether ``question`` asks about ``label`` itself: they share a word's stem ("parrot"), or
    the question uses a word people ask about the label with ("town" for "Home"). (A bare
    "where" was such a word until "Where did I go to university?" was begun "Your home" and
    answered with the town, eval chat seed 13.)"""
    question = topic_words(question)
    shared = stems(label) & stems(question) - BARE_LABEL_STEMS  # "favourite football team" is no "Favourite food"
    return bool(shared or label_topics(label) & set(words(question)) or names_the_relative(label, question))


_WHO = re.compile(r"\b(?:who|whom|whose)\b", re.IGNORECASE)
# a birthday is told as an age reached: "whose birthday is it on Sunday?" under "Mum: turns 80 on Sunday"
# was denied (a `make run` chat, stop 64)
_TOLD_AS = {"birthday": "turns turning", "birthdays": "turns turning"}


def is_person(label: str) -> bool:
    """Whether ``label`` names one of the user's people ("Brother", "Best friend")."""
    said = words(label)
    return bool(said) and said[-1] in RELATIONS and "'s" not in label


def person_asked_for(question: str, lines: list[str]) -> str:
    """For a question that asks "who", the label of the first line about one of the user's
    people whose value shares two words with it: "Who is coming to visit this weekend?" and
    "Brother: Tiago, coming to visit on Saturday" (a `make run` chat denied it under that
    line). One shared word is not enough: "Who won the match?" is not asked about a brother
    going to one. A birthday is asked after by the words it is told in ("turns 80").
    """
    if not _WHO.search(question):
        return ""
    asked = stems(" ".join([question, *(_TOLD_AS.get(w, "") for w in words(question))]))
    people = ((label_of(line), line.partition(":")[2]) for line in lines)
    return next((label for label, value in people if is_person(label) and len(stems(value) & asked) >= 2), "")


def says_only_the_question(line: str, question: str) -> bool:
    """Whether the value of ``line`` holds no content word the question does not: "Fav music:
    live", a note written for "I saw the Braisvus play live", tells "Which band did I see live a
    while ago?" nothing, and begun "Your fav music" the answer was "Your fav music is live."
    (eval chat seed 19)."""
    value = set(content_words(line.partition(":")[2]))
    return bool(value) and value <= set(content_words(question))


def about_whom_asked(label: str, question: str) -> bool:
    """Whether ``label`` names one of the people or animals the question speaks of, or the
    question speaks of none: "What's my partner's job again?" is not answered by "Work: teaches
    chemistry", whose label it asks about by "job" (a `make run` chat, stop 42: "Your work is
    teaching chemistry ..." under "Partner: Aroha, midwife"), nor "Where does my sister live?" by
    "Home"."""
    named = set(words(question)) & (RELATIONS | PETS)
    return not named or names_the_topic(label, " ".join(sorted(named))) or names_the_relative(label, question)


def answer_start(question: str, lines: list[str]) -> str:
    """The reply's forced first words for ``question`` and the core ``lines`` it asks about:
    "Your" and the label of the first line whose label the question asks about, or, asked
    "who", of the person whose line the question's words are from (``person_asked_for``); ""
    when there is none, or it cannot be said so (another line that only shares a word of its
    value with the question may not answer it: the model is left to judge)."""
    answering = [line for line in lines if not says_only_the_question(line, question)]
    asked_labels = [label for label in map(label_of, answering) if about_whom_asked(label, question)]
    chosen = next((label for label in asked_labels if names_the_topic(label, question)), "")
    # asked "who", one of the user's people it tells of comes before a thing the question names:
    # "who's minding the dog while I'm in?" was begun "Your pet" (by "dog") under "Daughter: Aoife,
    # coming down from Dublin to mind Finn while I'm in hospital", and went on "Finn is minding the
    # dog while you're in." (a `make run` chat, stop 63)
    person = person_asked_for(question, answering)
    chosen = person if person and not is_person(chosen) else chosen or person
    return (your(chosen, question) or "") if chosen else ""


class AnswerStart(Policy):
    name = "answer_start"

    def start(self, turn: Turn, memory: MemoryView) -> list[NewMessage]:
        # by name too: "When is Tomasz coming over?" under "Partner: Tomasz" (``named_as_known``)
        question = named_as_known(turn.question or "", human_lines(memory))
        asked = questions(question)
        if turn.kind == "login" or not (FIRST_PERSON.search(asked) or _WHO.search(asked)):
            return []
        lines = lines_asked_about(question, memory, before=reply_before(turn, memory))
        if lines:
            turn.reply_start = answer_start(asked, lines)
            if turn.reply_start and len(asked_questions(asked)) == 1:
                turn.reply_sentences = ANSWER_SENTENCES
            if turn.reply_start:
                turn.reply_unsaid = (*turn.reply_unsaid, *UNSAID_IN_ANSWER)
        return []
