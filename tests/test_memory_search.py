"""Search: agent isolation, hostile FTS5 input, pagination totals, date ranges, hybrid ranking;
each test that takes ``store`` runs on both implementations (the SQLite file and Postgres)."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from store_sql import STORE_KINDS

from memgpt_local.errors import InvalidInputError
from memgpt_local.memory.search import fts_match
from memgpt_local.schemas import NewMessage


@pytest.fixture(params=STORE_KINDS)
def store_kind(request) -> str:
    return request.param


FACTS = [
    "The spare house key is taped under the third porch step.",
    "My sister Clara lives in Montreal and works as a nurse.",
    "I am allergic to peanuts, so no satay sauce please.",
    "Our wifi password is written on the fridge whiteboard.",
    "The car needs new winter tyres before November.",
    "I started learning the cello in January.",
    "The dentist appointment got moved to the 14th at 9am.",
    "Project Falcon ships its beta on March 3rd.",
]


@pytest.fixture
def two_agents(store):
    a, b = store.agents.create("alpha"), store.agents.create("beta")
    store.archival.insert_many(a.id, [{"text": t} for t in FACTS])
    store.archival.insert(b.id, "Beta's secret: the treasure is buried beside the old oak tree.")
    store.recall.append(b.id, [NewMessage(role="user", content="my treasure map is in the attic")])
    return store, a, b


def test_agents_never_see_each_others_rows(two_agents):
    store, a, b = two_agents
    for mode in ("text", "vector", "hybrid"):
        assert all(
            "treasure" not in h.text for h in store.archival.search(a.id, "treasure buried oak", mode=mode).items
        )
        assert store.recall.search(a.id, "treasure map attic", mode=mode).total == 0
        own = store.archival.search(b.id, "treasure buried oak", mode=mode)
        assert own.total == 1 and "oak" in own.items[0].text
        assert all("porch" not in h.text for h in store.archival.search(b.id, "key porch step", mode=mode).items)


def test_hybrid_finds_keyword_and_paraphrase(two_agents):
    store, a, _ = two_agents
    page = store.archival.search(a.id, "Falcon", page_size=3)
    assert "Falcon" in page.items[0].text
    page = store.archival.search(a.id, "where did I hide the spare key to the house?", page_size=3)
    assert "porch step" in page.items[0].text
    # one query with an exact rare keyword (nurse) and a paraphrase of another fact (nut allergy)
    store.archival.insert(a.id, "Clara the nurse said the clinic is closed on Mondays.")
    page = store.archival.search(a.id, "nurse: which food makes me ill", page_size=5)
    texts = [h.text for h in page.items]
    assert any("nurse" in t for t in texts[:3])
    assert any("peanuts" in t for t in texts[:5])
    assert page.items[0].score >= page.items[-1].score > 0
    assert all(h.created_at.tzinfo is not None for h in page.items)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    query=st.text(min_size=1, max_size=40).filter(str.strip)
    | st.lists(
        st.sampled_from(
            ['"', "-", ":", "AND", "OR", "NOT", "NEAR", "(", ")", "*", "^", "NEAR(", "key", "'", "+", "{", "}", "col:x"]
        ),
        min_size=1,
        max_size=8,
    ).map(" ".join)
)
def test_hostile_text_queries_never_raise(store, query):
    agent = store.agents.get("h") if store.agents.list() else store.agents.create("h")
    if not store.archival.count(agent.id):
        store.archival.insert(agent.id, "the key AND the lock NEAR the door - col:x")
    page = store.archival.search(agent.id, query, mode="text")
    assert page.total == len(page.items) <= 1
    assert store.recall.search(agent.id, query, mode="text").total == 0


@pytest.mark.parametrize(
    "query", ['"unbalanced', "NEAR(key lock)", "key -lock", "col:key", "AND", "* OR ^", "key\x00lock", "ключ 鍵 🔑"]
)
def test_hostile_hybrid_queries(store, query):
    agent = store.agents.create("h")
    store.archival.insert(agent.id, "the key AND the lock")
    store.archival.search(agent.id, query)
    store.recall.search(agent.id, query)


def test_fts_match_quotes_every_word():
    assert fts_match('NEAR("x" -b:c') == '"near" OR "x" OR "b" OR "c"'
    assert fts_match("what is my dog") == '"dog"'
    assert fts_match("- : ( )") is None


@pytest.mark.parametrize("query", ["", "   ", "\n\t"])
def test_empty_query_is_invalid(store, query):
    agent = store.agents.create("e")
    with pytest.raises(InvalidInputError):
        store.archival.search(agent.id, query)
    with pytest.raises(InvalidInputError):
        store.recall.search(agent.id, query)


def test_pagination_totals(store):
    agent = store.agents.create("p")
    store.archival.insert_many(
        agent.id,
        [{"text": f"note {i} about gardening tomatoes"} for i in range(12)] + [{"text": "unrelated line on taxes"}],
    )
    pages = [store.archival.search(agent.id, "tomatoes", page=p, page_size=5, mode="text") for p in range(4)]
    assert [p.total for p in pages] == [12] * 4
    assert [len(p.items) for p in pages] == [5, 5, 2, 0]
    assert pages[0].pages == 3 and pages[2].describe() == "showing 11-12 of 12, page 3/3"
    ids = [h.id for p in pages for h in p.items]
    assert len(set(ids)) == 12
    hybrid = [store.archival.search(agent.id, "tomatoes", page=p, page_size=4) for p in range(4)]
    assert len({h.id for p in hybrid for h in p.items}) == hybrid[0].total >= 12
    with pytest.raises(InvalidInputError):
        store.archival.search(agent.id, "tomatoes", page=-1)


def test_date_range_search(store):
    agent = store.agents.create("d")
    base = datetime(2024, 5, 1, 12, tzinfo=timezone.utc)
    store.recall.append(
        agent.id,
        [NewMessage(role="user", content=f"day {i}", created_at=base + timedelta(days=i)) for i in range(10)]
        + [NewMessage(role="function", content="tool output", created_at=base)],
    )
    page = store.recall.search_date(agent.id, "2024-05-03", "2024-05-05", page_size=2)
    assert page.total == 3 and [h.text for h in page.items] == ["day 2", "day 3"]
    assert page.items[0].created_at == base + timedelta(days=2)
    nxt = store.recall.search_date(agent.id, date(2024, 5, 3), date(2024, 5, 5), page=1, page_size=2)
    assert [h.text for h in nxt.items] == ["day 4"]
    assert store.recall.search_date(agent.id, "2024-05-01", "2024-05-01").total == 1
    late = datetime(2024, 5, 1, 23, 59, 59, 999999, tzinfo=timezone.utc)
    store.recall.append(agent.id, [NewMessage(role="user", content="late", created_at=late)])
    assert store.recall.search_date(agent.id, "2024-05-01", "2024-05-01").total == 2
    for start, end in [
        ("2024-13-01", "2024-05-01"),
        ("yesterday", "2024-05-01"),
        ("2024-05-01", ""),
        ("2024-05-05", "2024-05-01"),
    ]:
        with pytest.raises(InvalidInputError):
            store.recall.search_date(agent.id, start, end)


def test_recall_search_covers_sent_messages_and_roles(store):
    agent = store.agents.create("s")
    store.recall.append(
        agent.id,
        [
            NewMessage(
                role="assistant",
                content="The user wants a recipe.",
                function_name="send_message",
                function_args={"message": "Try a lemon risotto tonight!"},
            ),
            NewMessage(role="function", content="risotto lookup result"),
        ],
    )
    page = store.recall.search(agent.id, "risotto", mode="text")
    assert page.total == 1 and "lemon risotto" in page.items[0].text
    assert store.recall.search(agent.id, "risotto", mode="text", roles=("function",)).total == 1
    with pytest.raises(InvalidInputError):
        store.recall.search(agent.id, "risotto", roles=("robot",))


def test_the_assistants_own_denials_are_not_found(store):
    """Found first for the next question on the topic, "I'm sorry, but I don't know Sanne's
    job" was what the model answered from."""
    agent = store.agents.create("s")

    def sent(message: str) -> NewMessage:
        return NewMessage(
            role="assistant", content="thinking", function_name="send_message", function_args={"message": message}
        )

    store.recall.append(
        agent.id,
        [
            NewMessage(role="user", content="My girlfriend Sanne is a baker."),
            sent("I'm sorry, but I don't know Sanne's job."),
            sent("I couldn't find that. Sanne sounds lovely, though!"),
        ],
    )
    texts = [h.text for h in store.recall.search(agent.id, "Sanne job", mode="text").items]
    assert sorted(texts) == ["My girlfriend Sanne is a baker.", "Sanne sounds lovely, though!"]
    assert not any("don't know" in h.text for h in store.recall.search(agent.id, "know Sanne job").items)


