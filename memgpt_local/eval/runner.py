"""Running episodes: one question, a fresh agent in a fresh store, one JSON line of results.

``Evaluation.run()`` works through every (method, case) not yet in ``OUT/episodes.jsonl``:
each finished episode is appended (and fsynced) before the next starts, so a run that is
killed continues where it stopped, and a rerun with the same options redoes nothing. The
key of an episode is task, split, method, variant, model, seed, point and index.

Stores: an episode gets its own database file under ``OUT/work/``. Memory shared by many
cases (a nested-kv set, a doc-qa corpus) is built once into ``OUT/cache/<corpus>.db`` and
copied for each episode; embeddings of corpus texts are cached in ``OUT/cache/vectors.*`` and
reused across corpora (a corpus of 10^4 passages is embedded once per seed).
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

from memgpt_local import events
from memgpt_local.agent.loop import AgentRunner, StepObserver
from memgpt_local.agent.turn import StepRecord
from memgpt_local.config import Settings
from memgpt_local.errors import InvalidInputError, MemGPTLocalError
from memgpt_local.eval import baselines
from memgpt_local.eval.base import Case, HistoryTask, Options, Task, score_answer, split_name
from memgpt_local.eval.scoring import contains_any
from memgpt_local.eval.variants import Variant
from memgpt_local.memory import MemoryStore
from memgpt_local.memory.core import default_blocks
from memgpt_local.memory.embed import Embedder
from memgpt_local.runtime.base import Backend

AGENT_NAME = "eval"
AGENT_METHOD = "agent"
EPISODES_FILE = "episodes.jsonl"
RUN_FILE = "run.json"
TRACE_RESULT_CHARS = 4000  # whole search results (the agent sees at most result_max_chars)

Log = Callable[[str], None]


def code_version() -> dict[str, Any]:
    """The checkout's commit and whether files differ from it (best effort: None outside git)."""
    import subprocess

    root = Path(__file__).resolve().parents[2]
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, timeout=10)
        status = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=10,
        )
    except (OSError, subprocess.SubprocessError):
        return {"commit": None, "dirty": None}
    if commit.returncode != 0:
        return {"commit": None, "dirty": None}
    return {"commit": commit.stdout.strip(), "dirty": bool(status.stdout.strip())}


def task_by_name(name: str) -> Task:
    from memgpt_local.eval.dmr import DMRTask
    from memgpt_local.eval.doc_qa import DocQATask
    from memgpt_local.eval.nested_kv import NestedKVTask

    tasks = {"nested-kv": NestedKVTask, "dmr": DMRTask, "doc-qa": DocQATask}
    if name not in tasks:
        raise InvalidInputError(f"unknown task {name!r}", f"use one of: {', '.join(tasks)}")
    return tasks[name]()


def episode_key(task: str, split: str, method: str, variant: str, model: str, seed: int, point: int, index: int) -> str:
    return "|".join([task, split, method, variant, model, str(seed), str(point), str(index)])


# ---------------------------------------------------------------- results file


