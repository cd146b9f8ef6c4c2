"""Measure the recursive summary on real conversations, old prompt against new (not a test).

The summary heads the queue after an eviction: the model reads it first at every step, and a
login greets from what it says. At stop 38 an eval chat summary was the assistant's first reply
word for word ("Hello Folpreette! I'm glad to know you work as a librarian. ..."), and every
later greeting copied it. This script takes stored conversations (the ``work/chat.db`` of eval
chat runs), the first messages each evicted, and writes their summary twice with the real
model, side by side in one run:

- ``free``: the summary prompt as before stop 38: the model begins as it likes, and the results
  of replies ("Message sent.") are in the transcript;
- ``started``: the product's ``Summarizer``: the grammar writes "The user" first, and replies'
  results are left out.

Per conversation and configuration it prints whether the summary copies a sentence of the
transcript (a chat line continued, not a summary), the share of the user's names (capitalised
words of the user's messages after their first word) it keeps, prompt and generated tokens and
seconds. Timings on a shared 2-core machine are noisy: compare rows of one run.

    python scripts/bench_summary.py --model /path/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf eval-out/*/work/chat.db
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path
from typing import Any

import apsw

from memgpt_local.agent.context import transcript_line
from memgpt_local.agent.summarizer import SUMMARY_MAX_CHARS, SUMMARY_MAX_TOKENS, Summarizer, summary_prompt
from memgpt_local.runtime.grammar import build_text_grammar
from memgpt_local.runtime.llama import LlamaCppBackend
from memgpt_local.schemas import Completion, Message
from memgpt_local.text import sentences, words

FIRST_EVICTION = 20  # messages read from the start of each conversation (about a first eviction's half)


def first_messages(db: Path, n: int) -> list[Message]:
    """The first ``n`` stored messages of the conversation in ``db`` (read-only)."""
    conn = apsw.Connection(f"file:{db}?mode=ro", flags=apsw.SQLITE_OPEN_READONLY | apsw.SQLITE_OPEN_URI)
    rows = conn.execute(
        "select id, role, content, function_name, function_args, created_at from messages order by id limit ?", (n,)
    )
    return [
        Message(
            id=r[0],
            agent_id=1,
            seq=r[0],
            role=r[1],
            content=r[2] or "",
            function_name=r[3],
            function_args=json.loads(r[4]) if r[4] else None,
            created_at=r[5],
        )
        for r in rows
    ]


def user_names(messages: list[Message]) -> set[str]:
    """Capitalised words of the user's messages after each sentence's first word."""
    found: set[str] = set()
    for m in messages:
        if m.role == "user" and not m.content.startswith("["):
            for sentence in sentences(m.content):
                found |= set(re.findall(r"(?<=\s)[A-Z][a-z]{2,}\b", sentence))
    return found


def copies_a_line(summary: str, messages: list[Message]) -> bool:
    """Whether a sentence of ``summary`` (four words or more) is one of the transcript's."""
    said = {tuple(words(s)) for m in messages for s in sentences(transcript_line(m).split(": ", 1)[-1])}
    return any(len(words(s)) >= 4 and tuple(words(s)) in said for s in sentences(summary))


def free_summary(backend: LlamaCppBackend, messages: list[Message]) -> str:
    """The pre-stop-38 summary call: every message's line, no forced start (one chunk)."""
    prompt = summary_prompt("", [transcript_line(m) for m in messages])
    done = backend.complete(prompt, grammar=build_text_grammar(SUMMARY_MAX_CHARS), max_tokens=SUMMARY_MAX_TOKENS)
    return done.text.strip()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", required=True)
    parser.add_argument("--n-ctx", type=int, default=4096)
    parser.add_argument("--messages", type=int, default=FIRST_EVICTION)
    parser.add_argument("dbs", nargs="+", type=Path)
    args = parser.parse_args()
    backend = LlamaCppBackend(args.model, n_ctx=args.n_ctx, n_threads=2, name=Path(args.model).stem)
    calls: list[Completion] = []
    complete = backend.complete

    def recorded(*args: Any, **kwargs: Any) -> Completion:
        done = complete(*args, **kwargs)
        calls.append(done)
        return done

    backend.complete = recorded  # type: ignore[method-assign]
    rows = []
    try:
        for db in args.dbs:
            messages = first_messages(db, args.messages)
            names = user_names(messages)
            for config in ("free", "started"):
                backend.reset_cache()
                calls.clear()
                started = time.perf_counter()
                if config == "free":
                    summary = free_summary(backend, messages)
                else:
                    summary = Summarizer(backend).summarize("", messages)
                seconds = time.perf_counter() - started
                prompt, generated = sum(c.prompt_tokens for c in calls), sum(c.generated_tokens for c in calls)
                kept = sum(name in summary for name in names)
                row = (db.parent.parent.name, config, copies_a_line(summary, messages), kept, len(names), seconds)
                rows.append(row)
                print(
                    f"{row[0]} {config}: copy={row[2]} names {kept}/{len(names)} {prompt} prompt tok, "
                    f"{generated} generated, {seconds:.1f}s\n  {summary!r}",
                    flush=True,
                )
    finally:
        backend.close()
    print("\n| config | summaries | copies a chat line | names kept | s/summary |\n|---|---|---|---|---|")
    for config in ("free", "started"):
        mine = [r for r in rows if r[1] == config]
        copies = sum(r[2] for r in mine)
        kept, total = sum(r[3] for r in mine), sum(r[4] for r in mine)
        seconds = sum(r[5] for r in mine) / max(1, len(mine))
        print(f"| {config} | {len(mine)} | {copies}/{len(mine)} | {kept}/{total} | {seconds:.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