def test_vector_hits_far_below_the_best_one_are_not_results(store):
    """Unrelated short messages score 0.2-0.3 against any query with MiniLM: they must not
    inflate the total (a small model pages through "more results" that are noise)."""
    agent = store.agents.create("pages")
    gold = "Last night we saw The Brehaluens live at Pondbraiel Hall. Best concert of my life."
    noise = [
        "Good evening Shoufoel.",
        "How is Hilroan doing?",
        "It has been windy in Rexthois all week.",
        "I can imagine. Did anything funny happen at Bainddrua Library?",
    ]
    for text in [gold, *noise]:
        store.archival.insert(agent.id, text)
    page = store.archival.search(agent.id, "Which band did we see live at Pondbraiel Hall?", mode="vector")
    assert [h.text for h in page.items] == [gold] and page.total == 1
    page = store.archival.search(agent.id, "concert band", mode="hybrid")
    assert page.items[0].text == gold and page.total == 1


CONCERT = [
    ("user", "Last night we saw The Greys live at Lumen Hall. Best concert of my life."),
    ("assistant", "Lucky you! How was the sound at Lumen Hall?"),
    ("user", "The Tidewaters play Lumen Hall next month. My brother loves them."),
    ("user", "My cousin works at the bakery near Lumen Hall."),
]
CONCERT_QUESTION = "Which band did we see live at Lumen Hall?"


