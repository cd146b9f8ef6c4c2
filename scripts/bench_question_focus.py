"""Measure what question focus does to search ranking, without a language model (not a test).

Question focus (``agent.question_focus``) ranks a turn's search hits by the user's question as
well as by the model's query. This script builds the evaluation's memories (dmr past sessions,
the doc-qa encyclopedia, nested-kv pairs) in fresh memory files with the real embedder, runs
the searches a small model typically issues, and counts how often the entry that answers comes
first, with and without the focus, side by side in one process:

- dmr: the query is the question's capitalised names ("Zuxhao Hall"), as qwen2.5-coder-1.5b
  searched; success = the first *user* message among the hits is the one stating the answer
  (the distractor is another user message naming the same place).
- doc-qa: the query is the landmark's name plus a word for what is asked ("... founding year");
  success = the landmark's own passage is the first hit (passages named after it compete).
- nested-kv: the chain of lookups, each hop's key as the query, the hits of earlier hops
  marked as read (as the agent's executor does); success = the pair with that key comes first.

    python scripts/bench_question_focus.py --seeds 0,1 --n 20 --out focus.json
"""

from __future__ import annotations

import argparse
import json
import re
import tempfile
import warnings
from pathlib import Path

from memgpt_local.config import EmbedderSettings
from memgpt_local.eval.base import Options
from memgpt_local.eval.dmr import DMRTask
from memgpt_local.eval.doc_qa import DocQATask
from memgpt_local.eval.nested_kv import NestedKVTask, pair_text
from memgpt_local.memory import open_store
from memgpt_local.memory.embed import make_embedder

QUESTION_WORDS = {"Which", "What", "Who", "Where", "When", "How", "Whose", "Hi"}
KIND_WORDS = {"year": "founding year", "founder": "founder", "region": "region"}


def fresh_store(embedder):
    return open_store(Path(tempfile.mkdtemp(prefix="focus-bench-")) / "memory.db", embedder)


def names_in(question: str) -> str:
    asked = question.split("quick question. ", 1)[-1]
    words = [w for w in re.findall(r"[A-Z]\w+", asked) if w not in QUESTION_WORDS]
    return " ".join(words) or asked


def bench_dmr(embedder, seed: int, n: int) -> dict[bool, int]:
    task, wins = DMRTask(), {False: 0, True: 0}
    for case in task.cases(Options(seed=seed, n=n)):
        store = fresh_store(embedder)
        agent = store.agents.create("bench").id
        task.build_memory(store, agent, case, embedder.embed)
        fact_line = task._dialogue_of(case).episode.fact[0]
        for focused in (False, True):
            page = store.recall.search(agent, names_in(case.question), focus=case.question if focused else None)
            first_user = next((h.text for h in page.items if h.role == "user"), "")
            wins[focused] += first_user == fact_line
        store.close()
    return wins


def bench_doc_qa(embedder, seed: int, n: int, size: int) -> dict[bool, int]:
    task, wins = DocQATask(), {False: 0, True: 0}
    cases = task.cases(Options(seed=seed, n=n, points=(size,)))
    store = fresh_store(embedder)
    agent = store.agents.create("bench").id
    task.build_memory(store, agent, cases[0], embedder.embed)
    book = task.encyclopedia(seed)
    for case in cases:
        cluster = book.cluster(case.payload["cluster"])
        query = f"{cluster.landmark} {KIND_WORDS[case.payload['kind']]}"
        question = case.question.split(" (")[0]
        for focused in (False, True):
            page = store.archival.search(agent, query, focus=question if focused else None)
            wins[focused] += bool(page.items) and page.items[0].text == case.payload["gold_passage"]
    store.close()
    return wins


def bench_nested_kv(embedder, seed: int, n: int, level: int) -> tuple[dict[bool, int], int]:
    task, wins, hops_total = NestedKVTask(), {False: 0, True: 0}, 0
    stores: dict[str, tuple] = {}
    for case in task.cases(Options(seed=seed, n=n, points=(level,))):
        if case.corpus not in stores:
            store = fresh_store(embedder)
            agent = store.agents.create("bench").id
            task.build_memory(store, agent, case, embedder.embed)
            stores[case.corpus] = (store, agent)
        store, agent = stores[case.corpus]
        mapping = task._set_of(case).mapping
        keys = [case.payload["start_key"], *case.payload["hops"][:-1]]
        hops_total += len(keys)
        for focused in (False, True):
            read: list[int] = []
            for key in keys:
                page = store.archival.search(agent, key, focus=case.question if focused else None, focus_skips=read)
                read += [h.id for h in page.items]
                wins[focused] += bool(page.items) and page.items[0].text == pair_text(key, mapping[key])
    for store, _ in stores.values():
        store.close()
    return wins, hops_total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", default="0", help="comma-separated evaluation seeds")
    parser.add_argument("--n", type=int, default=20, help="questions per task and seed")
    parser.add_argument("--doc-size", type=int, default=1000, help="doc-qa corpus size (passages)")
    parser.add_argument("--kv-level", type=int, default=4, help="nested-kv nesting level (hops - 1)")
    parser.add_argument("--out", type=Path, help="write the table as JSON here")
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    embedder = make_embedder(EmbedderSettings())
    rows = []
    for seed in (int(s) for s in args.seeds.split(",")):
        dmr = bench_dmr(embedder, seed, args.n)
        rows.append({"task": "dmr", "seed": seed, "searches": args.n, "plain": dmr[False], "focus": dmr[True]})
        doc = bench_doc_qa(embedder, seed, args.n, args.doc_size)
        rows.append(
            {
                "task": f"doc-qa ({args.doc_size})",
                "seed": seed,
                "searches": args.n,
                "plain": doc[False],
                "focus": doc[True],
            }
        )
        kv, hops = bench_nested_kv(embedder, seed, max(1, args.n // 4), args.kv_level)
        rows.append(
            {
                "task": f"nested-kv (level {args.kv_level}, every hop)",
                "seed": seed,
                "searches": hops,
                "plain": kv[False],
                "focus": kv[True],
            }
        )
    print("| task | seed | searches | answer first, plain | answer first, question focus |")
    print("|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['task']} | {r['seed']} | {r['searches']} | {r['plain']} | {r['focus']} |")
    if args.out:
        args.out.write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
