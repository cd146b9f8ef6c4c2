"""Fact notes: the facts a user states reach the human block after the reply, checked against
the user's own words; a changed fact replaces its line; an overflowing block moves its oldest
lines to archival memory."""

import json
from datetime import datetime, timezone

import pytest
from agent_helpers import ask, make_runner, say
from store_sql import STORE_KINDS

from memgpt_local.agent.fact_homes import childhood_home
from memgpt_local.agent.fact_lines import glued_label, grounded, label_of, states_something_personal
from memgpt_local.agent.fact_merge import merge
from memgpt_local.agent.fact_owners import (
    refiled,
    relatives_not_their_things,
    said_relations,
    unheard_kin,
    unheard_kin_told_of,
)
from memgpt_local.agent.fact_wording import as_note
from memgpt_local.agent.facts import (
    NOTES_EXAMPLES,
    FactNoter,
    carry_days,
    keep_owners,
    new_ages,
    notes_prompt,
    parse_notes,
    undated_plans,
)
from memgpt_local.cli.session import ensure_agent
from memgpt_local.config import FactNoteSettings, Settings
from memgpt_local.schemas import ChatMessage


@pytest.fixture(params=STORE_KINDS)
def store_kind(request) -> str:
    """Every test here runs on the memory file and on a Postgres database."""
    return request.param


def test_a_value_must_come_from_the_users_words():
    said = "Hi! I'm Dana. I keep three beehives on my roof in Leeds and I teach maths."
    assert grounded("Name: Dana", said)
    assert grounded("Beehives: three, on the roof", said)
    # a number in words the user never said (the plan example's "sixtieth", a `make run` chat, stop 50)
    assert not grounded("Mum's birthday: Abena's sixtieth birthday on the 3rd", "my mum Abena, her birthday on the 3rd")
    assert grounded("Home: Leeds", said)
    assert grounded("Keeps: three beehives on the roof", said)
    assert grounded("Job: teacher of maths", said)  # words compared by their first four letters
    assert not grounded("Age: 30", said)  # a number never said
    assert not grounded("Home: York", said)  # a name never said
    assert not grounded("Pet: a lovely golden dog", said)  # most words never said
    assert not grounded("Likes: beehives, cooking", said)  # "cooking" was never said
    assert grounded("Bees: three beehives kept on the roof", said)  # "kept": one word in four
    wedding = "Good news, my sister Ola set the wedding date: June 14th. Also, I can't eat peanuts, I'm allergic."
    assert grounded("Sister: Ola, set the wedding date for June 14", wedding)  # "14th" said
    assert grounded("Allergy: peanuts, I'm allergic", wedding)  # "I'm" is no name
    assert not grounded("Sister: Ola, wedding on June 15", wedding)
    # a trait said as an adjective, written as "Label: yes": its label must have been said
    assert grounded("Vegetarianism: yes", "Oh, and I'm vegetarian, and my brother Piotr is visiting.")
    assert not grounded("Vegan: yes", "Oh, and I'm vegetarian.") and not grounded("Smoker: yes", said)


def test_a_day_alone_that_another_line_holds_is_not_written():
    from memgpt_local.agent.fact_lines import without_bare_days

    pair = ["Stay: Saturday (2026-12-05)", "Guest: comes to stay on Saturday (2026-12-05)"]  # eval chat seed 14
    assert without_bare_days(pair) == pair[1:]
    assert without_bare_days(["Stay: Saturday"]) == ["Stay: Saturday"]  # nothing else holds the day
    assert without_bare_days(["Birthday: 5 May", "Party: on 5 May"]) == ["Birthday: 5 May", "Party: on 5 May"]
    # a `make run` chat (stop 51): the trip's hiking had a line of its own, left in the old week when the trip moved
    trip = ["Trip: to the Azores next week (week of 2026-12-07)", "Hiking: planned for next week (week of 2026-12-07)"]
    assert without_bare_days(trip) == ["Trip: to the Azores next week (week of 2026-12-07); hiking"]
    # the user's own day is not joined to someone else's line
    dentist = ["Dentist: tomorrow (2026-12-07)", "Sister: Ana, visiting tomorrow (2026-12-07)"]
    assert without_bare_days(dentist) == dentist
    lagos = ["Trip: to Lagos to see parents (on the 19th, 2026-12-19)", "Trip date: on the 19th (2026-12-19)"]
    assert without_bare_days(lagos) == lagos[:1]  # not "...; trip date" (stop 51)


def test_a_passing_state_is_no_fact():
    from memgpt_local.agent.fact_lines import passing_state

    assert passing_state("Health: wiped out") and passing_state("Mood: so tired today")
    assert passing_state("Feeling: a bit stressed")
    assert not passing_state("Health: can't eat gluten") and not passing_state("Work: nurse, busy ward")
    assert not passing_state("Sleep: a night owl") and not passing_state("Name: Dana")
    # only how good it was (eval chat seed 14: "Favorite music: amazing" for "they were amazing")
    assert passing_state("Favorite music: amazing") and not passing_state("Music: amazing jazz trio")
    # a label that files a feeling (a `make run` chat, stop 42: "she is missing Camille")
    assert passing_state("Missing: Camille") and passing_state("Worries: the exam")
    assert not passing_state("Daughter: Camille, misses home") and not passing_state("Missing cat: Tigger")
    # someone's feeling is passing too (a `make run` chat, stop 47)
    assert passing_state("Maya's nervousness: about it") and not passing_state("Maya's job: painter")
    # the day's news (a `make run` chat, stop 51: after a night shift)
    assert passing_state("Admissions: two at 4am") and passing_state("Breakfast: pastel de nata")
    assert not passing_state("Breakfast: porridge every morning") and not passing_state("Favourite lunch: ramen")
    assert not passing_state("Dentist: tomorrow at 4pm (2026-12-07)") and not passing_state("Birthday: 5 May")
    # a feeling about something (a `make run` chat, stop 52)
    assert passing_state("Health: nervous about Henri's operation") and passing_state("Exam: a bit worried about it")
    assert not passing_state("Fear: spiders") and not passing_state("Hobby: excited dogs training")
    # how the mind fares today (a `make run` chat, stop 53)
    assert passing_state("Brain: mush after nights") and not passing_state("Brain injury: concussion in 2019")


def test_lines_are_parsed_and_labels_normalised():
    assert parse_notes('{"facts": ["Name: Dana", "no label here", " Tea:  lapsang  souchong "]}') == [
        "Name: Dana",
        "Tea: lapsang souchong",
    ]
    assert parse_notes("not json") == [] and parse_notes('{"facts": "Name: Dana"}') == []
    assert label_of("Favourite  Tea: lapsang") == "favourite tea" and label_of("Tea:") is None


def test_a_changed_fact_replaces_its_line_and_the_same_fact_changes_nothing():
    said = "I'm Dana, we moved to York in May, and I love lapsang tea."
    value, notes = merge("Name: Dana\nHome: Leeds", ["Home: York", "Name: Dana", "Tea: lapsang"], 2000, said)
    assert value == "Name: Dana\nHome: York\nTea: lapsang"
    assert notes.replaced == [("Home: Leeds", "Home: York")] and notes.added == ["Tea: lapsang"]
    assert notes.lines() == ["saved: Tea: lapsang", "changed: Home: Leeds -> Home: York"]


@pytest.mark.parametrize(
    "said",
    [
        "We finally left Leeds. I live in York now.",
        "These days I'm based in York.",
        "Actually, it's York, not Leeds.",
        "I'm no longer in Leeds: I've relocated to York for the job.",
    ],
)
def test_a_saved_line_changes_when_the_user_says_it_changed(said):
    value, notes = merge("Name: Dana\nHome: Leeds", ["Home: York"], 2000, said)
    assert value == "Name: Dana\nHome: York" and notes.replaced == [("Home: Leeds", "Home: York")]


@pytest.mark.parametrize(
    ("saved", "line", "said"),
    [
        (
            "Work: paramedic in Utrecht",
            "Work: two car crashes back to back",
            "Rough shift, two car crashes back to back.",
        ),
        ("Home: Leeds", "Home: freezing, the boiler broke", "Home is freezing today, the boiler broke."),
        ("Pet: Pixel, a grey cat", "Pet: knocked a plant off the shelf", "My cat knocked a plant off the shelf!"),
    ],
)
def test_a_days_event_filed_under_a_saved_label_leaves_the_saved_line_alone(saved, line, said):
    """smollm2 and qwen alike fit what happened today under the label of a saved fact: the
    job a user told months ago was replaced by one shift's events."""
    value, notes = merge(f"Name: Dana\n{saved}", [line], 2000, said)
    assert value == f"Name: Dana\n{saved}" and notes.kept == [(saved, line)] and not notes.changed


def test_a_line_of_many_values_gathers_a_new_one_and_changes_only_when_the_old_one_ends():
    """eval chat seed 22: "I've taken up pottery in the evenings." left "Hobby: ..." as it was,
    and the new hobby was lost."""
    said = "I've taken up pottery in the evenings."
    value, notes = merge("Name: Dana\nHobby: running", ["Hobby: pottery in the evenings"], 2000, said)
    assert value == "Name: Dana\nHobby: running; pottery in the evenings" and not notes.kept
    assert notes.replaced == [("Hobby: running", "Hobby: running; pottery in the evenings")]
    value, _ = merge("Name: Dana\nHobby: running", ["Hobby: pottery"], 2000, "I quit running, pottery now.")
    assert value == "Name: Dana\nHobby: pottery"
    value, notes = merge("Name: Dana\nWork: nurse", ["Work: night shift"], 2000, "Rough night shift.")
    assert value == "Name: Dana\nWork: nurse" and notes.kept  # one job: a day's event leaves it


def test_a_part_of_a_saved_line_said_again_changes_nothing_and_more_detail_replaces_it():
    said = "Pixel is my cat. We live in Poznan, near the park."
    value, notes = merge(
        "Pet: Pixel (grey cat)\nHome: Poznan", ["Pet: Pixel", "Home: Poznan, near the park"], 2000, said
    )
    assert value == "Pet: Pixel (grey cat)\nHome: Poznan, near the park"
    assert notes.replaced == [("Home: Poznan", "Home: Poznan, near the park")] and not notes.added


def test_the_notes_prompt_shows_examples_then_the_message_and_the_newest_saved_lines():
    prompt = notes_prompt(["Name: Dana", "Home: Leeds"], "My sister Ola is getting married in June.")
    assert [m.role for m in prompt[:3]] == ["system", "user", "assistant"] and prompt[-1].role == "user"
    assert len(prompt) == 2 + 2 * len(NOTES_EXAMPLES)
    assert prompt[-1].content.startswith('Message: "My sister Ola is getting married in June."')
    assert prompt[-1].content.endswith("Name: Dana\nHome: Leeds")
    for message in prompt[2::2]:  # every example answer is a valid notes completion
        assert parse_notes(message.content) or message.content == '{"facts": []}'


def test_the_packaged_placeholder_goes_and_a_full_block_moves_its_oldest_lines_out():
    value, notes = merge("Nothing is known about the user yet.", ["Name: Dana"], 2000, "I'm Dana.")
    assert value == "Name: Dana" and notes.added == ["Name: Dana"]
    value, notes = merge("Pet: a cat\nHome: Leeds", ["Tea: lapsang souchong"], 35, "I love lapsang souchong tea.")
    assert value == "Home: Leeds\nTea: lapsang souchong" and notes.moved == ["Pet: a cat"]


def test_only_a_message_about_its_writer_is_read():
    assert states_something_personal("I'm Dana") and states_something_personal("my dog is old")
    assert states_something_personal("Hello there, Dana here. Nurse by trade, based in Leeds.")
    assert not states_something_personal("Saw a brilliant octopus documentary yesterday.")
    assert not states_something_personal("Any tips for sleeping better? Thanks.")
    assert not states_something_personal("Which book did Ann Lee write in 2019?")
    # questions state nothing, even about the user ("Name: Brother" once replaced the name)
    assert not states_something_personal("Hey, what's the name of my brother again?")
    assert not states_something_personal("What do I do for a living? And where do I live?")
    assert states_something_personal("I'm Dana, could you help me plan my week?")  # a statement first
    assert states_something_personal("I moved to York. Do you know any good cafes?")
    # a bare request states nothing ("Funk bass lines: a numbered list of ten", a `make run` chat, stop 46)
    assert not states_something_personal("Ha, yes. Give me a numbered list of ten funk bass lines I should learn.")
    assert not states_something_personal("Could you list eight famous funk bassists for me, numbered.")
    assert states_something_personal("Give me ideas for my sister Meera's birthday on Friday.")  # names her
    assert states_something_personal("Give me a hand. My back hurts.")  # the second sentence states
    # nor one asked without a question mark (a `make run` chat, stop 59: "Chess game: with her this Sunday")
    assert not states_something_personal("any ideas for a chess thing i could do with her this sunday")
    assert states_something_personal("any tips for my knee, im having surgery in march")  # a clause states
    assert states_something_personal("Any ideas for Tom's birthday on Friday")  # names him
    # a sentence that leaves out its subject speaks of its writer; the weather does not
    assert states_something_personal("Off to the dentist tomorrow, wish me luck.")
    assert states_something_personal("flying to oslo on friday")
    assert not states_something_personal("Raining again tomorrow.")
    assert not states_something_personal("Swimming is fun.")


def test_plans_said_without_an_i_are_the_writers():
    from datetime import datetime

    said = "Off to the dentist tomorrow. The shop opens on Friday."
    plans = undated_plans(["Mood: fine"], said, datetime.fromisoformat(THURSDAY))
    assert [(m.phrase, m.value) for m in plans] == [("tomorrow", "2026-12-04")]  # not the shop's Friday


def test_only_the_statements_of_a_message_are_read_for_facts():
    from memgpt_local.text import statements

    assert statements("I moved to York. Do you know any good cafes?") == "I moved to York."
    assert statements("Hey, what's my sister's name? Oh, and I'm vegetarian!") == "Oh, and I'm vegetarian!"
    assert statements("my tortoise?") == "my tortoise?"  # speaks of its writer: not read as a question


def test_after_the_reply_the_facts_said_reach_the_human_block_and_the_model_sees_it(store):
    runner = make_runner(
        store,
        [
            say("Nice to meet you, Dana!"),
            '{"facts": ["Name: Dana", "Home: Leeds", "Age: 30"]}',
            say("Hello again."),  # a question about the weather: not read for facts
            say("York, lovely!"),
            '{"facts": ["Home: York"]}',
        ],
        fact_notes={"enabled": True},
    )
    turn = ask(runner, "Hi, I'm Dana and I live in Leeds.")
    assert turn.messages == ["Nice to meet you, Dana!"]
    assert turn.notes == ["saved: Name: Dana", "saved: Home: Leeds"]  # "Age: 30" was never said
    assert store.core.get(runner.agent_id, "human").value == "Name: Dana\nHome: Leeds"
    notes_request = runner.backend.requests[1]
    assert notes_request.grammar is not None and notes_request.grammar.kind == "json"
    asked = notes_request.messages[-1].content  # its own prompt: the message, then the lines saved so far
    assert asked == 'Message: "Hi, I\'m Dana and I live in Leeds."\nAlready saved, do not repeat:\n(nothing yet)'
    assert notes_request.messages[0].role == "system" and "notes" in notes_request.messages[0].content
    assert ask(runner, "Is it raining in Paris?").notes == []
    assert ask(runner, "We moved to York last week!").notes == ["changed: Home: Leeds -> Home: York"]
    assert runner.backend.requests[-1].messages[-1].content.endswith("do not repeat:\nName: Dana\nHome: Leeds")
    assert store.core.get(runner.agent_id, "human").value == "Name: Dana\nHome: York"
    update = [m for m in store.recall.in_context(runner.agent_id) if m.content.startswith("[memory update")]
    assert len(update) == 2 and "changed: Home: Leeds -> Home: York" in update[-1].content


def test_a_login_quotes_what_core_memory_knows_so_the_greeting_can_use_it(store):
    runner = make_runner(store, [say("Hello! What's your name?"), say("Hi Dana, how are the bees?")])
    first = runner.login_event()
    assert "first time" in first.content and "greet them and ask it" in first.content
    runner.run_turn(first)
    store.core.set_value(runner.agent_id, "human", "Name: Dana\nKeeps: three beehives")
    again = runner.login_event()
    assert again.content.endswith(
        "(their facts, not yours):\nName: Dana\nKeeps: three beehives\n"
        "Mention this one in your greeting: you keep three beehives."
    )
    assert "Greet the user by their name and mention one thing you know about them." in again.content
    # a long block: the name line is always listed, then the newest of the others
    lines = ["Name: Dana", *(f"Fact {i}: value {i}" for i in range(12))]
    store.core.set_value(runner.agent_id, "human", "\n".join(lines))
    listed = runner.login_event().content.split("(their facts, not yours):\n")[1].splitlines()
    assert listed == ["Name: Dana", *lines[-7:], "Mention this one in your greeting: your fact 11 - value 11."]
    # a plan near ahead is greeted with, wherever its line is, and listed (a `make run` chat, stop 63:
    # a changed work line kept its old place and the login asked about a flatmate's pasta)
    from datetime import datetime

    near = "Work: bookshop, starting on Monday (2026-12-14)"
    store.core.set_value(runner.agent_id, "human", "\n".join([lines[0], near, *lines[1:]]))
    listed = runner.login_event(datetime.fromisoformat("2026-12-07T12:00:00+00:00")).content.splitlines()
    listed = listed[listed.index("Name: Dana") :]
    assert listed[:2] == ["Name: Dana", "Work: bookshop, starting on Monday 14 December"] and len(listed) == 9
    assert (
        listed[-1]
        == "Mention this one in your greeting: your work - bookshop, starting on Monday 14 December, in 7 days."
    )
    # a line saved in the user's own voice (before stop 31) is quoted as a note about them
    store.core.set_value(runner.agent_id, "human", "Name: Dana\nHobby: I keep three beehives on my roof")
    assert runner.login_event().content.endswith(
        "Mention this one in your greeting: your hobby - keep three beehives on their roof."
    )
    # days as a person says them: a greeting copied "(2026-12-08)" to the user
    store.core.set_value(runner.agent_id, "human", "Name: Dana\nDaughter: Ines, turns 7 next Tuesday (2026-12-08)")
    quoted = runner.login_event(datetime.fromisoformat("2026-12-03T12:00:00+00:00")).content
    assert "Daughter: Ines, turns 7 next Tuesday 8 December\n" in quoted
    assert quoted.endswith("your daughter Ines turns 7 next Tuesday 8 December, in 5 days.")


@pytest.mark.real_model
def test_the_notes_pass_runs_in_a_side_context_and_leaves_the_conversation_cached(smollm_path, store):
    from memgpt_local.runtime.llama import LlamaCppBackend

    backend = LlamaCppBackend(smollm_path, n_ctx=2048, n_threads=2, name="smollm2-135m")
    try:
        agent = ensure_agent(store, "dana", Settings())
        noter = FactNoter(store, backend, agent.id, FactNoteSettings(enabled=True))
        side = noter.side_backend()
        assert side is not backend and side is backend.side_context(4096) and side.n_ctx == 2048
        chat = [ChatMessage(role="system", content="You are helpful."), ChatMessage(role="user", content="Hi there!")]
        first = backend.complete(chat, grammar=None, max_tokens=8)
        noter.note("Hi, I'm Dana and I keep three beehives in Leeds.")
        again = backend.complete(chat, grammar=None, max_tokens=8)
        assert again.evaluated_tokens == 1 and again.text == first.text  # the conversation's cache is intact
        assert side.count_tokens(notes_prompt([], "x")) < side.n_ctx
    finally:
        backend.close()


def test_a_pass_that_only_copies_the_saved_lines_is_asked_again_without_them(store):
    runner = make_runner(
        store,
        [
            say("Hi Dana!"),
            '{"facts": ["Name: Dana"]}',
            say("Lovely."),
            '{"facts": ["Name: Dana"]}',  # the saved line, copied out instead of the new fact
            '{"facts": ["Tea: lapsang souchong"]}',
        ],
        fact_notes={"enabled": True},
    )
    assert ask(runner, "I'm Dana.").notes == ["saved: Name: Dana"]
    assert ask(runner, "My favourite tea is lapsang souchong.").notes == ["saved: Tea: lapsang souchong"]
    again = runner.backend.requests[-1].messages[-1].content
    assert again.endswith("do not repeat:\n(nothing yet)")  # the second pass saw no saved lines


def test_a_pass_that_spends_its_items_on_saved_lines_is_asked_again_for_new_labels(store):
    """A `make run` chat (stop 45): "I've taken up bouldering on Tuesdays. Also my sister Meera
    is coming to stay ..." got three saved lines copied out and the sister; the hobby was lost."""
    runner = make_runner(
        store,
        [
            say("Hi Dana!"),
            '{"facts": ["Name: Dana", "Work: vet", "Pet: Rex"]}',
            say("Lovely."),
            '{"facts": ["Name: Dana", "Work: vet", "Sister: Meera, coming to stay"]}',
            '{"facts": ["Hobby: bouldering on Tuesdays", "Sister: Meera, lives in Leeds"]}',
        ],
        fact_notes={"enabled": True},
    )
    ask(runner, "I'm Dana, a vet, and I have a dog called Rex.")
    said = "I've taken up bouldering on Tuesdays. Also my sister Meera is coming to stay, she lives in Leeds."
    notes = ask(runner, said).notes
    assert notes == ["saved: Sister: Meera, coming to stay", "saved: Hobby: bouldering on Tuesdays"]
    assert runner.backend.requests[-1].messages[-1].content.endswith("do not repeat:\n(nothing yet)")


def test_a_relative_date_in_a_fact_gets_its_day_as_the_user_meant_it(store):
    from datetime import datetime, timezone

    runner = make_runner(
        store,
        [
            '{"facts": ["Sister: Kasia, visiting tomorrow"]}',
            '{"facts": ["Brother: Piotr, flies in on Friday"]}',
        ],
        fact_notes={"enabled": True},
    )
    wednesday = datetime(2026, 12, 2, 20, 0, tzinfo=timezone.utc)
    assert runner.facts.note("My sister Kasia is visiting tomorrow.", when=wednesday).lines() == [
        "saved: Sister: Kasia, visiting tomorrow (2026-12-03)"
    ]
    # "on Friday" alone would be the last Friday; the user's sentence says the next one
    notes = runner.facts.note("My brother Piotr will fly in on Friday.", when=wednesday)
    assert notes.lines() == ["saved: Brother: Piotr, flies in on Friday (2026-12-04)"]


def test_annotate_takes_a_phrases_date_from_the_sentence_it_was_said_in():
    from datetime import date

    from memgpt_local.memory.dates import annotate

    day = date(2026, 12, 2)  # a Wednesday
    assert annotate("visit on Friday", day) == "visit on Friday (2026-12-04)"  # no past form: the next one
    said = "She came to visit on Friday."
    assert annotate("visit on Friday", day, context=said) == "visit on Friday (2026-11-27)"  # as it was said
    assert annotate("moved last week (week of 2026-11-23)", day, context="We moved last week") == (
        "moved last week (week of 2026-11-23)"  # already dated
    )
    inside = annotate("Home: Cardiff (moved last weekend)", day)
    assert inside == "Home: Cardiff (moved last weekend, weekend of 2026-11-28)"  # no brackets in brackets
    assert annotate(inside, day) == inside


THURSDAY = "2026-12-03T18:00:00+00:00"


