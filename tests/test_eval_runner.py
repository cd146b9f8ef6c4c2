"""The harness with scripted models: scoring of whole episodes, baselines, resumability,
reports and the CLI. A small hashing embedder keeps it fast and model-free."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from agent_helpers import call, say

from memgpt_local.config import AgentSettings, Settings
from memgpt_local.errors import InvalidInputError
from memgpt_local.eval import baselines
from memgpt_local.eval.base import FixedContext, Options
from memgpt_local.eval.report import write_report
from memgpt_local.eval.runner import EPISODES_FILE, EpisodeLog, EvalConfig, Evaluation, task_by_name
from memgpt_local.eval.variants import Variant, get_variant
from memgpt_local.runtime.scripted import AT_FORCED_START, ScriptedBackend

sys.path.insert(0, str(Path(__file__).parent / "fixtures"))
from fake_embedder import HashEmbedder  # noqa: E402


@pytest.fixture
def hash_embedder():
    return HashEmbedder(dim=32)


def evaluation(
    out: Path,
    task: str,
    script,
    embedder,
    *,
    options: Options,
    methods=("agent",),
    variant: Variant | None = None,
    n_ctx: int = 8192,
    backend=None,
) -> Evaluation:
    backend = backend or ScriptedBackend(list(script), n_ctx=n_ctx)
    config = EvalConfig(task=task, model="scripted", out=out, options=options, methods=methods, variant=variant)
    return Evaluation(config, backend=backend, embedder=embedder, settings=Settings())


def kv_script(cases, *, right: bool = True):
    """A scripted agent that follows each chain with searches, then answers (or answers wrong)."""
    script = []
    for case in cases:
        key = case.payload["start_key"]
        for value in case.payload["hops"]:
            script.append(call("archival_memory_search", thought=f"look up {key}", heartbeat=True, query=key))
            key = value
        script.append(say(f"The final value is {case.answer if right else case.payload['hops'][0] + 'x'}."))
    return script


# ---------------------------------------------------------------- agent episodes


def test_a_scripted_agent_that_follows_the_chain_scores_one(tmp_path, hash_embedder):
    options = Options(seed=0, n=2, points=(0, 2))
    cases = task_by_name("nested-kv").cases(options)
    records = evaluation(tmp_path, "nested-kv", kv_script(cases), hash_embedder, options=options).run()
    assert len(records) == 4
    assert all(r["correct"] for r in records)
    assert [r["searches"] for r in records] == [1, 3, 1, 3]
    assert [r["steps"] for r in records] == [2, 4, 2, 4]
    assert all(r["error"] is None and r["rouge"] == 1.0 for r in records)
    assert records[1]["trace"][0]["function"] == "archival_memory_search"
    assert "Key-value pair: key = " in records[1]["trace"][0]["result"]
    files = write_report(tmp_path)
    groups = json.loads(files.results.read_text())["groups"]
    assert [(g["point"], g["accuracy"], g["searches"]) for g in groups] == [(0, 1.0, 1.0), (2, 1.0, 3.0)]


def test_a_scripted_agent_that_answers_wrong_scores_zero(tmp_path, hash_embedder):
    options = Options(seed=0, n=2, points=(1,))
    cases = task_by_name("nested-kv").cases(options)
    records = evaluation(tmp_path, "nested-kv", kv_script(cases, right=False), hash_embedder, options=options).run()
    assert [r["correct"] for r in records] == [False, False]
    rows = write_report(tmp_path).rows
    assert rows[0]["accuracy"] == 0.0 and rows[0]["n"] == 2


def test_an_agent_that_never_replies_is_wrong_and_its_error_is_recorded(tmp_path, hash_embedder):
    options = Options(seed=0, n=1, points=(0,))
    records = evaluation(tmp_path, "nested-kv", [], hash_embedder, options=options).run()
    assert records[0]["correct"] is False
    assert records[0]["error"].startswith("ScriptExhaustedError")


def test_dmr_agent_searches_recall_and_is_scored_with_rouge(tmp_path, hash_embedder):
    options = Options(seed=4, n=2)
    cases = task_by_name("dmr").cases(options)
    script = []
    for case in cases:
        script += [
            call("conversation_search", heartbeat=True, query=case.question.split(". ", 1)[1]),
            # begun with the day it was said (``recall_at_question``): a day the task generated
            say(f"{AT_FORCED_START} it was {case.answer}!"),
            '{"facts": []}',  # fact notes read the user's question after the reply: it states none
        ]
    records = evaluation(tmp_path, "dmr", script, hash_embedder, options=options).run()
    assert all(r["correct"] for r in records)
    assert all(0 < r["rouge"] < 1 for r in records)  # the gold sentence has more words than the reply
    assert all(r["searches"] == 1 for r in records)
    assert "[" in records[0]["trace"][0]["result"]  # results carry real timestamps


def test_the_search_mode_of_a_variant_reaches_the_store(tmp_path, hash_embedder):
    options = Options(seed=0, n=1, points=(0,))
    case = task_by_name("nested-kv").cases(options)[0]
    variant = get_variant("text-search")
    # a query sharing no word with any pair: text search finds nothing, hybrid would return neighbours
    script = [call("archival_memory_search", heartbeat=True, query="zzzz qqqq"), say(case.answer)]
    records = evaluation(tmp_path, "nested-kv", script, hash_embedder, options=options, variant=variant).run()
    assert records[0]["variant"] == "text-search"
    assert records[0]["overrides"] == {"archival_search_mode": "text", "recall_search_mode": "text"}
    assert records[0]["trace"][0]["result"].startswith("No results")


def test_doc_qa_records_whether_the_gold_passage_was_retrieved(tmp_path, hash_embedder):
    options = Options(seed=0, n=2, points=(100, 120))
    cases = task_by_name("doc-qa").cases(options)
    script = []
    for case in cases:
        landmark = case.payload["gold_passage"].split(".")[0]
        script += [call("archival_memory_search", heartbeat=True, query=landmark), say(case.answer)]
    # the script answers at once: no reply check (it would hold answers naming other entries)
    unchecked = Variant("unchecked", "no reply check", disable=("reply_check",))
    ev = evaluation(tmp_path, "doc-qa", script, hash_embedder, options=options, variant=unchecked)
    records = ev.run()
    assert all(r["correct"] and r["retrieved"] for r in records), [(r["error"], r["answer"]) for r in records]
    built = sorted(p.name for p in (tmp_path / "cache").glob("*.db"))
    assert built == ["doc-qa-v1-s0-n100.db", "doc-qa-v1-s0-n120.db"]
    vectors = json.loads((tmp_path / "cache" / "vectors.json").read_text())["digests"]
    assert len(vectors) == 120  # the 100-passage corpus reused the larger one's embeddings


# ---------------------------------------------------------------- baselines


def test_fit_count_fills_the_window_and_no_more():
    backend = ScriptedBackend([], n_ctx=600)
    ctx = FixedContext(instructions="Answer.", items=tuple(f"item number {i} with some words" for i in range(200)))
    k = baselines.fit_count(backend, ctx, "question?", None, reserve=100)
    assert 0 < k < 200

    def tokens(n):
        return backend.count_tokens(baselines.build_messages(ctx, list(ctx.items[:n]), "question?", None))

    assert tokens(k) + 100 <= 600 < tokens(k + 1) + 100


def test_fixed_context_baseline_truncates_and_reports_the_gold_items(tmp_path, hash_embedder):
    options = Options(seed=0, n=2, points=(0,))
    cases = task_by_name("nested-kv").cases(options)
    script = [f"The value is {c.answer}" for c in cases]
    records = evaluation(
        tmp_path, "nested-kv", script, hash_embedder, options=options, methods=("fixed-context",), n_ctx=2048
    ).run()
    assert all(r["correct"] for r in records)
    assert all(r["variant"] == "-" and r["method"] == "fixed-context" for r in records)
    assert all(0 < r["context"]["kept"] < r["context"]["total"] == 140 for r in records)
    assert all(isinstance(r["retrieved"], bool) for r in records)


def test_summary_only_baseline_summarizes_then_answers(tmp_path, hash_embedder):
    options = Options(seed=1, n=1)
    case = task_by_name("dmr").cases(options)[0]
    script = [f"They talked about many things, including {case.answer}.", f"I think it was {case.answer}."]
    ev = evaluation(tmp_path, "dmr", script, hash_embedder, options=options, methods=("summary-only",))
    record = ev.run()[0]
    assert record["correct"] and record["retrieved"] is True
    assert case.answer in record["summary"]
    assert not list((tmp_path / "work").glob("*.db"))  # the baseline needed no store
    assert "Summary of your past conversations" in ev.backend.requests[-1].messages[0].content


def test_a_task_without_that_baseline_is_refused(tmp_path, hash_embedder):
    from memgpt_local.errors import InvalidInputError

    with pytest.raises(InvalidInputError):
        evaluation(tmp_path, "nested-kv", [], hash_embedder, options=Options(n=1), methods=("summary-only",))


# ---------------------------------------------------------------- resumability


class CrashAfter:
    """A backend that dies (like a killed process) after ``n`` completions."""

    def __init__(self, inner: ScriptedBackend, n: int):
        self.inner, self.left = inner, n
        self.name, self.n_ctx = inner.name, inner.n_ctx

    def count_tokens(self, messages):
        return self.inner.count_tokens(messages)

    def complete(self, messages, **kwargs):
        if self.left == 0:
            raise KeyboardInterrupt
        self.left -= 1
        return self.inner.complete(messages, **kwargs)

    def close(self):
        self.inner.close()


def test_an_interrupted_run_continues_without_redoing_episodes(tmp_path, hash_embedder):
    options = Options(seed=0, n=2, points=(0, 1))
    cases = task_by_name("nested-kv").cases(options)
    script = kv_script(cases)
    crashing = CrashAfter(ScriptedBackend(list(script)), n=5)  # episode 1: 2 steps, episode 2: 3 steps
    with pytest.raises(KeyboardInterrupt):
        evaluation(tmp_path, "nested-kv", None, hash_embedder, options=options, backend=crashing).run()
    log = EpisodeLog(tmp_path / EPISODES_FILE)
    assert len(log.records()) == 2
    with (tmp_path / EPISODES_FILE).open("a") as handle:  # a line cut short by the crash
        handle.write('{"key": "nested-kv|standard|agent|default|scripted|0|0|1", "trunc')
    rest = ScriptedBackend(script[5:])
    resumed = evaluation(tmp_path, "nested-kv", None, hash_embedder, options=options, backend=rest)
    assert len(resumed.pending()) == 2
    new = resumed.run()
    assert [(r["index"], r["point"]) for r in new] == [(1, 0), (1, 1)]
    assert rest.remaining == 0
    records = log.records()
    assert len(records) == 4 and len({r["key"] for r in records}) == 4
    assert all(r["correct"] for r in records)
    again = evaluation(tmp_path, "nested-kv", [], hash_embedder, options=options)
    assert again.pending() == [] and again.run() == []


# ---------------------------------------------------------------- report and CLI


def test_report_writes_json_markdown_and_a_chart(tmp_path, hash_embedder):
    options = Options(seed=0, n=1, points=(0, 1))
    cases = task_by_name("nested-kv").cases(options)
    evaluation(tmp_path, "nested-kv", kv_script(cases), hash_embedder, options=options).run()
    evaluation(
        tmp_path, "nested-kv", [c.answer for c in cases], hash_embedder, options=options, methods=("fixed-context",)
    ).run()
    files = write_report(tmp_path)
    text = files.markdown.read_text()
    assert "| agent: default | 1/1 (100%) | 1/1 (100%) |" in text
    assert "| fixed-context |" in text and "Paper (Figure 7)" in text
    assert [p.name for p in files.charts] == ["chart-nested-kv.png"]
    assert files.charts[0].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_dmr_report_prints_the_paper_numbers(tmp_path, hash_embedder):
    options = Options(seed=0, n=1)
    case = task_by_name("dmr").cases(options)[0]
    evaluation(tmp_path, "dmr", [say(case.answer)], hash_embedder, options=options).run()
    files = write_report(tmp_path)
    assert "92.5%" in files.markdown.read_text()
    assert files.charts[0].name == "chart-dmr.png"


def test_cli_runs_a_scripted_model_and_resumes(tmp_path, cli_runner, monkeypatch, hash_embedder):
    from memgpt_local.cli import common
    from memgpt_local.cli.eval_cmds import eval_group

    monkeypatch.setattr(common.App, "embedder", lambda self: hash_embedder)
    options = Options(seed=3, n=1, points=(0,))
    case = task_by_name("nested-kv").cases(options)[0]
    script = tmp_path / "script.json"
    script.write_text(json.dumps([c.model_dump() for c in kv_script([case])] + [f"It is {case.answer}."]))
    out = tmp_path / "run"
    args = ["nested-kv", "--model", f"scripted:{script}", "--n", "1", "--seed", "3", "--points", "0", "--out", str(out)]
    result = cli_runner.invoke(eval_group, args)
    assert result.exit_code == 0, result.output
    assert "2 new episodes" in result.output
    records = EpisodeLog(out / EPISODES_FILE).records()
    assert sorted((r["method"], r["correct"]) for r in records) == [("agent", True), ("fixed-context", True)]
    again = cli_runner.invoke(eval_group, args)  # everything is done: no model call is made
    assert again.exit_code == 0 and "0 new episodes" in again.output
    runs = json.loads((out / "run.json").read_text())
    assert [r["pending"] for r in runs] == [2, 0] and runs[0]["variant"]["name"] == "default"


def test_cli_rejects_bad_points_and_unknown_variants(cli_runner):
    from memgpt_local.cli.eval_cmds import eval_group
    from memgpt_local.cli.main import cli

    result = cli_runner.invoke(cli, ["eval", "nested-kv", "--model", "scripted:x.json", "--points", "a,b"])
    assert result.exit_code == 1 and "--points" in result.output
    result = cli_runner.invoke(cli, ["eval", "dmr", "--model", "scripted:x.json", "--variant", "nope"])
    assert result.exit_code == 1 and "unknown variant" in result.output
    listing = cli_runner.invoke(eval_group, ["variants"])
    assert "text-search" in listing.output
    for name in ("nested-kv", "dmr", "doc-qa", "report", "variants"):
        assert cli_runner.invoke(eval_group, [name, "--help"]).exit_code == 0


def test_variants_combine_with_plus():
    combined = get_variant("text-search+budget-check")
    assert combined.name == "text-search+budget-check"
    settings = combined.settings(AgentSettings())
    assert settings.archival_search_mode == "text" and settings.search_budget.searches == 3
    assert settings.uses("reply_check") and settings.uses("search_budget") and not settings.uses("recap")
    on_off = get_variant("no-recap+budget-check+prefetch").settings(AgentSettings())
    assert on_off.uses("prefetch") and not on_off.uses("recap")
    with pytest.raises(InvalidInputError, match="unknown variant 'nope'"):
        get_variant("text-search+nope")


def test_chosen_cases_rerun_alone_and_indices_beyond_n_are_refused(tmp_path, hash_embedder):
    options = Options(seed=0, n=3, points=(0, 1))
    cases = [c for c in task_by_name("nested-kv").cases(options) if c.index == 2]
    chosen = EvalConfig(task="nested-kv", model="scripted", out=tmp_path, options=options, cases=(2,))
    run = Evaluation(chosen, backend=ScriptedBackend(kv_script(cases)), embedder=hash_embedder, settings=Settings())
    assert [(c.index, c.point) for _, c in run.pending()] == [(2, 0), (2, 1)]
    assert all(r["correct"] for r in run.run())
    beyond = EvalConfig(task="nested-kv", model="scripted", out=tmp_path, options=options, cases=(1, 3))
    with pytest.raises(InvalidInputError, match=r"\[3\] are outside the 3 cases"):
        Evaluation(beyond, backend=ScriptedBackend([]), embedder=hash_embedder, settings=Settings())


def test_cli_refuses_bad_case_indices(cli_runner):
    from memgpt_local.cli.main import cli

    result = cli_runner.invoke(cli, ["eval", "dmr", "--model", "scripted:x.json", "--cases", "one"])
    assert result.exit_code == 1 and "--cases 'one' is not a comma-separated list" in result.output
