"""Crash campaign: SIGKILL an agent at random moments and check the memory file after each kill.

A child process runs the agent on one memory file with a scripted model, turn after turn:
each turn stores the user message, an ``archival_memory_insert`` step (with a heartbeat)
and a ``send_message`` step; a small context window makes the queue manager evict and
summarize every few turns. After each turn returns (its commits done), the child appends
the turn number to a side log and fsyncs it. The parent kills the child at a random moment,
then checks:

- ``MemoryStore.integrity_check()`` is "ok" (SQLite, both FTS5 indexes, the vector index);
- every turn in the side log is in the file (its user message and its reply);
- the main context is consistent: no function result without its call (at the head or
  anywhere), ``seq`` strictly increasing, and it renders;

and starts the next child, which resumes the same agent from the file. At the end one
more turn runs in-process to show the agent resumes normally.

    python scripts/crash_campaign.py                 # 200 kills
    python scripts/crash_campaign.py --kills 20 --json
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from memgpt_local import events  # noqa: E402
from memgpt_local.agent.loop import AgentRunner  # noqa: E402
from memgpt_local.cli.session import ensure_agent  # noqa: E402
from memgpt_local.config import AgentSettings, Settings  # noqa: E402
from memgpt_local.memory import open_store  # noqa: E402
from memgpt_local.runtime.scripted import ScriptedBackend  # noqa: E402
from memgpt_local.schemas import FunctionCall  # noqa: E402

AGENT = "crash"
N_CTX = 3200  # small enough that eviction (and the model-written summary) happens often


class HashEmbedder:
    """Bag of hashed words: cheap and deterministic, so a child starts in about a second."""

    name = "hash-campaign"
    dim = 64

    def embed(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in re.findall(r"\w+", text.lower()) or [""]:
                h = int.from_bytes(hashlib.blake2b(word.encode(), digest_size=4).digest(), "big")
                out[row, h % self.dim] += 1.0 if (h >> 16) & 1 else -1.0
            norm = np.linalg.norm(out[row])
            out[row] = out[row] / norm if norm else np.eye(self.dim, dtype=np.float32)[0]
        return out


class CampaignBackend(ScriptedBackend):
    """The scripted backend, with each turn's calls queued before the turn, a summary slotted in
    whenever the queue manager asks for one (a text-grammar request) and an empty fact list
    whenever fact notes read a user's message (a json-grammar request)."""

    def complete(self, messages, *, grammar, max_tokens, on_text=None, avoid=None):
        if grammar is not None and grammar.kind == "text":
            self._script.insert(self._position, f"Summary after {len(self.requests)} requests.")
        if grammar is not None and grammar.kind == "json":
            self._script.insert(self._position, '{"facts": []}')
        return super().complete(messages, grammar=grammar, max_tokens=max_tokens, on_text=on_text, avoid=avoid)


def turn_calls(k: int) -> list[FunctionCall]:
    return [
        FunctionCall(
            thought=f"store fact {k}",
            function="archival_memory_insert",
            arguments={"content": f"fact {k}: the number is {k * 7}"},
            request_heartbeat=True,
        ),
        FunctionCall(
            thought="answer", function="send_message", arguments={"message": f"reply {k}"}, request_heartbeat=False
        ),
    ]


def settings() -> AgentSettings:
    """The defaults, less ``grounded_reply``: the scripted replies ("reply 3") name what no
    memory holds, and a held draft would use up the script."""
    agent = Settings().agent
    return agent.model_copy(update={"policies": [p for p in agent.policies if p != "grounded_reply"]})


def open_runner(db: Path, backend: ScriptedBackend):
    store = open_store(db, HashEmbedder())
    ensure_agent(store, AGENT, Settings())
    return store, AgentRunner(store, backend, AGENT, settings())


def committed_turns(store) -> int:
    """The highest turn whose reply is stored (the child resumes after it)."""
    agent = store.agents.get(AGENT)
    rows = store.db.rows(
        "SELECT function_args FROM messages WHERE agent_id = ? AND role = "
        "'assistant' AND function_name = 'send_message'",
        (agent.id,),
    )
    numbers = [
        int(m.group(1)) for r in rows if (m := re.match(r"reply (\d+)$", json.loads(r["function_args"])["message"]))
    ]
    return max(numbers, default=0)


def child(db: Path, log: Path) -> None:
    """Run turns until killed; log each finished turn (fsync'd)."""
    backend = CampaignBackend([], n_ctx=N_CTX)
    store, runner = open_runner(db, backend)
    k = committed_turns(store)
    print("ready", flush=True)
    with open(log, "a", encoding="utf-8") as side:
        while True:
            k += 1
            backend.enqueue(*turn_calls(k))
            runner.run_turn(events.user_message(f"turn {k}: please remember the number {k * 7}"))
            side.write(f"{k}\n")
            side.flush()
            os.fsync(side.fileno())


# ------------------------------------------------------------------ checks


