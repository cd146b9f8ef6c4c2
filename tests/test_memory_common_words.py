"""Recall search embeds its query without the words most of the chat shares (the friends'
names): with them, a question that names a friend was nearest to "Night Paiduora!"."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from memgpt_local.memory import SearchTuning
from memgpt_local.memory.common.query import without_words
from memgpt_local.memory.search import MESSAGES, common_words
from memgpt_local.schemas import NewMessage

GREETINGS = [
    "Night Paiduora!",
    "Bye Paiduora!",
    "Thanks Paiduora!",
    "Hey Paiduora!",
    "Morning Paiduora :)",
    "Haha Paiduora you're the best",
]
CHAT = [
    "It has been so rainy here all week.",
    "Work was busy today, I need a holiday.",
    "I had soup for lunch again.",
    "The traffic this morning was unbelievable.",
]
FACT = "I spent the whole afternoon in the garden and planted chillies along the back fence."
QUESTION = "What did Paiduora plant in the garden?"


@pytest.fixture
def chat(store):
    """A friend's chat: Paiduora's name in most messages, the garden once."""
    agent = store.agents.create("friend").id
    start = datetime(2025, 3, 1, 9, tzinfo=timezone.utc)
    texts = [GREETINGS[i % len(GREETINGS)] if i % 3 else CHAT[i % len(CHAT)] for i in range(60)]
    texts.insert(41, FACT)
    store.recall.append(
        agent,
        [
            NewMessage(
                role="user" if i % 2 else "assistant",
                content=t,
                in_context=False,
                created_at=start + timedelta(hours=i),
            )
            for i, t in enumerate(texts)
        ],
    )
    return store, agent


def test_without_words_drops_the_words_and_their_possessive():
    common = frozenset({"paiduora"})
    assert without_words("What did Paiduora's kids take up?", common) == "What did kids take up?"
    assert without_words("paiduora, what did PAIDUORA say?", common) == "what did say?"
    assert without_words("Paiduora?", common) == "Paiduora?"  # nothing would be left
    assert without_words("Who is Paiduora", frozenset()) == "Who is Paiduora"


def test_common_words_are_held_by_a_large_share_of_the_agents_messages(chat):
    store, agent = chat
    tuning = SearchTuning()
    assert common_words(store.db, MESSAGES, agent, [QUESTION, None], tuning) == {"paiduora"}
    assert common_words(store.db, MESSAGES, agent, ["garden fence"], tuning) == frozenset()
    assert common_words(store.db, MESSAGES, agent, [], tuning) == frozenset()
    assert common_words(store.db, MESSAGES, agent, [QUESTION], SearchTuning(common_share=0)) == frozenset()
    other = store.agents.create("other").id  # another agent's memory is its own
    store.recall.append(other, [NewMessage(role="user", content="Paiduora", in_context=False)] * 15)
    assert common_words(store.db, MESSAGES, other, [QUESTION], tuning) == frozenset()  # 15 of 15, but few


def test_a_question_naming_a_friend_finds_the_fact_not_the_greetings(chat):
    store, agent = chat
    page = store.recall.search(agent, QUESTION, mode="vector", page_size=3)
    assert page.items[0].text == FACT
    hybrid = store.recall.search(agent, QUESTION, page_size=3)
    assert hybrid.items[0].text == FACT
    # with the name embedded, the friend's greetings come first (what the common words fix)
    store.recall.tuning = SearchTuning(common_share=0)
    before = store.recall.search(agent, QUESTION, mode="vector", page_size=3)
    assert before.items[0].text != FACT
    # the text leg keeps every word: the same matches as before
    store.recall.tuning = SearchTuning()
    text = store.recall.search(agent, QUESTION, mode="text", page_size=10)
    store.recall.tuning = SearchTuning(common_share=0)
    assert [h.id for h in store.recall.search(agent, QUESTION, mode="text", page_size=10).items] == [
        h.id for h in text.items
    ]
