"""Memory policy mechanisms: read-ahead prefetch, search-first steps and linked memory."""

from __future__ import annotations

import pytest
from agent_helpers import ask, call, make_runner, say
from store_sql import STORE_KINDS

from memgpt_local.agent.policy.greet_by_name import ASK_NAME
from memgpt_local.config import DEFAULT_POLICIES
from memgpt_local.functions.links import LinkExpander, identifiers
from memgpt_local.schemas import NewMessage, SearchHit, utcnow


@pytest.fixture(params=STORE_KINDS)
def store_kind(request) -> str:
    """Every test here runs on the memory file and on a Postgres database."""
    return request.param


def test_identifiers_are_tokens_with_digits_or_capitals():
    text = "My cousin Lena stayed at Hotel Aurelia, room 4B12, booking ab12-cd34; it was nice."
    found = identifiers(text)
    assert "Lena" in found and "Aurelia" in found and "4B12" in found and "ab12-cd34" in found
    assert "cousin" not in found and "nice" not in found


def _hit(i: int, text: str) -> SearchHit:
    return SearchHit(kind="passage", id=i, text=text, created_at=utcnow())


def test_link_expander_follows_rare_identifiers_and_skips_common_ones():
    entries = [
        _hit(1, "Key-value pair: key = K1a9, value = V2b8"),
        _hit(2, "Key-value pair: key = V2b8, value = V3c7"),
        _hit(3, "Key-value pair: key = V3c7, value = END9"),
        _hit(4, "Key-value pair: key = Z000, value = Q111"),
    ]

    def containing(text: str, limit: int):
        return [e for e in entries if text in e.text][:limit]

    links = LinkExpander(containing, depth=3, max_df=3).expand([entries[0]])
    chain = [link.hit.id for link in links[1]]
    assert chain == [2, 3]
    assert [link.via for link in links[1]] == ["V2b8", "V3c7"]
    # "Key-value" is in every entry: with max_df 2 it links nothing, the ids still do
    assert [link.hit.id for link in LinkExpander(containing, depth=1, max_df=2).expand([entries[0]])[1]] == [2]


def test_archival_search_results_carry_linked_entries(store):
    runner = make_runner(
        store,
        [
            call("archival_memory_search", query="cousin trip", heartbeat=True),
            say("Lena loved the trip; the hotel is in Tartu."),
        ],
        link_depth=2,
    )
    for text in [
        "My cousin Lena loved the trip and stayed at Hotel Aurelia.",
        "Hotel Aurelia is at 14 Vana Street, Tartu, next to the river.",
        "The weather in Tartu was rainy all week.",
    ]:
        store.archival.insert(runner.agent_id, text)
    turn = ask(runner, "What did my cousin say about the trip, and where is that hotel?")
    result = turn.steps[0].outcome.text
    assert "linked via Hotel" in result or "linked via Aurelia" in result
    assert "14 Vana Street" in result


def test_prefetch_shows_relevant_memories_with_the_user_message(store):
    runner = make_runner(store, [say("It was Tansy.")], memory_prefetch=True)
    with store.transaction():
        store.recall.append(
            runner.agent_id,
            [
                NewMessage(role="user", content="We adopted a ferret and named it Tansy.", in_context=False),
                NewMessage(role="user", content="The weather was awful today.", in_context=False),
            ],
        )
    ask(runner, "What was the name of our ferret?")
    context = store.recall.in_context(runner.agent_id)
    assert [m.role for m in context[:2]] == ["user", "system"]
    assert context[1].content.startswith("[memory read-ahead")
    assert "named it Tansy" in context[1].content
    # the notice is part of the stored queue: a restart shows the same context
    assert make_runner(store, []).render() == runner.render()


def test_prefetch_adds_nothing_when_memory_is_empty(store):
    runner = make_runner(store, [say("hi")], memory_prefetch=True)
    ask(runner, "hello")
    assert [m.role for m in store.recall.in_context(runner.agent_id)] == ["user", "assistant", "function"]


def test_search_first_forces_a_memory_search_before_the_reply(store):
    runner = make_runner(store, [call("conversation_search", query="ferret"), say("Tansy")], search_first=True)
    with store.transaction():
        store.recall.append(
            runner.agent_id, [NewMessage(role="user", content="Our ferret is Tansy.", in_context=False)]
        )
    turn = ask(runner, "What is our ferret called?")
    first = runner.backend.requests[0].grammar
    assert "send_message" not in first.function_names
    assert set(first.function_names) == {"conversation_search", "conversation_search_date", "archival_memory_search"}
    assert not turn.steps[0].asks_for_more and len(turn.steps) == 2  # a second step, without a heartbeat
    assert turn.messages == ["Tansy"]


