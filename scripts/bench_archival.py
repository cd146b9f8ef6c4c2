"""Benchmark archival vector search at scale (not a test).

For each size N: a fresh memory file gets N passages with synthetic 384-d vectors (clustered:
N/100 topics, each passage ~0.5 cosine to the others of its topic; queries are perturbed
passages, ~0.9 cosine to their origin). It then times the production vector search
(``ArchivalStore.nearest``: bit[384] vec0 KNN for candidates, exact float rescoring in SQL)
at several oversampling factors beside a numpy brute-force baseline in the same process, and
reports recall@k against the exact answer. Prints a table and writes JSON.

    python scripts/bench_archival.py --sizes 10000,100000 --out bench.json
"""

from __future__ import annotations

import argparse
import json
import platform
import tempfile
import time
from pathlib import Path

import numpy as np

from memgpt_local.memory import open_store

DIM = 384


class SyntheticEmbedder:
    """Names the vector space; vectors are supplied directly, so it never embeds text."""

    name = "synthetic-384"
    dim = DIM

    def embed(self, texts: list[str]) -> np.ndarray:
        raise RuntimeError("the benchmark supplies its own vectors")


def synthetic(n: int, queries: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    topics = max(16, n // 100)
    centers = rng.standard_normal((topics, DIM), dtype=np.float32)
    centers /= np.linalg.norm(centers, axis=1, keepdims=True)
    topic = rng.integers(0, topics, n)
    data = np.empty((n, DIM), dtype=np.float32)
    for start in range(0, n, 100_000):
        part = slice(start, min(n, start + 100_000))
        noise = rng.standard_normal((part.stop - part.start, DIM), dtype=np.float32) / np.sqrt(DIM)
        data[part] = centers[topic[part]] + noise
    data /= np.linalg.norm(data, axis=1, keepdims=True)
    origin = rng.integers(0, n, queries)
    q = data[origin] + 0.5 * rng.standard_normal((queries, DIM), dtype=np.float32) / np.sqrt(DIM)
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    return data, q, topic


def percentiles(samples: list[float]) -> dict[str, float]:
    ms = np.array(samples) * 1000
    return {"p50_ms": float(np.percentile(ms, 50)), "p95_ms": float(np.percentile(ms, 95))}


def bench_size(n: int, args: argparse.Namespace, workdir: Path) -> dict:
    rng = np.random.default_rng(args.seed)
    data, queries, topic = synthetic(n, args.queries, rng)
    store = open_store(workdir / f"bench_{n}.db", SyntheticEmbedder())
    agent = store.agents.create("bench", blocks=[])
    store.agents.create("other", blocks=[])  # a second partition, as in real use
    t0 = time.perf_counter()
    batch = 20_000
    for start in range(0, n, batch):
        stop = min(n, start + batch)
        items = [{"text": f"synthetic passage {i} about topic {topic[i]}"} for i in range(start, stop)]
        store.archival.insert_many(agent.id, items, vectors=data[start:stop])
    insert_s = time.perf_counter() - t0
    first_id = store.db.scalar("SELECT min(id) FROM passages WHERE agent_id = ?", (agent.id,))
    k = args.k

    exact, numpy_times = [], []
    for q in queries:
        t = time.perf_counter()
        scores = data @ q
        top = np.argpartition(-scores, k)[:k]
        top = top[np.argsort(-scores[top])]
        numpy_times.append(time.perf_counter() - t)
        exact.append({int(i) + first_id for i in top})
    result = {
        "n": n,
        "dim": DIM,
        "k": k,
        "queries": len(queries),
        "insert_s": round(insert_s, 1),
        "file_mb": round((workdir / f"bench_{n}.db").stat().st_size / 1e6, 1),
        "numpy_bruteforce": percentiles(numpy_times),
        "production": [],
    }
    for oversample in args.oversample:
        store.archival.nearest(agent.id, queries[0], k, oversample=oversample)  # warm the cache
        times, recalls = [], []
        for q, truth in zip(queries, exact):
            t = time.perf_counter()
            found = store.archival.nearest(agent.id, q, k, oversample=oversample)
            times.append(time.perf_counter() - t)
            recalls.append(len(truth & {i for i, _ in found}) / k)
        result["production"].append(
            {
                "oversample": oversample,
                "candidates": k * oversample,
                **percentiles(times),
                "recall_at_k": float(np.mean(recalls)),
            }
        )
    store.close()
    for suffix in ("", "-wal", "-shm"):
        Path(f"{workdir / f'bench_{n}.db'}{suffix}").unlink(missing_ok=True)
    return result


def print_table(results: list[dict]) -> None:
    print(f"{'N':>9} {'search':<28} {'p50 ms':>8} {'p95 ms':>8} {'recall@k':>9}")
    for r in results:
        nb = r["numpy_bruteforce"]
        print(f"{r['n']:>9} {'numpy brute force (exact)':<28} {nb['p50_ms']:>8.1f} {nb['p95_ms']:>8.1f} {1.0:>9.3f}")
        for p in r["production"]:
            label = f"bit KNN x{p['oversample']} + rescore"
            print(f"{r['n']:>9} {label:<28} {p['p50_ms']:>8.1f} {p['p95_ms']:>8.1f} {p['recall_at_k']:>9.3f}")
        print(f"{'':>9} (insert {r['insert_s']} s, file {r['file_mb']} MB)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000", help="comma-separated N (e.g. 10000,100000,1000000)")
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--oversample", default="4,10,40", help="comma-separated candidate factors")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path("bench_archival.json"))
    parser.add_argument("--workdir", type=Path, default=None, help="where the temp db files go")
    args = parser.parse_args()
    args.oversample = [int(x) for x in args.oversample.split(",")]
    sizes = [int(x) for x in args.sizes.split(",")]
    results = []
    with tempfile.TemporaryDirectory(dir=args.workdir) as tmp:
        for n in sizes:
            results.append(bench_size(n, args, Path(tmp)))
            print_table(results[-1:])
    report = {"machine": platform.platform(), "processor": platform.processor(), "results": results}
    args.out.write_text(json.dumps(report, indent=2))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
