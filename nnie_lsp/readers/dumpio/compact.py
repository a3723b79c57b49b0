"""The compact exact form of a Caffe-side dump: the file RuyiStudio's "Get Caffe Output" would write
for a blob and batch item, with the same name but ``.npz`` for ``.float``
(``<blob>_output<n>_<C>_<H>_<W>_caffe.linear.npz``), holding the values as float32 — Caffe's own
type — in one deflate-compressed ``.npy`` member named :data:`MEMBER`, in the item's shape.

Exact: each float32 value is stored as its four bytes, so a value read back is the value written,
bit for bit (negative zero, subnormals, infinities and NaN payloads included); RuyiStudio's
``%.18e`` text form is exact too, at about 25 bytes a value where this form takes 4 before
compression; deflate takes activations with their ReLU zeros to about 2 (a member that would not
shrink is stored as it is).  It is the standard numpy
archive: ``numpy.load(path)["value"]`` reads it without nnie-lsp.

``nnie-triage reference`` writes this form unless told ``--dump-format text``
(``nnie_lsp/docs/triage-schema.md``, "Caffe dump forms", describes both).  :class:`CompactWriter` compresses files on
worker threads (zlib releases the GIL) while the caller goes on computing.
"""

from __future__ import annotations

import io
import os
import zipfile
from concurrent.futures import Future, ThreadPoolExecutor

import numpy as np

from nnie_lsp.core import safe_io

#: The archive member holding the values.
MEMBER = "value"
#: zlib level: 1 is within a few percent of the best size on activations, at several times the speed.
LEVEL = 1
#: Deflate a member only when a sample of it (the first SAMPLE bytes) shrinks below WORTH of its size.
SAMPLE, WORTH = 1 << 20, 0.85


class CompactDumpError(ValueError):
    """A compact dump that cannot be read (not such an archive, another dtype, a size off its name)."""


def _pays(arr: np.ndarray) -> bool:
    """Whether deflate is worth its time on ``arr``: its first :data:`SAMPLE` bytes shrink below
    :data:`WORTH` (activations with few zeros hardly do; the member is then stored)."""
    import zlib

    head = arr.reshape(-1)[:SAMPLE // 4].tobytes()
    return len(head) < 64 or len(zlib.compress(head, LEVEL)) < WORTH * len(head)


def to_bytes(values) -> bytes:
    """The archive of ``values`` as float32 (its shape kept), deflated when that pays (:func:`_pays`)."""
    arr = np.ascontiguousarray(np.asarray(values, dtype=np.float32))
    buffer = io.BytesIO()
    method = zipfile.ZIP_DEFLATED if _pays(arr) else zipfile.ZIP_STORED
    with zipfile.ZipFile(buffer, "w", compression=method, compresslevel=LEVEL) as archive:
        with archive.open(f"{MEMBER}.npy", "w", force_zip64=arr.nbytes >= (1 << 31)) as member:
            np.lib.format.write_array(member, arr, allow_pickle=False)
    return buffer.getvalue()


def write(path: str, values) -> str:
    """Write the archive of ``values`` to ``path`` (through a temporary name: never half a file)."""
    data = to_bytes(values)
    partial = f"{path}.partial"
    with open(partial, "wb") as handle:
        handle.write(data)
    os.replace(partial, path)
    return path


def read(path: str) -> np.ndarray:
    """The float32 values of a compact dump, flat.  Bounded as every dump is (:mod:`nnie_lsp.core.safe_io`);
    a file that is no such archive raises :class:`CompactDumpError`."""
    data = safe_io.read_bytes(str(path), safe_io.DUMP)
    name = os.path.basename(str(path))
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            info = archive.getinfo(f"{MEMBER}.npy")
            if info.file_size > 8 * safe_io.limit_for(safe_io.DUMP):
                raise CompactDumpError(f"{name}: the values unpack to {info.file_size} bytes, past the bound "
                                       "for dumps")
            with archive.open(info) as member:
                arr = np.lib.format.read_array(member, allow_pickle=False)
    except KeyError:
        raise CompactDumpError(f"{name}: no {MEMBER}.npy in the archive (not a compact Caffe dump)") from None
    except (zipfile.BadZipFile, ValueError, OSError, EOFError) as exc:
        if isinstance(exc, CompactDumpError):
            raise
        raise CompactDumpError(f"{name}: not a readable compact Caffe dump ({exc})") from None
    if arr.dtype != np.float32:
        raise CompactDumpError(f"{name}: values of type {arr.dtype}, not float32")
    return arr.reshape(-1)


class CompactWriter:
    """Writes compact dumps on ``threads`` worker threads: :meth:`write` returns at once with the
    path; leaving the ``with`` block waits for every file and raises the first error."""

    def __init__(self, threads: int = 2) -> None:
        self._pool = ThreadPoolExecutor(max_workers=max(1, threads), thread_name_prefix="nnie-dumps")
        self._pending: list[Future] = []

    def write(self, path: str, values) -> str:
        # a copy: the caller may reuse its array; float32 is what is stored anyway
        arr = np.array(values, dtype=np.float32, copy=True)
        self._pending.append(self._pool.submit(write, path, arr))
        return path

    def __enter__(self) -> "CompactWriter":
        return self

    def __exit__(self, *exc) -> None:
        try:
            for future in self._pending:
                future.result()
        finally:
            self._pool.shutdown(wait=True)
