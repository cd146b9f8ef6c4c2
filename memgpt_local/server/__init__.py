"""`memgpt-local serve`: one process serving every agent of a data dir over HTTP (see ``api``)."""
