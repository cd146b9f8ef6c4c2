"""Reading and validating GGUF file headers in pure Python (no model load).

``read_gguf_info`` checks the magic bytes, parses the metadata and the tensor table, and
checks that the file is long enough to hold every tensor, so a truncated download, a file
with the wrong magic or a text file gives a ``BadModelFileError`` before llama.cpp sees it.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from memgpt_local.errors import BadModelFileError

GGUF_MAGIC = b"GGUF"
_MAX_STRING = 1 << 26  # 64 MiB: larger string lengths mean a corrupt header

# value type -> struct format for fixed-size scalars
_SCALARS = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q", 11: "<q", 12: "<d"}
_STRING, _ARRAY = 8, 9

# ggml tensor type -> (elements per block, bytes per block)
_TYPE_SIZES = {
    0: (1, 4),
    1: (1, 2),
    2: (32, 18),
    3: (32, 20),
    6: (32, 22),
    7: (32, 24),
    8: (32, 34),
    9: (32, 36),
    10: (256, 84),
    11: (256, 110),
    12: (256, 144),
    13: (256, 176),
    14: (256, 210),
    15: (256, 292),
    16: (256, 66),
    17: (256, 74),
    18: (256, 98),
    19: (256, 50),
    20: (32, 18),
    21: (256, 110),
    22: (256, 82),
    23: (256, 136),
    24: (1, 1),
    25: (1, 2),
    26: (1, 4),
    27: (1, 8),
    28: (1, 8),
    29: (256, 56),
    30: (1, 2),
    34: (256, 54),
    35: (256, 66),
}
_TYPE_NAMES = {
    0: "F32",
    1: "F16",
    2: "Q4_0",
    3: "Q4_1",
    6: "Q5_0",
    7: "Q5_1",
    8: "Q8_0",
    10: "Q2_K",
    11: "Q3_K",
    12: "Q4_K",
    13: "Q5_K",
    14: "Q6_K",
    15: "Q8_K",
    30: "BF16",
}
# llama_ftype (general.file_type) -> name
_FILE_TYPES = {
    0: "F32",
    1: "F16",
    2: "Q4_0",
    3: "Q4_1",
    7: "Q8_0",
    8: "Q5_0",
    9: "Q5_1",
    10: "Q2_K",
    11: "Q3_K_S",
    12: "Q3_K_M",
    13: "Q3_K_L",
    14: "Q4_K_S",
    15: "Q4_K_M",
    16: "Q5_K_S",
    17: "Q5_K_M",
    18: "Q6_K",
    19: "IQ2_XXS",
    20: "IQ2_XS",
    21: "Q2_K_S",
    22: "IQ3_XS",
    23: "IQ3_XXS",
    24: "IQ1_S",
    25: "IQ4_NL",
    26: "IQ3_S",
    27: "IQ3_M",
    28: "IQ2_S",
    29: "IQ2_M",
    30: "IQ4_XS",
    31: "IQ1_M",
    32: "BF16",
    36: "TQ1_0",
    37: "TQ2_0",
}


@dataclass(frozen=True)
class GGUFInfo:
    path: Path
    size_bytes: int
    version: int
    n_tensors: int
    metadata: dict[str, Any] = field(repr=False)  # arrays are replaced by their length

    @property
    def architecture(self) -> str | None:
        return self.metadata.get("general.architecture")

    @property
    def model_name(self) -> str | None:
        return self.metadata.get("general.name")

    @property
    def n_ctx_train(self) -> int | None:
        value = self.metadata.get(f"{self.architecture}.context_length")
        return int(value) if value is not None else None

    @property
    def chat_template(self) -> str | None:
        return self.metadata.get("tokenizer.chat_template")

    @property
    def vocab_only(self) -> bool:
        return self.n_tensors == 0

    @property
    def quantization(self) -> str:
        file_type = self.metadata.get("general.file_type")
        if file_type is not None:
            return _FILE_TYPES.get(int(file_type), f"type {file_type}")
        return self.metadata.get("_dominant_tensor_type", "unknown")


class _Reader:
    def __init__(self, handle: BinaryIO, path: Path):
        self.handle, self.path = handle, path

    def bad(self, what: str) -> BadModelFileError:
        return BadModelFileError(
            f"{self.path} is not a usable GGUF file: {what}",
            "download it again (`memgpt-local models pull NAME`) or pick another file",
        )

    def take(self, n: int) -> bytes:
        data = self.handle.read(n)
        if len(data) != n:
            raise self.bad("the file ends inside its header (truncated?)")
        return data

    def scalar(self, fmt: str) -> Any:
        return struct.unpack(fmt, self.take(struct.calcsize(fmt)))[0]

    def string(self) -> str:
        n = self.scalar("<Q")
        if n > _MAX_STRING:
            raise self.bad("a metadata string length is implausible (corrupt header)")
        return self.take(n).decode("utf-8", errors="replace")

    def value(self, vtype: int) -> Any:
        if vtype in _SCALARS:
            return self.scalar(_SCALARS[vtype])
        if vtype == _STRING:
            return self.string()
        if vtype == _ARRAY:
            item_type, count = self.scalar("<I"), self.scalar("<Q")
            if item_type in _SCALARS:
                width = struct.calcsize(_SCALARS[item_type])
                self.skip(width * count)
            else:
                for _ in range(count):
                    self.value(item_type)
            return count
        raise self.bad(f"unknown metadata value type {vtype}")

    def skip(self, n: int) -> None:
        here = self.handle.tell()
        self.handle.seek(n, 1)
        if self.handle.tell() != here + n:
            raise self.bad("the file ends inside its header (truncated?)")


def read_gguf_info(path: str | Path) -> GGUFInfo:
    """Parse and check a GGUF file's header; ``BadModelFileError`` on any problem."""
    path = Path(path)
    if not path.is_file():
        raise BadModelFileError(f"{path} does not exist or is not a file", "check the path")
    size = path.stat().st_size
    with path.open("rb") as handle:
        reader = _Reader(handle, path)
        magic = handle.read(4)
        if magic != GGUF_MAGIC:
            shown = magic.decode("latin-1") if magic else "an empty file"
            raise reader.bad(f"wrong magic bytes {shown!r} (expected 'GGUF')")
        version = reader.scalar("<I")
        if version not in (2, 3):
            raise reader.bad(f"unsupported GGUF version {version}")
        n_tensors, n_kv = reader.scalar("<Q"), reader.scalar("<Q")
        if n_tensors > 1_000_000 or n_kv > 1_000_000:
            raise reader.bad("implausible tensor or metadata counts (corrupt header)")
        metadata: dict[str, Any] = {}
        for _ in range(n_kv):
            key = reader.string()
            metadata[key] = reader.value(reader.scalar("<I"))
        needed = 0
        type_counts: dict[int, int] = {}  # tensor type -> elements
        tensors: list[tuple[int, int, int]] = []
        for _ in range(n_tensors):
            reader.string()
            n_dims = reader.scalar("<I")
            if n_dims > 8:
                raise reader.bad("a tensor has more than 8 dimensions (corrupt header)")
            elements = 1
            for _ in range(n_dims):
                elements *= reader.scalar("<Q")
            ttype, offset = reader.scalar("<I"), reader.scalar("<Q")
            tensors.append((ttype, offset, elements))
            type_counts[ttype] = type_counts.get(ttype, 0) + elements
        align = metadata.get("general.alignment", 32)
        if isinstance(align, bool) or not isinstance(align, int) or align <= 0:
            raise reader.bad(f"general.alignment is {align!r}, not a positive integer")
        data_start = -(-handle.tell() // align) * align
        for ttype, offset, elements in tensors:
            block, width = _TYPE_SIZES.get(ttype, (1, 0))
            needed = max(needed, data_start + offset + -(-elements // block) * width)
        if n_tensors and needed > size:
            raise reader.bad(f"it is truncated: {size} bytes, its tensors need {needed}")
    if type_counts:
        dominant = max(type_counts, key=lambda t: type_counts[t])
        metadata["_dominant_tensor_type"] = _TYPE_NAMES.get(dominant, f"type {dominant}")
    if "general.architecture" not in metadata:
        raise BadModelFileError(f"{path} has no general.architecture in its metadata", "pick another file")
    return GGUFInfo(path=path, size_bytes=size, version=version, n_tensors=n_tensors, metadata=metadata)
