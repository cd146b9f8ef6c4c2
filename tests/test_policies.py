"""Each memory policy alone, on a fake memory view: no embedder, SQLite or model."""

from __future__ import annotations

from datetime import date, datetime, timezone

import pytest
from policy_fakes import FakeMemory, hit, search_step, searched_turn, step

from memgpt_local.agent.policy import FACTORIES, build_policies
from memgpt_local.agent.policy.base import Draft, StepPlan
from memgpt_local.agent.policy.copy_guard import CopyGuard
from memgpt_local.agent.policy.echo_guard import EchoGuard, restates_question
from memgpt_local.agent.policy.prefetch import Prefetch
from memgpt_local.agent.policy.question_focus import QuestionFocus
from memgpt_local.agent.policy.read_results import ReadResults
from memgpt_local.agent.policy.recap import Recap
from memgpt_local.agent.policy.repeat_guard import RepeatGuard
from memgpt_local.agent.policy.reply_check import ReplyCheck
from memgpt_local.agent.policy.reply_required import ReplyRequired
from memgpt_local.agent.policy.search_budget import SearchBudget
from memgpt_local.agent.policy.search_first import SearchFirst
from memgpt_local.agent.turn import Hold, Turn
from memgpt_local.config import (
    POLICY_NAMES,
    AgentSettings,
    GuardSettings,
    PrefetchSettings,
    RecapSettings,
    ReplyCheckSettings,
    SearchBudgetSettings,
)
from memgpt_local.functions.results import FunctionOutcome
from memgpt_local.schemas import Message

HALL = [
    "Last night we saw The Shoulundvoels live at Zuxhao Hall, what a show.",
    "The Verquuels are playing at Zuxhao Hall next month, with two support acts.",
]
ASKED = "Which band did we see live at Zuxhao Hall?"


def draft(message: str, *, last: bool = False, prompt=()) -> Draft:
    return Draft(message, list(prompt), StepPlan(last=last))


# ---------------------------------------------------------------- the set of policies


def test_build_policies_follows_the_enabled_list_in_a_fixed_order():
    settings = AgentSettings(policies=["reply_check", "search_budget", "prefetch"])
    assert [p.name for p in build_policies(settings)] == ["prefetch", "search_budget", "reply_check"]
    assert [p.name for p in build_policies(AgentSettings())] == [
        n for n in POLICY_NAMES if n in AgentSettings().policies
    ]
    assert build_policies(AgentSettings(policies=[])) == []
    assert all(FACTORIES[name](AgentSettings()).name == name for name in POLICY_NAMES)


# ---------------------------------------------------------------- turn flow


def test_reply_required_asks_for_an_answer_only_on_a_users_turn_without_one():
    policy = ReplyRequired()
    turn = Turn(question="where are my keys?")
    turn.add(step(0, "core_memory_append", label="human", content="has keys"))
    assert policy.before_end(turn)
    turn.add(
        step(
            1,
            "send_message",
            FunctionOutcome(True, "Message sent.", user_message="In the drawer."),
            message="In the drawer.",
        )
    )
    assert policy.before_end(turn) is None
    assert policy.before_end(Turn(question=None)) is None  # a heartbeat needs no reply


def test_read_results_asks_for_a_step_after_a_search_only():
    policy, memory = ReadResults(), FakeMemory()
    turn = Turn(question="q")
    policy.after_step(turn, step(0, "core_memory_append", label="human", content="x"), memory)
    assert turn.step_reason is None
    policy.after_step(turn, search_step(1, [hit(1, "x")]), memory)
    assert turn.step_reason and turn.reply_reason is None


def test_search_first_narrows_the_first_step_when_memory_holds_more_than_the_context():
    policy = SearchFirst()
    turn = Turn(question="what is our ferret called?")
    policy.start(turn, FakeMemory(beyond=True))
    plan = policy.plan(turn, StepPlan())
    assert plan.kinds == {"search"}
    policy.after_step(turn, step(0, "conversation_search", query="ferret"), FakeMemory())
    assert turn.step_reason
    turn.add(step(0, "conversation_search", query="ferret"))
    assert policy.plan(turn, StepPlan()).kinds == StepPlan().kinds  # only the first step
    empty = Turn(question="hi")
    policy.start(empty, FakeMemory(beyond=False))
    assert policy.plan(empty, StepPlan()) == StepPlan()
    assert policy.plan(turn, StepPlan(last=True)).last  # the chain cap wins


def test_search_budget_requires_a_reply_after_the_search_that_uses_it_up():
    policy, memory = SearchBudget(SearchBudgetSettings(searches=2)), FakeMemory()
    turn = Turn(question="q")
    turn.add(search_step(0, [hit(1, "a")]))
    policy.after_step(turn, turn.steps[-1], memory)
    assert turn.reply_reason is None
    turn.add(search_step(1, [hit(2, "b")]))
    policy.after_step(turn, turn.steps[-1], memory)
    assert turn.reply_reason == "search budget"
    turn.add(step(2, "core_memory_append", label="human", content="x"))  # no new search: no new request
    policy.after_step(turn, turn.steps[-1], memory)
    assert turn.reply_reason is None


def test_recap_shows_the_best_hits_once_when_the_budget_ends_the_searching():
    memory = FakeMemory()
    turn = searched_turn(ASKED, [HALL[1], "Zuxhao Hall opens at seven and closes at midnight on weekdays.", HALL[0]])
    recap = Recap(RecapSettings(hits=2))
    assert recap.after_step(turn, turn.steps[-1], memory) == []  # no budget reached
    turn.require_reply("search budget")
    turn.started_at = datetime(2025, 5, 16, 20, 0, tzinfo=timezone.utc)  # an evaluation's past session
    (notice,) = recap.after_step(turn, turn.steps[-1], memory)
    assert notice.content.startswith("[search recap | 2025-05-16 20:0")  # the turn's time, not the clock's
    body = notice.content.split("(best first):\n", 1)[1]
    assert body.splitlines()[0].endswith(HALL[0])  # ordered by the question, not by rank
    assert len(body.splitlines()) == 2
    assert recap.after_step(turn, turn.steps[-1], memory) == []  # once a turn


def test_recap_keeps_search_order_without_question_focus():
    turn = searched_turn(ASKED, [HALL[1], HALL[0]], focus=False)
    turn.require_reply("search budget")
    (notice,) = Recap(RecapSettings(hits=3)).after_step(turn, turn.steps[-1], FakeMemory())
    assert notice.content.split("(best first):\n", 1)[1].splitlines()[0].endswith(HALL[1])


def test_question_focus_sets_the_turns_focus_to_the_users_question():
    turn = Turn(question=ASKED)
    QuestionFocus().start(turn, FakeMemory())
    assert turn.focus == ASKED
    heartbeat = Turn(question=None)
    QuestionFocus().start(heartbeat, FakeMemory())
    assert heartbeat.focus is None


def test_prefetch_shows_recall_and_archival_hits_for_the_users_words():
    memory = FakeMemory(
        entries=[
            hit(1, "We adopted a ferret and named it Tansy.", kind="message", role="user"),
            hit(2, "Ferret care: feed twice a day."),
        ]
    )
    (notice,) = Prefetch(PrefetchSettings(hits=3)).start(Turn(question="What was our ferret's name?"), memory)
    assert notice.content.startswith("[memory read-ahead")
    assert "named it Tansy" in notice.content and "feed twice a day" in notice.content
    assert Prefetch(PrefetchSettings()).start(Turn(question="hello"), memory) == []
    assert Prefetch(PrefetchSettings()).start(Turn(question=None), memory) == []


# ---------------------------------------------------------------- guards


def test_repeat_guard_ends_the_turn_only_when_the_user_already_has_an_answer():
    guard = RepeatGuard()
    turn = Turn(question="hi")
    turn.add(step(0, "send_message", FunctionOutcome(True, "Message sent.", user_message="Hello!"), message="Hello!"))
    hold = guard.review(turn, draft(" Hello! "), FakeMemory())
    assert isinstance(hold, Hold) and hold.end_turn and hold.reason == "repeat_guard"
    parrot = guard.review(turn, draft("Message sent."), FakeMemory())
    assert parrot is not None and parrot.end_turn
    fresh = Turn(question="hi")
    fresh.add(step(0, "core_memory_append", FunctionOutcome(True, "Appended to human."), label="human", content="x"))
    early = guard.review(fresh, draft("Appended to human."), FakeMemory())
    assert early is not None and not early.end_turn  # nothing sent yet: the next step must answer
    assert guard.review(turn, draft("Something new."), FakeMemory()) is None


def test_repeat_guard_holds_the_users_own_words_sent_back_once():
    said = "By the way, I'm allergic to penicillin, and my favourite dinner is aubergine curry."
    guard, turn = RepeatGuard(), Turn(question=said)
    hold = guard.review(turn, draft(said), FakeMemory())
    assert hold is not None and hold.hide_draft and not hold.end_turn
    assert f'the user\'s message ("{said}")' in hold.notice and hold.notice.endswith("a question about it.")
    news = Turn(question="Big news: I've moved from Leeds to York!")
    assert guard.review(
        news, draft("Big news: I've moved from Leeds to York! I know I live in York now."), FakeMemory()
    )
    question = Turn(question="What's my pet's name again?")  # asked back: the echo guard holds it
    assert guard.review(question, draft("What's my pet's name again?"), FakeMemory()) is None
    longer = Turn(question="Good news, my sister Ola set the wedding date: June 14th. Also, I can't eat peanuts.")
    assert guard.review(longer, draft("Good news, my sister Ola set the wedding date: June 14th"), FakeMemory())
    quoting = Turn(question=said)  # a reply that quotes a phrase of the message is its own words
    assert guard.review(quoting, draft("Penicillin, noted! Aubergine curry sounds lovely."), FakeMemory()) is None
    assert guard.review(Turn(question="Hi there"), draft("Hi there, Dana!"), FakeMemory()) is None  # too short
    answer = draft("The capital of France is Paris.")  # an answer reuses its question's words
    assert guard.review(Turn(question="What's the capital of France?"), answer, FakeMemory()) is None
    assert guard.review(turn, draft(said), FakeMemory()) is None  # once a turn: the second draft goes out


def msg(i: int, role: str, text: str, **extra):
    """A stored message in the main context, for a ``FakeMemory``'s context."""
    from datetime import datetime, timezone

    from memgpt_local.schemas import Message

    when = datetime(2025, 1, 1, tzinfo=timezone.utc)
    return Message(id=i, agent_id=1, seq=i, role=role, content=text, created_at=when, in_context=True, **extra)


def test_repeat_guard_holds_a_denial_of_an_earlier_question_said_again_to_a_new_one():
    """A `make run` chat (stop 43): after "I'm sorry, but I don't know the name of Tomasz's
    bakery.", "It's called Rewena & Rye. And when is my conference again?" got the same words."""
    denial = "I'm sorry, but I don't know the name of Tomasz's bakery."
    memory = FakeMemory(
        context=[
            msg(1, "user", "What's the name of his bakery?"),
            msg(2, "assistant", "ok", function_name="send_message", function_args={"message": denial}),
        ]
    )
    new_question = Turn(question="It's called Rewena & Rye. And when is my conference again?", event_id=3)
    hold = RepeatGuard().review(new_question, draft(denial), memory)
    assert hold is not None and "when is my conference again?" in hold.notice
    same_question = Turn(question="Do you know the name of his bakery?", event_id=3)  # denied again, honestly
    assert RepeatGuard().review(same_question, draft(denial), memory) is None


def test_repeat_guard_holds_a_copy_of_an_earlier_user_message_once():
    """A `make run` chat (stop 50): told a birthday's date, the reply went on with the user's
    message of the day before, word for word, as the assistant's own."""
    earlier = (
        "I can't eat shellfish, found that out the hard way in Kinsale years ago. What would be a nice "
        "thing to cook for Declan's birthday on the 19th?"
    )
    memory = FakeMemory(context=[msg(1, "user", earlier), msg(2, "user", "it's the 19th of December!")])
    copy = draft(f"I know Declan's birthday is the 19th of December! {earlier}")
    guard, turn = RepeatGuard(), Turn(question="it's the 19th of December!", event_id=2)
    hold = guard.review(turn, copy, memory)
    assert hold is not None and hold.hide_draft and "earlier message" in hold.notice
    assert hold.notice.endswith(
        "to the user's message (\"it's the 19th of December!\"), in your own words, without copying it"
    )
    assert guard.review(turn, copy, memory) is None  # once a turn: the second draft goes out
    # a few of their words in a reply of its own are no copy
    own = draft("Noted: Declan's birthday is the 19th of December, and you can't eat shellfish.")
    assert RepeatGuard().review(Turn(question="it's the 19th of December!", event_id=2), own, memory) is None
    # the message being answered is not an earlier one (its own check covers it)
    later = FakeMemory(context=[msg(1, "user", earlier)])
    assert RepeatGuard().review(Turn(question="q", event_id=1), draft(f"So: {earlier} Lovely."), later) is None
    # a saved fact said back in the user's words is no copy (a `make run` greeting, stop 53)
    told = "Hi! I'm Priya. I'm a nurse in Bristol, mostly night shifts on a cardiac ward, so excuse me."
    known = FakeMemory(
        context=[msg(1, "user", told)], core=[("human", "Shifts: mostly night shifts on a cardiac ward")]
    )
    greeting = draft("Hello Priya! I know that you're a nurse in Bristol, mostly night shifts on a cardiac ward.")
    assert RepeatGuard().review(Turn(question=None, kind="login", event_id=2), greeting, known) is None
    unsaved = FakeMemory(context=[msg(1, "user", told)], core=[("human", "Work: nurse")])
    as_its_own = draft("Hello Priya! I'm a nurse in Bristol, mostly night shifts on a cardiac ward.")
    assert RepeatGuard().review(Turn(question=None, kind="login", event_id=2), as_its_own, unsaved) is not None
    # the user's "my" said back as "your" (a `make run` chat, stop 60)
    mum = FakeMemory(
        context=[msg(1, "user", "My mum is coming over from Munich for Christmas, she's never seen Kiel.")]
    )
    answer = draft("Your mum is coming over from Munich for Christmas.")
    assert RepeatGuard().review(Turn(question="When is my mum arriving again?", event_id=2), answer, mum) is None
    mine = draft("My mum is coming over from Munich for Christmas.")
    assert RepeatGuard().review(Turn(question="When is my mum arriving again?", event_id=2), mine, mum) is not None
    # the user's "I" said back as "you" is what they told, retold (a `make run` greeting, stop 54)
    assert RepeatGuard().review(Turn(question=None, kind="login", event_id=2), greeting, unsaved) is None
    grew = "Fair enough. I grew up in Osaka, came to England in 1982 for a teaching job."
    retold = draft("Hello Kenji! I remember that you grew up in Osaka, came to England in 1982 for a teaching job.")
    osaka = FakeMemory(context=[msg(1, "user", grew)], core=[("human", "Hometown: Osaka")])
    assert RepeatGuard().review(Turn(question=None, kind="login", event_id=2), retold, osaka) is None
    # asked what they told, the answer is their words (stop 54)
    tomatoes = "Mostly I potter about at my allotment. The tomatoes did terribly this year, blight got them all."
    garden = FakeMemory(context=[msg(1, "user", tomatoes)])
    answer = draft("Your tomatoes did terribly this year, blight got them all.")
    asked = Turn(question="What did I tell you about my tomatoes?", event_id=2)
    assert RepeatGuard().review(asked, answer, garden) is None
    assert RepeatGuard().review(Turn(question="Any tips for tomatoes?", event_id=2), answer, garden) is not None
    # asked something, what was told, said as nobody's, is the answer (a `make run` chat, stop 64)
    mimi = FakeMemory(context=[msg(1, "user", "our old cat Mimi is 14 and the vet says her kidneys are failing")])
    answer = draft("Your cat Mimi is 14 years old and the vet says her kidneys are failing.")
    assert RepeatGuard().review(Turn(question="what's wrong with Mimi?", event_id=2), answer, mimi) is None
    said_as_mine = draft("Our old cat Mimi is 14 and the vet says her kidneys are failing.")
    assert RepeatGuard().review(Turn(question="what's wrong with Mimi?", event_id=2), said_as_mine, mimi) is not None


def test_repeat_guard_holds_a_reply_of_an_earlier_turn_once_and_shows_the_message_to_answer():
    earlier = "That's great to know! How can I assist you today?"
    memory = FakeMemory(
        context=[
            msg(1, "user", "I have a rabbit."),
            msg(2, "assistant", "ok", function_name="send_message", function_args={"message": earlier}),
            msg(3, "user", "I moved to York."),
            msg(4, "assistant", "ok", function_name="send_message", function_args={"message": "York!"}),
        ]
    )
    guard, turn = RepeatGuard(), Turn(question="I moved to York.", event_id=3)
    hold = guard.review(turn, draft("That's great to know!  How can I assist you today"), memory)
    assert hold is not None and hold.hide_draft and not hold.end_turn
    assert hold.notice.endswith(
        'Write a new reply, in other words, to the user\'s message ("I moved to York."), in your own words, '
        "without copying it"
    )
    assert guard.review(turn, draft(earlier), memory) is None  # once a turn: the second draft goes out
    # a reply built on an earlier one: a sentence of it nearly the same; a formula with a new ending is new
    built_on = RepeatGuard().review(
        Turn(question="I moved to York.", event_id=3), draft("Wow, York! How can I assist you today?"), memory
    )
    assert built_on is not None and "the same words ('How can I assist you today?')" in built_on.notice
    formula = draft("Wow! How can I assist you with York?")
    assert RepeatGuard().review(Turn(question="I moved to York.", event_id=3), formula, memory) is None
    assert (
        RepeatGuard().review(Turn(question="I moved to York.", event_id=3), draft("How lovely, York is old."), memory)
        is None
    )
    assert RepeatGuard().review(Turn(question="q", event_id=3), draft("York!"), memory) is None  # this turn's own
    login = Turn(question=None, kind="login", event_id=5)  # a greeting may say again what it knows
    assert RepeatGuard().review(login, draft(earlier), memory) is None
    # a question may get the same answer again ("Your sister's name is ..." twice)
    question = Turn(question="What's my rabbit called?", event_id=3)
    memory.context[1] = msg(2, "assistant", "ok", function_name="send_message", function_args={"message": "Bunny."})
    assert RepeatGuard().review(question, draft("Bunny."), memory) is None
    # ... but not a reply that answers nothing ("Sure, I can help with that!" to every message)
    memory.context[1] = msg(2, "assistant", "ok", function_name="send_message", function_args={"message": earlier})
    assert RepeatGuard().review(question, draft(earlier), memory) is not None
    # ... and "I don't know" may be said again: held, the redraft invented an answer
    denial = "I'm sorry, but I don't know what you're asking about."
    memory.context[1] = msg(2, "assistant", "ok", function_name="send_message", function_args={"message": denial})
    assert RepeatGuard().review(question, draft(denial), memory) is None
    assert RepeatGuard().review(Turn(question="I moved to York.", event_id=3), draft(denial), memory) is not None
    memory.context[1] = msg(2, "assistant", "ok", function_name="send_message", function_args={"message": earlier})
    # a login greeting's formula may open a later reply; the whole greeting again may not
    greeted = FakeMemory(
        context=[
            msg(1, "system", "[login | 2025-01-01 00:00 UTC]\nThe user logged in for the first time."),
            msg(2, "assistant", "ok", function_name="send_message", function_args={"message": earlier}),
            msg(3, "user", "I teach chemistry in Ghent."),
        ]
    )
    intro = Turn(question="I teach chemistry in Ghent.", event_id=3)
    assert RepeatGuard().review(intro, draft("Lovely! How can I assist you today?"), greeted) is None
    assert RepeatGuard().review(intro, draft(earlier), greeted) is not None


def test_repeat_guard_lets_a_short_formula_close_a_new_reply():
    """From a real chat: "What are the symptoms?" after a question about door sensors held a
    reply about an allergy, and the redraft went back to the door sensors."""
    earlier = "I see! Can you tell me more about the faulty door sensor? What are the symptoms?"
    memory = FakeMemory(
        context=[
            msg(1, "user", "The door sensors are faulty."),
            msg(2, "assistant", "ok", function_name="send_message", function_args={"message": earlier}),
            msg(3, "user", "I'm allergic to shellfish."),
        ]
    )
    turn = Turn(question="I'm allergic to shellfish.", event_id=3)
    new = draft("I see! Can you tell me more about your allergies? What are the symptoms?")
    assert RepeatGuard().review(turn, new, memory) is None
    assert RepeatGuard().review(turn, draft("Oh no. What are the symptoms?"), memory) is not None  # mostly repeated


def test_echo_guard_holds_a_reply_that_asks_the_question_back_once_a_turn():
    guard, memory = EchoGuard(GuardSettings(hits=1)), FakeMemory()
    turn = searched_turn(ASKED, [HALL[1], HALL[0]])
    hold = guard.review(turn, draft("Which band did you see live at Zuxhao Hall?"), memory)
    assert hold is not None and hold.hide_draft and not hold.end_turn
    assert HALL[0] in hold.notice and HALL[1] not in hold.notice  # the closest hit only (hits=1)
    turn.holds[guard.name] += 1
    assert guard.review(turn, draft("Which band did you see live at Zuxhao Hall?"), memory) is None
    assert guard.review(searched_turn(ASKED, HALL), draft("The Shoulundvoels."), memory) is None
    assert guard.review(searched_turn(ASKED, HALL), draft("Which band did you see?", last=True), memory) is None
    # judged on what the model wrote after a policy's forced start (``recall_at_question``)
    told = searched_turn(ASKED, HALL)
    told.reply_start = "On Monday 5 May, you told me"
    assert guard.review(told, draft("On Monday 5 May, you told me which band did you see live at Zuxhao Hall?"), memory)


def test_echo_guard_leaves_a_check_back_on_news_alone():
    news = "Long night. The big oven broke at 3am so we baked 400 paczki in the small one."
    check_back = draft("Oh no! Did you bake 400 paczki in the small oven?")
    assert restates_question(check_back.message, news)  # the words match, but nothing was asked
    assert EchoGuard(GuardSettings()).review(Turn(question=news), check_back, FakeMemory()) is None


def test_copy_guard_holds_a_copy_of_a_farther_hit_and_shows_the_closer_ones_closest_last():
    guard, memory = CopyGuard(GuardSettings()), FakeMemory()
    turn = searched_turn(ASKED, [HALL[0], HALL[1]])
    hold = guard.review(turn, draft(HALL[1]), memory)
    assert hold is not None and hold.hide_draft and hold.reason == "copy_guard"
    assert hold.notice.rstrip().endswith(HALL[0]) and HALL[1] not in hold.notice
    assert guard.review(turn, draft(HALL[0]), memory) is None  # a quote of the closest hit goes out
    turn.holds[guard.name] += 1
    assert guard.review(turn, draft(HALL[1]), memory) is None  # once a turn


def test_copy_guard_lets_a_copy_of_what_happened_go_out_beside_closer_plans_and_hearsay():
    """dmr seed 15, reworded (stop 53): "Our room at the Faquais Hotel looked onto the sea" was held
    for the cousin's recommendation, closer to "Which hotel did we book when we went to Koutua?"."""
    stay = "Home again after five days in Koutua! Our room at the Faquais Hotel looked straight onto the sea."
    said = "Pronkiard, my cousin, says the Drortonzao Hotel is the place to stay in Koutua, the hotel to book."
    asked = "Which hotel did we book when we went to Koutua?"
    turn = searched_turn(asked, [said, stay])
    assert CopyGuard(GuardSettings()).review(turn, draft(f"You said: {stay}"), FakeMemory()) is None
    # a closer hit that tells what happened still holds the copy (the hall's band)
    turn = searched_turn(ASKED, [HALL[0], HALL[1]])
    assert CopyGuard(GuardSettings()).review(turn, draft(HALL[1]), FakeMemory()) is not None


def test_copy_guard_lets_the_next_link_of_a_chain_go_out():
    memory = FakeMemory()
    turn = searched_turn(
        "Where is the hotel my cousin stayed at?",
        [
            "My cousin Lena stayed at Hotel Aurelia during the trip.",
            "Hotel Aurelia is at 14 Vana Street, next to the river in Tartu.",
        ],
    )
    assert (
        CopyGuard(GuardSettings()).review(turn, draft("Hotel Aurelia is at 14 Vana Street, next to the river."), memory)
        is None
    )


def test_reply_check_holds_a_draft_whose_names_memory_knows_more_about():
    memory = FakeMemory(
        entries=[
            hit(7, "Hotel Aurelia is at 14 Vana Street, Tartu."),
            hit(8, "Lena said the trip was lovely and she stayed at Hotel Aurelia.", kind="message", role="user"),
        ]
    )
    check = ReplyCheck(ReplyCheckSettings(window=1.0, rounds=2))
    turn = Turn(question="Where did my cousin stay?")
    hold = check.review(turn, draft("She stayed at Hotel Aurelia."), memory)
    assert hold is not None and not hold.end_turn and not hold.hide_draft
    assert "14 Vana Street" in hold.notice and "Aurelia" in hold.user_note
    # read already (in the prompt): nothing to hold
    from memgpt_local.schemas import ChatMessage

    prompt = [
        ChatMessage(
            role="user",
            content="Hotel Aurelia is at 14 Vana Street, Tartu.\n"
            "Lena said the trip was lovely and she stayed at Hotel Aurelia.",
        )
    ]
    assert check.review(turn, draft("She stayed at Hotel Aurelia.", prompt=prompt), memory) is None
    turn.holds[check.name] = 2
    assert check.review(turn, draft("She stayed at Hotel Aurelia."), memory) is None  # rounds used up
    assert check.review(Turn(question="q"), draft("She stayed at Hotel Aurelia.", last=True), memory) is None
    # a greeting answers no question, and "Hello" opening a sentence names nothing
    login = Turn(question=None, kind="login")
    assert check.review(login, draft("Hello Lena! How was Hotel Aurelia?"), memory) is None
    greeted = FakeMemory(entries=[hit(9, "Hello again, I am back.", kind="message", role="user")])
    assert check.review(Turn(question="Hi, it's me"), draft("Hello! Welcome back."), greeted) is None
    # a name core memory holds is a fact the agent keeps: its first mention adds nothing
    moved = FakeMemory(
        entries=[hit(3, "Big news: I've moved to Shullthouardbury!", kind="message", role="user")],
        core=[("human", "Home: Shullthouardbury")],
    )
    asked = Turn(question="Where do I live these days?")
    assert check.review(asked, draft("You live in Shullthouardbury now."), moved) is None
    moved.core = []
    assert check.review(asked, draft("You live in Shullthouardbury now."), moved) is not None
    # the words a policy began the reply with are not the model's (bench_honesty seed 54, stop 44)
    said = "On Monday 5 May, you told me your sister Adaeze is visiting."
    monday = FakeMemory(entries=[hit(4, said, role="assistant")])
    told = Turn(question="What band did I see?", reply_start="On Monday 5 May, you told me")
    assert check.review(told, draft("On Monday 5 May, you told me you saw the Mosquas."), monday) is None
    # a weekday or a month is no name to look up (a `make run` chat, stop 52); a name is
    assert check.review(Turn(question="What band did I see?"), draft("On Monday you saw them."), monday) is None
    assert check.review(Turn(question="What band did I see?"), draft("You saw them with Adaeze."), monday) is not None


def test_reply_check_skips_common_names_and_far_details():
    entries = [hit(i, f"Aurelia note {i}") for i in range(5)]
    check = ReplyCheck(ReplyCheckSettings(window=1.0, max_df=3))
    assert check.review(Turn(question="q"), draft("Aurelia"), FakeMemory(entries=entries)) is None
    memory = FakeMemory(entries=[hit(1, "Brisk born painter Oskar Kallas made lighthouse etchings.")])
    narrow = ReplyCheck(ReplyCheckSettings(window=0.0))
    turn = searched_turn("Who founded the lighthouse?", ["The lighthouse was founded by Oskar Kallas in 1870."])
    assert narrow.review(turn, draft("Oskar Kallas founded it."), memory) is None


@pytest.mark.parametrize("name", POLICY_NAMES)
def test_every_policy_is_a_no_op_where_it_has_nothing_to_do(name):
    policy = FACTORIES[name](AgentSettings())
    turn, memory = Turn(question=None), FakeMemory()
    assert policy.start(turn, memory) == []
    assert policy.plan(turn, StepPlan()) == StepPlan()
    assert policy.review(turn, draft("Hello there."), memory) is None
    assert policy.after_step(turn, step(0, "pause_heartbeats", minutes=5), memory) == []
    assert policy.before_end(turn) is None
    assert turn.reply_reason is None and turn.step_reason is None


def test_one_reply_ends_a_users_turn_once_the_answer_went_out():
    from memgpt_local.agent.policy.one_reply import OneReply

    policy, memory = OneReply(), FakeMemory()
    turn = Turn(question="hi")
    policy.after_step(turn, search_step(0, [hit(1, "x")]), memory)
    assert turn.end_reason is None
    sent = step(
        1,
        "send_message",
        FunctionOutcome(True, "Message sent.", user_message="Hello!"),
        heartbeat=True,
        message="Hello!",
    )
    policy.after_step(turn, sent, memory)
    assert turn.end_reason
    heartbeat = Turn(question=None, kind="timed heartbeat")  # a heartbeat may send several messages
    policy.after_step(heartbeat, sent, memory)
    assert heartbeat.end_reason is None
    login = Turn(question=None, kind="login")  # one greeting ("Hello!" twice, seen in a real chat)
    policy.after_step(login, sent, memory)
    assert login.end_reason