def test_search_first_is_skipped_when_there_is_nothing_to_search(store):
    runner = make_runner(store, [say("hello")], search_first=True)
    turn = ask(runner, "hi")
    assert "send_message" in runner.backend.requests[0].grammar.function_names
    assert turn.messages == ["hello"]


def _hotel_store(runner, store):
    for text in [
        "My cousin Lena loved the trip and stayed at Hotel Aurelia.",
        "Hotel Aurelia is at 14 Vana Street, Tartu, next to the river.",
    ]:
        store.archival.insert(runner.agent_id, text)


def test_reply_check_holds_a_draft_whose_names_memory_knows_more_about(store):
    runner = make_runner(
        store,
        [
            call("archival_memory_search", query="cousin trip", heartbeat=True),
            say("Lena stayed at Hotel Aurelia."),
            say("Lena stayed at Hotel Aurelia, 14 Vana Street in Tartu."),
        ],
        reply_check=True,
        archival_search_mode="text",
    )
    _hotel_store(runner, store)
    store.archival.insert(runner.agent_id, "Lena is the cousin who lives in Pärnu.")
    turn = ask(runner, "What did my cousin say about the trip, and where did she stay?")
    search, draft, final = turn.steps
    assert "14 Vana Street" not in search.outcome.text
    assert draft.held and draft.outcome.user_message is None
    assert "14 Vana Street" in draft.outcome.text and "Not sent yet" in draft.outcome.text
    assert set(draft.hold.user_note.split(" about ")[1].split(", ")) <= {"Lena", "Hotel", "Aurelia"}
    # the answer after a check may only be a reply, and only the final one reaches the user
    assert runner.backend.requests[2].grammar.function_names == ("send_message",)
    assert turn.messages == ["Lena stayed at Hotel Aurelia, 14 Vana Street in Tartu."]
    assert not final.held


def test_reply_check_lets_a_draft_through_when_everything_about_it_was_read(store):
    runner = make_runner(
        store,
        [
            call("archival_memory_search", query="Hotel Aurelia", heartbeat=True),
            say("Hotel Aurelia is at 14 Vana Street."),
        ],
        reply_check=True,
    )
    _hotel_store(runner, store)
    turn = ask(runner, "Where is the hotel my cousin stayed at?")
    assert [s.held for s in turn.steps] == [False, False]
    assert turn.messages == ["Hotel Aurelia is at 14 Vana Street."]


def test_reply_check_ignores_the_names_the_user_asked_about(store):
    runner = make_runner(store, [say("I have no notes on the Korppi shop.")], reply_check=True)
    store.archival.insert(runner.agent_id, "Korppi is a tea shop in Turku.")
    turn = ask(runner, "Do you know the Korppi shop?")
    assert len(turn.steps) == 1 and turn.messages == ["I have no notes on the Korppi shop."]


def test_reply_check_takes_no_weekday_or_month_for_a_name():
    """A `make run` chat (stop 52): "Henri's knee operation is scheduled for Thursday, 10 December"
    was held for "December", and the redraft said "10 January"."""
    from datetime import datetime, timezone

    from memgpt_local.agent.policy.reply_check import unread_entries
    from memgpt_local.schemas import SearchHit

    when = datetime(2026, 12, 6, tzinfo=timezone.utc)
    text = "Julien and Chloé fly back in January, after December."
    entry = SearchHit(kind="message", id=7, text=text, created_at=when)

    def containing(text: str, limit: int) -> list[SearchHit]:
        return [entry] if text in entry.text else []

    draft = "Henri's operation is on Thursday, 10 December."
    check = unread_entries(
        draft, asked="Is Henri's operation this week?", context_text="", sources=[containing], max_df=3
    )
    assert check.entries == ()
    named = unread_entries("Julien is back soon.", asked="", context_text="", sources=[containing], max_df=3)
    assert named.identifiers == ("Julien",)


def test_reply_check_follows_a_chain_one_round_at_a_time_and_stops_at_its_limit(store):
    chain = ["Ab12", "Cd34", "Ef56", "Gh78"]
    runner = make_runner(
        store,
        [
            call("archival_memory_search", query="Ab12", heartbeat=True),
            say("Cd34"),
            say("Ef56"),
            say("Gh78"),
        ],
        reply_check=True,
        reply_check_rounds=2,
        archival_search_mode="text",
    )
    for a, b in zip(chain, chain[1:]):
        store.archival.insert(runner.agent_id, f"Entry {a} points to {b}.")
    turn = ask(runner, "Where does Ab12 lead?")
    assert [s.held for s in turn.steps] == [False, True, True, False]
    assert "Entry Cd34 points to Ef56" in turn.steps[1].outcome.text
    assert "Entry Ef56 points to Gh78" in turn.steps[2].outcome.text
    assert turn.messages == ["Gh78"]  # the third draft goes out: two rounds were allowed