@pytest.mark.parametrize(
    "lines, said, written",
    [
        (  # the day goes to the one line of the plan's clause, not to the partner said before it
            ["Partner: Tom", "Adopted dog: greyhound"],
            "My partner Tom and I are adopting a greyhound next Saturday.",
            ["Partner: Tom", "Adopted dog: greyhound (next Saturday, 2026-12-05)"],
        ),
        (  # a day the line names bare gets its date beside it
            ["Coming to stay: Sunday for a week"],
            "My parents are coming to stay on Sunday for a week.",
            ["Coming to stay: Sunday (2026-12-06) for a week"],
        ),
        (  # two lines share the clause: the day may be either's, so neither gets it
            ["Brother: Rui", "Rui's home: Lisbon"],
            "My brother Rui is flying in from Lisbon on Friday.",
            ["Brother: Rui", "Rui's home: Lisbon"],
        ),
        (  # a past day is an event, not a plan
            ["Dog: Nova, a greyhound"],
            "We adopted a greyhound yesterday, she's called Nova.",
            ["Dog: Nova, a greyhound"],
        ),
        (  # already dated by the model's own words
            ["Brother: Rui, flying in on Friday (2026-12-04)"],
            "My brother Rui is flying in on Friday.",
            ["Brother: Rui, flying in on Friday (2026-12-04)"],
        ),
        (  # "won't" is the user's surprise, not the future: the Tuesday is a past one
            ["Students: two set a lab bench on fire"],
            "You won't believe it, two of my students set a lab bench on fire on Tuesday.",
            ["Students: two set a lab bench on fire"],
        ),
        (  # a `make run` chat: a month, and a day in the present simple (the Thursday after, not before)
            ["Tickets: to see Radiohead", "Brother: Pawel, starts his new job"],
            "Got tickets to see Radiohead next June, and my brother Pawel starts his new job on Thursday.",
            [
                "Tickets: to see Radiohead (next June, 2027-06)",
                "Brother: Pawel, starts his new job (on Thursday, 2026-12-10)",
            ],
        ),
        (  # the line names him and says something else: the plan is written with its day, not the day
            # alone ("Brother: Callum, lives in Aberdeen (next weekend, ...)" read as his home next
            # weekend, a `make run` chat at stop 44)
            ["Brother: Callum, lives in Aberdeen"],
            "My brother Callum is coming to stay next weekend, he lives in Aberdeen.",
            ["Brother: Callum, lives in Aberdeen; coming to stay next weekend (weekend of 2026-12-12)"],
        ),
        (  # a line that is only a name goes on after a comma (eval chat seed 22 wrote "Faxvais;")
            ["Brother: Faxvais"],
            "My brother Faxvais is visiting next weekend.",
            ["Brother: Faxvais, visiting next weekend (weekend of 2026-12-12)"],
        ),
        (  # a `make run` chat (stop 52): what happens on the day is kept, not the day alone
            ["Daughter: Amina"],
            "My daughter Amina turns nine on Saturday, so we're planning a party.",
            ["Daughter: Amina, turns nine on Saturday (2026-12-05)"],
        ),
        (
            ["Son: Karim"],
            "my son Karim plays in a chess tournament next Sunday",
            ["Son: Karim, plays in a chess tournament next Sunday (2026-12-06)"],
        ),
        (  # the day's clause says nothing of the line
            ["Work: runs a bookshop"],
            "I run a bookshop, and my sister visits next week.",
            ["Work: runs a bookshop"],
        ),
    ],
)
def test_a_plans_day_left_out_of_its_line_is_written_onto_it(lines, said, written):
    from datetime import datetime

    assert carry_days(lines, said, datetime.fromisoformat(THURSDAY)) == written


def test_the_notes_pass_saves_a_plan_with_its_day(store):
    from datetime import datetime

    runner = make_runner(store, ['{"facts": ["Name: Joanna", "Adopted dog: greyhound"]}'], fact_notes={"enabled": True})
    notes = runner.facts.note(
        "I'm Joanna, and my partner and I are adopting a greyhound next Saturday.",
        when=datetime.fromisoformat(THURSDAY),
    )
    assert notes.lines() == ["saved: Name: Joanna", "saved: Adopted dog: greyhound (next Saturday, 2026-12-05)"]


def test_a_plan_the_notes_left_out_is_asked_about_on_its_own(store):
    from datetime import datetime

    runner = make_runner(
        store,
        [
            '{"facts": []}',  # the notes pass wrote nothing for the interview
            '{"facts": ["Interview: at the hospital"]}',  # asked about "tomorrow" alone
            '{"facts": []}',
            '{"facts": ["Concert: Radiohead, bought tickets"]}',  # an invented detail is dropped
            '{"facts": []}',
        ],
        fact_notes={"enabled": True},
    )
    thursday = datetime.fromisoformat(THURSDAY)
    notes = runner.facts.note("I've got a job interview at the hospital tomorrow, wish me luck!", when=thursday)
    assert notes.lines() == ["saved: Interview: at the hospital (tomorrow, 2026-12-04)"]
    plan_ask = runner.backend.requests[1].messages
    # the plan's own clause, not the whole message
    assert plan_ask[-1].content == 'Message: "I\'ve got a job interview at the hospital tomorrow"\nDay: tomorrow'
    assert "Day: next Friday" in plan_ask[3].content
    notes = runner.facts.note("I'm seeing Radiohead tomorrow night.", when=thursday)
    assert notes.lines() == [] and notes.dropped == ["Concert: Radiohead, bought tickets"]
    # a past day, or a day in a sentence not about the user, asks nothing more
    runner.facts.note("I saw Radiohead last Monday. The shop opens next Monday.", when=thursday)
    assert len(runner.backend.requests) == 5


def test_a_letter_the_user_never_typed_is_no_fact():
    said = "My daughter Layla has her first ballet recital tomorrow. I'm more nervous than she is!"
    assert not grounded("Recital: Layla's first, Ahmed is more紧张", said)
    assert grounded("Home: Kraków", "I live in Kraków now.")  # letters the user typed are theirs


@pytest.mark.parametrize(
    "line, note",
    [
        ("Speech: I'm giving a speech", "Speech: giving a speech"),
        ("Work: I am a pharmacist in Leicester", "Work: a pharmacist in Leicester"),
        ("Pets: I've got two goats", "Pets: has two goats"),
        ("Car: I have a red Fiat", "Car: has a red Fiat"),
        ("Diet: I don't eat meat", "Diet: does not eat meat"),
        ("Work: I drive a bus in Glasgow", "Work: drive a bus in Glasgow"),
        ("Dog: we're adopting a greyhound", "Dog: adopting a greyhound"),
        ("Health: dairy does not agree with me", "Health: dairy does not agree with them"),
        ("Sister: Kasia, my twin", "Sister: Kasia, their twin"),
        # a value about the user already, and words that only look like "I"
        ("Home: Iowa City", "Home: Iowa City"),
        ("Work: nurse", "Work: nurse"),
        ("Speech: I'm", "Speech: I'm"),
        # a number in brackets after a name is an age, said as one (a `make run` chat, stop 60: "How old
        # is Inês?" was denied beside "Carla's children: Tiago (5) and Inês (2)")
        ("Carla's children: Tiago (5) and Inês (2)", "Carla's children: Tiago (age 5) and Inês (age 2)"),
        ("Trip: Rome in April (2027-04)", "Trip: Rome in April (2027-04)"),
        ("Phone: Nokia (3310)", "Phone: Nokia (3310)"),
    ],
)
def test_a_value_said_as_the_users_own_sentence_is_written_about_them(line, note):
    assert as_note(line) == note


@pytest.mark.parametrize(
    "line, plain",
    [  # labels seen in eval chat blocks (seed 13)
        ("Parrot's name: Drarkmeette", "Parrot: Drarkmeette"),
        ("Mushroom risotto is: their favourite dinner", "Favourite dinner: Mushroom risotto"),
        ("Mushroom risotto is: my favourite dinner", "Favourite dinner: Mushroom risotto"),
        ("Tiago is: coming on Saturday", "Tiago: coming on Saturday"),
        ("Sister's name: Ana", "Sister: Ana"),
        ("New home: Quaiweenbury", "Home: Quaiweenbury"),  # eval chat seed 25, beside "Home: Quaiweenbury"
        ("Current job: nurse", "Work: nurse"),
        ("Allergy to pollen: yes", "Allergy: pollen"),  # eval chat seed 27, beside "Allergy: pollen"
        ("Allergic to: yes", "Allergic to: yes"),
        ("New puppy: Rex", "New puppy: Rex"),  # only where the user lives or works
        # labels that say just their topic, and owners that are the user
        ("My name: Ana", "My name: Ana"),
        ("Name: Ana", "Name: Ana"),
        ("Grace's hip surgery: on Monday", "Grace's hip surgery: on Monday"),
        ("Island: Mallorca", "Island: Mallorca"),
        ("Cats are: their favourite animals to draw", "Cats: their favourite animals to draw"),  # no short label
    ],
)
def test_a_label_that_says_more_than_its_topic_is_made_plain(line, plain):
    from memgpt_local.agent.fact_wording import plain_label

    assert plain_label(line) == plain


def test_the_notes_pass_writes_no_line_in_the_users_voice(store):
    from datetime import datetime

    runner = make_runner(
        store,
        [
            '{"facts": ["Name: Priya", "Work: I\'m a pharmacist in Leicester", "Speech: I\'m giving a speech"]}',
            '{"facts": ["Wedding: my friend Nadia\'s, next Sunday"]}',  # the plan, asked about on its own
        ],
        fact_notes={"enabled": True},
    )
    notes = runner.facts.note(
        "Evening! I'm Priya, I'm a pharmacist in Leicester. My best friend Nadia is getting married next Sunday "
        "and I'm giving a speech.",
        when=datetime.fromisoformat(THURSDAY),
    )
    assert notes.lines() == [
        "saved: Name: Priya",
        "saved: Work: a pharmacist in Leicester",
        "saved: Speech: giving a speech",
        "saved: Wedding: their friend Nadia's, next Sunday (2026-12-06)",
    ]


@pytest.mark.parametrize(
    "lines, said, written",
    [
        (
            ["Mum: Grace", "Hip surgery: on Monday (2026-12-07)"],
            "My mum Grace is having hip surgery on Monday, so I'm a bit distracted.",
            ["Mum: Grace", "Grace's hip surgery: on Monday (2026-12-07)"],
        ),
        (
            ["Visit: tomorrow (2026-12-04)"],
            "My sister is visiting tomorrow!",
            ["Sister's visit: tomorrow (2026-12-04)"],
        ),
        (
            ["Visitor: flying in on Friday (2026-12-04)"],
            "Rui is flying in on Friday.",
            ["Visitor: Rui, flying in on Friday (2026-12-04)"],
        ),
        # the owner already named, the user's own plan, and a past day: unchanged
        (
            ["Wedding: Nadia's getting married next Sunday (2026-12-06)"],
            "My best friend Nadia is getting married next Sunday.",
            ["Wedding: Nadia's getting married next Sunday (2026-12-06)"],
        ),
        (
            ["Guest: comes to stay on Saturday (2026-12-05)"],  # eval chat seed 14: the name between commas
            "Pestia, my brother, comes to stay on Saturday.",
            ["Guest: Pestia, comes to stay on Saturday (2026-12-05)"],
        ),
        (["Trip: Lisbon (2026-12-11)"], "I'm flying to Lisbon next Friday.", ["Trip: Lisbon (2026-12-11)"]),
        (
            ["Trip: Oslo on Saturday (2026-12-05)"],
            "My sister is great, and I fly to Oslo on Saturday.",
            ["Trip: Oslo on Saturday (2026-12-05)"],
        ),
        (["Surgery: hip (2026-11-30)"], "My mum Grace had hip surgery on Monday.", ["Surgery: hip (2026-11-30)"]),
        # a thing of someone's, said by their name (a `make run` chat, stop 47), not a day's
        (
            ["Birthday: next Saturday (2026-12-05)"],
            "Sam's birthday is next Saturday and I have no idea what to get him.",
            ["Sam's birthday: next Saturday (2026-12-05)"],
        ),
        (["Match: Sunday (2026-12-06)"], "Sunday's match is at home.", ["Match: Sunday (2026-12-06)"]),
    ],
)
def test_someone_elses_plan_keeps_their_name(lines, said, written):
    from datetime import datetime

    assert keep_owners(lines, said, datetime.fromisoformat(THURSDAY)) == written


@pytest.mark.parametrize(
    ("lines", "said", "written"),
    [
        # a `make run` chat: the notes examples hold a son
        (
            ["Son: Ines", "Ines's age: 7 next Tuesday (2026-12-08)"],
            "I run a bike shop in Porto, and my daughter Ines turns seven next Tuesday.",
            ["Daughter: Ines", "Ines's age: 7 next Tuesday (2026-12-08)"],
        ),
        (["Brother's job: nurse (Sam)"], "My sister, Sam, is a nurse.", ["Sister's job: nurse (Sam)"]),
        # said as it was, a relation the user never gave the person, and someone unnamed: unchanged
        (["Daughter: Ines"], "My daughter Ines is seven.", ["Daughter: Ines"]),
        (["Friend: Rui"], "Rui and I go climbing.", ["Friend: Rui"]),
        (["Son: a toddler"], "My daughter Ines has a baby brother.", ["Son: a toddler"]),
        (["Sons: Leo and Max"], "My sons Leo and Max play chess.", ["Sons: Leo and Max"]),
        # the relation said of another, the name said of this one (a `make run` chat, stop 59)
        (
            ["Mother: Efua, works as a pharmacist", "Mother: flying in from Accra next Friday"],
            "My wife's called Efua, she works as a pharmacist. My mother is flying in from Accra next Friday.",
            ["Wife: Efua, works as a pharmacist", "Mother: flying in from Accra next Friday"],
        ),
        (["Mum: Abena"], "My mum is called Abena.", ["Mum: Abena"]),
    ],
)
def test_a_relation_the_user_gave_someone_else_is_put_right(lines, said, written):
    assert said_relations(lines, said) == written


@pytest.mark.parametrize(
    ("lines", "said", "written"),
    [
        # a `make run` chat (stop 56)
        (
            ["Son: Kuba's football team", "Partner: Ewa"],
            "My partner Ewa coaches our son Kuba's football team.",
            ["Son: Kuba", "Partner: Ewa"],
        ),
        (["Sister: Mia's wedding in May"], "It's my sister Mia's wedding in May.", ["Sister: Mia"]),
        # someone else's relative, another relation, or the person's own line: unchanged
        (["Kuba's team: Rovers"], "Our son Kuba's team is Rovers.", ["Kuba's team: Rovers"]),
        (["Son: Kuba's friend Olek"], "Kuba's friend Olek came over.", ["Son: Kuba's friend Olek"]),
        (["Daughter: Mia's wedding"], "My sister Mia's wedding is in May.", ["Daughter: Mia's wedding"]),
    ],
)
def test_a_relative_is_not_filed_as_what_the_user_said_of_them(lines, said, written):
    assert relatives_not_their_things(lines, said) == written


@pytest.mark.parametrize(
    ("line", "said", "unheard"),
    [
        # a `make run` chat (stop 41): "he" was the brother of an earlier message
        (
            "Son: once drove dad's car into a pond",
            "We grew up in Wroclaw and he once drove my dad's car into a pond when he was sixteen.",
            True,
        ),
        ("Wife: Ola", "Ola and I went to Gdansk.", True),
        ("Mum: Ewa", "My mother Ewa is visiting.", False),  # another word for the same relative
        ("Sister: Ola", "My sisters are coming for Christmas.", False),
        ("Dad: drives a Skoda", "My dad's car is a Skoda.", False),
        ("Guest: Pestia, comes to stay", "Pestia, my brother, comes to stay.", False),  # no relative's word
        ("Home: Wroclaw", "We grew up in Wroclaw.", False),
        # nor one of the other sex (a `make run` chat, stop 62)
        (
            "Son: daughter's under-12 football team",
            "I teach PE and coach my daughter's under-12 football team on Saturdays.",
            True,
        ),
        ("Brother: Tom", "My sister is visiting.", True),
        ("Husband: Rui", "My wife Rui is a sound engineer.", True),
        ("Son: Tom", "My kids Tom and Ella are at school.", False),  # a word of both
        ("Sons: Tom and Joe", "My boys are at school.", False),
        ("Sister: Ola", "My sister and her twin came.", False),
    ],
)
def test_a_line_about_a_relative_the_user_did_not_speak_of_is_dropped(line, said, unheard):
    assert unheard_kin(line, said) is unheard


MUM_MOVED = (
    "my mum's got diabetes and moved in with my aunt in Cardiff last year, so I try to visit every other weekend"
)


def test_a_line_filed_under_an_unheard_relative_goes_to_the_one_its_clauses_are_about():
    """A `make run` chat (stop 62): beside "Partner: Sami", the notes pass filed the mum's news as
    "Partner's health: diabetes" and "Partner's home: Cardiff"; nothing was saved."""
    lines = [
        "Partner's health: diabetes",
        "Partner's home: Cardiff (moved in last year, 2025)",
        "Partner's visits: every other weekend",  # the user's visits, said of no relative
        "Partner's hobbies: runs a bakery",  # said in no clause here
        "Son: once drove a car",  # no attribute of someone's
    ]
    assert unheard_kin_told_of(lines, MUM_MOVED, "Nadia") == {
        "Partner's health: diabetes": "Mum's health: diabetes",
        "Partner's home: Cardiff (moved in last year, 2025)": "Mum's home: Cardiff (moved in last year, 2025)",
    }
    # a clause about two relatives' names tells no one owner; one about nobody's keeps nothing
    assert unheard_kin_told_of(["Wife's work: nurse"], "Tom and I are nurses.", "Ana") == {}
    assert unheard_kin_told_of(["Son's health: asthma"], "my dad has asthma", "Ana") == {
        "Son's health: asthma": "Dad's health: asthma"
    }


def test_a_relatives_news_the_notes_pass_filed_under_another_is_saved_as_theirs(store):
    from memgpt_local.runtime.scripted import ScriptedBackend

    agent = ensure_agent(store, "nadia", Settings())
    store.core.set_value(agent.id, "human", "Name: Nadia\nWork: runs a bakery\nPartner: Sami")
    lines = [
        "Partner: Sami",
        "Mum: Nadia",
        "Partner's health: diabetes",
        "Partner's home: Cardiff (moved in last year)",
    ]
    lines += ["Partner's hobbies: runs a bakery", "Partner's visits: every other weekend"]
    noter = FactNoter(store, ScriptedBackend([json.dumps({"facts": lines})]), agent.id, FactNoteSettings(enabled=True))
    when = datetime(2026, 12, 7, 17, tzinfo=timezone.utc)
    notes = noter.note(MUM_MOVED, when=when)
    assert notes.added == ["Mum's health: diabetes", "Mum's home: Cardiff (moved in last year, 2025)"]
    assert "Partner: Sami" in store.core.get(agent.id, "human").value


@pytest.mark.parametrize(
    ("line", "said", "written"),
    [  # a `make run` chat (stop 41): where the user lives would have been answered "Wroclaw"
        ("Home: Wroclaw", "We grew up in Wroclaw and he once drove my dad's car into a pond.", "Hometown: Wroclaw"),
        ("City: Porto", "I was born in Porto.", "Hometown: Porto"),
        ("Home: Leeds", "I grew up in York but I live in Leeds now.", "Home: Leeds"),  # where they live
        ("Home: Leeds", "I moved to Leeds last year.", "Home: Leeds"),
        ("Childhood: farm in Kent", "I grew up on a farm in Kent.", "Childhood: farm in Kent"),  # not a home label
        # one label for it: "Grew up in: Osaka" came beside "Hometown: Osaka" (a `make run` chat, stop 54)
        ("Grew up in: Osaka", "I grew up in Osaka.", "Hometown: Osaka"),
        ("Birthplace: Osaka", "Osaka, since you ask.", "Hometown: Osaka"),
    ],
)
def test_the_place_the_user_grew_up_in_is_not_their_home(line, said, written):
    assert childhood_home(line, said) == written


@pytest.mark.parametrize(
    ("line", "glued"),
    [
        ("Rafael is buildingInes'sred-bi: with a basket", True),  # a make run chat, saved as it was
        ("Sister's wedding: in August", False),
        ("Grandmother's birthday: 3 May", False),
        ("Responsibilities: the rota", False),
        ("Job: buildingInes a bike", False),  # only the label is read
        ("Gift plan buildingbikeforinesred: yes", True),
        ("Leeds is herhomecity: Leeds", True),  # a clause (a `make run` chat, stop 45)
        ("Sister is: Meera", False),  # a verb at the end is ``plain_label``'s to drop
        ("Ines has two: patients on the ward", True),  # a clause of "has" (a `make run` chat, stop 58)
        ("Dog has: fleas", False),  # ``plain_label``'s: "Dog: has fleas"
        ("Favourite island: Islay", False),
        ("Lives in Lisbon: still in March (2027-03)", True),  # a place clause (a `make run` chat, stop 46)
        ("Works at Bristol Old Vic: sound engineer", True),
        ("Lives in: Bristol", False),
        ("Living room: painted blue", False),
        ("Work: sound engineer", False),
        ("Chewed through garden's: hose", True),  # cut at a word whose thing is the value (stop 64)
        ("Mum's: 80 on Sunday", False),  # one word: whose the line is
    ],
)
def test_a_label_of_words_run_together_is_not_saved(line, glued):
    assert glued_label(line) is glued


@pytest.mark.parametrize(
    "lines, said, written",
    [
        # eval chat seed 16: the sister's line again, under an attribute nobody said
        (
            ["Sister: Vanbuton", "Sister's job: Vanbuton, visiting this weekend"],
            "My sister Vanbuton is visiting this weekend.",
            ["Sister: Vanbuton", "Sister: Vanbuton, visiting this weekend"],
        ),
        # and a job given to an animal
        (
            ["Tortoise: Stoxraette", "Stoxraette's job: boss of the house"],
            "I have a tortoise called Stoxraette, she's the boss of the house.",
            ["Tortoise: Stoxraette", None],
        ),
        (["Dog: Rex", "Dog's job: guarding the house"], "My dog Rex guards the house.", ["Dog: Rex", None]),
        # an attribute the user said, another value, or someone's other fact: unchanged
        (
            ["Sister: Ana", "Sister's job: nurse"],
            "My sister Ana works as a nurse.",
            ["Sister: Ana", "Sister's job: nurse"],
        ),
        (["Sister: Ana", "Sister's job: nurse"], "My sister Ana is a nurse.", ["Sister: Ana", "Sister's job: nurse"]),
        (
            ["Pet: Rex, a dog", "Rex's trick: rolling over"],
            "Rex can roll over.",
            ["Pet: Rex, a dog", "Rex's trick: rolling over"],
        ),
        (
            ["Grace's hip surgery: on Monday"],
            "My mum Grace has hip surgery on Monday.",
            ["Grace's hip surgery: on Monday"],
        ),
    ],
)
def test_a_line_filed_under_an_attribute_nobody_said_is_filed_rightly(lines, said, written):
    assert [refiled(line, lines, said) for line in lines] == written


def test_the_notes_pass_files_a_persons_line_under_their_label(store):
    runner = make_runner(
        store,
        ['{"facts": ["Sister: Vanbuton", "Sister\'s job: Vanbuton, visiting this weekend"]}'],
        fact_notes={"enabled": True},
    )
    # a fixed Wednesday: "this weekend" ahead (the test failed on weekdays when it read the clock)
    notes = runner.facts.note("My sister Vanbuton is visiting this weekend.", when=datetime(2026, 12, 2, 12))
    last = store.core.get(runner.agent_id, "human").value.splitlines()[-1]
    assert last.startswith("Sister: Vanbuton") and "visiting this weekend (weekend of 2026-12-05)" in last
    assert not any("job" in line for line in notes.lines())