class EpisodeLog:
    """``episodes.jsonl``: one complete JSON object per line, appended and fsynced."""

    def __init__(self, path: Path):
        self.path = path

    def records(self) -> list[dict[str, Any]]:
        if not self.path.exists():
            return []
        raw = self.path.read_bytes()
        if raw and not raw.endswith(b"\n"):  # a line cut by a crash: drop it, it will be redone
            raw = raw[: raw.rfind(b"\n") + 1]
            self.path.write_bytes(raw)
        out = []
        for line in raw.decode("utf-8").splitlines():
            if line.strip():
                try:
                    out.append(json.loads(line))
                except json.JSONDecodeError:
                    continue
        return out

    def done_keys(self) -> set[str]:
        return {r["key"] for r in self.records() if "key" in r}

    def append(self, record: dict[str, Any]) -> None:
        """Append one line; a lock keeps lines whole when runs of other tasks share the file."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a", encoding="utf-8") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                handle.write(json.dumps(record, ensure_ascii=False, default=str) + "\n")
                handle.flush()
                os.fsync(handle.fileno())
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)


# ---------------------------------------------------------------- embeddings and stores


class VectorCache:
    """Embeddings of texts by content hash, kept in ``DIR/vectors.npy`` + ``vectors.json``."""

    def __init__(self, directory: Path, embedder: Embedder, log: Log | None = None) -> None:
        self.directory = directory
        self.embedder = embedder
        self.log = log
        self._index: dict[str, int] | None = None
        self._vectors: np.ndarray | None = None

    @staticmethod
    def digest(text: str) -> str:
        return hashlib.sha1(text.encode("utf-8")).hexdigest()

    def _load(self) -> None:
        if self._index is not None:
            return
        names, data = self.directory / "vectors.json", self.directory / "vectors.npy"
        self._index, self._vectors = {}, np.zeros((0, self.embedder.dim), np.float32)
        if names.exists() and data.exists():
            meta = json.loads(names.read_text(encoding="utf-8"))
            vectors = np.load(data)
            if meta.get("embedder") == self.embedder.name and vectors.shape == (
                len(meta["digests"]),
                self.embedder.dim,
            ):
                self._index = {d: i for i, d in enumerate(meta["digests"])}
                self._vectors = vectors

    def _save(self) -> None:
        assert self._index is not None and self._vectors is not None
        self.directory.mkdir(parents=True, exist_ok=True)
        digests = sorted(self._index, key=self._index.__getitem__)
        tmp_npy, tmp_json = self.directory / "vectors.tmp.npy", self.directory / "vectors.json.tmp"
        np.save(tmp_npy, self._vectors)
        tmp_json.write_text(json.dumps({"embedder": self.embedder.name, "digests": digests}), encoding="utf-8")
        os.replace(tmp_npy, self.directory / "vectors.npy")
        os.replace(tmp_json, self.directory / "vectors.json")

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self._load()
        assert self._index is not None and self._vectors is not None
        digests = [self.digest(t) for t in texts]
        missing = list(dict.fromkeys(d for d in digests if d not in self._index))
        if missing:
            by_digest = {d: t for d, t in zip(digests, texts)}
            todo = [by_digest[d] for d in missing]
            parts, batch, started = [], 256, time.perf_counter()
            for start in range(0, len(todo), batch):
                parts.append(self.embedder.embed(todo[start : start + batch]))
                if self.log and len(todo) > batch:
                    done = min(start + batch, len(todo))
                    self.log(f"embedding: {done}/{len(todo)} texts ({time.perf_counter() - started:.0f} s)")
            first = len(self._vectors)
            self._vectors = np.concatenate([self._vectors, *parts])
            for i, d in enumerate(missing):
                self._index[d] = first + i
            self._save()
        return self._vectors[[self._index[d] for d in digests]]


def _remove_db(path: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)


class StoreFactory:
    """A fresh store with the evaluation agent and the case's memory, for one episode."""

    def __init__(self, out: Path, embedder: Embedder, settings: Settings, log: Log | None = None) -> None:
        self.cache = out / "cache"
        self.work = out / "work"
        self.embedder = embedder
        self.settings = settings
        self.vectors = VectorCache(self.cache, embedder, log)
        self.log = log

    def _new_store(self, path: Path, case: Case) -> MemoryStore:
        from memgpt_local.memory import open_store

        _remove_db(path)
        store = open_store(path, self.embedder)
        try:
            store.agents.create(
                AGENT_NAME,
                blocks=default_blocks(self.settings.agent.core_memory_limit, persona=case.persona, human=case.human),
            )
        except BaseException:
            store.close()
            raise
        return store

    def _populate(self, store: MemoryStore, case: Case, task: Task) -> None:
        agent_id = store.agents.get(AGENT_NAME).id
        task.build_memory(store, agent_id, case, self.vectors.embed)

    def corpus_path(self, case: Case, task: Task) -> Path:
        """The built file of ``case.corpus`` (built now when missing)."""
        assert case.corpus is not None
        path = self.cache / f"{case.corpus}.db"
        if path.exists():
            return path
        self.cache.mkdir(parents=True, exist_ok=True)
        if self.log:
            self.log(f"building the shared memory {case.corpus}")
        partial = self.cache / f"{case.corpus}.building.db"
        store = self._new_store(partial, case)
        try:
            self._populate(store, case, task)
        finally:
            store.close()
        for suffix in ("-wal", "-shm"):
            Path(f"{partial}{suffix}").unlink(missing_ok=True)
        os.replace(partial, path)
        return path

    def open(self, case: Case, task: Task) -> MemoryStore:
        """An open store for one episode at ``work/episode.db``."""
        from memgpt_local.memory import open_store

        self.work.mkdir(parents=True, exist_ok=True)
        path = self.work / f"episode-{os.getpid()}.db"  # runs of other tasks may share OUT
        _remove_db(path)
        if case.corpus is not None:
            shutil.copyfile(self.corpus_path(case, task), path)
            return open_store(path, self.embedder)
        store = self._new_store(path, case)
        try:
            self._populate(store, case, task)
        except BaseException:
            store.close()
            raise
        return store

    def discard(self, store: MemoryStore, keep_as: str | None = None) -> None:
        path = Path(store.path)
        store.close()
        if keep_as:
            kept = self.work / f"{keep_as}.db"
            _remove_db(kept)
            os.replace(path, kept)
        _remove_db(path)


