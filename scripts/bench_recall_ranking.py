"""How often recall search ranks the message that answers a question in its top 5 (not a test).

The memory is a long natural chat between two friends (``memgpt_local.eval.conversations``:
15-30 sessions over months, mostly small talk, names everywhere, facts said once in passing);
the searches are the questions about those facts, in either wording. For each question this
runs ``store.recall.search(agent, query, page_size=5, mode=M)`` and counts a hit when an
evidence message is among the five results:

- text, vector, hybrid: the question itself as the query;
- model: hybrid with a model's terse query (see below) and no focus;
- focus: hybrid with the model's query as the query and the question as ``focus`` (what the
  agent does with the question_focus policy on).

A small model's query is emulated two ways (``--model-query``): ``rare`` keeps the question's
2-4 content words that are rarest in the conversation (names, the thing asked about), ``stop``
keeps every content word (the question without stop words and question words).

Each cell is the top-5 hit rate with n and a 95% Wilson interval. Tune on seed 0 only; seeds
1 and 2 are held out.

    python scripts/bench_recall_ranking.py --seeds 0,1,2 --wordings 0,1 --conversations 4
    python scripts/bench_recall_ranking.py --seeds 0 --tuning rrf_k=20 --keep /tmp/recall-dbs
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import math
import re
import tempfile
import time
import warnings
from collections import Counter, defaultdict
from pathlib import Path

from memgpt_local.config import EmbedderSettings
from memgpt_local.eval.conversations import Conversation, Question, make_conversation
from memgpt_local.memory import MemoryStore, SearchTuning, open_store
from memgpt_local.memory.embed import make_embedder
from memgpt_local.text import STOPWORDS

MODES = ("text", "vector", "hybrid", "model", "focus")
QUESTION_WORDS = frozenset(
    "how whose whom remind tell say said again does doing did what which when where who why day date".split()
)
_TOKEN = re.compile(r"\w+(?:['’]\w+)*")


def wilson(hits: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion ``hits / n``."""
    if n == 0:
        return 0.0, 1.0
    p = hits / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def cell(hits: int, n: int) -> str:
    lo, hi = wilson(hits, n)
    return f"{100 * hits / n:.0f}% ({100 * lo:.0f}-{100 * hi:.0f})" if n else "-"


def content_terms(question: str) -> list[str]:
    """The question's words without stop words, question words and possessive 's."""
    terms = []
    for token in _TOKEN.findall(question):
        word = re.sub(r"['’]s$", "", token)
        if word.lower() not in STOPWORDS and word.lower() not in QUESTION_WORDS and len(word) > 1:
            terms.append(word)
    return terms


