"""The agent's control flow with the scripted backend: functions, heartbeats, errors."""

from __future__ import annotations

import datetime as dt

import pytest
from agent_helpers import ask, call, make_runner, say
from store_sql import STORE_KINDS

from memgpt_local import events
from memgpt_local.agent.policy.greet_by_name import ASK_NAME
from memgpt_local.config import DEFAULT_POLICIES, AgentSettings

DEFAULTS_DIRECT = {"direct_thought_max_chars": AgentSettings().direct_thought_max_chars}
from memgpt_local.runtime.grammar import InvalidScriptError


@pytest.fixture(params=STORE_KINDS)
def store_kind(request) -> str:
    """Every test here runs on the memory file and on a Postgres database."""
    return request.param


def test_send_message_ends_the_turn(store):
    runner = make_runner(store, [say("Hello Ada!")])
    turn = ask(runner, "hi, I'm Ada")
    assert turn.messages == ["Hello Ada!"]
    assert len(turn.steps) == 1
    roles = [m.role for m in store.recall.in_context(runner.agent_id)]
    assert roles == ["user", "assistant", "function"]


def test_core_memory_append_and_replace(store):
    runner = make_runner(
        store,
        [
            call("core_memory_append", label="human", content="Name: Ada", heartbeat=True),
            call(
                "core_memory_replace",
                label="human",
                old_content="Name: Ada",
                new_content="Name: Ada Lovelace",
                heartbeat=True,
            ),
            say("Noted."),
        ],
    )
    turn = ask(runner, "My name is Ada Lovelace")
    assert [s.outcome.ok for s in turn.steps] == [True, True, True]
    human = store.core.get(runner.agent_id, "human").value
    assert "Name: Ada Lovelace" in human
    assert human.count("Name: Ada") == 1


def test_core_memory_replace_missing_text_is_an_error_with_a_heartbeat(store):
    runner = make_runner(
        store,
        [call("core_memory_replace", label="human", old_content="no such text", new_content="x"), say("sorry")],
    )
    turn = ask(runner, "what did we talk about in May?")
    assert not turn.steps[0].outcome.ok
    assert "not in core memory" in turn.steps[0].outcome.text
    assert turn.steps[0].asks_for_more  # the error forces another step
    assert turn.messages == ["sorry"]


def test_core_memory_replace_with_empty_text_deletes(store):
    runner = make_runner(
        store,
        [
            call("core_memory_append", label="human", content="Likes: tea", heartbeat=True),
            call("core_memory_replace", label="human", old_content="Likes: tea", new_content="", heartbeat=True),
            say("done"),
        ],
    )
    ask(runner, "forget that I like tea")
    assert "Likes: tea" not in store.core.get(runner.agent_id, "human").value


def test_core_memory_limit_returns_an_error_telling_the_model_what_to_do(store):
    runner = make_runner(
        store, [call("core_memory_append", label="human", content="x" * 450), say("ok")], core_memory_limit=500
    )
    store.core.set_value(runner.agent_id, "human", "Name: Dana\nHome: Leeds, three beehives on the roof")
    turn = ask(runner, "hi")
    outcome = turn.steps[0].outcome
    assert not outcome.ok
    assert "limit" in outcome.text and "archival_memory_insert" in outcome.text
    assert len(store.core.get(runner.agent_id, "human").value) <= 500


def test_archival_insert_then_search_across_a_heartbeat(store):
    runner = make_runner(
        store,
        [
            call("archival_memory_insert", content="The spare key is under the blue flowerpot.", heartbeat=True),
            say("Saved."),
            call("archival_memory_search", query="where is the spare key", heartbeat=True),
            say("Under the blue flowerpot."),
        ],
    )
    ask(runner, "Remember: the spare key is under the blue flowerpot.")
    turn = ask(runner, "Where is the spare key?")
    search = turn.steps[0]
    assert search.outcome.searched
    assert "blue flowerpot" in search.outcome.text
    assert "showing 1-1 of 1, page 1/1" in search.outcome.text
    assert turn.messages == ["Under the blue flowerpot."]


def test_conversation_search_is_paginated_with_true_totals(store):
    script = [say(f"ack {i}") for i in range(12)]
    script += [call("conversation_search", query="parcel", page=1, heartbeat=True), say("found")]
    runner = make_runner(store, script, page_size=5)
    for i in range(12):
        ask(runner, f"parcel number {i} arrived today")
    # conversation_search looks at what the context does not show: move the history out
    store.recall.set_in_context(runner.agent_id, [m.id for m in store.recall.in_context(runner.agent_id)], False)
    turn = ask(runner, "which parcels did I get?")
    text = turn.steps[0].outcome.text
    assert "showing 6-10 of 12, page 2/3" in text  # the 12 parcel messages, true total
    assert "UTC" in text  # real timestamps
    assert "with page=2." in text and "last page" not in text


def test_the_last_page_of_a_search_says_it_is_the_last():
    from memgpt_local.functions.results import format_page
    from memgpt_local.schemas import SearchHit, SearchPage

    hit = SearchHit(
        kind="message", id=1, text="the parcel came", created_at=dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)
    )
    last = format_page(SearchPage(items=[hit], total=6, page=1, page_size=5), max_chars=2000, next_hint="search")
    assert "page 2/2" in last and "That was the last page" in last and "More results" not in last
    only = format_page(SearchPage(items=[hit], total=1, page=0, page_size=5), max_chars=2000, next_hint="search")
    assert "last page" not in only  # one page: nothing to say