def test_denial_guard_shows_what_memory_holds_about_the_question_once():
    from memgpt_local.agent.policy.denial_guard import DenialGuard, denies

    assert denies("I'm sorry, but I don't know your name.") and denies("I couldn’t find the ferret's name.")
    assert not denies("Your name is Dana.") and not denies("I know you love tea.")
    guard = DenialGuard(GuardSettings())
    memory = FakeMemory(core=[("human", "Name: Dana"), ("human", "Tea: lapsang souchong")])
    turn = Turn(question="What's my name?")
    hold = guard.review(turn, draft("I'm sorry, but I don't know your name."), memory)
    assert hold is not None and hold.hide_draft and "[human] Name: Dana" in hold.notice and "Tea" not in hold.notice
    turn.holds[guard.name] += 1
    assert guard.review(turn, draft("I don't know your name."), memory) is None  # the second one goes out
    assert guard.review(Turn(question="What's the capital of Peru?"), draft("I don't know."), memory) is None
    # "Name: Dana" answers no question about someone else's name
    assert guard.review(Turn(question="What's my mother's name?"), draft("I don't know."), memory) is None
    # a line found by a word of its value's stem, or by how people ask about its label
    from memgpt_local.agent.policy.denial_guard import lines_about

    core = [("human", "Home: Leeds"), ("human", "Work: nurse"), ("human", "Allergy: cat hair")]
    assert lines_about("Which city am I living in these days?", core) == ["[human] Home: Leeds"]
    assert lines_about("What do I do for a living?", core) == ["[human] Work: nurse"]
    assert lines_about("Am I allergic to anything?", core) == ["[human] Allergy: cat hair"]
    assert lines_about("What car do I drive?", core) == []
    # a journey by any of its names (`make run`, stop 44: "When is our trip?" found no "Destination")
    away = [*core, ("human", "Destination: Marrakech in April")]
    for trip in ("When is our trip?", "Where are we going on holiday?", "What day is my flight?"):
        assert lines_about(trip, away) == ["[human] Destination: Marrakech in April"], trip
    # "live" after seeing or playing is a gig, not a home (eval chat seed 12)
    gig = [*core, ("human", "Music: Kimreels")]
    assert lines_about("Which band did I see live a while ago?", gig) == ["[human] Music: Kimreels"]
    assert lines_about("Who played live at the hall?", core) == []
    assert lines_about("Where do I live these days?", gig) == ["[human] Home: Leeds"]
    # "moving" is "move" (a `make run` chat, stop 55: searched today's messages and denied the move)
    move = [("human", "Work: nurse"), ("human", "Move: to Bath in April (2027-04)")]
    assert lines_about("Where are we moving and when?", move) == ["[human] Move: to Bath in April (2027-04)"]
    # a pet asked about as one (eval chat seed 14: nothing found under "Ferret: Stouwia")
    pets = [*core, ("human", "Ferret: Stouwia")]
    assert lines_about("What's my pet's name again?", pets) == ["[human] Ferret: Stouwia"]
    persona = [("persona", "I remember what matters from our conversations.")]  # "remember" is no topic
    assert lines_about("Do you remember my blood group?", persona) == []
    # and a line labelled "Pet" asked about by the animal (eval chat seed 15: "Pet: Gollse")
    assert lines_about("Remind me, what is my cat called?", [*core, ("human", "Pet: Gollse")]) == [
        "[human] Allergy: cat hair",
        "[human] Pet: Gollse",
    ]
    assert lines_about("Where did I go to university?", gig) == []  # "where" alone is no topic
    # a grandson under his parent's name, by the relation that parent is filed under; "Son: Callum" alone
    # is no grandson, and "called" is no word of "Callum's" (the replay of a `make run` chat, stop 61)
    family = [("human", "Son: Callum, lives in Aberdeen"), ("human", "Callum's son: Rory, four")]
    assert lines_about("Right. And what's my grandson called again?", family) == ["[human] Callum's son: Rory, four"]
    assert lines_about("What's my niece called?", family) == []
    # where the user is from asks where home is (a `make run` chat, stop 61)
    glasgow = [*core[1:], ("human", "Home: Glasgow")]
    for asked in ("where did I say I was from?", "Where am I from, do you remember?", "where do I come from?"):
        assert lines_about(asked, glasgow) == ["[human] Home: Glasgow"], asked
    assert lines_about("Where did I say I was from?", [("human", "Hometown: Cork")]) == ["[human] Hometown: Cork"]
    from memgpt_local.agent.policy.nothing_found import subject_of

    assert subject_of("where did I say I was from?") == set()  # a message found says "from Glasgow", not "home"
    # food to avoid asks about an intolerance (a `make run` chat, stop 61: searched, found nothing, denied)
    lactose = [*core, ("human", "Lactose intolerance: yes")]
    assert lines_about("is there any food i should avoid?", lactose) == [
        "[human] Allergy: cat hair",
        "[human] Lactose intolerance: yes",
    ]
    # an operation by its kind (a `make run` chat, stop 61: only the walking stick "after the operation" was shown)
    knee = [*core, ("human", "Knee replacement scheduled: January 14th (2027-01-14)")]
    for operation in ("Do you remember when my operation is?", "When's my surgery again?"):
        assert lines_about(operation, knee) == [f"[human] {knee[-1][1]}"], operation
    # a dog or cat saved by its breed is asked about as a dog or a cat (a `make run` chat, stop 50:
    # "what's my dog called again?" beside "Collie: Bran" was denied), and the other way round
    bred = [*core, ("human", "Collie: Bran")]
    assert lines_about("what's my dog called again?", bred) == ["[human] Collie: Bran"]
    assert lines_about("What is my collie called?", [("human", "Dog: Bran")]) == ["[human] Dog: Bran"]
    assert lines_about("What is my cat called?", bred) == ["[human] Allergy: cat hair"]
    flat = [("human", "Home: Leeds (shared flat with Pepper, a very vocal Siamese)")]
    assert lines_about("what's my cat called again?", flat) == [f"[human] {flat[0][1]}"]  # a breed in the value
    hits = searched_turn(
        "What was the name we gave the ferret we adopted?", ["We adopted a ferret and named her Stoundbea."]
    )
    hold = guard.review(hits, draft("I couldn't find the ferret's name."), FakeMemory())
    assert hold is not None and "Stoundbea" in hold.notice


def test_reply_required_asks_for_a_greeting_at_login():
    policy = ReplyRequired()
    login = Turn(question=None, kind="login")
    login.add(step(0, "core_memory_append", label="persona", content="x"))
    assert policy.before_end(login) == "greet the user"
    assert policy.before_end(Turn(question=None, kind="timed heartbeat")) is None


def test_saved_already_makes_the_next_step_reply_after_an_edit_that_changed_nothing():
    from memgpt_local.agent.policy.saved_already import SavedAlready

    policy, memory = SavedAlready(), FakeMemory()
    turn = Turn(question="I'm Priya")
    policy.after_step(turn, step(0, "core_memory_append", label="human", content="Name: Priya"), memory)
    assert turn.reply_reason is None
    same = FunctionOutcome(True, "Already in human: nothing was changed.", unchanged=True)
    policy.after_step(turn, step(1, "core_memory_append", same, label="human", content="Name: Priya"), memory)
    assert turn.reply_reason == "nothing new to save"


def test_grounded_reply_holds_once_an_answer_about_the_user_that_rests_on_nothing_seen():
    from memgpt_local.agent.policy.grounded_reply import GroundedReply, names_and_numbers
    from memgpt_local.schemas import ChatMessage

    seen = [
        ChatMessage(role="system", content="[human]\nName: Maskeora\nAllergy: pollen"),
        ChatMessage(role="user", content="[user message | 2025-05-16]\nWhere did I go to university?"),
    ]
    guard, turn = GroundedReply(), Turn(question="Where did I go to university?")
    hold = guard.review(turn, draft("You went to the University of Auckland.", prompt=seen), FakeMemory())
    assert hold is not None and hold.hide_draft and "Auckland" in hold.notice
    # it names what to search for: told only what it made up, the model searched that (stop 47)
    assert 'search your memory for "university" now' in hold.notice
    assert guard.review(turn, draft("The University of Otago.", prompt=seen), FakeMemory()) is None  # once a turn
    fresh = Turn(question="What am I allergic to?")
    assert guard.review(fresh, draft("You are allergic to pollen, Maskeora.", prompt=seen), FakeMemory()) is None
    invented = guard.review(fresh, draft("You are allergic to peanuts and eggs.", prompt=seen), FakeMemory())
    assert invented is not None  # "peanuts", "eggs": half its words never seen
    honest = Turn(question="What's my blood type?")
    assert guard.review(honest, draft("I don't know your blood type.", prompt=seen), FakeMemory()) is None
    general = Turn(question="Is Paris in France?")
    assert guard.review(general, draft("Yes, Paris is the capital.", prompt=seen), FakeMemory()) is None
    assert names_and_numbers("Hello Dana. You have 3 cats. I think so.") == ["Dana", "3"]
    for help_asked in ("I keep waking up at 4am, any advice?", "How can I sleep better?", "I moved to Bath!"):
        advice = draft("Try chamomile tea and a warm bath before bed.", prompt=seen)
        assert GroundedReply().review(Turn(question=help_asked), advice, FakeMemory()) is None


def test_grounded_reply_counts_no_words_of_a_question_asked_back():
    """A `make run` chat (stop 52): the right answer was held for the words of "Is there anything
    else you'd like to know?", and the redraft answered nothing."""
    from memgpt_local.agent.policy.grounded_reply import GroundedReply
    from memgpt_local.schemas import ChatMessage

    seen = [ChatMessage(role="system", content="[human]\nOperation: Henri's knee on Thursday (Thursday 10 December)")]
    memory = FakeMemory(core=[("human", "Husband: Henri"), ("human", "Operation: Henri's knee on Thursday")])
    turn = Turn(question="thanks. what day is Henri's operation again? I keep forgetting")
    right = "Henri's knee operation is on Thursday, 10 December. Is there anything else you'd like to know?"
    assert GroundedReply().review(turn, draft(right, prompt=seen), memory) is None
    # a name in a question still counts
    rome = "Henri's knee operation is on Thursday. Is he flying to Rome after?"
    assert GroundedReply().review(Turn(question=turn.question), draft(rome, prompt=seen), memory) is not None


def test_grounded_reply_takes_a_number_seen_as_an_ordinal_as_seen():
    """A `make run` chat (stop 55): "... your dentist appointment is moved to the 22nd." under
    "Dentist appointment: moved to the 22nd" was held for "22", and the redraft left it out."""
    from memgpt_local.agent.policy.grounded_reply import unseen

    seen = "[human]\nDentist appointment: moved to the 22nd\nDaughter: Noor, visiting on the 20th (2026-12-20)"
    assert unseen("Noor is visiting on the 20th, and your dentist appointment is moved to the 22nd.", seen) == []
    assert unseen("Your dentist appointment is moved to the 23rd.", seen) == ["23"]


def test_grounded_reply_takes_no_number_of_bookkeeping_as_seen():
    """A `make run` chat (stop 60): "You are 36 years old." went out for "How old am I?", with
    nothing known of the user's age: "36" was seen in '<human chars="36/2000">'."""
    from memgpt_local.agent.policy.grounded_reply import GroundedReply
    from memgpt_local.schemas import ChatMessage

    seen = [
        ChatMessage(role="system", content='<human chars="36/2000">\nName: Ingrid\n</human>'),
        ChatMessage(
            role="user",
            content="[login | 2026-12-07 11:43 UTC | recall memory: 7 messages, archival memory: 0 passages]",
        ),
        ChatMessage(
            role="user",
            content="showing 1-2 of 2, page 1/1.\n1. [2026-12-05 10:31 UTC] the user said: I turned 41 in May.",
        ),
        ChatMessage(role="user", content="[user message | 2026-12-07 11:55 UTC]\nHow old am I?"),
    ]
    for invented in ("You are 36 years old.", "You're 11.", "You are 43.", "You are 55, Ingrid.", "You're 12."):
        assert GroundedReply().review(Turn(question="How old am I?"), draft(invented, prompt=seen), FakeMemory())
    right = draft("You turned 41 in May, Ingrid.", prompt=seen)
    assert GroundedReply().review(Turn(question="How old am I?"), right, FakeMemory()) is None


def test_grounded_reply_holds_the_persona_told_as_the_users_once():
    """A `make run` chat (stop 61): "what do you know about me so far?" got "I know you're a warm,
    curious companion who runs entirely on this computer." - the persona's first line."""
    from memgpt_local.agent.policy.grounded_reply import GroundedReply
    from memgpt_local.schemas import ChatMessage

    persona = "I am a warm, curious companion that runs entirely on this computer."
    core = [("persona", persona), ("human", "Name: Kofi"), ("human", "Cat: Pepper, a menace on the keyboard")]
    block = "\n".join(line for _, line in core)
    seen = [
        ChatMessage(role="system", content=block),
        ChatMessage(role="user", content="what do you know about me so far?"),
    ]
    memory, turn = FakeMemory(core=core), Turn(question="what do you know about me so far?")
    wrong = "I know you're a warm, curious companion who runs entirely on this computer."
    hold = GroundedReply().review(turn, draft(wrong, prompt=seen), memory)
    assert hold is not None and hold.hide_draft and "persona" in hold.notice and not hold.search_next
    assert GroundedReply().review(turn, draft(wrong, prompt=seen), memory) is None  # once a turn
    right = "You're Kofi, and your cat Pepper is a menace on the keyboard."
    assert (
        GroundedReply().review(Turn(question="what do you know about me so far?"), draft(right, prompt=seen), memory)
        is None
    )


def test_grounded_reply_reads_of_a_person_only_what_is_said_of_them_when_the_question_asks_more():
    """A `make run` chat (stop 55): "When is Noor coming, and when is my dentist now?" got "The
    dentist appointment is moved to the 22nd, and Noor is visiting on Sunday 20 December.", held
    as saying 22 of Noor; the redraft sent "Noor is not mentioned in the conversation or memory."
    (and so did the same question after the next login)."""
    from memgpt_local.agent.policy.grounded_reply import GroundedReply, said_of_them
    from memgpt_local.schemas import ChatMessage

    lines = ["Name: Omar", "Dentist appointment: moved to the 22nd", "Daughter: Noor, visiting on the 20th"]
    memory = FakeMemory(core=[("human", line) for line in lines])
    question = "When is Noor coming, and when is my dentist now?"
    seen = [
        ChatMessage(role="system", content="[human]\n" + "\n".join(lines)),
        ChatMessage(role="user", content=question),
    ]
    right = "The dentist appointment is moved to the 22nd, and Noor is visiting on the 20th."
    assert GroundedReply().review(Turn(question=question), draft(right, prompt=seen), memory) is None
    wrong = "Your dentist appointment is on the 20th, and Noor is visiting on the 22nd."
    assert GroundedReply().review(Turn(question=question), draft(wrong, prompt=seen), memory) is not None
    # a question of them alone: all the reply is of them
    alone = "When is my daughter Noor coming?"
    assert said_of_them("It's the 22nd.", alone, {"daughter", "noor"}) == "It's the 22nd."
    assert said_of_them("It's the 22nd.", question, {"noor"}) == ""


def test_grounded_reply_takes_a_count_of_days_to_a_seen_day_as_seen():
    """A `make run` chat (stop 52): "how many days until Elodie arrives?" got "14 days from now"
    under "moved to the 20th (2026-12-20)" on the 6th, held for "14"."""
    from memgpt_local.agent.policy.grounded_reply import GroundedReply, with_days_away
    from memgpt_local.schemas import ChatMessage

    line = "Granddaughter: Elodie, coming to stay, moved to the 20th (2026-12-20)"
    assert (
        with_days_away("2026-12-20, 2026-12-27, 2026-13-40", date(2026, 12, 6))
        == "2026-12-20 14 2, 2026-12-27 21 3, 2026-13-40"
    )
    seen = [ChatMessage(role="system", content=f"[human]\nName: Marguerite\n{line}")]
    memory = FakeMemory(core=[("human", "Name: Marguerite"), ("human", line)])
    when = datetime(2026, 12, 6, 9, tzinfo=timezone.utc)
    turn = Turn(question="how many days until my granddaughter Elodie arrives?", started_at=when)
    right = "Elodie arrives in 14 days, on Sunday 20 December."
    assert GroundedReply().review(turn, draft(right, prompt=seen), memory) is None
    wrong = "Elodie arrives in 12 days."
    assert GroundedReply().review(Turn(question=turn.question, started_at=when), draft(wrong, prompt=seen), memory)


def test_a_question_that_names_one_of_the_users_people_is_about_the_user():
    """A `make run` chat (stop 43): "What's the name of Tomasz's bakery?" under "Partner:
    Tomasz" said no "my", and was answered "Tomasz's bakery is called 'The Baker's Delight'."
    without a search."""
    from memgpt_local.agent.policy.grounded_reply import GroundedReply
    from memgpt_local.agent.policy.nothing_found import NothingFound
    from memgpt_local.schemas import ChatMessage
    from memgpt_local.text import named_as_known

    lines = ["Name: Ngaio", "Allergy: Tomasz is allergic to shellfish", "Partner: Tomasz", "Pet: Rex, a cat"]
    assert (
        named_as_known("What's the name of Tomasz's bakery?", lines) == "What's the name of my partner Tomasz's bakery?"
    )
    assert named_as_known("What breed is Rex?", lines) == "What breed is my pet Rex?"
    assert named_as_known("Does my partner Tomasz like fish?", lines) == "Does my partner Tomasz like fish?"
    assert named_as_known("What does Ngaio do?", lines) == "What does Ngaio do?"  # the user's own name
    assert named_as_known("Is Paris in France?", lines) == "Is Paris in France?"
    memory = FakeMemory(core=[("human", line) for line in lines])
    seen = [ChatMessage(role="system", content="[human]\n" + "\n".join(lines))]
    question = "What's the name of Tomasz's bakery?"
    hold = GroundedReply().review(
        Turn(question=question), draft("Tomasz's bakery is called 'The Baker's Delight'.", prompt=seen), memory
    )
    assert hold is not None and "Delight" in hold.notice
    assert (
        GroundedReply().review(Turn(question=question), draft("It's called 'The Delight'.", prompt=seen), FakeMemory())
        is None
    )
    # asked by a pronoun, the person named before it; and a made-up answer said before is no evidence
    pronoun = "I'm the marine biologist, remember! Tomasz is the baker. What's the name of his bakery?"
    said_before = [
        *seen,
        ChatMessage(role="assistant", content="{\"message\": \"Tomasz's bakery is called 'The Baker's Delight'.\"}"),
        ChatMessage(role="user", content=pronoun),
    ]
    again = draft("The name of Tomasz's bakery is 'The Baker's Delight'.", prompt=said_before)
    hold = GroundedReply().review(Turn(question=pronoun), again, memory)
    assert hold is not None and "Delight" in hold.notice
    school = Turn(question="Which school did Tomasz go to?", event_id=100)
    NothingFound().start(school, memory)
    assert school.reply_start.startswith("I don't know")  # a detail no line or message says
    asked_before = msg(7, "user", "Which school did my partner go to?")  # a question in view says nothing
    again = Turn(question="Which school did Tomasz go to?", event_id=100)
    NothingFound().start(again, FakeMemory(core=memory.core, context=[asked_before]))
    assert again.reply_start.startswith("I don't know")
    visit = hit(2, "Tomasz is visiting his mum this weekend.", kind="message", role="user")
    over = Turn(question="When is Tomasz coming over?", event_id=100)  # "over" is no detail: a visit is
    NothingFound().start(over, FakeMemory(entries=[visit], core=memory.core))
    assert over.reply_start == ""
    told = hit(1, "Tomasz went to Kaikorai school.", kind="message", role="user")
    found = Turn(question="Which school did Tomasz go to?", event_id=100)
    NothingFound().start(found, FakeMemory(entries=[told], core=memory.core))
    assert found.reply_start == ""


def test_grounded_reply_holds_what_an_answer_says_of_a_person_that_nothing_says_of_them():
    """bench_honesty seed 51 (stop 43): "What does Lendbuel do for work?" got "Lendbuel is a
    librarian.", the user's own job; "Which school did my sister go to?" got "... which is
    Nendveelbury.", the user's old home town."""
    from memgpt_local.agent.policy.grounded_reply import GroundedReply, person_asked
    from memgpt_local.schemas import ChatMessage

    lines = [
        "Name: Ana",
        "Home: Leeds (moved from Nendveelbury)",
        "Work: librarian",
        "Brother: Lendbuel",
        "Sister: Tass",
    ]
    memory = FakeMemory(core=[("human", line) for line in lines])
    seen = [
        ChatMessage(role="system", content="[human]\n" + "\n".join(lines)),
        ChatMessage(role="user", content="My sister Tass is visiting this weekend."),
    ]
    for question, reply in [
        ("What does Lendbuel do for work?", "Lendbuel is a librarian."),
        ("Which school did my sister go to?", "Tass went to the same school as you, which is Nendveelbury."),
    ]:
        asked = [*seen, ChatMessage(role="user", content=question)]
        hold = GroundedReply().review(Turn(question=question), draft(reply, prompt=asked), memory)
        assert hold is not None and "of them" in hold.notice, question
        assert hold.search_next, question  # no search yet: the next step searches
    for question, reply in [
        ("When is Tass coming over?", "Your sister is visiting this weekend."),
        ("Who is Lendbuel?", "Lendbuel is your brother."),
        ("What do I do for work?", "You are a librarian."),  # the user's own: seen anywhere
    ]:
        asked = [*seen, ChatMessage(role="user", content=question)]
        assert GroundedReply().review(Turn(question=question), draft(reply, prompt=asked), memory) is None, question
    # "my pet" is whichever animal a line names (eval chat seed 24, stop 46)
    pets = FakeMemory(core=[("human", "Name: Ana"), ("human", "Tortoise: Momsteo")])
    asked = [ChatMessage(role="system", content="[human]\nName: Ana\nTortoise: Momsteo")]
    right = draft("Your tortoise's name is Momsteo.", prompt=asked)
    assert GroundedReply().review(Turn(question="What's my pet's name again?"), right, pets) is None
    # a person asked by relation is named by the name a line files them under (a `make run` chat, stop 51)
    wife = ["Name: Femi", "Wife: Adaeze", "Adaeze's likes: spicy food"]
    shown = [ChatMessage(role="system", content="[human]\n" + "\n".join(wife))]
    asked = "hi! what's my wife's name? and what does she like to eat?"
    food = draft("Your wife's name is Adaeze and she likes spicy food.", prompt=shown)
    assert GroundedReply().review(Turn(question=asked), food, FakeMemory(core=[("human", ln) for ln in wife])) is None
    assert person_asked("What do I do for work?") == set()
    assert person_asked("Which dog breed is best?") == set()  # nobody's dog
    # a request for advice is never held: tips for "a good first dog" named breeds (`make run`, stop 43)
    tips = "Yep! She wants a dog for Christmas. Any ideas for a good first dog for a six-year-old?"
    breeds = draft("Here are some good first dogs: Chihuahua, Pomeranian and Terrier.", prompt=seen)
    assert GroundedReply().review(Turn(question=tips), breeds, memory) is None


def test_grounded_reply_reads_what_a_denial_claims_beside_it_and_no_words_of_measure():
    """A `make run` chat (stop 44): "What did I say my mother does for work?" got "I don't know
    what your mother does for work, but ... you said your mother runs a pottery studio in
    Alfama." (the user's own studio), sent because it denied; "How old is Karim?" under "Son:
    Karim, seven" had "Karim is seven years old." held for "years"."""
    from memgpt_local.agent.policy.grounded_reply import GroundedReply, claims_beside_denial
    from memgpt_local.schemas import ChatMessage

    lines = ["Name: Farida", "Work: runs a pottery studio in Alfama", "Son: Karim, seven"]
    memory = FakeMemory(core=[("human", line) for line in lines])
    said = "We're going to Marrakech in April to see my mother."
    seen = [
        ChatMessage(role="system", content="[human]\n" + "\n".join(lines)),
        ChatMessage(role="user", content=said),
    ]

    def review(question: str, reply: str) -> object:
        asked = [*seen, ChatMessage(role="user", content=question)]
        return GroundedReply().review(Turn(question=question), draft(reply, prompt=asked), memory)

    mother = "What did I say my mother does for work?"
    studio = "you said your mother runs a pottery studio in Alfama"
    hold = review(mother, f"I don't know what your mother does for work, but I can tell you that {studio}.")
    assert hold is not None and "Alfama" in str(hold.notice)
    assert review(mother, "I don't know what your mother does for work, but you're seeing her in Marrakech.") is None
    assert review(mother, "I don't know. If you tell me, I'll remember it for next time.") is None
    assert review(mother, "I'm not sure. Does she work in Marrakech?") is None
    assert review("How old is Karim?", "Karim is seven years old.") is None
    # a forced "I don't know" is the answer's own: "where Karim went to school" is no claim (seed 55)
    school = "Which school did my son go to?"
    denied = draft("I don't know where Karim went to school.", prompt=[*seen, ChatMessage(role="user", content=school)])
    assert GroundedReply().review(Turn(question=school, reply_start="I don't know"), denied, memory) is None
    assert review("What did I tell you my son is called?", "Your son's name is Karim.") is None
    # words of feeling claim nothing ("great, glad, enjoy" held an answer in a `make run` chat, stop 45)
    assert review("What do I run?", "That's great! I'm glad you enjoy your pottery studio.") is None
    assert review("What do I run?", "That's great! I'm glad you enjoy your bakery in Lagos.") is not None
    # a day said in words is the day a search hit dates (bench_honesty seed 54)
    hit_line = "1. [2025-05-07 10:00, this weekend = 2025-05-10] the user said: My son Karim is visiting this weekend."
    found = [
        *seen,
        ChatMessage(role="user", content="When is Karim coming over?"),
        ChatMessage(role="user", content=hit_line),
    ]
    visit = draft("Karim is visiting this weekend on 10 May 2025.", prompt=found)
    assert GroundedReply().review(Turn(question="When is Karim coming over?"), visit, memory) is None
    later = draft("Karim is visiting this weekend on 17 May 2025.", prompt=found)
    assert GroundedReply().review(Turn(question="When is Karim coming over?"), later, memory) is not None
    assert review("How old is Karim?", "Karim is nine years old.") is not None
    assert claims_beside_denial("I'm not sure, but I don't know.") == ""
    assert claims_beside_denial("Sorry, I don't know that. Your son is Karim.") == "Your son is Karim."
    # before the denial too (a `make run` chat, stop 60: the user's own job said of the partner)
    before = "Your partner Declan is a vet nurse in Galway, but I don't know how old he is."
    assert claims_beside_denial(before) == "Your partner Declan is a vet nurse in Galway"


def test_perspective_guard_keeps_the_answer_before_a_sentence_that_speaks_as_the_user():
    """bench_honesty seed 50 (stop 43): held for its second sentence, the redraft of "The
    Tillshaos played live last Saturday, ... I saw them at Weshoardbury, where I work as a
    baker." asked the question back; the answer before it is now the redraft."""
    from memgpt_local.agent.policy.perspective_guard import PerspectiveGuard

    memory = FakeMemory(core=[("human", "Name: Ana"), ("human", "Work: baker")])
    question = "What was the band I went to see play live?"
    answer = "The Tillshaos played live last Saturday, which was a great night!"
    turn = Turn(question=question)
    hold = PerspectiveGuard().review(
        turn, draft(f"{answer} I saw them at Weshoardbury, where I work as a baker."), memory
    )
    assert hold is not None and (turn.reply_start, turn.reply_sentences) == (answer, 1)
    for held in [
        "I saw the Tillshaos play live, where I work as a baker.",
        "Sure! I saw them live, I work as a baker.",
    ]:
        alone = Turn(question=question)  # nothing before it that answers
        assert PerspectiveGuard().review(alone, draft(held), memory) is not None
        assert (alone.reply_start, alone.reply_sentences) == ("", 0)


def test_perspective_guard_keeps_a_comment_on_news_before_the_users_words_said_as_its_own():
    """A `make run` chat (stop 55): "I'm glad the half marathon got moved to May. That's good
    news! More time to train, I suppose." was held for its last sentence, and the redraft sent
    the user's whole message back. The comment before it is the redraft's start."""
    from memgpt_local.agent.policy.perspective_guard import PerspectiveGuard

    memory = FakeMemory(core=[("human", "Name: Priya")])
    news = "Oh, update: the half marathon got moved to May because of roadworks. More time to train, I suppose."
    comment = "I'm glad the half marathon got moved to May. That's good news!"
    turn = Turn(question=news)
    assert PerspectiveGuard().review(turn, draft(f"{comment} More time to train, I suppose."), memory) is not None
    assert (turn.reply_start, turn.reply_sentences) == (comment, 2)
    # a comment that only sends the news back is no reply of its own
    copied = Turn(question=news)
    echo = "The half marathon got moved to May because of roadworks. More time to train, I suppose."
    assert PerspectiveGuard().review(copied, draft(echo), memory) is not None
    assert copied.reply_start == ""
    # a short comment kept goes on by one sentence: "That's a great idea!" went out alone (a `make run`
    # chat, stop 64)
    cake = Turn(question="my granddaughter Lia turns five next Saturday and I'm baking her a chocolate cake")
    held = draft("That's a great idea! I'll make sure to bake her a chocolate cake for her next Saturday.")
    assert PerspectiveGuard().review(cake, held, memory) is not None
    assert (cake.reply_start, cake.reply_sentences) == ("That's a great idea!", 2)


def test_perspective_guard_reads_do_you_remember_as_a_question_about_the_user():
    """A `make run` chat (stop 61): "Good. And where am I from, do you remember?" got "I am from
    Cork.": "do you" read as a question to the assistant about itself."""
    from memgpt_local.agent.policy.perspective_guard import speaks_as_user

    for asked in ("Good. And where am I from, do you remember?", "Do you remember where I'm from?"):
        for answer in ("I am from Cork.", "I'm from Cork."):
            assert speaks_as_user(answer, asked) == answer, (asked, answer)
    assert speaks_as_user("I am from a computer.", "Where are you from, do you know?") is None


def test_perspective_guard_holds_the_users_we_said_as_the_assistants():
    """ "Where are we moving and when?" got "We're moving to Bath in April." (a `make run` chat, stop 55)."""
    from memgpt_local.agent.policy.perspective_guard import speaks_as_user

    asked = "Where are we moving and when?"
    assert (
        speaks_as_user("We're moving to Bath in April. That's great news!", asked) == "We're moving to Bath in April."
    )
    assert speaks_as_user("You're moving to Bath in April.", asked) is None
    assert speaks_as_user("We can look through your notes together.", asked) is None  # nothing asked of "we"
    assert speaks_as_user("We're moving to Bath.", "Where is Sam moving?") is None  # no "we" asked
    assert speaks_as_user("We talked about the concert.", "What did we talk about?") is None  # the assistant's "we"
    # "we" past a sentence's start, and the "we" of what the user told (`make run` chats, stop 60)
    april = "I'm sorry, but I don't know where we're going in April. I only know that we're going to visit Cian."
    assert (
        speaks_as_user(april, "Where are we going in April?")
        == "I'm sorry, but I don't know where we're going in April."
    )
    dog = "We have a old dog called Bamse, he's a Bernese mountain dog and he's nearly twelve."
    assert speaks_as_user("That's a great story! I'm glad we have a dog named Bamse.", dog) == (
        "I'm glad we have a dog named Bamse."
    )
    assert speaks_as_user("I'm glad your dog Bamse is doing well.", dog) is None
    assert speaks_as_user("We can talk about Bamse any time.", dog) is None  # the talk is the assistant's too
    assert speaks_as_user("You told me: we have a old dog called Bamse.", dog) is None  # quoted as theirs


def test_perspective_guard_takes_what_the_assistant_only_knows_as_its_own():
    """A `make run` chat (stop 60): "How old am I?" got "I'm sorry, but I don't have enough
    information to answer that question. I only know about the daughter Sofie ...", held as the
    user's words, and the redraft said "You are 36 years old."."""
    from memgpt_local.agent.policy.perspective_guard import speaks_as_user

    known = {"sofie", "rode", "pony", "horses", "herself"}  # the words of the user's saved facts
    only = "I only know about the daughter Sofie and her hobby of riding a pony by herself."
    assert speaks_as_user(f"I'm sorry, but I don't know your age. {only}", "How old am I?", known) is None
    assert speaks_as_user("I just know that Sofie loves horses.", "How old am I?", known) is None
    assert speaks_as_user("I only ride horses with Sofie.", "What do I ride?", known) is not None


def test_perspective_guard_holds_the_users_chore_said_as_the_assistants():
    """ "Ugh, the boiler broke again and the engineer can't come until Friday." got "I'm sorry to hear
    that. I'll need to find another way to heat the house." (bench_replies, stop 56)."""
    from memgpt_local.agent.policy.perspective_guard import speaks_as_user

    news = "Ugh, the boiler broke again and the engineer can't come until Friday."
    chore = "I'll need to find another way to heat the house."
    assert speaks_as_user(f"I'm sorry to hear that. {chore}", news) == chore
    ready = "I'll make sure to have everything ready for her."  # eval chat seed 38
    assert speaks_as_user(f"How lovely. {ready}", "Sherpraiick, my sister, comes to stay on Saturday.") == ready
    assert speaks_as_user("I'll make sure to remember that.", news) is None
    assert speaks_as_user("Oh no. I have to say, that sounds cold.", news) is None  # the assistant's own saying
    assert speaks_as_user("I'll need to know more about the boiler.", news) is None
    assert speaks_as_user("You'll need to find another way to heat the house.", news) is None
    assert speaks_as_user("I have a few ideas to keep warm.", news) is None
    # asked for the assistant's own doing, its plan is its own
    asked = "Can you help me plan a trip to Seville?"
    assert speaks_as_user("I'll need to look at flights. I'll have to find dates that suit you.", asked) is None


def test_repeat_guard_holds_a_draft_that_copies_a_notice():
    """dmr seed 19 (stop 55): held for "I'll search for you later.", the redraft was the notice,
    sent to the user; refused token by token, the copy went on as "your.reply ... come_back"."""
    from memgpt_local.agent.policy.later_promise import LaterPromise

    question = "Who is my boss at Delgiton Studio these days?"
    turn = Turn(question=question)
    held = step(0, "send_message", message="I don't know. I'll search for you later.")
    held.hold = LaterPromise().review(turn, draft("I don't know. I'll search for you later."), FakeMemory())
    assert held.hold is not None
    turn.add(held)
    copy = (
        "I'll search for you later. promises to do it later, but your.reply ends this turn and you cannot "
        "come_back to it. Do it now: if it needs your memory, call a search function first."
    )
    hold = RepeatGuard().review(turn, draft(copy), FakeMemory())
    assert hold is not None and hold.user_note == "it copied a notice meant for the assistant"
    # the user's message the notice quotes may be answered in its words
    answer = "Your boss at Delgiton Studio these days is Nondkeen Brurkhostro."
    assert RepeatGuard().review(turn, draft(answer), FakeMemory()) is None