def test_a_line_that_only_names_a_saved_person_under_a_trait_is_dropped():
    """A `make run` chat (stop 43): "I'm the marine biologist, remember! Tomasz is the baker."
    under "Partner: Tomasz" was noted "Marine biologist: Tomasz" and "Baker: Tomasz"."""
    from memgpt_local.agent.fact_owners import files_a_saved_person

    saved = ["Name: Ngaio", "Partner: Tomasz", "Pet: Rex, a cat"]
    for line in ["Marine biologist: Tomasz", "Baker: Tomasz", "Vet: Rex"]:
        assert files_a_saved_person(line, saved), line
    for line in ["Partner: Tomasz", "Partner's job: baker", "Best friend: Rex", "Hero: Mandela", "Baker: Tomasz Nowak"]:
        assert not files_a_saved_person(line, saved), line


def test_a_relation_the_user_did_not_say_gives_way_to_the_saved_one():
    """A `make run` chat (stop 43): under "Partner: Tomasz", "Tomasz is the baker! His bakery is
    called Rewena & Rye." was noted "Friend: Tomasz", "Friend's job: baker", "Friend's bakery: ..."."""
    from memgpt_local.agent.fact_owners import kept_relations

    saved = ["Name: Ngaio", "Partner: Tomasz"]
    said = "Ha, no, I'm the marine biologist and Tomasz is the baker! His bakery is called Rewena & Rye."
    written = ["Work: marine biologist", "Friend: Tomasz", "Friend's job: baker", "Friend's bakery: Rewena & Rye"]
    assert kept_relations(written, saved, said) == [
        "Work: marine biologist",
        "Partner: Tomasz",
        "Partner's job: baker",
        "Partner's bakery: Rewena & Rye",
    ]
    assert kept_relations(["Husband: Tomasz"], saved, "My husband Tomasz is a baker.") == ["Husband: Tomasz"]  # said
    assert kept_relations(["Friend: Ana"], saved, "Ana is coming over.") == ["Friend: Ana"]  # someone new


@pytest.mark.parametrize(
    ("said", "aged"),
    [
        ("Actually Karim turned eight last week, we had a party.", ["Son: Karim, eight"]),
        ("My daughter just turned 5!", ["Daughter: Ines (5 years old)"]),
        ("Karim is nine now.", ["Son: Karim, nine"]),
        ("Karim turns eight on Sunday.", []),  # not yet
        ("Rex turned two.", []),  # no age was saved for Rex
        ("Kasia turned 30 yesterday.", []),  # "12" of her visit's date is no age
    ],
)
def test_an_age_said_to_have_changed_replaces_the_saved_one(said, aged):
    """A `make run` chat (stop 44): "Actually Karim turned eight last week" saved "Karim's
    birthday: last week" and kept "Son: Karim, seven", and the next greeting said seven."""
    saved = ["Son: Karim, seven", "Daughter: Ines (4 years old)", "Dog: Rex", "Sister: Kasia (2026-12-03)"]
    assert new_ages(saved, said) == aged


def test_the_notes_pass_writes_a_new_age_over_the_saved_one(store):
    runner = make_runner(
        store,
        [
            say("Lovely!"),
            '{"facts": ["Name: Farida", "Son: Karim, seven"]}',
            say("Happy birthday to Karim!"),
            '{"facts": ["Karim\'s birthday: last week"]}',  # the age left as it was
        ],
        fact_notes={"enabled": True},
    )
    ask(runner, "I'm Farida, and my son Karim is seven.")
    ask(runner, "Karim turned eight last week, we had a party at the studio.")
    block = store.core.get(runner.agent_id, "human").value
    assert "Son: Karim, eight" in block and "seven" not in block


@pytest.mark.parametrize(
    "lines, saved, said, written",
    [
        (  # a `make run` chat, stop 47: the household was saved as a place and lost at the move
            ["Name: Priya", "Home: Norwich (lives with Sam and Biscuit)"],
            [],
            "Hey, I'm Priya. I live in Norwich with my partner Sam and our rabbit Biscuit.",
            ["Name: Priya", "Home: Norwich (lives with Sam and Biscuit)", "Partner: Sam", "Rabbit: Biscuit"],
        ),
        (
            ["Brother: Felix, getting married"],
            [],
            "My brother Felix is getting married!",
            ["Brother: Felix, getting married"],
        ),
        ([], ["Dog: Rex (a beagle)"], "Our dog, Rex, hates baths.", []),  # filed before
        ([], [], "I saw my mum Monday and she was fine.", []),  # a day is nobody's name
    ],
)
def test_someone_named_with_who_they_are_gets_their_own_line(lines, saved, said, written):
    from memgpt_local.agent.fact_owners import named_people

    assert named_people(lines, saved, said) == written


@pytest.mark.parametrize(
    "lines, said, user, written",
    [
        (  # a `make run` chat, stop 47: someone else's likes gathered into the user's hobbies
            ["Hobbies: board games and cooking"],
            "Sam's birthday is next Saturday and I have no idea what to get him. He loves board games and cooking.",
            "Priya",
            ["Sam's hobbies: board games and cooking"],
        ),
        (["Work: vet"], "My sister just got back from Peru. She's a vet now.", "", ["Sister's work: vet"]),
        (["Work: vet"], "I'm a vet. She loves it too.", "", ["Work: vet"]),  # the user's own sentence
        (["Likes: jazz"], "He and I both love jazz.", "", ["Likes: jazz"]),  # said in the first person too
        (["Likes: jazz"], "He loves jazz.", "", []),  # nobody named before: nobody's
        (["Likes: jazz"], "Sam here! He loves jazz.", "Sam", []),  # never the user's own name
        (["Cat: grey tabby"], "My cat Momo is great. She's a grey tabby.", "", ["Cat: grey tabby"]),
        (  # the label names her already (a `make run` chat, stop 47, saved "Maya's maya paints: ...")
            ["Maya paints: huge abstract canvases"],
            "Maya's exhibition opens on Friday. She paints huge abstract canvases.",
            "",
            ["Maya paints: huge abstract canvases"],
        ),
    ],
)
def test_a_fact_said_of_him_or_her_is_filed_under_them(lines, said, user, written):
    from memgpt_local.agent.fact_owners import someone_elses

    assert someone_elses(lines, said, user) == written


def test_a_fact_said_again_under_another_label_changes_nothing():
    from memgpt_local.agent.fact_merge import said_twice

    saved = "Name: Priya\nHobbies: climbing at the bouldering gym on Thursdays"
    value, notes = merge(saved, ["Outside school: climbs at the bouldering gym on Thursdays"], 2000, "x")
    assert value == saved and not notes.changed
    assert not said_twice("Vegetarian: yes", "Left-handed: yes")  # too short to be one fact
    assert not said_twice("Work: teaches chemistry in Norwich", "Home: Norwich, near the cathedral")


@pytest.mark.parametrize(
    "line, written",
    [
        ("Home: Thaistuelton (moved to Thouxshaisbury)", "Home: Thouxshaisbury (moved from Thaistuelton)"),  # seed 24
        ("Home: moved from Norwich to Cambridge", "Home: Cambridge (moved from Norwich)"),
        ("Home: Cambridge (moved there)", "Home: Cambridge (moved there)"),
        ("Work: Leeds (moved to York)", "Work: Leeds (moved to York)"),  # only a home line
    ],
)
def test_a_home_line_names_where_the_user_lives_now_first(line, written):
    from memgpt_local.agent.fact_homes import moved_home

    assert moved_home(line) == written


def test_a_plan_joins_the_line_it_will_change_and_a_done_change_replaces_it():
    """A `make run` chat (stop 47): "I start at a new school in January" replaced "Work: teaches
    chemistry ..." with "Work: new school in January (2027-01)"."""
    from datetime import date

    today = date(2026, 12, 5)
    said = "I start at a new school in January."
    value, notes = merge(
        "Name: P\nWork: teaches chemistry", ["Work: new school in January (2027-01)"], 2000, said, today
    )
    assert value == "Name: P\nWork: teaches chemistry; new school in January (2027-01)"
    value, _ = merge(value, ["Work: teaches chemistry at Parkside"], 2000, "I've started at Parkside now.", today)
    assert value == "Name: P\nWork: teaches chemistry at Parkside"
    value, _ = merge("Name: P\nHome: Leeds", ["Home: York"], 2000, "We moved to York.", today)
    assert value == "Name: P\nHome: York"  # no day ahead: a change done


@pytest.mark.parametrize(
    "line, said, written",
    [
        (  # eval chat seed 26 (stop 47), beside "Cat: Founean"
            "Founean's allergies: sesame",
            "Note that sesame makes me ill (allergy), but lamb tagine is my absolute favourite meal.",
            "Allergies: sesame",
        ),
        (
            "Founean's favorite food: lamb tagine",
            "Note that sesame makes me ill (allergy), but lamb tagine is my absolute favourite meal.",
            "Favorite food: lamb tagine",
        ),
        # the owner spoken of, by name or as "she": theirs
        ("Founean's habit: chewing", "My cat Founean has been chewing everything again.", "Founean's habit: chewing"),
        ("Ana's job: nurse", "She works as a nurse, I think.", "Ana's job: nurse"),
        ("Ana's job: nurse", "Works as a nurse.", "Ana's job: nurse"),  # no first person: left as it is
    ],
)
def test_a_line_filed_as_someone_elses_that_the_user_said_of_themself_is_theirs(line, said, written):
    from memgpt_local.agent.fact_owners import the_users_own

    assert the_users_own(line, said) == written


def test_a_dish_the_assistant_suggested_is_no_fact_about_the_user(store):
    """A `make run` chat (stop 48): after "Maybe something like a stir-fry ...?", "stir-fry
    works." was saved as "Hobby: stir-fry". A reply the user gives of themself still counts."""
    runner = make_runner(
        store,
        [
            say("How about a stir-fry with some vegetables? It's quick."),
            say("Enjoy it!"),
            '{"facts": ["Hobby: stir-fry", "Trip: Azores next month"]}',
            say("Maybe a curry then?"),
            say("Lovely."),
            '{"facts": ["Likes: curry"]}',
        ],
        fact_notes={"enabled": True},
    )
    ask(runner, "What should I cook tonight?")
    assert ask(runner, "stir-fry works. We're flying to the Azores next month.").notes == [
        "saved: Trip: Azores next month (2027-01)"
    ]
    ask(runner, "Or something else?")
    assert ask(runner, "Yes! I love a good curry.").notes == ["saved: Likes: curry"]


def test_takes_up_suggestion_needs_an_offer_and_a_sentence_not_about_the_user():
    from memgpt_local.agent.fact_lines import takes_up_suggestion

    offer = "Maybe something like a stir-fry with some vegetables?"
    assert takes_up_suggestion("Hobby: stir-fry", "stir-fry works.", offer)
    assert not takes_up_suggestion("Hobby: stir-fry", "I make a stir-fry every Friday.", offer)
    assert not takes_up_suggestion("Hobby: hiking", "Yes, hiking, every weekend.", "Do you like hiking?")
    assert takes_up_suggestion("Hobby: stir-fry", "stir-fry works.", "")  # an option taken up, offered or not
    assert takes_up_suggestion("Likes: risotto", "Risotto sounds good! Thanks.", "")
    assert not takes_up_suggestion("Hobby: stir-fry", "Cooking a stir-fry tonight.", "")
    assert not takes_up_suggestion("Work: bakery", "My wife's bakery works long hours.", "")


@pytest.mark.parametrize(
    "lines, said, kept",
    [
        (  # a `make run` chat (stop 48): a vet's patients
            ["Name: Ines", "Pets: cats, dogs, goats"],
            "I work as a vet outside Porto, mostly cats and dogs but sometimes goats.",
            ["Name: Ines"],
        ),
        (["Horses: forty"], "I teach riding at a stables near Brno, forty horses and a few ponies.", []),
        (["Ponies: a few"], "forty horses and a few ponies at the stables", []),
        (["Pets: two cats"], "We have two cats at home.", ["Pets: two cats"]),
        (["Dog: a puppy"], "Jo got a puppy!", ["Dog: a puppy"]),
        (["Dog: Tinto"], "Tinto is lazy.", ["Dog: Tinto"]),  # named: someone's own
        (["Allergy: cats"], "I'm allergic to cats.", ["Allergy: cats"]),  # no animal line
    ],
)
def test_an_animal_the_user_never_said_is_theirs_is_no_pet(lines, said, kept):
    from memgpt_local.agent.fact_animals import owned_animals

    assert owned_animals(lines, said) == kept


@pytest.mark.parametrize(
    "lines, saved, said, written",
    [
        (  # a `make run` chat (stop 48)
            ["Dog: Tinto (greyhound)", "Pet: Rui (sound engineer)", "Adopted dog: Rui from a rescue"],
            [],
            "My own dog is a greyhound called Tinto. My husband Rui is a sound engineer.",
            ["Dog: Tinto (greyhound)", "Husband: Rui (sound engineer)"],
        ),
        (
            ["Pet: Rui (working on a film soundtrack)", "Pet: Tinto (lazy)"],
            ["Husband: Rui (sound engineer)", "Dog: Tinto"],
            "Tinto is lazy. Rui's working on a film soundtrack right now.",
            ["Husband: Rui (working on a film soundtrack)", "Dog: Tinto (lazy)"],
        ),
        (["Dog: Rui"], [], "My dog Rui and my husband Rui.", ["Dog: Rui"]),  # both said: left
        (["Pet: Tinto"], [], "Tinto is lazy.", ["Pet: Tinto"]),  # no other kind known
    ],
)
def test_a_person_filed_as_an_animal_goes_under_the_kind_known(lines, saved, said, written):
    from memgpt_local.agent.fact_animals import people_not_animals

    assert people_not_animals(lines, saved, said) == written


def test_a_line_about_a_saved_person_or_animal_adds_to_their_line_and_never_replaces_another():
    """A `make run` chat (stop 48): "Pet: Rui (working on a film soundtrack)" replaced "Pet:
    Tinto (greyhound)" ("now" read as a change), and the dog was gone."""
    said = "Rui's working on a film soundtrack right now."
    value, _ = merge("Name: I\nPet: Tinto (greyhound)", ["Pet: Rui (working on a film soundtrack)"], 2000, said)
    assert value == "Name: I\nPet: Tinto (greyhound)\nPet: Rui (working on a film soundtrack)"
    value, _ = merge("Husband: Rui (sound engineer)", ["Husband: Rui (working on a film soundtrack)"], 2000, said)
    assert value == "Husband: Rui (sound engineer); working on a film soundtrack"
    said = "Rui isn't a sound engineer any more, he's a teacher now."
    value, _ = merge("Husband: Rui (sound engineer)", ["Husband: Rui, a teacher"], 2000, said)
    assert value == "Husband: Rui, a teacher"  # the detail itself said to have changed


def test_a_relative_the_saved_lines_file_under_the_label_is_heard():
    said = "Rui's working on a film soundtrack right now."
    line = "Husband: Rui (working on a film soundtrack)"
    assert unheard_kin(line, said)
    assert not unheard_kin(line, said, ["Husband: Rui (sound engineer)"])


@pytest.mark.parametrize("line", ["Practice: left", "Monday: starts", "Job: quit"])
def test_a_value_that_only_says_something_changed_is_not_saved(line):
    from memgpt_local.agent.fact_lines import passing_state

    assert passing_state(line)


@pytest.mark.parametrize(
    "line, glued",
    [
        ("Starts at the: university veterinary hospital", True),
        ("Lives with my: sister", True),
        ("Sofie rode apony: by herself for the first time", True),  # a `make run` chat (stop 60)
        ("Wedding booked: June", False),
        ("First car owned: Volvo", False),
        ("Works at: zoo", False),
    ],
)
def test_a_label_cut_off_after_a_little_word_is_not_saved(line, glued):
    assert glued_label(line) == glued


@pytest.mark.parametrize(
    "line, said, news",
    [
        ("Figo: knocked coffee over", "Figo knocked my coffee over again this morning.", True),
        ("Clara: doing a wedding cake", "Clara's doing a wedding cake this week, she's exhausted.", True),
        ("Figo: allergic to chicken", "Figo is allergic to chicken.", False),  # lasting
        ("Pip: knocked coffee over", "Pip knocked my coffee over this morning.", False),  # nobody saved
        # a `make run` chat (stop 48), beside "Pet: Ginger cat, Pierogi, who only eats tuna"
        ("Pierogi: threw up on the rug", "Pierogi threw up on the rug this morning, lovely.", True),
        # a milestone lasts (a `make run` chat, stop 59: "Kofi swam his first full length today!")
        ("Figo: caught his first mouse", "Figo caught his first mouse this morning!", False),
        ("Clara: finally finished the cake", "Clara finally finished the wedding cake today.", False),
    ],
)
def test_todays_news_of_a_saved_person_or_pet_is_no_line(line, said, news):
    from memgpt_local.agent.fact_news import news_of_a_saved_one

    saved = ["Cat: Figo (Maine Coon)", "Wife: Clara, runs a bakery", "Pet: Ginger cat, Pierogi, who only eats tuna"]
    assert news_of_a_saved_one(line, saved, said) == news


def test_a_line_under_a_name_that_says_no_more_than_their_own_line_is_not_saved():
    """Two `make run` chats (stop 60) saved "Sister: Marte, getting married in June (2027-06) in
    Trondheim" and "Marte's marriage: June in Trondheim" for one message."""
    sister = "Sister: Marte, getting married in June (2027-06) in Trondheim"
    value, _ = merge("Name: Ingrid", [sister, "Marte's marriage: June in Trondheim"], 2000, "")
    assert value == f"Name: Ingrid\n{sister}"
    value, _ = merge(
        f"Name: Ingrid\n{sister}", ["Marte's marriage: June in Trondheim", "Marte's dress: ivory"], 2000, ""
    )
    assert value == f"Name: Ingrid\n{sister}\nMarte's dress: ivory"
    # more than her line says stays: the venue
    value, _ = merge(f"Name: Ingrid\n{sister}", ["Marte's wedding: June, at Ringve Museum"], 2000, "")
    assert value.endswith("Marte's wedding: June, at Ringve Museum")
    # under who they are to the user (a `make run` chat, stop 60)
    lena = "Girlfriend: Lena, paediatric nurse, works crazy shifts"
    value, _ = merge("Name: Tobias", [lena, "Girlfriend's work: works crazy shifts"], 2000, "")
    assert value == f"Name: Tobias\n{lena}"
    value, _ = merge("Name: Tobias", [lena, "Girlfriend's hobby: climbing"], 2000, "")
    assert value.endswith("Girlfriend's hobby: climbing")


def test_the_place_of_a_home_never_said_is_kept_in_the_work_line():
    """A `make run` chat (stop 60): "I'm a maths teacher at a secondary school in Bergen." was saved
    "Work: maths teacher"; "Home: Bergen" was dropped as a home never said, and Bergen was lost."""
    from memgpt_local.agent.fact_homes import with_work_place

    said = "Hello! Ingrid here, I'm a maths teacher at a secondary school in Bergen."
    assert with_work_place(["Work: maths teacher"], ["Home: Bergen"], said) == ["Work: maths teacher in Bergen"]
    bus = "Work: drives the number 42 bus in Manchester"
    assert with_work_place([bus], ["Home: Manchester"], "I drive the number 42 bus in Manchester.") == [bus]
    # Leeds is the sister's, in another sentence
    assert with_work_place(["Work: nurse"], ["Home: Leeds"], "I'm a nurse. My sister lives in Leeds.") == [
        "Work: nurse"
    ]
    # a home said as one stays a home line: nothing is moved
    lives = "I'm a nurse in Leeds, I live there."
    assert with_work_place(["Work: nurse", "Home: Leeds"], ["Home: Leeds"], lives) == ["Work: nurse", "Home: Leeds"]
    # a place the job's clause tells, in no line (a `make run` chat, stop 62)
    bakery = "hi, I'm Nadia, I run a little bakery in Bristol with my partner Sami"
    assert with_work_place(["Name: Nadia", "Work: runs a bakery"], [], bakery)[1] == "Work: runs a bakery in Bristol"
    nights = "I work nights as a nurse in May and I live in Leeds"  # a month; a home in another clause
    assert with_work_place(["Work: nurse"], [], nights) == ["Work: nurse"]
    # where they are from, beside the job in its clause (a `make run` chat, stop 63)
    tomas = "hello there. Tomás here, retired postman from Cork. my wife Bríd passed two years ago"
    assert with_work_place(["Work: retired postman"], ["Home: Cork"], tomas) == ["Work: retired postman from Cork"]
    back = "I'm a nurse, just back from Spain"  # another clause
    assert with_work_place(["Work: nurse"], ["Home: Spain"], back) == ["Work: nurse"]


def test_a_statement_naming_someone_saved_is_read_for_facts():
    from memgpt_local.agent.fact_lines import names_someone_saved

    saved = ["Name: Ingrid", "Dog: Bamse, a Bernese mountain dog", "Daughter: Sofie"]
    # a `make run` chat (stop 60): the dog's news named nobody after a sentence's first word
    assert names_someone_saved(saved, "Bamse had to go to the vet yesterday, his hips are getting worse.")
    assert names_someone_saved(saved, "Sofie's pony is called Storm.")
    assert not names_someone_saved(saved, "Bamse?")  # a question states nothing
    assert not names_someone_saved(saved, "Snow fell all night.")
    assert not names_someone_saved(["Name: Ingrid"], "Bamse had to go to the vet yesterday.")


def test_a_line_of_any_pet_is_filed_under_the_one_pet_the_message_names():
    from memgpt_local.agent.fact_news import their_news

    saved = ["Name: Ingrid", "Dog: Bamse, a Bernese mountain dog", "Daughter: Sofie"]
    said = "Bamse had to go to the vet yesterday, his hips are getting worse. The vet gave him painkillers."
    lines = ["Pet's condition: hip pain", "Pet's treatment: painkillers"]
    assert their_news(lines, saved, said) == ["Bamse's condition: hip pain", "Bamse's treatment: painkillers"]
    two = [*saved, "Cat: Mosel"]
    both = "Bamse and Mosel went to the vet yesterday. The vet gave him painkillers."
    assert their_news(["Pet's treatment: painkillers"], two, both) == ["Pet's treatment: painkillers"]
    assert their_news(["Pet's treatment: painkillers"], ["Daughter: Sofie"], said) == ["Pet's treatment: painkillers"]


@pytest.mark.parametrize(
    "line, theirs",
    [
        ("Hobby: riding a pony by herself", True),  # a `make run` chat (stop 60), of the daughter
        ("Achievement: tied his shoes himself", True),
        ("Daughter: Sofie, rode a pony by herself", False),  # filed as hers
        ("Sofie's hobby: riding by herself", False),
        ("Hobby: cooking for myself", False),
    ],
)
def test_what_someone_did_by_herself_is_not_the_users_own(line, theirs):
    from memgpt_local.agent.fact_news import another_ones_doing

    assert another_ones_doing(line) is theirs


def test_what_someone_did_by_herself_is_filed_under_the_one_saved_person_named():
    from memgpt_local.agent.fact_news import refiled_by_themself

    saved = ["Name: Ingrid", "Daughter: Sofie", "Dog: Bamse", "Sister: Marte"]
    said = "Sofie rode a pony by herself for the first time on Saturday!"
    line = "Hobby: riding a pony by herself"
    assert refiled_by_themself(line, saved, said) == "Sofie's hobby: riding a pony by herself"
    assert refiled_by_themself(line, saved, "Sofie and Marte rode, Sofie by herself.") is None
    assert refiled_by_themself(line, saved, "A girl rode a pony by herself.") is None
    assert refiled_by_themself("Hobby: learning Spanish", saved, said) == "Hobby: learning Spanish"


