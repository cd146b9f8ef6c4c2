"""A reply shown while it streams: its partial values, and a later sentence held back until it
cannot be a formula the step stops at (``partial.settled``)."""

from memgpt_local.agent.loop import first_items
from memgpt_local.agent.partial import settled, unshown, within_items
from memgpt_local.schemas import FunctionCall
from memgpt_local.text import formula_start, sentence_spans

FORMULAS = frozenset({("what", "else", "would", "you")})


def test_a_later_sentence_is_shown_once_it_has_more_whole_words_than_a_formula_opening():
    first = "You live in Leeds now."
    assert settled(first, FORMULAS, 4) == first  # the first sentence streams at once
    assert settled(f"{first} What else wou", FORMULAS, 4) == f"{first} "
    assert settled(f"{first} What else would you like to", FORMULAS, 4) == f"{first} "  # a formula: never shown
    assert settled(f"{first} What a lovely", FORMULAS, 4) == f"{first} "  # may still be one
    assert settled(f"{first} What a lovely town it", FORMULAS, 4) == f"{first} "  # "it" may go on
    assert settled(f"{first} What a lovely town it is", FORMULAS, 4) == f"{first} What a lovely town it is"
    assert settled(f"{first} What else would you", frozenset(), 4) == f"{first} What else would you"  # no formulas


def test_what_a_final_reply_adds_to_what_was_shown():
    assert unshown("You live in Leeds now. Enjoy!", "You live in Leeds now. ") == "Enjoy!"
    assert unshown("You live in Leeds now.", "You live in Leeds now.") == ""
    assert unshown("Something else", "You live") == ""


def test_a_formula_is_a_later_sentence_opening_like_an_earlier_replys():
    openings = {("what", "else", "would", "you")}
    reply = "You live in Leeds now! What else would you like to know? Bye."
    assert formula_start(reply, openings) == reply.index("What")
    assert formula_start("What else would you like to know?", openings) is None  # the first sentence stays
    assert formula_start("Nice. What else would", openings) is None  # three words: not yet
    assert formula_start(reply, set()) is None
    assert [start for start, _ in sentence_spans("  Hi there.  Bye! ")] == [2, 13]


TIPS = "Here are a few tips: 1. Join a club. 2. Go to meetups. 3. Take a class."


def test_a_stream_shows_a_list_item_once_the_next_begins_and_never_one_past_the_cap():
    upto2 = "Here are a few tips: 1. Join a club. 2. Go to meetups."
    assert within_items(TIPS, 3) == upto2  # item 3 may yet turn out a repeat: shown at the step's end
    assert within_items(TIPS, 0) == TIPS  # no list limit: no list rules
    assert within_items(f"{TIPS} 4", 3) == upto2 and within_items(f"{TIPS} 4. Use", 3) == upto2
    assert within_items(f"{TIPS} 4. Use", 4) == TIPS  # item 3 is complete once item 4 begins
    assert within_items("Open at 1. 2", 3) == "Open at 1."  # "2" may begin item 2: held until its word
    assert within_items("Open at 1. 2 pm", 3) == "Open at 1. 2 pm"  # it did not
    # the next item's number before its word: held, its item may be cut whole (`make run`, stop 46)
    one = "Ideas: 1. A colorful bike with a sign."
    assert within_items(f"{one} 2.", 7) == one and within_items(f"{one} 2", 7) == one
    assert within_items(f"{one} 3.", 7) == f"{one} 3."  # not the next number
    # what streamed is a prefix of what the loop keeps, and the step's end adds the rest
    call = FunctionCall(function="send_message", arguments={"message": f"{TIPS} 4. Use"})
    final = first_items(call, 3).arguments["message"]
    shown = settled(f"{TIPS} 4. Use", frozenset(), 0, 3)
    assert final == TIPS and shown + " " + unshown(final, shown).lstrip() == final


def test_a_list_may_hold_as_many_items_as_the_user_asked_for():
    """ "Could you list eight famous funk bassists for me, numbered?" was cut at seven (a `make
    run` chat, stop 46)."""
    from memgpt_local.agent.loop import ASKED_ITEMS_MAX, list_limit

    assert list_limit(7, "Could you list eight famous funk bassists for me, numbered?") == 8
    assert list_limit(7, "Give me 12 ideas") == 12
    assert list_limit(7, "Give me three ideas") == 7  # fewer than the setting: the setting
    assert list_limit(7, "List 500 words") == 7 and list_limit(7, f"{ASKED_ITEMS_MAX + 1} tips") == 7
    assert list_limit(7, None) == 7 and list_limit(0, "ten tips") == 0  # 0: no limit at all