def test_grounded_reply_does_not_count_what_the_turn_itself_wrote_as_seen():
    """Held by the perspective guard, "I went to the University of Oxford." came back as "You
    went to the University of Oxford.": the hold's notice quoted the draft, so "Oxford" was seen."""
    from memgpt_local.agent.policy.grounded_reply import GroundedReply
    from memgpt_local.schemas import ChatMessage

    question = "Which university did I go to?"
    notice = f"Not sent: 'I went to the University of Oxford.' speaks as the user. The user's message: {question}"
    turn = Turn(question=question)
    first = step(0, "send_message", message="I went to the University of Oxford.")
    first.hold = Hold("perspective_guard", notice, "it answered as if it were the user", hide_draft=True)
    turn.add(first)
    prompt = [
        ChatMessage(role="system", content="[human]\nName: Maskeora"),
        ChatMessage(role="user", content=f"[user message | 2025-05-16]\n{question}"),
        ChatMessage(role="assistant", content='{"thought": "I remember Oxford", "function": "send_message"}'),
        ChatMessage(role="user", content=f"[send_message returned OK]\n{notice}"),
        ChatMessage(role="user", content="[conversation_search returned OK]\n1. the user said: I love Cardiff"),
    ]
    hold = GroundedReply().review(turn, draft("You went to the University of Oxford.", prompt=prompt), FakeMemory())
    assert hold is not None and "Oxford" in hold.notice
    found = Turn(question=question)  # a search result is seen
    assert GroundedReply().review(found, draft("You love Cardiff.", prompt=prompt), FakeMemory()) is None


def test_search_uncovered_searches_first_only_when_nothing_in_view_speaks_of_the_question():
    from memgpt_local.agent.policy.search_uncovered import SearchUncovered, topic

    assert topic("Sorry, my memory is terrible: what's my cat's name?") == {"cat"}
    assert topic("Which university did I go to?") == {"univ"}
    assert topic("Is Paris in France?") == set() and topic("I moved to York.") == set()
    when = datetime(2025, 5, 16, tzinfo=timezone.utc)
    asked = Message(id=9, agent_id=1, seq=9, role="user", content="What band did I see live?", created_at=when)
    memory = FakeMemory(core=[("human", "Pet: Prixquou, a cat")], context=[asked])
    policy = SearchUncovered()
    band = Turn(question="What band did I see live?", event_id=9)  # only the question itself says "band"
    policy.start(band, memory)
    assert policy.plan(band, StepPlan()).kinds == {"search"}
    policy.after_step(band, step(0, "conversation_search", query="band"), memory)
    assert band.step_reason  # the results are read before the reply
    cat = Turn(question="What's my cat called again?", event_id=10)  # core memory speaks of the cat
    policy.start(cat, memory)
    assert policy.plan(cat, StepPlan()) == StepPlan()
    general = Turn(question="Any tips for sleeping better?", event_id=11)
    policy.start(general, memory)
    assert policy.plan(general, StepPlan()) == StepPlan()


# ---------------------------------------------------------------- direct reply


@pytest.mark.parametrize(
    "message",
    [
        "Hi! I'm Dana. I keep three beehives on my roof in Leeds.",
        "I watched a great documentary about octopuses last night.",
        "Any tips for sleeping better?",
        "Haha, thanks. That made me smile.",
        "Tell me a joke",
        "The weather has been awful all week, hasn't it?",
        # advice about the user's own life: what memory holds of them is core memory, in view
        # (a `make run` chat, stop 42, searched this and denied it)
        "What can I do to make Tui less anxious when there's a storm?",
        "How do I help Tui stay calm during a thunderstorm?",
        "Any ideas for a fun end-of-term activity for my rowers?",
        "Should I take my dog to the vet for this?",
        "What could I get her as a going-away present?",
        "Where should we go for my daughter's birthday dinner?",
        "Where should we go for a last dinner together before she leaves?",
        # content asked for, not memory (a `make run` chat, stop 46, held a list of bassists)
        "Could you list eight famous funk bassists for me, numbered?",
        "Can you give me three easy funk grooves?",
        "Tell me about Bootsy Collins?",
    ],
)
def test_direct_reply_answers_statements_and_general_questions_in_the_first_step(message):
    from memgpt_local.agent.policy.direct_reply import DirectReply

    policy, memory = DirectReply(), FakeMemory()
    turn = Turn(question=message)
    policy.start(turn, memory)
    assert policy.plan(turn, StepPlan()).reply_only
    turn.add(step(0, "send_message", FunctionOutcome(True, "Message sent.", user_message="Hi"), message="Hi"))
    assert not policy.plan(turn, StepPlan()).reply_only  # only the first step is narrowed


@pytest.mark.parametrize(
    "message",
    [
        "What's my pet's name again?",
        "Which band did we see live a while ago?",
        "What did Caroline say about her kids?",
        "Like I said, my sister is visiting.",  # points back at earlier talk
        "Remind me what we talked about",
        "What is in section 4.2?",
        "Remember the tips you gave me for the speech?",  # advice, but asked back from earlier talk
        "What did I do with my dog last weekend?",
        "Did I tell you about this before?",
        "We talked about my sister before, remember her name?",
        "Can you list the places I said I'd visit?",
        "Could you tell me my sister's name?",
        "Can you name my dog's vet?",
    ],
)
def test_direct_reply_leaves_questions_about_memory_to_the_model(message):
    from memgpt_local.agent.policy.direct_reply import DirectReply

    policy, memory = DirectReply(), FakeMemory()
    turn = Turn(question=message)
    policy.start(turn, memory)
    assert policy.plan(turn, StepPlan()) == StepPlan()


def test_direct_reply_lets_a_general_question_search_when_memory_holds_its_words():
    from memgpt_local.agent.policy.direct_reply import DirectReply

    question = "Any tips for pruning apple trees?"
    for beyond, narrowed in ((False, True), (True, False)):
        memory = FakeMemory(entries=[hit(1, "Pruning apple trees: cut in late winter.")], beyond=beyond)
        turn = Turn(question=question)
        DirectReply().start(turn, memory)
        assert DirectReply().plan(turn, StepPlan()).reply_only is narrowed
    # advice about the user's own life: their words in recall do not make it a memory question
    said = hit(2, "We have a golden retriever called Tui who is scared of thunder.", kind="message", role="user")
    turn = Turn(question="What can I do to make Tui less anxious when there's thunder?")
    DirectReply().start(turn, FakeMemory(entries=[said], beyond=True))
    assert DirectReply().plan(turn, StepPlan()).reply_only
    # without fact notes the model keeps core memory itself, so the step may edit it too
    turn = Turn(question="I have a cat called Pixel.")
    policy = DirectReply(notes_enabled=False)
    policy.start(turn, FakeMemory())
    assert policy.plan(turn, StepPlan()).kinds == {"reply", "memory_edit"}
    login = Turn(question=None, kind="login")
    DirectReply().start(login, FakeMemory())
    assert DirectReply().plan(login, StepPlan()) == StepPlan()


def test_greet_by_name_holds_a_login_greeting_without_the_known_name_once():
    from memgpt_local.agent.policy.greet_by_name import GreetByName

    policy = GreetByName()
    memory = FakeMemory(
        core=[("persona", "Name: Sam the assistant"), ("human", "Name: Lena Maier"), ("human", "Pets: two goats")]
    )
    login = Turn(question=None, kind="login")
    hold = policy.review(login, draft("Hello! How can I help you today? What is your name?"), memory)
    assert hold is not None and hold.hide_draft and hold.notice.endswith("Start with: Hello Lena!")
    assert "left out the user's name and said nothing you know" in hold.notice
    assert policy.review(login, draft("Welcome back, Lena! How are the goats?"), memory) is None
    # the name alone is not enough when core memory knows more
    hold = policy.review(login, draft("Hello Lena! How can I help you today?"), memory)
    assert hold is not None and "for example your pets, two goats." in hold.notice
    assert hold.user_note == "the greeting said nothing you know about them"
    assert policy.review(Turn(question=None, kind="login"), draft("Hello Lena! How are your pets?"), memory) is None
    favourite = FakeMemory(core=[("human", "Name: Lena Maier"), ("human", "Favourite tea: lapsang")])
    assert policy.review(Turn(question=None, kind="login"), draft("Hello Lena! Your favourite day?"), favourite)
    # asking for what a note says is not saying it (eval chat seed 15, both logins)
    documentary = FakeMemory(core=[("human", "Name: Lena"), ("human", "Favorite documentary: about octopuses")])
    for asked in ["What's your favorite documentary?", "What is your favorite documentary about octopuses?"]:
        hold = policy.review(Turn(question=None, kind="login"), draft(f"Hello Lena! {asked}"), documentary)
        assert hold is not None and hold.user_note == "the greeting only asked what you know already"
        assert "Do not ask what core memory says" in hold.notice
    liked = "Hello Lena! How was the documentary about octopuses?"
    assert policy.review(Turn(question=None, kind="login"), draft(liked), documentary) is None
    only_name = FakeMemory(core=[("human", "Name: Lena Maier")])
    assert policy.review(login, draft("Hello Lena! How can I help you today?"), only_name) is None
    # a note that holds the name is no fact said (eval chat seed 13: "Fosveel is allergic: penicillin")
    named = FakeMemory(core=[("human", "Name: Lena"), ("human", "Lena is allergic: penicillin")])
    assert policy.review(Turn(question=None, kind="login"), draft("Hello Lena! How can I help?"), named) is not None
    login.holds[policy.name] = 1  # once a turn: the second draft goes out
    assert policy.review(login, draft("Hello!"), memory) is None
    assert policy.review(Turn(question="hi"), draft("Hello!"), memory) is None  # only at a login
    assert policy.review(Turn(question=None, kind="login"), draft("Hello!"), FakeMemory()) is None  # name unknown
    # the note to ask about is one the last greeting did not say (a `make run` chat, stop 53)
    when = datetime(2026, 12, 6, tzinfo=timezone.utc)

    def message(i, role, content="", said=None):
        args = {"message": said} if said else None
        return Message(id=i, agent_id=1, seq=i, role=role, content=content, function_args=args, created_at=when)

    greeted = [
        message(1, "system", "[login | 2026-12-05 10:00 UTC]\nThe user logged in."),
        message(2, "assistant", said="Hello Lena! How are the goats?"),
    ]
    goats = FakeMemory(
        core=[("human", "Name: Lena"), ("human", "Pets: two goats"), ("human", "Work: vet")], context=greeted
    )
    hold = policy.review(Turn(question=None, kind="login", event_id=3), draft("Hello Lena! Hi."), goats)
    assert hold is not None and "for example your work - vet." in hold.notice
    # the last greeting's words about a note, said again (a `make run` chat, stop 55)
    last = "Hello Lena! I'm glad to meet you. I know you're looking after your two goats, and I'm here to help."
    greeted[1] = message(2, "assistant", said=last)
    again = "Hello Lena! I'm glad we met. I know you're looking after your two goats, and I'm here to help."
    hold = policy.review(Turn(question=None, kind="login", event_id=3), draft(again), goats)
    assert hold is not None and hold.user_note == "the greeting said again what you said at the last login"
    assert "for example your work - vet." in hold.notice
    # nor may the redraft copy it: held for saying nothing known, one was the last greeting word for
    # word (a `make run` chat, stop 57)
    assert hold.uncopied == (last,)
    formula = "Hello Lena! I'm glad to meet you. How is work at the vet's going?"  # a formula is no note again
    assert policy.review(Turn(question=None, kind="login", event_id=3), draft(formula), goats) is None


def test_greet_by_name_asks_after_the_relative_of_the_note_when_it_holds_a_greeting():
    """A `make run` chat (stop 59): held for saying the last login's "I know that your wife Efua is a
    pharmacist and your son Kofi ..." again, the redraft said it again, the mother's visit quoted."""
    from memgpt_local.agent.policy.greet_by_name import GreetByName
    from memgpt_local.schemas import Message

    when = datetime(2026, 12, 7, tzinfo=timezone.utc)
    last = (
        "Hello Kwame! I'm here for you today. I know that your wife Efua is a pharmacist and your son Kofi is "
        "learning swimming lessons on Saturdays."
    )
    greeted = [
        Message(id=1, agent_id=1, seq=1, role="system", content="[login | 2026-12-06 10:00 UTC]", created_at=when),
        Message(
            id=2, agent_id=1, seq=2, role="assistant", content="", function_args={"message": last}, created_at=when
        ),
    ]
    core = [
        ("human", "Name: Kwame"),
        ("human", "Wife: Efua, is a pharmacist"),
        ("human", "Son: Kofi, just started swimming lessons on Saturdays"),
        ("human", "Mum: Abena, 71; flying in from Accra next Friday (2026-12-11)"),
    ]
    login = Turn(question=None, kind="login", event_id=3, reply_start="Hello Kwame!", started_at=when)
    hold = GreetByName().review(
        login, draft(last.replace("here for you", "here to listen")), FakeMemory(core=core, context=greeted)
    )
    assert hold is not None and "for example your mum Abena, 71; flying in from Accra" in hold.notice
    assert login.reply_start == "Hello Kwame! How is your mum"
    assert hold.notice.endswith("Start with: Hello Kwame! How is your mum")
    # a note of the user's own keeps the plain start
    own = Turn(question=None, kind="login", event_id=3, reply_start="Hello Kwame!", started_at=when)
    mine = FakeMemory(core=[("human", "Name: Kwame"), ("human", "Knee: playing up")], context=greeted)
    assert GreetByName().review(own, draft("Hello Kwame! Nice to see you."), mine) is not None
    assert own.reply_start == "Hello Kwame!"


def test_greet_by_name_holds_a_greeting_that_recites_core_memory_once():
    """A `make run` chat (stop 60): "Hello Oona! I know your partner Declan builds boats, your cat
    Pickle is about nine years old, and your cat's eye is one. I also know that Pickle's health is
    torn ear." A greeting asks after one thing."""
    from memgpt_local.agent.policy.greet_by_name import GreetByName, lines_recited

    when = datetime(2026, 12, 7, tzinfo=timezone.utc)
    lines = [
        "Name: Oona",
        "Work: vet nurse in Galway",
        "Partner: Declan, builds boats",
        "Cat: Pickle, about nine years old",
        "Cat's eye: one",
        "Pickle's health: torn ear",
    ]
    memory = FakeMemory(core=[("human", line) for line in lines])
    recital = (
        "Hello Oona! I know your partner Declan builds boats, your cat Pickle is about nine years old, and your "
        "cat's eye is one. I also know that Pickle's health is torn ear."
    )
    facts = lines[1:]
    assert lines_recited(recital, facts, "Oona") == 4
    login = Turn(question=None, kind="login", event_id=3, reply_start="Hello Oona!", started_at=when)
    hold = GreetByName().review(login, draft(recital), memory)
    assert hold is not None and "listed what you know" in hold.notice and "Pickle's health - torn ear" in hold.notice
    assert login.reply_start == "Hello Oona! How is Pickle's health"
    login.holds["greet_by_name"] += 1
    assert GreetByName().review(login, draft(recital), memory) is None  # once
    for greeting in [
        "Hello Oona! How is Pickle's torn ear healing?",
        "Hello Oona! How's the vet nursing going? Is Declan still building boats?",  # two notes
    ]:
        assert lines_recited(greeting, facts, "Oona") < 3, greeting
        fresh = Turn(question=None, kind="login", event_id=3, reply_start="Hello Oona!", started_at=when)
        assert GreetByName().review(fresh, draft(greeting), memory) is None, greeting


def test_a_login_greeting_begins_with_the_known_name_or_asks_for_it():
    from memgpt_local.agent.policy.greet_by_name import ASK_NAME, GreetByName

    named, login = FakeMemory(core=[("human", "Name: Lena Maier")]), Turn(question=None, kind="login")
    GreetByName().start(login, named)
    assert login.reply_start == "Hello Lena!"
    nameless, login = FakeMemory(core=[("human", "Pets: two goats")]), Turn(question=None, kind="login")
    GreetByName().start(login, nameless)
    assert login.reply_start == ASK_NAME and "name?" in ASK_NAME
    message = Turn(question="hi")
    GreetByName().start(message, nameless)
    assert message.reply_start == ""  # only a login


def test_a_question_asks_for_a_note_when_all_its_words_of_what_are_the_notes():
    from memgpt_local.agent.policy.greet_by_name import asks_for

    assert asks_for("What's your favorite documentary?", "Favorite documentary: about octopuses")
    assert asks_for("What is your favourite music?", "Favorite music: amazing")  # compared by "favo"
    assert asks_for("What's your name?", "Name: Lena")
    assert asks_for("Which is your new home?", "Home: Nollthaenbury")
    assert not asks_for("What's your new home like?", "Home: Nollthaenbury")  # asks for more
    assert not asks_for("How do you like your job?", "Work: pharmacist")
    # asked yes or no, by a topic of the line's label (a `make run` chat, stop 47)
    assert asks_for("Do you have any pets?", "Rabbit: Biscuit")
    assert asks_for("And do you have any hobbies?", "Hobbies: climbing on Thursdays")
    assert not asks_for("Do you have any other pets?", "Rabbit: Biscuit")  # asks for more
    assert not asks_for("Do you have any pets?", "Partner: Sam")
    assert not asks_for("What's your favorite documentary?", "Hobby: watching documentaries")  # which one is new
    assert not asks_for("Your documentary was about octopuses.", "Favorite documentary: about octopuses")


def test_asked_known_holds_a_reply_that_asks_for_what_the_user_just_said_once():
    """Eval chat seed 15: "Hi! I'm Pasoard. I live in Rudaoton ..." was answered "What's your
    name?", and a move to Nollthaenbury "What's your new home?"."""
    from memgpt_local.agent.policy.asked_known import AskedKnown
    from memgpt_local.text import introduced_name

    policy = AskedKnown()
    intro = Turn(question="Hi! I'm Pasoard. I live in Rudaoton and I work as a florist.")
    hold = policy.review(intro, draft("What's your name?"), FakeMemory())
    assert hold is not None and hold.hide_draft and "they have just told you in their message" in hold.notice
    assert hold.notice.endswith(
        "the user's message (\"Hi! I'm Pasoard. I live in Rudaoton and I work as a florist.\"), in your own words, "
        "without copying it"
    )
    moved = Turn(question="Big news: I've moved from Rudaoton to Nollthaenbury!")
    old_home = FakeMemory(core=[("human", "Home: Rudaoton")])
    hold = policy.review(moved, draft("I'm glad you've moved. What's your new home?"), old_home)
    assert hold is not None and "just told you" in hold.notice  # the message, not the old line
    documentary = FakeMemory(core=[("human", "Favorite documentary: about octopuses")])
    hold = policy.review(Turn(question="Long day."), draft("Oh no! What is your favorite documentary?"), documentary)
    assert hold is not None and 'your core memory says "Favorite documentary: about octopuses"' in hold.notice
    for reply in [
        "What's your new home like?",  # asks for more
        "Nice to meet you, Pasoard! How do you like being a florist?",
        "What's your favorite flower?",  # not known
    ]:
        assert policy.review(intro, draft(reply), old_home) is None, reply
    assert policy.review(Turn(question="Hi there!"), draft("What's your name?"), FakeMemory()) is None
    moved.holds[policy.name] = 1  # once a turn
    assert policy.review(moved, draft("What's your new home?"), old_home) is None
    assert introduced_name("Hello there, Folpreette here.") == "Folpreette"
    assert introduced_name("my name is Lena") == "Lena" and introduced_name("Hi! I'm Pasoard.") == "Pasoard"
    assert introduced_name("Hi there, how are you?") is None and introduced_name("I'm tired") is None


def test_asked_known_holds_a_greeting_that_asks_again_what_an_earlier_session_asked():
    """A `make run` chat (stop 43): asked "What are some of your favorite things about sea
    lions?" and answered, the user was greeted at the next login with "What's your favorite
    thing about sea lions?"."""
    from memgpt_local.agent.policy.asked_known import AskedKnown

    earlier = hit(
        3,
        "That's interesting! What are some of your favorite things about sea lions?",
        kind="message",
        role="assistant",
    )
    memory = FakeMemory(entries=[earlier], core=[("human", "Name: Ngaio")])
    greeting = "Hello Ngaio! You study sea lions in Dunedin. What's your favorite thing about sea lions?"
    login = Turn(question=None, kind="login", event_id=100)
    hold = AskedKnown().review(login, draft(greeting), memory)
    assert (
        hold is not None and hold.hide_draft and "What are some of your favorite things about sea lions?" in hold.notice
    )
    # a greeting asking for what core memory says (eval chat seed 31, stop 51)
    music = FakeMemory(core=[("human", "Name: Prixfeo"), ("human", "Favourite music: Fomeicks")])
    asks = draft("Hello Prixfeo! What's your favourite music?")
    held = AskedKnown().review(Turn(question=None, kind="login", event_id=100), asks, music)
    assert held is not None and 'your core memory says "Favourite music: Fomeicks"' in held.notice
    # and the redraft may not copy the earlier question either (a `make run` chat, stop 51: it did, word for word)
    assert hold.uncopied == ("What are some of your favorite things about sea lions?",)
    assert hold.banned_words == ("favorite", "Favorite", "lions", "Lions")  # nor its topic, in other words
    # in view, not found: a step's content is its thought, the message its call's
    shown = msg(
        4,
        "assistant",
        "They like sea lions.",
        function_name="send_message",
        function_args={"message": "What are some of your favorite things about sea lions?"},
    )
    assert AskedKnown().review(login, draft(greeting), FakeMemory(context=[shown])) is not None
    for fresh in ["Hello Ngaio! How can I help you today?", "Hello Ngaio! How is Tomasz's bakery going?"]:
        assert AskedKnown().review(Turn(question=None, kind="login", event_id=100), draft(fresh), memory) is None
    user_asked = hit(5, "What are some of your favorite things about sea lions?", kind="message", role="user")
    assert AskedKnown().review(login, draft(greeting), FakeMemory(entries=[user_asked])) is None  # not the assistant's


def test_a_greeting_held_for_its_question_keeps_what_it_told_before_it():
    """A `make run` chat (stop 52): "Hello Marguerite! Elodie is coming to stay on the 20th. What
    kind of birthday party would you like to have?" was held for asking again, and the redraft
    said her old plan."""
    from memgpt_local.agent.policy.asked_known import AskedKnown

    earlier = hit(3, "Lovely! What kind of birthday party would you like to have?", kind="message", role="assistant")
    core = [("human", "Name: Marguerite"), ("human", "Granddaughter: Elodie, coming to stay, moved to the 20th")]
    memory = FakeMemory(entries=[earlier], core=core)
    greeting = (
        "Hello Marguerite! Elodie is coming to stay on the 20th. What kind of birthday party would you like to have?"
    )
    login = Turn(question=None, kind="login", event_id=100)
    assert AskedKnown().review(login, draft(greeting), memory) is not None
    assert login.reply_start == "Hello Marguerite! Elodie is coming to stay on the 20th."
    assert login.reply_sentences == 3  # what it told, and one sentence more
    bare = Turn(question=None, kind="login", event_id=100)  # nothing known before the question: a redraft
    assert AskedKnown().review(
        bare, draft("Hello Marguerite! What kind of birthday party would you like to have?"), memory
    )
    assert bare.reply_start == "" and bare.reply_sentences == 0


def test_a_login_mentions_a_note_the_last_greeting_did_not_unless_its_day_is_near():
    """A `make run` chat (stop 53): back after three minutes, the user was greeted with her mum's
    flight in 13 days again, word for word; her partner's new job, told since, went unsaid."""
    from datetime import date

    from memgpt_local.agent.policy.greet_by_name import opener

    notes = [
        "Ginger cat: Mango",
        "Mum: flying in from Chennai (on the 19th, 2026-12-19); never eats turkey",
        "Sam's work: head chef at a restaurant in Clifton, from January (2027-01)",
        "Mum's opinion: a meal without lamb isn't a meal",
    ]
    greeted = ["Hello Priya! I know that your mum is flying in from Chennai on Saturday 19 December."]
    assert opener(notes, date(2026, 12, 6)) == notes[1]
    assert opener(notes, date(2026, 12, 6), greeted) == notes[2]
    assert opener(notes, date(2026, 12, 18), greeted) == notes[1]  # near: said again
    assert opener(notes[1:2], date(2026, 12, 6), greeted) == notes[1]  # nothing else
    # a note that only names someone is mentioned when there is nothing else (a `make run` chat, stop 58)
    named = ["Work: teaches year 4 in Valencia", "Hobbies: padel every Wednesday night with Luis", "Brother: Luis"]
    assert opener(named, date(2026, 12, 6)) == named[1]
    assert opener(named[2:], date(2026, 12, 6)) == named[2]
    # nor one that only says an age (a `make run` chat, stop 61)
    aged = ["Fiona's second baby: in March (2027-03)", "Rory's age: four", "Age: 71"]
    assert opener(aged, date(2026, 12, 7)) == aged[0]


def test_the_login_gives_the_note_to_greet_with_as_said_to_the_user():
    """A `make run` chat (stop 63): told to mention "Sister: Ola, getting married in August
    (2027-08)" (August 2027 is in 8 months: it has not happened yet), a greeting copied both, and
    held for the copy its redraft went out as "Hello Marta! I'm glad to hear about your sister's
    wedding. Sister: Ola, getting Married in August 2027 is in 8 months: it has not happened yet."
    The note is given as said to the user, which reads well copied, and no longer as written."""
    from datetime import date

    from memgpt_local.agent.policy.greet_by_name import mentioned, said_to_them
    from memgpt_local.agent.policy.internal_guard import copied_note

    today = date(2026, 12, 8)
    told = mentioned("Sister: Ola, getting married in August (2027-08)", today)
    assert told == "your sister Ola is getting married in August (2027-08), 8 months from now"
    lines = [
        "Sister: Ola, getting married in August (2027-08)",
        "Hobby: teaches piano in Gdansk",
        "Father: Dad, has hip replaced on the 3rd of february (2027-02-03)",
        "Dog: Finn, border collie",
        "Mum's health: diabetes",
        "Keeps: three beehives",
        "Granddaughter: Saoirse; starts medicine in September (2027-09)",
    ]
    said = [said_to_them(line) for line in lines]
    assert said == [
        "your sister Ola is getting married in August (2027-08)",
        "you teach piano in Gdansk",
        "your father has hip replaced on the 3rd of february (2027-02-03)",
        "your dog Finn, border collie",
        "your mum's health - diabetes",
        "you keep three beehives",
        "your granddaughter Saoirse starts medicine in September (2027-09)",
    ]
    # a doing in a value is said as theirs; a pastime in -ing is "your hobby is ..." (stop 64: "How is your
    # hobby - teaches piano in Gdansk?" greeted Marta); another label's -ing is not ("your trip is flying")
    assert said_to_them("Hobby: swimming in the sea") == "your hobby is swimming in the sea"
    assert said_to_them("Trip: flying to Rome") == "your trip - flying to Rome"
    assert said_to_them("Work: drives a delivery van") == "you drive a delivery van"
    # copied word for word into a greeting, none of them is a note as written
    assert all(copied_note(f"Hello Marta! I know {text}.", lines) is None for text in said)
    # someone's by name, without the colon; a label that is a clause is quoted as it is
    assert said_to_them("Lia's birthday: next Saturday (2026-12-12)") == "Lia's birthday - next Saturday (2026-12-12)"
    assert said_to_them("Fosveel is allergic: penicillin") == '"Fosveel is allergic: penicillin"'


def test_a_greeting_asks_after_the_one_of_theirs_its_note_is_about():
    """Greetings with the note said to the user told it back: "Hello Marta! I'm here for you. Your
    sister Ola is getting married in August 2027 (in 8 months)." (stop 64). Where the login's note
    is about one of the user's people or animals, the greeting begins by asking after them."""
    from memgpt_local.agent.policy.greet_by_name import ASK_NAME, GreetByName

    login = Turn(question=None, kind="login", event_id=10)
    sister = FakeMemory(core=[("human", "Name: Marta"), ("human", "Sister: Ola, getting married in August")])
    GreetByName().start(login, sister)
    assert login.reply_start == "Hello Marta! How is your sister"
    work = Turn(question=None, kind="login", event_id=10)
    GreetByName().start(work, FakeMemory(core=[("human", "Name: Kai"), ("human", "Work: bookshop")]))
    assert work.reply_start == "Hello Kai!"
    new = Turn(question=None, kind="login", event_id=10)
    GreetByName().start(new, FakeMemory())
    assert new.reply_start == ASK_NAME


def test_greetings_of_are_what_each_login_drafted():
    from memgpt_local.agent.policy.greet_by_name import greetings_of

    def message(i, role, content="", said=None):
        args = {"message": said} if said else None
        return Message(
            id=i,
            agent_id=1,
            seq=i,
            role=role,
            content=content,
            function_name="send_message" if said else None,
            function_args=args,
            created_at=datetime(2026, 12, 6, tzinfo=timezone.utc),
            in_context=True,
        )

    messages = [
        message(1, "system", "[login | 2026-12-06 10:00 UTC]\nThe user logged in."),
        message(2, "assistant", said="Hello Priya! Your mum flies in soon."),
        message(3, "assistant", said="Hello Priya! How is Mango?"),
        message(4, "user", "Hi!"),
        message(5, "assistant", said="Hi there."),
        message(6, "system", "[login | 2026-12-06 11:00 UTC]\nThe user logged in."),
        message(7, "assistant", said="Hello again!"),
    ]
    assert greetings_of(messages) == ["Hello Priya! Your mum flies in soon. Hello Priya! How is Mango?", "Hello again!"]


def test_a_greeting_is_asked_about_the_dated_note_nearest_to_today():
    from datetime import date

    from memgpt_local.agent.policy.greet_by_name import mentioned, opener

    notes = [
        "Work: night shifts at a bakery",
        "Sister: Kasia, visiting tomorrow (2026-12-03)",
        "Trip: Rome in spring (2027-04-02)",
        "Dog: Pierogi",
    ]
    assert opener(notes, date(2026, 12, 2)) == notes[1]
    assert mentioned(notes[1], date(2026, 12, 2)) == "your sister Kasia is visiting tomorrow (2026-12-03)"
    assert mentioned(notes[1], date(2026, 12, 3)) == "your sister Kasia is visiting tomorrow (2026-12-03), today"
    assert opener(notes, date(2027, 3, 30)) == notes[2]
    assert mentioned(notes[2], date(2027, 3, 30)) == "your trip - Rome in spring (2027-04-02), in 3 days"
    # the visit is past: the newest undated note that says more than a name ("Dog: Pierogi", stop 58)
    assert opener(notes, date(2026, 12, 5)) == notes[0]
    assert opener(notes[1:3], date(2026, 12, 5)) is None and opener([], date(2026, 12, 5)) is None
    # a month ahead is said to be ahead (a `make run` chat, stop 50: "started university ... in September 2027")
    plan = ["Granddaughter: Saoirse; starts medicine in September (2027-09)"]
    assert mentioned(opener(plan, date(2026, 12, 6)) or "", date(2026, 12, 6)) == (
        "your granddaughter Saoirse starts medicine in September (2027-09), 9 months from now"
    )
    assert (
        mentioned("Work: nurse since March (2026-03)", date(2026, 12, 6)) == "your work - nurse since March (2026-03)"
    )


def test_a_reply_that_sends_the_users_message_back_is_a_parrot_and_a_comment_on_it_is_not():
    from memgpt_local.agent.policy.repeat_guard import parrots

    wedding = "Good news, my sister Ola set the wedding date: June 14th. Also, I can't eat peanuts."
    assert parrots("Good news, my sister Ola set the wedding date: June 14th!", wedding)
    moved = "Actually I moved to Bath last month."
    assert parrots("I moved to Bath last month. It's a nice place to live.", moved)
    comment = "I'm glad to hear that you moved to Bath last month. What's your favorite thing about Bath?"
    assert not parrots(comment, moved)
    assert not parrots("The capital of France is Paris.", "What's the capital of France?")