def test_reply_check_can_be_switched_off(store):
    runner = make_runner(store, [say("Lena stayed at Hotel Aurelia.")], reply_check=False)
    _hotel_store(runner, store)
    assert ask(runner, "Where did my cousin stay?").messages == ["Lena stayed at Hotel Aurelia."]


def test_search_budget_makes_the_step_after_the_last_allowed_search_a_reply(store):
    searches = [call("conversation_search", query="ferret", page=p, heartbeat=True) for p in range(2)]
    runner = make_runner(store, [*searches, say("Tansy")], search_budget=2)
    with store.transaction():
        store.recall.append(
            runner.agent_id, [NewMessage(role="user", content="Our ferret is Tansy.", in_context=False)]
        )
    turn = ask(runner, "What is our ferret called?")
    assert [s.call.function for s in turn.steps] == ["conversation_search", "conversation_search", "send_message"]
    assert runner.backend.requests[2].grammar.function_names == ("send_message",)
    assert turn.messages == ["Tansy"]


def test_without_a_search_budget_the_model_may_keep_searching(store):
    # other words each time: a page after a search's last makes the next step reply (searched_already)
    queries = ["ferret", "ferret name", "our ferret"]
    searches = [call("conversation_search", query=q, heartbeat=True) for q in queries]
    runner = make_runner(store, [say("Lovely!"), *searches, say("Tansy")], search_budget=0)
    ask(runner, "Our ferret is called Tansy.")  # found, so nothing_found does not end the search
    turn = ask(runner, "What is our ferret called?")
    assert [s.call.function for s in turn.steps].count("conversation_search") == 3


def test_search_recap_shows_the_best_hits_again_before_the_forced_reply(store):
    searches = [call("conversation_search", query="ferret", page=p, heartbeat=True) for p in range(2)]
    runner = make_runner(
        store, [*searches, say("Tansy")], search_budget=2, search_recap=True, page_size=2, recall_search_mode="text"
    )
    with store.transaction():
        store.recall.append(
            runner.agent_id,
            [
                NewMessage(role="user", content=text, in_context=False)
                for text in [
                    "Our ferret is called Tansy.",
                    "The ferret cage needs cleaning.",
                    "A ferret bit my friend.",
                    "Ferret food is expensive.",
                ]
            ],
        )
    turn = ask(runner, "What is our ferret called?")
    assert turn.messages == ["Tansy"]
    last_seen = runner.backend.requests[2].messages[-1].content
    assert last_seen.startswith("[search recap")
    recap = last_seen.split("\n", 1)[1]
    # the first page's hits come first (rank 1, 2), then the second page's (rank 3)
    assert recap.index("1. [") < recap.index("2. [") < recap.index("3. [")
    assert "4. [" not in recap  # recap_k = 3
    first_page = turn.steps[0].outcome.text
    assert recap.split("\n")[1].split("said: ")[1] in first_page


def _recap_lines(runner, step: int) -> list[str]:
    recap = runner.backend.requests[step].messages[-1].content
    assert recap.startswith("[search recap")
    return [line for line in recap.split("\n") if line[:1].isdigit()]


@pytest.mark.parametrize("focus", [True, False])
def test_the_recap_orders_the_turns_hits_by_the_question_with_question_focus(store, focus):
    searches = [
        call("conversation_search", query="Lumen Hall", heartbeat=True),
        call("conversation_search_date", start_date="2025-01-01", end_date="2025-12-31", heartbeat=True),
    ]
    runner = make_runner(
        store,
        [*searches, say("The Greys")],
        search_budget=2,
        page_size=2,
        recap_k=2,
        recall_search_mode="text",
        question_focus=focus,
    )
    from datetime import datetime, timezone

    with store.transaction():
        store.recall.append(
            runner.agent_id,
            [
                NewMessage(
                    role="user", content=text, in_context=False, created_at=datetime(2025, 3, day, tzinfo=timezone.utc)
                )
                for day, text in [
                    (1, "I have to go now, talk soon!"),
                    (2, "Lucky you! The sound at Lumen Hall is great."),
                    (3, "Last night we saw The Greys live at Lumen Hall."),
                ]
            ],
        )
    ask(runner, "Which band did we see live at Lumen Hall?")
    lines = _recap_lines(runner, 2)
    if focus:  # the answer first, though no search ranked it first
        assert "The Greys" in lines[0]
    else:  # by rank: the first hits of the two searches
        assert "The Greys" not in lines[0] and "talk soon" in lines[1]


