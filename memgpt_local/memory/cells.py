"""Coarse clusters for a large archive in the memory file: an inverted-file index built from
sqlite-vec partitions.

sqlite-vec 0.1.9 scans every bit vector of an agent's partition for the vector leg's
candidates, so search time grows with the archive (2.8 ms at 10,000 passages). Once an agent
holds ``CLUSTER_MIN`` passages, its vectors are clustered (k-means on a sample, about
sqrt(n) cells) and each passage's bit vector is also kept in ``passage_cells``, partitioned by
agent and cell; the centroids live in ``passage_centroids``. A search then scans only the
cells whose centroids are nearest to the query (``probes`` of them) and rescores as before.

- New passages join the cell of their nearest centroid as they are written (a trigger on
  ``passage_embeddings``); deleted ones leave it (another trigger), so forget and the
  document loader need nothing more.
- The clusters are rebuilt when the archive has grown ``GROWTH`` times since they were made
  (new text can drift from the old centroids), and dropped when the vectors are (a new
  embedder).
- Everything stays in the one file; an agent below ``CLUSTER_MIN`` is searched as before.
  scripts/bench_archival.py measures latency and recall@10 against exact search.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from memgpt_local.memory.db import Database

CLUSTER_MIN = 50_000  # passages of one agent before its archive is clustered
GROWTH = 4  # the clusters are rebuilt when the archive has grown this many times since
SAMPLE_PER_CELL = 64  # k-means trains on this many passages per cell (at most SAMPLE_MAX)
SAMPLE_MAX = 100_000
ITERATIONS = 10
PROBE_SHARE = 0.04  # the share of cells a search scans (at least MIN_PROBES)
MIN_PROBES = 8
BATCH = 32_768  # vectors assigned to centroids at once


def cell_count(rows: int) -> int:
    """Cells for an archive of ``rows`` passages: about sqrt(rows), at least 16."""
    return max(16, round(math.sqrt(rows)))


def probe_count(cells: int) -> int:
    return min(cells, max(MIN_PROBES, math.ceil(PROBE_SHARE * cells)))


def cells_sql(dim: int) -> str:
    """The tables and triggers of the clusters, for vectors of ``dim`` dimensions."""
    return f"""
    CREATE TABLE passage_clusters (
        agent_id INTEGER PRIMARY KEY REFERENCES agents(id) ON DELETE CASCADE,
        cells INTEGER NOT NULL,
        probes INTEGER NOT NULL,
        rows_at_build INTEGER NOT NULL
    );
    CREATE VIRTUAL TABLE passage_centroids USING vec0(agent_id integer partition key, centroid float[{dim}]);
    CREATE VIRTUAL TABLE passage_cells USING vec0(
        agent_id integer partition key, cell integer partition key, embedding bit[{dim}]
    );
    CREATE TRIGGER passage_cells_insert AFTER INSERT ON passage_embeddings
    WHEN EXISTS (SELECT 1 FROM passages p JOIN passage_clusters k ON k.agent_id = p.agent_id
                 WHERE p.id = new.passage_id)
    BEGIN
        INSERT INTO passage_cells(rowid, agent_id, cell, embedding)
        SELECT new.passage_id, p.agent_id,
            (SELECT rowid FROM passage_centroids WHERE centroid MATCH new.embedding AND agent_id = p.agent_id
             ORDER BY distance LIMIT 1),
            vec_quantize_binary(new.embedding)
        FROM passages p WHERE p.id = new.passage_id;
    END;
    CREATE TRIGGER passage_cells_delete AFTER DELETE ON passage_embeddings
    WHEN EXISTS (SELECT 1 FROM passage_cells WHERE rowid = old.passage_id)
    BEGIN
        DELETE FROM passage_cells WHERE rowid = old.passage_id;
    END;
    """


def drop_cells_sql() -> str:
    return """
    DROP TRIGGER IF EXISTS passage_cells_insert;
    DROP TRIGGER IF EXISTS passage_cells_delete;
    DROP TABLE IF EXISTS passage_cells;
    DROP TABLE IF EXISTS passage_centroids;
    DROP TABLE IF EXISTS passage_clusters;
    """


def _unit(x: np.ndarray) -> np.ndarray:
    return x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-9)


def nearest_centroid(vectors: np.ndarray, centroids: np.ndarray) -> np.ndarray:
    """The index of each vector's nearest centroid by cosine (both sets unit length)."""
    out = np.empty(len(vectors), dtype=np.int64)
    for start in range(0, len(vectors), BATCH):
        out[start : start + BATCH] = np.argmax(vectors[start : start + BATCH] @ centroids.T, axis=1)
    return out