def test_the_users_summing_up_said_back_is_agreeing_and_their_news_said_back_is_a_parrot():
    """A `make run` chat (stop 62): "That's a lot of planning!" to "my little sister Anjali is
    getting married in June and I'm the maid of honour, so that's a lot of planning on top of
    work" was held as a copy; its redrafts were a refusal, "I don't know what you're asking
    about" and "Thanks for telling me about your plans!"."""
    from memgpt_local.agent.policy.repeat_guard import parrots

    news = (
        "my little sister Anjali is getting married in June and I'm the maid of honour, "
        "so that's a lot of planning on top of work"
    )
    for agreeing in [
        "That's a lot of planning!",
        "Wow, that's a lot of planning on top of work.",
        "That is a lot of planning!",
    ]:
        assert not parrots(agreeing, news), agreeing
    assert parrots("Your little sister Anjali is getting married in June!", news)
    assert parrots("My little sister Anjali is getting married in June.", news)
    # a summing-up of the draft's own that copies what the user did not sum up is still a copy
    assert parrots("It's a long day at work and I'm tired.", "It's a long day at work and I'm tired.")


def test_internal_guard_holds_a_reply_that_speaks_of_functions_or_notices_once():
    from memgpt_local.agent.policy.internal_guard import InternalGuard

    policy = InternalGuard()
    turn = Turn(question="Went to a gig on the weekend, it was amazing!")
    leaked = "Please save the details you will need with archival_memory_insert and then go on."
    hold = policy.review(turn, draft(leaked), FakeMemory())
    assert hold is not None and hold.hide_draft and "archival_memory_insert" in hold.notice
    assert hold.notice.endswith(
        '("Went to a gig on the weekend, it was amazing!"), in your own words, without copying it'
    )
    assert policy.review(turn, draft("The context window is 74% full, sorry."), FakeMemory()) is not None
    # the memory-pressure notice said to the user (bench_honesty seed 49, stop 42)
    pressure = draft("Okay, I'll move some older messages out of view into a summary.")
    assert policy.review(turn, pressure, FakeMemory()) is not None
    assert policy.review(turn, draft("Sounds like a great night! Who played?"), FakeMemory()) is None
    assert policy.review(turn, draft("I can search our past conversations for it."), FakeMemory()) is None
    narrated = "The band was amazing. I answered the user's question in my own words."
    hold = policy.review(turn, draft(narrated), FakeMemory())
    assert hold is not None and 'speaks of "the user\'s"' in hold.notice and '"you"' in hold.notice
    assert policy.review(turn, draft("A useful tip: users of trams pay less."), FakeMemory()) is None
    # an honest "I don't know" goes out as it is: held, it was redrafted as an invented answer
    assert policy.review(turn, draft("I don't know the user's mother's name yet."), FakeMemory()) is None
    # a reply that only announces a lookup: the turn would end with no answer
    for announced in ("I need to search for information about Bath.", "Sure! I'll look it up for you."):
        hold = policy.review(turn, draft(announced), FakeMemory())
        assert hold is not None and "only says you will look something up" in hold.notice
    answered = "Let me check. You moved to Bath last month, so you live in Bath."
    assert policy.review(turn, draft(answered), FakeMemory()) is None
    assert policy.review(turn, draft("I'll make tea and check the oven later."), FakeMemory()) is None
    turn.holds[policy.name] = 1  # once a turn: the second draft goes out
    assert policy.review(turn, draft(leaked), FakeMemory()) is None


def test_unasked_denial_holds_an_i_dont_know_to_a_message_that_asked_nothing_once():
    from memgpt_local.agent.policy.unasked_denial import UnaskedDenial

    policy = UnaskedDenial()
    told = Turn(question="By the way, I'm allergic to penicillin, and my favourite dinner is gnocchi.")
    denial = "I'm sorry, but I don't know your favourite dinner. I'll look it up for you."
    hold = policy.review(told, draft(denial), FakeMemory())
    assert hold is not None and hold.hide_draft and "asked you nothing" in hold.notice
    assert hold.notice.endswith(
        'dinner is gnocchi."), in your own words, without copying it. Start with: Thanks for telling me'
    )
    assert policy.review(told, draft("Gnocchi is a great choice! Do you make it yourself?"), FakeMemory()) is None
    asked = Turn(question="What's my sister called?")  # a question may get an honest "I don't know"
    assert policy.review(asked, draft("I don't know your sister's name yet."), FakeMemory()) is None
    login = Turn(question=None, kind="login")
    assert policy.review(login, draft("I don't know much about you yet. Hello!"), FakeMemory()) is None
    told.holds[policy.name] = 1  # once a turn: the second draft goes out
    assert policy.review(told, draft(denial), FakeMemory()) is None


def test_unasked_denial_holds_an_i_dont_know_to_a_request_for_advice():
    """A `make run` chat (stop 42): "What can I do to make Tui less anxious when there's a
    storm?" -> "I'm sorry, but I don't have any information about Tui's fear of thunder ..."."""
    from memgpt_local.agent.policy.unasked_denial import UnaskedDenial

    policy = UnaskedDenial()
    denial = "I'm sorry, but I don't have any information about Tui's fear of thunder or how to make it less anxious."
    for question in (
        "What can I do to make Tui less anxious when there's a storm?",
        "Any tips for keeping fifteen-year-olds focused in a lab?",
        "Should I take Tui to the vet?",
    ):
        hold = policy.review(Turn(question=question), draft(denial), FakeMemory())
        assert hold is not None and "asked for advice" in hold.notice and "sorry" in hold.banned_words, question
    asked = Turn(question="What's my dog's name?")
    assert policy.review(asked, draft("I don't know your dog's name."), FakeMemory()) is None


def test_greeting_grounded_holds_a_greeting_that_names_what_nothing_says_once():
    """A `make run` chat (stop 42) greeted "Rowing team: coach on weekends" as "... coach the
    school's rowing team on Saturdays." at two logins."""
    from memgpt_local.agent.policy.greeting_grounded import GreetingGrounded, unseen_names
    from memgpt_local.schemas import ChatMessage

    shown = [ChatMessage(role="system", content="Name: Wiremu\nRowing team: coach on weekends\nToday: 2026-12-05")]
    greeting = "Hello Wiremu! I know you coach the school's rowing team on Saturdays."
    assert unseen_names(greeting, shown[0].content) == ["Saturdays"]
    assert unseen_names("Hello Wiremu! How was rowing on the 5th? Still 14 on the team?", shown[0].content) == ["14"]
    assert unseen_names("Hello Wiremu! How was rowing this weekend?", shown[0].content) == []
    # a number said with its ordinal's letters in memory (a `make run` chat, stop 63: the redraft said "1st year")
    kai = "Name: Kai\nCourse: 2nd year history student"
    assert unseen_names("Hello Kai! How is your 2nd year of history going?", kai) == []
    assert unseen_names("Hello Kai! How is your 3rd year going?", kai) == ["3"]
    policy, login = GreetingGrounded(), Turn(question=None, kind="login")
    hold = policy.review(login, Draft(greeting, shown, StepPlan()), FakeMemory())
    assert hold is not None and "Saturdays" in hold.notice and {"Saturdays", "saturdays"} <= set(hold.banned_words)
    assert policy.review(Turn(question="Hi"), Draft(greeting, shown, StepPlan()), FakeMemory()) is None  # logins only
    assert policy.review(login, Draft(greeting, shown, StepPlan(last=True)), FakeMemory()) is None
    login.holds[policy.name] = 1
    assert policy.review(login, Draft(greeting, shown, StepPlan()), FakeMemory()) is None
    # what the assistant said before is no ground (a `make run` chat, stop 43)
    invented = ChatMessage(role="assistant", content='{"message": "The bakery is called The Baker\'s Delight."}')
    bakery = "Hello Wiremu! How is The Baker's Delight?"
    hold = policy.review(Turn(question=None, kind="login"), Draft(bakery, [*shown, invented], StepPlan()), FakeMemory())
    assert hold is not None and "Delight" in hold.notice


def test_greeting_grounded_holds_a_day_core_memory_no_longer_holds():
    """A `make run` chat (stop 52): "Hello Marguerite! Elodie is coming to stay over Christmas." under
    "Granddaughter: Elodie, coming to stay, moved to the 20th"; the old plan was in the conversation."""
    from memgpt_local.agent.policy.greeting_grounded import GreetingGrounded
    from memgpt_local.schemas import ChatMessage

    said = ChatMessage(role="user", content="Elodie is coming to stay over Christmas, she's seven.")
    core = [
        ("human", "Name: Marguerite"),
        ("human", "Granddaughter: Elodie, coming to stay, moved to the 20th (2026-12-20)"),
    ]
    shown = ChatMessage(role="system", content="\n".join(line for _, line in core) + "\nToday: Sunday 6 December")
    when = datetime(2026, 12, 6, 9, 0, tzinfo=timezone.utc)
    old = "Hello Marguerite! Elodie is coming to stay over Christmas."
    hold = GreetingGrounded().review(
        Turn(question=None, kind="login", started_at=when), Draft(old, [shown, said], StepPlan()), FakeMemory(core=core)
    )
    assert hold is not None and "Christmas" in hold.notice and "Christmas" in hold.banned_words
    for fine in ["Hello Marguerite! Elodie arrives on Sunday the 20th.", "Hello Marguerite! Happy Sunday!"]:
        turn = Turn(question=None, kind="login", started_at=when)
        assert GreetingGrounded().review(turn, Draft(fine, [shown, said], StepPlan()), FakeMemory(core=core)) is None, (
            fine
        )


def test_greeting_grounded_holds_a_day_said_of_something_its_note_does_not_say_once():
    """A `make run` chat (stop 61): under "Mum: flying over from Kumasi for graduation in July
    (2027-07)", the greeting said "I know you're going to be starting your PhD in Edinburgh in July
    2027." - the mother's month, of the user's PhD."""
    from memgpt_local.agent.policy.greeting_grounded import GreetingGrounded
    from memgpt_local.schemas import ChatMessage

    core = [
        ("human", "Name: Kofi"),
        ("human", "Work: PhD in chemistry at Edinburgh"),
        ("human", "Thesis: due end of march (2027-03)"),
        ("human", "Mum: flying over from Kumasi for graduation in July (2027-07)"),
    ]
    shown = [ChatMessage(role="system", content="\n".join(line for _, line in core) + "\nToday: Monday 7 December")]
    when = datetime(2026, 12, 7, 17, 0, tzinfo=timezone.utc)
    wrong = "Hello Kofi! I'm here for you. I know you're going to be starting your PhD in Edinburgh in July 2027."
    turn = Turn(question=None, kind="login", started_at=when)
    hold = GreetingGrounded().review(turn, Draft(wrong, shown, StepPlan()), FakeMemory(core=core))
    assert (
        hold is not None
        and hold.hide_draft
        and "'Mum: flying over from Kumasi for graduation in July 2027'" in hold.notice
    )
    turn.holds["greeting_grounded"] = 1
    assert GreetingGrounded().review(turn, Draft(wrong, shown, StepPlan()), FakeMemory(core=core)) is None  # once
    for fine in (
        "Hello Kofi! Your mum is flying over in July!",
        "Hello Kofi! Is your graduation still in July 2027?",
        "Hello Kofi! How is the thesis going? It's due in March.",
        "Hello Kofi! Happy Monday!",  # no note's day
    ):
        turn = Turn(question=None, kind="login", started_at=when)
        assert GreetingGrounded().review(turn, Draft(fine, shown, StepPlan()), FakeMemory(core=core)) is None, fine


@pytest.mark.parametrize(
    "reply, promise",
    [  # a `make run` chat (stop 41) and bench_honesty denials (stop 40): "later" never comes
        ("Sure, I'll think about it and get back to you.", "Sure, I'll think about it and get back to you."),
        ("I don't know what car you own. I'll need to search for it later.", "I'll need to search for it later."),
        ("I don't know, but I can look it up for you.", "I don't know, but I can look it up for you."),
        ("I will search for it later.", "I will search for it later."),
        ("Let me check my memory and get back to you!", "Let me check my memory and get back to you!"),
        ("I'll remember that!", None),  # its doing now: a note is saved in the turn
        ("I searched and found nothing about a car.", None),
        ("Let me know if you need anything.", None),
        ("I can think of three tips: be brief, be kind, end with a toast.", None),
        ("Good luck with the speech! Keep it short and warm.", None),
        # stop 42: said instead of the tips for a dog scared of thunder
        ("Let's talk about them in the next conversation.", "Let's talk about them in the next conversation."),
        ("We can discuss it more next time!", "We can discuss it more next time!"),
        ("We talked about this earlier, and I'm glad it helped.", None),
        ("See you later!", None),
    ],
)
def test_later_promise_finds_a_reply_that_promises_to_do_it_later(reply, promise):
    from memgpt_local.agent.policy.later_promise import promises_later

    assert promises_later(reply) == promise


def test_later_promise_holds_a_promise_once_a_turn_and_never_at_login():
    from memgpt_local.agent.policy.later_promise import LaterPromise

    policy = LaterPromise()
    asked = Turn(question="Any tips for the best man speech? Keep it short.")
    hold = policy.review(asked, draft("Sure, I'll think about it and get back to you."), FakeMemory())
    assert hold is not None and hold.hide_draft and "cannot come back to it" in hold.notice
    assert hold.notice.endswith(
        'the user\'s message ("Any tips for the best man speech? Keep it short."), in your own words, '
        "without copying it"
    )
    assert policy.review(asked, draft("Keep it short: one story, one thank-you, a toast."), FakeMemory()) is None
    assert policy.review(asked, draft("I'll get back to you.", last=True), FakeMemory()) is None  # no step left
    login = Turn(question=None, kind="login")
    assert policy.review(login, draft("Hi! I'll check how the speech went later."), FakeMemory()) is None
    forced = Turn(question="How old is my brother?", reply_start="I don't know")  # a redraft begins so again
    assert policy.review(forced, draft("I don't know, but I can look it up."), FakeMemory()) is None
    asked.holds[policy.name] = 1  # once a turn: the second draft goes out
    assert policy.review(asked, draft("Sure, I'll think about it and get back to you."), FakeMemory()) is None


def test_a_held_promise_to_search_bans_its_words_from_the_turns_later_drafts():
    """A `make run` chat (stop 61): "... I'll search for it for you." was held, and the three
    redrafts said it again, the last one going out as the whole reply."""
    from memgpt_local.agent.policy.later_promise import LaterPromise, promised_words

    turn = Turn(question="And what's my grandson called again?")
    hold = LaterPromise().review(turn, draft("I don't know his name. I'll search for it for you."), FakeMemory())
    assert hold is not None and hold.banned_words == ("search",)
    held = step(0)
    held.hold = hold
    turn.add(held)
    assert "search" in turn.banned_words()  # every later draft of the turn
    assert promised_words("I'll look it up and check later.") == ("look", "check", "later")
    assert promised_words("Sure, I'll think about it and get back to you.") == ()


TIPS_THOUGHT = (
    "I can suggest some tips for keeping fifteen-year-olds focused in a lab. First, make sure they understand "
    "the experiment and the purpose of it. Next, provide them with clear instructions and safety guidelines."
)


@pytest.mark.parametrize(
    "message, thought, pointer",
    [  # a `make run` chat (stop 42): the tips were the thought, the message pointed at them
        ("I hope these tips are helpful! Let me know if you have any other questions.", TIPS_THOUGHT, "these tips"),
        ("Hope this helps!", TIPS_THOUGHT, "Hope this helps"),
        ("Those are my suggestions, good luck with the class.", TIPS_THOUGHT, "my suggestions"),
        ("Try the following steps and tell me how it goes.", TIPS_THOUGHT, "the following steps"),
        # the tips are in the message too
        (
            "Here are these tips: make sure they understand the purpose of the experiment, give clear instructions "
            "and safety guidelines, and let them ask questions.",
            TIPS_THOUGHT,
            None,
        ),
        ("I hope these tips are helpful!", "The user thanked me for the tips.", None),  # the thought holds no answer
        ("Good luck with the lab tomorrow!", TIPS_THOUGHT, None),  # points at nothing
    ],
)
def test_thought_answer_finds_a_reply_that_points_at_its_thought(message, thought, pointer):
    from memgpt_local.agent.policy.thought_answer import pointed_at

    assert pointed_at(message, thought) == pointer


def test_thought_answer_leaves_a_thought_that_only_says_the_users_message_again():
    from memgpt_local.agent.policy.thought_answer import pointed_at

    question = (
        "I tried three strategies with my fifteen-year-olds in the lab: seating charts, timers, and a "
        "reward chart for tidy benches, and clear safety briefings at the start."
    )
    thought = "Wiremu tried three strategies: seating charts, timers, reward chart for tidy benches, safety briefings."
    assert pointed_at("Those strategies sound great!", thought, question) is None


def test_thought_answer_holds_once_a_turn_and_leaves_the_redraft_no_thought():
    from memgpt_local.agent.policy.thought_answer import ThoughtAnswer

    policy = ThoughtAnswer()
    asked = Turn(question="Any tips for keeping fifteen-year-olds focused in a lab?")
    pointing = Draft("I hope these tips are helpful!", [], StepPlan(), TIPS_THOUGHT)
    hold = policy.review(asked, pointing, FakeMemory())
    assert hold is not None and not hold.hide_draft and "never your thoughts" in hold.notice
    assert {"these", "hope"} <= set(hold.banned_words)  # the redraft may not point again
    last = Draft(pointing.message, [], StepPlan(last=True), TIPS_THOUGHT)
    assert policy.review(asked, last, FakeMemory()) is None  # no step left to write them out
    assert policy.review(Turn(question=None, kind="login"), pointing, FakeMemory()) is None
    assert policy.plan(asked, StepPlan()).thought_max_chars is None
    held = step(0, message=pointing.message)
    held.hold = hold
    asked.steps.append(held)
    assert policy.plan(asked, StepPlan()).thought_max_chars == 0  # the redraft can only write it in the message
    asked.holds[policy.name] = 1
    assert policy.review(asked, pointing, FakeMemory()) is None


def test_thought_answer_holds_what_is_known_of_the_user_told_only_in_the_thought():
    """A `make run` chat (stop 60): "Tell me everything you remember about me." was thought out in
    full and sent as "Sure, I remember that. What else would you like to hear about me?"."""
    from memgpt_local.agent.policy.thought_answer import ThoughtAnswer

    memory = FakeMemory(core=[("human", "Name: Ingrid"), ("human", "Work: maths teacher"), ("human", "Dog: Bamse")])
    thought = "I remember the user's name is Ingrid, they are a maths teacher, and they have a dog named Bamse."
    asked = Turn(question="Tell me everything you remember about me.")
    empty = Draft("Sure, I remember that. What else would you like to hear about me?", [], StepPlan(), thought)
    hold = ThoughtAnswer().review(asked, empty, memory)
    assert hold is not None and "Name: Ingrid; Work: maths teacher; Dog: Bamse" in hold.notice
    told = Draft("You're Ingrid, a maths teacher, and Bamse is your dog.", [], StepPlan(), thought)
    assert ThoughtAnswer().review(Turn(question=asked.question), told, memory) is None
    other = Turn(question="How was your day?")
    assert ThoughtAnswer().review(other, empty, memory) is None


def test_core_at_question_meets_a_request_for_what_is_known_of_the_user():
    from memgpt_local.agent.policy.core_at_question import CoreAtQuestion

    memory = FakeMemory(core=[("human", "Name: Ingrid"), ("human", "Dog: Bamse")])
    (notice,) = CoreAtQuestion().start(Turn(question="Tell me everything you remember about me."), memory)
    assert "[human] Name: Ingrid\n[human] Dog: Bamse" in notice.content
    assert CoreAtQuestion().start(Turn(question="Tell me a joke about dogs."), memory) == []


def test_core_at_question_shows_the_line_that_says_the_questions_own_words_first():
    """A `make run` chat (stop 63): "who's minding the dog while I'm in?" was shown the dog's line
    (by its label's topic) above the daughter's that says "mind", and answered "Your pet Finn is
    minding the dog while you're in." twice."""
    from memgpt_local.agent.policy.core_at_question import CoreAtQuestion

    pet = "Pet: Finn, a border collie, 9 years old and still thinks he's a pup"
    daughter = "Daughter: Aoife, coming down from Dublin to mind Finn while I'm in hospital"
    memory = FakeMemory(core=[("human", "Name: Tomás"), ("human", pet), ("human", daughter)])
    (notice,) = CoreAtQuestion().start(Turn(question="who's minding the dog while I'm in?"), memory)
    assert f"[human] {daughter}\n[human] {pet}" in notice.content
    (notice,) = CoreAtQuestion().start(Turn(question="what breed is my dog?"), memory)
    shown = [line for line in notice.content.splitlines() if line.startswith("[human]")]
    assert shown[0] == f"[human] {pet}"  # the block's order where none says more


@pytest.mark.parametrize(
    "message, asks",
    [
        ("What a long day. Completely worn out.", False),  # eval chat seed 6: an old denial went out
        ("How lovely, the sun is out.", False),
        ("What an evening!", False),
        ("Who knew baking could be this hard!", False),
        ("How do I fix a dripping tap.", True),  # a request without its "?"
        ("How long have I been learning chess", True),
        ("What's my sister called", True),
        ("Remind me what we said about Bath.", True),
        ("Is it too late to learn a new language?", True),
    ],
)
def test_an_exclamation_asks_nothing(message, asks):
    from memgpt_local.text import asks_something

    assert asks_something(message) is asks


def test_identity_guard_holds_a_reply_that_takes_the_users_name_once():
    from memgpt_local.agent.policy.identity_guard import IdentityGuard

    policy = IdentityGuard()
    turn = Turn(question="Hello there, Gellhaton here. Nurse by trade, based in Serkquoanton.")
    hold = policy.review(turn, draft("Hello! My name is Gellhaton. What is your name?"), FakeMemory())
    assert hold is not None and hold.hide_draft and hold.notice.endswith("starting with: Hi Gellhaton!")
    assert policy.review(turn, draft("Hi Gellhaton! Nursing must keep you busy."), FakeMemory()) is None
    assert policy.review(turn, draft("I'm glad you wrote, Gellhaton."), FakeMemory()) is None
    known = FakeMemory(core=[("human", "Name: Lena Maier")])
    assert policy.review(Turn(question="What should I cook?"), draft("I'm Lena, your assistant."), known) is not None
    assert policy.review(Turn(question="I'm Ada."), draft("I'm sorry to hear that."), FakeMemory()) is None
    turn.holds[policy.name] = 1  # once a turn: the second draft goes out
    assert policy.review(turn, draft("My name is Gellhaton."), FakeMemory()) is None


@pytest.mark.parametrize(
    "reply",
    [
        "I'm sorry, but I can't assist with that.",
        "I’m sorry, but I can’t assist with that. What else would you like me to do?",
        "Sorry, I cannot help you with that request.",
        "I'm unable to help with this.",
        "I can't help.",
    ],
)
def test_refusal_guard_holds_a_refusal_once_and_out_of_the_context(reply):
    from memgpt_local.agent.policy.refusal_guard import RefusalGuard

    policy = RefusalGuard()
    told = Turn(question="What a long day. Completely worn out.")
    hold = policy.review(told, draft(reply), FakeMemory())
    assert hold is not None and hold.hide_draft and "told you something" in hold.notice
    asked = policy.review(Turn(question="What's my job?"), draft(reply), FakeMemory())
    assert asked is not None and "say you don't know" in asked.notice
    told.holds[policy.name] = 1  # once a turn: the second draft goes out
    assert policy.review(told, draft(reply), FakeMemory()) is None


@pytest.mark.parametrize(
    "reply",
    [
        "I can't help but smile at that!",  # idioms, and denials, are no refusals
        "I can't help thinking you deserve a rest.",
        "I don't know your blood type yet.",
        "That sounds exhausting. Can I help with anything?",
    ],
)
def test_refusal_guard_lets_other_replies_go(reply):
    from memgpt_local.agent.policy.refusal_guard import RefusalGuard

    assert RefusalGuard().review(Turn(question="Long day."), draft(reply), FakeMemory()) is None


def test_core_found_makes_the_next_step_reply_once_a_search_shows_the_line_asked_about():
    """Eval chat seed 14: "What's my brother's name?" searched "brother" twice, each time reading
    "[human] Brother: Pestia" first."""
    from memgpt_local.agent.policy.core_found import CoreFound

    policy = CoreFound()
    memory = FakeMemory(core=[("human", "Name: Ana"), ("human", "Brother: Pestia (this weekend)")])
    turn = Turn(question="What's my brother's name?")
    shown = "Core memory lines that match:\n[human] Brother: Pestia (this weekend)\nshowing 1-1 of 1"
    turn.add(search_step(0, [hit(1, shown)], query="brother"))
    policy.after_step(turn, turn.steps[-1], memory)
    assert turn.reply_reason == "the search showed the core memory line asked about"
    other = Turn(question="What's my brother's name?")  # results without the line: search on
    other.add(search_step(0, [hit(1, "the user said: my brother is visiting")], query="brother"))
    policy.after_step(other, other.steps[-1], memory)
    assert other.reply_reason is None
    blood = Turn(question="What's my blood type?")  # the line shown is not the one asked about
    blood.add(search_step(0, [hit(1, shown)], query="blood"))
    policy.after_step(blood, blood.steps[-1], memory)
    assert blood.reply_reason is None


def _nothing_found(question: str, hits, memory=None, query: str = "q") -> Turn:
    from memgpt_local.agent.policy.nothing_found import NothingFound

    turn = Turn(question=question, event_id=100)
    turn.add(search_step(0, hits, query=query))
    NothingFound().after_step(turn, turn.steps[-1], memory or FakeMemory(core=[("human", "Name: Ana")]))
    return turn


def test_nothing_found_makes_the_reply_say_it_does_not_know_after_a_search_without_the_question_words():
    """Eval chat seed 14: "What car do I drive?" searched "car", read two old questions of the
    user's, searched "pet's name" and answered with the pet; "Which university did I study at?"
    read five messages without "university" and answered with the user's old home town."""
    for question, texts in [
        ("What car do I drive?", ["Where do I live these days?", "I have a ferret called Stouwia"]),
        ("Which university did I study at?", ["Librarian by trade, based in Stobathitonton.", "Who was that gig?"]),
        ("By the way, where did I go to university?", ["I moved to Leeds last year."]),
    ]:
        turn = _nothing_found(question, [hit(i, t, kind="message", role="user") for i, t in enumerate(texts, 1)])
        assert turn.reply_reason == "memory holds nothing about the question"
        assert turn.reply_start.startswith("I don't know"), question
    empty = _nothing_found("What's my blood type?", [])
    assert empty.reply_start.startswith("I don't know")


def test_nothing_found_searches_before_the_first_step_and_denies_at_once_when_memory_holds_nothing():
    """bench_honesty seed 33: "Which university did I go to?" (never said) was answered "You went
    to Vendnuobury University in Rainpretreenton." in the first step, without a search."""
    from memgpt_local.agent.policy.nothing_found import NothingFound, subject_query

    said = [
        hit(1, "Last Saturday I saw the Mosquas play live, what a night!", kind="message", role="user"),
        hit(2, "You went to Leeds University, I think.", kind="message", role="assistant"),  # its own guess
    ]
    memory = FakeMemory(entries=said, core=[("human", "Name: Ana"), ("human", "Sister: Rostrio")])
    university = Turn(question="Which university did I go to?", event_id=100)
    (notice,) = NothingFound().start(university, memory)  # the model is told its memory was searched
    assert "your memory was searched for the user's question and holds nothing about it" in notice.content
    assert (university.reply_reason, university.reply_start, university.reply_sentences) == (
        "memory holds nothing about the question",
        "I don't know",
        1,
    )
    # no clause after it, nor the user's "I", nor their name ("I don't know Siosaia's mother's name.")
    assert university.reply_unsaid == (",", "but", "I", "my", "My", "Ana")
    assert NothingFound().plan(university, StepPlan()).thought_max_chars == 0  # the denial's words are its own
    for question in [
        "What was the band I went to see play live?",  # a message of the user's holds "play live"
        "What did I tell you my sister is called?",  # a core line
        "What's the capital of France?",
    ]:
        turn = Turn(question=question, event_id=100)
        NothingFound().start(turn, memory)
        assert (turn.reply_reason, turn.reply_start) == (None, ""), question
    assert subject_query("Which band did I see live a while ago?", {"band", "live", "gig"}) == "band live gig"


def test_nothing_found_says_it_was_never_told_of_someone_asked_about_by_an_unheard_name():
    """A `make run` chat (stop 63): Ilse never spoke of a dog, and "what breed is Finn?" was
    answered "Finn is a dog breed."."""
    from memgpt_local.agent.policy.nothing_found import NothingFound, someone_unheard

    core = [("human", "Name: Ilse"), ("human", "Brother: Joris, moved to Rotterdam")]
    said = [hit(1, "My neighbour Maja has a new puppy", kind="message", role="user")]
    memory = FakeMemory(entries=said, core=core)
    finn = Turn(question="what breed is Finn?", event_id=100)
    assert NothingFound().start(finn, memory) == []
    assert (finn.reply_reason, finn.reply_start, finn.reply_sentences) == (
        "memory holds nothing about the question",
        "You haven't told me about Finn yet.",
        1,
    )
    for question in [
        "how old is Joris?",  # in core memory
        "What breed is Maja's puppy?",  # said in recall
        "What is Python?",  # a thing, asked nothing people ask of their own
        "what breed is my dog Finn?",  # the user's own: the questions about them
        "What breed is Finn? And how old is he?",  # two questions
    ]:
        assert someone_unheard(Turn(question=question, event_id=100), memory) is None, question
    assert someone_unheard(Turn(question="Where does Tomasz live?", event_id=100), memory) == "Tomasz"


def test_nothing_found_reads_no_subject_in_a_word_that_only_places_a_when():
    """A `make run` chat (stop 64): "what do I do during the week?" was searched for "during",
    found nothing and denied, beside "I coach ... on weekends and drive a delivery van the rest
    of the week"."""
    from memgpt_local.agent.policy.nothing_found import NothingFound, subject_of

    assert subject_of("what do I do during the week?") == set()
    memory = FakeMemory(core=[("human", "Name: Sione")])
    turn = Turn(question="what do I do during the week?", event_id=100)
    NothingFound().start(turn, memory)
    assert turn.reply_start == ""


def test_nothing_found_leaves_a_question_about_the_user_at_all_to_core_memory():
    """A `make run` chat (stop 57): "What do you know about me so far?" under seven core lines
    was searched for "far", and the reply was "I don't know anything about you yet."."""
    from memgpt_local.agent.policy.nothing_found import NothingFound

    core = [("human", "Name: Hamid"), ("human", "Work: drives buses in Sheffield"), ("human", "Wife: Leila")]
    for question in [
        "What do you know about me so far?",
        "What have you learned about me?",
        "Hi again! Do you remember anything about me?",
        "What have I told you about myself?",
    ]:
        turn = Turn(question=question, event_id=100)
        assert NothingFound().start(turn, FakeMemory(core=core)) == [], question
        assert turn.reply_start == "", question
    # a subject asked beside it is still looked for
    car = Turn(question="What do you know about me and my car?", event_id=100)
    NothingFound().start(car, FakeMemory(core=core))
    assert car.reply_start.startswith("I don't know")


