"""Recall of the clustered archive's cell choice alone, in numpy (not a test, no database).

The share of each query's exact top-10 that lies in the cells it would probe, on the synthetic
vectors of scripts/bench_archival.py, for several cell counts, training-sample sizes and
k-means iterations: minutes instead of the 40 minutes a 1M file takes to write. The bit-vector
step the file adds loses almost nothing on this data (its whole-file scan keeps recall 0.999),
so this is an upper bound on what the file's search can reach with those clusters.

    python scripts/sim_cells.py N TOPIC_SIZE CELLS:SAMPLE:ITERATIONS ...
    python scripts/sim_cells.py 1000000 100 1000:64000:10 4000:200000:10
"""

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_archival import synthetic  # noqa: E402

from memgpt_local.memory.cells import kmeans, nearest_centroid  # noqa: E402

n, topic_size = int(sys.argv[1]), int(sys.argv[2])
configs = [tuple(int(x) for x in c.split(":")) for c in sys.argv[3:]]
rng = np.random.default_rng(0)
data, q, _ = synthetic(n, 100, rng, topic_size)
exact = np.argpartition(-(q @ data.T), 10, axis=1)[:, :10]  # the top 10 as a set: recall needs no order
for cells, sample_size, iters in configs:
    r = np.random.default_rng(0)
    t = time.time()
    sample = data[r.choice(n, min(n, sample_size), replace=False)]
    cent = kmeans(sample, cells, r, iterations=iters)
    tk = time.time() - t
    t = time.time()
    assign = nearest_centroid(data, cent)
    ta = time.time() - t
    sizes = np.bincount(assign, minlength=cells)
    order = np.argsort(-(q @ cent.T), axis=1)
    row = []
    for probes in (8, 16, 24, 32, 40, 60, 80, 120, 160):
        if probes > cells:
            continue
        hit = np.mean([np.isin(assign[exact[i]], order[i, :probes]).mean() for i in range(len(q))])
        scanned = np.mean([sizes[order[i, :probes]].sum() for i in range(len(q))])
        row.append(f"p{probes}:{hit:.3f}/{scanned / 1000:.0f}k")
    head = f"cells {cells} sample {sample_size} it {iters} train {tk:.0f}s assign {ta:.0f}s max cell {sizes.max()}"
    print(head + " | " + " ".join(row), flush=True)
