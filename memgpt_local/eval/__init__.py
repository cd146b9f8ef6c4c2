"""The offline benchmark: the MemGPT paper's experiments rebuilt with seeded synthetic data.

Tasks (each a module with a seeded generator): ``nested_kv`` (paper Figure 7), ``dmr`` (deep
memory retrieval, Table 2) and ``doc_qa`` (document QA, Figure 5). ``runner`` runs episodes
(a fresh agent in a fresh store each) and appends one JSON line per episode; ``baselines``
answers the same cases with a fixed context; ``report`` turns the lines into tables and charts.
"""