def test_conversation_search_date(store):
    runner = make_runner(
        store,
        [
            say("ok"),
            call("conversation_search_date", start_date="2000-01-01", end_date="2100-12-31", heartbeat=True),
            say("We talked about the concert."),
            call("conversation_search_date", start_date="2000-01-01", end_date="2100-12-31", heartbeat=True),
            say("It is all above."),
        ],
    )
    ask(runner, "the concert was great")
    store.recall.set_in_context(runner.agent_id, [m.id for m in store.recall.in_context(runner.agent_id)], False)
    turn = ask(runner, "what did we talk about?")
    assert turn.steps[0].outcome.ok
    assert "concert was great" in turn.steps[0].outcome.text
    # every message of the range in view: nothing to page through, the model is told to read it
    store.recall.set_in_context(runner.agent_id, [m.id for m in store.recall.all(runner.agent_id)], True)
    turn = ask(runner, "and before that?")
    assert turn.steps[0].outcome.ok and turn.steps[0].outcome.searched
    assert "are in your context already" in turn.steps[0].outcome.text
    assert "concert was great" not in turn.steps[0].outcome.text


def test_bad_date_range_is_an_error_result_not_a_crash(store):
    runner = make_runner(
        store, [call("conversation_search_date", start_date="2026-05-01", end_date="2026-01-01"), say("ok")]
    )
    turn = ask(runner, "what did we talk about in May?")
    assert not turn.steps[0].outcome.ok
    assert turn.messages == ["ok"]


def test_pause_heartbeats_records_until_when(store):
    runner = make_runner(store, [call("pause_heartbeats", minutes=30)])
    turn = runner.run_turn(events.timed_heartbeat())
    assert turn.steps[0].outcome.ok
    assert "heartbeats_paused_until" in runner.agent.state


def test_unparsable_output_is_returned_to_the_model_and_the_chain_continues(store):
    runner = make_runner(store, ['{"thought": "oops", "function": ', say("recovered")])
    turn = ask(runner, "hi")
    assert turn.steps[0].call is None
    assert not turn.steps[0].outcome.ok
    assert "not a valid function call" in turn.steps[0].outcome.text
    assert turn.messages == ["recovered"]


def test_heartbeat_chain_is_capped_and_the_last_step_may_only_send_a_message(store):
    script = [call("archival_memory_search", query=f"q{i}", heartbeat=True) for i in range(3)] + [say("final")]
    runner = make_runner(store, script, heartbeat_cap=4)
    turn = ask(runner, "what did we talk about?")
    assert len(turn.steps) == 4
    grammars = [r.grammar for r in runner.backend.requests]
    assert grammars[-1].function_names == ("send_message",)
    assert "archival_memory_search" in grammars[0].function_names
    assert turn.messages == ["final"]


def test_a_turn_holds_at_most_max_holds_drafts_and_the_next_is_its_last(store, monkeypatch):
    """A turn of five drafts, each policy holding once, took a minute (`make run`, stop 51)."""
    from memgpt_local.agent import policy as policies
    from memgpt_local.agent.policy.base import Policy
    from memgpt_local.agent.turn import Hold

    class HoldsEveryDraft(Policy):
        name = "tone_guard"

        def review(self, turn, draft, memory):
            return None if draft.plan.last else Hold(self.name, "Not sent: again.", "held")

    monkeypatch.setitem(policies.FACTORIES, "tone_guard", lambda s: HoldsEveryDraft())
    script = [say(f"draft {i}") for i in range(1, 5)]
    turn = ask(make_runner(store, script, policies=["tone_guard"]), "hi")
    assert [s.held for s in turn.steps] == [True, True, True, False] and turn.messages == ["draft 4"]
    two = ask(make_runner(store, script[:3], name="kim", policies=["tone_guard"], max_holds=2), "hi")
    assert [s.held for s in two.steps] == [True, True, False] and two.messages == ["draft 3"]


def test_a_step_that_may_only_reply_has_its_own_thought_bound(store):
    script = [
        call("archival_memory_search", query="q", heartbeat=True),
        call("send_message", thought="", message="final"),
    ]
    runner = make_runner(store, script, heartbeat_cap=2, reply_thought_max_chars=0)
    assert ask(runner, "what did we talk about?").messages == ["final"]
    first, last = (r.grammar for r in runner.backend.requests)
    assert first.thought_max_chars == 300 and last.thought_max_chars == 0
    assert 'thought\\": " str-0-0 ' in last.text and 'str-0-0 ::= "\\"" "" "\\""' in last.text  # no thought
    refused = make_runner(
        store,
        [call("archival_memory_search", query="q", heartbeat=True), say("final")],
        name="kim",
        heartbeat_cap=2,
        reply_thought_max_chars=0,
    )
    with pytest.raises(InvalidScriptError, match="exceeds the grammar's 0"):
        ask(refused, "what did we talk about?")


def test_a_message_that_needs_no_memory_is_answered_without_a_thought(store):
    """Asked for tips, the model wrote them in its thought and sent "I hope these tips are
    helpful!" (`make run`, stop 42): by default a direct reply writes no thought."""
    runner = make_runner(store, [call("send_message", thought="", message="Short breaks help.")], **DEFAULTS_DIRECT)
    assert ask(runner, "Any tips for marking lab reports faster?").messages == ["Short breaks help."]
    assert runner.backend.requests[0].grammar.thought_max_chars == 0
    searching = make_runner(
        store,
        [call("conversation_search", query="cat", heartbeat=True), call("send_message", thought="t", message="Pixel.")],
        name="kim",
        **DEFAULTS_DIRECT,
    )
    assert ask(searching, "What did I say my cat was called?").messages == ["Pixel."]
    assert [r.grammar.thought_max_chars for r in searching.backend.requests] == [300, 300]  # memory questions think


def test_a_reply_that_points_at_its_thought_is_written_again_without_one(store):
    """A `make run` chat (stop 42) thought the tips and sent "I hope these tips are helpful!"."""
    tips = (
        "Tips for a lab: make sure they understand the experiment and its purpose, give clear instructions and "
        "safety guidelines, and have them ask questions when they need help."
    )
    script = [
        call("send_message", thought=tips, message="I hope these tips are helpful!"),
        call("send_message", thought="", message=tips),
    ]
    runner = make_runner(store, script)
    turn = ask(runner, "Any tips for keeping fifteen-year-olds focused in a lab?")
    assert turn.messages == [tips]
    first, redraft = (r.grammar for r in runner.backend.requests)
    assert first.thought_max_chars == 300 and redraft.thought_max_chars == 0
    assert any(tips in m.content for m in runner.backend.requests[1].messages)  # the thought is there to copy