def test_nothing_found_reads_no_answer_about_the_user_in_someone_elses_line():
    """A `make run` chat (stop 55): "Where did I go to university?" under "Ravi and Maya's
    university: Leeds" (the twins') was answered as the user's."""
    from memgpt_local.agent.policy.nothing_found import NothingFound

    core = [("human", "Name: Helen"), ("human", "Twins: Ravi and Maya"), ("human", "Ravi and Maya's university: Leeds")]
    mine = Turn(question="Where did I go to university?", event_id=100)
    NothingFound().start(mine, FakeMemory(core=core))
    assert mine.reply_start.startswith("I don't know")
    theirs = Turn(question="Where do Ravi and Maya go to university?", event_id=100)
    NothingFound().start(theirs, FakeMemory(core=core))
    assert theirs.reply_start == ""
    own = Turn(question="Where did I go to university?", event_id=100)
    NothingFound().start(own, FakeMemory(core=[*core, ("human", "University: Durham")]))
    assert own.reply_start == ""
    # nor the line quoted by an earlier search (bench_honesty --others, stop 56)
    found = msg(5, "function", "Core memory lines that match:\n[human] Ravi and Maya's university: Leeds")
    quoted = Turn(question="Where did I go to university?", event_id=100)
    NothingFound().start(quoted, FakeMemory(core=core, context=[found]))
    assert quoted.reply_start.startswith("I don't know")


def test_nothing_found_knows_a_relative_said_in_two_words():
    """A `make run` chat (stop 41) denied "What's my niece called?" under "Sister's baby: Rosa"."""
    from memgpt_local.agent.policy.answer_start import answer_start
    from memgpt_local.agent.policy.nothing_found import NothingFound
    from memgpt_local.text import names_the_relative

    niece = Turn(question="What's my niece called?", event_id=100)
    NothingFound().start(niece, FakeMemory(core=[("human", "Name: Ines"), ("human", "Sister's baby: Rosa")]))
    assert (niece.reply_reason, niece.reply_start) == (None, "")
    unsaid = Turn(question="What's my niece called?", event_id=100)
    NothingFound().start(unsaid, FakeMemory(core=[("human", "Name: Ines"), ("human", "Sister: Marta")]))
    assert unsaid.reply_start.startswith("I don't know")  # a sister, but no child of hers
    said = hit(1, "My brother Tom just had a baby boy, his name is Leo!", kind="message", role="user")
    nephew = Turn(question="What's my nephew's name?", event_id=100)
    NothingFound().start(nephew, FakeMemory(entries=[said], core=[("human", "Name: Ines")]))
    assert nephew.reply_start == ""  # found by the search before the first step
    assert names_the_relative("Mum's sister: Clara", "Is my aunt coming?")
    assert not names_the_relative("Sister: Clara", "Is my aunt coming?")
    # searched, the model still denied it under the line: the line is quoted and begins the answer
    assert answer_start("What's my niece called?", ["[human] Sister's baby: Rosa"]) == "Your sister's baby"


def test_nothing_found_reads_an_operation_in_a_line_that_names_it_otherwise():
    """A `make run` chat (stop 63): "When is my dad's operation?" was met with "your memory ...
    holds nothing about it" beside "Father: Dad, has hip replaced on the 3rd of february", and
    denied."""
    from memgpt_local.agent.policy.nothing_found import detail_left
    from memgpt_local.text import stem

    core = ["[human] Name: Ilse", "[human] Father: Dad, has hip replaced on the 3rd of february (2027-02-03)"]
    for question in ["Good morning! When is my dad's operation?", "when is my dad's surgery again?"]:
        assert detail_left(question, core) == set(), question
    assert detail_left("how old is my dad?", core) == {stem("old")}  # no age there
    assert detail_left("where did my dad go to school?", core) == {stem("school")}


def test_nothing_found_reads_no_work_of_a_person_in_lines_of_their_other_things():
    """A `make run` chat (stop 57): "What does Leila do for work?" under "Wife: Leila", "Leila's dad
    has: the flu", "Leila's manchester trip: off" and a plan of the user's that names her parents
    was answered with the user's own job, "Leila works as a driver in Sheffield."."""
    from memgpt_local.agent.policy.nothing_found import detail_left

    core = [
        "[human] Name: Hamid",
        "[human] Work: drives buses in Sheffield",
        "[human] Wife: Leila",
        "[human] Plan: driving over to Leila's parents in Manchester, next Saturday",
        "[human] Leila's dad has: the flu",
        "[human] Leila's manchester trip: off",
    ]
    for question in ["What does my wife Leila do for work?", "Where does my wife Leila work?"]:
        assert detail_left(question, core) == {"work"}, question
    # a line of hers that may say it
    for line in ["[human] Leila's work: nurse", "[human] Wife: Leila, teaches piano", "[human] Leila's job: GP"]:
        assert detail_left("What does my wife Leila do for work?", [*core, line]) == set(), line
    assert detail_left("When is my wife Leila's trip to Manchester?", core) == set()  # her trip's line
    # five lines match the question: each is read, however many
    from memgpt_local.agent.policy.nothing_found import NothingFound

    memory = FakeMemory(core=[("human", line.removeprefix("[human] ")) for line in core])
    turn = Turn(question="Remind me, what does Leila do for a living?", event_id=100)
    NothingFound().start(turn, memory)
    assert turn.reply_start.startswith("I don't know")


def test_nothing_found_denies_a_detail_of_a_saved_person_that_nothing_says():
    """bench_honesty seed 34: "How old is my brother?" under "Brother: Magoette" was begun "Your
    brother" (answer_start) and answered "Magoette is visiting this weekend."; `make run`: the
    same for "Which school did my brother go to?"."""
    from memgpt_local.agent.policy.nothing_found import NothingFound, detail_left

    visit = hit(1, "My brother Tom is visiting this weekend.", kind="message", role="user")
    returned = msg(5, "function", "[send_message returned OK | 2025-05-05 18:12 UTC] Message sent.")  # no age
    found = msg(
        6, "function", "showing 1-1 of 1, page 1/1.\n1. [2025-05-05] the user said: My brother Tom is visiting."
    )
    memory = FakeMemory(
        entries=[visit], core=[("human", "Name: Ana"), ("human", "Brother: Tom, visiting")], context=[returned, found]
    )
    for question in ["How old is my brother?", "Which school did my brother go to?", "When is my brother's birthday?"]:
        turn = Turn(question=question, event_id=100, reply_start="Your brother", reply_sentences=1)
        NothingFound().start(turn, memory)
        assert (turn.reply_reason, turn.reply_sentences) == ("memory holds nothing about the question", 1), question
        assert turn.reply_start.startswith("I don't know"), question
    said = [visit, hit(2, "My brother went to Hillside school, he turned 34 in May.", kind="message", role="user")]
    told = FakeMemory(entries=said, core=[("human", "Brother: Tom, visiting")])
    for question in ["How old is my brother?", "Which school did my brother go to?"]:  # a message says it
        turn = Turn(question=question, event_id=100, reply_start="Your brother")
        NothingFound().start(turn, told)
        assert (turn.reply_reason, turn.reply_start) == (None, "Your brother"), question
    for question, line in [
        ("How old is my brother?", "Brother: Tom (34)"),  # a number answers how old
        ("What's my brother's job?", "Brother: Tom, a nurse"),  # a kind of thing, said in other words
        ("Where does my sister live?", "Sister: Ana, in Leeds"),
        ("What breed is my dog?", "Pet: Rex, a golden retriever"),
        ("When is my brother visiting?", "Brother: Tom, comes to stay on Saturday"),  # a verb
        ("What did I tell you my brother is called these days?", "Brother: Tom"),
        ("Remind me, what is my cat called?", "Pet: Gollse"),
        ("What do I do for a living?", "Work: baker"),  # no person or animal asked of
        ("Where do I live these days?", "Home: Leeds"),
        # a `make run` chat (stop 48): "moment" is no detail
        ("What's my husband Rui working on at the moment?", "Husband: Rui (working on a film soundtrack)"),
    ]:
        assert detail_left(question, [f"[human] {line}"]) == set(), question
    assert detail_left("How old is my brother?", ["[human] Brother: Tom, visiting next week"]) == {"old"}
    # a first name is no surname (a `make run` chat, stop 55: "Sam's surname is Sam.")
    assert detail_left("What's my partner Sam's surname?", ["[human] Partner: Sam"]) == {"surn"}
    assert detail_left("What's my partner's surname?", ["[human] Partner: Sam Okafor"]) == set()
    assert detail_left("What's my partner's name?", ["[human] Partner: Sam"]) == set()
    # "coming to stay" is a visit too (a `make run` chat, stop 44: "When is Callum coming over?" denied)
    assert detail_left("When is my brother coming over?", ["[human] Brother: Tom, comes to stay on Saturday"]) == set()
    stay = FakeMemory(
        core=[("human", "Brother: Callum, lives in Aberdeen")],
        context=[msg(7, "user", "My brother Callum is coming to stay next weekend, he lives in Aberdeen.")],
    )
    callum = Turn(question="When is Callum coming over?", event_id=100)
    NothingFound().start(callum, stay)
    assert callum.reply_start != "I don't know"
    # a line that says only who one is answers no question of a kind (bench_honesty seeds 52-54:
    # "What breed is Laquaiette?" got "Your pet Laquaiette is a cat."), and the user's own job is not theirs
    assert detail_left("What breed is my pet Laquaiette?", ["[human] Pet: Laquaiette, a cat"]) == {"bree"}
    assert detail_left("What is my brother's job?", ["[human] Brother: Tom", "[human] Work: baker"]) == {"job"}
    # a line that says where one lives and when they come says nothing of their work, nor does the
    # user's own (a `make run` chat, stop 44: "What does Callum do for work?" got a made-up job twice)
    callums = [
        ("human", "Work: nurse at the Royal Infirmary"),
        ("human", "Brother: Callum, lives in Aberdeen (next weekend)"),
    ]
    for said in [[], [msg(7, "user", "I work nights at the Royal Infirmary, it's exhausting.")]]:
        job = Turn(question="What does Callum do for work?", event_id=100)
        NothingFound().start(job, FakeMemory(core=callums, context=said))
        assert job.reply_start.startswith("I don't know"), said
    # "he" of someone else named beside him is not the one asked of (a `make run` chat, stop 45)
    meeras = [("human", "Partner: Sam, nurse at the Royal Infirmary"), ("human", "Sister: Meera, coming to stay")]
    sams = msg(7, "user", "My partner Sam is a nurse, he works nights at the Royal Infirmary.")
    meera = Turn(question="What does Meera do for work?", event_id=100)
    NothingFound().start(meera, FakeMemory(core=meeras, context=[sams]))
    assert meera.reply_start.startswith("I don't know")
    # nor is a held draft quoted in view, nor a notice's line about someone else
    held = msg(8, "function", "[send_message returned OK]\nNot sent: 'Your sister Meera works as a nurse.' ...")
    login = msg(9, "system", "[login]\nThe user logged in.\nWork: teaches chemistry\nSister: Meera")
    again = Turn(question="What does Meera do for a living?", event_id=100)
    NothingFound().start(again, FakeMemory(core=meeras, context=[sams, held, login]))
    assert again.reply_start.startswith("I don't know")
    told_job = msg(7, "user", "Callum works offshore on the rigs.")
    job = Turn(question="What does Callum do for work?", event_id=100)
    NothingFound().start(job, FakeMemory(core=callums, context=[told_job]))
    assert job.reply_start != "I don't know"
    assert detail_left("Where does my sister live?", ["[human] Sister: Ana, visiting on Saturday"]) == {"live"}
    assert detail_left("What does my sister do for work?", ["[human] Sister: Ana, lives in Leeds"]) == {"work"}
    assert detail_left("What does my sister do for work?", ["[human] Sister: Ana, teaches maths (34)"]) == set()
    assert detail_left("Where does my sister live?", ["[human] Sister: Ana, lives in Leeds"]) == set()
    said_of_the_dog = msg(7, "user", "My sister Ola lives in Gdansk and my dog Burek is nine.")  # `make run`
    olas = FakeMemory(core=[("human", "Sister: Ola"), ("human", "Dog: Burek")], context=[said_of_the_dog])
    ola = Turn(question="How old is my sister?", event_id=100)
    NothingFound().start(ola, olas)
    assert ola.reply_start.startswith("I don't know")  # the nine is the dog's
    burek = Turn(question="How old is my dog?", event_id=100)
    NothingFound().start(burek, olas)
    assert burek.reply_start == ""
    dated = FakeMemory(entries=[visit], core=[("human", "Sister: Ana, visiting on 2025-05-10")])  # a day, no age
    sister = Turn(question="How old is my sister?", event_id=100)
    NothingFound().start(sister, dated)
    assert sister.reply_start.startswith("I don't know")


def test_recall_at_question_quotes_what_the_user_said_about_a_question_only_recall_answers():
    """bench_honesty seed 34: "What was the band I went to see play live?" (said, then evicted)
    was answered "The band I went to see play live was 'The Beatles'." without a search."""
    from memgpt_local.agent.policy.recall_at_question import RecallAtQuestion

    said = [
        hit(1, "What band did I see play live?", kind="message", role="user"),  # a question: no answer
        hit(2, "You saw the Beatles play live.", kind="message", role="assistant"),  # its own guess
        hit(3, "Last Saturday I saw the Mosquas play live, what a night!", kind="message", role="user"),
        hit(4, "My sister Rostrio is visiting this weekend.", kind="message", role="user"),
    ]
    memory = FakeMemory(entries=said, core=[("human", "Name: Ana"), ("human", "Sister: Rostrio")])
    band = Turn(question="What was the band I went to see play live?", event_id=100)
    (notice,) = RecallAtQuestion().start(band, memory)
    assert notice.content.count("\n- ") == 1
    assert '- the user, on Friday 1 May: "Last Saturday I saw the Mosquas play live, what a night!"' in notice.content
    visit = Turn(question="When is my sister coming to visit?", event_id=100, reply_start="Your sister")
    (notice,) = RecallAtQuestion().start(visit, memory)  # a detail the core line leaves out
    assert "Rostrio is visiting this weekend" in notice.content
    for question in [
        "Which university did I go to?",  # nothing holds it: nothing_found answers
        "What did I tell you my sister is called?",  # the core line answers
        "What's the capital of France?",
    ]:
        turn = Turn(question=question, event_id=100)
        assert RecallAtQuestion().start(turn, memory) == [], question
    found = msg(5, "function", "1. [2025-05-05] the user said: Last Saturday I saw the Mosquas play live")
    searched = FakeMemory(entries=said, core=[("human", "Name: Ana")], context=[found])  # a result further up
    (notice,) = RecallAtQuestion().start(
        Turn(question="What was the band I went to see play live?", event_id=100), searched
    )
    assert "Mosquas" in notice.content
    from memgpt_local.agent.policy.nothing_found import NothingFound

    calls = []
    counted = FakeMemory(entries=said, core=[("human", "Name: Ana")])
    counted.search = lambda kind, text, k: calls.append(kind) or FakeMemory.search(counted, kind, text, k)
    once = Turn(question="What was the band I went to see play live?", event_id=100)
    assert NothingFound().start(once, counted) == [] and len(RecallAtQuestion().start(once, counted)) == 1
    assert calls == ["message", "passage"]  # the two policies read one search
    denied = Turn(question="What was the band I went to see play live?", event_id=100, reply_start="I don't know")
    assert RecallAtQuestion().start(denied, memory) == []
    # what the user told, asked as such, is read in past conversations when no core line holds all
    # of it: answered "Your work schedule is mostly night shifts" (a `make run` chat, stop 53)
    night = hit(6, "Hey. Rough night, we lost a patient at 4am. I'm okay, just drained.", kind="message", role="user")
    nurse = FakeMemory(entries=[night], core=[("human", "Name: Priya"), ("human", "Work: nurse, night shifts")])
    rough = Turn(question="What did I tell you about that rough night at work?", event_id=100, reply_start="Your work")
    (notice,) = RecallAtQuestion().start(rough, nurse)
    assert "we lost a patient at 4am" in notice.content
    assert rough.reply_start.endswith("you told me")  # not answer_start's "Your work" (stop 53)
    assert RecallAtQuestion().start(Turn(question="What did I tell you about my work?", event_id=100), nurse) == []


def test_recall_at_question_puts_what_happened_before_what_someone_says_or_a_plan():
    """dmr seed 15, reworded (stop 53): asked "Which hotel did we book when we went to Koutua?",
    the reply began with the day of the cousin's recommendation, found first."""
    from memgpt_local.agent.policy.recall_at_question import RecallAtQuestion

    said = [
        hit(1, "Pronkiard, my cousin, says the Drortonzao Hotel is the place to stay in Koutua.", "message", "user"),
        hit(
            2,
            "Home again after five days in Koutua! Our room at the Faquais Hotel looked onto the sea.",
            "message",
            "user",
        ),
    ]
    memory = FakeMemory(entries=said, core=[("human", "Name: Ana")])
    (notice,) = RecallAtQuestion().start(
        Turn(question="Which hotel did we book when we went to Koutua?", event_id=100), memory
    )
    assert notice.content.index("Faquais") < notice.content.index("Drortonzao")
    from memgpt_local.text import asks_the_past

    assert not asks_the_past("Which hotel should I pick in Koutua?") and not asks_the_past("What is my dog called?")


def test_a_reply_from_a_quoted_message_that_answers_begins_with_who_said_it_and_when():
    """bench_honesty seed 54 (stop 44): quoted "My brother Stondgruard is visiting this
    weekend." beside "When is Stondgruard coming over?", the reply was "I don't know when
    Stondgruard is coming over."."""
    from memgpt_local.agent.policy.recall_at_question import RecallAtQuestion, answers_from

    said = [
        hit(1, "Hi! I'm Ana, I work as a baker in Leeds.", kind="message", role="user"),
        hit(2, "Last Saturday I saw the Mosquas play live, what a night!", kind="message", role="user"),
        hit(3, "My brother Stondgruard is visiting this weekend.", kind="message", role="user"),
    ]
    memory = FakeMemory(entries=said, core=[("human", "Name: Ana"), ("human", "Brother: Stondgruard")])
    for question in ("When is Stondgruard coming over?", "When is my brother coming to visit?"):
        turn = Turn(question=question, event_id=100)
        (notice,) = RecallAtQuestion().start(turn, memory)
        assert "Stondgruard is visiting" in notice.content
        assert (turn.reply_start, turn.reply_sentences) == ("On Friday 1 May, you told me", 1), question
        assert "sorry" in turn.reply_unsaid
    band = Turn(question="What was the band I went to see play live?", event_id=100)
    RecallAtQuestion().start(band, memory)
    assert band.reply_start == "On Friday 1 May, you told me"
    # "lives in" in view says nothing of a gig (bench_honesty seed 57: no quote, and "The Beatles")
    lives = FakeMemory(entries=said, core=[("human", "Name: Ana"), ("human", "Brother: Stondgruard, lives in Bath")])
    gig = Turn(question="What was the band I went to see play live?", event_id=100)
    (quoted,) = RecallAtQuestion().start(gig, lives)
    assert "Mosquas" in quoted.content and gig.reply_start == "On Friday 1 May, you told me"
    both = Turn(question="When is Stondgruard coming over? And what band did I see live?", event_id=100)
    RecallAtQuestion().start(both, memory)
    assert both.reply_start == ""  # two questions: the model answers both its own way
    core = Turn(question="When is my brother coming to visit?", event_id=100, reply_start="Your brother")
    RecallAtQuestion().start(core, memory)
    assert core.reply_start == "Your brother"  # a core line's start stays
    # begun as an earlier reply in view began, the reply went on with that reply's words: the other
    # order is forced, and nothing once both were said (with no start, bench_honesty seed 57 denied)
    before = msg(7, "assistant", "thought", function_args={"message": "On Friday 1 May, you told me that your ..."})
    again = Turn(question="What was the band I went to see play live?", event_id=100)
    RecallAtQuestion().start(again, FakeMemory(entries=said, core=memory.core, context=[before]))
    assert again.reply_start == "You told me on Friday 1 May"
    other = msg(8, "assistant", "thought", function_args={"message": "You told me on Friday 1 May that you ..."})
    third = Turn(question="What was the band I went to see play live?", event_id=100)
    RecallAtQuestion().start(third, FakeMemory(entries=said, core=memory.core, context=[before, other]))
    assert third.reply_start == ""
    assert not answers_from(said[0], "What does my brother Stondgruard do for work?")  # not the brother's work
    assert not answers_from(said[2], "How old is my brother Stondgruard?")  # names him, says no age


def test_nothing_found_leaves_the_model_to_answer_when_memory_speaks_of_the_question():
    said = [hit(1, "I drive an old red car to work", kind="message", role="user")]
    assert _nothing_found("What car do I drive?", said).reply_reason is None  # a hit holds "car"
    gig = [hit(1, "Last Saturday I saw the Mosquas play live, what a night!", kind="message", role="user")]
    assert _nothing_found("Which band did I see live a while ago?", gig).reply_reason is None  # "live"
    pet = [hit(1, "I have a ferret called Stouwia", kind="message", role="user")]
    assert _nothing_found("What's my pet's name again?", pet).reply_reason is None  # a ferret is a pet
    invented = [hit(1, "You drive a blue car, a Volvo.", kind="message", role="assistant")]
    assert _nothing_found("What car do I drive?", invented).reply_start.startswith("I don't know")  # its own reply
    core = FakeMemory(core=[("human", "Name: Ana"), ("human", "Car: a green Fiat")])
    assert _nothing_found("What car do I drive?", [], core).reply_reason is None
    home = FakeMemory(core=[("human", "Home: Leeds")])  # asked about by the label's words
    assert _nothing_found("Which town am I living in?", [], home).reply_reason is None
    food = FakeMemory(core=[("human", "Favourite food: gnocchi")])  # "favourite" alone is no subject in view
    assert _nothing_found("What's my favourite football team?", [], food).reply_start.startswith("I don't know")
    hives = FakeMemory(core=[("human", "Home: Leeds, three beehives on the roof")])  # shown for the query
    assert _nothing_found("How many hives do I have?", [], hives, query="beehives").reply_reason is None
    assert _nothing_found("How many hives do I have?", [], hives, query="hives").reply_start.startswith("I don't know")
    in_view = FakeMemory(context=[msg(5, "user", "My car broke down again"), msg(100, "user", "What car do I drive?")])
    assert _nothing_found("What car do I drive?", [], in_view).reply_reason is None
    persona = FakeMemory(core=[("persona", "I answer in my own words."), ("human", "Work: baker")])
    assert _nothing_found("What kind of car do I own?", [], persona).reply_start.startswith("I don't know")  # not "own"
    own_question = FakeMemory(context=[msg(100, "user", "What car do I drive?")])  # the turn's own message
    assert _nothing_found("What car do I drive?", [], own_question).reply_start.startswith("I don't know")
    for question in [
        "What's the capital of France?",  # not about the user
        "What's my name and where do I work?",  # two questions
        "What should I cook tonight?",  # asks for help
        "What's my name?",  # asks about nothing but the name
        "I finally bought a car.",  # asks nothing
        "What did we talk about last week?",  # about the conversation: its messages need not say "talk"
        "What did I do yesterday?",  # nothing but when
        "Hello there, what did I tell you yesterday?",  # nothing but a greeting and when
    ]:
        assert _nothing_found(question, []).reply_reason is None, question
    dated = Turn(question="What did I eat on Tuesday?", event_id=100)
    dated.add(step(0, "conversation_search_date", FunctionOutcome(True, "x", searched=True), start_date="2026-04-28"))
    from memgpt_local.agent.policy.nothing_found import NothingFound

    NothingFound().after_step(dated, dated.steps[-1], FakeMemory())
    assert dated.reply_reason is None  # found by date, not by words
    login = Turn(question="What car do I drive?", kind="login")
    login.add(search_step(0, []))
    NothingFound().after_step(login, login.steps[-1], FakeMemory())
    assert login.reply_reason is None
    started = Turn(question="What car do I drive?", reply_start="Your car")
    started.add(search_step(0, []))
    NothingFound().after_step(started, started.steps[-1], FakeMemory())
    assert (started.reply_reason, started.reply_start) == (None, "Your car")


def test_searched_already_makes_the_next_step_reply_after_the_same_search_again():
    from memgpt_local.agent.policy.searched_already import SearchedAlready

    policy, memory = SearchedAlready(), FakeMemory()
    turn = Turn(question="What's my girlfriend's job again?")
    for index, query in enumerate(["Sanne's job", "Sanne work"]):
        turn.add(search_step(index, [hit(1, "Girlfriend: Sanne, a baker")], query=query))
        policy.after_step(turn, turn.steps[-1], memory)
        assert turn.reply_reason is None  # other words: a new search
    turn.add(search_step(2, [hit(1, "Girlfriend: Sanne, a baker")], query="  sanne's JOB "))
    policy.after_step(turn, turn.steps[-1], memory)
    assert turn.reply_reason == "the same search again"
    other = Turn(question="q")
    other.add(step(0, "core_memory_append", label="human", content="x"))
    other.add(step(1, "core_memory_append", label="human", content="x"))
    policy.after_step(other, other.steps[-1], memory)
    assert other.reply_reason is None  # only searches count here (saved_already has edits)
    # a page after the last (dmr seed 12, reworded, stop 51: "page 2/1" twice, then a loop of holds)
    from memgpt_local.functions.results import FunctionOutcome, format_page, search_outcome
    from memgpt_local.schemas import SearchPage

    page = SearchPage(items=[], total=3, page=1, page_size=5)
    outcome = search_outcome(page, format_page(page, max_chars=2000, next_hint="q"))
    assert outcome.past_end and "No results on this page" in outcome.text
    paged = Turn(question="Who is my boss these days?")
    paged.add(step(0, "conversation_search", outcome, heartbeat=True, query="boss", page=1))
    policy.after_step(paged, paged.steps[-1], memory)
    assert paged.reply_reason == "a page after the last"
    assert not search_outcome(SearchPage(items=[], total=0, page=0, page_size=5), "").past_end  # nothing at all
    assert FunctionOutcome(True, "x").past_end is False


def test_perspective_guard_holds_an_answer_that_speaks_as_the_user_once():
    from memgpt_local.agent.policy.perspective_guard import PerspectiveGuard

    policy, memory = PerspectiveGuard(), FakeMemory()
    turn = Turn(question="What am I allergic to?")
    hold = policy.review(turn, draft("I'm allergic to penicillin."), memory)
    assert hold is not None and hold.hide_draft
    assert hold.notice.endswith(
        'the user\'s message ("What am I allergic to?"), in your own words, without copying it.'
    )
    assert policy.review(turn, draft("You're allergic to penicillin."), memory) is None
    assert policy.review(turn, draft("I'm sorry, but I don't remember your allergy."), memory) is None
    keys = Turn(question="where are my keys?")
    assert policy.review(keys, draft("I found nothing about keys."), memory) is None  # its own doing
    drive = Turn(question="What car do I drive?")
    assert policy.review(drive, draft("I drive a Toyota Camry. It's reliable."), memory) is not None
    band = Turn(question="Which band did I see live a while ago?")
    assert policy.review(band, draft("Yes, I saw Tragreettes live last Saturday."), memory) is not None
    advice = Turn(question="Do you think I should learn to swim?")
    assert policy.review(advice, draft("I think it's a good idea to try."), memory) is None  # no word of hers
    stated = Turn(question="I'm allergic to cats.")  # a statement, not a question about herself
    assert policy.review(stated, draft("I'm sorry to hear you're allergic to cats."), memory) is None
    intro = Turn(question="Hi! I'm Marta. I teach chemistry at a school in Ghent, and I have a cat.")
    retold = policy.review(intro, draft("I teach chemistry at a school in the city of Ghent."), memory)
    assert retold is not None and "spoke about themself" in retold.notice
    assert policy.review(intro, draft("Chemistry in Ghent, lovely! I love cats too."), memory) is None  # one word
    job = Turn(question="What do I do for a living?")  # no word of the question: the saved fact's
    assert policy.review(job, draft("I'm a nurse, which means I work in a hospital."), memory) is None
    saved = FakeMemory(core=[("human", "Name: Ana"), ("human", "Work: nurse"), ("persona", "I am a helper")])
    assert policy.review(job, draft("I'm a nurse, which means I work in a hospital."), saved) is not None
    assert policy.review(job, draft("You're a nurse."), saved) is None
    assert policy.review(job, draft("I'm a helper, and you are a nurse."), saved) is None  # the persona's own
    turn.holds[policy.name] = 1  # once a turn: the second draft goes out
    assert policy.review(turn, draft("I'm allergic to penicillin."), memory) is None


@pytest.mark.parametrize(
    "asked, reply, unsaid",
    [  # a `make run` chat: the user's first-person phrases came back inside the answer
        ("Where did Adam and I grow up?", "Adam and I grew up in Wroclaw.", ("I", "my", "My")),
        ("What happened with my dad's car?", "Adam drove my dad's car into a pond.", ("my", "My")),
        ("Is MY cat okay?", "Sure, my cat is fine.", ("my", "My")),
        ("What happened with my dad's car?", "Adam drove your dad's car into a pond.", None),
        ("Where did Adam and I grow up?", "You and Adam grew up in Wroclaw.", None),
        ("Should you and I plan the trip?", "Yes, you and I can plan it now.", None),  # said to each other
        ("What happened with my dad's car?", "I remember my notes say nothing about a car.", None),  # its own
    ],
)
def test_perspective_guard_holds_an_answer_that_copies_the_users_first_person_phrase(asked, reply, unsaid):
    from memgpt_local.agent.policy.perspective_guard import PerspectiveGuard

    hold = PerspectiveGuard().review(Turn(question=asked), draft(reply), FakeMemory())
    assert (hold.banned_words if hold is not None else None) == unsaid
    if hold is not None:
        assert hold.banned_openers == ("I", "My") and hold.keeps_words


def test_perspective_guard_holds_a_reply_to_news_that_speaks_as_the_user_with_a_saved_fact():
    """A `make run` chat: a maths teacher's news about her day got "I love teaching maths!"; the
    redraft may not open a sentence with "I" or "My"."""
    from memgpt_local.agent.policy.perspective_guard import PerspectiveGuard

    policy = PerspectiveGuard()
    memory = FakeMemory(core=[("human", "Name: Ines"), ("human", "Work: teaches maths in Braga")])
    news = Turn(question="Honestly the best part is when a kid finally gets fractions. Today was exhausting.")
    hold = policy.review(news, draft("I love teaching maths! It's rewarding."), memory)
    assert hold is not None and hold.banned_openers == ("I", "My") and hold.banned_words == ("my", "My")
    for fine in (
        "That sounds rewarding! Do you enjoy teaching maths?",
        "I'm glad the fractions finally clicked.",  # the assistant's own feeling
        "I love that!",  # no word of a saved fact
    ):
        assert policy.review(news, draft(fine), memory) is None, fine
    cake = FakeMemory(core=[("human", "Hobby: baking lemon cake")])
    asked = Turn(question="Any ideas for a lemon cake glaze?")  # asks, and not about the user
    assert policy.review(asked, draft("I love lemon cake! Try a lemon drizzle."), cake) is None


def test_all_questions_holds_a_reply_that_leaves_a_question_out_once():
    from memgpt_local.agent.policy.all_questions import AllQuestions, unanswered

    asked = "Do you remember my dog's name? And who is visiting me?"
    core = ["Name: Tomasz", "Dog: Pierogi", "Sister: Kasia, visiting tomorrow (2026-12-03)"]
    assert unanswered("I remember that your sister Kasia is visiting tomorrow.", asked, core) == [
        "Do you remember my dog's name?"
    ]
    assert unanswered("Pierogi, of course! And Kasia is visiting tomorrow.", asked, core) == []  # via "Dog: Pierogi"
    assert unanswered("Your dog is Pierogi and your sister is coming.", asked, []) == [
        "And who is visiting me?"
    ]  # nothing of the visit, and nothing in memory links "sister" to it
    assert unanswered("Kasia is visiting.", "Who is visiting me?", core) == []  # one question: not judged
    assert unanswered("Sure!", "Can you remember? Will you tell me?", core) == []  # questions that only ask
    one_sentence = "What's my dog called, and where do I work?"
    assert unanswered("Your dog is Pierogi.", one_sentence, core + ["Work: night shifts at a bakery"]) == [
        "where do I work?"
    ]
    assert unanswered("Pierogi, and you work at the bakery.", one_sentence, core) == []
    assert unanswered("Tea!", "Do you like tea and biscuits?", core) == []  # one question, two nouns

    policy, memory = AllQuestions(), FakeMemory(core=[("human", line) for line in core])
    turn = Turn(question=asked)
    hold = policy.review(turn, draft("I remember that your sister Kasia is visiting tomorrow."), memory)
    assert hold is not None and hold.hide_draft and '"Do you remember my dog\'s name?"' in hold.notice
    turn.holds[policy.name] += 1
    assert policy.review(turn, draft("Kasia is visiting tomorrow."), memory) is None  # once a turn
    assert policy.review(Turn(question=asked), draft("Kasia is visiting.", last=True), memory) is None


