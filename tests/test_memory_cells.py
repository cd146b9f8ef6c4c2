"""The clusters of a large archive (memory/cells.py): built once an agent's archive is large,
kept in step by triggers, searched by their nearest cells, dropped with the vectors; recall
against exact search on clustered vectors."""

import numpy as np
import pytest

from memgpt_local.memory.cells import GROWTH, cell_count, kmeans, nearest_centroid, probe_count
from memgpt_local.memory.common.fusion import FusedSearch
from memgpt_local.memory.search import PASSAGES, nearest

DIM = 384
MIN_ROWS = 1200


def clustered_vectors(n: int, rng: np.random.Generator, topics: int = 40) -> np.ndarray:
    centers = rng.standard_normal((topics, DIM)).astype(np.float32)
    centers /= np.linalg.norm(centers, axis=1, keepdims=True)
    data = centers[rng.integers(0, topics, n)] + rng.standard_normal((n, DIM)).astype(np.float32) / np.sqrt(DIM)
    return (data / np.linalg.norm(data, axis=1, keepdims=True)).astype(np.float32)


def fill(store, agent_id: int, vectors: np.ndarray, start: int = 0) -> None:
    items = [{"text": f"passage {start + i}"} for i in range(len(vectors))]
    store.archival.insert_many(agent_id, items, vectors=vectors)


@pytest.fixture
def big(store):
    """An agent whose archive is past the (lowered) clustering threshold, and its vectors."""
    store.archival.cells.min_rows = MIN_ROWS
    agent = store.agents.create("big")
    vectors = clustered_vectors(MIN_ROWS, np.random.default_rng(3))
    fill(store, agent.id, vectors)
    return agent, vectors


def test_sizes_and_kmeans_on_separable_vectors():
    assert cell_count(1_000_000) == 1000 and cell_count(100) == 16
    assert probe_count(1000) == 40 and probe_count(16) == 8 and probe_count(4) == 4
    rng = np.random.default_rng(0)
    vectors = clustered_vectors(2000, rng, topics=8)
    centroids = kmeans(vectors, 8, rng)
    assert np.allclose(np.linalg.norm(centroids, axis=1), 1.0, atol=1e-5)
    assert len(set(nearest_centroid(vectors, centroids).tolist())) == 8  # every cell holds passages


def test_a_large_archive_is_clustered_and_searched_by_its_nearest_cells(store, big):
    agent, vectors = big
    clusters = store.archival.cells.of(agent.id)
    assert clusters is not None and clusters.cells == cell_count(MIN_ROWS) and clusters.rows_at_build == MIN_ROWS
    assert store.archival.cells.probes(agent.id) == clusters.probes
    assert store.db.scalar("SELECT count(*) FROM passage_cells WHERE agent_id = ?", (agent.id,)) == MIN_ROWS
    small = store.agents.create("small")
    fill(store, small.id, vectors[:50])
    assert store.archival.cells.of(small.id) is None  # below the threshold: searched as before

    ids = [p.id for p in store.archival.all(agent.id)]
    rng = np.random.default_rng(5)
    queries = vectors[rng.integers(0, MIN_ROWS, 20)] + rng.standard_normal((20, DIM)).astype(np.float32) * 0.02
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)
    recalls = []
    for q in queries:
        exact = {ids[i] for i in np.argsort(-(vectors @ q))[:10]}
        found = {i for i, _ in store.archival.nearest(agent.id, q, 10)}
        recalls.append(len(found & exact) / 10)
        unclustered = {i for i, _ in nearest(store.db, PASSAGES, agent.id, q, 10)}
        assert len(unclustered & exact) >= 9  # the whole-archive scan, for comparison
    assert np.mean(recalls) >= 0.9
    # the fused search's vector leg reads the cells too: a passage's own vector finds it first
    search = FusedSearch(query="-", vector=vectors[7], mode="vector", offset=0, limit=3, tuning=store.tuning)
    ranked, total = store.archival._hybrid_search(agent.id, search)
    assert total > 0 and ranked[0][0] == ids[7]


def test_the_cells_follow_inserts_and_deletes_and_grow_into_new_clusters(store, big):
    agent, vectors = big
    cells = store.archival.cells
    extra = clustered_vectors(10, np.random.default_rng(9))
    fill(store, agent.id, extra, start=MIN_ROWS)
    newest = store.archival.all(agent.id)[-1]
    cell = store.db.scalar("SELECT cell FROM passage_cells WHERE rowid = ?", (newest.id,))
    nearest_cell = store.db.scalar(
        "SELECT rowid FROM passage_centroids WHERE centroid MATCH ? AND agent_id = ? ORDER BY distance LIMIT 1",
        (extra[-1].tobytes(), agent.id),
    )
    assert cell == nearest_cell  # joined the cell of its nearest centroid as it was written
    assert store.archival.delete(agent.id, [newest.id]) == 1
    assert store.db.scalar("SELECT count(*) FROM passage_cells WHERE rowid = ?", (newest.id,)) == 0
    assert cells.of(agent.id).rows_at_build == MIN_ROWS  # not grown enough to rebuild

    grow = clustered_vectors((GROWTH - 1) * MIN_ROWS, np.random.default_rng(11))
    fill(store, agent.id, grow, start=2 * MIN_ROWS)
    rebuilt = cells.of(agent.id)
    total = store.archival.count(agent.id)
    assert rebuilt is not None and rebuilt.rows_at_build == total and rebuilt.cells == cell_count(total)
    assert store.db.scalar("SELECT count(*) FROM passage_cells WHERE agent_id = ?", (agent.id,)) == total
    assert store.db.scalar("SELECT count(*) FROM passage_centroids WHERE agent_id = ?", (agent.id,)) == rebuilt.cells


def test_forgetting_the_agent_or_its_vectors_drops_its_clusters(store, big):
    agent, _ = big
    store.scrub()  # rebuilds every index: the clusters are made again
    assert store.archival.cells.of(agent.id) is not None
    assert store.db.scalar("SELECT count(*) FROM passage_cells") == MIN_ROWS
    store.archival.cells.drop(agent.id)
    assert store.archival.cells.probes(agent.id) is None
    assert store.db.scalar("SELECT count(*) FROM passage_cells") == 0
    assert store.archival.nearest(agent.id, np.eye(1, DIM, 0, dtype=np.float32)[0], 3)  # whole-archive scan again