def test_no_recap_without_the_setting(store):
    searches = [call("conversation_search", query="ferret", page=p, heartbeat=True) for p in range(2)]
    without = [p for p in DEFAULT_POLICIES if p != "recap"]
    runner = make_runner(store, [say("Lovely!"), *searches, say("Tansy")], search_budget=2, policies=without)
    ask(runner, "Our ferret is called Tansy.")  # found: nothing_found does not end the search, and recap would show it
    ask(runner, "What is our ferret called?")
    assert "search recap" not in runner.backend.requests[3].messages[-1].content


def test_reply_check_does_not_show_detail_that_is_not_about_the_question(store):
    """A biography of the person named in a complete answer is not part of the answer."""
    runner = make_runner(
        store,
        [
            call("archival_memory_search", query="Old Mill founded", heartbeat=True),
            say("The Old Mill was founded in 1802 by Mara Velt."),
        ],
        archival_search_mode="text",
    )
    for text in [
        "Old Mill. The Old Mill is a watermill in the Kessel valley. It was founded in 1802 by Mara Velt.",
        "Mara Velt. Mara Velt was a painter born in Brisk; late in life she wrote two novels.",
    ]:
        store.archival.insert(runner.agent_id, text)
    turn = ask(runner, "Who founded the Old Mill?")
    assert [s.held for s in turn.steps] == [False, False]
    # with the relevance filter off, the same draft is held back for the biography
    runner = make_runner(
        store,
        [
            call("archival_memory_search", query="Old Mill founded", heartbeat=True),
            say("The Old Mill was founded in 1802 by Mara Velt."),
            say("Mara Velt."),
        ],
        name="unfiltered",
        archival_search_mode="text",
        reply_check_window=1.0,
    )
    for text in [
        "Old Mill. The Old Mill is a watermill in the Kessel valley. It was founded in 1802 by Mara Velt.",
        "Mara Velt. Mara Velt was a painter born in Brisk; late in life she wrote two novels.",
    ]:
        store.archival.insert(runner.agent_id, text)
    turn = ask(runner, "Who founded the Old Mill?")
    assert turn.steps[1].held and "painter born in Brisk" in turn.steps[1].outcome.text


# the repeat guard matters where a turn may send several messages: with one_reply off, and in
# turns no user message started (heartbeats, login)
# scripted answers name what no memory holds ("the stew"): grounded_reply would hold them
CHAINING = [p for p in DEFAULT_POLICIES if p not in ("one_reply", "nothing_found", "grounded_reply")]


def test_a_reply_already_sent_in_the_turn_is_not_sent_again_and_ends_the_turn(store):
    runner = make_runner(
        store,
        [
            say("You ordered the stew.", heartbeat=True),
            say("You ordered  the stew.", heartbeat=True),
            say("never reached"),
        ],
        policies=CHAINING,
    )
    turn = ask(runner, "What did I order?")
    assert turn.messages == ["You ordered the stew."]
    assert len(turn.steps) == 2 and turn.steps[1].hold.reason == "repeat_guard"
    assert "already sent" in store.recall.in_context(runner.agent_id)[-1].content
    # a different message in the same turn still goes out
    runner = make_runner(store, [say("First.", heartbeat=True), say("Second.")], name="two", policies=CHAINING)
    assert ask(runner, "hi").messages == ["First.", "Second."]


def test_a_message_that_parrots_a_function_result_is_not_sent(store):
    runner = make_runner(
        store,
        [say("The Wamkoora Lighthouse is in Naillpouick.", heartbeat=True), say("Message sent."), say("never reached")],
        policies=CHAINING,
    )
    turn = ask(runner, "Where is the Wamkoora Lighthouse?")
    assert turn.messages == ["The Wamkoora Lighthouse is in Naillpouick."]
    assert turn.steps[1].hold.reason == "repeat_guard" and len(turn.steps) == 2
    assert "function's result" in store.recall.in_context(runner.agent_id)[-1].content


