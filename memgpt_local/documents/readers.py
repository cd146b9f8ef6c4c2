"""Text extraction from files: plain text, markdown, PDF (pypdf), HTML (text only) and source code.

``read_document(path)`` (``read_bytes`` then ``extract``) returns a ``Document`` (the text,
its kind and the hash of the raw bytes) or raises ``UnreadableFileError`` saying why the file
was skipped: binary content, invalid UTF-8, no text at all, a PDF pypdf cannot open, an
unsupported file type. Nothing here touches the store.
"""

from __future__ import annotations

import hashlib
import io
import re
import stat
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from typing import Literal

from memgpt_local.errors import MemGPTLocalError

Kind = Literal["text", "markdown", "pdf", "html", "code"]

MARKDOWN_EXTENSIONS = frozenset({".md", ".markdown", ".mdown", ".mkd"})
HTML_EXTENSIONS = frozenset({".html", ".htm", ".xhtml"})
TEXT_EXTENSIONS = frozenset({".txt", ".text", ".rst", ".org", ".adoc", ".log", ".csv", ".tsv"})
CODE_EXTENSIONS = frozenset(
    ".py .pyi .js .mjs .cjs .jsx .ts .tsx .java .kt .kts .scala .c .h .cc .cpp .cxx .hpp .hh "
    ".cs .go .rs .rb .php .pl .pm .lua .r .jl .swift .m .mm .dart .ex .exs .erl .hs .ml .mli "
    ".clj .el .lisp .scm .sh .bash .zsh .fish .ps1 .bat .sql .css .scss .less .vue .svelte "
    ".json .jsonl .yaml .yml .toml .ini .cfg .conf .xml .proto .graphql .tf .nix .cmake .mk "
    ".gradle .ipynb .tex .bib".split()
)
# Files without a suffix that are commonly text.
CODE_NAMES = frozenset(
    {
        "makefile",
        "dockerfile",
        "license",
        "readme",
        "changelog",
        "authors",
        "notice",
        "copying",
        "install",
        "todo",
        "gemfile",
        "rakefile",
        "procfile",
    }
)
SNIFF_BYTES = 8192
MAX_BYTES = 256 * 2**20


class UnreadableFileError(MemGPTLocalError):
    """A file that cannot be read as text; the load skips it with one warning line."""

    def __init__(self, path: Path, reason: str, hint: str | None = None):
        self.path, self.reason = path, reason
        super().__init__(f"{path}: {reason}", hint)


@dataclass(frozen=True)
class Document:
    path: Path
    kind: Kind
    text: str
    content_hash: str  # sha256 of the raw bytes


def kind_of(path: Path) -> Kind | None:
    """The kind of document a file name suggests, or None for an unsupported one."""
    suffix = path.suffix.lower()
    if suffix in MARKDOWN_EXTENSIONS:
        return "markdown"
    if suffix == ".pdf":
        return "pdf"
    if suffix in HTML_EXTENSIONS:
        return "html"
    if suffix in TEXT_EXTENSIONS:
        return "text"
    if suffix in CODE_EXTENSIONS or (not suffix and path.name.lower() in CODE_NAMES):
        return "code"
    if not suffix:
        return "text"  # extensionless: loaded if the bytes turn out to be text
    return None


def content_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def read_bytes(path: Path) -> bytes:
    """The raw bytes of a supported file; ``UnreadableFileError`` if it is skipped."""
    if kind_of(path) is None:
        raise UnreadableFileError(
            path, f"unsupported file type {path.suffix!r}", "load .txt, .md, .pdf, .html or source files"
        )
    try:
        info = path.stat()
        if not stat.S_ISREG(info.st_mode):
            raise UnreadableFileError(path, "not a regular file")
        if info.st_size > MAX_BYTES:
            raise UnreadableFileError(
                path, f"too large ({info.st_size // 2**20} MiB)", f"split it into files under {MAX_BYTES // 2**20} MiB"
            )
        data = path.read_bytes()
    except OSError as exc:
        raise UnreadableFileError(
            path, f"cannot read the file ({exc.strerror or exc})", "check its permissions"
        ) from exc
    if not data.strip():
        raise UnreadableFileError(path, "empty file")
    return data