# ---------------------------------------------------------------- episodes


class _Recorder(StepObserver):
    def __init__(self) -> None:
        self.steps: list[StepRecord] = []

    def step_finished(self, record: StepRecord) -> None:
        self.steps.append(record)


def found_gold(case: Case, results: Sequence[str]) -> bool:
    """Whether a search result showed the gold: its passage (by marker) or else the answer."""
    if case.gold_marker:
        return any(case.gold_marker in text for text in results)
    return any(contains_any(text, case.answers) for text in results)


def _trace(steps: Iterable[StepRecord]) -> list[dict[str, Any]]:
    out = []
    for s in steps:
        out.append(
            {
                "function": s.call.function if s.call else None,
                "thought": s.call.thought if s.call else None,
                "arguments": s.call.arguments if s.call else None,
                "heartbeat": s.call.request_heartbeat if s.call else None,
                "ok": s.outcome.ok,
                "held": s.hold.reason if s.hold else None,
                "result": s.outcome.text[:TRACE_RESULT_CHARS],
                "raw": None if s.call else s.raw[:TRACE_RESULT_CHARS],
            }
        )
    return out


@dataclass
class EvalConfig:
    task: str
    model: str
    out: Path
    options: Options = field(default_factory=Options)
    variant: Variant | None = None
    methods: tuple[str, ...] = (AGENT_METHOD,)
    keep_stores: bool = False
    cases: tuple[int, ...] | None = None  # case indices to run (None: all ``options.n``), to re-run chosen episodes
    wordings: tuple[int, ...] | None = None  # None: ``options.wording`` alone; (0, 1): both, side by side