def test_chain_stops_at_the_cap_even_if_the_model_keeps_asking(store):
    script = [call("archival_memory_search", query="q", heartbeat=True)] * 2 + [say("stop", heartbeat=True)]
    runner = make_runner(store, script, heartbeat_cap=3)
    turn = ask(runner, "what did we talk about?")
    assert len(turn.steps) == 3  # the send_message's heartbeat flag is ignored at the cap


def test_prompt_only_grows_at_its_end_between_evictions(store):
    runner = make_runner(store, [say("one"), call("archival_memory_search", query="x", heartbeat=True), say("two")])
    ask(runner, "first")
    ask(runner, "what did I say first?")
    prompts = [r.messages for r in runner.backend.requests]
    for before, after in zip(prompts, prompts[1:]):
        assert after[: len(before)] == before
    last = runner.backend.requests[-1]
    assert last is not None


def test_main_context_is_rebuilt_identically_after_a_restart(store):
    runner = make_runner(
        store, [call("core_memory_append", label="human", content="Has a cat", heartbeat=True), say("nice")]
    )
    ask(runner, "I have a cat")
    before = runner.render()
    again = make_runner(store, [])
    assert again.render() == before


def test_a_message_larger_than_the_window_is_refused_and_nothing_is_stored(store):
    from memgpt_local.errors import ContextOverflowError

    runner = make_runner(store, [say("never")], n_ctx=2048, reply_reserve_tokens=256)
    count = store.recall.count(runner.agent_id)
    with pytest.raises(ContextOverflowError):
        ask(runner, "word " * 5000)
    assert store.recall.count(runner.agent_id) == count


def test_a_search_always_gets_another_step_to_read_its_results(store):
    runner = make_runner(
        store, [call("archival_memory_search", query="keys"), say("I don't know where your keys are.")]
    )
    turn = ask(runner, "where are my keys?")
    assert len(turn.steps) == 2 and turn.messages == ["I don't know where your keys are."]
    plain = make_runner(
        store,
        [call("archival_memory_search", query="keys")],
        name="plain",
        read_search_results=False,
        reply_required=False,
        policies=[p for p in DEFAULT_POLICIES if p != "nothing_found"],  # it would make the next step reply
    )
    assert len(ask(plain, "where are my keys?").steps) == 1


def test_conversation_search_finds_what_was_said_earlier_but_not_the_turn_itself(store):
    # a small model asked "what instrument do I play?" searches even when the answer is a few
    # messages up; "No results" made it answer "I don't know"
    runner = make_runner(
        store,
        [say("Nice!"), call("conversation_search", query="violin instrument play"), say("The violin.")],
    )
    ask(runner, "I play the violin")
    turn = ask(runner, "what instrument do I play?")
    result = turn.steps[0].outcome.text
    assert "the user said: I play the violin" in result
    assert "what instrument do I play" not in result  # the question being answered is not a hit
    assert "you said: Nice!" not in result  # shares no word with the query


def test_conversation_search_leaves_out_messages_that_only_ask(store):
    """Eval chat seed 14: "What car do I drive?" searched "car", found the user's old "What's my
    pet's name again?", searched that, and answered with the pet's name."""
    runner = make_runner(
        store,
        [
            say("Nice! What is your pet's name?"),
            say("Which car do you mean?"),
            call("conversation_search", query="pet name car"),
            say("I don't know."),
        ],
    )
    ask(runner, "I have a ferret called Stouwia, my pet and the boss of the house.")
    ask(runner, "What's my pet's name again?")
    result = ask(runner, "What car do I drive?").steps[0].outcome.text
    assert "the user said: I have a ferret called Stouwia" in result  # a statement is a hit
    assert "the user said: What's my pet's name again?" not in result  # a message that only asks is not
    assert "you said: Nice! What is your pet's name?" in result  # a reply that states something is
    assert "Which car do you mean?" not in result  # one that only asks is not (seed 15)
    assert "showing 1-2 of 2," in result  # the count says what is shown


def test_conversation_search_finds_no_thoughts(store):
    runner = make_runner(
        store,
        [
            call("core_memory_append", "the user plays the violin", True, label="human", content="Plays: violin"),
            say("Noted!"),
            call("conversation_search", query="violin"),
            say("The violin."),
        ],
    )
    ask(runner, "I play the violin")
    result = ask(runner, "what do I play?").steps[0].outcome.text
    assert result.startswith("Core memory lines that match:\n[human] Plays: violin\n")
    assert "the user plays the violin" not in result  # a private thought is not something said
    assert "the user said: I play the violin" in result


def test_a_user_turn_always_ends_with_a_reply(store):
    runner = make_runner(store, [call("archival_memory_insert", content="filler text"), say("Noted.")])
    turn = ask(runner, "here is some filler")
    assert turn.messages == ["Noted."]
    assert runner.backend.requests[1].grammar.function_names == ("send_message",)
    silent = make_runner(
        store, [call("archival_memory_insert", content="more filler")], name="silent", reply_required=False
    )
    assert ask(silent, "filler").messages == []


def test_events_other_than_user_messages_may_end_silently(store):
    runner = make_runner(store, [call("pause_heartbeats", minutes=10)])
    assert runner.run_turn(events.timed_heartbeat()).messages == []