def kmeans(vectors: np.ndarray, cells: int, rng: np.random.Generator, iterations: int = ITERATIONS) -> np.ndarray:
    """``cells`` unit centroids of ``vectors`` (unit rows) by spherical k-means; an emptied
    cell restarts at a random vector."""
    centroids = vectors[rng.choice(len(vectors), cells, replace=False)].copy()
    for _ in range(iterations):
        assign = nearest_centroid(vectors, centroids)
        sums = np.zeros_like(centroids)
        np.add.at(sums, assign, vectors)
        counts = np.bincount(assign, minlength=cells)
        empty = counts == 0
        sums[empty] = vectors[rng.choice(len(vectors), int(empty.sum()))]
        centroids = _unit(sums)
    return centroids


@dataclass(frozen=True)
class Clusters:
    """An agent's clusters: how many cells, how many a search scans, the size they were built at."""

    cells: int
    probes: int
    rows_at_build: int


class ArchivalCells:
    """The clusters of each agent's archive; see the module docstring."""

    def __init__(self, db: Database, *, min_rows: int = CLUSTER_MIN, seed: int = 0):
        self.db = db
        self.min_rows = min_rows
        self.seed = seed

    def of(self, agent_id: int) -> Clusters | None:
        rows = self.db.rows("SELECT cells, probes, rows_at_build FROM passage_clusters WHERE agent_id = ?", (agent_id,))
        return Clusters(**rows[0]) if rows else None

    def probes(self, agent_id: int) -> int | None:
        """How many cells a search of the agent's archive scans; None: it is not clustered."""
        return self.db.scalar("SELECT probes FROM passage_clusters WHERE agent_id = ?", (agent_id,))

    def after_insert(self, agent_id: int, rows: int) -> bool:
        """Cluster the agent's archive (``rows`` passages now) when it has reached
        ``min_rows``, or rebuild its clusters when it has grown ``GROWTH`` times since; True
        when it did."""
        current = self.of(agent_id)
        if rows < self.min_rows or (current is not None and rows < GROWTH * current.rows_at_build):
            return False
        self.build(agent_id)
        return True

    def build(self, agent_id: int) -> Clusters:
        """(Re)build the agent's clusters from its stored vectors, in one transaction."""
        ids, vectors = self._vectors(agent_id)
        rng = np.random.default_rng(self.seed)
        cells = min(cell_count(len(ids)), len(ids))
        sample_size = min(len(ids), SAMPLE_MAX, SAMPLE_PER_CELL * cells)
        sample = vectors[rng.choice(len(ids), sample_size, replace=False)]
        centroids = kmeans(sample, cells, rng)
        assign = nearest_centroid(vectors, centroids)
        clusters = Clusters(cells, probe_count(cells), len(ids))
        with self.db.transaction():
            self.drop(agent_id)
            first = int(self.db.scalar("SELECT coalesce(max(rowid), 0) FROM passage_centroids")) + 1
            self.db.executemany(
                "INSERT INTO passage_centroids(rowid, agent_id, centroid) VALUES (?, ?, ?)",
                [(first + i, agent_id, c.astype(np.float32).tobytes()) for i, c in enumerate(centroids)],
            )
            self.db.executemany(
                "INSERT INTO passage_cells(rowid, agent_id, cell, embedding) VALUES (?, ?, ?, vec_quantize_binary(?))",
                [(int(i), agent_id, first + int(a), v.tobytes()) for i, a, v in zip(ids, assign, vectors)],
            )
            self.db.execute(
                "INSERT INTO passage_clusters(agent_id, cells, probes, rows_at_build) VALUES (?, ?, ?, ?)",
                (agent_id, clusters.cells, clusters.probes, clusters.rows_at_build),
            )
        return clusters

    def drop(self, agent_id: int) -> None:
        """Forget the agent's clusters (its searches scan the whole archive again)."""
        with self.db.transaction():
            self.db.execute("DELETE FROM passage_clusters WHERE agent_id = ?", (agent_id,))
            self.db.execute("DELETE FROM passage_cells WHERE agent_id = ?", (agent_id,))
            self.db.execute("DELETE FROM passage_centroids WHERE agent_id = ?", (agent_id,))

    def _vectors(self, agent_id: int) -> tuple[np.ndarray, np.ndarray]:
        rows = self.db.rows(
            "SELECT e.passage_id AS id, e.embedding FROM passage_embeddings e JOIN passages p ON p.id = e.passage_id "
            "WHERE p.agent_id = ? ORDER BY e.passage_id",
            (agent_id,),
        )
        ids = np.fromiter((r["id"] for r in rows), dtype=np.int64, count=len(rows))
        dim = len(rows[0]["embedding"]) // 4 if rows else 0
        vectors = np.frombuffer(b"".join(r["embedding"] for r in rows), dtype=np.float32).reshape(len(rows), dim)
        return ids, _unit(vectors).astype(np.float32)