@pytest.fixture
def concert(store):
    agent = store.agents.create("sam")
    store.recall.append(agent.id, [NewMessage(role=r, content=c, in_context=False) for r, c in CONCERT])
    return store, agent.id


def _user_texts(page):
    return [h.text for h in page.items if h.role == "user"]


def test_question_focus_ranks_the_mention_that_answers_the_question_first(concert):
    store, agent = concert
    plain = store.recall.search(agent, "Lumen Hall")
    focused = store.recall.search(agent, "Lumen Hall", focus=CONCERT_QUESTION)
    # the terse query finds every mention and ranks the one that answers last ...
    assert plain.total == focused.total == 4
    assert not _user_texts(plain)[0].startswith("Last night")
    # ... the question it serves puts it above the other mentions of the hall
    assert _user_texts(focused)[0].startswith("Last night we saw The Greys")
    assert {h.id for h in plain.items} == {h.id for h in focused.items}  # reorders, never adds


def test_question_focus_skips_rows_already_read_and_is_off_in_text_mode(concert):
    store, agent = concert
    plain = {h.id: h.score for h in store.recall.search(agent, "Lumen Hall").items}
    gold = next(h.id for h in store.recall.search(agent, "Greys").items)
    skipped = {
        h.id: h.score
        for h in store.recall.search(agent, "Lumen Hall", focus=CONCERT_QUESTION, focus_skips=[gold]).items
    }
    assert skipped[gold] == pytest.approx(plain[gold])  # no focus share for what was read
    assert all(skipped[i] > plain[i] for i in plain if i != gold)
    text = store.recall.search(agent, "Lumen Hall", mode="text")
    text_focused = store.recall.search(agent, "Lumen Hall", mode="text", focus=CONCERT_QUESTION)
    assert [(h.id, h.score) for h in text.items] == [(h.id, h.score) for h in text_focused.items]


