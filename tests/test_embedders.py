"""The embedder's two runtimes: the numpy BERT (default, no torch) gives sentence-transformers'
vectors, so a store written by either is searchable by the other; folders numpy cannot run
go to the library; the default path never imports torch."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import numpy as np
import pytest

from memgpt_local.config import EmbedderSettings
from memgpt_local.memory.bert_numpy import supported
from memgpt_local.memory.embed import NumpyBertEmbedder, SentenceTransformerEmbedder, _default_model_path, make_embedder

TEXTS = [
    "Hi! I'm Priya.",
    "What's my cat called again?",
    "The vault code is Quetzalcoatl4711.",
    "Ünïcödé straße, café in 東京 — naïve résumé",
    "",
    "   ",
    "2024-03-05 14:00 UTC user: we named her Stoundbea after the hill",
    "tide " * 400,  # past max_seq_length: truncated the same way
    "A longer passage about beekeeping on a roof in Leeds: three hives, smoke, veils and honey. " * 3,
]


@pytest.fixture(scope="module")
def reference():
    return SentenceTransformerEmbedder("all-MiniLM-L6-v2", _default_model_path(), dim=384)


def test_the_default_runs_in_numpy():
    assert isinstance(make_embedder(EmbedderSettings()), NumpyBertEmbedder)
    assert isinstance(make_embedder(EmbedderSettings(runtime="sentence-transformers")), SentenceTransformerEmbedder)


@pytest.mark.parametrize("batch_size", [1, 4, 32])
def test_numpy_vectors_match_sentence_transformers(reference, batch_size):
    mine = NumpyBertEmbedder("all-MiniLM-L6-v2", _default_model_path(), dim=384, batch_size=batch_size)
    a, b = mine.embed(TEXTS), reference.embed(TEXTS)
    assert a.shape == b.shape == (len(TEXTS), 384)
    assert a.dtype == np.float32
    cosine = (a * b).sum(axis=1)
    assert cosine.min() >= 0.999, cosine
    assert np.allclose(np.linalg.norm(a, axis=1), 1.0, atol=1e-5)


def test_a_folder_numpy_cannot_run_goes_to_the_library(tmp_path):
    folder = tmp_path / "cls-pooling"
    shutil.copytree(_default_model_path(), folder)
    pooling = folder / "1_Pooling" / "config.json"
    config = json.loads(pooling.read_text())
    pooling.write_text(json.dumps(config | {"pooling_mode_cls_token": True, "pooling_mode_mean_tokens": False}))
    assert supported(_default_model_path()) and not supported(folder)
    assert isinstance(make_embedder(EmbedderSettings(model=str(folder))), SentenceTransformerEmbedder)


def test_the_default_embedder_never_imports_torch():
    code = (
        "import sys\n"
        "from memgpt_local.config import EmbedderSettings\n"
        "from memgpt_local.memory.embed import make_embedder\n"
        "v = make_embedder(EmbedderSettings()).embed(['hello there'])\n"
        "assert v.shape == (1, 384)\n"
        "print(sorted(m for m in ('torch', 'sentence_transformers', 'transformers') if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]", done.stderr


def test_both_runtimes_cut_documents_at_the_same_wordpieces(reference):
    from memgpt_local.documents.chunking import tokens_for

    mine = NumpyBertEmbedder("all-MiniLM-L6-v2", _default_model_path(), dim=384)
    text = " ".join(TEXTS) + "\n\n# Heading\n\nThe hives' frames (Langstroth) weigh 2.5 kg each."
    ours, theirs = tokens_for(mine), tokens_for(reference)
    assert ours.max_tokens == theirs.max_tokens == 254
    assert ours.starts(text) == theirs.starts(text)
