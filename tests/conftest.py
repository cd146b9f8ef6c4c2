"""Shared fixtures: an isolated data dir for every test, the real embedder (once per
session), a migrated store in a temp dir (or, where a module asks for both kinds, a fresh
database on one pgserver per session) and a CLI runner."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

ASSETS = Path(__file__).parent / ".assets"


@pytest.fixture(autouse=True)
def data_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point MEMGPT_LOCAL_HOME (and the model store) at fresh temp dirs for every test."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("MEMGPT_LOCAL_HOME", str(home))
    monkeypatch.setenv("MEMGPT_LOCAL_MODELS", str(tmp_path / "model-store"))  # never the user's cache
    return home


@pytest.fixture(scope="session")
def embedder():
    from memgpt_local.config import EmbedderSettings
    from memgpt_local.memory.embed import make_embedder

    return make_embedder(EmbedderSettings())


@pytest.fixture
def store_kind() -> str:
    """Which implementation ``store`` opens: "sqlite" here; a test module that runs on both
    overrides this fixture with ``params=store_sql.STORE_KINDS``."""
    return "sqlite"


@pytest.fixture(scope="session")
def pg_server(tmp_path_factory: pytest.TempPathFactory):
    """One pgserver (PostgreSQL with pgvector, from pip) for the whole session, stopped at
    its end; yields (server, an autocommit admin connection)."""
    pgserver = pytest.importorskip("pgserver", reason="pgserver is not installed: pip install -e '.[test]'")
    import psycopg

    server = pgserver.get_server(tmp_path_factory.mktemp("pg"), cleanup_mode="stop")
    admin = psycopg.connect(server.get_uri(), autocommit=True)
    yield server, admin
    admin.close()
    server.cleanup()


@pytest.fixture
def pg_url(pg_server) -> Iterator[str]:
    """The URL of a fresh, empty database on the session's server, dropped after the test."""
    server, admin = pg_server
    name = f"test_{uuid.uuid4().hex[:16]}"
    admin.execute(f"CREATE DATABASE {name}")
    yield server.get_uri(name)
    admin.execute(f"DROP DATABASE {name} WITH (FORCE)")


@pytest.fixture
def store_location(request: pytest.FixtureRequest, store_kind: str, tmp_path: Path) -> Path | str:
    """Where ``store`` lives: a file in a temp dir, or a fresh Postgres database's URL. A test
    marked ``sqlite_only(reason)`` is skipped on Postgres with that reason."""
    if store_kind == "sqlite":
        return tmp_path / "memory.db"
    marker = request.node.get_closest_marker("sqlite_only")
    if marker is not None:
        pytest.skip(f"SQLite only: {marker.args[0]}")
    return request.getfixturevalue("pg_url")


@pytest.fixture
def store(store_location: Path | str, embedder):
    """A migrated memory store (a temp file, or a fresh Postgres database); integrity-checked
    on teardown."""
    from memgpt_local.memory import open_store

    st = open_store(store_location, embedder)
    yield st
    assert st.integrity_check() == "ok"
    st.close()


@pytest.fixture
def cli_runner():
    from click.testing import CliRunner

    return CliRunner()


# ---------------------------------------------------------------- model runtime (runtime/ owner)

SMOLLM_FILE = ASSETS / "models" / "SmolLM2-135M-Instruct.Q4_1.gguf"
VOCAB_DIR = ASSETS / "vocab"


def _missing_asset(message: str) -> None:
    """Skip locally, but fail in CI (`make test` fetches the assets, so missing ones are a bug)."""
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture(scope="session")
def smollm_path() -> Path:
    """smollm2-135m, put there by scripts/fetch_test_assets.py (`make test` runs it)."""
    if not SMOLLM_FILE.is_file():
        _missing_asset("tests/.assets lacks smollm2-135m: run scripts/fetch_test_assets.py")
    return SMOLLM_FILE


@pytest.fixture(scope="session")
def vocab_dir() -> Path:
    """Tokenizer-only GGUF files (ggml-vocab-qwen2.gguf, -llama-bpe, -llama-spm)."""
    if not (VOCAB_DIR / "ggml-vocab-qwen2.gguf").is_file():
        _missing_asset("tests/.assets lacks the vocab files: run scripts/fetch_test_assets.py")
    return VOCAB_DIR


@pytest.fixture(scope="session")
def real_backend(smollm_path: Path):
    """One LlamaCppBackend on smollm2-135m for the whole session (n_ctx 2048, 2 threads)."""
    from memgpt_local.runtime.llama import LlamaCppBackend

    backend = LlamaCppBackend(smollm_path, n_ctx=2048, n_threads=2, name="smollm2-135m")
    yield backend
    backend.close()
