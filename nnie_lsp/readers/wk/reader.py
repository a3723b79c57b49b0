"""Read a `.wk` file into a :class:`~.model.WkModel` (pure Python: ``struct`` and ``zlib``).

A file that cannot be a `.wk` (empty, text, a Git LFS pointer, no 0xC0 header, an unknown format
version, node tables that do not fit) raises :class:`WkError` with the byte offset where it
fails.  A file whose tables read but that the mapper did not write so -- a CRC mismatch, a size
that breaks the size equation (a truncated copy, bytes appended), length fields that disagree, a
memory plan that does not end at the temp buffer -- is read as far as it goes, and each problem is
a :class:`~.model.Damage` with its offset.  Never raises anything else for any bytes.
"""

from __future__ import annotations

import struct
import zlib

from nnie_lsp.readers.wk import layout
from nnie_lsp.readers.wk.layout import looks_like_wk
from nnie_lsp.readers.wk.board import node_blob
from nnie_lsp.readers.wk.model import DESTINATION, SOURCE, Damage, PlanRecord, WkModel, WkNode, WkSegment, count_census

__all__ = ["WkError", "parse_wk", "read_wk", "looks_like_wk", "lfs_pointer"]

#: The largest file read (a `.wk` holds the net's weights: VGG-16 at 8 bits is about 140 MB).
MAX_BYTES = 1 << 30

_U32 = struct.Struct("<I")
_SEGMENT = struct.Struct("<BBBBHHII")
_NODE = struct.Struct("<III")
_PLAN = struct.Struct("<BBHHHIIIIIIiIII")