def test_a_users_turn_ends_with_its_reply_even_when_the_model_asks_for_more(store):
    script = [say("Nice to meet you, Dana!", heartbeat=True), say("Message sent. How can I help?")]
    runner = make_runner(store, script)
    turn = ask(runner, "Hi! I'm Dana.")
    assert turn.messages == ["Nice to meet you, Dana!"] and len(turn.steps) == 1
    chained = make_runner(store, list(script), name="chained", policies=["reply_required"])
    assert len(ask(chained, "Hi! I'm Dana.").messages) == 2  # without the policy the chain goes on


def test_a_first_page_starts_with_the_matching_core_memory_lines(store):
    """A model told only "No results" answered "I don't know anything about that" with the
    user's name in core memory: every first page lists the core lines that share its words."""
    runner = make_runner(
        store, [call("conversation_search", query="my name", heartbeat=True), say("Your name is Dana.")]
    )
    store.core.set_value(runner.agent_id, "human", "Name: Dana\nHome: Leeds, three beehives on the roof")
    turn = ask(runner, "What's my name?")
    result = turn.steps[0].outcome.text
    assert result == "Core memory lines that match:\n[human] Name: Dana\nNo results (showing 0 of 0, page 1/1)."
    archival = make_runner(
        store,
        [call("archival_memory_search", query="beehives", heartbeat=True), say("ok")],
        name="b",
    )
    store.core.set_value(archival.agent_id, "human", "Home: Leeds, three beehives on the roof")
    text = ask(archival, "how many hives do I have?").steps[0].outcome.text
    assert text.startswith("Core memory lines that match:\n[human] Home: Leeds")
    nothing = say("I don't know anything about a tortoise.")  # nothing_found: the search found no tortoise
    bare = make_runner(store, [call("archival_memory_search", query="tortoise", heartbeat=True), nothing], name="c")
    assert (
        ask(bare, "my tortoise?")
        .steps[0]
        .outcome.text.endswith("Core memory (always in your context) holds what you know about the user.")
    )


def test_a_first_page_shows_the_core_lines_the_turns_question_asks_about(store):
    """Asked "Which town am I living in now?", a small model searched "living in" with "Home:
    Prurkdrabury" in core memory, and sent an earlier reply it found instead."""
    runner = make_runner(
        store, [call("conversation_search", query="living in", heartbeat=True), say("Your home is Prurkdrabury.")]
    )
    store.core.set_value(runner.agent_id, "human", "Name: Koum\nHome: Prurkdrabury\nAllergy: peanuts")
    result = ask(runner, "Which town am I living in now?").steps[0].outcome.text
    assert result.startswith("Core memory lines that match:\n[human] Home: Prurkdrabury\nNo results")
    assert "Allergy" not in result and "Name: Koum" not in result


def test_a_date_search_starts_with_the_core_lines_naming_its_days(store):
    """Asked "when is Omar coming?" with the visit's day in core memory, a small model searched
    the conversation for that day, read "No results" and answered "I don't know"."""
    today = dt.datetime.now(dt.timezone.utc).date()
    friday, trip = today + dt.timedelta(days=1), today - dt.timedelta(days=6)
    runner = make_runner(
        store,
        [
            call(
                "conversation_search_date", start_date=friday.isoformat(), end_date=friday.isoformat(), heartbeat=True
            ),
            say("Your brother Omar comes on Friday."),  # asked by name, begun by the line's label
            call("conversation_search_date", start_date=today.isoformat(), end_date=today.isoformat(), heartbeat=True),
            say("ok"),
        ],
    )
    lines = [f"Brother: Omar (on Friday, {friday})", f"Trip: Lisbon (week of {trip})", "Dog: Biscuit, 3"]
    store.core.set_value(runner.agent_id, "human", "\n".join(lines))
    result = ask(runner, "When is Omar coming?").steps[0].outcome.text
    assert result.startswith(f"Core memory lines for these days:\n[human] {lines[0]}\nNo results")
    assert f"Today is {today}: nothing has been said on a later day yet." in result
    assert lines[1] not in result and lines[2] not in result
    result = ask(runner, "what did I say today?").steps[0].outcome.text
    assert f"[human] {lines[1]}" in result and lines[0] not in result  # the trip's week holds today
    assert "nothing has been said on a later day" not in result


def test_the_first_fact_about_the_user_replaces_the_packaged_placeholder(store):
    runner = make_runner(
        store,
        [
            call("core_memory_append", label="human", content="Name: Dana", heartbeat=True),
            call("core_memory_append", label="human", content="Home: Leeds", heartbeat=True),
            say("Hi Dana!"),
        ],
    )
    assert store.core.get(runner.agent_id, "human").value == "Nothing is known about the user yet."
    ask(runner, "I'm Dana from Leeds")
    assert store.core.get(runner.agent_id, "human").value == "Name: Dana\nHome: Leeds"


def test_a_login_ends_with_a_greeting(store):
    greeting = f"{ASK_NAME} Welcome!"  # nothing known: the grammar asks the name
    runner = make_runner(store, [call("core_memory_append", label="persona", content="Kind."), say(greeting)])
    turn = runner.run_turn(runner.login_event())
    assert turn.messages == [greeting]
    assert runner.backend.requests[1].grammar.function_names == ("send_message",)
    assert "greet them and ask it" in store.recall.in_context(runner.agent_id)[0].content


