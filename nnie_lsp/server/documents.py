"""The open documents: one record per NNIE document the client has open.

pygls keeps the text and version of every open document (``workspace.get_text_document``); this
store adds what the server knows about each one — its file path, its kind (cfg or prototxt), the
last lint result accepted for it and the lint the scheduler has pending for it.  Documents that
are not NNIE files (``setup.cfg``…) are never recorded.
"""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Iterator

from pygls.uris import to_fs_path

from nnie_lsp.editor.common import document_kind
from nnie_lsp.core.safe_io import FileProblem, check_text
from nnie_lsp.core.text import LineIndex, read_text

if TYPE_CHECKING:
    from pygls.workspace import TextDocument

    from nnie_lsp.server.scheduler import LintResult


#: How much of a document's text tells what it is (a cfg, a net, a solver file): nnie-lint reads a
#: file's first 8 KB; the editor reads more, never the whole of a huge buffer on the event loop.
SNIFF_CHARS = 1 << 16


@dataclass
class OpenDocument:
    uri: str
    path: str                                   # absolute file path
    kind: str                                   # "cfg" | "prototxt"
    lint: LintResult | None = None              # last result computed for the current state
    pending: asyncio.Task | None = None         # the scheduled lint (debounced)
    last_change: float | None = None            # monotonic time of the last didChange
    checked: tuple | None = None                # (version, FileProblem or None): the text's size checked


class DocumentStore:
    """The open NNIE documents by URI, their text and versions (read from the pygls workspace)."""

    def __init__(self, text_document: Callable[[str], TextDocument]) -> None:
        self._text_document = text_document
        self._records: dict[str, OpenDocument] = {}

    # ------------------------------------------------------------------ records
    def track(self, uri: str, language_id: str | None, text: str) -> OpenDocument | None:
        """Record `uri` if it is an NNIE document (by language id, extension or content)."""
        path = to_fs_path(uri)
        if path is None:
            return None
        kind = document_kind(path, language_id, text[:SNIFF_CHARS])   # told by its head, as nnie-lint does
        if kind is None:
            self._records.pop(uri, None)
            return None
        record = OpenDocument(uri, os.path.abspath(path), kind)
        self._records[uri] = record
        return record

    def close(self, uri: str) -> OpenDocument | None:
        """Forget `uri` and cancel its pending lint; the record, if there was one."""
        record = self._records.pop(uri, None)
        if record is not None and record.pending is not None:
            record.pending.cancel()
            record.pending = None
        return record

    def get(self, uri: str) -> OpenDocument | None:
        return self._records.get(uri)

    def __contains__(self, uri: object) -> bool:
        return uri in self._records

    def __iter__(self) -> Iterator[OpenDocument]:
        return iter(list(self._records.values()))

    def __len__(self) -> int:
        return len(self._records)

    def uri_for_path(self, path: str) -> str | None:
        absolute = os.path.abspath(path)
        for record in self._records.values():
            if record.path == absolute:
                return record.uri
        return None

    # ------------------------------------------------------------------ text and versions
    def text(self, uri: str) -> tuple[str, int | None]:
        """The editor's current text of `uri` and its version."""
        document = self._text_document(uri)
        return document.source, document.version

    def problem(self, uri: str) -> FileProblem | None:
        """Why `uri`'s text is not linted nor parsed (past the bound for its kind, as a file of that
        name: :func:`nnie_lsp.core.safe_io.check_text`), or None; checked once per version."""
        record = self._records.get(uri)
        if record is None:
            return None
        text, version = self.text(uri)
        if record.checked is None or record.checked[0] != version or version is None:
            record.checked = (version, check_text(text, record.path, record.kind))
        return record.checked[1]

    def version(self, uri: str) -> int | None:
        try:
            return self._text_document(uri).version
        except Exception:
            return None

    def state(self) -> tuple:
        """The versions of every open document: a lint is current while this is unchanged
        (a cfg edit changes the findings of its prototxt, and the other way round)."""
        return tuple((uri, self.version(uri)) for uri in sorted(self._records))

    def overlay(self) -> tuple[dict[str, str], dict[str, int]]:
        """Path -> unsaved editor text, and path -> version, of every open document."""
        texts: dict[str, str] = {}
        versions: dict[str, int] = {}
        for record in self._records.values():
            text, version = self.text(record.uri)
            texts[record.path] = text
            if version is not None:
                versions[record.path] = version
        return texts, versions

    def current_text(self, uri: str) -> str | None:
        """`uri`'s text now: the editor's when it is open, else the file's (None: unreadable)."""
        if uri in self._records:
            return self.text(uri)[0]
        path = to_fs_path(uri)
        if path is None:
            return None
        try:
            return read_text(path).text
        except OSError:
            return None

    def line_index_for_path(self, path: str) -> LineIndex | None:
        """Lines of `path`: the editor's text when it is open, else the file on disk."""
        uri = self.uri_for_path(path)
        if uri is not None:
            return LineIndex(self.text(uri)[0])
        try:
            return LineIndex(read_text(path).text)  # the guarded reader (safe_io)
        except OSError:
            return None