def test_archival_search_takes_a_question_focus(store):
    agent = store.agents.create("sam").id
    store.archival.insert_many(
        agent,
        [
            {"text": "The Harbor Lighthouse gift shop sells postcards and fudge."},
            {"text": "The Harbor Lighthouse was founded in 1711 by Ana Vell, a physician."},
        ],
    )
    plain = {h.text[:24]: h.score for h in store.archival.search(agent, "Harbor Lighthouse").items}
    page = store.archival.search(agent, "Harbor Lighthouse", focus="Who founded the Harbor Lighthouse?")
    focused = {h.text[:24]: h.score for h in page.items}
    gain = {k: focused[k] - plain[k] for k in plain}
    assert (
        gain["The Harbor Lighthouse wa"] > gain["The Harbor Lighthouse gi"] > 0
    )  # the passage that answers gains the most


def test_question_focus_leaves_rows_the_querys_words_did_not_find_alone(concert):
    store, agent = concert
    with store.transaction():
        store.recall.append(
            agent,
            [NewMessage(role="user", content="Lumina Auditorium has the best acoustics in town.", in_context=False)],
        )
    plain = {h.text: h.score for h in store.recall.search(agent, "Lumen Hall", page_size=10).items}
    focused = {
        h.text: h.score for h in store.recall.search(agent, "Lumen Hall", page_size=10, focus=CONCERT_QUESTION).items
    }
    # a message the query found by meaning alone gets no push from the question
    close = "Lumina Auditorium has the best acoustics in town."
    assert close in plain  # found by meaning only: the vector leg
    assert focused[close] == pytest.approx(plain[close])
    assert all(focused[t] > plain[t] for t in plain if "Lumen Hall" in t)


def test_copies_of_one_text_are_one_result_with_their_count(store):
    agent = store.agents.create("sam").id
    repeated = "I can imagine. Did anything funny happen at the Saith Studio?"
    with store.transaction():
        store.recall.append(
            agent, [NewMessage(role="assistant", content=repeated, in_context=False) for _ in range(12)]
        )
        store.recall.append(
            agent,
            [
                NewMessage(role="user", content=repeated, in_context=False),  # the same words from the user
                NewMessage(role="user", content="My new manager at the Saith Studio is Kel Trol.", in_context=False),
            ],
        )
    page = store.recall.search(agent, "Saith Studio", page_size=5)
    assert page.total == 3  # the assistant's 12 copies, the user's one, the answer
    assistant = [h for h in page.items if h.role == "assistant"]
    assert len(assistant) == 1 and assistant[0].copies == 12
    assert any("Kel Trol" in h.text and h.copies == 1 for h in page.items)
    store.archival.insert_many(agent, [{"text": "Passage loaded twice."}, {"text": "Passage loaded twice."}])
    passages = store.archival.search(agent, "loaded twice")
    assert passages.total == 1 and passages.items[0].copies == 2


def test_a_code_found_by_its_characters_comes_without_look_alike_codes(store):
    agent = store.agents.create("sam").id
    pairs = [f"Key-value pair: key = {i:04d}aa-7f3e-4c1d, value = {i + 1:04d}aa-7f3e-4c1d" for i in range(30)]
    store.archival.insert_many(agent, [{"text": t} for t in pairs])
    found = store.archival.search(agent, "0007aa-7f3e-4c1d")
    assert found.total == 2 and all("0007aa" in h.text for h in found.items)  # as key and as value
    # a code nothing holds falls back to meaning; words that are not codes search both ways
    assert store.archival.search(agent, "9999zz-0000-0000").total > 0
    assert store.archival.search(agent, "key value pair").total == 30
    # named as an id, the code is still found by its characters alone
    named = store.archival.search(agent, "ID 0007aa-7f3e-4c1d")
    assert named.total == 2 and all("0007aa" in h.text for h in named.items)


@pytest.mark.parametrize(
    "query, code",
    [
        ("5a21cfa4-80a2-4417-a24b-72ef473edac3", True),
        ("A-113 B2B4", True),
        ("order 12345", False),
        ("Zuxhao Hall", False),
        ("2024", True),
        ("42", False),
        # a word that only names the code (eval nested-kv seed 8, second wording, stop 49)
        ("ID 5a21cfa4-80a2-4417-a24b-72ef473edac3", True),
        ("key = 5a21cfa4-80a2", True),
        ("ID", False),
        ("which ID follows 5a21cfa4-80a2", False),
    ],
)
def test_is_code_query(query, code):
    from memgpt_local.memory.search import is_code_query

    assert is_code_query(query) is code