def test_a_line_of_this_pass_is_added_to_not_replaced_by_its_next():
    said = "My wife Sara got a new job at the council, she starts Monday."
    value, notes = merge("Name: Noor", ["Wife: Sara, got a new job at the council", "Wife: starts Monday"], 2000, said)
    assert value == "Name: Noor\nWife: Sara, got a new job at the council; starts Monday"
    assert notes.lines() == ["saved: Wife: Sara, got a new job at the council; starts Monday"]


@pytest.mark.parametrize(
    "said, changes",
    [
        ("Big news though: I left the practice, I start at the university veterinary hospital on Monday.", True),
        ("Huge change: I quit the stables and I'm starting at a vet clinic next week.", True),
        ("Got the job! Starting as a ward clerk in March.", True),
        ("My wife Sara got a new job at the council, she starts Monday.", False),  # someone else's
        ("She quit her job last week.", False),
        ("I left my keys at work again.", False),  # no work change word but "left": no job words after
        # the change's own clause says whose it is (a `make run` chat, stop 49)
        ("big change coming: we're moving to Poznan in March, Agnieszka got a job at the university there", False),
        ("Sara got a new job and I quit mine.", True),
        ("My wife and I both quit our jobs at the bank.", True),
        ("I had to help Marta, who got hired at the bakery.", False),
        ("Resigned today. Going freelance as a bookkeeper in January.", True),  # no "I": the writer's
        ("Finally quit the bank, I start at a bakery on Monday.", True),
        ("My wife Jo quit her piano school, she's teaching online now.", False),
    ],
)
def test_a_message_that_changes_the_users_own_work_is_seen(said, changes):
    from memgpt_local.agent.work_change import changes_work

    assert changes_work(said) == changes


def test_a_job_the_user_left_is_replaced_by_the_one_that_starts():
    """A `make run` chat (stop 48): the old job stayed and the new one was saved as "University
    veterinary hospital: Porto on Monday"."""
    from datetime import date

    said = "I left the practice, I start at the university veterinary hospital in Porto on Monday."
    line = "Work: vet at the university veterinary hospital in Porto, starts on Monday (2026-12-07)"
    value, _ = merge("Work: vet in a small practice outside Porto", [line], 2000, said, date(2026, 12, 5))
    assert value == line
    said = "guess what, I quit the buses! starting as a tram driver in January"  # a plural said, the chat after
    value, _ = merge("Work: drives the night bus", ["Work: tram driver (2027-01)"], 2000, said, date(2026, 12, 5))
    assert value == "Work: tram driver (2027-01)"


def test_a_job_change_is_asked_about_on_its_own_and_its_scraps_are_dropped(store):
    runner = make_runner(
        store,
        [
            say("Lovely!"),
            '{"facts": ["Name: Ines", "Work: vet in a small practice"]}',
            say("Congratulations!"),
            '{"facts": ["University: Porto", "Start date: Monday", "Left the practice: vet", "Tinto: lazy"]}',
            '{"facts": ["Work: vet at the university hospital in Porto, starts on Monday"]}',
        ],
        fact_notes={"enabled": True},
    )
    ask(runner, "I'm Ines, a vet in a small practice.")
    ask(runner, "Big news: I left the practice, I start at the university hospital in Porto on Monday. Tinto is lazy.")
    asked = runner.backend.requests[-1].messages
    assert asked[0].content.startswith("You keep an assistant's notes") and "work changed" in asked[0].content
    block = store.core.get(runner.agent_id, "human").value
    assert "Work: vet at the university hospital in Porto, starts on Monday" in block
    assert "University: Porto" not in block and "small practice" not in block and "Start date" not in block
    assert "Left the practice" not in block


@pytest.mark.parametrize(
    "lines, said, written",
    [
        (  # a `make run` chat (stop 48)
            ["Pet: Ginger cat, Pierogi, who only eats tuna", "Diet: only eats tuna"],
            "we've got a ginger cat, Pierogi, who only eats tuna. my wife Ola teaches violin.",
            ["Pet: Ginger cat, Pierogi, who only eats tuna", "Pierogi's diet: only eats tuna"],
        ),
        (["Work: teaches piano"], "My sister Jo, who teaches piano, is visiting.", ["Jo's work: teaches piano"]),
        (["Diet: vegan"], "I'm vegan, unlike Jo, who eats everything.", ["Diet: vegan"]),  # not in the clause
        (["Hobby: chess"], "Hi, I'm Sam, who plays chess!", ["Hobby: chess"]),  # the user's own name
    ],
)
def test_a_fact_said_in_a_clause_about_someone_named_is_theirs(lines, said, written):
    from memgpt_local.agent.fact_owners import told_of_in_a_clause

    assert told_of_in_a_clause(lines, said, "Sam") == written


def test_a_line_under_the_bare_name_of_a_saved_person_goes_under_their_relation():
    """A `make run` chat (stop 49): "Agnieszka: got a job at the university in Poznan" stood
    apart from "Wife: Agnieszka"."""
    from memgpt_local.agent.fact_kin import under_their_relation

    saved = ["Name: Tomasz", "Wife: Agnieszka", "Dog: Rex"]
    lines = ["Agnieszka: got a job at the university in Poznan", "Rex: afraid of the hoover", "Poznan: moving in March"]
    assert under_their_relation(lines, saved) == [
        "Wife: Agnieszka, got a job at the university in Poznan",
        "Dog: Rex, afraid of the hoover",
        "Poznan: moving in March",
    ]
    said = "we're moving to Poznan in March, Agnieszka got a job at the university there"
    value, _ = merge("\n".join(saved), under_their_relation(lines[:1], saved), 2000, said)
    assert value.splitlines()[1] == "Wife: Agnieszka, got a job at the university in Poznan"  # her line, no other


def test_a_line_under_what_someone_is_to_the_user_goes_under_their_name(store):
    """A `make run` chat (stop 61): "Son's work: two weeks on and two weeks off" and "Son's home:
    Aberdeen" stood beside "Son: Callum, lives in Aberdeen" and "Callum's work: oil rigs"."""
    from memgpt_local.agent.fact_kin import by_their_name
    from memgpt_local.runtime.scripted import ScriptedBackend

    saved = ["Name: Hamish", "Dog: Bruce", "Sister: Ana", "Sister: Meera", "Kids: Tom and Ana"]
    lines = ["Son: Callum, lives in Aberdeen", "Son's work: rigs", "Dog's vet: Tuesday", "Son's name: Callum"]
    lines += ["Sister's wedding: June", "Kids's school: Hillhead", "Mum's birthday: 3 May"]
    assert by_their_name(lines, saved) == [
        "Son: Callum, lives in Aberdeen",
        "Callum's work: rigs",
        "Bruce's vet: Tuesday",
        "Son's name: Callum",  # a name is no thing of theirs
        "Sister's wedding: June",  # two sisters
        "Kids's school: Hillhead",  # two children in one line
        "Mum's birthday: 3 May",  # nobody filed as "Mum"
    ]
    agent = ensure_agent(store, "hamish", Settings())
    store.core.set_value(agent.id, "human", "Name: Hamish")
    noted = ["Son: Callum, lives in Aberdeen", "Callum's work: oil rigs", "Son's work: two weeks on and two weeks off"]
    raw = json.dumps({"facts": [*noted, "Son's home: Aberdeen"]})
    noter = FactNoter(store, ScriptedBackend([raw]), agent.id, FactNoteSettings(enabled=True))
    said = "My son Callum lives in Aberdeen, he works on the oil rigs, two weeks on and two weeks off."
    assert noter.note(said).added == [
        "Son: Callum, lives in Aberdeen",
        "Callum's work: oil rigs; two weeks on and two weeks off",
    ]


def test_a_value_of_filler_is_no_fact():
    """A `make run` chat (stop 61): "I'm terrified to be honest." saved "Fear: to be honest"."""
    from memgpt_local.agent.fact_lines import only_filler, worth_saving

    said = "my first time on a plane in ten years. I'm terrified to be honest."
    assert only_filler("Fear: to be honest") and not worth_saving("Fear: to be honest", said)
    assert not only_filler("Fear: flying") and not only_filler("Honesty: matters to her")
    # a value that only qualifies another clause (a `make run` chat, stop 64: "I swim in the sea every
    # morning, even in winter" was saved "Sleep: even in winter" beside the swimming)
    assert only_filler("Sleep: even in winter") and only_filler("Runs: even when it rains")
    assert not only_filler("Hobby: also plays guitar") and not only_filler("Work: still at the bakery")
    # a word that only ties the value to the message (a `make run` chat, stop 62)
    marathon = "I'm training for the Cardiff half marathon in March, first one since my knee injury"
    assert only_filler("Knee injury: since") and not worth_saving("Knee injury: since", marathon)
    assert only_filler("Frequency of seeing: barely") and not only_filler("Knee injury: since last spring")
    # a value that only points at what the message said (a `make run` chat, stop 63)
    knee = "I've a knee operation booked for the 14th of January, not looking forward to it"
    assert only_filler("Not looking forward: to it") and not worth_saving("Not looking forward: to it", knee)
    assert only_filler("Feeling: about that") and not only_filler("Looking forward to: it all being over")
    # how a stretch went, how a fact was learnt (a `make run` chat, stop 63)
    assert only_filler("Health: rough few weeks") and only_filler("Week: a long week")
    assert only_filler("Last year's discovery: found out the hard way")
    assert not only_filler("Work: long shifts") and not only_filler("Weekend: quiet weekend at home")


@pytest.mark.parametrize(
    "line, said, never",
    [
        # a `make run` chat, stop 61
        ("Mum's country: Scotland", "my mum is flying over from kumasi in july, she's never been to scotland", True),
        ("Dad: hasn't seen Kiel", "My dad hasn't seen Kiel.", False),  # the value says the "not"
        ("Dad's trip: Kiel", "My dad hasn't ever seen Kiel in winter.", True),
        ("Allergy: nuts", "I can't eat nuts.", False),  # can't is no "never"
        ("Home: Leeds", "I've never liked Leeds but I live in Leeds now.", False),  # said as so too
        ("Mum's home: Kumasi", "my mum is flying over from kumasi, she's never been to scotland", False),
    ],
)
def test_a_thing_said_only_as_never_so_is_no_fact(line, said, never):
    from memgpt_local.agent.fact_lines import said_only_as_never

    assert said_only_as_never(line, said) is never


def test_a_relative_of_one_of_the_users_people_is_filed_as_theirs():
    """A `make run` chat (stop 61): "Callum's wife Fiona is expecting their second baby in March."
    under "Son: Callum" saved "Fiona's second baby: in March" and never whose wife she is."""
    from memgpt_local.agent.fact_kin import relatives_of_theirs

    saved = ["Name: Hamish", "Son: Callum, lives in Aberdeen"]
    said = "Callum's wife Fiona is expecting their second baby in March. Rory's friend Ben came over."
    lines = ["Fiona's second baby: in March (2027-03)"]
    assert relatives_of_theirs(lines, saved, said) == ["Callum's wife: Fiona", *lines]  # Rory is filed by no one
    assert relatives_of_theirs(["Callum's wife: Fiona"], saved, said) == ["Callum's wife: Fiona"]
    assert relatives_of_theirs(lines, [*saved, "Daughter-in-law: Fiona"], said) == lines  # filed already
    assert relatives_of_theirs(lines, saved, "Callum's wife's name is Fiona.") == ["Callum's wife: Fiona", *lines]
    assert relatives_of_theirs(lines, saved, "Isla's mum Fiona is expecting.") == lines  # Isla: filed by no line
    assert relatives_of_theirs([], saved, "Callum's wife is called Fiona.") == ["Callum's wife: Fiona"]
    # "her" of the one filed person named before it; a line giving them to a place goes (the same chat)
    said = "My daughter Siobhan lives in Boston with her husband Mark, and their twins turn six."
    daughter = ["Daughter: Siobhan", "Siobhan's home: Boston"]
    assert relatives_of_theirs([*daughter, "Boston's husband: Mark"], [], said) == [
        *daughter,
        "Siobhan's husband: Mark",
    ]
    both = "Siobhan and Callum came round, with her husband Mark."
    assert relatives_of_theirs([], ["Daughter: Siobhan", "Son: Callum"], both) == []  # whose "her" is, unknown


def test_a_child_told_as_someone_elses_is_filed_as_theirs():
    """A `make run` chat (stop 61): "... They already have a wee boy, Rory, he's four." under "Son:
    Callum" saved "Son: Rory, four", and the next login greeted "I know you have a son named Rory"."""
    from memgpt_local.agent.fact_kin import children_of_theirs

    saved = ["Name: Hamish", "Son: Callum, lives in Aberdeen"]
    said = "Callum's wife Fiona is expecting their second baby in March. They already have a wee boy, Rory, he's four."
    assert children_of_theirs(["Son: Rory, four"], saved, said) == ["Callum's son: Rory, four"]
    mine = "Callum's wife Fiona is expecting. And my own boy, Rory, is four."
    assert children_of_theirs(["Son: Rory, four"], saved, mine) == ["Son: Rory, four"]  # "my"
    both = "Callum and Ewan came round. They have a wee boy, Rory, he's four."
    ewan = [*saved, "Son: Ewan"]
    assert children_of_theirs(["Son: Rory, four"], ewan, both) == ["Son: Rory, four"]  # whose, unknown
    assert children_of_theirs(["Dog: Rex"], saved, "They have a dog, Rex.") == ["Dog: Rex"]  # no child


def test_a_child_told_as_someone_elses_is_saved_as_theirs_beside_their_parent(store):
    """The notes pass's own words in the replay of that chat (stop 61): "Wife: Fiona, ..." beside
    "Son: Rory, four"; while Fiona was filed as a wife of the user's, the boy had two parents."""
    from memgpt_local.runtime.scripted import ScriptedBackend

    agent = ensure_agent(store, "hamish", Settings())
    store.core.set_value(agent.id, "human", "Name: Hamish\nSon: Callum, lives in Aberdeen")
    lines = ["Wife: Fiona, expecting a second baby in March", "Son: Rory, four", "Son: another baby, due in March"]
    noter = FactNoter(store, ScriptedBackend([json.dumps({"facts": lines})]), agent.id, FactNoteSettings(enabled=True))
    said = "Callum's wife Fiona is expecting their second baby in March. They already have a wee boy, Rory, he's four."
    when = datetime(2026, 12, 7, 17, tzinfo=timezone.utc)
    assert noter.note(said, when=when).added == [
        "Callum's wife: Fiona, expecting a second baby in March (2027-03)",
        "Callum's son: Rory, four",
    ]


@pytest.mark.parametrize(
    "line, said, urged",
    [
        # a `make run` chat, stop 49
        (
            "Hobby: running with Agnieszka",
            "my wife Agnieszka says I should take up running with her. I'm not convinced",
            True,
        ),
        ("Wife: Agnieszka", "my wife Agnieszka says I should take up running with her.", False),
        ("Diet: avoid dairy", "My doctor says I should avoid dairy, I'm lactose intolerant.", True),
        ("Health: lactose intolerant", "My doctor says I should avoid dairy, I'm lactose intolerant.", False),
        ("Hobby: running", "I love running, and my coach wants me to run a marathon.", False),  # said of themself
        ("Goal: marathon", "I love running, and my coach wants me to run a marathon.", True),
    ],
)
def test_what_someone_else_would_have_the_user_do_is_no_fact(line, said, urged):
    from memgpt_local.agent.fact_lines import only_urged

    assert only_urged(line, said) == urged


@pytest.mark.parametrize(
    "line, said, visit",
    [
        (
            "Location: Gdansk, last summer",
            "I'm allergic to shellfish, found that out the hard way in Gdansk last summer",
            True,
        ),
        ("Location: Paris", "Back from a trip to Paris, exhausted.", True),
        ("Home: Leeds", "I live in Leeds, I was in Paris last week.", False),
        ("Home: Poznan (moving in March)", "We're moving to Poznan in March.", False),
        ("Work: chef in Gdansk", "I was a chef in Gdansk last year.", False),  # not a home label
    ],
)
def test_a_place_the_user_only_visited_is_no_home(line, said, visit):
    from memgpt_local.agent.fact_homes import place_of_a_visit

    assert place_of_a_visit(line, said) == visit


@pytest.mark.parametrize(
    "line, said, unsaid",
    [
        # a `make run` chat, stop 59: the city one drives a bus in, and an allotment, as homes
        ("Home: Manchester (drives the bus for eleven years)", "I drive the number 42 bus in Manchester.", True),
        (
            "Home: an allotment where I grow tomatoes and runner beans",
            "I've got an allotment where I grow tomatoes and runner beans. It's my quiet place.",
            True,
        ),
        ("Home: Leeds", "I live in Leeds with my wife.", False),
        ("Home: Leeds", "We're just outside Leeds.", False),
        ("Home: Cardiff", "Moved to Cardiff in the spring.", False),
        ("Home: Accra", "I'm from Accra originally.", False),
        ("Home: Bristol", "Bristol born and bred.", False),
        # who the user is, then where from (a `make run` chat, stop 61)
        ("Home: Glasgow", "I'm a retired bus driver from Glasgow and I grow leeks.", False),
        ("Home: Lagos", "I am a nurse from Lagos.", False),
        ("Home: Cork", "Hello, I'm Maeve, a retired primary school teacher from Cork.", False),
        ("Home: Leeds", "I'm driving down from Leeds today.", True),
        ("Home: Leeds", "I'm a nurse, my patients come in from Leeds.", True),
        ("Work: bus driver in Manchester", "I drive the number 42 bus in Manchester.", False),  # not a home label
    ],
)
def test_a_home_the_message_never_tells_is_no_home(line, said, unsaid):
    from memgpt_local.agent.fact_homes import home_unsaid
    from memgpt_local.agent.fact_lines import worth_saving

    assert home_unsaid(line, said) == unsaid
    assert worth_saving(line, said) is not unsaid or not line.startswith("Home")


def test_a_home_answered_to_where_the_user_lives_is_saved():
    from memgpt_local.agent.fact_lines import worth_saving

    assert worth_saving("Home: Salford", "Salford, just past the docks.", "Where do you live these days?")


def test_a_pet_or_someone_else_is_never_written_as_the_users_name():
    """A `make run` chat (stop 50): "Bad news, Bran passed away on Sunday." made "Name: Ruth" into
    "Name: Bran", the collie's name, and "what's my name?" was answered "Your name is Bran."."""
    from memgpt_local.agent.fact_news import not_the_users_name

    saved = ["Name: Ruth", "Collie: Bran", "Husband: Declan"]
    assert not_the_users_name("Name: Bran", saved, "Bad news, Bran passed away on Sunday.")
    assert not_the_users_name("Name: Declan", ["Husband: Declan"], "Declan says hi.")  # his, not theirs
    assert not not_the_users_name("Name: Ruth", saved, "It's Ruth again.")  # the same name
    assert not not_the_users_name("Name: Bex", saved, "Actually, call me Bex, everyone does.")  # a new one, given
    assert not not_the_users_name("Name: Ruth", [], "Ruth, by the way.")  # a first name, nothing known
    assert not not_the_users_name("Pet: Bran", saved, "Bran passed away.")


def test_news_of_one_of_the_users_people_or_animals_is_labelled_as_theirs():
    from memgpt_local.agent.fact_news import their_news

    saved = ["Name: Ruth", "Collie: Bran", "Husband: Declan"]
    said = "Bad news, Bran passed away on Sunday. He was fourteen."
    assert their_news(["Death: Sunday"], saved, said) == ["Bran's death: Sunday"]
    dated = their_news(["Death: this morning (2026-12-03)"], ["Cat: Pwdin"], "Pwdin died this morning.")
    assert dated == ["Pwdin's death: this morning (2026-12-03)"]  # the day's note is no word of theirs
    # the user's own sentence, a line that names someone already, or nobody filed: unchanged
    mine = "Bran and I walked to Kinsale on Sunday."
    assert their_news(["Walk: to Kinsale on Sunday"], saved, mine) == ["Walk: to Kinsale on Sunday"]
    assert their_news(["Collie: Bran, died on Sunday"], saved, said) == ["Collie: Bran, died on Sunday"]
    assert their_news(["Death: Sunday"], ["Name: Ruth"], said) == ["Death: Sunday"]


def test_a_label_run_together_from_the_users_words_is_spelt_as_they_wrote_it():
    from memgpt_local.agent.fact_wording import unglued

    said = "I'm 67, retired from the post office last year"
    assert unglued("Retired from thepostoffice: last year", said) == "Retired from the post office: last year"
    assert unglued("Retired: from the post office", said) == "Retired: from the post office"
    assert unglued("Workplace: the postoffice", said) == "Workplace: the postoffice"  # the value is the model's


def test_a_label_misspelt_from_the_users_words_is_spelt_as_they_wrote_it():
    """A `make run` chat (stop 57): "Lesions: on Thursday evenings" for "Lessons are on Thursday evenings"."""
    from memgpt_local.agent.fact_wording import unglued

    said = "I'm learning the oud. Lessons are on Thursday evenings, my sisters come too."
    assert unglued("Lesions: on Thursday evenings", said) == "Lessons: on Thursday evenings"
    assert unglued("Oud lesosns: Thursdays", said) == "Oud lessons: Thursdays"  # two letters swapped
    # another form of a word said, a word of the model's own, a short one: unchanged
    assert unglued("Sister: comes too", said) == "Sister: comes too"
    assert unglued("Hobby: the oud", said) == "Hobby: the oud"
    assert unglued("Music: oud", said) == "Music: oud"
    # a letter left out (a `make run` chat, stop 59)
    grown = "I've got an allotment where I grow tomatoes and runner beans."
    assert unglued("Alloment: grows tomatoes", grown) == "Allotment: grows tomatoes"


def test_a_label_that_only_says_a_day_is_not_saved():
    """ "it's the 19th of December, I told you yesterday!" was saved as "Date: 19th of December"."""
    from memgpt_local.agent.fact_lines import only_a_date, worth_saving

    said = "it's the 19th of December, I told you yesterday!"
    assert only_a_date("Date: 19th of December") and not worth_saving("Date: 19th of December", said)
    assert not only_a_date("Declan's birthday: 19th of December")
    assert not only_a_date("Wedding date: 19th of December")
    # a `make run` chat (stop 60): "... sea swimming at Salthill every Sunday morning, even in winter."
    swim = "I've started doing sea swimming at Salthill every Sunday morning, even in winter."
    assert only_a_date("Season: winter") and not worth_saving("Season: winter", swim)
    assert not only_a_date("Favourite season: autumn")


def test_a_plan_of_someone_filed_by_name_joins_their_line_without_the_name_again():
    from datetime import date

    said = "Oh, news: Saoirse got into university in Dublin, she starts medicine in September."
    value, notes = merge(
        "Name: Ruth\nGranddaughter: Saoirse",
        ["Granddaughter: Saoirse, starts medicine in September (2027-09)"],
        2000,
        said,
        date(2026, 12, 3),
    )
    assert value.splitlines()[1] == "Granddaughter: Saoirse; starts medicine in September (2027-09)"


@pytest.mark.parametrize(
    "message, asked",
    [
        (
            "I can't eat shellfish. What would be a nice thing to cook for Declan's birthday on the 19th?",
            "What would be a nice thing to cook for Declan's birthday on the 19th?",
        ),
        (
            "What should I get my sister for her birthday next Friday?",
            "What should I get my sister for her birthday next Friday?",
        ),
        ("What's my dog called?", ""),  # asks memory, not for help
        ("Any tips for sleeping better?", ""),  # names nobody
    ],
)
def test_a_request_for_help_with_someones_day_is_read_for_its_day(message, asked):
    from memgpt_local.agent.facts import days_asked_about

    assert days_asked_about(message) == asked