def test_a_parroted_result_before_any_answer_does_not_leave_the_user_without_one(store):
    """A draft that only repeats a function's result, sent before anything reached the user,
    is held and the next step must answer (it once ended the turn with no message at all)."""
    saved = call("core_memory_append", label="human", content="Name: Dana", heartbeat=True)
    runner = make_runner(store, [saved, say("Appended to human (10/2000 characters used)."), say("Hi Dana!")])
    turn = ask(runner, "I'm Dana")
    assert turn.messages == ["Hi Dana!"]
    assert turn.steps[1].hold.reason == "repeat_guard" and not turn.steps[1].hold.end_turn
    assert runner.backend.requests[2].grammar.function_names == ("send_message",)


def test_question_focus_ranks_a_turns_searches_by_the_users_question(store):
    first = call("conversation_search", query="Lumen Hall", heartbeat=True)
    again = call("conversation_search", query="Lumen Hall", heartbeat=True)
    runner = make_runner(store, [first, again, say("The Greys")], search_budget=0, reply_check=False)
    with store.transaction():
        store.recall.append(
            runner.agent_id,
            [
                NewMessage(role=r, content=c, in_context=False)
                for r, c in [
                    ("user", "Last night we saw The Greys live at Lumen Hall. Best concert of my life."),
                    ("assistant", "Lucky you! How was the sound at Lumen Hall?"),
                    ("user", "The Tidewaters play Lumen Hall next month. My brother loves them."),
                    ("user", "My cousin works at the bakery near Lumen Hall."),
                ]
            ],
        )
    turn = ask(runner, "Which band did we see live at Lumen Hall?")
    first_page, second_page = (s.outcome.text for s in turn.steps[:2])
    assert turn.focus == "Which band did we see live at Lumen Hall?"
    user_lines = [line for line in first_page.splitlines() if "the user said:" in line]
    assert "The Greys" in user_lines[0]
    # the same query again: the turn has read every hit, so the question pushes none of them
    # and the query's own order comes back (the answer is no longer first)
    again_lines = [line for line in second_page.splitlines() if "the user said:" in line]
    assert "The Greys" not in again_lines[0]


def test_question_focus_is_off_when_switched_off_and_for_system_events(store):
    runner = make_runner(store, [say("hi"), say("welcome back")], question_focus=False)
    assert ask(runner, "Which band did we see live at Lumen Hall?").focus is None
    on = make_runner(store, [say("hi"), say("welcome back"), say("Churro."), say(f"{ASK_NAME} Hi")], name="kim")
    assert ask(on, "Which band did we see?").focus == "Which band did we see?"
    chat_first = "Chocolate is a safe bet, she loves it. What's my dog called, by the way? Testing you."
    assert ask(on, chat_first).focus == "What's my dog called, by the way?"  # its question only
    assert ask(on, "Find what I said about Lumen Hall.").focus == "Find what I said about Lumen Hall."
    assert on.run_turn(on.login_event()).focus is None


def test_search_results_show_repeated_messages_once_with_their_count(store):
    runner = make_runner(
        store, [call("conversation_search", query="Saith Studio", heartbeat=True), say("Kel Trol.")], reply_check=False
    )
    with store.transaction():
        store.recall.append(
            runner.agent_id,
            [
                *[
                    NewMessage(
                        role="assistant", content="Something funny happened at the Saith Studio.", in_context=False
                    )
                    for _ in range(15)
                ],
                NewMessage(role="user", content="My new manager at the Saith Studio is Kel Trol.", in_context=False),
            ],
        )
    turn = ask(runner, "What is the name of my new manager at the Saith Studio?")
    result = turn.steps[0].outcome.text
    assert result.startswith("showing 1-2 of 2")
    assert "(15 times in all)" in result and "Kel Trol" in result


def test_a_reply_asking_the_users_question_back_is_held_once_with_the_best_hits(store):
    search = call("conversation_search", query="Ann Lee finished reading", heartbeat=True)
    echo = say("Which book by Ann Lee did you say you had finished reading? I need to know which one.")
    runner = make_runner(store, [search, echo, say("You finished The Glass Letters.")], reply_check=False)
    with store.transaction():
        store.recall.append(
            runner.agent_id,
            [
                NewMessage(
                    role="user", content="I finally finished reading The Glass Letters by Ann Lee.", in_context=False
                )
            ],
        )
    turn = ask(runner, "Quick question. Which book by Ann Lee did I say I had finished reading?")
    assert turn.messages == ["You finished The Glass Letters."]
    held = turn.steps[1]
    assert held.held and held.hold.reason == "echo_guard"
    assert "The Glass Letters" in held.outcome.text  # the turn's best hit comes with the notice
    assert runner.backend.requests[2].grammar.function_names == ("send_message",)
    assert not any("I need to know which one" in m.content for m in runner.backend.requests[2].messages)