@pytest.mark.parametrize(
    "said, reply, held",
    [  # eval chat seed 7: the user's sentence came back as the reply, in their first person
        (
            "My sister Quarksian is visiting this weekend.",
            "My sister Quarksian is visiting this weekend. What else?",
            True,
        ),
        (
            "Big news: I've moved from Gragral to Lirkbury!",
            "Big news: I've moved from Gragral to Lirkbury! Nice.",
            True,
        ),
        ("Actually I moved to Bath last month.", "Actually I moved to Bath last month. Anything else?", True),
        ("My sister Quarksian is visiting this weekend.", "I'm glad your sister Quarksian is visiting!", False),
        ("My sister Quarksian is visiting this weekend.", "Lovely, enjoy the weekend with Quarksian!", False),
        # an answer in the user's "my" (a `make run` chat), not the assistant's own "my pleasure"
        ("When does Bea start school, and what's my business?", "My business is running a bakery in Porto.", True),
        ("What's my business?", "My pleasure! You run a bakery in Porto.", False),
        ("My sister Quarksian is visiting this weekend, she loves museums.", "My favourite is the weekend.", False),
    ],
)
def test_perspective_guard_holds_a_reply_that_echoes_the_user_as_its_own(said, reply, held):
    from memgpt_local.agent.policy.perspective_guard import PerspectiveGuard

    hold = PerspectiveGuard().review(Turn(question=said), draft(reply), FakeMemory())
    assert (hold is not None) is held


def test_perspective_guard_holds_a_greeting_that_speaks_as_the_user_once():
    from memgpt_local.agent.policy.perspective_guard import PerspectiveGuard

    policy = PerspectiveGuard()
    memory = FakeMemory(
        core=[
            ("human", "Name: Priya"),
            ("human", "Work: pharmacist in Leicester"),
            ("human", "Speech: giving a speech at Nadia's wedding"),
        ]
    )
    login = Turn(question=None, kind="login")
    hold = policy.review(login, draft("Hello, Priya! I'm a pharmacist in Leicester and I'm giving a speech."), memory)
    assert hold is not None and hold.hide_draft and hold.notice.endswith("Start with: Hello Priya! You")
    assert "I'm a pharmacist in Leicester" in hold.notice
    # the user's doing after the assistant's feeling (a `make run` chat, stop 55)
    glad = "Hello Priya! I'm glad I'm giving a speech at the wedding."
    assert PerspectiveGuard().review(Turn(question=None, kind="login"), draft(glad), memory) is not None
    for fine in (
        "Hello Priya! I'm glad you're giving a speech at Nadia's wedding.",
        "Hello Priya! I'm glad I could help with your speech.",  # the assistant's own doing
        "Hello Priya! How is the speech for Nadia's wedding coming along?",
        "Hello Priya! I hope your speech is going well.",  # the assistant's own wish
        "Hello Priya! I'm glad to see you. How was work at the pharmacy?",
        "Hello Priya! I love weddings.",  # no word of a note
    ):
        assert policy.review(login, draft(fine), memory) is None, fine
    # the name is no fact: "I'm Priya" is the identity guard's
    assert policy.review(login, draft("Hi, I'm Priya's assistant."), memory) is None
    login.holds[policy.name] = 1  # once a turn
    assert policy.review(login, draft("I'm a pharmacist in Leicester."), memory) is None


def test_owner_guard_holds_a_reply_that_gives_the_user_news_just_told_of_someone_else():
    """The reply comes before the notes are saved: "Sam got a job at the university in Bath, so
    we're moving there in April." got "Let's talk about your new job at the university in Bath."
    (a `make run` chat, stop 55)."""
    from memgpt_local.agent.policy.owner_guard import OwnerGuard, told_of_others

    memory = FakeMemory(core=[("human", "Name: Priya"), ("human", "Pet: Biscuit, rescue greyhound")])
    news = "Bigger news though: Sam got a job at the university in Bath, so we're moving there in April."
    hold = OwnerGuard().review(
        Turn(question=news), draft("That's big news! Let's talk about your new job at the university in Bath."), memory
    )
    assert hold is not None and 'The user said this of Sam: "Sam got a job at the university in Bath"' in hold.notice
    for fine in (
        "Are you moving to Bath for the job?",  # asks, names nothing as the user's
        "How do you feel about your move to Bath?",  # the move is the user's
        "Sam's new job at the university sounds great!",  # names him
    ):
        assert OwnerGuard().review(Turn(question=news), draft(fine), memory) is None, fine
    # not a clause that speaks of the user too, nor one about the user's own animal
    lines = ["Pet: Biscuit, rescue greyhound"]
    assert told_of_others("Sam and I went to look at flats. Biscuit is scared of the hoover.", lines, "Priya") == []


def test_owner_guard_holds_a_relatives_news_just_told_said_back_as_the_users_in_other_words():
    """A `make run` chat (stop 62): "my big brother Omar is getting married in May and I'm one of
    the bridesmaids!" got "How do you plan to celebrate your wedding?"."""
    from memgpt_local.agent.policy.owner_guard import OwnerGuard

    memory = FakeMemory(core=[("human", "Name: Nadia"), ("human", "Partner: Sami")])
    news = Turn(question="my big brother Omar is getting married in May and I'm one of the bridesmaids!")
    hold = OwnerGuard().review(news, draft("That's exciting! How do you plan to celebrate your wedding?"), memory)
    assert hold is not None and "Omar" in hold.notice
    for fine in (
        "How do you plan to celebrate Omar's wedding?",  # names him
        "Your brother's wedding sounds lovely!",
        "What will you wear as a bridesmaid?",  # the user's own part
    ):
        assert OwnerGuard().review(news, draft(fine), memory) is None, fine


def test_owner_guard_holds_a_reply_that_calls_the_users_partner_someone_elses():
    """ "Your son Kuba is seven and his partner Ewa is coaching his team." under "Partner: Ewa,
    coaching Kuba's team" (a `make run` chat, stop 56)."""
    from memgpt_local.agent.policy.owner_guard import OwnerGuard

    memory = FakeMemory(
        core=[("human", "Name: Tomasz"), ("human", "Son: Kuba, seven"), ("human", "Partner: Ewa, coaching Kuba's team")]
    )
    asked = Turn(question="Do you remember what my partner is doing with Kuba's team?")
    hold = OwnerGuard().review(asked, draft("Your son Kuba is seven and his partner Ewa is coaching his team."), memory)
    assert hold is not None and "Ewa is the user's partner" in hold.notice
    assert OwnerGuard().review(asked, draft("Kuba's partner Ewa coaches the team."), memory) is not None
    for fine in (
        "Your partner Ewa is coaching Kuba's team.",
        "Ewa is coaching his team this year.",
        "Kuba's mum Ewa is coaching his team.",  # another relation: she is both
    ):
        assert OwnerGuard().review(asked, draft(fine), memory) is None, fine


def test_owner_guard_holds_a_reply_that_gives_the_user_someone_elses_news_once():
    from memgpt_local.agent.policy.owner_guard import OwnerGuard, owned_by_another, owned_notes

    assert owned_by_another("Work: pharmacist in Leicester", "Priya") is None
    assert owned_by_another("Speech: giving a speech", "Priya") is None
    assert owned_by_another("Priya's work: pharmacist", "Priya") is None  # the user's own
    assert owned_by_another("Cat's name: Filpeard", "Priya") is None  # her cat's (eval chat seed 8)
    # a thing of the user's that a note of its own names (eval chat seed 14), unlike a person
    lines = ["Ferret: Stouwia", "Ferret's job: boss of the house", "Sister: Kasia", "Sister's wedding: in June"]
    assert [n.line for n in owned_notes(lines, "Ana")] == ["Sister: Kasia", "Sister's wedding: in June"]
    wedding = owned_by_another("Wedding: Nadia's getting married next Sunday (2026-12-06)", "Priya")
    assert wedding is not None and wedding.owner == "Nadia" and "marr" in wedding.words
    sister = owned_by_another("Sister: Kasia, visiting tomorrow (2026-12-03)", "Tomasz")
    assert sister is not None and sister.owner == "Kasia" and sister.terms == {"kasia", "sister"}
    health = owned_by_another("Layla's health: can't eat gluten", "Ahmed")
    assert health is not None and health.owner == "Layla"
    assert owned_by_another("Best friend: bakes bread", None).owner == "their friend"
    surgery = owned_by_another("Grace's hip surgery: on Monday (2026-12-07)", "Olu")  # as fact notes write it
    assert surgery is not None and surgery.owner == "Grace" and {"surg", "hip"} <= surgery.words
    assert owned_by_another("Visitor: Rui, flying in on Friday", "Ana").owner == "Rui"

    policy = OwnerGuard()
    memory = FakeMemory(
        core=[
            ("human", "Name: Priya"),
            ("human", "Best friend: Nadia"),
            ("human", "Wedding: Nadia's getting married next Sunday (2026-12-06)"),
            ("human", "Speech: giving a speech"),
        ]
    )
    login = Turn(question=None, kind="login")
    hold = policy.review(login, draft("Hello, Priya! I'm glad you're getting married next Sunday."), memory)
    assert hold is not None and hold.hide_draft
    assert "told Priya Nadia's news" in hold.notice and hold.notice.endswith("Start with: Hello Priya! How is Nadia")
    assert "the user" not in hold.notice  # the model copies such words into the rewrite
    wedding_said = policy.review(login, draft("We're looking forward to your wedding next Sunday."), memory)
    assert wedding_said is not None  # the label's word and the day
    for fine in (
        "Hello, Priya! Nadia is getting married next Sunday, how is your speech going?",
        "Hello Priya! Is your best friend's wedding still on for next Sunday?",  # names the relation
        "Hello Priya! How is your speech coming along?",  # the user's own note
        "Nadia's getting married next Sunday.",  # not said to the user
        "Hello Priya! Are you ready for Sunday?",  # only the day of the note
        "Hello Priya! Any plans for the weekend, a wedding perhaps?",  # one word of the note
    ):
        assert policy.review(login, draft(fine), memory) is None, fine
    chat = Turn(question="What's happening next Sunday?")  # in any turn, not only at a login
    assert policy.review(chat, draft("You are getting married next Sunday!"), memory) is not None
    chat.holds[policy.name] = 1  # once a turn
    assert policy.review(chat, draft("You are getting married next Sunday!"), memory) is None


@pytest.mark.parametrize(
    "reply, held",
    [  # eval chat seed 6 (stop 33): the user's name in the third person spread through a session
        ("I'm glad you enjoyed it! Guskleel is a baker based in Vurdrosreanton.", True),
        ("Brallhaette is Guskleel's parrot.", True),
        ("I don't know anything about Guskleel and his work.", True),
        ("Your parrot is called Brallhaette.", False),
        ("Hello Guskleel! How was the gig?", False),
        ("Thanks, Guskleel, that made my day.", False),
        ("Guskleel, how was the gig?", False),
        ("Your name is Guskleel and you bake bread.", False),
        ("I'm Guskleel's assistant, happy to help.", False),
        ("Gusklee is a nice word.", False),  # not the name
    ],
)
def test_perspective_guard_holds_a_reply_that_speaks_of_the_user_by_name(reply, held):
    from memgpt_local.agent.policy.perspective_guard import PerspectiveGuard

    memory = FakeMemory(core=[("human", "Name: Guskleel"), ("human", "Work: baker")])
    hold = PerspectiveGuard().review(
        Turn(question="Saw a brilliant octopus documentary yesterday."), draft(reply), memory
    )
    assert (hold is not None) is held
    if held:
        assert hold.keeps_words and hold.notice.endswith(
            'the user\'s message ("Saw a brilliant octopus documentary yesterday."), in your own words, '
            "without copying it."
        )
    greeting = PerspectiveGuard().review(Turn(question=None, kind="login"), draft(f"Hello Guskleel! {reply}"), memory)
    assert (greeting is not None) is held
    assert PerspectiveGuard().review(Turn(question="hi"), draft(reply), FakeMemory()) is None  # no saved name
    # an answer is not held for it: the rewrite of "Brallhaette is Guskleel's parrot." lost the answer
    answer = draft("Brallhaette is Guskleel's parrot.")
    assert PerspectiveGuard().review(Turn(question="What's my parrot called?"), answer, memory) is None


def test_perspective_guard_knows_the_name_a_first_message_gives_before_it_is_saved():
    """Eval chat seed 17: "Hi! I'm Gaimbraard. I live in Mulaiaton ..." got "I remember
    Gaimbraard lives in Mulaiaton and works as a baker." (the name is saved after the reply)."""
    from memgpt_local.agent.policy.perspective_guard import PerspectiveGuard

    intro = Turn(question="Hi! I'm Guskleel. I live in Vurdrosreanton and I work as a baker.")
    said = draft("I remember Guskleel lives in Vurdrosreanton and works as a baker.")
    hold = PerspectiveGuard().review(intro, said, FakeMemory())
    assert hold is not None and "speaks of the user as 'Guskleel'" in hold.notice
    assert PerspectiveGuard().review(intro, draft("Nice to meet you, Guskleel! Baking is fun."), FakeMemory()) is None


@pytest.mark.parametrize(
    "said, reply, held",
    [  # eval chat seed 7: the user's sister became the assistant's
        ("Quarksian, my sister, comes to stay on Saturday.", "Quarksian is a sister of mine. Lovely!", True),
        ("Quarksian, my sister, comes to stay on Saturday.", "Enjoy the visit with my sister Quarksian!", True),
        ("Quarksian, my sister, comes to stay on Saturday.", "Enjoy your sister's visit!", False),
        ("Quarksian, my sister, comes to stay on Saturday.", "My pleasure to hear it!", False),
        ("I saw a film.", "My sister loves films.", False),  # no relation of the user's: not this check
    ],
)
def test_perspective_guard_holds_a_reply_that_calls_the_users_relation_its_own(said, reply, held):
    from memgpt_local.agent.policy.perspective_guard import PerspectiveGuard

    hold = PerspectiveGuard().review(Turn(question=said), draft(reply), FakeMemory())
    assert (hold is not None) is held


def test_core_at_question_quotes_the_lines_a_question_about_the_user_asks_about():
    from memgpt_local.agent.policy.core_at_question import CoreAtQuestion

    policy = CoreAtQuestion()
    memory = FakeMemory(
        core=[
            ("persona", "I am a warm companion. I answer like a friend."),
            ("human", "Name: Aisha"),
            ("human", "Brother: Omar (on Friday, 2026-12-04)"),
            ("human", "Home: Leeds"),
        ]
    )
    when = datetime(2026, 12, 3, 18, 0, tzinfo=timezone.utc)
    (notice,) = policy.start(Turn(question="Long day. When is Omar coming?", started_at=when), memory)
    assert notice.content.startswith("[core memory | 2026-12-03 18:0")
    assert "\n[human] Brother: Omar (on Friday 4 December)\n" in notice.content and "Leeds" not in notice.content
    (notice,) = policy.start(Turn(question="Which town am I living in now?"), memory)
    assert "[human] Home: Leeds" in notice.content
    assert policy.start(Turn(question="What's my mother's name?"), memory) == []  # "Name: Aisha" is not hers
    assert policy.start(Turn(question="My brother Omar is lovely."), memory) == []  # no question
    assert policy.start(Turn(question="What is the capital of Peru?"), memory) == []  # no line about it
    assert policy.start(Turn(question="What tea do I like?"), memory) == []  # the persona's lines are not the user's
    assert policy.start(Turn(question="Any tips for Leeds in winter? I live there."), memory) == []  # advice
    assert policy.start(Turn(question=None, kind="login"), memory) == []
    # a question about the user at all: every line (a `make run` chat, stop 60, searched "far")
    (notice,) = policy.start(Turn(question="What do you know about me so far?"), memory)
    assert all(f"[human] {line}" in notice.content for line in ("Name: Aisha", "Home: Leeds", "Brother: Omar"))
    assert "warm companion" not in notice.content
    # a question that names nothing asks of what its message tells (a `make run` chat, stop 58)
    trip = FakeMemory(core=[("human", "Name: Tomás"), ("human", "Porto trip: her birthday in January (2027-01)")])
    (notice,) = policy.start(Turn(question="Ha, it's a trip, not a party. When are we going, by the way?"), trip)
    assert "[human] Porto trip: her birthday in January" in notice.content
    assert policy.start(Turn(question="When are we going, by the way?"), trip) == []
    assert policy.start(Turn(question="Long day at work. When are we going?"), trip) == []
    # where the message tells nothing, of what the assistant said last (the same chat)
    greeting = "Hello Tomás! Your Porto trip is coming up in January."
    trip.context = [msg(1, "assistant", "", function_name="send_message", function_args={"message": greeting})]
    (notice,) = policy.start(Turn(question="Yes! When are we going, remind me?"), trip)
    assert "[human] Porto trip: her birthday in January" in notice.content


def test_a_name_is_matched_by_its_word_not_its_first_four_letters():
    """A `make run` chat (stop 52): "maybe biscuits?" was met with "Pet: Biscotte", and the reply
    was "Biscotte is a small dog. ..."."""
    from memgpt_local.text import lines_about

    lines = [("human", "Pet: Biscotte"), ("human", "Work: Teacher at a village school")]
    assert lines_about("hmm, something simple, she's only little. maybe biscuits?", lines) == []
    assert lines_about("how is Biscotte doing?", lines) == ["[human] Pet: Biscotte"]
    assert lines_about("what's Biscotte's breed again?", lines) == ["[human] Pet: Biscotte"]
    # a word of the label, or one with five letters of a capitalised word, is still matched
    assert lines_about("where was I working?", lines) == ["[human] Work: Teacher at a village school"]
    assert lines_about("what was I teaching?", lines) == ["[human] Work: Teacher at a village school"]


def test_a_question_asked_back_in_other_words_is_an_echo():
    asked = "When is Tomek's swimming lesson?"
    assert restates_question("I see. Can you tell me when Tomek's swimming lesson is scheduled?", asked)
    assert not restates_question("Tomek swims on Saturday. Is he excited about the pool?", asked)
    assert not restates_question("Lovely! Does Tomek like water?", asked)  # too few words of its own


def test_an_echo_with_nothing_searched_is_shown_the_core_lines_the_question_asks_about():
    memory = FakeMemory(
        core=[("human", "Son: Tomek, swimming lesson on Saturday (2026-12-05)"), ("human", "Work: nurse")]
    )
    turn = Turn(question="When is Tomek's swimming lesson?")
    hold = EchoGuard(GuardSettings()).review(turn, draft("Can you tell me when Tomek's swimming lesson is?"), memory)
    assert hold is not None and hold.notice.endswith(
        "Your core memory says:\n[human] Son: Tomek, swimming lesson on Saturday (2026-12-05)"
    )


@pytest.mark.parametrize(
    "reply, held",
    [  # eval chat seed 6: the answer came first, then a question back; the redraft said "I do not know"
        ("Never too late to learn a new language! What would you like to know about learning a new language?", False),
        ("I do not know. What would you like to know about learning a new language?", True),
        ("Sure, great. What would you like to know about learning a new language?", True),
        ("What would you like to know about learning a new language?", True),
        # the user's own words around the question, told back, answer nothing
        ("You want a new language. Is it too late to learn a new language?", True),
    ],
)
def test_echo_guard_leaves_an_answer_that_ends_with_a_question_back(reply, held):
    asked = "I want a new language. Is it too late to learn a new language?"
    hold = EchoGuard(GuardSettings()).review(Turn(question=asked), draft(reply), FakeMemory())
    assert (hold is not None) is held


def test_perspective_guard_leaves_the_assistants_own_sympathy_with_the_users_words():
    from memgpt_local.agent.policy.perspective_guard import PerspectiveGuard

    said = "My parrot Brallhaette has been chewing everything again."
    for reply in (  # eval chat seed 6: held, and the redraft asked the parrot "You have been chewing ...?"
        "I'm sorry to hear that Brallhaette is chewing everything again. Can you tell me more?",
        "I hope Brallhaette stops chewing everything again soon.",
    ):
        assert PerspectiveGuard().review(Turn(question=said), draft(reply), FakeMemory()) is None, reply
    echoed = "My parrot Brallhaette has been chewing everything again. Anything else?"
    assert PerspectiveGuard().review(Turn(question=said), draft(echoed), FakeMemory()) is not None


@pytest.mark.parametrize(
    "reply, held",
    [  # eval chat seed 6: the user left out "I", and the reply took the gig as its own
        ("I went to a gig by the Drorbroels on the weekend and they were amazing! What else?", True),
        ("Went to a gig by the Drorbroels on the weekend, they were amazing.", True),
        ("A gig by the Drorbroels sounds amazing! How was the weekend?", False),
        ("I'm glad the Drorbroels gig on the weekend was amazing.", False),
    ],
)
def test_perspective_guard_holds_a_retelling_of_news_told_without_a_subject(reply, held):
    from memgpt_local.agent.policy.perspective_guard import PerspectiveGuard

    said = "Went to a gig by the Drorbroels on the weekend, they were amazing."
    assert (PerspectiveGuard().review(Turn(question=said), draft(reply), FakeMemory()) is not None) is held


@pytest.mark.parametrize(
    "reply, held",
    [  # eval chat seed 12: the user named a place without "I", and the reply took it as its own
        ("I'm an architect based in Binaanton. How can I assist you further?", True),
        ("You're an architect based in Binaanton, lovely!", False),
        ("I'm glad to meet you, Mourpiette.", False),
    ],
)
def test_perspective_guard_holds_a_retelling_of_a_statement_that_names_a_place(reply, held):
    from memgpt_local.agent.policy.perspective_guard import PerspectiveGuard

    said = "Hello there, Mourpiette here. Architect by trade, based in Binaanton."
    assert (PerspectiveGuard().review(Turn(question=said), draft(reply), FakeMemory()) is not None) is held


def test_answer_start_skips_a_line_that_only_says_the_questions_words():
    """Eval chat seed 19: "Fav music: live" (a note for "I saw the Braisvus play live") was taken
    as the answer to "Which band did I see live a while ago?": "Your fav music is live."."""
    from memgpt_local.agent.policy.answer_start import answer_start

    assert answer_start("Which band did I see live a while ago?", ["[human] Fav music: live"]) == ""
    assert (
        answer_start("Which band did I see live?", ["[human] Fav music: live", "[human] Band: Braisvus"]) == "Your band"
    )
    assert answer_start("What music do I like?", ["[human] Fav music: live"]) == "Your fav music"


@pytest.mark.parametrize(
    "question, start",
    [  # fact notes file where the user grew up as "Hometown" (a `make run` chat saved "Home: Wroclaw")
        ("Where did Adam and I grow up?", "Your hometown"),
        ("Where was I born?", "Your hometown"),
        ("Where do I live?", "Your home"),
        ("Which city do I live in?", "Your home"),
    ],
)
def test_answer_start_tells_the_hometown_from_the_home(question, start):
    from memgpt_local.agent.policy.answer_start import answer_start

    assert answer_start(question, ["[human] Hometown: Wroclaw", "[human] Home: Bristol"]) == start


@pytest.mark.parametrize(
    "question, start",
    [  # a `make run` chat (stop 42) answered "What's my partner's job again?" from "Work: ..."
        ("What's my partner's job again?", "Your partner"),
        ("What does my partner do for work?", "Your partner"),
        ("Where does my sister live?", ""),
        ("What is my dog's name?", "Your dog"),
        ("What's my job?", "Your work"),
        ("Where do I live?", "Your home"),
    ],
)
def test_answer_start_answers_about_the_person_the_question_names(question, start):
    from memgpt_local.agent.policy.answer_start import answer_start

    lines = ["[human] Work: teaches chemistry", "[human] Home: Hamilton", "[human] Partner: Aroha, midwife"]
    assert answer_start(question, [*lines, "[human] Dog: Tui, golden retriever"]) == start


def test_answer_start_hears_a_relative_by_any_of_their_names():
    """A `make run` chat (stop 63): "When is my dad's operation?" under "Father: Dad, has hip
    replaced on the 3rd of february (2027-02-03)" was denied: "dad" asked nothing of "Father"."""
    from memgpt_local.agent.policy.answer_start import answer_start

    father = "[human] Father: Dad, has hip replaced on the 3rd of february (2027-02-03)"
    mother = "[human] Mother: Maeve, lives in Cork"
    assert answer_start("When is my dad's operation?", [mother, father]) == "Your father"
    assert answer_start("where does my mum live?", [father, mother]) == "Your mother"
    assert answer_start("where does my gran live?", [father, mother]) == ""  # another relative


def test_answer_start_asked_who_begins_with_the_person_before_the_thing_named():
    """A `make run` chat (stop 63): "who's minding the dog while I'm in?" was begun "Your pet" and
    answered "Your pet Finn is minding the dog while you're in."."""
    from memgpt_local.agent.policy.answer_start import answer_start

    pet = "[human] Pet: Finn, a border collie, 9 years old"
    daughter = "[human] Daughter: Aoife, coming down from Dublin to mind Finn while I'm in hospital"
    assert answer_start("who's minding the dog while I'm in?", [pet, daughter]) == "Your daughter"
    assert answer_start("what breed is my dog?", [pet, daughter]) == "Your pet"  # no "who"
    assert answer_start("who is my dog?", [pet, daughter]) == "Your pet"  # no person's words
    # whose, and a birthday told as an age reached (a `make run` chat, stop 64: denied under the line)
    mum, wife = "[human] Mum: turns 80 on Sunday 13 December", "[human] Wife: Mele, expecting twins in March"
    assert answer_start("whose birthday is it on Sunday?", [wife, mum]) == "Your mum"
    assert answer_start("who is coming on Sunday?", [wife, mum]) == ""  # one word only


def test_answer_start_begins_the_reply_with_the_label_of_the_line_that_answers():
    from memgpt_local.agent.policy.answer_start import AnswerStart

    memory = FakeMemory(
        core=[
            ("human", "Name: Mourpiette"),
            ("human", "Parrot: Brallhaette"),
            ("human", "Parrot's behavior: chewing everything again"),
            ("human", "Favourite meal: gnocchi"),
            ("human", "Grace's hip surgery: on Monday"),
            ("human", "Sister's wedding: in June"),
            ("human", "Plays: violin"),
            ("human", "Home: Shassoettebury"),
            ("human", "Work: pharmacist"),
            ("human", "Fosveel is allergic: penicillin"),
            ("human", "Brother: Tiago, coming to visit on Saturday (2026-12-05)"),
        ]
    )
    policy = AnswerStart()
    for asked, start in (
        ("Remind me, what is my parrot called?", "Your parrot"),  # seed 6: "I don't know the parrot's name."
        ("What's my pet's name again?", "Your parrot"),  # seed 14: "Stouwia's name is Stouwia."
        ("What's my favourite meal again?", "Your favourite meal"),
        ("What's my favourite football team?", ""),  # bench_honesty seed 33: "Your favourite food is pad thai."
        ("When is my sister's wedding?", "Your sister's wedding"),
        ("When is my friend Grace's hip surgery?", ""),  # "Your Grace's ..." is no way to say it
        ("What do I play?", ""),  # the model's own label, a verb: "Your plays" is no way either
        ("Which town am I living in now?", "Your home"),
        ("What do I do for a living?", "Your work"),  # not "Your home": "for a living" is work
        ("Where did I go to university?", ""),  # seed 13: "Your home is Shassoettebury." ("where")
        ("What am I allergic to?", ""),  # seed 13: "Your fosveel is allergic to penicillin."
        ("What's my blood type?", ""),  # core memory says nothing of it
        ("When does Brallhaette moult?", ""),  # not about the user
        ("Any tips for my parrot?", ""),  # advice, not memory
        ("My parrot is loud.", ""),  # no question
        # a `make run` chat denied it under the quoted line: "who" and two words of a person's line
        ("Who is coming to visit this weekend, and what are we doing?", "Your brother"),
        ("Who did I say was coming to visit?", "Your brother"),
        ("Who won the match on Saturday?", ""),  # one word of the line: not asked about him
        ("Who wrote Hamlet?", ""),
    ):
        turn = Turn(question=asked)
        assert policy.start(turn, memory) == [] and turn.reply_start == start, asked
        # begun from the line, it may not deny it: "Your favorite band was ..., and I don't have
        # any information about ..." (eval chat seed 21)
        assert ("information" in turn.banned_words()) == bool(start), asked
        # nor say it is not in memory: "Your allergy to peanuts is not mentioned in my memory" (seed 22)
        assert {"not", "memory"} <= set(turn.banned_words()) or not start, asked
    login = Turn(question=None, kind="login")
    policy.start(login, memory)
    assert login.reply_start == ""


@pytest.mark.parametrize(
    "said, reply",
    [
        ("Work was so busy today, I'm exhausted.", "That's great! I'm glad your work was busy today."),  # seed 25
        ("Work is intense this term, I've got Year 11 mocks coming up.", "That's great! I'm glad you're doing well."),
        ("My grandad passed away on Sunday.", "I'm so glad you told me!"),
        ("Ugh, rough week. Feeling pretty lonely since the move.", "How exciting! Tell me more."),
        # a `make run` chat, stop 49
        ("oh and I'm allergic to shellfish, found that out the hard way in Gdansk", "That's great to hear!"),
        # a `make run` chat, stop 50
        ("Saoirse is teaching me to knit, which is going badly.", "That's a great story about your granddaughter."),
        # a `make run` chat, stop 57
        (
            "Anyway, the Manchester trip is off, Leila's dad has the flu. We're going the weekend after instead.",
            "That's great! I'm glad the Manchester trip is off.",
        ),
        ("Bit tired today, the twins were up half the night coughing.", "That's great!"),
        ("The concert got cancelled.", "How exciting!"),
        # a `make run` chat, stop 58
        ("Tired. I think a stomach bug is going around the school.", "That's a good sign. How will you feel tomorrow?"),
        ("Rough day, two kids threw up in class.", "Sounds fun!"),
        (
            "Great. Pimienta has been limping a bit since yesterday, I'm taking her to the vet on Thursday.",
            "I see. Pimienta has been limping since yesterday, and you're taking her to the vet. That's good news!",
        ),
        # a `make run` chat, stop 61
        (
            "I've got my knee replaced on the 14th of January, so the allotment will have to wait a few weeks.",
            "That's a good news! I'm glad your knee is better.",
        ),
        ("My hip surgery is next Tuesday.", "How exciting!"),
        ("amara finished her night shifts today, she's absolutely wrecked", "That's great to hear!"),
        ("doing a phd in chemistry, final year so everything is a bit chaotic", "That sounds exciting!"),
        # a `make run` chat, stop 63: a death told as "passed"
        (
            "hello there. Tomás here, retired postman from Cork. my wife Bríd passed two years ago so it's just me "
            "and the dog now",
            "That's great to hear! I'm glad you have a dog. What do you like about it?",
        ),
        ("my nan passed in the spring.", "How lovely!"),
    ],
)
def test_tone_guard_holds_a_cheerful_opening_to_something_hard_once(said, reply):
    from memgpt_local.agent.policy.tone_guard import ToneGuard

    policy, turn = ToneGuard(), Turn(question=said)
    hold = policy.review(turn, draft(reply), FakeMemory())
    assert hold is not None and hold.hide_draft and "kind comment" in hold.notice
    assert "listen" not in hold.notice  # "I'm sorry, I didn't hear you say that." (a `make run` chat, stop 57)
    assert turn.reply_start == "I'm sorry to hear"
    turn.holds[policy.name] = 1  # once a turn: the second draft goes out
    assert policy.review(turn, draft(reply), FakeMemory()) is None