def test_a_birthday_told_in_a_request_for_ideas_is_saved(store):
    """Only the request's day is asked about (the scripted model writes the plan line): a message
    of questions alone has no statement for the notes pass."""
    from datetime import datetime, timezone

    from memgpt_local.runtime.scripted import ScriptedBackend

    agent = ensure_agent(store, "ruth", Settings())
    store.core.set_value(agent.id, "human", "Name: Ruth\nHusband: Declan")
    backend = ScriptedBackend(['{"facts": ["Declan\'s birthday: on the 19th"]}'])
    noter = FactNoter(store, backend, agent.id, FactNoteSettings(enabled=True))
    when = datetime(2026, 12, 3, 10, tzinfo=timezone.utc)
    notes = noter.note("What would be a nice thing to cook for Declan's birthday on the 19th?", when=when)
    assert notes.added == ["Declan's birthday: on the 19th (2026-12-19)"] and backend.remaining == 0
    prompt = backend.requests[0].messages[-1].content
    assert prompt.startswith('Message: "What would be a nice thing to cook for Declan\'s birthday on the 19th"')


@pytest.mark.parametrize(
    "message, answering, asked",
    [
        ("the 22nd, I told you earlier.", "I don't know when Orla's birthday is.", True),
        ("Tilly! She's a tabby.", "Oh, a cat! What's her name?", True),
        ("Since 2019.", "How long have you lived in Cork?", True),
        ("Quiet, thanks.", "How was your weekend?", False),  # no name, number or day
        ("the 22nd, I told you earlier.", "Lovely, enjoy the cake!", False),  # nothing asked or denied
        ("the 22nd.", "", False),
        # a message that asks is a request of its own (a `make run` chat, stop 50)
        ("Any ideas what I could cook for Tiago's birthday on the 18th? He's vegetarian.", "Anything else?", False),
        (" ".join(["word"] * 31) + " 22nd", "When is it?", False),  # a long message says its own topic
        # an answer, then a question of its own (a `make run` chat, stop 61)
        ("Glasgow, born and bred. What does Callum do again?", "I don't know where you were from.", True),
        ("It's Rory! Anyway, where did I say I was from?", "I don't know the grandson's name.", True),
        # a sign-off answers nothing (the replay of a `make run` chat, stop 61)
        ("nice. ok gotta get back to chapter 3, speak later", "What's your graduation plan?", False),
        ("Cheerio! Speak tomorrow.", "What's your dog called?", False),
    ],
)
def test_a_short_answer_to_a_question_or_a_denial_is_asked_about_with_it(message, answering, asked):
    from memgpt_local.agent.fact_answers import answers_the_assistant

    assert answers_the_assistant(message, answering) == asked


def test_a_fact_told_in_answer_to_the_assistant_is_saved_under_what_it_answers(store):
    """A `make run` chat (stop 50): "the 22nd, I told you earlier." after "I don't know when Orla's
    birthday is." saved nothing, and the assistant went on not knowing."""
    from memgpt_local.runtime.scripted import ScriptedBackend

    agent = ensure_agent(store, "declan", Settings())
    store.core.set_value(agent.id, "human", "Name: Declan\nWife: Orla")
    backend = ScriptedBackend(['{"facts": []}', '{"facts": ["Orla\'s birthday: the 22nd"]}'])
    noter = FactNoter(store, backend, agent.id, FactNoteSettings(enabled=True))
    notes = noter.note("the 22nd, I told you earlier.", answering="I don't know when Orla's birthday is.")
    assert notes.added == ["Orla's birthday: the 22nd"] and backend.remaining == 0
    asked = backend.requests[1].messages[-1].content
    assert asked.startswith('Assistant: "I don\'t know when Orla\'s birthday is."\nUser: "the 22nd')


def test_a_value_that_only_guesses_is_not_saved():
    from memgpt_local.agent.fact_lines import a_guess, passing_state, worth_saving

    said = "Not me, Nell! The dog needs the diet, not me. Though Orla might say otherwise."
    assert not worth_saving("Orla: might say otherwise", said)
    assert a_guess("Home: maybe Spain") and a_guess("Wife: Orla, might say otherwise")
    assert not a_guess("Work: mayor of Cork") and not a_guess("Home: Maynooth")
    # when an event happened is no passing state ("Death: this morning", bench_notes answers-held)
    assert not passing_state("Death: this morning") and passing_state("Mood: this morning")


def test_an_answer_followed_by_a_question_is_asked_about_without_the_question(store):
    """A `make run` chat (stop 61): "Glasgow, born and bred. What does Callum do again?" to "I'm
    sorry, but I don't know where you were from." saved nothing, and Glasgow stayed unknown."""
    from memgpt_local.runtime.scripted import ScriptedBackend

    agent = ensure_agent(store, "hamish", Settings())
    store.core.set_value(agent.id, "human", "Name: Hamish\nSon: Callum")
    backend = ScriptedBackend(['{"facts": ["Hometown: Glasgow, born and bred"]}'])
    noter = FactNoter(store, backend, agent.id, FactNoteSettings(enabled=True))
    said = "Glasgow, born and bred. What does Callum do again?"
    notes = noter.note(said, answering="I'm sorry, but I don't know where you were from.")
    assert notes.added == ["Hometown: Glasgow, born and bred"] and backend.remaining == 0
    asked = backend.requests[0].messages[-1].content
    assert asked.endswith('User: "Glasgow, born and bred."')


def test_an_answer_that_says_nothing_of_its_writer_is_filed_by_what_it_answers(store):
    """bench_notes answers-held (stop 50): "Cardiff, since September." to "I don't know where
    Ffion lives now." was saved by the notes pass alone as the user's own home."""
    from memgpt_local.runtime.scripted import ScriptedBackend

    agent = ensure_agent(store, "owen", Settings())
    store.core.set_value(agent.id, "human", "Name: Owen\nDaughter: Ffion")
    home = '{"facts": ["Home: Cardiff (since September)"]}'  # dropped (a home never told), so asked again
    backend = ScriptedBackend([home, home, '{"facts": ["Ffion\'s home: Cardiff, since September"]}'])
    noter = FactNoter(store, backend, agent.id, FactNoteSettings(enabled=True))
    notes = noter.note("Cardiff, since September.", answering="I don't know where Ffion lives now.")
    assert notes.added == ["Ffion's home: Cardiff, since September"]
    assert "Home: Cardiff (since September)" in notes.dropped


def test_an_answer_to_a_question_about_the_user_is_the_users_own(store):
    """A `make run` chat (stop 59): "Hey, Kwame here. Bus driver, the 42 route through Manchester,
    eleven years now." to "What's your name?" kept only the name: it says no "I", so its work was
    read as no one's."""
    from memgpt_local.agent.fact_answers import asks_the_writer
    from memgpt_local.runtime.scripted import ScriptedBackend

    agent = ensure_agent(store, "kwame", Settings())
    backend = ScriptedBackend(['{"facts": ["Name: Kwame", "Work: bus driver, the 42 route through Manchester"]}'])
    noter = FactNoter(store, backend, agent.id, FactNoteSettings(enabled=True))
    said = "Hey, Kwame here. Bus driver, the 42 route through Manchester, eleven years now."
    notes = noter.note(said, answering="Hello! What's your name? I'm here to listen and help you today.")
    assert notes.added == ["Name: Kwame", "Work: bus driver, the 42 route through Manchester"]
    assert asks_the_writer("What's your name?") and asks_the_writer("Where do you work these days?")
    assert not asks_the_writer("I don't know where Ffion lives now.")  # no question
    assert not asks_the_writer("Where does your sister live?") and not asks_the_writer("What does Ffion do?")


def test_a_work_line_under_another_name_is_work_and_a_left_place_is_where_they_moved_from():
    """eval chat seed 30, second wording (stop 50): "What's my job?" under "Occupation: Pharmacist
    by trade" was denied, and "Home: Pothzaanbury (left Klembuxnoenton)" was answered "where you
    left Klembuxnoenton"."""
    from memgpt_local.agent.fact_homes import moved_home
    from memgpt_local.agent.fact_wording import plain_label
    from memgpt_local.text import lines_about

    assert plain_label("Occupation: Pharmacist by trade") == "Work: Pharmacist by trade"
    assert plain_label("Job: nurse") == "Work: nurse" and plain_label("Work: nurse") == "Work: nurse"
    assert lines_about("What's my job?", [("human", "Occupation: pharmacist")]) == ["[human] Occupation: pharmacist"]
    assert moved_home("Home: Pothzaanbury (left Klembuxnoenton)") == "Home: Pothzaanbury (moved from Klembuxnoenton)"


def test_a_plan_moved_to_another_day_keeps_what_it_is():
    """A `make run` chat (stop 51): "the trip got moved, we fly on the 20th now instead" made "Trip:
    to the Azores next week" into "Trip: moved to fly on the 20th", and the Azores were gone."""
    from datetime import date

    from memgpt_local.agent.fact_merge import merge

    today = date(2026, 12, 6)
    block = "Name: Ines\nTrip: to the Azores next week (week of 2026-12-07); hiking"
    moved = "thanks. oh and actually the trip got moved, we fly on the 20th now instead"
    value, notes = merge(block, ["Trip: moved to fly on the 20th (2026-12-20)"], 2000, moved, today)
    assert value.splitlines()[1] == "Trip: to the Azores; hiking, moved to fly on the 20th (2026-12-20)"
    # another plan, with a place of its own, stands as it is
    other = "the trip got moved, we go to Madrid on the 20th instead"
    value, _ = merge(block, ["Trip: to Madrid on the 20th (2026-12-20)"], 2000, other, today)
    assert value.splitlines()[1] == "Trip: to Madrid on the 20th (2026-12-20)"
    # a day and nothing else: the new day is all there is
    value, _ = merge(
        "Dentist: tomorrow (2026-12-07)", ["Dentist: Friday (2026-12-11)"], 2000, "dentist moved to Friday", today
    )
    assert value == "Dentist: Friday (2026-12-11)"


@pytest.mark.parametrize(
    "line, told",
    [
        # a `make run` chat, stop 61
        ("Thesis due end-of-march: yes", "Thesis: due end of march"),
        (
            "Supervisor: keeps changing her mind about chapter 3: yes",
            "Supervisor: keeps changing her mind about chapter 3",
        ),
        ("Lactose intolerance: yes", "Lactose intolerance: yes"),  # a short label says it
        ("Allergy to pollen: yes", "Allergy to pollen: yes"),  # plain_label's
        ("Runs the Leeds half-marathon: yes", "Runs: the Leeds half-marathon"),  # spaced nowhere: kept joined
    ],
)
def test_a_fact_said_as_a_label_and_yes_is_told_as_a_value(line, told):
    from memgpt_local.agent.fact_wording import fact_of_yes

    said = "thesis is due end of march and my supervisor keeps changing her mind about chapter 3 lol"
    assert fact_of_yes(line, said) == told


def test_a_label_of_a_plan_and_its_place_is_made_plain_and_unglued_as_written():
    """A `make run` chat (stop 51): "our trip to the Azores next week" was written "Trip to
    theAzores: next week", and dropped as a label of no real words."""
    from memgpt_local.agent.fact_lines import worth_saving
    from memgpt_local.agent.fact_wording import plain_label, unglued

    said = "can you remind me what I should pack for our trip to the Azores next week? we're going hiking"
    assert worth_saving("Trip to theAzores: next week", said)
    assert plain_label(unglued("Trip to theAzores: next week", said)) == "Trip: to the Azores next week"
    assert plain_label("Dinner with Jo: Friday") == "Dinner: with Jo Friday"
    assert plain_label("Work at the hospital: nights") == "Work at the hospital: nights"  # no place named
    assert plain_label("Moved to Leeds: last year") == "Moved to Leeds: last year"  # a verb, not a plan
    # "my wife Adaeze and I" was written "Family: Adaeze, wife" beside "Wife: Adaeze" (stop 51)
    assert plain_label("Family: Adaeze, wife") == "Wife: Adaeze" == plain_label("Family: Adaeze (wife)")
    assert plain_label("Family: two kids") == "Family: two kids"
    assert plain_label("Spicy food: Adaeze's loves") == "Adaeze's likes: spicy food"  # stop 51


def test_a_statement_of_he_or_she_after_a_question_naming_one_person_is_theirs():
    """A `make run` chat (stop 51): "any ideas for a small present for Rui? he's into vinyl records
    and cooking" saved nothing."""
    from memgpt_local.agent.facts import asked_of_someone

    assert asked_of_someone("good. any ideas for a small present for Rui? he's into vinyl records and cooking") == (
        "Rui's into vinyl records and cooking"
    )
    assert asked_of_someone("What should I cook for Ana on Friday? She loves lemon. I'm hopeless") == "Ana loves lemon."
    assert asked_of_someone("Should I call Tom or Ana? He is busy") == ""  # who?
    # a place is nobody (a `make run` chat, stop 51: "France loves cheese ..."); "my mum" is somebody
    mum = "any ideas what I could bring my mum from France? she loves cheese but it has to survive a 12 hour flight"
    assert asked_of_someone(mum) == "my mum loves cheese but it has to survive a 12 hour flight"
    assert asked_of_someone("what's my dog called? she is lovely") == ""  # no name asked


@pytest.mark.parametrize(
    "said, named",
    [
        (  # a `make run` chat (stop 52): saved as the user's own "Age: 7"
            "Our granddaughter Elodie is coming to stay over Christmas, she's seven.",
            "Our granddaughter Elodie is coming to stay over Christmas, Elodie's seven.",
        ),
        (
            "My sister Ana just turned 40, she's a nurse in Porto.",
            "My sister Ana just turned 40, Ana's a nurse in Porto.",
        ),
        (
            "My brother Piotr lives in Oslo. He works as a dentist.",
            "My brother Piotr lives in Oslo. Piotr works as a dentist.",
        ),
        ("My mum is visiting, she lands on Friday.", "My mum is visiting, my mum lands on Friday."),
        ("I met Tom at the gym and he trains daily.", "I met Tom at the gym and Tom trains daily."),
        # the same pronoun again, past a capitalised word that names nobody (a `make run` chat, stop 60)
        (
            "We have an old dog called Bamse, he's a Bernese mountain dog and he's nearly twelve.",
            "We have an old dog called Bamse, Bamse's a Bernese mountain dog and Bamse's nearly twelve.",
        ),
        # two people, a place, or nobody before it: the pronoun stays
        ("My husband Henri and I went to Lyon with Ana, she loved it.", None),
        ("We went to Lisbon in May, she loved it.", None),
        ("We moved in over Easter and she cried.", None),
        ("Marguerite here, she says hi.", None),  # the user, by name
    ],
)
def test_he_or_she_after_words_of_one_person_is_given_their_name(said, named):
    from memgpt_local.agent.fact_owners import pronouns_named

    assert pronouns_named(said, "Marguerite") == (named or said)


def test_he_or_she_with_no_one_before_it_is_the_one_the_assistant_spoke_of():
    """A `make run` chat (stop 52): "banana bread is a great idea, she loves bananas", after a
    reply about baking with Elodie, saved the user's own "Fruit: bananas"."""
    from memgpt_local.agent.fact_owners import pronouns_named

    reply = "I'm glad you're baking with Elodie. One easy thing to bake with her is a simple cake."
    said = "banana bread is a great idea, she loves bananas."
    assert pronouns_named(said, "Marguerite", reply) == "banana bread is a great idea, Elodie loves bananas."
    assert pronouns_named("She loves bananas.", "Marguerite", reply) == "Elodie loves bananas."
    assert pronouns_named(said, "Marguerite", "Hello Marguerite! How are you?") == said  # the user
    assert pronouns_named(said, "Marguerite", "Do Henri and Elodie bake?") == said  # two people
    # the same pronoun goes on meaning the same one (stop 52: the job was saved as Elodie's)
    son = "it's Julien, he's Elodie's dad. he's a cardiologist in Lyon."
    assert pronouns_named(son, "Marguerite") == "it's Julien, Julien's Elodie's dad. Julien's a cardiologist in Lyon."
    from memgpt_local.agent.fact_owners import someone_elses

    job = ["Job: cardiologist in Lyon"]
    assert someone_elses(job, son, "Marguerite", pronouns_named(son, "Marguerite")) == [
        "Julien's job: cardiologist in Lyon"
    ]
    assert someone_elses(job, son, "Marguerite") == ["Elodie's job: cardiologist in Lyon"]  # the last one spoken of


@pytest.mark.parametrize(
    "lines, said, written",
    [
        (  # a `make run` chat (stop 52): the son's job over the user's own
            ["Work: cardiologist in Lyon", "Son: Julien"],
            "it's Julien, Julien's Elodie's dad. Julien's a cardiologist in Lyon. he's a cardiologist in Lyon.",
            ["Julien's work: cardiologist in Lyon", "Son: Julien"],
        ),
        (
            ["Age: 40", "Work: nurse in Porto"],
            "My sister Ana just turned 40, Ana's a nurse in Porto.",
            ["Ana's age: 40", "Ana's work: nurse in Porto"],
        ),
        # the user's own, said beside someone else's
        (["Work: nurse in Porto"], "I'm a nurse in Porto and my sister Ana is too.", ["Work: nurse in Porto"]),
        (["Age: 40"], "I just turned 40, my sister Ana threw a party.", ["Age: 40"]),
        (["Home: Leeds"], "My husband and I live in Leeds.", ["Home: Leeds"]),
        (["Hobby: chess"], "Sam here, Sam's into chess.", ["Hobby: chess"]),  # the user, by name
        # the thing the sentence opens with is no one (a `make run` chat, stop 57: "Lessons's lessons: ...")
        (["Lessons: on Thursday evenings"], "Lessons are on Thursday evenings.", ["Lessons: on Thursday evenings"]),
        # told across a sentence's clauses, the later one going on with the verb (a `make run` chat, stop 62:
        # "Health: dementia, moved into carehome" was the user's, and the next login greeted "I know that you
        # have dementia and moved into a care home.")
        (
            ["Health: dementia, moved into carehome", "Moved to care home: Llanelli"],
            "My dad's got dementia and moved into a care home in Llanelli last month. It's been a rough few weeks",
            ["Dad's health: dementia, moved into carehome", "Dad's moved to care home: Llanelli"],
        ),
        (
            ["Home: Llanelli"],
            "My dad's got dementia and I moved to Llanelli to be near him.",
            ["Home: Llanelli"],
        ),
        (["Work: a nurse"], "My sister Ana is a teacher and works with me, I'm a nurse.", ["Work: a nurse"]),
        (["Home: Bradford"], "My mum's got diabetes and moved in with my aunt in Bradford.", ["Mum's home: Bradford"]),
    ],
)
def test_a_fact_told_only_of_someone_else_as_the_subject_is_theirs(lines, said, written):
    from memgpt_local.agent.fact_owners import told_of_by_subject

    assert told_of_by_subject(lines, said, "Sam") == written


def test_a_relative_of_someone_else_is_no_relative_of_the_users():
    """A `make run` chat (stop 52): "it's Julien, he's Elodie's dad" saved "Father: Elodie's dad",
    and "Granddaughter: Elodie's dad" replaced Elodie's own line and her visit."""
    from memgpt_local.agent.fact_lines import someone_elses_relative
    from memgpt_local.agent.fact_owners import kept_relations
    from memgpt_local.agent.facts import _files_what_was_asked

    assert someone_elses_relative("Father: Elodie's dad") and someone_elses_relative("Julien's Elodie's dad: Julien")
    assert not someone_elses_relative("Son: Julien, Elodie's dad") and not someone_elses_relative("Work: Ana's bakery")
    saved = ["Granddaughter: Elodie, coming to stay"]
    assert kept_relations(["Father: Elodie's dad"], saved, "it's Julien, he's Elodie's dad") == ["Father: Elodie's dad"]
    # what the answer pass is for: no line files what the assistant asked about
    denial = "I don't know your son's name."
    assert not _files_what_was_asked(["Julien's work: cardiologist in Lyon"], denial)
    assert _files_what_was_asked(["Son: Julien"], denial) and _files_what_was_asked(["Home: Leeds"], "Sorry?")


def test_someone_elses_relative_and_an_answer_about_someone_are_theirs():
    """A `make run` chat (stop 52): after "I don't know Henri's favourite food.", "no, I don't think I
    ever said. it's cassoulet, he'd eat it every day. Julien and his wife Chloé fly back from
    Montreal on the 2nd of January." saved "Spouse: Chloé" and "Favorite dish: cassoulet"."""
    from memgpt_local.agent.fact_owners import owned_as_denied, pronouns_named, their_relations

    denial = "I don't know Henri's favourite food."
    said = "no, I don't think I ever said. it's cassoulet, he'd eat it every day. Julien and his wife Chloé fly back."
    named = pronouns_named(said, "Marguerite", denial)
    assert "it's cassoulet, Henri'd eat it every day." in named  # the nearest one spoken of, in the reply
    assert their_relations(["Spouse: Chloé"], said, "Marguerite") == ["Julien's wife: Chloé"]
    assert their_relations(["Sister: Eva"], "My wife Ana and her sister Eva came.", "Tom") == ["Ana's sister: Eva"]
    assert their_relations(["Wife: Ana"], "My wife Ana and her sister Eva came.", "Tom") == ["Wife: Ana"]
    # a name after "in", "at" or "from" is a place, not whose: "Cardiff's husband: Owain" (stop 61)
    ceri = "My friend Ceri lives in Cardiff with her husband Owain."
    assert their_relations(["Husband: Owain"], ceri, "Tom") == ["Ceri's husband: Owain"]
    assert their_relations(["Husband: Owain"], "We drove to Cardiff with her husband Owain.", "Tom") == [
        "Husband: Owain"
    ]
    assert owned_as_denied(["Favorite dish: cassoulet"], denial, named, "Marguerite") == [
        "Henri's favorite dish: cassoulet"
    ]
    mine = "My favourite food is sushi, by the way."
    assert owned_as_denied(["Favorite food: sushi"], denial, mine, "Marguerite") == ["Favorite food: sushi"]


def test_a_day_the_block_files_already_is_not_saved_again_under_another_label():
    """A `make run` chat (stop 51): "we fly on the 20th, remember?" saved "Flight: on the 20th
    (2026-12-20)" beside "Trip: to the Azores, moved to fly on the 20th (2026-12-20)"."""
    from datetime import date

    from memgpt_local.agent.fact_merge import merge

    block = "Name: Ines\nTrip: to the Azores, moved to fly on the 20th (2026-12-20)"
    value, notes = merge(
        block, ["Flight: on the 20th (2026-12-20)"], 2000, "we fly on the 20th, remember?", date(2026, 12, 6)
    )
    assert value == block and not notes.changed
    value, notes = merge(block, ["Dentist: on the 21st (2026-12-21)"], 2000, "dentist on the 21st", date(2026, 12, 6))
    assert notes.added == ["Dentist: on the 21st (2026-12-21)"]


def test_an_event_the_user_never_spoke_of_is_no_fact():
    """A `make run` chat (stop 51): "what could I cook for Adaeze this Friday?" was saved as
    "Adaeze's birthday: this Friday (2026-12-11)", the plan example's birthday."""
    from memgpt_local.agent.fact_lines import grounded

    assert not grounded("Adaeze's birthday: this Friday", "what could I cook for Adaeze this Friday?")
    assert grounded("Death: this morning", "Pwdin died this morning")  # said another way
    assert grounded("Wedding: June", "my sister is getting married in June")
    assert grounded("Orla's birthday: the 22nd", "the 22nd, I told you earlier.", "When is Orla's birthday?")


