"""A short real run of every task with smollm2-135m: the harness end to end with a real model.

It checks plumbing and scoring (every episode recorded, consistent scores, a report), not
accuracy: a 135M model's answers are mostly nonsense.
"""

from __future__ import annotations

import json

import pytest

from memgpt_local.config import Settings
from memgpt_local.eval.base import Options
from memgpt_local.eval.report import write_report
from memgpt_local.eval.runner import EPISODES_FILE, EpisodeLog, EvalConfig, Evaluation
from memgpt_local.eval.scoring import contains_any

pytestmark = pytest.mark.real_model

# short steps keep a 135M model that rambles within seconds per episode
QUICK = {"heartbeat_cap": 2, "message_max_chars": 200, "thought_max_chars": 120, "reply_reserve_tokens": 256}


@pytest.fixture(scope="module")
def smol_backend(smollm_path):
    from memgpt_local.runtime.llama import LlamaCppBackend

    backend = LlamaCppBackend(smollm_path, n_ctx=3072, n_threads=1, name="smollm2-135m")
    yield backend
    backend.close()


def run(tmp_path, task, backend, embedder, options, methods):
    from memgpt_local.eval.variants import Variant

    config = EvalConfig(
        task=task,
        model="smollm2-135m",
        out=tmp_path,
        options=options,
        methods=methods,
        variant=Variant("quick", "short steps for the test", agent=QUICK),
    )
    return Evaluation(config, backend=backend, embedder=embedder, settings=Settings()).run()


def check(records, expected):
    assert len(records) == expected
    for r in records:
        assert r["error"] is None, r["error"]
        assert r["correct"] == contains_any(r["answer"], r["answers"])
        assert 0.0 <= r["rouge"] <= 1.0
        assert r["seconds"] >= 0 and r["steps"] >= 1


def test_every_task_runs_with_a_real_model(tmp_path, smol_backend, embedder):
    check(run(tmp_path, "nested-kv", smol_backend, embedder, Options(n=1, points=(0,)), ("agent", "fixed-context")), 2)
    check(run(tmp_path, "dmr", smol_backend, embedder, Options(n=1), ("agent", "summary-only")), 2)
    check(run(tmp_path, "doc-qa", smol_backend, embedder, Options(n=1, points=(100,)), ("agent",)), 1)
    records = EpisodeLog(tmp_path / EPISODES_FILE).records()
    agent = [r for r in records if r["method"] == "agent"]
    assert all(r["tokens"]["generated"] > 0 and r["trace"] for r in agent)
    baseline = next(r for r in records if r["method"] == "fixed-context")
    assert 0 < baseline["context"]["kept"] <= baseline["context"]["total"] == 140
    summary = next(r for r in records if r["method"] == "summary-only")
    assert summary["summary"].strip()
    files = write_report(tmp_path)
    groups = json.loads(files.results.read_text())["groups"]
    assert {g["task"] for g in groups} == {"nested-kv", "dmr", "doc-qa"}
    assert len(files.charts) == 3