def test_the_echo_guard_holds_back_once_a_turn_and_can_be_switched_off(store):
    echo = say("Which book by Ann Lee did you say you had finished reading?")
    runner = make_runner(store, [echo, echo], reply_check=False, name="once")
    turn = ask(runner, "Which book by Ann Lee did I say I had finished reading?")
    assert [s.held for s in turn.steps] == [True, False]  # the second time it goes out
    assert "found nothing" in turn.steps[0].outcome.text
    off = make_runner(store, [echo], reply_check=False, echo_guard=False, name="off")
    assert ask(off, "Which book by Ann Lee did I say I had finished reading?").messages == [
        "Which book by Ann Lee did you say you had finished reading?"
    ]


@pytest.mark.parametrize(
    "draft, echoed",
    [
        ("Which book by Ann Lee did you say you had finished reading?", True),
        ("You finished The Glass Letters by Ann Lee.", False),
        ("Did you mean The Glass Letters or Winter in Paris?", False),
        ("Which?", False),
    ],
)
def test_restates_question(draft, echoed):
    from memgpt_local.agent.policy.echo_guard import restates_question

    assert restates_question(draft, "Hi Sam. Which book by Ann Lee did I say I had finished reading?") is echoed


@pytest.mark.parametrize(
    "draft, asked, echoed",
    [
        # a `make run` chat (stop 60): the answer went into the thought, the question out
        ("I'm here, what do you know about me so far?", "What do you know about me so far?", True),
        ("What do you know about me?", "What do you know about me so far?", True),
        ("You're Ingrid, a maths teacher in Bergen.", "What do you know about me so far?", False),
        # the assistant's own question asked back is small talk
        ("I'm good, thanks! How are you doing today?", "How are you doing today?", False),
        ("I live on your laptop. Where do you live?", "Where do you live?", False),
    ],
)
def test_a_short_question_of_the_users_said_again_word_for_word_is_an_echo(draft, asked, echoed):
    from memgpt_local.agent.policy.echo_guard import restates_question

    assert restates_question(draft, asked) is echoed


def test_an_echo_of_what_is_known_about_the_user_is_shown_all_their_lines(store):
    echo = say("I'm here, what do you know about me so far?")
    runner = make_runner(store, [echo, say("You're Ingrid, and your dog is Bamse.")], reply_check=False, name="all")
    with store.transaction():
        store.core.set_value(runner.agent_id, "human", "Name: Ingrid\nDog: Bamse")
    turn = ask(runner, "What do you know about me so far?")
    assert [s.held for s in turn.steps] == [True, False]
    assert "[human] Name: Ingrid" in turn.steps[0].outcome.text
    assert "[human] Dog: Bamse" in turn.steps[0].outcome.text


HALL_MEMORIES = (
    "Last night we saw The Shoulundvoels live at Nathsirksuel Hall. Best concert of my life.",
    "The Verquuels are playing at Nathsirksuel Hall next month. My cousin loves them.",
)


def _hall_runner(store, script, **settings):
    runner = make_runner(
        store,
        [call("conversation_search", query="Nathsirksuel Hall", heartbeat=True), *script],
        reply_check=False,
        **settings,
    )
    with store.transaction():
        store.recall.append(
            runner.agent_id, [NewMessage(role="user", content=text, in_context=False) for text in HALL_MEMORIES]
        )
    return runner


def test_a_reply_copying_a_hit_farther_from_the_question_is_held_once_with_the_closest_hits(store):
    distractor = say(HALL_MEMORIES[1])
    runner = _hall_runner(store, [distractor, say("We saw The Shoulundvoels there.")])
    turn = ask(runner, "Which band did we see live at Nathsirksuel Hall?")
    assert turn.messages == ["We saw The Shoulundvoels there."]
    held = turn.steps[1]
    assert held.held and held.hold.reason == "copy_guard"
    shown = held.outcome.text.split("\n")[1:]  # the closer hits only, the closest last
    assert "Shoulundvoels" in shown[-1] and not any("Verquuels" in line for line in shown)
    retry = runner.backend.requests[2]
    assert retry.grammar.function_names == ("send_message",)
    # the held draft has left the main context (the model copied it again when it saw it), not memory
    prompt = "\n".join(m.content for m in retry.messages)
    assert "your reply copies a search result" in prompt and "Verquuels are playing" not in prompt.split("Not sent")[-1]
    assert prompt.count("Verquuels are playing") == 1  # in the search results only
    drafts = [
        m for m in store.recall.all(runner.agent_id) if m.role == "assistant" and m.function_name == "send_message"
    ]
    assert [(m.function_args["message"], m.in_context) for m in drafts] == [
        (HALL_MEMORIES[1], False),
        ("We saw The Shoulundvoels there.", True),
    ]
    # nor is the held draft found later as something the assistant said
    for mode in ("text", "vector"):
        found = store.recall.search(runner.agent_id, "Verquuels playing next month", mode=mode, page_size=20)
        assert [h.role for h in found.items if "Verquuels" in h.text] == ["user"]


