"""The long two-friend conversations: seeded, shaped as promised, questions that point at
the messages that answer them, in two different wordings."""

from __future__ import annotations

import re
from collections import Counter
from datetime import date, timedelta

import pytest

from memgpt_local.eval.conversations import Conversation, make_conversation
from memgpt_local.memory.dates import annotate

CASES = [(seed, index) for seed in (0, 1, 2) for index in (0, 1)]


@pytest.fixture(scope="module", params=CASES, ids=lambda c: f"seed{c[0]}-{c[1]}")
def conversation(request) -> Conversation:
    return make_conversation(*request.param)


def test_the_same_seed_makes_the_same_conversation():
    assert make_conversation(0) == make_conversation(0)
    assert make_conversation(0).turns != make_conversation(1).turns
    assert make_conversation(0, 0).turns != make_conversation(0, 1).turns


def test_sessions_over_months_of_timed_messages(conversation):
    sizes = Counter(t.session for t in conversation.turns)
    assert 15 <= conversation.sessions <= 30 and sorted(sizes) == list(range(conversation.sessions))
    assert all(10 <= n <= 32 for n in sizes.values()), sizes
    times = [t.at for t in conversation.turns]
    assert times == sorted(times) and len(set(times)) == len(times)
    assert times[-1] - times[0] >= timedelta(days=60)
    assert [t.index for t in conversation.turns] == list(range(len(conversation.turns)))


def test_mostly_small_talk_with_names_everywhere(conversation):
    names = (conversation.user.first, conversation.assistant.first)
    named = [t for t in conversation.turns if any(n in t.text for n in names)]
    assert len(named) > len(conversation.turns) / 5  # "Hey Mira!", "Thanks Dorbeck"
    evidence = {i for q in conversation.questions for i in q.evidence}
    assert len(evidence) < len(conversation.turns) / 8  # the facts are a small part of it
    assert sum(t.text.lower().startswith(("haha", "lol")) for t in conversation.turns) > 0


def test_messages_are_ready_for_recall(conversation):
    messages = conversation.messages()
    assert len(messages) == len(conversation.turns)
    for turn, message in zip(conversation.turns, messages):
        assert (message.role, message.content, message.created_at) == (turn.role, turn.text, turn.at)
        assert message.role in ("user", "assistant") and not message.in_context


def test_evidence_says_the_answer_and_no_other_message_does(conversation):
    assert len(conversation.questions) >= 10
    assert len({q.id for q in conversation.questions}) == len(conversation.questions)
    for q in conversation.questions:
        assert q.evidence and all(0 <= i < len(conversation.turns) for i in q.evidence)
        assert conversation.turns[q.evidence[0]].role == q.about  # the friend it is about said it
        if q.kind == "fact":
            pattern = re.compile(rf"\b{re.escape(q.answer)}\b", re.IGNORECASE)
            holders = {t.index for t in conversation.turns if pattern.search(t.text)}
            assert holders and holders <= set(q.evidence), (q, holders)


def test_every_question_has_two_different_wordings(conversation):
    for q in conversation.questions:
        first, second = q.text(0), q.text(1)
        assert first and second and first != second
        assert set(first.lower().split()) != set(second.lower().split())
    named = [q for q in conversation.questions if conversation.user.first in q.text(0) + q.text(1)]
    named += [q for q in conversation.questions if conversation.assistant.first in q.text(0) + q.text(1)]
    assert len(named) >= len(conversation.questions) * 0.8


def test_when_questions_need_the_relative_date_resolved(conversation):
    whens = [q for q in conversation.questions if q.kind == "when"]
    assert whens
    for q in whens:
        day = date.fromisoformat(q.answer)
        turn = conversation.turns[q.evidence[0]]
        assert q.answer not in turn.text  # said as "yesterday", "last Sunday", ...
        assert day != turn.at.date()
        assert f"({q.answer})" in annotate(turn.text, turn.at), turn.text
        assert f"{day:%B}" in q.aliases[1] and str(day.year) in q.aliases[0]


def test_seeds_together_cover_every_kind_of_fact_and_both_roles():
    conversations = [make_conversation(seed, index) for seed in range(3) for index in range(2)]
    questions = [q for c in conversations for q in c.questions]
    assert {q.about for q in questions} == {"user", "assistant"}
    assert Counter(q.kind for q in questions)["when"] >= 20


def test_answers_and_dates_hold_over_many_seeds():
    for seed in range(12):
        for index in range(4):
            conversation = make_conversation(seed, index)
            texts = [t.text for t in conversation.turns]
            for q in conversation.questions:
                turn = conversation.turns[q.evidence[0]]
                if q.kind == "when":
                    assert f"({q.answer})" in annotate(turn.text, turn.at), (seed, index, turn.text)
                    continue
                pattern = re.compile(rf"\b{re.escape(q.answer)}\b", re.IGNORECASE)
                holders = {i for i, text in enumerate(texts) if pattern.search(text)}
                assert holders and holders <= set(q.evidence), (seed, index, q)