def test_a_login_greeting_may_not_copy_a_run_of_the_last_replies(store):
    """A `make run` greeting said the last reply again after the name ("Hello Tomasz! I know you
    have an allergy to penicillin. It's a fun thing to be in your job, isn't it? ..."): the
    sampler refuses the runs of the last replies in view at a login, not in a user's turn."""
    replies = [
        "Lovely to hear about the garden.",
        "Tuesdays are busy for everyone.",
        "Good luck with the exam on Friday.",
        "It's a fun thing to be in your job, isn't it?",
        "Rain again, what a week for it.",
    ]
    runner = make_runner(store, [*(say(r) for r in replies), say(f"{ASK_NAME} Welcome back!")])
    for i in range(5):
        ask(runner, f"Message {i}")
    assert all(request.avoid.prior == () for request in runner.backend.requests)  # a user's turn
    runner.run_turn(runner.login_event())
    assert runner.backend.requests[-1].avoid.prior == tuple(replies[-3:])
    # a sentence that tells a saved fact may be said in the same words again: kept off "on Saturday
    # 19 December", a greeting wrote "on Saturdays 19 December" (a `make run` chat, stop 53)
    store.core.set_value(runner.agent_id, "human", "Name: Dana\nTrip: flying to Rome on the 19th (2026-12-19)")
    said = "Your trip to Rome is on Saturday 19 December. Rain again, what a week for it."
    greeting = "Hello Dana! Is your trip to Rome on the 19th?"
    runner.backend.enqueue(say("Nice."), say(f"Hello Dana! {said}"), say("Sure."), say(greeting), say(greeting))
    ask(runner, "Rain again.")
    runner.run_turn(runner.login_event())
    ask(runner, "Indeed.")
    runner.run_turn(runner.login_event())
    assert "Rain again, what a week for it." in " ".join(runner.backend.requests[-1].avoid.prior)
    assert "Rome" not in " ".join(runner.backend.requests[-1].avoid.prior)


def test_a_known_users_greeting_may_not_open_its_own_sentence_like_an_earlier_reply(store):
    """A `make run` chat (stop 53): "I'm here to help you today." after "Hello Priya!" at every
    login; pushed off copying it mid-sentence, one went "I'm here today to help you with your
    birthday". The sentence after the name is turned away at its opening instead."""
    runner = make_runner(
        store,
        [
            say("Hello Dana! I'm so happy to see you today. How are the beehives?"),
            say("Nice."),
            say("Hello Dana! Are all three beehives busy?"),
        ],
    )
    store.core.set_value(runner.agent_id, "human", "Name: Dana\nHobby: three beehives")
    runner.run_turn(runner.login_event())
    assert runner.backend.requests[0].avoid.openings == frozenset()  # nothing said before
    ask(runner, "Hi")
    runner.run_turn(runner.login_event())
    assert ("i", "m", "so", "happy") in runner.backend.requests[-1].avoid.openings


def test_a_login_greeting_of_a_known_user_begins_with_their_name(store):
    """Held for leaving out the name, a greeting was redrafted as the bare "Hello Drervoo!":
    the grammar now writes "Hello <name>!" and the model goes on from it."""
    runner = make_runner(store, [say("Hello Dana! How are the beehives?")])
    store.core.set_value(runner.agent_id, "human", "Name: Dana\nHobby: three beehives")
    turn = runner.run_turn(runner.login_event())
    assert turn.messages == ["Hello Dana! How are the beehives?"]
    grammar = runner.backend.requests[0].grammar
    assert grammar.message_start == "Hello Dana!" and '"Hello Dana!" jchar{8,' in grammar.text
    assert runner.backend.requests[0].avoid.fixed_start == "Hello Dana!"
    # the model's first sentence is never cut at an earlier reply's formula, only before an offer of help
    from memgpt_local.agent.loop import OFFERS_OF_HELP
    from memgpt_local.text import sentence_openings, words

    # and the persona's sentences (stop 58)
    persona = sentence_openings(store.core.get(runner.agent_id, "persona").value, 4)
    offers = {tuple(words(offer)) for offer in OFFERS_OF_HELP}
    assert persona and runner.backend.requests[0].avoid.formulas == offers | persona
    other = make_runner(store, [say("Welcome back!")], name="other")
    store.core.set_value(other.agent_id, "human", "Name: Dana")
    with pytest.raises(InvalidScriptError, match="forced start"):
        other.run_turn(other.login_event())
    unknown = make_runner(store, [say(ASK_NAME)], name="new")  # no name known: the grammar asks it
    assert unknown.run_turn(unknown.login_event()).messages == [ASK_NAME]
    assert unknown.backend.requests[0].grammar.message_start == ASK_NAME
    ask(runner2 := make_runner(store, [say("Nice.")], name="asked"), "I'm Ola")
    assert runner2.backend.requests[0].grammar.message_start == ""  # a user's turn: no start


def test_appending_a_line_core_memory_already_holds_changes_nothing(store):
    runner = make_runner(
        store,
        [
            call("core_memory_append", label="human", content="Name: Priya", heartbeat=True),
            call("core_memory_append", label="human", content="name: priya", heartbeat=True),
            say("Hi Priya!"),
        ],
    )
    turn = ask(runner, "I'm Priya")
    assert store.core.get(runner.agent_id, "human").value == "Name: Priya"
    assert turn.steps[1].outcome.ok and turn.steps[1].outcome.text.startswith("Already in human: nothing was changed")
    assert turn.messages == ["Hi Priya!"]
    assert runner.backend.requests[2].grammar.function_names == ("send_message",)  # saved_already


def test_the_reply_after_a_held_draft_may_not_copy_it(store):
    said = "By the way, I'm allergic to penicillin, and my favourite dinner is aubergine curry."
    runner = make_runner(store, [say(said), say("Noted: no penicillin, and curry it is!")])
    turn = runner.run_turn(events.user_message(said))
    assert turn.messages == ["Noted: no penicillin, and curry it is!"]
    first, retry = runner.backend.requests
    assert first.avoid is not None and first.avoid.prior == ()
    assert retry.avoid is not None and retry.avoid.prior[0] == said  # the sampler refuses its runs
    # and the notice's own words, never what it quotes: dmr seed 19 (stop 55) sent a notice as the reply
    notice = turn.steps[0].hold.notice
    assert retry.avoid.prior[1:] and all(part in notice for part in retry.avoid.prior[1:])
    assert not any(said in part for part in retry.avoid.prior[1:])


