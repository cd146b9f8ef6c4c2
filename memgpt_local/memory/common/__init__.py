"""What the SQLite file (``memory``) and the Postgres database (``memory.postgres``) do alike.

Each backend keeps its SQL; everything else lives here once, so the two cannot drift apart:
turning rows into models, checking arguments, embedding in batches, the search's words,
vectors and paging, and the sub-stores' public methods (base classes whose subclasses supply
the SQL). Nothing here imports a database driver or either backend.
"""