def test_a_request_to_the_listener_is_no_fact():
    """A `make run` chat (stop 51): "Marking mock exams all weekend, send help" saved "Contact: send help"."""
    from memgpt_local.agent.fact_lines import asks_the_listener, worth_saving

    said = "Morning! I'm Femi, I teach geography. Marking mock exams all weekend, send help"
    assert not worth_saving("Contact: send help", said) and asks_the_listener("Luck: wish me luck")
    assert not worth_saving("Send help: yes", said)  # the same, as a trait
    assert not asks_the_listener("Work: helps refugees") and not asks_the_listener("Hobby: sending postcards")
    # a need for ideas (stop 52)
    assert asks_the_listener("Elodie's only little: needs ideas for baking")
    assert asks_the_listener("Garden: looking for advice on blight")
    assert not asks_the_listener("Work: advice worker") and not asks_the_listener("Needs: a new kettle")


def test_a_flight_moved_to_another_day_moves_the_one_trip_ahead():
    """A `make run` chat (stop 51): "ugh, our flight got pushed back, we now leave on the 21st"
    saved "Flight: pushed back", "Departure date: 21st" and "Departure: on the 21st (2026-12-21)",
    and "Trip: to Lagos to see parents (on the 19th, 2026-12-19)" stayed as it was."""
    from datetime import date

    from memgpt_local.agent.fact_lines import passing_state, without_bare_days
    from memgpt_local.agent.fact_merge import merge

    assert passing_state("Flight: pushed back")
    lines = without_bare_days(["Departure date: 21st", "Departure: on the 21st (2026-12-21)"])
    assert lines == ["Departure: on the 21st (2026-12-21)"]
    block = "Name: Femi\nTrip: to Lagos to see parents (on the 19th, 2026-12-19)"
    said = "nice, a jersey is a good shout. ugh, our flight got pushed back, we now leave on the 21st"
    value, notes = merge(block, lines, 2000, said, date(2026, 12, 6))
    assert value == "Name: Femi\nTrip: to Lagos to see parents, moved to the 21st (2026-12-21)" and not notes.added
    # said other ways (bench_notes moved-held): the flight's line is no bare day, or the move is its label
    crete = "Name: Mei\nHoliday: in Crete on the 20th (2026-12-20)"
    flight = "Flight: pushed back a day, leaving on the 21st (2026-12-21) now"
    value, _ = merge(
        crete, [flight], 2000, "Our flight's been pushed back a day, we leave on the 21st now.", date(2026, 12, 3)
    )
    assert value.splitlines()[1] == "Holiday: in Crete, pushed back a day, leaving on the 21st (2026-12-21) now"
    accra = without_bare_days(["Accra trip postponed: 18th", "Flight: out on the 18th (2026-12-18)"])
    assert accra == ["Flight: out on the 18th (2026-12-18)"]
    dinner = "Name: Mei\nDinner: with Lars at Nora's on Saturday (2026-12-05)\nTrip: Rome (2026-12-20)"
    value, _ = merge(
        dinner, ["Lars dinner: on Sunday (2026-12-06)"], 2000, "Lars moved our dinner to Sunday.", date(2026, 12, 3)
    )
    assert "Dinner: with Lars at Nora's, moved to Sunday (2026-12-06)" in value and "Saturday" not in value
    # a line with no day and nothing in common is no change of a plan (a `make run` chat, stop 51)
    rio = "Name: Mateus\nFlight: to Rio on the 22nd (2026-12-22) to see family"
    value, notes = merge(rio, ["Flight: 12 hours"], 2000, "it has to survive a 12 hour flight", date(2026, 12, 6))
    assert value == rio and not notes.changed
    # something else that moved is not the trip
    value, notes = merge(
        block, ["Dentist: Friday (2026-12-11)"], 2000, "my dentist got moved to Friday", date(2026, 12, 6)
    )
    assert notes.added == ["Dentist: Friday (2026-12-11)"] and "on the 19th" in value


def test_a_change_of_plan_said_with_now_moves_the_visit_to_its_new_day():
    """A `make run` chat (stop 52): "change of plan by the way: Elodie is now arriving on the 20th"
    saved "Elodie's arrival: 20th", undated, beside her visit over Christmas."""
    from datetime import date, datetime, timezone

    from memgpt_local.agent.fact_merge import merge
    from memgpt_local.agent.facts import carry_days

    said = (
        "thanks. oh, change of plan by the way: Elodie is now arriving on the 20th, her parents are flying to Montreal."
    )
    lines = ["Elodie's arrival: 20th", "Elodie's parents: flying to Montreal"]
    dated = carry_days(lines, said, datetime(2026, 12, 6, 12, tzinfo=timezone.utc))
    assert dated == ["Elodie's arrival: 20th (2026-12-20)", "Elodie's parents: flying to Montreal"]
    block = "Name: Marguerite\nGranddaughter: Elodie, coming to stay over Christmas (2026-12-25)"
    value, _ = merge(block, dated, 2000, said, date(2026, 12, 6))
    assert value.splitlines()[1] == "Granddaughter: Elodie, coming to stay, moved to the 20th (2026-12-20)"
    assert "Christmas" not in value and "Elodie's parents: flying to Montreal" in value


def test_a_move_takes_the_old_town_out_of_a_line_that_says_the_user_is_based_there():
    """Eval chat seed 31, second wording (stop 51): "Work: Librarian by trade, based in Burquoanton"
    stayed beside "Home: Nousaorabury (moved from Burquoanton)"."""
    from memgpt_local.agent.fact_merge import merge

    block = "Name: Prixfeo\nWork: Librarian by trade, based in Burquoanton"
    said = "We finally left Burquoanton. I live in Nousaorabury now."
    value, notes = merge(block, ["Home: Nousaorabury (moved from Burquoanton)"], 2000, said)
    assert value.splitlines() == [
        "Name: Prixfeo",
        "Work: Librarian by trade",
        "Home: Nousaorabury (moved from Burquoanton)",
    ]
    kept = "Name: Ana\nWork: nurse at Burquoanton General"  # where the work is: not said to have changed
    value, _ = merge(kept, ["Home: Nousaorabury (moved from Burquoanton)"], 2000, said)
    assert "nurse at Burquoanton General" in value


# ---- a `make run` chat as Priya, a night nurse (stop 53)


@pytest.mark.parametrize(
    ("line", "said", "written"),
    [
        ("Vegetarianism: Sam is", "Sam is vegetarian and my mum thinks lamb is a meal.", "Sam: vegetarian"),
        ("Allergy: allergic to", "I'm allergic to cats, sadly.", "Allergy: allergic to cats"),
        ("Plan: visit the", "We plan to visit the", None),  # nothing said after it
        ("Work: nurse", "I'm a nurse.", "Work: nurse"),  # nothing cut off
        ("Birthday: Sam's", "Ha, it's Sam's birthday, not mine!", None),  # only whose it is
        ("Wife's sister: Ola's sister", "She's Ola's sister actually, not mine!", None),
        ("Favourite restaurant: Nando's", "My favourite restaurant is Nando's.", "Favourite restaurant: Nando's"),
    ],
)
def test_a_value_cut_off_after_a_little_word_is_read_on_in_the_users_words(line, said, written):
    from memgpt_local.agent.fact_completion import completed

    assert completed(line, said) == written


def test_a_fact_told_of_a_saved_person_joins_their_line_not_a_cut_off_one(store):
    runner = make_runner(store, ['{"facts": ["Vegetarianism: Sam is"]}'], fact_notes={"enabled": True})
    store.core.set_value(runner.facts.agent_id, "human", "Name: Priya\nPartner: Sam, chef")
    notes = runner.facts.note("I'm a bit nervous. Sam is vegetarian and my mum loves lamb.")
    assert notes.lines() == ["changed: Partner: Sam, chef -> Partner: Sam, chef; vegetarian"]


@pytest.mark.parametrize(
    ("line", "said", "news"),
    [
        ("Phone: knocked into the bath", "Mango knocked my phone into the bath this morning.", True),
        ("Car: broke down", "The car broke down on the way home today.", True),
        ("Dog: adopted this morning", "We adopted a dog this morning!", False),  # a pet: a fact
        ("Car: broke down", "The car broke down last year.", False),  # not today's
        ("Phone: cracked screen", "My phone has a cracked screen.", False),  # what holds, not what happened
        ("Dog: Pepper chewed through headphones", "Pepper chewed through my headphones last night.", True),
        ("Dog: Nova, rescued today", "We rescued a greyhound today, Nova!", False),  # a new pet
    ],
)
def test_what_happened_to_a_thing_today_is_the_days_news(line, said, news):
    from memgpt_local.agent.fact_lines import days_news

    assert days_news(line, said) is news


def test_when_the_one_fact_of_a_sentence_begins_is_written_onto_it():
    from datetime import datetime

    when = datetime.fromisoformat(THURSDAY)
    said = "Great news, Tom's landed a job as a paramedic in Leeds, starts in February."
    job = carry_days(["Partner: Tom, landed a job as a paramedic in Leeds"], said, when)
    assert job == ["Partner: Tom, landed a job as a paramedic in Leeds, starts in February (2027-02)"]
    course = carry_days(["Course: pottery", "Work: nurse"], "I got onto a pottery course, it starts on Monday.", when)
    assert course == ["Course: pottery, starts on Monday (2026-12-07)", "Work: nurse"]


def test_a_value_that_only_says_its_label_again_is_no_fact():
    from memgpt_local.agent.fact_lines import says_only_its_label

    assert says_only_its_label("Phone survived barely: barely")
    assert not says_only_its_label("Phone: survived") and not says_only_its_label("Allergy: peanuts")


@pytest.mark.parametrize(
    ("sentence", "leaving"),
    [
        ("Anyway, I need to sleep before my shift.", True),
        ("Okay, I better head off.", True),
        ("I should get going, thanks!", True),
        ("I need to sleep more, my doctor says.", False),
        ("I have to go to Leeds on Friday.", False),
        ("I have to leave for the airport at 5.", False),
        # a sign-off (the replay of a `make run` chat, stop 61)
        ("ok gotta get back to chapter 3, speak later", True),
        ("Bye for now!", True),
        ("Cheerio!", True),
        ("We talk later about the wedding plans with Mum.", False),
        ("Night shifts are hard.", False),
        # "I" unsaid, and a clause of it (a `make run` chat, stop 63)
        ("anyway gotta go, my flatmate Rhys is making pasta", True),
        ("right, early start at the bakery, night!", True),
        ("gotta go to the shops later, my mum is visiting", False),
    ],
)
def test_a_sentence_of_leaving_now_states_no_fact(sentence, leaving):
    from memgpt_local.text import is_leaving_now

    assert is_leaving_now(sentence) is leaving


def test_what_follows_a_first_gotta_go_is_still_news_and_what_comes_before_a_sign_off_is_not():
    from memgpt_local.text import not_leaving

    assert not_leaving("anyway gotta go, my flatmate Rhys is making pasta") == "my flatmate Rhys is making pasta"
    assert not_leaving("ok gotta get back to chapter 3, speak later") == ""  # stop 61: a "graduation plan"
    assert not_leaving("Anyway, I need to sleep before my shift.") == ""
    assert not_leaving("I have to go to Leeds on Friday.") == "I have to go to Leeds on Friday."


def test_a_day_already_on_its_owners_line_or_of_when_the_one_other_fact_begins_joins_it():
    from memgpt_local.agent.fact_lines import without_bare_days

    flight = "Mum: flying in from Chennai (on the 19th, 2026-12-19)"
    assert without_bare_days([flight, "Mum's arrival: 19th (2026-12-19)"]) == [flight]
    job = ["Sam's work: head chef at a restaurant in Clifton", "Sam's starts: in January (2027-01)"]
    assert without_bare_days(job) == ["Sam's work: head chef at a restaurant in Clifton, from January (2027-01)"]
    two = ["Course: pottery", "Work: nurse", "Starts: Monday (2026-12-07)"]
    assert without_bare_days(two) == two  # which one begins is not known


def test_a_relatives_line_gathers_what_is_told_of_them_but_not_what_happened():
    said = "Ha, my mum would never eat turkey."
    value, _ = merge("Name: Priya\nMum: flying in from Chennai (2026-12-19)", ["Mum: never eats turkey"], 2000, said)
    assert value.splitlines()[1] == "Mum: flying in from Chennai (2026-12-19); never eats turkey"
    block = "Name: Priya\nMum: flying in from Chennai (2026-12-19)"
    value, _ = merge(block, ["Mum: missed her connection"], 2000, "Mum missed her connection!")
    assert value == block


def test_an_age_to_come_is_someones_birthday_with_its_day():
    """ "Also Sam turns 35 on the 14th" was saved as the user's "Age: 35", the day lost."""
    from datetime import datetime

    from memgpt_local.agent.fact_owners import told_of_by_subject

    said = "Also Sam turns 35 on the 14th and I have no idea what to get him."
    when = datetime.fromisoformat("2026-12-06T15:00:00+00:00")
    dated = carry_days(["Name: Sam", "Age: 35"], said, when)
    assert dated == ["Name: Sam", "Birthday: turns 35 on the 14th (2026-12-14)"]
    assert keep_owners(dated[1:], said, when) == ["Sam's birthday: turns 35 on the 14th (2026-12-14)"]
    assert told_of_by_subject(["Age: 35"], said, "Priya") == ["Sam's age: 35"]  # "Also" opens the clause


def test_a_relatives_fact_told_of_another_relative_is_theirs():
    """A `make run` chat (stop 53, as Tomasz): "My wife Ola is vegan and my mum says that's
    nonsense." saved "Mum: vegan"; "We're going to Ola's sister Magda's place" saved the user's
    own "Sister: Magda"."""
    from memgpt_local.agent.fact_owners import kin_told_of_another, their_relations

    said = "Hi, I'm Tomasz. I drive a tram in Krakow. My wife Ola is vegan and my mum says that's nonsense."
    assert kin_told_of_another(["Wife: Ola", "Mum: vegan"], said) == ["Wife: Ola", "Wife: Ola, vegan"]
    assert kin_told_of_another(["Mum: Ola, vegan"], said) == ["Wife: Ola, vegan"]  # the name comes along
    assert kin_told_of_another(["Mum: Ewa, vegan"], said) == ["Mum: Ewa, vegan"]  # someone else named: left
    siblings = "My sister is a nurse and my brother is a chef."
    assert kin_told_of_another(["Sister: nurse", "Sister: chef"], siblings) == ["Sister: nurse", "Brother: chef"]
    assert kin_told_of_another(["Partner: chef"], "My boyfriend is a chef.") == ["Partner: chef"]
    assert kin_told_of_another(["Mum: vegan"], "Honestly I think going vegan is hard, my mum agrees.") == [
        "Mum: vegan"
    ]  # no relative is the subject of what tells it
    hip = "Rui's mum broke her hip on Sunday, so we're driving to Porto."
    assert kin_told_of_another(["Mum: broke her hip"], hip) == ["Rui's mum: broke her hip"]
    assert kin_told_of_another(["Mum: broke her hip"], "My mum broke her hip on Sunday.") == ["Mum: broke her hip"]
    party = "We're going to Ola's sister Magda's place for her birthday party on Saturday."
    assert their_relations(["Sister: Magda"], party, "Tomasz") == ["Ola's sister: Magda"]
    assert their_relations(["Sister: Magda"], "My sister Magda's place is lovely.", "Tomasz") == ["Sister: Magda"]


def test_a_word_the_user_puts_right_is_put_right_in_the_saved_line(store):
    """A `make run` chat (stop 57): the notes pass saved "Lesions: on Thursday evenings", the greeting
    said "I know you have Lesions on Thursday 10 December evenings.", and "Ha, lessons, not
    lesions! Oud lessons." changed nothing."""
    from memgpt_local.agent.fact_merge import corrected_words

    # the pass read "lesions" as health again: its line is dropped
    runner = make_runner(store, ['{"facts": ["Health: Oud lessons, not lesions"]}'] * 4, fact_notes={"enabled": True})
    store.core.set_value(runner.agent_id, "human", "Name: Hamid\nLesions: on Thursday evenings")
    notes = runner.facts.note("Ha, lessons, not lesions! Oud lessons.")
    assert notes.lines() == ["changed: Lesions: on Thursday evenings -> Lessons: on Thursday evenings"]
    assert store.core.get(runner.agent_id, "human").value == "Name: Hamid\nLessons: on Thursday evenings"
    saved = ["Daughter: Sarah", "Dad: Tom", "Lessons: on Thursday evenings"]
    assert corrected_words(saved, "It's Sara not Sarah.") == [("Daughter: Sarah", "Daughter: Sara")]
    # no word for another: another word, a word no line says, a day (its date is the notes pass's)
    assert corrected_words(saved, "Mum's the one, not Dad.") == []
    assert corrected_words(saved, "I'm tired, not sleepy.") == []
    assert corrected_words(saved, "They're on Tuesday, not Thursday.") == []
    # a thing for a thing, said with its article (a `make run` chat, stop 58)
    porto = ["Name: Tomás", "Porto party: her birthday in January (2027-01)"]
    fixed = ("Porto party: her birthday in January (2027-01)", "Porto trip: her birthday in January (2027-01)")
    assert corrected_words(porto, "It's a trip, not a party! What does Ana do?") == [fixed]
    assert corrected_words(["Drink: tea"], "I'd like a tea, not a coffee.") == []  # no line says coffee
    assert corrected_words(["Dog: Pimienta"], "Ana has a cat, not a dog.") == []  # not what something is


def test_a_relative_the_user_says_is_someone_elses_is_refiled_under_them(store):
    """A `make run` chat (stop 53, as Tomasz): the greeting spoke of "a sister named Magda", and
    "She's Ola's sister actually, not mine!" saved "Wife's sister: Ola's sister" beside the
    wrong line."""
    from memgpt_local.agent.fact_owners import disowned_relatives

    runner = make_runner(
        store,
        ['{"facts": ["Sister: Magda, turns 40 on the 20th", "Wife\'s sister: Ola\'s sister"]}'] + ['{"facts": []}'] * 3,
        fact_notes={"enabled": True},
    )
    store.core.set_value(runner.agent_id, "human", "Name: Tomasz\nWife: Ola\nSister: Magda, turns 40 on the 20th")
    greeting = "Hello Tomasz! I know you have a sister named Magda who is turning 40."
    notes = runner.facts.note("She's Ola's sister actually, not mine!", answering=greeting)
    assert notes.lines() == [
        "changed: Sister: Magda, turns 40 on the 20th -> Ola's sister: Magda, turns 40 on the 20th"
    ]
    assert (
        store.core.get(runner.agent_id, "human").value.splitlines()[-1] == "Ola's sister: Magda, turns 40 on the 20th"
    )
    saved = ["Sister: Magda", "Sister: Ewa"]
    assert disowned_relatives(saved, "Magda is my wife's sister, not mine.") == [
        ("Sister: Magda", "Wife's sister: Magda")
    ]
    assert disowned_relatives(saved, "No, she's not my sister, she's Ola's.", greeting) == [
        ("Sister: Magda", "Ola's sister: Magda")
    ]
    assert disowned_relatives(saved, "She's Ola's sister, not mine.") == []  # which one: not said
    assert disowned_relatives(saved, "My sister Magda is great.", greeting) == []


@pytest.mark.parametrize(
    ("line", "said", "unsaid"),
    [
        (
            "Party: throwing a party for Magda's sister",
            "Ola's sister Magda turns 40, we're throwing her a party.",
            True,
        ),
        ("Ola's sister: Magda", "Ola's sister Magda turns 40, we're throwing her a party.", False),  # the label's
        ("Party: for Ola's younger sister", "Ola's younger sister Magda turns 40.", False),
        ("Dinner: with Julien's wife", "Julien and his wife Chloé came to dinner.", False),  # "his wife"
        ("Work: manager at Nando's", "I manage a Nando's.", False),  # no relative
    ],
)
def test_a_value_naming_a_relative_nobody_spoke_of_is_no_fact(line, said, unsaid):
    """A `make run` chat (stop 53, as Tomasz): "Ola's sister Magda turns 40 on the 20th, we're
    throwing her a party." was written "Party: throwing a party for Magda's sister"."""
    from memgpt_local.agent.fact_lines import unsaid_relative, worth_saving

    assert unsaid_relative(line, said) is unsaid
    if unsaid:
        assert not worth_saving(line, said)


def test_a_pronoun_is_no_one_whose_plan_it_is():
    """A `make run` chat (stop 54, as Kenji): "She's bringing my grandson Leo over on Saturday"
    saved "Grandson: She, Leo, coming over on Saturday"."""
    from memgpt_local.agent.facts import plan_owner

    assert plan_owner("She's bringing my grandson Leo over on Saturday") is None
    assert plan_owner("Sam's flying back on Friday") == "Sam"
    assert plan_owner("my sister is visiting tomorrow") == "sister"


def test_a_death_the_user_tells_stays_on_the_line_of_the_one_who_died():
    """A `make run` chat (stop 54, as Kenji): "My wife Michiko passed away two years ago this
    winter." was saved "Wife: Michiko", and a greeting may then ask after her."""
    from memgpt_local.agent.fact_news import deaths_told

    said = "My wife Michiko passed away two years ago this winter. The house gets very quiet some evenings."
    assert deaths_told(["Wife: Michiko"], [], said) == ["Wife: Michiko, passed away two years ago this winter"]
    assert deaths_told([], ["Wife: Michiko"], "My wife Michiko passed away in 2024.") == [
        "Wife: Michiko, passed away in 2024"
    ]  # joins the saved line
    assert deaths_told(["Hobby: chess"], [], "My dad died in March.") == ["Hobby: chess", "Dad: died in March"]
    cat = "We lost our cat Miso last spring, I still miss her."
    assert deaths_told(["Pet: Miso"], [], cat) == ["Pet: Miso, lost last spring"]
    # said without the name, beside a saved line that names them: it joins that line
    assert deaths_told([], ["Name: Kenji", "Dad: Tom, retired"], "My dad died in March.") == ["Dad: Tom, died in March"]
    # a word or two before the kind (bench_notes loss-held, stop 54, after its held run)
    collie = "We lost our old collie Bess in the summer, I still miss her."
    assert deaths_told(["Collie: Bess"], [], collie) == ["Collie: Bess, lost in the summer"]
    told = ["Father: died in March (2026-03)"]
    assert deaths_told(told, [], "My dad died in March, it's been a hard year.") == told  # said already
    assert deaths_told(["Dad: Tom, retired"], [], "I lost my job in March.") == ["Dad: Tom, retired"]
    # "passed" alone, as people say it (a `make run` chat, stop 63), told up to its clause's end
    tomas = "Tomás here, retired postman from Cork. my wife Bríd passed two years ago so it's just me and the dog now"
    assert deaths_told(["Wife: Bríd"], [], tomas) == ["Wife: Bríd, passed two years ago"]
    assert deaths_told([], [], "my nan passed.") == ["Nan: passed"]
    assert deaths_told(["Son: Rory"], [], "my son Rory passed his driving test") == ["Son: Rory"]  # no death
    assert deaths_told(["Son: Rory"], [], "my son Rory passed a test today") == ["Son: Rory"]


def test_a_past_of_long_ago_changes_no_saved_fact():
    """A `make run` chat (stop 54, as Kenji): "I grew up in Osaka, came to England in 1982 for a
    teaching job." made "Work: retired maths teacher" into "Work: teaching job in England"."""
    from datetime import date

    from memgpt_local.agent.fact_merge import merge, told_years_ago

    saved = "Name: Kenji\nWork: retired maths teacher"
    said = "Fair enough. I grew up in Osaka, came to England in 1982 for a teaching job."
    today = date(2026, 12, 6)
    value, notes = merge(saved, ["Work: teaching job in England", "Hometown: Osaka"], 2000, said, today)
    assert value == f"{saved}\nHometown: Osaka" and notes.kept == [
        ("Work: retired maths teacher", "Work: teaching job in England")
    ]
    assert told_years_ago("Hobby: marathons", "I used to run marathons, now I just walk.", today)
    now = "I started a new teaching job at a school in Leeds in 2026."
    assert not told_years_ago("Work: teaching job at a school in Leeds", now, today)
    assert merge(saved, ["Work: teaching job at a school in Leeds"], 2000, now, today)[0].endswith("in Leeds")