def extract(path: Path, data: bytes) -> Document:
    """The text of a file's bytes (read by ``read_bytes``) as a ``Document``."""
    kind = kind_of(path) or "text"
    if kind == "pdf":
        text = pdf_text(path, data)
    else:
        text = decode_text(path, data)
        if kind == "html":
            text = html_text(text)
    text = normalize(text)
    if not text.strip():
        raise UnreadableFileError(path, "no text to load", "a scanned PDF needs OCR first" if kind == "pdf" else None)
    return Document(path=path, kind=kind, text=text, content_hash=content_hash(data))


def read_document(path: Path) -> Document:
    """Read and extract the text of one file; ``UnreadableFileError`` if it is skipped."""
    return extract(path, read_bytes(path))


def decode_text(path: Path, data: bytes) -> str:
    """UTF-8 (a BOM is dropped; UTF-16 with a BOM is accepted); binaries are refused."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError as exc:
            raise UnreadableFileError(path, "not valid UTF-16 despite its byte order mark") from exc
    if b"\x00" in data[:SNIFF_BYTES]:
        raise UnreadableFileError(path, "binary file")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise UnreadableFileError(
            path,
            f"not valid UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start})",
            "convert it to UTF-8, e.g. iconv -f latin1 -t utf-8",
        ) from exc


def normalize(text: str) -> str:
    """Unix newlines, no trailing spaces on lines, no runs of more than one blank line."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "")
    text = re.sub(r"[ \t\f\v]+\n", "\n", text)
    return re.sub(r"\n{3,}", "\n\n", text).strip("\n")


# ---------------------------------------------------------------------------- PDF


def pdf_text(path: Path, data: bytes) -> str:
    """The text of every page (pypdf's layout-free extraction), pages as paragraphs."""
    from pypdf import PdfReader
    from pypdf.errors import PyPdfError

    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not reader.decrypt(""):
            raise UnreadableFileError(path, "encrypted PDF", "decrypt it first, e.g. qpdf --decrypt")
        pages = [page.extract_text() or "" for page in reader.pages]
    except UnreadableFileError:
        raise
    except (PyPdfError, ValueError, KeyError, TypeError, OSError) as exc:
        raise UnreadableFileError(path, f"unreadable PDF ({type(exc).__name__}: {exc})") from exc
    return "\n\n".join(p.strip() for p in pages if p.strip())


# --------------------------------------------------------------------------- HTML


class _HTMLText(HTMLParser):
    """Collects visible text; block elements become paragraph breaks, headings '#' lines."""

    BLOCKS = frozenset(
        "p div section article main header footer nav aside ul ol li table tr "
        "blockquote pre figure figcaption dl dt dd form fieldset hr br "
        "address details summary".split()
    )
    LINES = frozenset({"br", "li", "tr", "dt", "dd"})  # a line break, not a paragraph
    HIDDEN = frozenset({"script", "style", "noscript", "template", "head", "svg"})
    HEADINGS = {f"h{n}": n for n in range(1, 7)}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.hidden = 0
        self.pre = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "body":
            self.hidden = 0  # a <head> left open ends here
        elif tag in self.HIDDEN:
            self.hidden += 1
        elif tag in self.HEADINGS:
            self.parts.append("\n\n" + "#" * self.HEADINGS[tag] + " ")
        elif tag in self.BLOCKS:
            self.parts.append("\n" if tag in self.LINES else "\n\n")
        if tag == "pre":
            self.pre += 1
        elif tag in ("td", "th"):
            self.parts.append(" ")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("br", "hr"):
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in self.HIDDEN:
            self.hidden = max(0, self.hidden - 1)
        elif tag in self.HEADINGS:
            self.parts.append("\n\n")
        elif tag in self.BLOCKS and tag not in self.LINES:
            self.parts.append("\n\n")
        if tag == "pre":
            self.pre = max(0, self.pre - 1)

    def handle_data(self, data: str) -> None:
        if self.hidden:
            return
        self.parts.append(data if self.pre else re.sub(r"\s+", " ", data))


def html_text(markup: str) -> str:
    parser = _HTMLText()
    parser.feed(markup)
    parser.close()
    lines = (line.strip() for line in "".join(parser.parts).split("\n"))
    return normalize("\n".join(line for line in lines if not line or line.strip("# ")))
