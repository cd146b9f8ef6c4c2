"""Scoring with known answers: normalization, containment, LCS, ROUGE-L, Wilson intervals."""

from __future__ import annotations

import pytest

from memgpt_local.eval.report import wilson
from memgpt_local.eval.scoring import contains, contains_any, lcs_length, normalize, rouge_l


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The Brelmoth Observatory!", "brelmoth observatory"),
        ("  It was   TANSY.  ", "it was tansy"),
        ("An apple, a pear", "apple pear"),
        ("Café Noël", "cafe noel"),
        ("a1b2-c3d4, value=ff", "a1b2 c3d4 value ff"),
        ("", ""),
    ],
)
def test_normalize(text, expected):
    assert normalize(text) == expected


def test_contains_matches_whole_words_only():
    assert contains("I think it was Tansy!", "tansy")
    assert contains("The value is 12dd1646-0613-4e37-89ca-2409aa8f6396.", "12dd1646-0613-4e37-89ca-2409aa8f6396")
    assert not contains("Tansyra was her name", "Tansy")
    assert not contains("1873", "187")
    assert contains("You stayed at the Quorel Hotel.", "the Quorel Hotel")
    assert not contains("anything", "")


def test_contains_any_accepts_aliases():
    assert contains_any("A painting by Dorbeck.", ("Ada Dorbeck", "Dorbeck"))
    assert not contains_any("A painting by Ada.", ("Ada Dorbeck", "Dorbeck"))


@pytest.mark.parametrize(
    ("a", "b", "length"),
    [
        ("a b c d", "a c d", 3),
        ("a b c", "x y z", 0),
        ("", "a b", 0),
        ("a b a b", "b a b a", 3),
        ("police killed the gunman", "police kill the gunman", 3),
    ],
)
def test_lcs_length(a, b, length):
    assert lcs_length(a.split(), b.split()) == length
    assert lcs_length(b.split(), a.split()) == length


def test_rouge_l_known_values():
    # LCS("police killed gunman yesterday", "police kill gunman") = "police gunman"
    r = rouge_l("police killed gunman yesterday", "police kill gunman")
    assert r.recall == pytest.approx(2 / 3)
    assert r.precision == pytest.approx(2 / 4)
    assert r.f1 == pytest.approx(2 * (2 / 3) * (1 / 2) / (2 / 3 + 1 / 2))
    # articles are dropped before counting: gold "You named the ferret Tansy" has 4 words
    r = rouge_l("Her name is Tansy, the ferret you named.", "You named the ferret Tansy")
    assert r.recall == pytest.approx(2 / 4)  # LCS: "you named" (or "ferret ... named"): 2 words
    assert rouge_l("You named the ferret Tansy", "You named the ferret Tansy").f1 == pytest.approx(1.0)
    assert rouge_l("", "gold words").recall == 0.0
    assert rouge_l("reply", "").recall == 0.0


def test_wilson_interval():
    lo, hi = wilson(10, 10)
    assert hi == pytest.approx(1.0) and 0.69 < lo < 0.73
    lo, hi = wilson(0, 10)
    assert lo == 0.0 and 0.27 < hi < 0.31
    assert wilson(0, 0) == (0.0, 0.0)


def test_outcomes_name_what_happened():
    from memgpt_local.eval.report import outcome, repeated_search

    base = {"method": "agent", "correct": False, "error": None, "answer": "x", "searches": 1, "retrieved": True}
    assert outcome(dict(base, correct=True)) == "correct"
    assert outcome(dict(base, error="ContextOverflowError: ...")) == "error"
    assert outcome(dict(base, answer=" ")) == "no reply"
    assert outcome(dict(base, searches=0)) == "no search"
    assert outcome(base) == "gold seen, wrong reply"
    assert outcome(dict(base, retrieved=False)) == "gold never found"
    assert outcome(dict(base, method="fixed-context", retrieved=False)) == "gold not in prompt"
    step = {"function": "conversation_search", "arguments": {"query": "ferret", "page": 0}}
    assert repeated_search({"trace": [step, step, step]})
    assert not repeated_search({"trace": [step, step, {"function": "send_message", "arguments": {"message": "hi"}}]})