def test_years_old_after_an_age_said_bare_is_grounded():
    """bench_notes loss-held (stop 54, after its held run): "she's four" was written "Granddaughter:
    Mia, four years old" and dropped as not said."""
    from memgpt_local.agent.fact_lines import grounded

    said = "He's bringing my granddaughter Mia round on Friday, she's four."
    assert grounded("Granddaughter: Mia, four years old", said)
    assert not grounded("Granddaughter: Mia, nine years old", said)  # another age
    assert not grounded("Granddaughter: Mia, loves old films", said)


@pytest.mark.parametrize(
    ("line", "said", "written"),
    [
        ("Work: Surktoettebury", "Big news: I've moved from Kondgruetteton to Surktoettebury!", "Home: Surktoettebury"),
        ("Town: Leeds", "We finally moved to Leeds last month.", "Town: Leeds"),  # a home label already
        ("Place: Leeds", "We finally moved to Leeds last month.", "Home: Leeds"),
        ("Work: architect in Leeds", "I've moved to Leeds.", "Work: architect in Leeds"),  # more than the place
        ("Sister: York", "My sister moved to York.", "Sister: York"),  # not the user's move
    ],
)
def test_the_place_the_user_moved_to_is_their_home(line, said, written):
    """Eval chat seed 34 (stop 54; stop 53's code the same): "Big news: I've moved from
    Kondgruetteton to Surktoettebury!" was written "Work: Surktoettebury", which replaced the job."""
    from memgpt_local.agent.fact_homes import moved_to

    assert moved_to(line, said) == written


@pytest.mark.parametrize(
    ("line", "message", "off_topic"),
    [
        (
            "Favorite meal: Saw a brilliant octopus documentary yesterday",
            "Saw a brilliant octopus documentary yesterday.",
            True,
        ),
        ("Favorite meal: lamb tagine with apricots", "Lamb tagine with apricots.", False),
        ("Favourite meal: my mum makes the best lamb tagine", "My mum makes the best lamb tagine.", False),
        (
            "Documentary: Saw a brilliant octopus documentary yesterday",
            "Saw a brilliant octopus documentary yesterday.",
            False,
        ),
        (
            "Ewa's favourite food: Kuba's team",
            "Kuba's team won two games but lost the semi-final. He was gutted but he scored a goal!",
            True,
        ),
        ("Ewa's favourite food: pierogi", "Pierogi, she had three plates at Christmas.", False),
        ("Sister's wedding: the 14th", "The 14th, I told you.", False),
    ],
)
def test_a_message_of_what_happened_is_no_answer_to_another_topic(line, message, off_topic):
    """Eval chat seed 34 (stop 54; stop 53's code the same): asked "Do you have any favorite
    meals?", "Saw a brilliant octopus documentary yesterday." was saved "Favorite meal: Saw a
    brilliant octopus documentary yesterday"."""
    from memgpt_local.agent.fact_lines import message_under_another_topic

    assert message_under_another_topic(line, message) is off_topic


def test_a_there_in_a_plans_clause_is_the_place_named_before_it():
    """A `make run` chat (stop 55): "Sam got a job at the university in Bath, so we're moving
    there in April." was saved "Move: to there in April"; the plan's clause is asked with the place."""
    from memgpt_local.agent.facts import there_named

    before = "Bigger news though: Sam got a job at the university in Bath, so"
    assert there_named("we're moving there in April", before) == "we're moving to Bath in April"
    assert there_named("I'm going back there in May", "We loved Lisbon. We flew to Lisbon in March and") == (
        "I'm going back to Lisbon in May"
    )
    assert there_named("we'll stay there in June", "My aunt lives in Porto, and") == "we'll stay in Porto in June"
    assert there_named("there is a party in April", before) == "there is a party in April"  # no place
    assert there_named("we're moving there in April", "In March, so") == "we're moving there in April"


def test_a_label_for_what_was_asked_about_a_topic_is_the_topic():
    """ "any tips for a long run on Sunday?" was saved "Long run tips: on Sunday" (a `make run` chat, stop 55)."""
    from memgpt_local.agent.fact_wording import plain_label

    assert plain_label("Long run tips: on Sunday") == "Long run: on Sunday"
    assert plain_label("Present ideas: for Ana's birthday") == "Present: for Ana's birthday"
    assert plain_label("Tips: stretch first") == "Tips: stretch first"  # the label's only word stays


def test_a_value_that_only_compares_with_its_label_says_nothing():
    """ "At least it'll be closer to the race!" was saved "Race: closer to the race" (a `make run` chat, stop 55)."""
    from memgpt_local.agent.fact_lines import says_only_its_label

    assert says_only_its_label("Race: closer to the race")
    assert says_only_its_label("Allotment: nearer the allotment")
    assert not says_only_its_label("Race: the Bath half marathon")
    assert not says_only_its_label("Commute: shorter than before")


def test_it_opening_a_sentence_is_nobodys_name():
    """ "Fair enough. It's Spirited Away, by the way." answered "I don't know what your favourite film
    is." and was saved "It's favourite film: Spirited Away" (a `make run` chat, stop 55)."""
    from memgpt_local.agent.fact_owners import told_of_by_subject

    said = "Fair enough. It's Spirited Away, by the way."
    assert told_of_by_subject(["Favourite film: Spirited Away"], said, "Priya") == ["Favourite film: Spirited Away"]
    assert told_of_by_subject(["Film: Spirited Away"], "That's Spirited Away.", "Priya") == ["Film: Spirited Away"]


def test_a_plan_moved_to_another_month_moves_its_saved_line():
    """ "the half marathon got moved to May because of roadworks" was saved as a new line beside
    "Hobbies: ..., training for the Bath half marathon (in March, 2027-03)" (a `make run` chat, stop 55)."""
    from datetime import date, datetime, timezone

    from memgpt_local.memory.dates import annotate

    said = "Oh, update: the half marathon got moved to May because of roadworks."
    day = datetime(2026, 12, 6, 21, tzinfo=timezone.utc)
    line = annotate("Half marathon: moved to May due to roadworks", day, context=said)
    saved = "Name: Priya\nHobbies: baking, training for the Bath half marathon (in March, 2027-03)"
    value, notes = merge(saved, [line], 2000, said, date(2026, 12, 6))
    assert "(in March, 2027-03)" not in value and "moved to May (2027-05)" in value
    assert len(value.splitlines()) == 2 and notes.replaced


def test_an_animals_line_says_what_it_is_when_the_user_said_so():
    """ "our rescue greyhound Biscuit" was saved "Pet: Biscuit" (a `make run` chat, stop 55)."""
    from memgpt_local.agent.fact_animals import animal_kinds

    said = "I live in Bristol with my partner Sam and our rescue greyhound Biscuit."
    assert animal_kinds(["Pet: Biscuit", "Partner: Sam"], said) == ["Pet: Biscuit, rescue greyhound", "Partner: Sam"]
    assert animal_kinds(["Dog: Rex"], "my dog Rex is lovely") == ["Dog: Rex"]  # the label says it
    # a name typed in lower case (a `make run` chat, stop 59)
    typed = "hey im dmitri, retired engineer, live in tallinn with my cat pushok"
    assert animal_kinds(["Pet: Pushok", "Home: Tallinn"], typed) == ["Pet: Pushok, cat", "Home: Tallinn"]
    assert animal_kinds(["Pet: Rex, lazy"], "my dog Rex is lazy") == ["Pet: Rex, lazy"]  # more than a name
    assert animal_kinds(["Partner: Sam"], "my partner Sam") == ["Partner: Sam"]


def test_a_relatives_day_refiled_under_them_keeps_what_happens_on_it():
    """ "Sister's wedding: Anjali, in June" (the user said "getting married", not "wedding") was
    refiled "Sister: Anjali, in June", the wedding gone (a `make run` chat, stop 55)."""
    said = "My sister Anjali is getting married in June and I'm designing the invitations."
    assert refiled("Sister's wedding: Anjali, in June (2027-06)", ["Sister: Anjali"], said) == (
        "Sister: Anjali, wedding in June (2027-06)"
    )
    visiting = "My sister Vanbuton is visiting this weekend."  # the value says what happens: the label's word goes
    assert refiled("Sister's job: Vanbuton, visiting this weekend", ["Sister: Vanbuton"], visiting) == (
        "Sister: Vanbuton, visiting this weekend"
    )


def test_what_the_user_does_beside_a_relatives_news_is_not_the_relatives():
    """ "My sister Anjali is getting married in June and I'm designing the invitations." was saved
    "Sister's work: designing invitations" (a `make run` chat, stop 55)."""
    from memgpt_local.agent.fact_owners import the_users_own

    said = "My sister Anjali is getting married in June and I'm designing the invitations."
    assert the_users_own("Sister's work: designing invitations", said) == "Work: designing invitations"
    assert the_users_own("Sister's work: nurse", "My sister is a nurse and I teach.") == "Sister's work: nurse"
    assert the_users_own("Sister's wedding: in June", said) == "Sister's wedding: in June"


def test_a_plan_pushed_to_another_month_moves_its_saved_line():
    """bench_notes there-held (stop 55): "The parents' evening got pushed to February" left the
    saved evening on the 10th beside the new line ("pushed to" was no word of moving)."""
    from datetime import date

    said = "The parents' evening got pushed to February, which suits me better."
    saved = "Name: Joe\nParents' evening: on the 10th (2026-12-10)"
    value, _ = merge(saved, ["Parent's evening: pushed to February (2027-02)"], 2000, said, date(2026, 12, 3))
    assert value == "Name: Joe\nParents' evening: pushed to February (2027-02)"


def test_a_value_under_someones_label_does_not_name_them_again():
    """ "Sam's work: Sam got a job at the university in Bath" (a `make run` chat, stop 55)."""
    from memgpt_local.agent.fact_wording import plain_label

    assert plain_label("Sam's work: Sam got a job at the university in Bath") == (
        "Sam's work: got a job at the university in Bath"
    )
    assert plain_label("Sam's partner: Sam Jones") == "Sam's partner: Sam Jones"  # a name, no more


def test_a_label_that_tells_who_moved_a_plan_is_the_plan():
    """bench_notes moved-held (every run since stop 51): "Lars moved our dinner to Sunday." was
    written "Lars moved dinner: Sunday" beside the saved dinner on Saturday."""
    from datetime import date, datetime, timezone

    from memgpt_local.agent.fact_wording import plain_label
    from memgpt_local.memory.dates import annotate

    assert plain_label("Lars moved dinner: Sunday") == "Dinner: moved to Sunday"
    assert plain_label("Rescheduled our dentist: to the 14th") == "Dentist: moved to the 14th"
    assert plain_label("Moved house: last year") == "Moved house: last year"  # no plan's day
    assert plain_label("Moved house: on Saturday") == "Moved house: on Saturday"
    said = "Lars moved our dinner to Sunday."
    line = annotate(
        plain_label("Lars moved dinner: Sunday"), datetime(2026, 12, 3, 18, tzinfo=timezone.utc), context=said
    )
    saved = "Name: Mei\nDinner: with Lars at Nora's on Saturday (2026-12-05)"
    assert merge(saved, [line], 2000, said, date(2026, 12, 3))[0] == (
        "Name: Mei\nDinner: with Lars at Nora's, moved to Sunday (2026-12-06)"
    )


def test_a_meal_the_user_calls_their_favourite_is_no_days_news():
    """ "my favourite dinner is lamb tagine" was written "Dinner: lamb tagine" and dropped as one
    meal (eval chat seed 36, stop 55)."""
    from memgpt_local.agent.fact_completion import favourite_meal
    from memgpt_local.agent.fact_lines import worth_saving

    said = "By the way, I'm allergic to pollen, and my favourite dinner is lamb tagine."
    assert favourite_meal("Dinner: lamb tagine", said) == "Favourite dinner: lamb tagine"
    assert worth_saving("Favourite dinner: lamb tagine", said)
    breakfast = "Rui made me pastel de nata for breakfast."
    assert favourite_meal("Breakfast: pastel de nata", breakfast) == "Breakfast: pastel de nata"
    assert not worth_saving("Breakfast: pastel de nata", breakfast)


@pytest.mark.parametrize(
    ("line", "said", "written"),
    [
        # a `make run` chat (stop 56)
        ("Language: Spanish", "I'm learning Spanish for Ewa's 40th in Seville.", "Language: learning Spanish"),
        ("Language: Spanish", "I've started Spanish lessons on Tuesdays.", "Language: learning Spanish"),
        ("Instrument: cello", "I'm learning the cello.", "Instrument: learning cello"),
        # spoken already, or said so in the line: unchanged
        ("Language: Spanish", "I speak Spanish at home.", "Language: Spanish"),
        ("Language: learning Spanish", "I'm learning Spanish.", "Language: learning Spanish"),
        ("Hobby: Spanish classes", "I take Spanish classes.", "Hobby: Spanish classes"),
        ("Work: Spanish", "I teach Spanish classes at the college.", "Work: Spanish"),  # lessons given
    ],
)
def test_what_the_user_is_learning_is_not_saved_as_known(line, said, written):
    from memgpt_local.agent.fact_completion import still_learning

    assert still_learning(line, said) == written


@pytest.mark.parametrize(
    ("line", "plain"),
    [
        # a `make run` chat (stop 57)
        (
            "Next Saturday: driving over to Leila's parents in Manchester for her dad's 70th",
            "Plan: driving over to Leila's parents in Manchester for her dad's 70th, next Saturday",
        ),
        ("Tomorrow: dentist", "Dentist: tomorrow"),
        ("Leila's dad has: the flu", "Leila's dad: has the flu"),  # the verb goes with its object
        ("On Friday evening: pub quiz", "Pub quiz: on Friday evening"),
        # a day in a label that says what: unchanged
        ("Sunday roast: at mum's", "Sunday roast: at mum's"),
        ("Saturday: tomorrow", "Saturday: tomorrow"),
    ],
)
def test_a_label_that_is_only_a_day_names_the_plan(line, plain):
    from memgpt_local.agent.fact_wording import plain_label

    assert plain_label(line) == plain


def test_what_the_user_says_they_are_learning_gets_a_line():
    """A `make run` chat (stop 57): "I'm learning the oud at the moment, my grandfather used to play
    it. Lessons are on Thursday evenings." saved the grandfather's and the lessons' lines only."""
    from memgpt_local.agent.fact_completion import learning_said

    said = "I'm learning the oud at the moment, my grandfather used to play it. Lessons are on Thursday evenings."
    grandfather = ["Grandfather: played the oud", "Lessons: on Thursday evenings"]
    assert learning_said(grandfather, [], said) == [*grandfather, "Learning: the oud"]
    assert learning_said([], [], "I'm studying nursing at Leeds.") == ["Studying: nursing"]
    assert learning_said([], [], "I am learning to drive this year.") == ["Learning: to drive"]
    # held already, or nothing learnt
    assert learning_said([], ["Language: learning Spanish"], "I'm learning Spanish for Ewa's 40th.") == []
    assert learning_said([], [], "I'm learning a lot at work.") == []
    assert learning_said([], [], "Kuba is learning to swim.") == []


@pytest.mark.parametrize(
    ("line", "wrong"),
    [
        ("Daughter's age: just started school", True),  # a `make run` chat (stop 55)
        ("Age: same as my brother", True),
        ("Daughter's age: 7", False),
        ("Kuba's age: seven", False),
        ("Age: late thirties", False),
        ("Son's age: teenager", False),
        ("Baby's age: six months", False),
        ("Son's ages: 4 and 9", False),
        ("Stage: opening night", False),  # not an age
    ],
)
def test_an_age_that_says_no_age_is_not_saved(line, wrong):
    from memgpt_local.agent.fact_lines import an_age_without_years

    assert an_age_without_years(line) is wrong


def test_a_message_that_moves_a_saved_plan_is_read_for_facts():
    """ "Change of plans, book club is on the 15th now." says nothing of its writer and was never
    read beside "Book club: at Ana's on the 12th" (bench_notes whose-held)."""
    from datetime import date

    from memgpt_local.agent.fact_merge import moves_a_saved_plan

    saved = ["Name: Ines", "Book club: at Ana's on the 12th (2026-12-12)"]
    today = date(2026, 12, 3)
    assert moves_a_saved_plan(saved, "Change of plans, book club is on the 15th now.", today)
    assert not moves_a_saved_plan(saved, "Book club was lovely.", today)  # no word of moving
    assert not moves_a_saved_plan(saved, "The dentist moved me to Friday.", today)  # another plan
    assert not moves_a_saved_plan(saved, "Change of plans, book club is on the 15th now.", date(2026, 12, 20))  # past


def test_two_people_named_together_own_what_their_clause_says():
    """A `make run` chat (stop 55): "Our twins Ravi and Maya are both at university in Leeds now"
    was saved as the user's "University: Leeds", and "Where did I go to university?" was answered
    "Your university is Leeds."."""
    from memgpt_local.agent.fact_owners import told_of_by_subject

    said = "Our twins Ravi and Maya are both at university in Leeds now, so the house is very quiet."
    assert told_of_by_subject(["University: Leeds"], said, "Helen") == ["Ravi and Maya's university: Leeds"]
    assert told_of_by_subject(["Hobby: climbing"], "Sam and I go climbing on Sundays.", "Helen") == ["Hobby: climbing"]


@pytest.mark.parametrize(
    ("line", "said", "news"),
    [
        ("Health: two kids threw up in class", "Today was rough though, two kids threw up in class.", True),
        ("Kitchen: the oven broke", "The oven broke this morning, so no pastries.", True),
        ("Health: I broke my wrist", "I broke my wrist today.", False),  # the user's own: it lasts
        ("Health: two kids threw up in class", "Two kids threw up in class last year.", False),  # not today's
    ],
)
def test_what_happened_to_someone_else_today_is_the_days_news(line, said, news):
    """A `make run` chat (stop 58) saved "Health: two kids threw up in class" from a teacher's
    day, and greeted it at the next login."""
    from memgpt_local.agent.fact_lines import days_news

    assert days_news(line, said) is news


def test_what_the_user_only_thinks_or_heard_of_something_not_theirs_is_no_line():
    """A `make run` chat (stop 58): "I think a stomach bug is going around the school." was saved
    "Stomach bug: going around the school" and greeted "I know you have a stomach bug ..."."""
    from memgpt_local.agent.fact_lines import hearsay, worth_saving

    said = "Tired. I think a stomach bug is going around the school."
    assert hearsay("Stomach bug: going around the school", said)
    assert not worth_saving("Stomach bug: going around the school", said)
    assert hearsay("Weather: going to rain all week", "Apparently it's going to rain all week.")
    assert not hearsay("Sister: moving to Berlin", "I think my sister is moving to Berlin.")
    assert not hearsay("Ana: got the job", "I heard Ana got the job!")
    assert not hearsay("Stomach bug: going around the school", "A stomach bug is going around the school.")


def test_a_line_that_only_names_who_with_the_user_is_no_line():
    from memgpt_local.agent.fact_lines import only_who, passing_state

    assert only_who("Family: Ana and I") and only_who("Team: Luis and me")
    assert not only_who("Kids: Sara and Yasmin") and not only_who("Plan: Ana and I go to Porto")
    assert passing_state("Birthday: today was rough")  # stop 58
    assert not passing_state("Death: this morning")


@pytest.mark.parametrize(
    ("line", "plain"),
    [
        ("Porto moved to: February, flights were cheaper", "Porto: moved to February, flights were cheaper"),
        ("Porto moved to February: flights were cheaper", "Porto: moved to February, flights were cheaper"),
        ("Book club moved: to the 15th", "Book club: moved to the 15th"),
        ("Lars moved dinner: Sunday", "Dinner: moved to Sunday"),
        ("We moved to: Leeds", "We moved to: Leeds"),
    ],
)
def test_a_label_that_tells_its_plan_moved_names_the_plan(line, plain):
    """A `make run` chat (stop 58) saved "Porto moved to: February, flights were cheaper" beside
    the January trip, which stayed."""
    from memgpt_local.agent.fact_wording import plain_label

    assert plain_label(line) == plain


def test_a_line_said_again_under_a_plural_or_another_label_of_the_same_one_is_not_added():
    """A `make run` chat (stop 58): "Hobby: padel" beside "Hobbies: padel every Wednesday night with
    Luis", and "Luis lives in: Alicante" beside "Luis's home: Alicante"."""
    from datetime import date

    from memgpt_local.agent.fact_merge import merge

    saved = "Name: Tomás\nHobbies: padel every Wednesday night with Luis"
    value, notes = merge(saved, ["Hobby: padel"], 2000, "Honestly, padel is most of my free time.")
    assert value == saved and not notes.changed
    value, _ = merge(saved, ["Luis's home: Alicante", "Luis lives in: Alicante"], 2000, "He lives in Alicante.")
    assert value == f"{saved}\nLuis's home: Alicante"
    trip = "Trip: Porto with Ana in January (2027-01), for her birthday"
    said = "Oh, and we moved Porto to February, flights were cheaper."
    moved = ["Porto: moved to February (2027-02), flights were cheaper", "Porto: moved, flights were cheaper"]
    value, _ = merge(f"Name: Tomás\n{trip}", moved, 2000, said, date(2026, 12, 7))
    assert (
        value
        == "Name: Tomás\nTrip: Porto with Ana, for her birthday, moved to February (2027-02), flights were cheaper"
    )


def test_a_line_said_again_under_a_heading_is_not_added():
    """A `make run` chat (stop 59): "Health: knee is playing up" beside "Knee: has been playing up"."""
    from memgpt_local.agent.fact_merge import merge

    said = "Bad news though, my knee has been playing up and the doctor says I need surgery in March."
    value, _ = merge("Name: Kwame", ["Knee: has been playing up", "Health: knee is playing up"], 2000, said)
    assert value == "Name: Kwame\nKnee: has been playing up"
    value, _ = merge("Name: Kwame\nKnee: has been playing up", ["Health: knee surgery in March"], 2000, said)
    assert value.endswith("Health: knee surgery in March")  # more than the saved line says
    # said by two lines together (a `make run` chat, stop 59)
    said = "I keep an allotment too, tomatoes and runner beans mostly."
    three = ["Hobby: keeping an allotment", "Fruits: tomatoes and runner beans", "Facts: keeps an allotment, tomatoes"]
    value, _ = merge("Name: Kwame", three, 2000, said)
    assert value == "Name: Kwame\nHobby: keeping an allotment\nFruits: tomatoes and runner beans"
    # a plan a line beside it tells (the final replay of a `make run` chat, stop 62)
    said = "I'm training for the Cardiff half marathon in March, first one since my knee injury"
    training = "Training: Cardiff half marathon in March (2027-03), first one since knee injury"
    plan = "Plan: training for the Cardiff half marathon in March (2027-03)"
    assert merge("Name: Gareth", [training, plan], 2000, said)[1].added == [training]
    assert merge("Name: Gareth\nSister: Ana", ["Plan: visit Ana in March (2027-03)"], 2000, "")[1].added == [
        "Plan: visit Ana in March (2027-03)"
    ]