def test_a_draft_held_for_whose_words_they_are_may_be_rewritten_with_them(store):
    runner = make_runner(
        store,
        [
            say("I teach chemistry at a school in the city of Ghent."),
            say("You teach chemistry at a school in the city of Ghent, lovely!"),
        ],
    )
    turn = runner.run_turn(events.user_message("Hi! I'm Marta. I teach chemistry at a secondary school in Ghent."))
    assert [h.reason for h in turn.holds] == ["perspective_guard"]
    assert turn.messages == ["You teach chemistry at a school in the city of Ghent, lovely!"]
    retry = runner.backend.requests[1]
    assert (
        retry.avoid is not None
    )  # "a school in the city of Ghent" may be said again (only the notice's words are refused)
    assert not any("Ghent" in part for part in retry.avoid.prior)
    assert runner.backend.requests[0].avoid.banned_openers == ()
    assert retry.avoid.banned_openers == ("I", "My")  # no sentence of the rewrite may open as the user
    never = ("user", "User", "users", "Users")  # no reply speaks of "the user"
    assert runner.backend.requests[0].avoid.banned_words == never
    assert retry.avoid.banned_words == ("my", "My", *never)  # nor, after the hold, say "my" anywhere
    apps = make_runner(store, [say("Your app has 500 users.")], name="apps")
    ask(apps, "How many users does my app have?")
    assert apps.backend.requests[0].avoid.banned_words == ()  # the user's own word


def test_a_turn_started_by_an_event_from_the_past_stamps_its_steps_beside_it(store):
    """An evaluation's user spoke in May 2025: the replies and results stamped with the wall
    clock read "today" as another day."""
    from datetime import datetime, timedelta, timezone

    search = call("conversation_search", query="tea", heartbeat=True)
    runner = make_runner(store, [search, say("I don't know which tea you like.")])  # nothing_found
    when = datetime(2025, 5, 5, 18, 0, tzinfo=timezone.utc)
    runner.run_turn(events.user_message("What tea did I say I like?", when=when))
    stamps = [m.created_at for m in store.recall.in_context(runner.agent_id)][-5:]
    assert stamps[0] == when and all(when <= t < when + timedelta(minutes=1) for t in stamps)
    assert stamps == sorted(stamps)


def test_a_reply_ends_before_a_formula_an_earlier_reply_used(store):
    """A later sentence that opens like a sentence of an earlier turn's reply is cut, with all
    after it (the sampler stops there; this backend writes it whole): the user never reads the
    formula twice, and the context never shows it as an example to follow again."""
    formula = "Tell me all about how he is doing."
    runner = make_runner(
        store,
        [
            say(f"Lovely, a parrot! {formula}"),
            say(f"A new town, how exciting! {formula} Tell me."),
        ],
    )
    assert ask(runner, "My parrot is called Brallhaette.").messages == [f"Lovely, a parrot! {formula}"]
    second = ask(runner, "We finally moved to Tezetonbury.")
    assert second.messages == ["A new town, how exciting!"]
    stored = [m.function_args for m in store.recall.in_context(runner.agent_id) if m.role == "assistant"]
    assert stored[-1] == {"message": "A new town, how exciting!"}
    request = runner.backend.requests[1]
    assert request.avoid is not None and ("tell", "me", "all", "about") in request.avoid.formulas


def test_a_reply_to_news_ends_before_an_offer_of_help(store):
    """ "My daughter Zara passed her driving test this morning, first try!" was answered "That's
    great news! Congratulations on your daughter's achievement! Is there anything else you would
    like to know?" (scripts/bench_replies.py, stop 56): an offer nobody asked for is a formula
    from the first turn on. Asked for help, the reply may offer more."""
    runner = make_runner(
        store,
        [
            say("Congratulations to Zara, first try! Is there anything else you would like to know?"),
            say("Try blackout curtains. Let me know if you need more tips."),
        ],
    )
    assert ask(runner, "My daughter Zara passed her driving test this morning, first try!").messages == [
        "Congratulations to Zara, first try!"
    ]
    assert ("is", "there", "anything", "else") in runner.backend.requests[0].avoid.formulas
    tips = ask(runner, "Any tips for sleeping during the day?")
    assert tips.messages == ["Try blackout curtains. Let me know if you need more tips."]
    # help nobody asked for, said as done (a `make run` chat, stop 60)
    runner = make_runner(store, [say("I'm sorry about that. I'm glad I can help with that.")], name="glad")
    told = "Oh, I also forgot to say, I'm allergic to cats, which is ironic given my job."
    assert ask(runner, told).messages == ["I'm sorry about that."]
    # and as a wish or a plan (a `make run` chat, stop 61)
    night = "Good night! I'll see if there's anything else I can help you with tomorrow."
    runner = make_runner(store, [say(night)], name="night")
    assert ask(runner, "Good memory. I'm off to bed now, night!").messages == ["Good night!"]
    brave = "That's a brave decision! What do you need to know about the girls?"
    runner = make_runner(store, [say(brave)], name="brave")
    assert ask(runner, "I'm flying out to see them, I'm terrified.").messages == ["That's a brave decision!"]


def test_a_greeting_ends_before_an_offer_of_help(store):
    """A `make run` chat (stop 57): "Hello Hamid! I know you are a driver in Sheffield. What else
    would you like to know about you?". The greeting's fixed "Hello Hamid!" takes no formulas of
    earlier replies (cut at one, a greeting was the bare "Hello Lena!"), but offers of help it does."""
    from memgpt_local.agent.loop import OFFERS_OF_HELP
    from memgpt_local.text import sentence_openings, words

    greeting = "Hello Hamid! I know you are a driver in Sheffield."
    runner = make_runner(store, [say(f"{greeting} What else would you like to know about you?")])
    store.core.set_value(runner.agent_id, "human", "Name: Hamid\nWork: drives buses in Sheffield")
    assert runner.run_turn(runner.login_event()).messages == [greeting]
    formulas = runner.backend.requests[0].avoid.formulas
    assert ("what", "else", "would", "you", "like", "to", "know") in formulas
    persona = sentence_openings(store.core.get(runner.agent_id, "persona").value, 4)
    assert formulas <= {tuple(words(offer)) for offer in OFFERS_OF_HELP} | persona