def test_the_chat_band_question_accepts_the_band_as_named_and_old_records_are_judged_again(tmp_path):
    import json

    from memgpt_local.eval.chat import scripts
    from memgpt_local.eval.chat_report import read_records
    from memgpt_local.eval.chat_run import RESULTS_FILE, judge

    script = scripts(2, 1, 0)[0]
    turns = [t for s in script.sessions for t in s.turns]
    band = next(t for t in turns if "band" in t.text)
    name = script.user.band  # a plural name: "the Tragreettes"
    assert judge(band, f"You saw the {name} live.") == "correct"
    # the answer inside a denial is no answer
    assert judge(band, f"I'm sorry, but I don't have any information about {name}. Can you tell me more?") == "idk"
    assert judge(band, f"I don't know your mum. You saw the {name} live.") == "correct"
    record = {
        "seed": 2,
        "index": 0,
        "wording": 0,
        "turns": [{"text": t.text, "messages": [f"You saw the {name} live."], "verdict": "invented"} for t in turns],
    }
    greeting = {"session": 1, "message": f"Hello {script.user.first}! How were the {name}?", "known_fact": False}
    record["greetings"] = [greeting, {**greeting, "session": 0}]
    (tmp_path / RESULTS_FILE).write_text(json.dumps(record) + "\n")
    (read,) = read_records(tmp_path)
    verdicts = {t["text"]: t["verdict"] for t in read["turns"]}
    assert verdicts[band.text] == "correct"  # recorded as invented before the fix
    # a greeting that names the band names a known fact (not counted before stop 36); the first login knows nothing
    assert [g["known_fact"] for g in read["greetings"]] == [True, False]


def test_a_reply_that_repeats_an_earlier_replys_sentence_is_counted_as_copied():
    from memgpt_local.eval.chat_report import copied_turns
    from memgpt_local.text import shares_sentence_opening

    def copied_sentences(message: str, earlier: list[str]) -> bool:
        return shares_sentence_opening(message, earlier) is not None

    earlier = [
        "That's great news! Do you have any plans for the weekend?",
        "Is there anything I can help you with about Bath?",
    ]
    assert copied_sentences("I'm sorry to hear that. Do you have any plans for the weekend?", earlier)
    assert copied_sentences("Is there anything I can help you with regarding your parrot?", earlier)
    assert not copied_sentences("Your goats are called Hansi and Mitzi.", earlier)
    assert not copied_sentences("Great news, Lena!", earlier)  # three words: too short to count
    assert not copied_sentences("Do you have any plans?", [])
    sorry = ["I'm sorry, but I don't know Sanne's job."]
    assert not copied_sentences("I'm sorry, but I don't remember your shift.", sorry)  # a denial: not counted
    assert copied_sentences("I'm sorry, but I can help with Sanne's job.", sorry)
    record = {"turns": [{"messages": [m]} for m in [*earlier, "Do you have any plans for the weekend?", "Bye!"]]}
    assert copied_turns(record) == 1


@pytest.mark.parametrize(
    ("message", "reply", "flags"),
    [
        (
            "My daughter Zara passed her driving test this morning, first try!",
            "That's great news! Congratulations! Is there anything else you would like to know?",
            {"offers_help": True, "specific": False, "asks": True, "bare": False},
        ),
        (
            "My daughter Zara passed her driving test this morning, first try!",
            "First try, brilliant! Zara must be so proud.",
            {"offers_help": False, "specific": True, "asks": False, "bare": False},
        ),
        ("Didn't sleep well, the neighbours had a party until 3am.", "I'm sorry to hear that.", {"bare": True}),
        # offers the scorer missed at stop 57 (bench_replies): both codes wrote them
        ("Hi, I'm Nadia.", "Hello, Nadia! How can I be helpful today?", {"offers_help": True}),
        (
            "My dad's going in for knee surgery.",
            "I understand. Is there anything I could do to help?",
            {"offers_help": True},
        ),
        ("The boiler broke again.", "I understand. Is there anything you need help with?", {"offers_help": True}),
        ("We're off to Rome.", "Is there anything special you'd like to see there?", {"offers_help": False}),
        (
            "Booked tickets to see Elbow in Manchester in April!",
            "You booked tickets to see Elbow in Manchester in April!",
            {"echoes": True, "specific": True},
        ),
    ],
)
def test_a_reply_to_news_is_scored_by_its_words(message, reply, flags):
    from memgpt_local.eval.news_replies import score_news_reply, summarize

    score = score_news_reply(message, reply)
    assert {k: getattr(score, k) for k in flags} == flags
    assert summarize([score, score]).n == 2