def test_a_label_of_the_place_the_user_goes_to_and_a_word_never_said_is_a_trip():
    """A `make run` chat (stop 58): "Porto party: her birthday in January" for "Ana and I are going
    to Porto in January for her birthday.", greeted "Ana is going to have a Porto party"."""
    from memgpt_local.agent.fact_wording import tidied

    said = "Honestly, padel is most of my free time. Ana and I are going to Porto in January for her birthday."
    assert tidied("Porto party: her birthday in January", said) == "Trip: to Porto, her birthday in January"
    assert tidied("Porto: in January, for Ana's birthday", said) == "Porto: in January, for Ana's birthday"
    assert tidied("Porto party: last night", "We had a Porto party last night.") == "Porto party: last night"
    assert tidied("Porto wine: love it", "I'm going to Porto, I love port wine.") == "Porto wine: love it"


def test_a_name_as_work_from_a_message_of_no_work_is_no_line():
    """A `make run` chat (stop 58): "Work: Porto" for "... we moved Porto to February, flights were
    cheaper." replaced "Work: teaches year 4 at a primary school in Valencia"."""
    from memgpt_local.agent.fact_lines import a_name_for_work

    said = "He lives in Alicante, by the way. Luis, I mean. And we moved Porto to February, flights were cheaper."
    assert a_name_for_work("Work: Porto", said)
    assert not a_name_for_work("Work: Google", "I work at Google now.")
    assert not a_name_for_work("Work: nurse", "I'm a nurse.")


def test_whom_he_or_she_meant_said_after_it_names_them():
    """A `make run` chat (stop 58): "He lives in Alicante, by the way. Luis, I mean." was saved "He's
    home: Alicante"."""
    from memgpt_local.agent.fact_owners import pronouns_named

    said = "He lives in Alicante, by the way. Luis, I mean. And we moved Porto to February."
    assert pronouns_named(said, "Tomás").startswith("Luis lives in Alicante, by the way.")
    assert pronouns_named("She starts on Monday. I mean Ana.", "Tomás").startswith("Ana starts on Monday.")
    assert pronouns_named("He lives in Alicante. Luis is lovely.", "Tomás").startswith("He lives in Alicante.")


def test_a_name_respelt_by_the_model_is_spelt_as_the_user_wrote_it():
    """A `make run` chat (stop 58): "My daughter Zoë helps me on Saturdays" was saved "Zoey helps
    with: Saturdays" and "Zoey's age: twelve"."""
    from memgpt_local.agent.fact_wording import unglued

    said = "Right now a big oak table for a café. My daughter Zoë helps me on Saturdays, she's twelve."
    assert unglued("Zoey helps on: Saturdays", said) == "Zoë helps on: Saturdays"
    assert unglued("Daughter: Zoe, twelve", said) == "Daughter: Zoë, twelve"
    assert unglued("Son: Zane", said) == "Son: Zane"  # no name near it
    assert unglued("Partner: Mark", "My partner Mark and my boss Marek.") == "Partner: Mark"  # both said


def test_a_word_that_opens_a_sentence_is_nobodys_name():
    """A `make run` chat (stop 58): "Right now a big oak table for a café. My daughter Zoë helps me
    on Saturdays" filed "Right's zoey helps with: oak table for café"."""
    from memgpt_local.agent.fact_owners import someone_elses

    said = "Right now a big oak table for a café. My daughter Zoë helps me on Saturdays, she's twelve."
    assert someone_elses(["Zoë helps with: oak table for café"], said, "Jörg") == ["Zoë helps with: oak table for café"]


def test_a_relatives_name_told_later_goes_first_in_their_line():
    """A `make run` chat (stop 59): "Her name is Abena." after "Mum: flying in from Accra next
    Friday" made "Mum: flying in ... ; Abena"."""
    from memgpt_local.agent.fact_merge import with_value_of

    mum = "Mum: flying in from Accra next Friday (2026-12-11)"
    assert with_value_of(mum, "Mum: Abena, 71") == "Mum: Abena, 71; flying in from Accra next Friday (2026-12-11)"
    assert with_value_of("Wife: Efua", "Wife: Ama") == "Wife: Efua; Ama"  # a name already first
    assert with_value_of(mum, "Mum: Friday flight") == f"{mum}; Friday flight"  # a day is no name
    assert with_value_of("Hobby: running", "Hobby: Pilates") == "Hobby: running; Pilates"  # no relative


def test_a_relatives_visit_that_happened_takes_the_place_of_its_plan():
    """A `make run` chat (stop 59): "Mum landed safely!" left "... flying in from Accra next Friday
    (2026-12-11)" as it was, and "My mum arrived this morning" replaced the line, her name with it."""
    from datetime import date

    from memgpt_local.agent.fact_merge import merge

    saved = "Name: Kwame\nMum: Abena, 71; flying in from Accra next Friday (2026-12-11)"
    today = date(2026, 12, 7)
    value, _ = merge(saved, ["Mum: landed safely"], 2000, "Mum landed safely!", today)
    assert value == "Name: Kwame\nMum: Abena, 71; landed safely (2026-12-07)"
    said = "My mum arrived this morning, a few days early!"
    value, _ = merge(saved, ["Mum: arrived this morning (2026-12-07), a few days early"], 2000, said, today)
    assert value == "Name: Kwame\nMum: Abena, 71; arrived this morning (2026-12-07), a few days early"
    # another thing that happened leaves the plan: she is still to come
    value, _ = merge(saved, ["Mum: broke her wrist"], 2000, "Mum broke her wrist.", today)
    assert "flying in from Accra next Friday (2026-12-11)" in value


@pytest.mark.parametrize(
    "line, event",
    [
        # a `make run` chat (stop 60): "Big news, my first paper got accepted today!" replaced the PhD
        ("Work: gets accepted for a paper", True),
        ("Work: had three emergency surgeries", True),
        ("Work: finished a big project", True),
        ("Work: started at the bakery in May", False),
        ("Work: trained as a nurse", False),
        ("Work: based in Leeds", False),
        ("Work: got promoted to head nurse", False),
        ("Work: PhD in marine biology in Kiel", False),
        ("Paper: got accepted today", False),  # not a work line
    ],
)
def test_what_happened_at_work_is_no_work_line(line, event):
    from memgpt_local.agent.fact_lines import event_as_work, worth_saving

    assert event_as_work(line) == event
    said = "Big news, my first paper got accepted today! I had three emergency surgeries, based in Leeds."
    if event:
        assert not worth_saving(line, said)


def test_a_place_the_message_names_is_no_thing_of_someones():
    """A `make run` chat (stop 60): "My mum is coming over from Munich for Christmas, she's never
    seen Kiel in winter." saved "Mum's kiel: never seen in winter"."""
    from memgpt_local.agent.fact_lines import a_name_as_their_thing, worth_saving

    said = "My mum is coming over from Munich for Christmas, she's never seen Kiel in winter."
    assert a_name_as_their_thing("Mum's kiel: never seen in winter", said)
    assert not worth_saving("Mum's kiel: never seen in winter", said)
    assert not a_name_as_their_thing("Mum's home: Munich", said)
    assert not a_name_as_their_thing("Mum's Christmas: in Kiel", said)  # a holiday is a time of theirs
    # a sentence's first word is no name: "Pony is brown."
    assert not a_name_as_their_thing("Sofie's pony: brown", "Sofie rode a pony. Pony is brown.")


def test_him_or_her_met_is_the_one_the_assistant_just_named(store):
    """A `make run` chat (stop 60): after "Your brother Cian is moving to Canada in February 2027.",
    "We finally booked flights to visit him in April, we're going for two weeks." was saved as
    "Flights: booked to visit him in April (2026-04) for two weeks": whom, and the April gone by."""
    from memgpt_local.agent.fact_owners import objects_named
    from memgpt_local.runtime.scripted import ScriptedBackend

    before = "Your brother Cian is moving to Canada in February 2027."
    said = "We finally booked flights to visit him in April, we're going for two weeks."
    assert objects_named("Flights: booked to visit him in April", said, "Tobias", before) == (
        "Flights: booked to visit Cian in April"
    )
    two = "Your brother Cian and your sister Aoife are coming."
    assert objects_named("Flights: booked to visit him in April", said, "Tobias", two).endswith("him in April")
    named = "We booked flights to visit him, Declan says hi."  # the message names someone itself
    assert objects_named("Flights: booked to visit him", named, "Tobias", before).endswith("him")
    assert objects_named("Gift: bought him a scarf", said, "Tobias", before) == "Gift: bought him a scarf"
    # the one person the message itself names before "him" (a `make run` chat, stop 64)
    rui = "my son Rui lives in London, I'm flying over to see him at Christmas"
    flight = "Flight: flying over to see him at Christmas"
    assert objects_named(flight, rui, "Beatriz") == "Flight: flying over to see Rui at Christmas"
    both = "my dad and my brother Tom are coming, I will meet him at the station"
    assert objects_named("Plan: meet him at the station", both, "Bea") == "Plan: meet him at the station"
    agent = ensure_agent(store, "tobias", Settings())
    store.core.set_value(agent.id, "human", "Name: Tobias\nBrother: Cian, moving to Toronto in February (2027-02)")
    backend = ScriptedBackend(['{"facts": ["Flights: booked to visit him in April for two weeks"]}'])
    noter = FactNoter(store, backend, agent.id, FactNoteSettings(enabled=True))
    notes = noter.note(said, when=datetime(2026, 12, 7, 14), answering=before)
    assert notes.added == ["Flights: booked to visit Cian in April (2027-04) for two weeks"]


def test_a_line_that_one_saved_line_says_all_of_is_not_saved_again():
    """A `make run` chat (stop 62): "Destination: Seville" was saved beside "Travel: going to
    Seville in April (2027-04) for Dev's 30th", and the user's "it's Seville!" to a denial as
    "Partner Dev's 30th: Seville". What the user says of someone else, or more, is still saved."""
    block = "Name: Priya\nPartner: Dev\nSister: Anjali, lives in Leeds"
    travel = "Travel: going to Seville in April (2027-04) for Dev's 30th"
    value, notes = merge(block, [travel, "Destination: Seville"], 2000, "")
    assert notes.added == [travel]
    for line in ["Partner Dev's 30th: Seville", "Trip: Seville", "Holiday: Seville in April"]:
        assert merge(f"{block}\n{travel}", [line], 2000, "")[1].added == [], line
    for line in ["Hotel: Seville", "Dev: turning 30 in April", "Work: Leeds", "Destination: Lisbon"]:
        assert merge(f"{block}\n{travel}", [line], 2000, "")[1].added == [line], line
    # the same words under another label of the user's own (the replay of that chat)
    role = f"{block}\nRole: maid of honour"
    assert merge(role, ["Title: maid of honour"], 2000, "")[1].added == []
    assert merge(role, ["Anjali's dress: maid of honour"], 2000, "")[1].added == ["Anjali's dress: maid of honour"]
    assert merge(f"{block}\nHome: Leeds", ["Work: Leeds"], 2000, "")[1].added == ["Work: Leeds"]  # one word


@pytest.mark.parametrize(
    "lines",
    [
        ["Sister: Anjali", "Sister's wedding: June", "Maid of honour: me"],  # the notes pass's words (stop 62)
        ["Sister: Anjali", "Maid of honour: me"],
    ],
)
def test_a_little_sisters_wedding_keeps_its_event_and_the_users_role_is_saved(store, lines):
    """A `make run` chat (stop 62): "my little sister Anjali is getting married in June and I'm the
    maid of honour, ..." saved "Sister: Anjali (in June, 2027-06)", the wedding lost ("my little
    sister" named no one's plan), and "Maid of honour: me" was dropped as unsaid; asked at the
    next login "do you remember what my role is at the wedding?", the reply was "I don't know"."""
    from memgpt_local.runtime.scripted import ScriptedBackend

    agent = ensure_agent(store, "priya", Settings())
    store.core.set_value(agent.id, "human", "Name: Priya\nPartner: Dev")
    noter = FactNoter(store, ScriptedBackend([json.dumps({"facts": lines})]), agent.id, FactNoteSettings(enabled=True))
    said = (
        "my little sister Anjali is getting married in June and I'm the maid of honour, "
        "so that's a lot of planning on top of work"
    )
    assert noter.note(said, when=datetime(2026, 12, 7, 19, tzinfo=timezone.utc)).added == [
        "Sister: Anjali, getting married in June (2027-06)",
        "Role: maid of honour",
    ]


def test_a_role_is_the_users_only_where_they_call_themself_it():
    from memgpt_local.agent.fact_completion import role_said

    said = "Anjali is getting married and I'm the maid of honour."
    assert role_said("Maid of honour: me", said) == "Role: maid of honour"
    assert role_said("Best man: me", said) == "Best man: me"  # never said
    assert role_said("Maid of honour: Anjali", said) == "Maid of honour: Anjali"
    assert role_said("Treasurer: me", "I am the treasurer of the allotment society") == "Role: treasurer"
    # one of several (a `make run` chat, stop 62: "Bridesmaids: one of the bridesmaids")
    bridesmaid = "my big brother Omar is getting married in May and I'm one of the bridesmaids!"
    assert role_said("Bridesmaids: one of the bridesmaids", bridesmaid) == "Role: one of the bridesmaids"
    assert role_said("Bridesmaids: me", bridesmaid) == "Role: one of the bridesmaids"
    sister = "my sister is one of the bridesmaids"  # not the user
    assert role_said("Bridesmaids: one of the bridesmaids", sister) == "Bridesmaids: one of the bridesmaids"


def test_a_doing_told_only_by_its_day_is_read_on_to_the_end_of_its_clause():
    """A `make run` chat (stop 62): "I teach PE at a comprehensive in Swansea and coach my daughter's
    under-12 football team on Saturdays." saved "Coach: Saturday", and the team was nowhere."""
    from memgpt_local.agent.fact_completion import doing_said

    said = "I teach PE at a comprehensive in Swansea and coach my daughter's under-12 football team on Saturdays."
    assert doing_said("Coach: Saturday", said) == "Coach: daughter's under-12 football team on Saturdays"
    assert doing_said("Coach: Sunday", said) == "Coach: Sunday"  # a day never said there
    assert doing_said("Training: Saturday", said) == "Training: Saturday"  # no doing of the user's
    assert doing_said("Swim: Tuesday", "I swim every Tuesday.") == "Swim: every Tuesday"
    assert doing_said("Coach: the under-12s", said) == "Coach: the under-12s"  # says more than a day


def test_an_age_under_a_name_beside_their_line_with_it_is_not_saved_twice():
    """The replay of a `make run` chat (stop 62): "ha, it's Cerys. she's 11." saved "Cerys's age: 11"
    beside "Daughter: Cerys, 11 years old"."""
    said = "ha, it's Cerys. she's 11. anyway, gotta go"
    assert merge("Name: Gareth", ["Cerys's age: 11", "Daughter: Cerys, 11 years old"], 2000, said)[1].added == [
        "Daughter: Cerys, 11 years old"
    ]
    assert merge("Name: Gareth", ["Daughter: Cerys", "Cerys's age: 11"], 2000, said)[1].added == [
        "Daughter: Cerys",
        "Cerys's age: 11",
    ]
    assert merge("Name: Gareth\nDaughter: Cerys, 11", ["Cerys's age: 12"], 2000, said)[1].added == ["Cerys's age: 12"]


def test_what_kind_of_thing_is_told_of_someone_beside_their_line_with_it_is_not_saved_twice():
    """A `make run` chat (stop 63): "he's a border collie called Finn, 9 years old and still thinks
    he's a pup" saved "Finn's personality: thinks he's a pup" beside the dog's line that says it."""
    finn = "Dog: Finn (border collie, 9 years old, thinks he's a pup)"
    said = "he's a border collie called Finn, 9 years old and still thinks he's a pup"
    assert merge("Name: Tomás", [finn, "Finn's personality: thinks he's a pup"], 2000, said)[1].added == [finn]
    # one that says more stays
    more = "Finn's personality: steals socks"
    assert merge("Name: Tomás", [finn, more], 2000, said)[1].added == [finn, more]


def test_a_doing_cut_before_what_it_is_for_is_read_on():
    """A `make run` chat (stop 63): "my daughter Aoife is coming down from Dublin to mind Finn while
    I'm in hospital" was saved "Daughter: Aoife, coming down from Dublin"; asked "who's minding the
    dog while I'm in?", the reply said "Your dog is Finn, who is Finn while you are in hospital."."""
    from memgpt_local.agent.fact_completion import completed_lines

    said = "my daughter Aoife is coming down from Dublin to mind Finn while I'm in hospital"
    assert completed_lines(["Daughter: Aoife, coming down from Dublin"], said) == [
        "Daughter: Aoife, coming down from Dublin to mind Finn while I'm in hospital"
    ]
    assert completed_lines(["Home: Leeds"], "I moved to Leeds to be near my sister") == ["Home: Leeds"]  # one word
    long = "I'm going to Rome to see the old churches and the forum that my grandfather painted when he was young"
    assert completed_lines(["Trip: going to Rome"], long) == ["Trip: going to Rome to see the old churches"]
    assert completed_lines(["Trip: going to Rome"], "I'm going to Rome, to see Ana") == ["Trip: going to Rome"]


def test_what_the_user_does_with_a_thing_is_not_filed_as_what_they_eat(store):
    """A `make run` chat (stop 63): "I grow mostly spuds and onions" was saved "Food: mostly spuds
    and onions", and the next login asked "What do you like about your food?"."""
    from memgpt_local.agent.fact_completion import what_they_do_not_eat
    from memgpt_local.runtime.scripted import ScriptedBackend

    garden = "any tips for getting the garden ready for winter? I grow mostly spuds and onions"
    assert what_they_do_not_eat("Food: mostly spuds and onions", garden) == "Grows: mostly spuds and onions"
    assert what_they_do_not_eat("Diet: mostly fish", "I eat mostly fish") == "Diet: mostly fish"  # eating said
    assert what_they_do_not_eat("Food: jam", "I make jam every autumn") == "Makes: jam"
    assert what_they_do_not_eat("Food: pasta", "I had pasta") == "Food: pasta"  # no doing of theirs
    assert what_they_do_not_eat("Hobby: onions", garden) == "Hobby: onions"
    agent = ensure_agent(store, "tomas", Settings())
    store.core.set_value(agent.id, "human", "Name: Tomás")
    raw = json.dumps({"facts": ["Diet: mostly spuds and onions"]})
    noter = FactNoter(store, ScriptedBackend([raw]), agent.id, FactNoteSettings(enabled=True))
    assert noter.note(garden).added == ["Grows: mostly spuds and onions"]


def test_a_relation_is_heard_by_the_name_of_the_one_filed_under_it():
    """bench_notes relatives-held (stop 62): "Sami's dad had a stroke and went into hospital on Monday"
    beside "Partner: Sami" was written "Partner's dad: ...", and dropped as a partner never spoken of."""
    said = "Sami's dad had a stroke and went into hospital on Monday, he's doing ok now"
    assert not unheard_kin("Partner's dad: had a stroke", said, ["Name: Nadia", "Partner: Sami"])
    assert unheard_kin("Partner's dad: had a stroke", said, ["Name: Nadia"])
    assert unheard_kin("Son: Tom", said, ["Name: Nadia", "Partner: Sami"])


def test_a_part_said_in_other_words_of_its_topic_is_not_added_again():
    """A `make run` chat (stop 62): "my big brother Omar is getting married in May" was saved
    "Big brother: Omar, getting married in May (2027-05); wedding in May (2027-05)"."""
    from memgpt_local.agent.fact_merge import told_in

    brother = "Big brother: Omar, getting married in May (2027-05)"
    value, notes = merge("Name: Nadia", [brother, "Big brother: Omar, wedding in May (2027-05)"], 2000, "")
    assert value == f"Name: Nadia\n{brother}"
    assert not told_in("Big brother: Omar, wedding in June (2027-06)", brother)  # another month
    assert not told_in("Big brother: Omar, moving to Leeds", brother)
    value, _ = merge(f"Name: Nadia\n{brother}", ["Big brother: Omar, wedding in June (2027-06)"], 2000, "")
    assert "June" in value


def test_a_trade_the_user_says_of_themself_is_no_pastime(store):
    """A `make run` chat (stop 63): "hi! I'm Marta, I teach piano in Gdansk" was saved "Hobby:
    teaches piano in Gdansk", and asked what she does for a living, core memory held no work."""
    from memgpt_local.agent.fact_completion import work_not_pastime
    from memgpt_local.runtime.scripted import ScriptedBackend

    said = "hi! I'm Marta, I teach piano in Gdansk"
    assert work_not_pastime("Hobby: teaches piano in Gdansk", said) == "Work: teaches piano in Gdansk"
    assert work_not_pastime("Hobbies: tutors maths", "I tutor maths to teenagers") == "Work: tutors maths"
    # a pastime said as one stays one
    assert work_not_pastime("Hobby: teaches yoga", "I teach yoga at weekends for fun") == "Hobby: teaches yoga"
    assert work_not_pastime("Hobby: painting", "I paint in Gdansk") == "Hobby: painting"  # no trade
    assert work_not_pastime("Hobby: teaches piano", "my sister teaches piano") == "Hobby: teaches piano"  # not theirs
    agent = ensure_agent(store, "marta", Settings())
    raw = json.dumps({"facts": ["Name: Marta", "Hobby: teaches piano in Gdansk"]})
    noter = FactNoter(store, ScriptedBackend([raw]), agent.id, FactNoteSettings(enabled=True))
    assert noter.note(said).added == ["Name: Marta", "Work: teaches piano in Gdansk"]


def test_where_a_value_is_is_read_on_from_the_users_words():
    """A `make run` chat (stop 63): "yo. kai here, 2nd year history student at glasgow uni, I also
    work weekends at a cafe in the west end" was saved "Course: 2nd year history student": the
    university, typed in lowercase, was in no line."""
    from memgpt_local.agent.fact_completion import completed_lines, place_said

    said = "yo. kai here, 2nd year history student at glasgow uni, I also work weekends at a cafe in the west end"
    assert completed_lines(["Course: 2nd year history student"], said) == [
        "Course: 2nd year history student at glasgow uni"
    ]
    assert place_said("Work: cafe in the west end", said) == "Work: cafe in the west end"  # said already
    assert place_said("Job: nurse", "I work as a nurse at the moment") == "Job: nurse"  # a time
    assert place_said("Hobby: reading books", "I love reading books in bed at night") == "Hobby: reading books"
    long = "I am a maths teacher at a secondary school in Bergen."
    assert place_said("Work: maths teacher", long) == "Work: maths teacher"  # more than four words
    assert (
        place_said("Hobby: plays chess", "I plays chess in the park and I love it") == "Hobby: plays chess in the park"
    )


def test_an_age_told_of_the_users_cat_is_not_the_users(store):
    """A `make run` chat (stop 64): "our old cat Mimi is 14 and the vet says her kidneys are
    failing, it's hard" was saved "Age: 14" beside "Cat: Mimi, 14, kidney failure": the user's own
    age, as the notes had it. "our old cat Mimi" is the clause's subject, as "my sister Ana" is."""
    from memgpt_local.agent.fact_owners import told_of_by_subject
    from memgpt_local.runtime.scripted import ScriptedBackend

    said = "our old cat Mimi is 14 and the vet says her kidneys are failing, it's hard"
    assert told_of_by_subject(["Age: 14"], said, "Beatriz") == ["Mimi's age: 14"]
    assert told_of_by_subject(["Age: 40"], "my big sister Ana just turned 40", "Bea") == ["Ana's age: 40"]
    assert told_of_by_subject(["Age: 40"], "I just turned 40, my old cat Mimi is 14", "Bea") == ["Age: 40"]
    agent = ensure_agent(store, "beatriz", Settings())
    store.core.set_value(agent.id, "human", "Name: Beatriz")
    raw = json.dumps({"facts": ["Cat: Mimi, 14, kidney failure", "Age: 14"]})
    noter = FactNoter(store, ScriptedBackend([raw]), agent.id, FactNoteSettings(enabled=True))
    assert noter.note(said).added == ["Cat: Mimi, 14, kidney failure"]