def test_the_copy_guard_lets_a_quote_of_the_closest_hit_out_and_holds_back_once(store):
    quote = say("You told me: " + HALL_MEMORIES[0])
    runner = _hall_runner(store, [quote], name="quote")
    assert ask(runner, "Which band did we see live at Nathsirksuel Hall?").messages == [quote.arguments["message"]]
    distractor = say(HALL_MEMORIES[1])
    twice = _hall_runner(store, [distractor, distractor], name="twice")
    turn = ask(twice, "Which band did we see live at Nathsirksuel Hall?")
    assert [s.held for s in turn.steps[1:]] == [True, False]
    off = _hall_runner(store, [distractor], name="off", copy_guard=False)
    assert ask(off, "Which band did we see live at Nathsirksuel Hall?").messages == [HALL_MEMORIES[1]]


@pytest.mark.parametrize(
    "draft, copied",
    [
        (HALL_MEMORIES[1], 1),
        ("You said: the Verquuels are playing at Nathsirksuel Hall next month.", 1),
        ("You saw The Shoulundvoels live at Nathsirksuel Hall.", 0),  # 7 of its 8 words in a row
        ("You saw The Shoulundvoels there, the best concert of your life.", None),  # own words
        ("Nathsirksuel Hall.", None),  # too short to be a copy
    ],
)
def test_copied_hit(draft, copied):
    from datetime import datetime, timezone

    from memgpt_local.agent.policy.copy_guard import copied_hit
    from memgpt_local.schemas import SearchHit

    hits = [
        SearchHit(kind="message", id=i, text=t, created_at=datetime.now(timezone.utc))
        for i, t in enumerate(HALL_MEMORIES)
    ]
    found = copied_hit(draft, hits)
    assert (found.id if found else None) == copied


def test_a_copy_of_the_next_link_of_a_chain_is_not_a_rival_answer():
    from datetime import datetime, timezone

    from memgpt_local.agent.policy.copy_guard import continues_chain
    from memgpt_local.schemas import SearchHit

    def hit(text):
        return SearchHit(kind="passage", id=0, text=text, created_at=datetime.now(timezone.utc))

    stay = hit("My cousin Lena loved the trip and stayed at Hotel Aurelia.")
    assert continues_chain(
        hit("Hotel Aurelia is at 14 Vana Street, Tartu."), [stay], "Where is the hotel my cousin stayed at?"
    )
    # the names both share are the ones the user asked about: rivals, not a chain
    assert not continues_chain(
        hit(HALL_MEMORIES[1]), [hit(HALL_MEMORIES[0])], "Which band did we see live at Nathsirksuel Hall?"
    )


def test_the_turns_own_messages_found_by_a_date_search_are_no_rivals_of_a_copied_memory(store):
    from datetime import datetime, timezone

    today = datetime.now(timezone.utc).date().isoformat()
    distractor = say(HALL_MEMORIES[1])
    runner = make_runner(
        store,
        [
            call("conversation_search", query="Nathsirksuel Hall", heartbeat=True),
            call(
                "conversation_search_date",
                "Looking for the band we saw live at Nathsirksuel Hall",
                heartbeat=True,
                start_date=today,
                end_date=today,
            ),
            distractor,
        ],
        reply_check=False,
        search_recap=False,
    )
    with store.transaction():
        store.recall.append(runner.agent_id, [NewMessage(role="user", content=HALL_MEMORIES[1], in_context=False)])
    turn = ask(runner, "Which band did we see live at Nathsirksuel Hall?")
    assert "Which band did we see live" in turn.steps[1].outcome.text  # the question itself was found
    assert turn.messages == [HALL_MEMORIES[1]] and not any(s.held for s in turn.steps)