class WkError(ValueError):
    """The file is not a readable `.wk`.  ``kind``: ``empty``, ``text``, ``lfs-pointer``,
    ``not-wk``, ``version``, ``truncated``, ``structure``, ``unreadable``; ``offset`` is the byte
    where reading failed (None when the file could not be read at all)."""

    def __init__(self, kind: str, offset: int | None, message: str, path: str | None = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.offset = offset
        self.message = message
        self.path = path

    def __str__(self) -> str:
        where = f" (at byte {self.offset:#x})" if self.offset is not None else ""
        return f"{self.path + ': ' if self.path else ''}{self.message}{where}"


def lfs_pointer(data: bytes) -> dict | None:
    """The ``oid`` and ``size`` of a Git LFS pointer file, or None when ``data`` is not one."""
    if not data.startswith(layout.LFS_PREFIX):
        return None
    out = {}
    for line in data[:1024].decode("ascii", "replace").splitlines():
        key, _, value = line.partition(" ")
        if key in ("oid", "size"):
            out[key] = value.strip()
    return out


def _looks_text(data: bytes) -> bool:
    head = data[:512]
    if b"\x00" in head:
        return False
    printable = sum(1 for b in head if b >= 32 or b in (9, 10, 13))
    return printable >= 0.95 * len(head)


def _u32(data: bytes, at: int) -> int:
    return _U32.unpack_from(data, at)[0]


def read_wk(path: str) -> WkModel:
    """The `.wk` at ``path`` (:func:`parse_wk`); a file that cannot be read is a :class:`WkError`
    of kind ``unreadable`` with the reason (``nnie_lsp.core.safe_io``)."""
    from nnie_lsp.core import safe_io

    try:
        data = safe_io.read_bytes(path, safe_io.WK, limit=MAX_BYTES)
    except OSError as exc:
        raise WkError("unreadable", None, f"cannot read: {exc}", path) from None
    return parse_wk(data, path)


def parse_wk(data: bytes, path: str | None = None) -> WkModel:
    """The `.wk` held in ``data`` (module docstring for what raises and what is damage)."""
    data = bytes(data)
    size = len(data)
    if size == 0:
        raise WkError("empty", 0, "an empty file, not a .wk", path)
    lfs = lfs_pointer(data)
    if lfs is not None:
        what = ", ".join(f"{k} {v}" for k, v in lfs.items())
        raise WkError("lfs-pointer", 0, f"a Git LFS pointer ({what}), not the model: the .wk itself was never "
                                        "fetched (git lfs pull)", path)
    if _looks_text(data):
        first = data[:40].decode("utf-8", "replace").splitlines()[0] if data.strip() else ""
        raise WkError("text", 0, f"text ({first!r}…), not a .wk (a .wk is binary)", path)
    if size < layout.HEADER_SIZE:
        raise WkError("truncated", size, f"{size} bytes: shorter than the {layout.HEADER_SIZE}-byte header "
                                         "of a .wk (a truncated copy, or not a .wk)", path)
    header_size = _u32(data, layout.HEADER_SIZE_AT)
    if header_size != layout.HEADER_SIZE:
        raise WkError("not-wk", layout.HEADER_SIZE_AT,
                      f"not a .wk: the header size at 0x08 is {header_size:#x}, every .wk has 0xC0", path)
    version = tuple(data[layout.FORMAT:layout.FORMAT + 4])
    if version != layout.FORMAT_VERSION:
        raise WkError("version", layout.FORMAT,
                      f"unknown .wk format version {'.'.join(map(str, version))} at 0x10 (this reader knows "
                      f"{'.'.join(map(str, layout.FORMAT_VERSION))}, the version of every NNIE 1.2 .wk seen)", path)
    count = data[layout.SEGMENT_COUNT]
    if not 1 <= count <= layout.MAX_SEGMENTS:
        raise WkError("structure", layout.SEGMENT_COUNT,
                      f"{count} segments at 0x31: a .wk has 1 to {layout.MAX_SEGMENTS}", path)
    damage: list[Damage] = []
    segments = _segments(data, count, path, damage)
    tables_end = _u32(data, layout.TABLES_END)
    read_end = segments[-1].destinations[-1].offset + layout.NODE_RECORD
    if read_end != tables_end:
        raise WkError("structure", layout.TABLES_END,
                      f"the node tables end at {read_end:#x} but [0x34] says {tables_end:#x}", path)
    data_length = _u32(data, layout.DATA_LENGTH)
    tail_length = _u32(data, layout.TAIL_LENGTH)
    expected = tables_end + data_length + tail_length
    covered = tables_end + data_length
    if size < expected:
        damage.append(Damage("size", size, f"truncated: {size} bytes, the size equation [0x34]+[0x38]+[0xB4] "
                                           f"says {expected} ({expected - size} bytes missing): the copy was cut"))
    elif size > expected:
        damage.append(Damage("size", expected, f"{size - expected} bytes after the end the size equation "
                                               f"[0x34]+[0x38]+[0xB4] gives ({expected}): something was appended"))
    length = _u32(data, layout.LENGTH)
    want = covered - layout.HEADER_SIZE - layout.SEGMENT_RECORD * count
    if length != want:
        damage.append(Damage("length", layout.LENGTH, f"the length at 0x04 is {length}, the tables and data "
                                                      f"give {want}"))
    again = _u32(data, layout.DATA_LENGTH_AGAIN)
    if again != data_length:
        damage.append(Damage("length", layout.DATA_LENGTH_AGAIN,
                             f"the data length at 0xB0 is {again}, at 0x38 {data_length}: they are equal in a .wk"))
    stored = _u32(data, layout.CRC)
    computed = None
    if size >= covered:
        computed = zlib.crc32(memoryview(data)[4:covered], layout.CRC_START) & 0xFFFFFFFF
        if computed != stored:
            damage.append(Damage("crc", layout.CRC, f"CRC mismatch: 0x00 holds {stored:#010x}, bytes 4 to {covered:#x} "
                                                    f"give {computed:#010x}: the file was changed after the mapper "
                                                    "wrote it"))
    plan = _plan(data, covered, tail_length, damage)
    temp = _u32(data, layout.TEMP_BUFFER)
    if plan:
        end = max(r.end for r in plan)
        if end != temp:
            damage.append(Damage("plan", covered, f"the memory plan ends at {end} but the temp buffer at 0x0C "
                                                  f"is {temp}: the tail is not the one the mapper wrote"))
    build_id = data[layout.BUILD_ID:layout.BUILD_ID + layout.BUILD_ID_SIZE].split(b"\0", 1)[0]
    sections = tuple((_u32(data, at), _u32(data, at + 4))
                     for at in range(layout.SECTIONS, layout.SECTIONS_END, 16))
    return WkModel(
        path=path, file_size=size, crc_stored=stored, crc_computed=computed, length=length,
        header_size=header_size, temp_buffer=temp, format_version=version,  # type: ignore[arg-type]
        mapper_bytes=tuple(data[layout.MAPPER_VERSION:layout.MAPPER_VERSION + 4]),  # type: ignore[arg-type]
        build_number=_u32(data, layout.BUILD_NUMBER), build_id=build_id.decode("ascii", "replace"),
        run_mode=data[layout.RUN_MODE], stride_byte=data[layout.STRIDE_BYTE], tables_end=tables_end,
        data_length=data_length, data_length_again=again, tail_length=tail_length, sections=sections,
        segments=segments, plan=plan, damage=tuple(damage), plan_census=count_census(plan))


def _need(data: bytes, at: int, count: int, what: str, path: str | None) -> None:
    if at + count > len(data):
        raise WkError("truncated", len(data), f"truncated inside the node tables: {what} at {at:#x} needs "
                                              f"{count} bytes, the file ends at {len(data):#x}", path)


def _segments(data: bytes, count: int, path: str | None, damage: list[Damage]) -> tuple[WkSegment, ...]:
    at = layout.HEADER_SIZE
    out = []
    for k in range(count):
        _need(data, at, layout.SEGMENT_RECORD, f"segment {k}'s record", path)
        net_type, n_src, n_dst, rois, max_step, reserved, ins_off, ins_len = _SEGMENT.unpack_from(data, at)
        for n, what in ((n_src, "sources"), (n_dst, "destinations")):
            if not 1 <= n <= layout.MAX_NODES:
                offset = at + (1 if what == "sources" else 2)
                raise WkError("structure", offset, f"segment {k} has {n} {what}: a segment has 1 to "
                                                   f"{layout.MAX_NODES}", path)
        seg_at = at
        at += layout.SEGMENT_RECORD
        nodes: list[WkNode] = []
        for j in range(n_src + n_dst):
            _need(data, at, layout.NODE_RECORD, f"node {j} of segment {k}", path)
            role = SOURCE if j < n_src else DESTINATION
            if b"\0" not in data[at + 16:at + 16 + layout.NAME_FIELD]:
                damage.append(Damage("structure", at + 16, f"node {j} of segment {k}: its name field has no NUL "
                                                           "terminator (the mapper always ends a name)"))
            nodes.append(_node(data, at, k, role, j if j < n_src else j - n_src, net_type))
            at += layout.NODE_RECORD
        out.append(WkSegment(index=k, offset=seg_at, net_type=net_type, roi_count=rois, max_step=max_step,
                             reserved=reserved, instruction_offset=ins_off, instruction_length=ins_len,
                             sources=tuple(nodes[:n_src]), destinations=tuple(nodes[n_src:])))
    return tuple(out)


def _node(data: bytes, at: int, segment: int, role: str, index: int, net_type: int) -> WkNode:
    height, width, channels = _NODE.unpack_from(data, at)
    field = data[at + 16:at + 16 + layout.NAME_FIELD]
    name_bytes = field.split(b"\0", 1)[0][:layout.NAME_KEPT]
    kind_byte = data[at + 12]
    image_type = data[at + 14] if role == SOURCE else None
    return WkNode(segment=segment, role=role, index=index, offset=at, height=height, width=width,
                  channels=channels, name=name_bytes.decode("utf-8", "replace"), name_bytes=name_bytes,
                  kind_byte=kind_byte if role == DESTINATION else 0, image_type=image_type,
                  extra=data[at + 48:at + 64],
                  board=node_blob(role, net_type, height, width, channels, kind_byte, image_type))



def _plan(data: bytes, start: int, length: int, damage: list[Damage]) -> tuple[PlanRecord, ...]:
    """The memory plan's records, when the whole tail is in the file."""
    if length % layout.BLOB_RECORD:
        damage.append(Damage("plan", layout.TAIL_LENGTH, f"the memory plan's length at 0xB4 ({length}) is not a "
                                                         f"multiple of its {layout.BLOB_RECORD}-byte records"))
    if start + length > len(data):
        return ()  # truncated: said by the size equation
    end = start + length - length % layout.BLOB_RECORD
    make, size = PlanRecord._make, layout.BLOB_RECORD
    out = [make((*values, k, start + k * size)) for k, values in enumerate(_PLAN.iter_unpack(data[start:end]))]
    return tuple(out)