class Evaluation:
    """Runs the pending episodes of one task with one model; see the module docstring."""

    def __init__(
        self,
        config: EvalConfig,
        *,
        backend: Backend,
        embedder: Embedder,
        settings: Settings,
        log: Log | None = None,
        progress: bool = False,
    ) -> None:
        from memgpt_local.eval.variants import get_variant

        self.config = config
        self.task = task_by_name(config.task)
        self.backend = backend
        self.settings = settings
        self.variant = config.variant or get_variant("default")
        self.agent_settings = self.variant.settings(settings.agent)
        self.log = log
        self.progress = progress
        self.results = EpisodeLog(config.out / EPISODES_FILE)
        self.stores = StoreFactory(config.out, embedder, settings, log)
        beyond = [i for i in config.cases or () if not 0 <= i < config.options.n]
        if beyond:
            raise InvalidInputError(
                f"case indices {beyond} are outside the {config.options.n} cases per point",
                f"use indices from 0 to {config.options.n - 1}, or a larger --n",
            )
        unknown = [m for m in config.methods if m != AGENT_METHOD and m not in self.task.baselines]
        if unknown:
            raise InvalidInputError(
                f"{config.task} has no baseline {', '.join(unknown)}",
                f"its baselines: {', '.join(self.task.baselines)}",
            )

    def variant_name(self, method: str) -> str:
        return self.variant.name if method == AGENT_METHOD else "-"

    def key(self, method: str, case: Case) -> str:
        return episode_key(
            case.task,
            case.split,
            method,
            self.variant_name(method),
            self.config.model,
            case.seed,
            case.point,
            case.index,
        )

    def pending(self) -> list[tuple[str, Case]]:
        """(method, case) not yet done: method by method (so a model's cache serves a method's
        shared prompt prefix), cases index by index with every point at each index; with two
        wordings, each index in one wording then the other (both meet the same machine load)."""
        done = self.results.done_keys()
        options = self.config.options
        per_wording = [self.task.cases(replace(options, wording=w)) for w in self.wordings]
        by_index = sorted(
            (c for cases in per_wording for c in cases), key=lambda c: c.index
        )  # stable: wording, then point, within an index
        cases = [c for c in by_index if self.config.cases is None or c.index in self.config.cases]
        return [(m, c) for m in self.config.methods for c in cases if self.key(m, c) not in done]

    @property
    def wordings(self) -> tuple[int, ...]:
        return self.config.wordings or (self.config.options.wording,)

    def _write_run_info(self, pending: int) -> None:
        path = self.config.out / RUN_FILE
        with (self.config.out / f"{RUN_FILE}.lock").open("w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            history = json.loads(path.read_text(encoding="utf-8")) if path.exists() else []
            history.append(self._run_info(pending))
            tmp = path.with_suffix(".tmp")
            tmp.write_text(json.dumps(history, indent=2, default=str), encoding="utf-8")
            os.replace(tmp, path)

    def _run_info(self, pending: int) -> dict[str, Any]:
        return {
            "started": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "task": self.config.task,
            "model": self.config.model,
            "n_ctx": self.backend.n_ctx,
            "options": {
                "seed": self.config.options.seed,
                "n": self.config.options.n,
                "splits": [split_name(self.config.options.long, w) for w in self.wordings],
                "points": self.config.options.points,
            },
            "methods": list(self.config.methods),
            "variant": self.variant.describe(),
            "agent_settings": self.agent_settings.model_dump(),
            "pending": pending,
            "argv": sys.argv,
            "code": code_version(),
        }

    def run(self) -> list[dict[str, Any]]:
        """Run every pending episode; returns the new records."""
        from tqdm import tqdm

        self.config.out.mkdir(parents=True, exist_ok=True)
        todo = self.pending()
        self._write_run_info(len(todo))
        new: list[dict[str, Any]] = []
        bar = tqdm(
            total=len(todo),
            desc=self.config.task,
            unit="episode",
            disable=not self.progress,
            file=sys.stderr,
            dynamic_ncols=True,
        )
        try:
            for method, case in todo:
                bar.set_postfix_str(f"{method} {self.task.point_name}={case.point} #{case.index}")
                record = self.run_episode(method, case)
                self.results.append(record)
                new.append(record)
                bar.update(1)
                correct = sum(r["correct"] for r in new)
                bar.set_postfix_str(f"{correct}/{len(new)} correct")
                if self.log and not self.progress:
                    self.log(
                        f"[{len(new)}/{len(todo)}] {method} {self.task.point_name}={case.point} "
                        f"#{case.index}: {'correct' if record['correct'] else 'wrong'} "
                        f"({record['steps']} steps, {record['searches']} searches, {record['seconds']:.0f} s)"
                        + (f" error: {record['error']}" if record["error"] else "")
                    )
        finally:
            bar.close()
        return new

    def _base_record(self, method: str, case: Case) -> dict[str, Any]:
        return {
            "key": self.key(method, case),
            "task": case.task,
            "split": case.split,
            "method": method,
            "variant": self.variant_name(method),
            "overrides": self.variant.overrides() if method == AGENT_METHOD else {},
            "model": self.config.model,
            "n_ctx": self.backend.n_ctx,
            "seed": case.seed,
            "point": case.point,
            "point_name": self.task.point_name,
            "index": case.index,
            "question": case.question,
            "gold": case.answer,
            "answers": list(case.answers),
            "finished": None,
            "error": None,
        }

    def run_episode(self, method: str, case: Case) -> dict[str, Any]:
        record = self._base_record(method, case)
        started = time.perf_counter()
        needs_store = method == AGENT_METHOD or self.task.baseline_store
        store = self.stores.open(case, self.task) if needs_store else None
        record["setup_seconds"] = round(time.perf_counter() - started, 2)
        try:
            if method == AGENT_METHOD:
                assert store is not None  # the agent method always needs one
                self._agent_episode(store, case, record)
            else:
                self._baseline_episode(method, store, case, record)
        finally:
            if store is not None:
                keep = record["key"].replace("|", "_").replace("/", "-") if self.config.keep_stores else None
                self.stores.discard(store, keep)
        score = score_answer(case, record["answer"])
        record.update(
            correct=score.correct,
            rouge=round(score.rouge, 4),
            finished=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        )
        return record

    def _agent_episode(self, store: MemoryStore, case: Case, record: dict[str, Any]) -> None:
        agent = store.agents.get(AGENT_NAME)
        if self.variant.system_prompt is not None:
            store.agents.set_system_prompt(agent.id, self.variant.system_prompt)
        factory = self.variant.runner_factory or AgentRunner
        recorder = _Recorder()
        runner = factory(store, self.backend, AGENT_NAME, self.agent_settings, observer=recorder)
        started = time.perf_counter()
        try:
            runner.run_turn(events.user_message(case.question, when=case.asked_at))
        except MemGPTLocalError as exc:
            record["error"] = f"{type(exc).__name__}: {exc}"
        record["seconds"] = round(time.perf_counter() - started, 2)
        steps = recorder.steps
        record["answer"] = "\n".join(s.outcome.user_message for s in steps if s.outcome.user_message)
        record["steps"] = len(steps)
        record["searches"] = sum(1 for s in steps if s.outcome.searched)
        # memory the agent read: search results, and the entries a reply check showed it
        record["retrieved"] = found_gold(case, [s.outcome.text for s in steps if s.outcome.searched or s.held])
        record["holds"] = [s.hold.reason for s in steps if s.hold is not None]
        record["tokens"] = {
            "prompt": sum(s.completion.prompt_tokens for s in steps),
            "evaluated": sum(s.completion.evaluated_tokens for s in steps),
            "generated": sum(s.completion.generated_tokens for s in steps),
        }
        record["trace"] = _trace(steps)

    def _baseline_episode(self, method: str, store: MemoryStore | None, case: Case, record: dict[str, Any]) -> None:
        agent_id = store.agents.get(AGENT_NAME).id if store is not None else None
        started = time.perf_counter()
        record.update(answer="", steps=1, searches=0, retrieved=None, trace=[])
        try:
            ctx = self.task.fixed_context(case, store, agent_id)
            if method == "summary-only":
                if not isinstance(self.task, HistoryTask):
                    raise TypeError(f"the {self.task.name} task has no past conversation to summarize")
                summary = baselines.summarize_history(self.backend, self.task.past_messages(case))
                record["summary"] = summary
                record["retrieved"] = contains_any(summary, case.answers)
                record["setup_seconds"] = round(record["setup_seconds"] + time.perf_counter() - started, 2)
                ctx = baselines.summary_context(ctx, summary)
            started = time.perf_counter()
            answer = baselines.answer_fixed(self.backend, ctx, case)
        except MemGPTLocalError as exc:
            record["error"] = f"{type(exc).__name__}: {exc}"
            record["seconds"] = round(time.perf_counter() - started, 2)
            return
        record["seconds"] = round(time.perf_counter() - started, 2)
        record.update(
            answer=answer.text,
            context={"kept": answer.kept, "total": answer.total},
            tokens={
                "prompt": answer.completion.prompt_tokens,
                "evaluated": answer.completion.evaluated_tokens,
                "generated": answer.completion.generated_tokens,
            },
        )
        if method == "fixed-context":
            record["retrieved"] = answer.gold_kept
