"""The seeded generators: determinism, chain shape (no cycles), one gold fact, near misses."""

from __future__ import annotations

import re

import pytest

from memgpt_local.eval import dmr, doc_qa, nested_kv
from memgpt_local.eval.base import Options
from memgpt_local.eval.scoring import contains, contains_any

UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")


# ---------------------------------------------------------------- nested-kv


def test_nested_kv_sets_are_deterministic_per_seed():
    assert nested_kv.make_set(3, 0) == nested_kv.make_set(3, 0)
    assert nested_kv.make_set(3, 0).pairs != nested_kv.make_set(4, 0).pairs
    assert nested_kv.make_set(3, 0).pairs != nested_kv.make_set(3, 1).pairs


def test_nested_kv_set_shape():
    kv = nested_kv.make_set(0, 0)
    assert len(kv.pairs) == 140
    strings = [s for pair in kv.pairs for s in pair]
    assert all(UUID.match(s) for s in strings)
    keys = [k for k, _ in kv.pairs]
    assert len(set(keys)) == 140
    assert len(kv.groups) == 9 and all([len(c) for c in g] == [1, 2, 3, 4, 5] for g in kv.groups)
    members = [i for group in kv.groups for chain in group for i in chain]
    assert len(members) == len(set(members)) == 135  # sampled without replacement: disjoint chains
    mapping = kv.mapping
    nested_values = [v for _, v in kv.pairs if v in mapping]
    assert len(nested_values) == 9 * (0 + 1 + 2 + 3 + 4)  # only chain links point at keys
    values = {v for _, v in kv.pairs}
    for group in kv.groups:
        for chain in group:
            assert kv.pairs[chain[0]][0] not in values  # a chain's head is nobody's value
    for key in keys:  # following any key terminates (no cycles) within a chain's length
        assert len(nested_kv.follow(mapping, key)) <= 5


def test_follow_detects_a_cycle():
    with pytest.raises(ValueError):
        nested_kv.follow({"a": "b", "b": "a"}, "a")


def test_nested_kv_levels_need_level_plus_one_lookups():
    task = nested_kv.NestedKVTask()
    cases = task.cases(Options(seed=1, n=3))
    assert [c.point for c in cases[:5]] == [0, 1, 2, 3, 4]
    for case in cases:
        kv = task.kv_set(case.seed, case.payload["set"])
        path = nested_kv.follow(kv.mapping, case.payload["start_key"])
        assert len(path) == case.point + 1
        assert path[-1] == case.answer
        assert case.payload["start_key"] in case.question
        assert case.answer not in case.question
    assert len({c.corpus for c in cases}) == 1  # one built set serves them all


def test_nested_kv_baseline_context_marks_the_chain():
    task = nested_kv.NestedKVTask()
    case = task.cases(Options(n=1, points=(2,)))[0]
    ctx = task.fixed_context(case)
    assert len(ctx.items) == 140 and len(ctx.gold) == 3
    assert all(ctx.items[i].startswith("Key-value pair: key = ") for i in ctx.gold)


def test_nested_kv_rejects_bad_levels():
    with pytest.raises(ValueError):
        nested_kv.NestedKVTask().cases(Options(n=1, points=(5,)))


# ---------------------------------------------------------------- dmr


def test_dmr_dialogues_are_deterministic_per_seed():
    assert dmr.make_dialogue(0, 0) == dmr.make_dialogue(0, 0)
    assert dmr.make_dialogue(0, 0) != dmr.make_dialogue(1, 0)
    assert dmr.make_dialogue(0, 0) != dmr.make_dialogue(0, 1)


@pytest.mark.parametrize("index", range(12))
def test_dmr_fact_is_said_once_and_the_distractor_is_a_near_miss(index):
    d = dmr.make_dialogue(5, index)
    e = d.episode
    assert len(d.sessions) == 5
    assert all(len(s) == dmr.MESSAGES_PER_SESSION for s in d.sessions)
    lines = [line for s in d.sessions for line in s]
    with_answer = [line for line in lines if contains(line.text, e.answer)]
    assert with_answer and {line.text for line in with_answer} <= set(e.fact)  # only the planted exchange says it
    assert with_answer[0].text == e.fact[0]
    assert e.fact[0] in [line.text for line in d.sessions[d.fact_session]]
    assert e.distractor[0] in [line.text for line in d.sessions[d.distractor_session]]
    assert d.fact_session != d.distractor_session
    assert not contains_any(e.distractor[0] + e.distractor[1], (e.answer,))
    assert not contains(e.question, e.answer)
    times = [line.at for line in lines]
    assert times == sorted(times) and d.asked_at > times[-1]


def test_dmr_cases_and_long_split():
    task = dmr.DMRTask()
    cases = task.cases(Options(seed=2, n=2))
    assert [c.point for c in cases] == [5, 5]
    assert all(c.persona and c.human and c.answer not in c.persona + c.human for c in cases)
    long_cases = task.cases(Options(seed=2, n=1, long=True))
    assert long_cases[0].split == "long" and long_cases[0].point == 60
    messages = task.past_messages(long_cases[0])
    assert len(messages) == 60 * 12 and not any(m.in_context for m in messages)
    ctx = task.fixed_context(long_cases[0])
    assert ctx.keep == "last" and len(ctx.items) == 720 and len(ctx.gold) == 1


# ---------------------------------------------------------------- doc-qa


def test_doc_qa_corpora_are_prefixes_of_one_stream():
    small = doc_qa.Encyclopedia(0).passages(120)
    large = doc_qa.Encyclopedia(0).passages(403)
    assert len(small) == 120 and len(large) == 403
    assert large[:120] == small
    assert len(set(large)) == len(large)
    assert doc_qa.Encyclopedia(1).passages(8) != small[:8]


def test_doc_qa_questions_have_one_gold_passage_and_entity_sharing_distractors():
    task = doc_qa.DocQATask()
    cases = task.cases(Options(seed=0, n=12, points=(100, 200)))
    assert [c.point for c in cases[:2]] == [100, 200]
    assert cases[0].question == cases[1].question  # every size is asked the same questions
    corpus = task.encyclopedia(0).passages(100)
    for case in cases[::2]:
        cluster = task.encyclopedia(0).cluster(case.payload["cluster"])
        gold, *distractors = cluster.passages()
        assert gold in corpus and corpus.count(gold) == 1
        assert gold.startswith(case.gold_marker)
        assert [p for p in corpus if p.startswith(case.gold_marker)] == [gold]
        assert contains_any(gold, case.answers)
        root = cluster.landmark.split()[0]
        assert sum(root in p for p in distractors) >= 2  # sibling and region share the name
        assert cluster.founder in distractors[1]  # the biography shares the founder
        if case.payload["kind"] in ("year", "region"):
            assert not any(contains_any(p, case.answers) for p in distractors)
        else:
            assert cluster.landmark not in distractors[1]


def test_doc_qa_rejects_corpora_smaller_than_the_question_pool():
    with pytest.raises(ValueError):
        doc_qa.DocQATask().cases(Options(n=1, points=(50,)))
