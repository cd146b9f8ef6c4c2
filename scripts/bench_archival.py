"""Benchmark archival vector search at scale (not a test).

For each size N: a fresh memory file gets N passages with synthetic 384-d vectors (clustered:
N/100 topics by default, ``--topic-size``; each passage ~0.5 cosine to the others of its
topic; queries are perturbed passages, ~0.9 cosine to their origin). It then times the production vector search
(``archival.nearest``) at several oversampling factors beside a numpy brute-force baseline in
the same process, and reports recall@k against the exact answer. On the file (``--store
sqlite``): bit[384] vec0 KNN for candidates, exact float rescoring in SQL; from 50,000
passages the archive is clustered (memory/cells.py: the insert time includes the builds) and
only the nearest cells are scanned, with the whole-file scan beside it for comparison. On Postgres
(``--store postgres``, a pgserver with pgvector started in the work dir): the HNSW index with
``hnsw.ef_search`` = k x oversample, exact cosine; the rows are loaded first and the
index built after (``--pg-incremental``: with the index in place, row by row). ``--store
both`` measures both on the same vectors in one run. Prints a table and writes JSON.

    python scripts/bench_archival.py --sizes 10000,100000 --out bench.json
    python scripts/bench_archival.py --sizes 100000 1000000 --store both
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
from memgpt_local.memory.search import PASSAGES, nearest

DIM = 384


class SyntheticEmbedder:
    """Names the vector space; vectors are supplied directly, so it never embeds text."""

    name = "synthetic-384"
    dim = DIM

    def embed(self, texts: list[str]) -> np.ndarray:
        raise RuntimeError("the benchmark supplies its own vectors")


def synthetic(
    n: int, queries: int, rng: np.random.Generator, topic_size: int = 100
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    topics = max(16, n // topic_size)
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


class Postgres:
    """One pgserver for the run; a fresh database per size."""

    def __init__(self, workdir: Path):
        import pgserver

        self.server = pgserver.get_server(workdir / "pg", cleanup_mode="stop")

    def new_database(self, name: str) -> str:
        import psycopg

        with psycopg.connect(self.server.get_uri(), autocommit=True) as admin:
            admin.execute(f"DROP DATABASE IF EXISTS {name}")
            admin.execute(f"CREATE DATABASE {name}")
        return str(self.server.get_uri(name))

    def close(self) -> None:
        self.server.cleanup()


def bench_size(n: int, args: argparse.Namespace, workdir: Path, kind: str, pg: Postgres | None) -> dict:
    rng = np.random.default_rng(args.seed)
    data, queries, topic = synthetic(n, args.queries, rng, args.topic_size)
    location: Path | str = workdir / f"bench_{n}.db" if pg is None else pg.new_database(f"bench_{n}")
    store = open_store(location, SyntheticEmbedder())
    agent = store.agents.create("bench", blocks=[])
    store.agents.create("other", blocks=[])  # a second partition, as in real use
    bulk = pg is not None and not args.pg_incremental
    if bulk:  # a bulk load: rows first, the HNSW index after (2.5-3x faster than row by row at 5k)
        store.db.execute("DROP INDEX passages_vectors")
    t0 = time.perf_counter()
    batch = 20_000
    for start in range(0, n, batch):
        stop = min(n, start + batch)
        items = [{"text": f"synthetic passage {i} about topic {topic[i]}"} for i in range(start, stop)]
        store.archival.insert_many(agent.id, items, vectors=data[start:stop])
    insert_s = time.perf_counter() - t0
    index_s = 0.0
    if bulk:
        t0 = time.perf_counter()
        store.db.execute("SET maintenance_work_mem = '1GB'")
        store.db.execute("CREATE INDEX passages_vectors ON passages USING hnsw (embedding vector_cosine_ops)")
        index_s = time.perf_counter() - t0
    first_id = store.db.scalar(f"SELECT min(id) FROM passages WHERE agent_id = {int(agent.id)}")
    if pg is None:
        size_mb = Path(location).stat().st_size / 1e6
    else:
        size_mb = store.db.scalar("SELECT pg_database_size(current_database())") / 1e6
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
        "store": kind,
        "n": n,
        "dim": DIM,
        "k": k,
        "queries": len(queries),
        "insert_s": round(insert_s, 1),
        "index_s": round(index_s, 1),
        "file_mb": round(size_mb, 1),
        "numpy_bruteforce": percentiles(numpy_times),
        "production": [],
    }
    clusters = store.archival.cells.of(agent.id) if pg is None else None
    if clusters is not None:
        result["clusters"] = {"cells": clusters.cells, "probes": clusters.probes, "built_at": clusters.rows_at_build}

    def measure(search, oversample: int, **extra) -> dict:
        search(queries[0], oversample)  # warm the cache
        times, recalls = [], []
        for q, truth in zip(queries, exact):
            t = time.perf_counter()
            found = search(q, oversample)
            times.append(time.perf_counter() - t)
            recalls.append(len(truth & {i for i, _ in found}) / k)
        return {
            "oversample": oversample,
            "candidates": k * oversample,
            **percentiles(times),
            "recall_at_k": float(np.mean(recalls)),
            **extra,
        }

    for oversample in args.oversample:
        production = lambda q, o: store.archival.nearest(agent.id, q, k, oversample=o)  # noqa: E731
        result["production"].append(measure(production, oversample))
    for probes in args.probes if clusters is not None else []:  # other probe counts, same clusters
        probed = lambda q, o: nearest(store.db, PASSAGES, agent.id, q, k, o, probes=probes)  # noqa: B023, E731
        result["production"].append(measure(probed, 10, probes=probes))
    if clusters is not None:  # the same file searched without its clusters, for comparison
        whole = lambda q, o: nearest(store.db, PASSAGES, agent.id, q, k, o)  # noqa: E731
        result["production"].append(measure(whole, 10, whole_archive=True))
    store.close()
    for suffix in ("", "-wal", "-shm"):
        Path(f"{workdir / f'bench_{n}.db'}{suffix}").unlink(missing_ok=True)
    return result


def print_table(results: list[dict]) -> None:
    print(f"{'N':>9} {'store':<9} {'search':<28} {'p50 ms':>8} {'p95 ms':>8} {'recall@k':>9}")
    for r in results:
        nb = r["numpy_bruteforce"]
        exact = "numpy brute force (exact)"
        print(f"{r['n']:>9} {r['store']:<9} {exact:<28} {nb['p50_ms']:>8.1f} {nb['p95_ms']:>8.1f} {1.0:>9.3f}")
        cells = r.get("clusters")
        for p in r["production"]:
            if r["store"] == "sqlite" and cells and not p.get("whole_archive"):
                label = f"{p.get('probes', cells['probes'])}/{cells['cells']} cells, bit x{p['oversample']}"
            elif r["store"] == "sqlite":
                label = f"{'whole file, ' if cells else ''}bit KNN x{p['oversample']} + rescore"
            else:
                label = f"HNSW ef_search {min(1000, max(40, p['candidates']))}"
            line = f"{p['p50_ms']:>8.1f} {p['p95_ms']:>8.1f} {p['recall_at_k']:>9.3f}"
            print(f"{r['n']:>9} {r['store']:<9} {label:<28} {line}")
        built = f", HNSW built after in {r['index_s']} s" if r.get("index_s") else ""
        where = "file" if r["store"] == "sqlite" else "database"
        print(f"{'':>9} (insert {r['insert_s']} s{built}, {where} {r['file_mb']} MB)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", nargs="+", default=["10000,100000"], help="N values, by commas or spaces")
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--oversample", default="4,10,40", help="comma-separated candidate factors")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--topic-size", type=int, default=100, help="passages per synthetic topic")
    parser.add_argument("--probes", default="", help="comma-separated probe counts also measured on a clustered file")
    parser.add_argument("--out", type=Path, default=Path("bench_archival.json"))
    parser.add_argument("--workdir", type=Path, default=None, help="where the temp db files go")
    parser.add_argument("--store", choices=("sqlite", "postgres", "both"), default="sqlite")
    parser.add_argument(
        "--pg-incremental",
        action="store_true",
        help="insert into Postgres with its HNSW index in place (default: load the rows, then build the index)",
    )
    args = parser.parse_args()
    args.oversample = [int(x) for x in args.oversample.split(",")]
    args.probes = [int(x) for x in args.probes.split(",") if x]
    sizes = [int(x) for part in args.sizes for x in part.split(",") if x]
    kinds = ["sqlite", "postgres"] if args.store == "both" else [args.store]
    results = []
    with tempfile.TemporaryDirectory(dir=args.workdir) as tmp:
        pg = Postgres(Path(tmp)) if "postgres" in kinds else None
        try:
            for n in sizes:
                for kind in kinds:
                    results.append(bench_size(n, args, Path(tmp), kind, pg if kind == "postgres" else None))
                    print_table(results[-1:])
                    args.out.write_text(json.dumps({"results": results}, indent=2))
        finally:
            if pg is not None:
                pg.close()
    report = {"machine": platform.platform(), "processor": platform.processor(), "results": results}
    args.out.write_text(json.dumps(report, indent=2))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