def model_query(question: str, how: str, df: Counter[str]) -> str:
    """A terse query a small model might write for ``question`` (see the module docstring)."""
    terms = content_terms(question) or [question]
    if how == "stop":
        return " ".join(terms)
    keep = min(4, max(2, len(terms) // 2))
    rarest = sorted(range(len(terms)), key=lambda i: (df[terms[i].lower()], i))[:keep]
    return " ".join(terms[i] for i in sorted(rarest))


def document_frequency(conversation: Conversation) -> Counter[str]:
    df: Counter[str] = Counter()
    for turn in conversation.turns:
        df.update({w.lower() for w in re.findall(r"\w+", turn.text)})
    return df


def build(embedder, conversation: Conversation, keep: Path | None, tuning: SearchTuning):
    """A store holding the conversation (reused from ``keep`` when built before), its agent
    and the message id of each turn."""
    digest = hashlib.sha256("\n".join(f"{t.role}|{t.at}|{t.text}" for t in conversation.turns).encode()).hexdigest()
    folder = keep or Path(tempfile.mkdtemp(prefix="recall-ranking-"))
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"conversation-{conversation.seed}-{conversation.index}-{digest[:12]}.db"
    fresh = not path.exists()
    store = open_store(path, embedder, tuning=tuning)
    if fresh:
        agent = store.agents.create("bench").id
        store.recall.append(agent, conversation.messages())
    agent = store.agents.get("bench").id
    ids = [m.id for m in store.recall.all(agent)]
    assert len(ids) == len(conversation.turns)
    return store, agent, ids


def hits_of(
    store: MemoryStore, agent: int, question: Question, wording: int, ids: list[int], query_how: str, df: Counter[str]
) -> dict[str, bool]:
    asked = question.text(wording)
    terse = model_query(asked, query_how, df)
    gold = {ids[i] for i in question.evidence}
    runs = {
        "text": dict(query=asked, mode="text"),
        "vector": dict(query=asked, mode="vector"),
        "hybrid": dict(query=asked, mode="hybrid"),
        "model": dict(query=terse, mode="hybrid"),
        "focus": dict(query=terse, mode="hybrid", focus=asked),
    }
    out = {}
    for mode, kwargs in runs.items():
        page = store.recall.search(agent, page_size=5, **kwargs)  # type: ignore[arg-type]
        out[mode] = any(h.id in gold for h in page.items)
    return out


def parse_tuning(pairs: list[str]) -> SearchTuning:
    fields = {f.name: f.type for f in dataclasses.fields(SearchTuning)}
    values = {}
    for pair in pairs:
        key, _, value = pair.partition("=")
        if key not in fields:
            raise SystemExit(f"unknown tuning {key!r}: use one of {', '.join(fields)}")
        values[key] = type(getattr(SearchTuning(), key))(value)
    return SearchTuning(**values)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", default="0,1,2", help="comma-separated seeds (tune on 0 only)")
    parser.add_argument("--wordings", default="0,1", help="question wordings: 0 close, 1 paraphrased")
    parser.add_argument("--conversations", type=int, default=4, help="conversations per seed")
    parser.add_argument("--model-query", choices=("rare", "stop"), default="rare", help="how a model's query is made")
    parser.add_argument("--tuning", action="append", default=[], help="SearchTuning override, e.g. rrf_k=20")
    parser.add_argument("--keep", type=Path, help="keep (and reuse) the built memory files here")
    parser.add_argument("--by-kind", action="store_true", help="also split fact and 'when' questions")
    parser.add_argument("--out", type=Path, help="write the counts as JSON here")
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    tuning = parse_tuning(args.tuning)
    embedder = make_embedder(EmbedderSettings())
    seeds = [int(s) for s in args.seeds.split(",")]
    wordings = [int(w) for w in args.wordings.split(",")]
    counts: dict[tuple, list[int]] = defaultdict(lambda: [0] * (len(MODES) + 1))  # n, then hits per mode
    started = time.monotonic()
    for seed in seeds:
        for index in range(args.conversations):
            conversation = make_conversation(seed, index)
            df = document_frequency(conversation)
            store, agent, ids = build(embedder, conversation, args.keep, tuning)
            for question in conversation.questions:
                for wording in wordings:
                    found = hits_of(store, agent, question, wording, ids, args.model_query, df)
                    keys = [(seed, wording, "all")] + ([(seed, wording, question.kind)] if args.by_kind else [])
                    for key in keys:
                        row = counts[key]
                        row[0] += 1
                        for i, mode in enumerate(MODES, start=1):
                            row[i] += found[mode]
            store.close()
    held_out = [s for s in seeds if s != 0]
    if len(held_out) > 1:
        for (seed, wording, kind), row in list(counts.items()):
            if seed in held_out:
                pooled = counts[("held-out", wording, kind)]
                for i, value in enumerate(row):
                    pooled[i] += value
    print(f"top-5 hit rate, 95% Wilson CI; model query: {args.model_query}; tuning: {tuning}")
    print()
    print("| seed | wording | questions | n | " + " | ".join(MODES) + " |")
    print("|---|---|---|---|" + "---|" * len(MODES))
    for (seed, wording, kind), row in sorted(counts.items(), key=lambda kv: (str(kv[0][0]), kv[0][1], kv[0][2])):
        cells = " | ".join(cell(h, row[0]) for h in row[1:])
        print(f"| {seed} | {wording} | {kind} | {row[0]} | {cells} |")
    print(f"\n({time.monotonic() - started:.0f} s)")
    if args.out:
        rows = [
            {"seed": s, "wording": w, "questions": k, "n": r[0], **dict(zip(MODES, r[1:]))}
            for (s, w, k), r in counts.items()
        ]
        args.out.write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