def test_advice_is_not_cut_at_the_words_earlier_advice_began_with(store):
    """A `make run` chat (stop 42): "Here are some tips ..." opened an earlier reply, and the
    answer to the next request for advice was cut to its first sentence."""
    tips = "Here are some tips: keep him inside, play music, stay close."
    runner = make_runner(store, [say(f"Sure! {tips}"), say(f"Poor Tui. {tips}")])
    ask(runner, "Any tips for a rainy Sunday?")
    assert ask(runner, "What can I do to calm my dog in a storm?").messages == [f"Poor Tui. {tips}"]
    assert runner.backend.requests[1].avoid.formulas == frozenset()


def test_a_first_sentence_may_not_open_like_an_earlier_reply(store):
    """The sampler is told the openings of earlier replies' sentences a first sentence may not
    repeat: not a denial's (the honest "I don't know" may come again), nor one ending on a word
    core memory or the user's message holds (a refused name would be an invented one)."""
    runner = make_runner(
        store,
        [
            say("I'm glad to hear that you enjoyed it. Your parrot is Brallhaette."),
            say("I'm sorry, but I don't know your blood group."),
            say("I'm glad you had fun!"),
            say("I'm sorry, but I don't know."),
            say("Thanks for telling me, rest well."),
        ],
    )
    store.core.set_value(runner.agent_id, "human", "Name: Guskleel\nParrot: Brallhaette")
    ask(runner, "Saw a brilliant octopus documentary yesterday.")
    ask(runner, "Do you remember my blood group?")
    ask(runner, "Went to a gig on the weekend.")
    openings = runner.backend.requests[2].avoid.openings
    assert ("i", "m", "glad", "to") in openings  # small talk may not open "I'm glad to" again
    assert ("your", "parrot", "is", "brallhaette") not in openings  # core memory holds "Brallhaette"
    assert not any(o[:3] == ("i", "m", "sorry") for o in openings)  # a denial's opening is free
    held = ask(runner, "What a long day.")
    assert [h.reason for h in held.holds] == ["unasked_denial"]
    assert runner.backend.requests[3].avoid.openings and not runner.backend.requests[4].avoid.openings
    off = make_runner(
        store, [say("I'm glad to hear that you enjoyed it."), say("Nice!")], name="off", reply_fresh_openings=False
    )
    ask(off, "Saw a documentary.")
    ask(off, "Went to a gig.")
    assert off.backend.requests[1].avoid.openings == frozenset()


def test_an_answer_begun_with_its_label_still_ends_before_a_formula(store):
    """``answer_start`` begins the answer "Your home" (no sentence, unlike a greeting's "Hello
    Dana!"), so a formula after the answer's first sentence is cut as in any reply."""
    formula = "What do you like about it?"
    runner = make_runner(store, [say(f"Moving is big news! {formula}"), say(f"Your home is Leeds. {formula}")])
    store.core.set_value(runner.agent_id, "human", "Name: Dana\nHome: Leeds")
    ask(runner, "I moved to Leeds.")
    assert ask(runner, "Which town am I living in now?").messages == ["Your home is Leeds."]
    request = runner.backend.requests[1]
    assert request.grammar.message_start == "Your home" and request.avoid.formulas


def test_no_formula_is_cut_when_the_setting_is_off(store):
    """Off, the formula reaches the repeat guard, which holds the whole draft for another."""
    formula = "Tell me all about how he is doing."
    runner = make_runner(
        store,
        [say(f"Lovely! {formula}"), say(f"A new town, how exciting! {formula}"), say("Leeds, how lovely!")],
        reply_formula_words=0,
    )
    ask(runner, "My parrot is called Brallhaette.")
    turn = ask(runner, "We finally moved to Leeds.")
    assert [h.reason for h in turn.holds] == ["repeat_guard"] and turn.messages == ["Leeds, how lovely!"]
    assert runner.backend.requests[1].avoid.formulas == frozenset()


def test_an_answer_begun_from_a_core_line_ends_after_its_first_sentence(store):
    """Eval chat seed 16: "Your favorite band is Sheldeens. Sheldeens is a Swedish rock band that
    formed in 1988 ..." (300 invented tokens). The sampler closes the answer after one sentence;
    what a backend without that stop writes after it is cut."""
    runner = make_runner(store, [say("Your band is the Sheldeens. They formed in 1988 in Malmo.")])
    store.core.set_value(runner.agent_id, "human", "Name: Ana\nBand: Sheldeens")
    turn = ask(runner, "Which band do I like?")
    assert turn.messages == ["Your band is the Sheldeens."]
    assert runner.backend.requests[0].avoid is not None and runner.backend.requests[0].avoid.max_sentences == 1
    two = make_runner(store, [say("Your band is the Sheldeens. You live in Leeds.")], name="two")
    store.core.set_value(two.agent_id, "human", "Name: Ana\nBand: Sheldeens\nHome: Leeds")
    both = ask(two, "Which band do I like, and where do I live?")  # two questions: no limit
    assert both.messages == ["Your band is the Sheldeens. You live in Leeds."]


def test_a_line_copied_from_a_memory_update_notice_is_appended_without_its_mark(store):
    """A `make run` chat (stop 54): the model appended "saved: Wife: Michiko, passed away two
    years ago this winter. ..." to the human block, the notice's "saved: " and all."""
    line = "Wife: Michiko, passed away two years ago this winter."
    runner = make_runner(
        store, [call("core_memory_append", label="human", content=f"saved: {line}", heartbeat=True), say("I'm sorry.")]
    )
    store.core.set_value(runner.agent_id, "human", "Name: Kenji")
    ask(runner, "My wife Michiko passed away two years ago this winter.")
    assert store.core.get(runner.agent_id, "human").value == f"Name: Kenji\n{line}"


