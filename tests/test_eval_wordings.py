"""The quizzes' second wording: the same data and answers, other records and questions.

A result that holds for one phrasing only is no result, so every task words its memory and
its question two ways; these tests check that the reworded version asks the same thing (same
answers, one gold record, the same near misses) in other words, and that a run with both
wordings keeps them apart and reports them side by side."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from agent_helpers import call, say

from memgpt_local.config import Settings
from memgpt_local.eval import dmr, doc_qa, nested_kv
from memgpt_local.eval.base import Options, split_name
from memgpt_local.eval.report import write_report
from memgpt_local.eval.runner import EPISODES_FILE, EpisodeLog, EvalConfig, Evaluation
from memgpt_local.eval.scoring import contains_any
from memgpt_local.runtime.scripted import ScriptedBackend

sys.path.insert(0, str(Path(__file__).parent / "fixtures"))
from fake_embedder import HashEmbedder  # noqa: E402


def _words(text: str) -> set[str]:
    return {w.strip(".,?!()").lower() for w in text.split()}


def test_split_names_say_the_wording():
    assert [split_name(False, 0), split_name(True, 0), split_name(False, 1), split_name(True, 1)] == [
        "standard",
        "long",
        "standard-reworded",
        "long-reworded",
    ]
    assert Options(wording=1, long=True).split == "long-reworded"
    with pytest.raises(ValueError):
        split_name(False, 2)


@pytest.mark.parametrize(
    "task, options",
    [
        (nested_kv.NestedKVTask(), Options(seed=2, n=3)),
        (doc_qa.DocQATask(), Options(seed=2, n=6, points=(100,))),
        (dmr.DMRTask(), Options(seed=2, n=6)),
    ],
    ids=["nested-kv", "doc-qa", "dmr"],
)
def test_the_reworded_quiz_asks_the_same_things_in_other_words(task, options):
    first = task.cases(options)
    second = task.cases(Options(**{**options.__dict__, "wording": 1}))
    assert [(c.point, c.index, c.answers) for c in first] == [(c.point, c.index, c.answers) for c in second]
    assert {c.split for c in second} == {"standard-reworded"}
    for a, b in zip(first, second):
        assert a.question != b.question
        shared = _words(a.question) & _words(b.question)
        assert len(shared) <= 0.5 * len(_words(b.question))  # other words, not the same sentence
        assert a.corpus is None or a.corpus != b.corpus  # a reworded corpus is built on its own


def test_reworded_nested_kv_records_hold_the_same_pairs():
    kv = nested_kv.make_set(0, 0)
    plain, reworded = kv.texts(0), kv.texts(1)
    assert len(set(reworded)) == len(reworded) == len(plain)
    for (key, value), text in zip(kv.pairs, reworded):
        assert text == f"Record {key} points to {value}." and "key" not in text.lower()
    case = nested_kv.NestedKVTask().cases(Options(n=1, points=(2,), wording=1))[0]
    assert case.payload["start_key"] in case.question and "value" not in case.question.lower()


def test_reworded_doc_qa_keeps_one_gold_record_and_its_near_misses():
    task = doc_qa.DocQATask()
    cases = task.cases(Options(seed=0, n=12, points=(100,), wording=1))
    corpus = task.encyclopedia(0).passages(100, 1)
    assert corpus != task.encyclopedia(0).passages(100, 0) and len(set(corpus)) == 100
    for case in cases:
        cluster = task.encyclopedia(0).cluster(case.payload["cluster"])
        gold, *distractors = cluster.passages(1)
        assert case.payload["gold_passage"] == gold and corpus.count(gold) == 1
        assert [p for p in corpus if p.startswith(case.gold_marker)] == [gold]
        assert contains_any(gold, case.answers)
        assert cluster.founder in distractors[1] and cluster.landmark.split()[0] in distractors[0]
        if case.payload["kind"] in ("year", "region"):
            assert not any(contains_any(p, case.answers) for p in distractors)
        assert "founded" not in gold and "region" not in gold  # the question's words are not the record's


def test_reworded_dmr_says_the_fact_once_and_the_near_miss_elsewhere():
    task = dmr.DMRTask()
    for index in range(14):  # every kind of episode appears
        plain = task.dialogue(5, index, 5, 0)
        reworded = task.dialogue(5, index, 5, 1)
        assert (plain.fact_session, plain.distractor_session, plain.asked_at) == (
            reworded.fact_session,
            reworded.distractor_session,
            reworded.asked_at,
        )
        e = reworded.episode
        assert e.fact != plain.episode.fact and e.question != plain.episode.question
        assert contains_any(e.fact[0], (e.answer,)) and not contains_any(e.distractor[0], (e.answer,))
        lines = [line.text for session in reworded.sessions for line in session]
        assert lines.count(e.fact[0]) == 1 and lines.count(e.distractor[0]) == 1
        assert e.fact[0] in {line.text for line in reworded.sessions[reworded.fact_session]}


def _kv_script(cases):
    script = []
    for case in cases:
        key = case.payload["start_key"]
        for value in case.payload["hops"]:
            script.append(call("archival_memory_search", thought=f"look up {key}", heartbeat=True, query=key))
            key = value
        right = case.split == "standard"  # right in the paper's wording, wrong in the other
        script.append(say(f"The last one is {case.answer if right else case.payload['hops'][0] + 'x'}."))
    return script


def test_a_run_with_both_wordings_interleaves_them_and_reports_the_gap(tmp_path):
    options = Options(seed=0, n=2, points=(1,))
    config = EvalConfig(task="nested-kv", model="scripted", out=tmp_path, options=options, wordings=(0, 1))
    task = nested_kv.NestedKVTask()
    ordered = [
        c
        for i in range(2)
        for w in (0, 1)
        for c in task.cases(Options(seed=0, n=2, points=(1,), wording=w))
        if c.index == i
    ]
    backend = ScriptedBackend(_kv_script(ordered), n_ctx=8192)
    evaluation = Evaluation(config, backend=backend, embedder=HashEmbedder(dim=32), settings=Settings())
    assert [(c.index, c.split) for _, c in evaluation.pending()] == [
        (0, "standard"),
        (0, "standard-reworded"),
        (1, "standard"),
        (1, "standard-reworded"),
    ]
    records = evaluation.run()
    assert [(r["split"], r["correct"]) for r in records] == [
        ("standard", True),
        ("standard-reworded", False),
        ("standard", True),
        ("standard-reworded", False),
    ]
    assert "Record " in records[1]["trace"][0]["result"]  # the reworded memory was searched
    files = write_report(tmp_path)
    text = files.markdown.read_text()
    assert "## nested-kv (standard-reworded split)" in text
    side = text.split("## Both wordings side by side")[1]
    assert "| nested-kv (standard) | scripted | agent: default | level 1 | 2/2 (100%" in side and "0/2 (0%" in side
    assert "| -100 |" in side
    runs = json.loads((tmp_path / "run.json").read_text())
    assert runs[0]["options"]["splits"] == ["standard", "standard-reworded"]
    assert len(EpisodeLog(tmp_path / EPISODES_FILE).done_keys()) == 4  # resumable per wording


def test_cli_accepts_a_wording_and_refuses_others(tmp_path, cli_runner):
    from memgpt_local.cli.main import cli

    result = cli_runner.invoke(cli, ["eval", "dmr", "--model", "scripted:x.json", "--wording", "2"])
    assert result.exit_code == 2 and "--wording" in result.output
    assert "--wording" in cli_runner.invoke(cli, ["eval", "doc-qa", "--help"]).output