def test_an_earlier_asking_of_the_same_question_is_no_rival_of_a_copied_memory(store):
    runner = make_runner(
        store,
        [call("conversation_search", query="Nathsirksuel Hall", heartbeat=True), say(HALL_MEMORIES[1])],
        reply_check=False,
        name="asked-before",
    )
    with store.transaction():
        store.recall.append(
            runner.agent_id,
            [
                NewMessage(role="user", content=HALL_MEMORIES[1], in_context=False),
                NewMessage(
                    role="user", content="Which band did we see live at Nathsirksuel Hall? I forget.", in_context=False
                ),
            ],
        )
    turn = ask(runner, "Which band did we see live at Nathsirksuel Hall?")
    assert "I forget" in turn.steps[0].outcome.text
    assert turn.messages == [HALL_MEMORIES[1]] and not any(s.held for s in turn.steps)


def test_the_default_turn_quotes_what_recall_holds_about_a_question_before_the_first_step(store):
    """bench_honesty seed 34: "What was the band I went to see play live?", said two sessions
    ago and evicted since, was answered "The Beatles" in the first step, without a search."""
    # the reply begins with who said it, and when (``recall_at_question.told_on``)
    saw = "Earlier today, you told me you saw the Mosquas."
    runner = make_runner(store, [say(saw)], policies=list(DEFAULT_POLICIES))
    said = ["Last Saturday I saw the Mosquas play live, what a night!", "The weather has been awful all week."]
    with store.transaction():
        store.recall.append(runner.agent_id, [NewMessage(role="user", content=t, in_context=False) for t in said])
    assert ask(runner, "What was the band I went to see play live?").messages == [saw]
    prompt = "\n".join(m.content for m in runner.backend.requests[0].messages)
    assert "past conversations say this about the user's question" in prompt
    assert '"Last Saturday I saw the Mosquas play live, what a night!"' in prompt and "weather" not in prompt
    other = make_runner(
        store,
        [call("send_message", thought="", message="I don't know the band you went to see play live.")],
        name="other",
        policies=list(DEFAULT_POLICIES),
    )
    denial = "I don't know the band you went to see play live."
    assert ask(other, "What was the band I went to see play live?").messages == [denial]
    prompt = "\n".join(m.content for m in other.backend.requests[0].messages)
    assert "Mosquas" not in prompt  # another agent's recall is not this one's


def test_a_reply_held_as_unsupported_is_followed_by_a_search_when_the_turn_has_not_searched(store):
    """ "And what pet does my flatmate have?" got a held draft, then "I don't know what your
    flatmate has" though recall held "my flatmate has one" (a cat), out of view after an eviction
    (a `make run` chat, stop 46): after the hold the next step may only search, and then reads it."""
    policies = [p for p in DEFAULT_POLICIES if p not in ("nothing_found", "recall_at_question")]
    runner = make_runner(
        store,
        [
            say("Your flatmate has a parrot called Pip."),
            call("conversation_search", query="flatmate pet"),
            say("I'm not sure; I found nothing about it."),
        ],
        policies=policies,
    )
    turn = ask(runner, "What pet does my flatmate have?")
    assert turn.steps[0].hold is not None and turn.steps[0].hold.reason == "grounded_reply"
    searches = {"conversation_search", "conversation_search_date", "archival_memory_search"}
    assert "conversation_search" in runner.backend.requests[1].grammar.function_names
    assert set(runner.backend.requests[1].grammar.function_names) <= searches  # a search, no answer
    assert "send_message" in runner.backend.requests[2].grammar.function_names  # then the answer
    assert turn.steps[1].call.function == "conversation_search"
    assert turn.messages == ["I'm not sure; I found nothing about it."]
    assert turn.steps[0].hold.search_next and not turn.steps[0].hold.banned_words  # the search fixes it


def test_a_misread_request_for_ideas_is_asked_again_in_the_turn_the_user_corrects_it(store):
    """A `make run` chat (stop 62): "haha no, a hen do is a bachelorette party! not chickens"
    after hens were suggested got "That's a great idea! ...". Run as every caller runs a turn (the
    unit test of the policy had given the message an id the loop gives it only after the start)."""
    hens = say("Here are a few ideas: a small, quiet hen that doesn't need much attention.")
    party = say("Sorry, my mistake! How about a spa afternoon, a cocktail class, or a picnic in the park?")
    runner = make_runner(store, [hens, party])
    ask(runner, "any ideas for a hen do that isn't too expensive? she hates clubbing")
    turn = ask(runner, "haha no, a hen do is a bachelorette party! not chickens")
    request = runner.backend.requests[1]
    assert request.grammar.message_start == "Sorry, my mistake!"
    assert request.grammar.function_names == ("send_message",)
    assert 'misread their request ("any ideas for a hen do' in request.messages[-1].content
    assert turn.messages == [party.arguments["message"]]