def test_a_weekday_said_twice_over_goes_out_once(store):
    """A `make run` chat (stop 54) greeted "I know you have a grandson who is coming over on
    Saturday, Saturday 12 December." (the user's day, then the login notice's)."""
    runner = make_runner(store, [say("Leo is coming over on Saturday, Saturday 12 December. Lovely!")])
    assert ask(runner, "When is Leo coming?").messages == ["Leo is coming over on Saturday 12 December. Lovely!"]


def test_a_reply_before_a_copy_of_the_users_message_goes_out_as_it_was(store):
    said = "Leo's visit got moved to Sunday, Yuki has a shift on Saturday after all."
    kept = "Oh, what a shame. I hope you can make time for Leo on Sunday."
    runner = make_runner(store, [say(f"{kept} Yuki has a shift on Saturday after all."), say(kept)])
    turn = ask(runner, said)
    assert turn.messages == [kept]
    assert runner.backend.requests[1].grammar.message_start == kept  # the redraft may only be what it was


def test_a_greeting_is_three_sentences_at_most(store):
    """A `make run` chat (stop 54): a redrafted greeting listed eleven notes, a wife's death among
    them, over a minute of decoding."""
    long = "Hello Dana! Welcome back. I know you keep bees on the roof. I know your sister Ana visits. I know more."
    runner = make_runner(store, [say(long)])
    store.core.set_value(runner.agent_id, "human", "Name: Dana\nHobby: bees on the roof")
    turn = runner.run_turn(runner.login_event())
    assert turn.messages == ["Hello Dana! Welcome back. I know you keep bees on the roof."]
    assert runner.backend.requests[0].avoid is not None and runner.backend.requests[0].avoid.max_sentences == 3


def test_a_reply_ends_before_the_offer_of_help_turned_round(store):
    """A `make run` chat (stop 58): "Hi, I'm Tomás. I teach year 4 at a primary school in
    Valencia." was answered "That's great to hear! How can you help me today?"."""
    runner = make_runner(store, [say("That's great to hear! How can you help me today?")])
    turn = runner.run_turn(events.user_message("Hi, I'm Tomás. I teach year 4 at a primary school in Valencia."))
    assert turn.messages == ["That's great to hear!"]


def test_a_greeting_ends_before_a_sentence_of_the_persona(store):
    """A `make run` chat (stop 58), at two logins: "Hello Tomás! ... I remember what matters from our
    conversations and look things up in my memory before guessing, ..."."""
    greeting = "Hello Dana! How are the beehives?"
    runner = make_runner(store, [say(f"{greeting} I remember what matters from our conversations.")])
    store.core.set_value(runner.agent_id, "human", "Name: Dana\nHobby: three beehives")
    assert runner.run_turn(runner.login_event()).messages == [greeting]


def test_a_reply_in_another_language_to_english_is_written_again_in_english(store):
    """A `make run` chat (stop 60): one "Olá!" in an English introduction, and the assistant wrote
    Portuguese for the rest of the session."""
    runner = make_runner(
        store, [say("Olá! Como posso ajudar você hoje?"), say("Lovely to meet you, Beatriz! How is retirement?")]
    )
    turn = ask(runner, "Olá! I'm Beatriz, a retired architect living in Lisbon with my husband Jorge.")
    assert turn.messages == ["Lovely to meet you, Beatriz! How is retirement?"]
    assert [s.held for s in turn.steps] == [True, False]


def test_a_reply_to_news_asks_one_question_and_an_answer_is_not_cut(store):
    """A `make run` chat (stop 63): told "Hello! My name is Ilse, I'm a vet in Utrecht and I cycle
    to work every day, rain or shine.", the reply asked "How do you like cycling? Do you have any
    favorite routes? I'd love to hear about it." A reply to a message that asks nothing ends after
    its first question; a reply to a question or a request is not cut."""
    script = [
        say("That's lovely! How do you like cycling? Do you have any favorite routes? I'd love to hear."),
        say("I do! Do you ride far? Is it flat there?"),
        say("Nice. Which bike is it? Is it new?"),
        say("Why did the bike fall over? It was two tired. Get it?"),
    ]
    runner = make_runner(store, script)
    told = ask(runner, "I'm a vet in Utrecht and I cycle to work every day, rain or shine.")
    assert told.messages == ["That's lovely! How do you like cycling?"]
    assert ask(runner, "Do you like cycling?").messages == ["I do! Do you ride far? Is it flat there?"]
    runner.settings.reply_max_questions = 0
    assert ask(runner, "I got a bike.").messages == ["Nice. Which bike is it? Is it new?"]  # the limit is a setting
    runner.settings.reply_max_questions = 1
    joke = ask(runner, "tell me a joke about bikes").messages
    assert joke == ["Why did the bike fall over? It was two tired. Get it?"]


def test_a_greeting_asks_after_the_same_one_at_every_login_uncut(store):
    """A greeting forced to begin "Hello Dana! How is your mum" at a second login about the same
    note was cut back to "Hello Dana!": the forced start's own sentence had become a formula (stop
    64). It is none; the greeting ends after its question (``agent.reply_max_questions``)."""
    runner = make_runner(store, [])
    store.core.set_value(runner.agent_id, "human", "Name: Dana\nMum: flying in on the 19th (2026-12-19)")
    first = "Hello Dana! How is your mum? She is flying in soon."
    again = "Hello Dana! How is your mum? Is she flying in on the 19th?"
    runner.backend.enqueue(say(first), say("Sure."), say(again))
    assert runner.run_turn(runner.login_event()).messages == [first]
    ask(runner, "Indeed.")
    assert runner.run_turn(runner.login_event()).messages == ["Hello Dana! How is your mum?"]
