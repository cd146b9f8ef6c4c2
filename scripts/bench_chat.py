"""Benchmark: a scripted 10-turn chat with the real model, per turn, with and without each
speed-up, side by side in one run.

Every configuration starts from a fresh data directory and sends the same user messages
(facts, small talk, questions about what was said, a change of fact). Two ways to run them:

- cold: one new process per turn, as `memgpt-local send` runs (import, model load, the
  saved KV state restored or not, one turn, the state saved);
- warm: one process for all turns, as `memgpt-local chat` runs.

Speed-ups switched per configuration: ``model.persist_kv`` (the KV state kept in a file
between processes), ``agent.stable_core_memory`` (core memory shown as of the last
eviction, so an edit does not invalidate the cache of the conversation after it) and
``model.draft`` (prompt-lookup speculative decoding, verified greedily); the ``reply-thought``
configurations bound the thought of a step that may only reply (``agent.reply_thought_max_chars``:
0, none; 80 characters); ``warm-direct-thought-300`` lets a direct reply (a message that needs no
memory) think as long as any step, as before stop 42 (``agent.direct_thought_max_chars``, 0).

Per turn it prints: seconds to the first visible reply character (cold: counted from the
process start, which is what a `send` user waits), seconds to the end of the turn, steps,
model calls (steps plus the fact-notes pass), prompt / evaluated / generated tokens summed
over the turn's calls, and a summary table per configuration (medians). Timings on a shared
2-core machine are noisy: compare the rows of one run, never numbers across runs.

Usage: python scripts/bench_chat.py [--model qwen2.5-coder-1.5b] [--turns 10] [--n-ctx 8192]
       [--configs cold-before,cold-after,warm-before,warm-after,warm-no-draft] [--out bench-out/chat.json]
       [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

STARTED = time.perf_counter()

MESSAGES = [
    "Hi! I'm Priya. I work as a nurse in Bristol and I have a cat called Pixel.",
    "It's been raining all day here, pretty gloomy.",
    "My sister Anika is visiting next weekend, we're going to the zoo.",
    "Any tips for a rainy Sunday?",
    "I'm allergic to peanuts, by the way.",
    "I just finished a long night shift, so tired.",
    "What's my cat called again?",
    "Actually I moved to Bath last month.",
    "Where do I live now?",
    "Thanks, good night!",
]


@dataclass(frozen=True)
class Config:
    name: str
    cold: bool
    persist_kv: bool
    stable_core: bool
    draft: bool
    reply_thought: int | None = None  # agent.reply_thought_max_chars (None: unset)
    formula_words: int | None = None  # agent.reply_formula_words (None: unset; 0: no formula stop)
    direct_thought: int | None = None  # agent.direct_thought_max_chars (None: unset, the default 0)


CONFIGS = {
    "cold-before": Config("cold-before", True, False, False, False),
    "cold-after": Config("cold-after", True, True, True, True),
    "warm-before": Config("warm-before", False, False, False, False),
    "warm-after": Config("warm-after", False, True, True, True),
    "cold-kv-only": Config("cold-kv-only", True, True, False, False),
    "warm-core-only": Config("warm-core-only", False, False, True, False),
    "warm-no-draft": Config("warm-no-draft", False, True, True, False),
    "warm-reply-thought-0": Config("warm-reply-thought-0", False, True, True, True, 0),
    "warm-reply-thought-80": Config("warm-reply-thought-80", False, True, True, True, 80),
    "warm-no-formula-stop": Config("warm-no-formula-stop", False, True, True, True, formula_words=0),
    # a direct reply's thought as long as any step's (the default before stop 42)
    "warm-direct-thought-300": Config("warm-direct-thought-300", False, True, True, True, direct_thought=300),
}


def write_config(home: Path, config: Config, n_ctx: int, model: str) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(
        f'[model]\ndefault = "{model}"\nn_ctx_cap = {n_ctx}\npersist_kv = {str(config.persist_kv).lower()}\n'
        f'draft = "{"prompt-lookup" if config.draft else "none"}"\n\n'
        f"[agent]\nstable_core_memory = {str(config.stable_core).lower()}\n"
        + (f"reply_thought_max_chars = {config.reply_thought}\n" if config.reply_thought is not None else "")
        + (f"reply_formula_words = {config.formula_words}\n" if config.formula_words is not None else "")
        + (f"direct_thought_max_chars = {config.direct_thought}\n" if config.direct_thought is not None else ""),
        encoding="utf-8",
    )


# ---------------------------------------------------------------- one turn, in this process


class TurnMeter:
    """Counts every model call of a turn and the time of the first visible reply character
    (installed once on a runner; ``start`` begins the next turn)."""

    def __init__(self, runner):
        from memgpt_local.agent.loop import StepObserver
        from memgpt_local.agent.partial import REPLY_FUNCTIONS, PartialFieldReader

        meter = self
        self.start(time.perf_counter())

        class Observer(StepObserver):
            def step_started(self, index: int) -> None:
                self.reader = PartialFieldReader(("message",))

            def text(self, piece: str) -> None:
                values = self.reader.feed(piece)
                if (
                    meter.first is None
                    and values.get("message")
                    and any(f'"{n}"' in self.reader.text for n in REPLY_FUNCTIONS)
                ):
                    meter.first = time.perf_counter() - meter.t0

        runner.observer = Observer()
        backend = runner.backend
        original = backend.complete

        def counted(messages, **kwargs):
            done = original(messages, **kwargs)
            self.calls.append(
                {
                    "prompt": done.prompt_tokens,
                    "evaluated": done.evaluated_tokens,
                    "generated": done.generated_tokens,
                    "drafted": done.draft_tokens,
                    "accepted": done.accepted_draft_tokens,
                    "decode_s": done.decode_seconds,
                }
            )
            return done

        backend.complete = counted

    def start(self, t0: float) -> None:
        self.t0 = t0
        self.first: float | None = None
        self.calls: list[dict] = []

    def row(self, turn, ended: float) -> dict:
        return {
            "first_token_s": round(self.first, 2) if self.first is not None else None,
            "turn_s": round(ended - self.t0, 2),
            "steps": len(turn.steps),
            "calls": len(self.calls),
            "prompt": sum(c["prompt"] for c in self.calls),
            "evaluated": sum(c["evaluated"] for c in self.calls),
            "generated": sum(c["generated"] for c in self.calls),
            "drafted": sum(c["drafted"] for c in self.calls),
            "accepted": sum(c["accepted"] for c in self.calls),
            "decode_s": round(sum(c["decode_s"] for c in self.calls), 2),
            "messages": len(turn.messages),
            "reply": " | ".join(turn.messages)[:100],
        }


def run_turns(home: Path, messages: list[str], t0: float) -> list[dict]:
    from memgpt_local import events
    from memgpt_local.cli.common import App
    from memgpt_local.cli.session import open_runner, save_state

    app = App(home)
    runner = open_runner(app, "bench", None, None, interactive=False)
    meter = TurnMeter(runner)
    rows = []
    for i, text in enumerate(messages):
        meter.start(t0 if i == 0 else time.perf_counter())
        turn = runner.run_turn(events.user_message(text))
        ended = time.perf_counter()
        restored = getattr(runner.backend, "state_stats", {}).get("restored_tokens", 0) if i == 0 else 0
        save_state(runner)  # (replaces the backend's state_stats)
        row = meter.row(turn, ended)
        row["restored_tokens"] = restored
        rows.append(row)
    app.close()
    return rows


# ---------------------------------------------------------------- configurations


def run_config(config: Config, turns: int, n_ctx: int, model: str, data_root: Path) -> list[dict]:
    home = data_root / config.name
    if home.exists():
        shutil.rmtree(home)
    write_config(home, config, n_ctx, model)
    models = Path(os.environ.get("MEMGPT_LOCAL_HOME", "")) / "models"
    if models.is_dir():
        (home / "models").symlink_to(models.resolve())
    messages = MESSAGES[:turns]
    if not config.cold:
        return run_turns(home, messages, time.perf_counter())
    rows = []
    for text in messages:
        started = time.perf_counter()
        done = subprocess.run(
            [sys.executable, __file__, "--one-turn", str(home), text],
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            raise SystemExit(f"{config.name}: the turn process failed:\n{done.stderr[-2000:]}")
        row = json.loads(done.stdout.strip().splitlines()[-1])
        row["process_s"] = round(time.perf_counter() - started, 2)
        rows.append(row)
    return rows


def median(rows: list[dict], key: str) -> float | None:
    values = [r[key] for r in rows if r.get(key) is not None]
    return round(statistics.median(values), 2) if values else None


def print_rows(name: str, rows: list[dict]) -> None:
    print(f"\n## {name}\n")
    columns = ["turn", "first token s", "turn s", "process s", "steps", "calls", "prompt", "evaluated"]
    columns += ["generated", "decode s", "drafted", "accepted", "restored", "reply"]
    print("| " + " | ".join(columns) + " |")
    print("|" + "---|" * len(columns))
    for i, r in enumerate(rows, 1):
        print(
            f"| {i} | {r['first_token_s']} | {r['turn_s']} | {r.get('process_s', '')} | {r['steps']} | {r['calls']} | "
            f"{r['prompt']} | {r['evaluated']} | {r['generated']} | {r['decode_s']} | {r['drafted']} | "
            f"{r['accepted']} | {r.get('restored_tokens', 0)} | "
            f"{r['reply'].replace('|', '/')} |"
        )


def print_summary(results: dict[str, list[dict]]) -> None:
    print("\n## Summary (medians over turns; turns 2+ for evaluated tokens)\n")
    print(
        "| config | first token s | turn s | process s | steps | evaluated (turns 2+) | generated | "
        "generated tok/s | draft accepted | messages/turn |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, rows in results.items():
        later = rows[1:] or rows
        msgs = sum(r["messages"] for r in rows) / len(rows)
        rate = sum(r["generated"] for r in rows) / max(sum(r["decode_s"] for r in rows), 1e-9)
        drafted = sum(r["drafted"] for r in rows)
        share = f"{sum(r['accepted'] for r in rows)}/{drafted}" if drafted else "-"
        print(
            f"| {name} | {median(rows, 'first_token_s')} | {median(rows, 'turn_s')} | {median(rows, 'process_s')} | "
            f"{median(rows, 'steps')} | {median(later, 'evaluated')} | {median(rows, 'generated')} | {rate:.1f} | "
            f"{share} | {msgs:.2f} |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--one-turn", nargs=2, metavar=("HOME", "MESSAGE"), help=argparse.SUPPRESS)
    parser.add_argument("--model", default="qwen2.5-coder-1.5b")
    parser.add_argument("--turns", type=int, default=len(MESSAGES))
    parser.add_argument("--n-ctx", type=int, default=8192)
    parser.add_argument("--configs", default="cold-before,cold-after,warm-before,warm-after,warm-no-draft")
    parser.add_argument("--out", type=Path, default=Path("bench-out/chat.json"))
    parser.add_argument("--keep", type=Path, default=None, help="copy each config's data dir here (for traces)")
    args = parser.parse_args()
    if args.one_turn:
        home, text = args.one_turn
        (row,) = run_turns(Path(home), [text], STARTED)
        print(json.dumps(row))
        return
    names = [n.strip() for n in args.configs.split(",") if n.strip()]
    unknown = [n for n in names if n not in CONFIGS]
    if unknown:
        raise SystemExit(f"unknown configs {unknown}; known: {', '.join(CONFIGS)}")
    results: dict[str, list[dict]] = {}
    with tempfile.TemporaryDirectory(prefix="bench-chat-") as root:
        for name in names:
            print(f"running {name} ...", file=sys.stderr, flush=True)
            results[name] = run_config(CONFIGS[name], args.turns, args.n_ctx, args.model, Path(root))
            print_rows(name, results[name])
            # the memory file holds every step: `memgpt-local export` or `/dump` in a chat reads it
            if args.keep is not None:
                kept = args.keep / name
                shutil.rmtree(kept, ignore_errors=True)
                shutil.copytree(Path(root) / name, kept, symlinks=True, ignore=shutil.ignore_patterns("*.kvstate"))
    print_summary(results)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2), encoding="utf-8")
    print(f"\nraw rows: {args.out}")


if __name__ == "__main__":
    main()