def context_problems(messages) -> list[str]:
    problems = []
    seqs = [m.seq for m in messages]
    if seqs != sorted(set(seqs)):
        problems.append("in-context seq not strictly increasing")
    for i, m in enumerate(messages):
        if m.role == "function" and (
            i == 0 or messages[i - 1].role != "assistant" or not messages[i - 1].function_name
        ):
            problems.append(f"function result {m.id} without its call" + (" at the head" if i == 0 else ""))
    return problems


@dataclass
class Report:
    kills: int = 0
    turns_logged: int = 0
    turns_stored: int = 0
    kills_mid_turn: int = 0
    integrity_failures: int = 0
    missing_turns: int = 0
    inconsistent_contexts: int = 0
    resume_failures: int = 0
    evictions: int = 0
    seconds: float = 0.0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not (self.integrity_failures or self.missing_turns or self.inconsistent_contexts or self.resume_failures)


def check(db: Path, log: Path, report: Report) -> None:
    logged = [int(x) for x in log.read_text().split()] if log.exists() else []
    with open_store(db, HashEmbedder()) as store:
        if (result := store.integrity_check()) != "ok":
            report.integrity_failures += 1
            report.problems.append(f"kill {report.kills}: integrity: {result}")
        agent = store.agents.get(AGENT)
        texts = {
            r["content"]
            for r in store.db.rows("SELECT content FROM messages WHERE agent_id = ? AND role = 'user'", (agent.id,))
        }
        stored = committed_turns(store)
        missing = [k for k in logged if k > stored or f"turn {k}: please remember the number {k * 7}" not in texts]
        if missing:
            report.missing_turns += len(missing)
            report.problems.append(f"kill {report.kills}: turns {missing[:5]} lost")
        context = store.recall.in_context(agent.id)
        if problems := context_problems(context):
            report.inconsistent_contexts += 1
            report.problems.append(f"kill {report.kills}: {problems[:3]}")
        user_turns = sum(1 for t in texts if t.startswith("turn "))
        report.kills_mid_turn += int(user_turns > stored)
        report.turns_logged, report.turns_stored = len(logged), stored
        report.evictions = int(agent.state.get("evicted_messages", 0))


def resume_in_process(db: Path, report: Report) -> None:
    backend = CampaignBackend([], n_ctx=N_CTX)
    store, runner = open_runner(db, backend)
    try:
        k = committed_turns(store) + 1
        backend.enqueue(*turn_calls(k))
        turn = runner.run_turn(events.user_message(f"turn {k}: please remember the number {k * 7}"))
        runner.render()
        if turn.messages != [f"reply {k}"]:
            report.resume_failures += 1
            report.problems.append(f"final resume replied {turn.messages}")
    finally:
        store.close()


def campaign(kills: int, seed: int, max_delay: float, workdir: Path) -> Report:
    rng = random.Random(seed)
    db, log = workdir / "memory.db", workdir / "turns.log"
    report = Report()
    started = time.monotonic()
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    for _ in range(kills):
        proc = subprocess.Popen(
            [sys.executable, __file__, "--child", str(db), str(log)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        line = proc.stdout.readline() if proc.stdout else ""
        if line.strip() != "ready":
            proc.kill()
            _, err = proc.communicate()
            report.resume_failures += 1
            report.problems.append(f"child did not resume: {err.strip().splitlines()[-1:]}")
            break
        time.sleep(rng.uniform(0, max_delay))
        if proc.poll() is not None:
            report.resume_failures += 1
            report.problems.append(f"child died on its own: {proc.stderr.read()[-300:]}")
            break
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        report.kills += 1
        check(db, log, report)
    if report.resume_failures == 0:
        resume_in_process(db, report)
        check(db, log, report)
    report.seconds = round(time.monotonic() - started, 1)
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-delay", type=float, default=1.5, help="longest wait before a kill, in seconds")
    parser.add_argument("--workdir", type=Path, default=None)
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--child", nargs=2, metavar=("DB", "LOG"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(Path(args.child[0]), Path(args.child[1]))
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        workdir = args.workdir or Path(tmp)
        workdir.mkdir(parents=True, exist_ok=True)
        report = campaign(args.kills, args.seed, args.max_delay, workdir)
    if args.json:
        print(json.dumps({**asdict(report), "ok": report.ok}, indent=2))
    else:
        print(
            f"kills: {report.kills} ({report.kills_mid_turn} in the middle of a turn), "
            f"turns committed: {report.turns_stored} ({report.turns_logged} logged), "
            f"evicted messages: {report.evictions}, time: {report.seconds}s"
        )
        print(
            f"integrity failures: {report.integrity_failures}, lost turns: "
            f"{report.missing_turns}, inconsistent contexts: {report.inconsistent_contexts}, "
            f"resume failures: {report.resume_failures}"
        )
        for problem in report.problems[:20]:
            print(f"  {problem}")
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
