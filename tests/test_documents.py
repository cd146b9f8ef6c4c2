"""Documents: text extraction per format and token-aware chunking."""

from __future__ import annotations

from pathlib import Path

import pytest

from memgpt_local.documents.chunking import Chunker, RegexTokens, tokens_for
from memgpt_local.documents.readers import UnreadableFileError, html_text, kind_of, read_document


def make_pdf(lines: list[str]) -> bytes:
    """A one-page PDF showing ``lines`` in Helvetica, written by hand (no PDF library)."""

    def escape(text: str) -> str:
        return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")

    ops = ["BT", "/F1 12 Tf", "14 TL", "72 720 Td"] + [f"({escape(t)}) Tj T*" for t in lines]
    stream = "\n".join(ops + ["ET"]).encode("latin-1")
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


# ----------------------------------------------------------------------- readers


def test_kinds_by_extension() -> None:
    assert kind_of(Path("a.md")) == "markdown"
    assert kind_of(Path("a.PDF")) == "pdf"
    assert kind_of(Path("a.htm")) == "html"
    assert kind_of(Path("a.py")) == kind_of(Path("Makefile")) == "code"
    assert kind_of(Path("notes")) == kind_of(Path("a.txt")) == "text"
    assert kind_of(Path("a.png")) is None


def test_pdf_text(tmp_path: Path) -> None:
    path = tmp_path / "manual.pdf"
    path.write_bytes(make_pdf(["Coolant pump (P-7) is checked", "every Tuesday."]))
    doc = read_document(path)
    assert doc.kind == "pdf"
    assert "Coolant pump (P-7) is checked" in doc.text and "every Tuesday." in doc.text


def test_html_keeps_text_and_headings_only() -> None:
    text = html_text(
        "<html><head><title>t</title><style>p{}</style></head><body>"
        "<h2>Parking</h2><p>Level <b>3</b>, spot&nbsp;12.</p>"
        "<script>var x = 1;</script><ul><li>one</li><li>two</li></ul></body></html>"
    )
    assert text.splitlines()[0] == "## Parking"
    assert "Level 3, spot 12." in text
    assert "var x" not in text and "p{}" not in text
    assert "one\ntwo" in text


@pytest.mark.parametrize(
    ("name", "data", "reason"),
    [
        ("empty.txt", b"", "empty file"),
        ("blank.md", b" \n\n ", "empty file"),
        ("dump.log", b"abc\x00\x01\x02def", "binary file"),
        ("latin.txt", "café".encode("latin-1"), "not valid UTF-8 (byte 0xe9 at offset 3)"),
        ("photo.png", b"\x89PNG\r\n", "unsupported file type '.png'"),
        ("broken.pdf", b"%PDF-1.4 garbage", "unreadable PDF"),
    ],
)
def test_unreadable_files_say_why(tmp_path: Path, name: str, data: bytes, reason: str) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    with pytest.raises(UnreadableFileError) as err:
        read_document(path)
    assert err.value.reason.startswith(reason)


def test_special_files_are_not_read(tmp_path: Path) -> None:
    import os

    fifo = tmp_path / "pipe.txt"
    os.mkfifo(fifo)
    with pytest.raises(UnreadableFileError, match="not a regular file"):
        read_document(fifo)


def test_text_is_normalized(tmp_path: Path) -> None:
    path = tmp_path / "crlf.txt"
    path.write_bytes(b"\xef\xbb\xbfone  \r\ntwo\r\n\r\n\r\n\r\nthree\r\n")
    assert read_document(path).text == "one\ntwo\n\nthree"


# ---------------------------------------------------------------------- chunking


def long_markdown(paragraphs: int = 12) -> str:
    body = [
        f"Paragraph {p} explains item {p}. "
        + " ".join(f"Sentence {s} of paragraph {p} adds detail number {s * p}." for s in range(8))
        for p in range(paragraphs)
    ]
    return (
        "# Handbook\n\nShort intro.\n\n## Part one\n\n"
        + "\n\n".join(body[:6])
        + "\n\n## Part two\n\n```python\n# a comment, not a heading\nx = 1\n```\n\n"
        + "\n\n".join(body[6:])
        + "\n"
    )


def test_chunks_are_exact_spans_within_the_model_limit(embedder) -> None:
    tokens = tokens_for(embedder)
    chunker = Chunker(tokens, size=120, overlap=20)
    text = long_markdown()
    chunks = chunker.chunk(text, markdown=True)
    assert len(chunks) > 5
    assert not isinstance(tokens, RegexTokens)  # the embedder's own wordpieces, not the approximation
    for n, chunk in enumerate(chunks):
        assert chunk.index == n
        assert text[chunk.start : chunk.end] == chunk.text
        assert len(tokens.starts(chunk.text)) <= 120
        assert chunk.tokens <= 120
    covered = set()
    for chunk in chunks:
        covered.update(range(chunk.start, chunk.end))
    assert all(i in covered for i, ch in enumerate(text) if not ch.isspace())


def test_headings_start_chunks_and_fences_hide_comments(embedder) -> None:
    chunks = Chunker(tokens_for(embedder), size=120, overlap=20).chunk(long_markdown(), markdown=True)
    starts = [c.text.splitlines()[0] for c in chunks]
    assert starts[0] == "# Handbook"
    assert "## Part one" in starts and "## Part two" in starts
    assert not any(s.startswith("# a comment") for s in starts)
    part_one = starts.index("## Part one")
    assert chunks[part_one - 1].text.endswith("Short intro.")


def test_overlap_and_paragraph_boundaries() -> None:
    text = "\n\n".join(" ".join(f"Word{p}x{w}." for w in range(30)) for p in range(6))
    chunks = Chunker(RegexTokens(), size=64, overlap=10).chunk(text)
    for before, after in zip(chunks, chunks[1:]):
        assert after.start < before.end  # the next chunk repeats the end of the previous
        assert before.end - after.start <= len(" Word0x0.") * 6
    assert all(c.tokens <= 64 for c in chunks)
    # without a sentence end anywhere, cuts still fall between words
    words = " ".join(f"w{i}" for i in range(500))
    for chunk in Chunker(RegexTokens(), size=50, overlap=0).chunk(words):
        assert chunk.text.split()[0].startswith("w") and chunk.tokens <= 50


def test_size_is_clamped_to_the_model_input(embedder) -> None:
    chunker = Chunker(tokens_for(embedder), size=1000)
    assert chunker.size == 254  # all-MiniLM-L6-v2: 256 wordpieces minus [CLS] and [SEP]
    assert Chunker(RegexTokens(max_tokens=100), size=300, overlap=80).overlap == 50


def test_bad_chunk_settings_are_refused() -> None:
    from memgpt_local.errors import InvalidInputError

    with pytest.raises(InvalidInputError):
        Chunker(RegexTokens(), size=4)
    with pytest.raises(InvalidInputError):
        Chunker(RegexTokens(), size=100, overlap=100)