@pytest.mark.parametrize(
    "said, reply",
    [
        ("Work was so busy today, I'm exhausted.", "That sounds exhausting. I'm glad you're home now."),
        ("I'm not tired at all, slept ten hours!", "That's great! Ten hours is a lot."),  # said as not so
        ("I got the job!", "That's great news!"),
        ("I'm off to Lisbon on Friday!", "How exciting!"),  # off somewhere
        ("How do I stop feeling anxious before exams?", "That's a great question. Try breathing slowly."),  # asked
        # a cheer after a kind sentence that says more than cheer (stop 58)
        ("My dog is limping, the vet says it's nothing.", "Poor thing. That's good to hear from the vet though."),
        # an operation told as over and well (stop 61)
        ("My operation went really well, I'm home already!", "That's great!"),
        ("Good news, the surgery was a success!", "That's wonderful news!"),
        (
            "My son Callum lives in Aberdeen. He'll come down to look after Bruce while I'm in hospital.",
            "That's great to hear! I'm glad Callum is coming to look after Bruce.",
        ),
    ],
)
def test_tone_guard_lets_kind_or_fitting_replies_go(said, reply):
    from memgpt_local.agent.policy.tone_guard import ToneGuard

    assert ToneGuard().review(Turn(question=said), draft(reply), FakeMemory()) is None


@pytest.mark.parametrize(
    "said, reply, held",
    [
        (  # a `make run` chat (stop 48)
            "Big news though: I left the practice, I start at the university veterinary hospital in Porto on Monday.",
            "I'm sorry to hear that you're leaving the practice. It's a sad news for you and your family.",
            True,
        ),
        ("Guess what, we're engaged!", "Oh no, that must be hard.", True),
        ("I got promoted today!", "That's so sad to hear.", True),
        ("Big news: my dad is sick again.", "I'm sorry to hear that.", False),  # hard news too
        ("I'm not excited about the move at all.", "I'm sorry to hear that.", False),  # said as not so
        ("Guess what, we're engaged!", "Congratulations! That's wonderful.", False),
    ],
)
def test_tone_guard_holds_a_sorry_opening_to_good_news_once(said, reply, held):
    from memgpt_local.agent.policy.tone_guard import ToneGuard

    policy, turn = ToneGuard(), Turn(question=said)
    hold = policy.review(turn, draft(reply), FakeMemory())
    assert (hold is not None) == held
    if held:
        assert hold.hide_draft and "good news" in hold.notice
        turn.holds[policy.name] = 1
        assert policy.review(turn, draft(reply), FakeMemory()) is None


def test_internal_guard_holds_a_reply_that_copies_a_core_line_as_written():
    """Eval chat seed 26 (stop 47): a greeting ended "... Gig: by the Guxpouicks"."""
    from memgpt_local.agent.policy.internal_guard import InternalGuard, copied_note

    memory = FakeMemory(core=[("human", "Name: Kerkstaen"), ("human", "Gig: by the Guxpouicks")])
    copied = "Hello Kerkstaen! I'm here to help you with anything you need. Gig: by the Guxpouicks"
    hold = InternalGuard().review(Turn(question=None), draft(copied), memory)
    assert hold is not None and 'copies your note "Gig: by the Guxpouicks"' in hold.notice
    said = "Hello Kerkstaen! How was the gig by the Guxpouicks?"  # in its own words
    assert InternalGuard().review(Turn(question=None), draft(said), memory) is None
    assert copied_note("Your cat:  Founean is lovely", ["Cat: Founean"]) == "Cat: Founean"
    # a `make run` chat (stop 51): the login notice speaks the day in brackets, and so did the copy
    hiking = "Hiking: planned for next week (week of 2026-12-07)"
    spoken = "Hello Ines! I'm here to help you today. Hiking: planned for next week (week of Monday 7 December)."
    assert copied_note(spoken, ["Name: Ines", hiking]) == hiking
    assert copied_note("Hello Ines! Is the hiking trip still planned for next week?", [hiking]) is None


def test_a_person_asked_about_brings_the_lines_under_their_name():
    """A `make run` chat (stop 49): "what's my daughter into these days?" saw only "Daughter:
    Zosia", not "Zosia's hobby: obsessed with dinosaurs", and the assistant said it knew nothing."""
    from memgpt_local.text import lines_about

    core = [
        ("human", "Name: Tomasz"),
        ("human", "Daughter: Zosia"),
        ("human", "Zosia's age: 7"),
        ("human", "Zosia's hobby: obsessed with dinosaurs"),
        ("human", "Wife: Agnieszka"),
    ]
    assert lines_about("what's my daughter into these days?", core) == [
        "[human] Daughter: Zosia",
        "[human] Zosia's age: 7",
        "[human] Zosia's hobby: obsessed with dinosaurs",
    ]
    assert lines_about("what's my daughter into these days?", core, theirs=False) == ["[human] Daughter: Zosia"]
    assert lines_about("What's my wife's job?", core) == ["[human] Wife: Agnieszka"]  # nothing under her name


def test_nothing_found_reads_the_lines_under_the_name_of_the_one_asked_of():
    """A `make run` chat (stop 49): "what's my daughter into these days?" under "Daughter: Zosia"
    and "Zosia's hobby: obsessed with dinosaurs" was answered "I don't know anything about your
    daughter's hobbies"."""
    from memgpt_local.agent.policy.nothing_found import detail_left

    lines = ["[human] Daughter: Zosia", "[human] Zosia's age: 7", "[human] Zosia's hobby: obsessed with dinosaurs"]
    assert detail_left("what's my daughter into these days?", lines) == set()
    assert detail_left("What's my daughter's hobby?", lines) == set()
    assert detail_left("Which school does my daughter go to?", lines) == {"scho"}  # not said: still asked


def test_the_next_page_of_a_search_is_ranked_as_its_first_page_was():
    """The hits of a search's earlier pages get no skip from its next page: skipped, they moved
    down the ranking, and a dmr episode's page 2 showed three of page 1's hits again."""
    from memgpt_local.agent.turn import Turn
    from memgpt_local.schemas import FunctionCall

    turn = Turn(question="which novel kept me up?", event_id=100, focus="which novel kept me up?")
    turn.add(search_step(0, [hit(1, "a"), hit(2, "b")], query="novel"))
    turn.add(search_step(1, [hit(3, "c")], query="book club"))
    assert turn.shown() == {"passage": [1, 2, 3]}
    more = FunctionCall(thought="t", function="archival_memory_search", arguments={"query": "novel", "page": 1})
    assert turn.shown(more) == {"passage": [3]}
    other = FunctionCall(thought="t", function="conversation_search", arguments={"query": "novel", "page": 1})
    assert turn.shown(other) == {"passage": [1, 2, 3]}
    again = FunctionCall(thought="t", function="archival_memory_search", arguments={"query": "novel"})
    assert turn.shown(again) == {"passage": [1, 2, 3]}  # the same page again is a new look


def test_name_asked_holds_an_answer_that_names_nothing_once():
    """eval dmr, second wording, seed 9 (stop 50): the found message quoted up to the name."""
    from memgpt_local.agent.policy.name_asked import NameAsked
    from memgpt_local.config import GuardSettings

    asked = "Remind me, what is our tortoise from the rescue called?"
    found = "Guess who came home with us from the animal rescue? A little tortoise. She answers to Borlai already."
    turn = searched_turn(asked, [found, "It has been sunny all week."])
    guard = NameAsked(GuardSettings())
    quoted = draft("On Thursday 3 April, you told me that a little tortoise came home with us from the animal rescue.")
    turn.reply_start = "On Thursday 3 April, you told me"  # recall_at_question's opening
    hold = guard.review(turn, quoted, FakeMemory())
    assert hold is not None and hold.hide_draft and "Borlai" in hold.notice and "sunny" not in hold.notice
    # the names said first, and no forced opening (dmr seed 13, reworded: three redrafts named none)
    assert "Answer with the name (the names in it: Borlai)" in hold.notice and turn.reply_start == ""
    turn.holds[hold.reason] += 1  # as the loop counts it
    assert guard.review(turn, quoted, FakeMemory()) is None  # once a turn
    fresh = searched_turn(asked, [found])
    assert NameAsked(GuardSettings()).review(fresh, draft("She's called Borlai."), FakeMemory()) is None
    assert NameAsked(GuardSettings()).review(fresh, draft("I don't know her name."), FakeMemory()) is None
    # nothing found that names one: the reply may say what it can
    empty = searched_turn(asked, ["A little tortoise came home with us."])
    assert NameAsked(GuardSettings()).review(empty, quoted, FakeMemory()) is None
    # no name asked; and core memory's line is shown when it holds the name
    assert NameAsked(GuardSettings()).review(searched_turn("How is she?", [found]), quoted, FakeMemory()) is None
    core = FakeMemory(core=[("human", "Collie: Bran")])
    dog = Turn(question="what's my dog called again?")
    held = NameAsked(GuardSettings()).review(dog, draft("You have a lovely dog."), core)
    assert held is not None and "Collie: Bran" in held.notice
    # "who" that only tells of someone asks no name; a day is no name found (a `make run` chat, stop 53)
    chef = FakeMemory(core=[("human", "Sam's work: head chef at a restaurant in Clifton, from January (2027-01)")])
    gift = Turn(question="Ha, it's Sam's birthday! Any gift ideas for a chef who has every gadget already?")
    assert NameAsked(GuardSettings()).review(gift, draft("A good knife roll, maybe."), chef) is None
    where = Turn(question="Who is Sam's new employer?")
    held = NameAsked(GuardSettings()).review(where, draft("Sam is a head chef."), chef)
    assert held is not None and "(the names in it: Clifton)" in held.notice


def test_name_asked_holds_an_answer_that_names_someone_other_than_the_core_line_files():
    """A `make run` chat (stop 51): "what's my wife's name by the way, testing you" under "Wife:
    Adaeze" got "Your wife's name is Chioma." (Adaeze's sister, the last search hit's name)."""
    from memgpt_local.agent.policy.name_asked import NameAsked
    from memgpt_local.config import GuardSettings

    core = FakeMemory(core=[("human", "Name: Femi"), ("human", "Wife: Adaeze"), ("human", "Work: teacher in Leeds")])
    asked = "good idea, she'd like a curry. what's my wife's name by the way, testing you"
    hold = NameAsked(GuardSettings()).review(Turn(question=asked), draft("Your wife's name is Chioma."), core)
    assert hold is not None and "Wife: Adaeze" in hold.notice and "Leeds" not in hold.notice
    right = NameAsked(GuardSettings()).review(Turn(question=asked), draft("Your wife is Adaeze, from Leeds."), core)
    assert right is None
    # who someone is, asked by name: the line names the one asked about
    who = Turn(question="Who is Adaeze?")
    assert NameAsked(GuardSettings()).review(who, draft("Adaeze is your wife, Chioma's sister."), core) is None


def test_perspective_guard_holds_a_reply_that_speaks_to_someone_the_user_spoke_of():
    """A `make run` chat (stop 50): "Pepper, you knocked a mug off the counter this morning." to
    the cat's owner, and "Abena, you could get her ..." to the son asking about his mum's gift."""
    from memgpt_local.agent.policy.perspective_guard import PerspectiveGuard, speaks_to

    said = "Cheers. Pepper knocked a mug off the counter this morning, total menace."
    assert speaks_to("Pepper, you knocked a mug off the counter this morning.", said, "Kofi") == "Pepper"
    assert speaks_to("Abena, you could get her a garden pot.", "What could I get my mum Abena?", "Kofi") == "Abena"
    assert speaks_to("Kofi, that cat is a menace!", said, "Kofi") is None  # the user, by their name
    assert speaks_to("Hi Kofi! Lovely.", "Hiya, Kofi here.", None) is None  # a name given in the message
    assert speaks_to("Pepper sounds like a menace!", said, "Kofi") is None  # spoken of, not to
    assert speaks_to("Oh, Leeds is lovely.", "I live in Leeds.", "Kofi") is None
    assert speaks_to("York, lovely!", "We moved to York last week!", "Dana") is None  # a place exclaimed
    memory = FakeMemory(core=[("human", "Name: Kofi")])
    turn = Turn(question=said)
    hold = PerspectiveGuard().review(turn, draft("Pepper, you knocked a mug off the counter."), memory)
    assert hold is not None and hold.hide_draft and "speaks to Pepper" in hold.notice
    assert hold.banned_openers == ("Pepper",)  # no later draft of the turn opens with the name


def test_nothing_found_reads_a_short_word_in_its_other_forms():
    """A `make run` chat (stop 51): "when are we flying out again?" under "Trip: moved to fly on the
    20th (2026-12-20)" was answered "I don't know when we're flying out again." ("flying" was "flyi")."""
    from memgpt_local.agent.policy.nothing_found import NothingFound
    from memgpt_local.text import stem

    assert [stem(w) for w in ("flying", "running", "dogs", "keeps", "spring", "news")] == [
        "fly",
        "run",
        "dog",
        "keep",
        "spri",
        "news",
    ]
    core = [("human", "Name: Ines"), ("human", "Trip: moved to fly on the 20th (2026-12-20)")]
    flying = Turn(question="hi! slept like a rock. when are we flying out again?", event_id=100)
    NothingFound().start(flying, FakeMemory(core=core))
    assert (flying.reply_reason, flying.reply_start) == (None, "")
    boat = Turn(question="when are we sailing out again?", event_id=100)
    NothingFound().start(boat, FakeMemory(core=core))
    assert boat.reply_start.startswith("I don't know")


def test_ideas_given_holds_a_reply_to_a_request_for_ideas_that_gives_none():
    """A `make run` chat (stop 51): "any ideas for a small present for Rui? he's into vinyl records
    and cooking" got "Sure, I can help you with that. What kind of present do you have in mind? ..."."""
    from memgpt_local.agent.policy.ideas_given import IdeasGiven, gives_ideas

    asked = "good. any ideas for a small present for Rui? he's into vinyl records and cooking"
    none = (
        "Sure, I can help you with that. What kind of present do you have in mind? Maybe something "
        "that's related to vinyl records or cooking? Let me know if you need anything specific."
    )
    turn = Turn(question=asked)
    hold = IdeasGiven().review(turn, draft(none), FakeMemory())
    assert hold is not None and "Suggest two or three" in hold.notice and hold.hide_draft
    assert turn.reply_start == "Here are a few ideas:"  # the redraft starts with them
    assert not gives_ideas("That sounds lovely! I'm sure he'll appreciate it.", asked)
    # a `make run` chat (stop 59): a wish and the closing offer give no tips
    knee = "Any tips for keeping my knee strong before the surgery?"
    wish = "I hope you have a good rest and get better soon. If you have any other questions, feel free to ask."
    assert not gives_ideas(wish, knee)
    chess = "any ideas for a chess thing i could do with her this sunday"
    echo = "Sure! You could try playing chess with her. It's a fun way to spend time together and learn new things."
    assert not gives_ideas(echo, chess)
    assert gives_ideas("Set up a puzzle hunt: mate-in-two puzzles hidden round the flat.", chess)
    assert gives_ideas("Gentle cycling and straight-leg raises build the muscles round the knee.", knee)
    # a `make run` chat (stop 51): asked back, with a statement of its own that suggests nothing
    cheese = "any ideas what I could bring my mum from France? she loves cheese but it has to survive a 12 hour flight"
    back = "Hi Mateus! I'm glad you're in Lyon. What's your favorite cheese? I'm always looking for new recipes."
    assert not gives_ideas(back, cheese)
    assert gives_ideas("You could bring her a hard cheese like Comté, vacuum-packed, it travels well.", cheese)
    for ideas in [
        "How about a record cleaning kit, or a Portuguese cookbook?",
        "A vinyl of his favourite band would be lovely, or a good chef's knife.",
    ]:
        assert gives_ideas(ideas, asked), ideas
        assert IdeasGiven().review(Turn(question=asked), draft(ideas), FakeMemory()) is None
    turn.holds["ideas_given"] = 1  # once a turn
    assert IdeasGiven().review(turn, draft(none), FakeMemory()) is None
    # not asked for ideas: a question about memory, or a statement
    assert IdeasGiven().review(Turn(question="What's my partner called?"), draft("Sure!"), FakeMemory()) is None
    assert IdeasGiven().review(Turn(question="Rui loves cooking."), draft("That's nice!"), FakeMemory()) is None


def test_ideas_given_holds_a_denial_of_ideas_but_not_an_honest_i_dont_know():
    """A `make run` chat (stop 52): asked for ideas for baking with a granddaughter, the reply
    was "I'm sorry, I don't have any specific ideas ..." and a question back; it went out."""
    from memgpt_local.agent.policy.ideas_given import IdeasGiven

    asked = "Our granddaughter Elodie is coming over Christmas. I want to bake something with her, any ideas?"
    for refusal in [
        "I'm sorry, I don't have any specific ideas for baking with Elodie. What kind of cake would you like?",
        "Sorry, I don't have any suggestions for that.",
    ]:
        hold = IdeasGiven().review(Turn(question=asked), draft(refusal), FakeMemory())
        assert hold is not None and "Suggest two or three" in hold.notice, refusal
    # a need for ideas said without "?" (stop 52: "I'm glad to hear that!" went out)
    need = "yes! I can't wait. I still need ideas for something to bake with her though, she's only little."
    for unhelpful in ["I'm glad to hear that!", "Thanks for telling me about Elodie."]:
        hold = IdeasGiven().review(Turn(question=need), draft(unhelpful), FakeMemory())
        assert hold is not None and "Suggest two or three" in hold.notice, unhelpful
    story = "We were out of ideas, so we went home."
    assert IdeasGiven().review(Turn(question=story), draft("Sounds like a long day!"), FakeMemory()) is None
    packed = "can you remind me what I should pack for our trip?"
    honest = "I don't know what you should pack; you haven't told me about the trip yet."
    assert IdeasGiven().review(Turn(question=packed), draft(honest), FakeMemory()) is None


def test_perspective_guard_bans_we_in_the_redraft_of_a_reply_that_said_the_users_we():
    """A `make run` chat (stop 51): "... our trip to the Azores next week? we're going hiking" got
    "... We're going hiking, so you should pack ...", and the redraft said it again."""
    from memgpt_local.agent.policy.perspective_guard import PerspectiveGuard

    said = "can you remind me what I should pack for our trip to the Azores next week? we're going hiking"
    reply = "Sure! We're going hiking to the Azores next week."
    hold = PerspectiveGuard().review(Turn(question=said), draft(reply), FakeMemory())
    assert hold is not None and hold.banned_openers == ("I", "My", "We", "Our")
    mine = PerspectiveGuard().review(
        Turn(question="What am I allergic to?"), draft("I'm allergic to nuts."), FakeMemory()
    )
    assert mine is not None and mine.banned_openers == ("I", "My")


@pytest.mark.parametrize(
    "asked, helping",
    [
        ("can you remind me what I should pack for our trip to the Azores next week?", True),  # stop 51
        ("Where could we go for a walk on Sunday?", True),
        ("Any ideas for a small present for Rui?", True),
        ("What did I say I should pack?", False),  # what was said: memory
        ("What do you think I should plant in spring once I'm back on my feet?", True),  # stop 61
        ("Do you reckon we could take the dog?", True),
        ("What would you do about the leaking shed?", True),
        ("What did I think of the film?", False),
        ("right. is there any food i should avoid?", True),  # stop 61
        ("Is there anything I should pack for Lagos?", True),
        ("What's my wife's name?", False),
        ("When do we leave for Lagos?", False),
    ],
)
def test_asks_for_help_reads_requests_for_ideas_in_either_word_order(asked, helping):
    from memgpt_local.text import asks_for_help

    assert asks_for_help(asked) is helping


def test_grounded_reply_reads_a_long_name_misspelt_as_the_name_seen():
    """Eval dmr, second wording, seed 12 (stop 51): "The boss of Proprock Library is Dallkleick
    Zurasgraton." was held beside "Proproick Library", and the redraft said "I do not know."."""
    from memgpt_local.agent.policy.grounded_reply import misspelt, unseen

    seen = "I report to Dallkleick Zurasgraton now, she took over our team at Proproick Library this week."
    assert unseen("The boss of Proprock Library is Dallkleick Zurasgraton.", seen) == []
    assert unseen("The boss of Proproick Library is Kledreick Narma.", seen) == ["Kledreick", "Narma"]
    assert not misspelt("Londbulvien", {"wudruspouel"}) and not misspelt("Tom", {"tim"})


def test_a_hold_quotes_the_users_message_inside_its_notice_never_last():
    """dmr seed 16 (stop 53): the later_promise notice ended "Write your reply to the user's
    message: Hey Mumgrouel, help me out here. Who is my boss at Bisu Library these days?", and
    the redraft was that message, word for word (7 of 15 redrafts after such notices copied it)."""
    from memgpt_local.agent.policy.later_promise import LaterPromise

    question = "Hey Mumgrouel, help me out here. Who is my boss at Bisu Library these days?"
    hold = LaterPromise().review(
        Turn(question=question), draft("I don't know. I'll search for you later."), FakeMemory()
    )
    assert hold is not None and f'("{question}")' in hold.notice
    assert not hold.notice.rstrip(". ").endswith(question.rstrip("?"))


def test_nothing_found_takes_a_diet_named_for_the_diet_asked():
    """A `make run` chat (stop 53, as Tomasz): "What did I tell you about my wife's diet?" under
    "Wife: Ola, vegan", the message saying so in view, was answered "I don't know anything about
    your wife's diet.": no line says "diet". A line that names no diet leaves it unknown."""
    from memgpt_local.agent.policy.nothing_found import NothingFound

    said = msg(3, "user", "My wife Ola is vegan and my mum says that's nonsense.")
    for question in ["What did I tell you about my wife's diet?", "What's my wife's diet?", "Does my wife eat meat?"]:
        turn = Turn(question=question, event_id=100)
        NothingFound().start(turn, FakeMemory(core=[("human", "Wife: Ola, vegan")], context=[said]))
        assert turn.reply_start != "I don't know", question
    for question in ["What's my wife's diet?", "What's my wife's religion?"]:
        turn = Turn(question=question, event_id=100)
        NothingFound().start(turn, FakeMemory(core=[("human", "Wife: Ola, drives a tram")]))
        assert turn.reply_start.startswith("I don't know"), question


def test_internal_guard_holds_a_reply_that_only_says_it_took_note():
    """A `make run` chat (stop 54): told "My wife Michiko passed away two years ago this winter.
    The house gets very quiet some evenings.", the model replied "I've added that information to
    your memory. I'll remember it for later."; a login's greeting is another matter."""
    from memgpt_local.agent.policy.greet_by_name import opener
    from memgpt_local.agent.policy.internal_guard import InternalGuard, only_reports_saving

    told = Turn(question="My wife Michiko passed away two years ago this winter. The house gets very quiet.")
    reply = "I've added that information to your memory. I'll remember it for later."
    hold = InternalGuard().review(told, draft(reply), FakeMemory())
    assert hold is not None and hold.hide_draft and "only says you took note" in hold.notice
    assert InternalGuard().review(told, draft("I'm so sorry about Michiko. I'll remember her."), FakeMemory()) is None
    for message in ["I remember you said that. Leo sounds lovely!", "I added sugar to the recipe. Try it!"]:
        assert not only_reports_saving(message), message
    assert only_reports_saving("Got it! I saved that.") and only_reports_saving("I'll keep that in mind.")
    # nor is a death the note a login greets with
    notes = ["Daughter: Yuki, GP in Manchester", "Wife: Michiko, passed away two years ago this winter"]
    assert opener(notes, date(2026, 12, 6)) == notes[0]


def test_tone_guard_hears_a_loss_that_memory_holds():
    """A `make run` chat (stop 54): "Ha, yes, he's an old boy now. Some evenings I still set out
    two teacups out of habit, for Michiko." under "Wife: Michiko, passed away two years ago this
    winter" got "That's great! I'm glad Biscuit is still doing well."."""
    from memgpt_local.agent.policy.tone_guard import ToneGuard

    memory = FakeMemory(core=[("human", "Wife: Michiko, passed away two years ago this winter")])
    told = Turn(question="Ha, yes, he's an old boy now. Some evenings I still set out two teacups, for Michiko.")
    hold = ToneGuard().review(told, draft("That's great! I'm glad Biscuit is still doing well."), memory)
    assert hold is not None and "Wife: Michiko, passed away" in hold.notice
    assert ToneGuard().review(told, draft("That's so tender. Do you still drink her tea?"), memory) is None
    alive = FakeMemory(core=[("human", "Wife: Michiko, teaches piano")])
    assert ToneGuard().review(told, draft("That's great! Two cups it is."), alive) is None
    missed = Turn(question="We lost our cat Miso last spring, I still miss her.")
    assert ToneGuard().review(missed, draft("That's great! Cats are lovely."), FakeMemory()) is not None


def test_perspective_guard_lets_thanks_for_what_was_told_go():
    """A `make run` chat (stop 54): unasked_denial asked for "Thanks for telling me", and the
    redraft "Thanks for telling me that Leo's visit got moved to Sunday and Yuki has a shift on
    Saturday. I hope you have a great weekend!" was held as the user's words said as its own."""
    from memgpt_local.agent.policy.perspective_guard import PerspectiveGuard

    told = Turn(question="Leo's visit got moved to Sunday, Yuki has a shift on Saturday after all.")
    thanks = "Thanks for telling me that Leo's visit got moved to Sunday and Yuki has a shift on Saturday. Enjoy it!"
    assert PerspectiveGuard().review(told, draft(thanks), FakeMemory()) is None
    mine = Turn(question="I moved to Leeds last week and I love my new flat.")
    assert PerspectiveGuard().review(mine, draft("I moved to Leeds last week and I love my new flat."), FakeMemory())


def test_repeat_guard_keeps_the_reply_before_a_copy_of_the_users_message():
    """A `make run` chat (stop 54): "I'm sorry to hear that. I hope you can make time for Leo on
    Sunday. Yuki has a shift on Saturday after all." was held, and three redrafts later "It's good
    to know that you have a shift on Saturday after all." went out. The redraft is the reply
    before the copy."""
    said = "Leo's visit got moved to Sunday, Yuki has a shift on Saturday after all."
    turn = Turn(question=said)
    reply = (
        "I'm sorry to hear that. I hope you can make time for Leo on Sunday. Yuki has a shift on Saturday after all."
    )
    hold = RepeatGuard().review(turn, draft(reply), FakeMemory())
    assert hold is not None and hold.reason == "repeat_guard"
    assert (turn.reply_start, turn.reply_sentences) == (
        "I'm sorry to hear that. I hope you can make time for Leo on Sunday.",
        2,
    )
    whole = Turn(question=said)
    assert RepeatGuard().review(whole, draft("Yuki has a shift on Saturday after all. Sad!"), FakeMemory()) is not None
    assert whole.reply_start == ""  # nothing of its own before the copy


def test_a_number_word_of_the_teens_answers_how_old():
    """A `make run` chat (stop 54): "How old is Biscuit again?" under "Pet: Biscuit (beagle)" and
    "Pet's age: thirteen" was answered "I don't know how old Biscuit is.": "thirteen" was no number."""
    from memgpt_local.agent.policy.nothing_found import NothingFound, says_a_number

    assert all(says_a_number(w) for w in ["thirteen", "fifteen", "nineteen"])
    memory = FakeMemory(core=[("human", "Pet: Biscuit (beagle)"), ("human", "Pet's age: thirteen")])
    turn = Turn(question="How old is Biscuit again?", event_id=100)
    NothingFound().start(turn, memory)
    assert turn.reply_start != "I don't know"


def test_refusal_guard_holds_a_refusal_to_go_on_talking():
    """Eval chat seed 35 (stop 54): to "Work was so busy today, I'm exhausted." the reply was
    "I'm sorry, but I can't continue the conversation right here."."""
    from memgpt_local.agent.policy.refusal_guard import RefusalGuard, refuses

    assert refuses("I'm sorry, but I can't continue the conversation right here.")
    assert refuses("I'm sorry, I can't continue the conversation right now.")
    assert not refuses("Let's continue the conversation tomorrow, then!")
    told = Turn(question="Work was so busy today, I'm exhausted.")
    assert RefusalGuard().review(
        told, draft("I'm sorry, but I can't continue the conversation right here."), FakeMemory()
    )


def test_refusal_guard_tells_the_model_to_say_goodbye_to_a_user_who_is_leaving():
    """A `make run` chat (stop 63): "anyway gotta go, my flatmate Rhys is making pasta" got "I'm
    sorry I can't help with that."; told to reply to what was said, the model wrote "I'm sorry to
    hear about your flatmate."."""
    from memgpt_local.agent.policy.refusal_guard import RefusalGuard

    leaving = Turn(question="anyway gotta go, my flatmate Rhys is making pasta")
    hold = RefusalGuard().review(leaving, draft("I'm sorry I can't help with that. I'll see you later."), FakeMemory())
    assert hold is not None and "the user is leaving now. Say goodbye" in hold.notice
    told = Turn(question="my flatmate Rhys is making pasta")
    hold = RefusalGuard().review(told, draft("I'm sorry I can't help with that."), FakeMemory())
    assert hold is not None and "they told you something" in hold.notice


def test_names_with_accents_are_names():
    """A `make run` chat (stop 58): "Hello Tomás!" under "Name: Tomás" was held back as a greeting
    that says "Tom", a name nothing held: the name patterns read only A-Z. A name in any Latin,
    Greek or Cyrillic letters is a name to every check."""
    from memgpt_local.agent.fact_owners import said_relations
    from memgpt_local.agent.policy.greeting_grounded import unseen_names
    from memgpt_local.text import introduced_name

    assert unseen_names("Hello Tomás! How is Pimienta?", "Name: Tomás\nDog: Pimienta") == []
    assert unseen_names("Hello Tomás! How is Łukasz?", "Name: Tomás\nDog: Pimienta") == ["Łukasz"]
    assert introduced_name("Hi, I'm Tomás. I teach year 4.") == "Tomás"
    assert introduced_name("Søren here") == "Søren"
    assert said_relations(["Son: Inés"], "my daughter Inés turns seven next Tuesday") == ["Daughter: Inés"]
    assert said_relations(["Son: Ines"], "my daughter Ines turns seven next Tuesday") == ["Daughter: Ines"]


def test_owner_guard_reads_he_and_she_as_whom_the_last_reply_spoke_of():
    """A `make run` chat (stop 58): "I don't know where Luis lives." then "He lives in Alicante."
    was answered "That's great! How do you like living in Alicante?"."""
    from memgpt_local.agent.policy.owner_guard import OwnerGuard

    asked = [
        msg(1, "user", "Where does Luis live?"),
        msg(
            2,
            "assistant",
            "",
            function_name="send_message",
            function_args={"message": "I don't know where Luis lives."},
        ),
    ]
    memory = FakeMemory(core=[("human", "Name: Tomás"), ("human", "Brother: Luis")], context=asked)
    told = Turn(question="He lives in Alicante. Oh, and we moved Porto to February.", event_id=3)
    hold = OwnerGuard().review(told, draft("That's great! How do you like living in Alicante?"), memory)
    assert hold is not None and 'The user said this of Luis: "Luis lives in Alicante."' in hold.notice
    for fine in ("How does Luis like living in Alicante?", "Alicante is lovely. Do you visit him often?"):
        assert OwnerGuard().review(told, draft(fine), memory) is None, fine
    # nobody spoken of before: "he" stays unread
    alone = FakeMemory(core=[("human", "Name: Tomás")])
    assert OwnerGuard().review(told, draft("How do you like living in Alicante?"), alone) is None


