"""Benchmark: per-turn cost of the agent with KV-cache prefix reuse vs re-reading the prompt.

Runs the same scripted 30-turn conversation twice with a real model, each in a fresh
store: once normally (the runtime keeps the KV cache across calls) and once with the cache
reset before every call. Prints, per turn, prompt tokens, tokens actually evaluated,
generated tokens and wall time for both, and a steady-state summary:

- evaluated tokens per step against the tokens that were new since the previous call
  (goal: within 1.2x), and
- turn time with the cache reset against turn time with reuse (goal: >= 5x lower on a
  ~4k-token context).

Usage: python scripts/bench_turn.py [--model qwen2.5-coder-0.5b] [--turns 30] [--n-ctx 4096] [--out bench-out/turn.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from memgpt_local import events
from memgpt_local.agent.loop import AgentRunner
from memgpt_local.cli.session import ensure_agent
from memgpt_local.config import AgentSettings, Settings, resolve_data_dir
from memgpt_local.memory import open_store
from memgpt_local.memory.embed import make_embedder
from memgpt_local.runtime.llama import load_backend
from memgpt_local.runtime.pull import ensure_model

TOPICS = [
    "my sister Mira is moving to Tallinn in March",
    "I started learning the cello last week",
    "our dog Biscuit hates the vacuum cleaner",
    "I work as a hydrologist at the river authority",
    "my favourite food is mushroom risotto",
    "I am planning a hiking trip to the Tatra mountains",
    "my manager is called Ilse and she is very strict",
    "I am allergic to hazelnuts",
    "I collect old maps of the Baltic coast",
    "my bike got a flat tyre on the way home",
]


def user_turn(i: int) -> str:
    topic = TOPICS[i % len(TOPICS)]
    return f"Turn {i + 1}: just so you know, {topic}. Please answer in one short sentence."


class ColdCache:
    """Wraps a backend so every call starts from an empty KV cache."""

    def __init__(self, backend):
        self.backend = backend
        self.name, self.n_ctx = backend.name, backend.n_ctx

    def count_tokens(self, messages):
        return self.backend.count_tokens(messages)

    def complete(self, messages, **kwargs):
        self.backend.reset_cache()
        return self.backend.complete(messages, **kwargs)

    def reset_cache(self):
        self.backend.reset_cache()

    def close(self):
        self.backend.close()


def run(backend, turns: int, agent_settings: AgentSettings, workdir: Path) -> list[dict]:
    store = open_store(workdir / "memory.db", make_embedder(Settings().embedder))
    ensure_agent(store, "bench", Settings(agent=agent_settings))
    runner = AgentRunner(store, backend, "bench", agent_settings)
    rows = []
    previous_end = 0  # prompt + generated tokens of the previous call
    try:
        for i in range(turns):
            start = time.perf_counter()
            turn = runner.run_turn(events.user_message(user_turn(i)))
            wall = time.perf_counter() - start
            steps = turn.steps
            new = 0
            for s in steps:
                c = s.completion
                new += max(1, c.prompt_tokens - previous_end)
                previous_end = c.prompt_tokens + c.generated_tokens
            rows.append(
                {
                    "turn": i + 1,
                    "steps": len(steps),
                    "prompt_tokens": steps[-1].completion.prompt_tokens,
                    "evaluated_tokens": sum(s.completion.evaluated_tokens for s in steps),
                    "new_tokens": new,
                    "generated_tokens": sum(s.completion.generated_tokens for s in steps),
                    "wall_seconds": round(wall, 2),
                    "evicted": sum(s.eviction.evicted for s in steps if s.eviction),
                }
            )
            print(json.dumps(rows[-1]), file=sys.stderr)
    finally:
        store.close()
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="qwen2.5-coder-0.5b")
    parser.add_argument("--turns", type=int, default=30)
    parser.add_argument("--n-ctx", type=int, default=4096)
    parser.add_argument("--steady-from", type=int, default=10, help="first turn counted as steady state")
    parser.add_argument(
        "--heartbeat-cap", type=int, default=10, help="most steps per turn (lower it for rambling small models)"
    )
    parser.add_argument("--out", type=Path, default=Path("bench-out/turn.json"))
    args = parser.parse_args()

    data_dir = resolve_data_dir()
    settings = Settings()
    ensure_model(args.model, data_dir, interactive=False)
    agent_settings = AgentSettings(reply_reserve_tokens=256, message_max_chars=300, heartbeat_cap=args.heartbeat_cap)
    results = {}
    for mode in ("reuse", "reset"):
        backend = load_backend(args.model, settings.model, data_dir, n_ctx=args.n_ctx)
        wrapped = backend if mode == "reuse" else ColdCache(backend)
        with tempfile.TemporaryDirectory() as tmp:
            results[mode] = run(wrapped, args.turns, agent_settings, Path(tmp))
        backend.close()

    print(f"\nmodel {args.model}, n_ctx {args.n_ctx}, {args.turns} turns")
    print(
        f"{'turn':>4} {'prompt':>7} {'eval':>6} {'new':>5} {'gen':>5} {'wall s':>7} | "
        f"{'eval(reset)':>11} {'wall s(reset)':>13}"
    )
    for warm, cold in zip(results["reuse"], results["reset"]):
        print(
            f"{warm['turn']:>4} {warm['prompt_tokens']:>7} {warm['evaluated_tokens']:>6} {warm['new_tokens']:>5} "
            f"{warm['generated_tokens']:>5} {warm['wall_seconds']:>7} | "
            f"{cold['evaluated_tokens']:>11} {cold['wall_seconds']:>13}"
        )
    steady = [(w, c) for w, c in zip(results["reuse"], results["reset"]) if w["turn"] >= args.steady_from]
    summary = {}
    if steady:
        summary = {
            "evaluated_over_new": round(
                sum(w["evaluated_tokens"] for w, _ in steady) / sum(w["new_tokens"] for w, _ in steady), 3
            ),
            "median_turn_seconds_reuse": statistics.median(w["wall_seconds"] for w, _ in steady),
            "median_turn_seconds_reset": statistics.median(c["wall_seconds"] for _, c in steady),
            "median_prompt_tokens": statistics.median(w["prompt_tokens"] for w, _ in steady),
        }
        summary["reset_over_reuse_time"] = round(
            summary["median_turn_seconds_reset"] / max(1e-9, summary["median_turn_seconds_reuse"]), 2
        )
        print(f"\nsteady state (turn >= {args.steady_from}): {json.dumps(summary)}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"model": args.model, "n_ctx": args.n_ctx, "summary": summary, **results}, indent=2))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
