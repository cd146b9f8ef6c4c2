"""Shared fixtures: an isolated data dir for every test, the real embedder (once per
session), a migrated store in a temp dir and a CLI runner."""

from __future__ import annotations

import os
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
def store(tmp_path: Path, embedder):
    """A migrated memory store in a temp file; integrity-checked on teardown."""
    from memgpt_local.memory import open_store

    st = open_store(tmp_path / "memory.db", embedder)
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