def test_owner_guard_holds_someone_elses_home_said_as_where_the_user_is():
    """A `make run` chat (stop 58): under "Luis's home: Alicante" a login greeted "Hello Tomás! I'm
    glad to hear that you're in Alicante."."""
    from memgpt_local.agent.policy.owner_guard import OwnerGuard

    memory = FakeMemory(core=[("human", "Name: Tomás"), ("human", "Brother: Luis"), ("human", "Luis's home: Alicante")])
    login = Turn(question=None, kind="login")
    hold = OwnerGuard().review(login, draft("Hello Tomás! I'm glad to hear that you're in Alicante."), memory)
    assert hold is not None and "Start with: Hello Tomás! How is Luis" in hold.notice
    for fine in ("Hello Tomás! How is Luis doing in Alicante?", "Hello Tomás! Are you visiting Alicante soon?"):
        assert OwnerGuard().review(login, draft(fine), memory) is None, fine
    # asked, not told: someone else's "works crazy shifts" (a `make run` greeting, stop 60)
    lena = FakeMemory(
        core=[("human", "Name: Tobias"), ("human", "Girlfriend: Lena, paediatric nurse, works crazy shifts")]
    )
    asked = draft("Hello Tobias! I'm glad you're doing well. What are you working on right now?")
    assert OwnerGuard().review(login, asked, lena) is None
    told = draft("Hello Tobias! I know you work crazy shifts as a paediatric nurse.")
    assert OwnerGuard().review(Turn(question=None, kind="login"), told, lena) is not None
    # a question that names someone else's place gives it to the user; "Our daughter Carla" is of Carla
    # (a `make run` chat, stop 60)
    beatriz = FakeMemory(core=[("human", "Name: Beatriz"), ("human", "Home: Lisbon"), ("human", "Husband: Jorge")])
    carla = "Our daughter Carla lives in London, and she has two little ones, Tiago who is five and Inês who is two."
    london = draft("That's great to hear! How do you like living in London? Do you have any plans for the future?")
    hold = OwnerGuard().review(Turn(question=carla), london, beatriz)
    assert hold is not None and "Carla lives in London" in hold.notice
    fine = draft("How lovely! How often do you get to visit Carla and the little ones in London?")
    assert OwnerGuard().review(Turn(question=carla), fine, beatriz) is None
    # the word the user said her by names her (a `make run` chat, stop 61)
    fine = draft("How lovely! I'm glad your daughter lives in London, near the little ones.")
    assert OwnerGuard().review(Turn(question=carla), fine, beatriz) is None
    isla = "My granddaughter Isla is starting university in Dundee next September, she wants to study marine biology."
    hamish = FakeMemory(core=[("human", "Name: Hamish")])
    glad = draft("That's interesting! I'm glad your granddaughter is starting university.")
    assert OwnerGuard().review(Turn(question=isla), glad, hamish) is None
    assert (
        OwnerGuard().review(Turn(question=isla), draft("Good luck with your university in Dundee!"), hamish) is not None
    )


def test_perspective_guard_holds_an_answer_about_the_user_at_all_that_speaks_of_them_by_name():
    """A `make run` chat (stop 60): "What do you know about me so far?" got "I know that Ingrid
    teaches maths at a secondary school in Bergen, that she has a sister named Marte ..."."""
    from memgpt_local.agent.policy.perspective_guard import PerspectiveGuard

    memory = FakeMemory(core=[("human", "Name: Ingrid"), ("human", "Work: teaches maths in Bergen")])
    third = "I know that Ingrid teaches maths in Bergen, and that she has a sister named Marte."
    turn = Turn(question="What do you know about me so far?")
    hold = PerspectiveGuard().review(turn, draft(third), memory)
    assert hold is not None and "as if they were someone else" in hold.notice
    assert turn.reply_start == "You're Ingrid"  # the redraft went "You know that Ingrid is ..." (stop 60)
    said_to = "You teach maths in Bergen, Ingrid, and you have a sister named Marte."
    assert PerspectiveGuard().review(Turn(question="What do you know about me so far?"), draft(said_to), memory) is None
    # another question is answered as it may: "Ingrid's job" is no claim held here
    named = "Ingrid teaches maths in Bergen."
    assert PerspectiveGuard().review(Turn(question="Where does Ingrid work?"), draft(named), memory) is None


def test_tone_guard_holds_news_of_worse_said_back_as_better_once():
    """A `make run` chat (stop 60): "Bamse had to go to the vet yesterday, his hips are getting
    worse." got "That's a sad story! I'm glad Bamse is getting better."."""
    from memgpt_local.agent.policy.tone_guard import ToneGuard

    news = "Bamse had to go to the vet yesterday, his hips are getting worse. The vet gave him painkillers."
    turn = Turn(question=news)
    hold = ToneGuard().review(turn, draft("That's a sad story! I'm glad Bamse is getting better."), FakeMemory())
    assert hold is not None and "'worse'" in hold.notice and "'getting better'" in hold.notice
    turn.holds["tone_guard"] += 1  # as the loop counts it: once a turn
    assert ToneGuard().review(turn, draft("I'm glad Bamse is getting better."), FakeMemory()) is None
    for kind in ("Poor Bamse. I hope he feels better soon.", "Are the painkillers helping him improve?"):
        assert ToneGuard().review(Turn(question=news), draft(kind), FakeMemory()) is None, kind
    mended = "Mum was worse last week but she is improving now."
    assert ToneGuard().review(Turn(question=mended), draft("Glad she is improving!"), FakeMemory()) is None


def test_tone_guard_holds_a_greeting_that_says_an_ailment_is_mending_once():
    """A `make run` login (stop 60) under "Bamse's health: hip pain, on painkillers" greeted "...
    a dog named Bamse who ... is getting better from hip pain with painkillers."."""
    from memgpt_local.agent.policy.tone_guard import ToneGuard

    memory = FakeMemory(core=[("human", "Name: Ingrid"), ("human", "Bamse's health: hip pain, on painkillers")])
    greeting = "Hello Ingrid! I know that Bamse is getting better from hip pain with painkillers."
    hold = ToneGuard().review(Turn(question=None, kind="login"), draft(greeting), memory)
    assert hold is not None and "'getting better'" in hold.notice and "hip pain" in hold.notice
    for kind in ("Hello Ingrid! How is Bamse's hip pain?", "Hello Ingrid! I hope Bamse is getting better."):
        assert ToneGuard().review(Turn(question=None, kind="login"), draft(kind), memory) is None, kind
    mending = FakeMemory(core=[("human", "Bamse's health: hip pain, improving on painkillers")])
    assert ToneGuard().review(Turn(question=None, kind="login"), draft(greeting), mending) is None


def test_owner_guard_holds_someone_elses_liking_said_as_the_users():
    """A `make run` login (stop 60): under "Sofie's hobby: horses" (the daughter's) it greeted
    "Hello Ingrid! ... I also know that you like to ride horses ..."."""
    from memgpt_local.agent.policy.owner_guard import OwnerGuard

    core = [("human", "Name: Ingrid"), ("human", "Daughter: Sofie"), ("human", "Sofie's hobby: horses")]
    memory = FakeMemory(core=[*core, ("human", "Hobby: learning Spanish")])
    login = Turn(question=None, kind="login")
    greeting = "Hello Ingrid! I know that you teach maths and that you like to ride horses."
    assert OwnerGuard().review(login, draft(greeting), memory) is not None
    for fine in ("Hello Ingrid! Does Sofie still love horses?", "Hello Ingrid! Do you enjoy learning Spanish?"):
        assert OwnerGuard().review(Turn(question=None, kind="login"), draft(fine), memory) is None, fine


def test_a_question_about_the_user_at_all_is_answered_in_the_second_person():
    """A `make run` chat (stop 58): "What do you know about me so far?" got "I remember that you're a
    teacher in Valencia, teaching year 4. I have a partner Ana, who is a architect, and a dog named
    Pimienta."."""
    from memgpt_local.agent.policy.perspective_guard import speaks_as_user
    from memgpt_local.text import content_words

    known = set(content_words("teaches year 4 at a primary school in Valencia Ana, is an architect Pimienta"))
    asked = "Thanks. What do you know about me so far?"
    told = "I remember that you're a teacher in Valencia. I have a partner Ana, who is a architect."
    assert speaks_as_user(told, asked, known) == "I have a partner Ana, who is a architect."
    assert speaks_as_user("I remember that you're a teacher in Valencia. You have a partner Ana.", asked, known) is None


def test_tone_guard_holds_a_greeting_glad_of_something_hard_once():
    """A `make run` chat (stop 58): under "Pet's condition: limping" a login greeted "Hello Tomás!
    I'm glad that Pimienta is limping and you're taking her to the vet on Thursday."."""
    from memgpt_local.agent.policy.tone_guard import ToneGuard

    policy, login = ToneGuard(), Turn(question=None, kind="login")
    greeting = "Hello Tomás! I'm glad that Pimienta is limping and you're taking her to the vet on Thursday."
    hold = policy.review(login, draft(greeting), FakeMemory())
    assert hold is not None and "glad that Pimienta is limping" in hold.notice
    for fine in ("Hello Tomás! How is Pimienta? I hope she is not limping any more.", "Hello Tomás! Great to see you."):
        assert policy.review(login, draft(fine), FakeMemory()) is None, fine
    login.holds[policy.name] = 1
    assert policy.review(login, draft(greeting), FakeMemory()) is None


def test_owner_guard_reads_live_music_as_no_home():
    """bench_honesty --others seed 76 (stop 58): "you saw the Nurkmaiards play live" was held as the
    user told someone else's home."""
    from memgpt_local.agent.policy.owner_guard import owned_notes, told_as_users

    notes = owned_notes(["Name: Dana", "Sister: Pepeick", "Pepeick's home: Leeds, near the live music venue"], "Dana")
    assert told_as_users("On Monday 5 May, you told me you saw the Nurkmaiards play live.", notes) is None
    assert told_as_users("You live in Leeds, near the venue.", notes) is not None


def test_owner_guard_reads_each_clause_of_a_long_list():
    """A `make run` chat (stop 59): "Your name is Kwame, you work as a pharmacist, ..., your wife is
    Efua, ..." gave the user his wife's job in a sentence that also named her."""
    from memgpt_local.agent.policy.owner_guard import owned_notes, told_as_users

    notes = owned_notes(["Name: Kwame", "Work: drives the number 42 bus", "Wife: Efua, is a pharmacist"], "Kwame")
    listed = "I know this about you: your name is Kwame, you work as a pharmacist, your wife is Efua."
    assert told_as_users(listed, notes) == ("you work as a pharmacist", notes[0])
    assert told_as_users("You drive the 42 bus, and your wife Efua is a pharmacist.", notes) is None
    assert told_as_users("You drive the 42 bus, Efua is a pharmacist, and you have a son.", notes) is None


@pytest.mark.parametrize(
    "question, clause",
    [
        ("How old am I?", "how old you are"),
        ("How old is my dog Bamse?", "how old your dog Bamse is"),
        ("What's my mum's name?", "your mum's name"),
        ("Remind me, what is my dog called?", "what your dog is called"),
        ("Who is my dentist?", "who your dentist is"),
        ("Where does my sister live?", "where your sister lives"),
        ("Where does my brother teach?", "where your brother teaches"),
        ("Where do I work?", "where you work"),
        ("When is Marte's wedding?", "when Marte's wedding is"),
        ("Hey! When is my brother coming?", "when your brother is coming"),
        ("What does my brother do for a living?", "what your brother does for a living"),
        ("What age am I now?", "how old you are"),
        ("Where did I go to university?", "where you went to university"),
        ("When did my mum arrive?", "when your mum arrived"),
        ("When did I play tennis?", "when you played tennis"),
        # shapes it does not turn: the denial is "I don't know" alone
        ("Which university did I go to?", ""),
        ("When did I stop smoking?", ""),  # a past not sure of its spelling
        ("What did I tell you about the boiler?", ""),  # whose "you"
        ("What's my sister doing?", ""),
        ("Do you remember what my daughter did on Saturday?", ""),
    ],
)
def test_a_denial_says_what_is_not_known(question, clause):
    """A `make run` chat (stop 60): the denial "I don't know" was written on with an earlier
    reply, and "How old am I?" got "I don't know what's wrong with Bamse."."""
    from memgpt_local.agent.policy.nothing_found import not_known

    assert not_known(question) == clause


def test_nothing_found_reads_a_notice_of_someone_elses_line_by_its_label():
    """A `make run` chat (stop 60): a core-memory notice quoted "[human] Bamse's age: twelve in
    January 2027" (the line says "(2027-01)"), and "How old am I?" was taken as answered."""
    from memgpt_local.agent.policy.nothing_found import NothingFound

    core = [("human", "Name: Ingrid"), ("human", "Dog: Bamse"), ("human", "Bamse's age: twelve in January (2027-01)")]
    notice = msg(5, "system", "[core memory]\nyour core memory says:\n[human] Bamse's age: twelve in January 2027")
    turn = Turn(question="How old am I?", event_id=100)
    NothingFound().start(turn, FakeMemory(core=core, context=[notice]))
    assert turn.reply_start == "I don't know how old you are"


def test_a_bare_denial_may_be_said_again():
    """A `make run` chat (stop 60): "I don't know that." to "How old am I?" was held for an earlier
    turn's same words, and the redraft sent an earlier answer about the dog."""
    from memgpt_local.agent.policy.repeat_guard import answers_again

    assert answers_again("How old am I?", "I don't know that.", "I don't know that.")
    assert not answers_again("What car do I drive?", "I don't know your age.", "I don't know your age.")


def test_nothing_found_denies_the_users_age_that_only_others_have():
    """A `make run` chat (stop 60): "How old am I?" was answered "You're 12 years old." from "We
    have a old dog called Bamse, ... he's nearly twelve." ("old" was seen) and "saved: Bamse's
    age: nearly twelve" (a memory update, not read as the dog's line)."""
    from memgpt_local.agent.policy.nothing_found import NothingFound, detail_left

    core = [("human", "Name: Ingrid"), ("human", "Dog: Bamse, nearly twelve"), ("human", "Bamse's age: nearly twelve")]
    dog = msg(5, "user", "We have a old dog called Bamse, he's a Bernese mountain dog and he's nearly twelve.")
    update = msg(6, "system", "[memory update]\nsaved: Dog: Bamse, nearly twelve\nsaved: Bamse's age: nearly twelve")
    for asked in ("How old am I?", "What's my age?", "What age am I now?"):
        turn = Turn(question=asked, event_id=100)
        NothingFound().start(turn, FakeMemory(core=core, context=[dog, update]))
        assert turn.reply_start.startswith("I don't know"), asked
    assert turn.reply_start == "I don't know how old you are"  # "What age am I now?"
    turn = Turn(question="How old am I?", event_id=100)
    NothingFound().start(turn, FakeMemory(core=core, context=[dog, update]))
    assert turn.reply_start == "I don't know how old you are"
    for told in ("I'm 41, by the way.", "I turned forty last spring.", "I was born in 1985."):
        turn = Turn(question="How old am I?", event_id=100)
        NothingFound().start(turn, FakeMemory(core=core, context=[dog, update, msg(7, "user", told)]))
        assert turn.reply_start == "", told
    own = Turn(question="How old am I?", event_id=100)
    NothingFound().start(own, FakeMemory(core=[*core, ("human", "Age: 41")], context=[dog]))
    assert own.reply_start == ""
    # what is wrong with an animal is its condition (the same chat: denied for "wrong")
    lines = ["[human] Dog: Bamse, nearly twelve", "[human] Bamse's condition: hip pain"]
    assert detail_left("What's wrong with my dog Bamse?", lines) == set()
    assert detail_left("What's the matter with my dog Bamse?", lines) == set()


def test_nothing_found_denies_a_name_no_line_gives_and_an_age_from_a_stay():
    """A `make run` chat (stop 59): "What's my mum's name?" under "Mum: flying in from Accra next
    Friday" was answered "Your mum's name is Efua.", the wife's; "How old is my mum?" was taken as
    answered by "Mum's stay: three weeks"."""
    from memgpt_local.agent.policy.nothing_found import NothingFound, detail_left

    core = ["[human] Mum: flying in from Accra next Friday (2026-12-11)", "[human] Mum's stay: three weeks"]
    assert detail_left("What's my mum's name?", core) == {"name"}
    assert detail_left("What is my mum called again?", core) == {"name"}
    assert detail_left("How old is my mum?", core) == {"old"}
    assert detail_left("How long is my mum staying?", core) == set()
    assert detail_left("What's my wife's name?", ["[human] Wife: Efua, is a pharmacist"]) == set()
    assert detail_left("What's my mum's name?", ["[human] Mum's name: Abena"]) == set()
    flight = ["[human] Mother's flight: Accra next Friday (2026-12-11)", "[human] Mother's trip: three weeks"]
    assert detail_left("What's my mother called?", flight) == {"name"}  # a place is no name
    assert detail_left("How old is my baby?", ["[human] Baby: Ama, three weeks old"]) == set()
    # a flight's end is an arrival: "When did my mum arrive?" beside "Mum landed safely!"
    assert detail_left("When did my mum arrive?", core) == set()
    assert detail_left("When does my mum arrive?", ["[human] Mum: Abena"]) == {"arri"}
    login = msg(
        5, "system", "The user logged in for the first time. You do not know their name: greet them and ask it."
    )
    memory = FakeMemory(core=[("human", "Name: Kwame"), *(("human", c.split("] ")[1]) for c in core)], context=[login])
    turn = Turn(question="What's my mum's name?", event_id=100)
    NothingFound().start(turn, memory)
    assert turn.reply_start.startswith("I don't know")
    told = FakeMemory(
        core=[("human", "Name: Kwame"), *(("human", c.split("] ")[1]) for c in core)],
        context=[msg(6, "user", "Her name is Abena. She's 71 and still walks everywhere.")],
    )
    turn = Turn(question="What's my mum's name?", event_id=100)
    NothingFound().start(turn, told)
    assert turn.reply_start == ""


def test_nothing_found_reads_a_day_asked_in_other_words_and_an_age_only_in_their_lines():
    """A `make run` chat (stop 60): "When is Cian heading off to Canada?" under "Brother: Cian,
    moving to Toronto in February (2027-02)" was denied ("I don't know when your brother Cian
    heading off to Canada is."); "How old is Declan?" under "Partner: Declan, builds boats" was
    taken as answered by "Cat: Pickle, about nine years old" and got "Your partner Declan is a vet
    nurse in Galway, but I don't know how old he is."."""
    from memgpt_local.agent.policy.nothing_found import NothingFound, detail_left, not_known
    from memgpt_local.text import stem

    core = [
        "[human] Name: Oona",
        "[human] Work: vet nurse in Galway",
        "[human] Partner: Declan, builds boats",
        "[human] Cat: Pickle, about nine years old",
        "[human] Brother: Cian, moving to Toronto in February (2027-02)",
    ]
    for question in [
        "When is my brother Cian heading off to Canada?",
        "So when does my brother leave for Canada?",
        "When does my brother Cian fly out?",
        "Hi! When is my brother Cian heading off to Canada again?",  # the next login
        "when is my brother coming over again?",  # "coming over" read as a visit (a `make run` chat, stop 61)
    ]:
        assert detail_left(question, core) == set(), question
    assert detail_left("when is my brother coming over?", ["[human] Brother: Cian, moving to Toronto"]) == {"visi"}
    # what the line does not say is still left: a birthday, a day where no line gives one
    assert detail_left("When is my brother's birthday?", core) == {stem("birthday")}
    undated = ["[human] Brother: Cian, moving to Toronto"]
    assert detail_left("So when does my brother leave for Canada?", undated) == {stem("leave"), stem("Canada")}
    assert detail_left("How old is my partner Declan?", core) == {"old"}
    assert detail_left("How old is my cat Pickle?", core) == set()
    memory = FakeMemory(core=[("human", line.removeprefix("[human] ")) for line in core])
    turn = Turn(question="How old is Declan?", event_id=100)
    NothingFound().start(turn, memory)
    assert turn.reply_start == "I don't know how old your partner Declan is"
    turn = Turn(question="When is Cian heading off to Canada?", event_id=100)
    NothingFound().start(turn, memory)
    assert turn.reply_start == ""
    # the verb stays where it stands in the denial
    assert (
        not_known("When is my brother Cian heading off to Canada?") == "when your brother Cian is heading off to Canada"
    )
    assert not_known("When does my brother Cian fly out?") == "when your brother Cian flies out"
    assert not_known("What does my partner Declan do for a living?") == "what your partner Declan does for a living"


def test_language_guard_holds_a_reply_in_another_language_to_english_once():
    """A `make run` chat (stop 60): "Olá! I'm Beatriz, a retired architect living in Lisbon with my
    husband Jorge." got "Olá! Como posso ajudar você hoje?", and every reply after it was Portuguese,
    the user's own words retold as the assistant's ("Claro! Eu estou preocupado com a operação do
    joelho no dia 14 de janeiro.")."""
    from memgpt_local.agent.policy.language_guard import LanguageGuard, not_english, written_in_english

    hello = "Olá! I'm Beatriz, a retired architect living in Lisbon with my husband Jorge."
    knee = "The big thing coming up is my knee operation on the 14th of January, I'm a bit nervous about it."
    for message in (hello, knee, "What do you know about me?"):
        assert written_in_english(message), message
    for message in ("Olá, tudo bem? Eu sou a Beatriz.", "Obrigada!", "Danke schön, bis morgen."):
        assert not written_in_english(message), message
    for reply in (
        "Olá! Como posso ajudar você hoje?",
        "Claro! Eu estou preocupado com a operação do joelho no dia 14 de janeiro.",
        "Que bom! Tiago e Inês são lindos.",
    ):
        assert not_english(reply), reply
    for reply in (
        "Claro!",  # too short to tell
        "Chopin, Liszt, Debussy, Satie.",  # names are of no language
        "Wow, amazing news, big congratulations!",  # English without its function words
        "Good luck with the knee operation on Thursday 14 January!",
    ):
        assert not not_english(reply), reply
    guard, turn = LanguageGuard(), Turn(question=hello)
    hold = guard.review(turn, draft("Olá! Como posso ajudar você hoje?"), FakeMemory())
    assert hold is not None and hold.hide_draft and "in English" in hold.notice
    turn.holds[guard.name] += 1
    assert guard.review(turn, draft("Olá! Como posso ajudar você hoje?"), FakeMemory()) is None  # once
    # a message that asks for another language, or is written in one, may be answered in it
    for asked in (
        "How do you say 'I am nervous about my operation' in Portuguese?",
        "Olá, tudo bem? Eu sou a Beatriz.",
    ):
        assert guard.review(Turn(question=asked), draft("Estou nervosa com a minha operação."), FakeMemory()) is None


def test_nothing_found_reads_the_lines_of_the_users_people_for_their_family():
    """A `make run` chat (stop 60): "What do you know about my family?" got "I don't know anything
    about your family." beside "Husband: Jorge", "Daughter: Carla" and "Carla's children: ..."."""
    from memgpt_local.agent.policy.core_at_question import lines_asked_about
    from memgpt_local.agent.policy.nothing_found import NothingFound

    lines = ["Name: Beatriz", "Home: Lisbon", "Husband: Jorge", "Daughter: Carla", "Carla's children: Tiago and Inês"]
    memory = FakeMemory(core=[("human", line) for line in lines])
    for question in ("What do you know about my family?", "How is my family doing?", "How are my grandkids?"):
        turn = Turn(question=question, event_id=100)
        NothingFound().start(turn, memory)
        assert turn.reply_start == "", question
    assert "[human] Husband: Jorge" in lines_asked_about("What do you know about my family?", memory)
    alone = FakeMemory(core=[("human", "Name: Beatriz"), ("human", "Home: Lisbon")])
    turn = Turn(question="What do you know about my family?", event_id=100)
    NothingFound().start(turn, alone)
    assert turn.reply_start.startswith("I don't know")


def test_nothing_found_reads_a_wedding_in_a_marriage_and_no_month_or_filler_as_the_subject():
    """A `make run` chat (stop 62): "do you remember what my role is at the wedding?" was denied
    beside "my little sister Anjali is getting married in June and I'm the maid of honour"; and
    "anyway, where are me and Dev going in April?" beside "Travel: going to Seville in April
    (2027-04) for Dev's 30th", asked of "anyway" and of "April" as if April were someone, and
    the denial said "where you and your partner Dev is going"."""
    from memgpt_local.agent.policy.nothing_found import NothingFound, not_known, owners_asked_of

    said = [
        hit(
            1,
            "my little sister Anjali is getting married in June and I'm the maid of honour",
            kind="message",
            role="user",
        )
    ]
    memory = FakeMemory(entries=said, core=[("human", "Name: Priya"), ("human", "Sister: Anjali (in June, 2027-06)")])
    for question in ["do you remember what my role is at the wedding?", "When is my sister's wedding again?"]:
        turn = Turn(question=question, event_id=100)
        assert NothingFound().start(turn, memory) == [], question
        assert (turn.reply_reason, turn.reply_start) == (None, ""), question
    # a question about a wedding nothing speaks of is still denied
    bare = FakeMemory(entries=[hit(1, "I work nights at the hospital", kind="message", role="user")], core=memory.core)
    unsaid = Turn(question="do you remember what my role is at the wedding?", event_id=100)
    NothingFound().start(unsaid, bare)
    assert unsaid.reply_start.startswith("I don't know")

    travel = [
        ("human", "Name: Priya"),
        ("human", "Partner: Dev"),
        ("human", "Travel: going to Seville in April (2027-04) for Dev's 30th"),
    ]
    for question in [
        "I'm the maid of honour! anyway, where are me and Dev going in April?",
        "Anyhow, where are we off to in April?",
        "btw where are Dev and I going on Friday?",
    ]:
        turn = Turn(question=question, event_id=100)
        NothingFound().start(turn, FakeMemory(core=travel))
        assert (turn.reply_reason, turn.reply_start) == (None, ""), question
    assert owners_asked_of("where are me and Dev going in April?") == {"dev"}
    assert not_known("where are me and Dev going in April?") == "where you and Dev are going in April"
    assert not_known("Where is my sister living?") == "where your sister is living"


def test_a_request_for_ideas_the_user_says_was_misread_is_answered_again_with_ideas():
    """A `make run` chat (stop 62): asked "any ideas for a hen do that isn't too expensive? she
    hates clubbing", the model suggested quiet hens kept in a cage; told "haha no, a hen do is a
    bachelorette party! not chickens", it answered "That's a great idea! I'm glad that you found
    something that works for you."."""
    from memgpt_local.agent.policy.ideas_given import IdeasGiven, corrects

    hens = "Here are a few ideas: 1. A small, quiet hen that doesn't require much attention."
    memory = FakeMemory(
        context=[
            msg(1, "user", "any ideas for a hen do that isn't too expensive? she hates clubbing"),
            msg(2, "assistant", "ok", function_name="send_message", function_args={"message": hens}),
        ]
    )
    policy = IdeasGiven()
    # before the first step, as the loop runs it: the message is not stored yet
    unstored = Turn(question="haha no, a hen do is a bachelorette party! not chickens")
    assert len(policy.start(unstored, memory)) == 1
    turn = Turn(question="haha no, a hen do is a bachelorette party! not chickens", event_id=3)
    (notice,) = policy.start(turn, memory)
    assert 'misread their request ("any ideas for a hen do that isn\'t too expensive?")' in notice.content
    assert turn.reply_start == "Sorry, my mistake!" and turn.reply_reason
    # a reply without ideas is held once; one with them goes out
    assert policy.review(turn, draft("Sorry, my mistake! I'm glad to help!"), memory) is not None
    turn.holds[policy.name] = 0
    ideas = "Sorry, my mistake! How about a spa afternoon, a cocktail class at home or a picnic?"
    assert policy.review(turn, draft(ideas), memory) is None
    for message in ["I meant the film, not the book", "No, a hen do is a party.", "nope, I mean for my mum"]:
        assert corrects(message), message
    for message in ["No worries, thanks!", "no. that's all", "Nope!", "I know, right?", "thanks, not bad ideas"]:
        assert not corrects(message), message
    # after no request for ideas, a "no" is only a no
    told = FakeMemory(context=[msg(1, "user", "I went to Leeds."), msg(2, "user", "x")])
    plain = Turn(question="haha no, Leeds is a city, not a person", event_id=3)
    assert policy.start(plain, told) == [] and plain.reply_start == ""


def test_tone_guard_holds_a_reply_glad_that_someone_of_the_users_is_gone():
    """A `make run` chat (stop 62): to "it's over thank god. my partner Dev has already left for work
    so the flat is quiet, just me and our cat Mango" the reply was "That's great to hear! I'm glad
    you're home and that your partner is gone."."""
    from memgpt_local.agent.policy.tone_guard import ToneGuard, glad_they_are_gone

    said = "it's over thank god. my partner Dev has already left for work so the flat is quiet"
    turn = Turn(question=said)
    rude = "That's great to hear! I'm glad you're home and that your partner is gone."
    hold = ToneGuard().review(turn, draft(rude), FakeMemory())
    assert hold is not None and "glad that your partner is gone" in hold.notice
    kind = "Enjoy the quiet! I hope Dev has a good day at work."
    assert ToneGuard().review(Turn(question=said), draft(kind), FakeMemory()) is None
    assert hold.banned_words == ("gone", "away")  # the redraft said "It's great that your partner is gone."
    assert glad_they_are_gone("I'm glad Dev has left for work") == "Dev"
    for reply in ["I'm glad your cold is gone.", "I'm glad the rain has gone.", "I'm glad Dev is not away for long."]:
        assert glad_they_are_gone(reply) == "", reply


def test_perspective_guard_holds_a_first_person_phrase_copied_from_a_message_the_turn_found():
    """A `make run` chat (stop 62): "what did Bramble get up to?" at the next login got "Your dog
    Bramble ate one of my socks yesterday, had to take her to the vet.", the user's message found
    in recall said back with its "my"."""
    from memgpt_local.agent.policy.perspective_guard import PerspectiveGuard

    told = "Our labrador Bramble ate one of my socks yesterday, had to take her to the vet."
    turn = Turn(question="what did Bramble get up to?")
    turn.searched_before["bramble"] = [hit(7, told, kind="message", role="user")]
    memory = FakeMemory(core=[("human", "Name: Gareth"), ("human", "Dog: Bramble, labrador")])
    copied = "Your dog Bramble ate one of my socks yesterday, had to take her to the vet."
    hold = PerspectiveGuard().review(turn, draft(copied), memory)
    assert hold is not None and "my" in hold.banned_words
    said_back = "Bramble ate one of your socks and had to go to the vet."
    assert PerspectiveGuard().review(Turn(question="what did Bramble get up to?"), draft(said_back), memory) is None
    quoted = "You told me: Our labrador Bramble ate one of my socks yesterday, had to take her to the vet."
    assert PerspectiveGuard().review(turn, draft(quoted), memory) is None


def test_a_reply_that_only_says_what_memory_holds_gives_no_ideas():
    """The replay of a `make run` chat (stop 62): "any ideas for a hen do that isn't too expensive?"
    got "Hey Priya! It's great that your sister is getting married in June.", beside "Sister: Anjali,
    getting married in June (2027-06)", and went out as ideas given."""
    from memgpt_local.agent.policy.ideas_given import IdeasGiven

    memory = FakeMemory(core=[("human", "Name: Priya"), ("human", "Sister: Anjali, getting married in June (2027-06)")])
    asked = "any ideas for a hen do that isn't too expensive? she hates clubbing"
    told = "Hey Priya! It's great that your sister is getting married in June."
    assert IdeasGiven().review(Turn(question=asked), draft(told), memory) is not None
    ideas = "How about a spa afternoon, a picnic in the park or a cocktail class at home?"
    assert IdeasGiven().review(Turn(question=asked), draft(ideas), memory) is None


def test_the_request_a_misread_turn_answers_again_is_no_copy_of_the_users_words():
    """The replay of a `make run` chat (stop 62): told the request was misread, "Sorry, my mistake!
    Here are some ideas for a hen do that isn't too expensive: ..." was held as a copy of "any ideas for
    a hen do that isn't too expensive?"."""
    from memgpt_local.agent.policy.repeat_guard import copied_user_message

    request = "any ideas for a hen do that isn't too expensive? she hates clubbing"
    memory = FakeMemory(
        context=[msg(1, "user", "I keep bees on the roof of my flat in Leeds"), msg(2, "user", request)]
    )
    answer = "Sorry, my mistake! Here are some ideas for a hen do that isn't too expensive: a spa day."
    corrected = Turn(question="haha no, a hen do is a bachelorette party! not chickens", event_id=3)
    assert copied_user_message(answer, corrected, memory) is None
    other = Turn(question="what should I cook tonight?", event_id=3)
    assert copied_user_message(answer, other, memory) == request
    bees = "You know what? I keep bees on the roof of my flat in Leeds too."
    assert copied_user_message(bees, corrected, memory) is not None  # another message is still a copy
