"""Small `.wk`-shaped files for tests, written only in the shapes the real files show
(docs/field-facts.md §18): the 0xC0 header with the format version 1.1.1.2, the mapper version
bytes and build id of a real mapper, run mode 0, internal stride 16, 16-byte segment records,
64-byte node records (H, W, C; byte +12 the output kind; byte +14 the input's image type; a
NUL-terminated name), a data area the CRC covers, and a memory plan of 48-byte records whose row
stride is align16(width × bytes per element) (or four bytes per column, as some real 1-byte blobs
have) and whose last byte is the temp buffer.  And the damage real copies suffer: truncation, a
changed byte, a Git LFS pointer in place of the file.
"""

from __future__ import annotations

import hashlib
import struct
import zlib
from dataclasses import dataclass, field

from nnie_lsp.readers.wk import layout

#: (mapper version bytes, build number, build id) of real mappers (docs/field-facts.md §18).
REAL_MAPPERS = {
    "1.2.0.1": ((1, 2, 0, 1), 30, b"1806202019199096"),
    "1.2.0.5": ((1, 2, 0, 5), 10, b"1810161745211922"),
    "1.2.1.0": ((1, 2, 1, 0), 20, b"19010713251682\0\0"),
}
OUTPUT_OP = 0x2D   # the op byte of the plan records of outputs (size 0) in every real file
INPUT_OP = 0x2C    # the op byte of the input's record


@dataclass(frozen=True)
class Node:
    name: str
    height: int
    width: int
    channels: int
    image_type: int = 1     # sources: the cfg's [image_type] code
    vector: bool = False    # destinations: a vector (FC) output


@dataclass(frozen=True)
class Segment:
    sources: tuple[Node, ...]
    destinations: tuple[Node, ...]
    net_type: int = 0


@dataclass(frozen=True)
class Blob:
    """One memory-plan record: ``element_size`` 1 (8-bit), 2 (16-bit) or 4 (S32)."""

    width: int
    height: int
    channels: int
    element_size: int
    op: int = 0
    packed: bool = False    # a 1-byte blob with align16(4 × width) as its row stride
    output: bool = False    # an output's record: size 0 (the user's destination blob holds it)


@dataclass(frozen=True)
class WkSpec:
    segments: tuple[Segment, ...]
    blobs: tuple[Blob, ...]
    mapper: str = "1.2.1.0"
    data_length: int = 4096
    format_version: tuple[int, int, int, int] = layout.FORMAT_VERSION
    extra: dict = field(default_factory=dict)   # header offset -> u32 written over the computed value


def _stride(blob: Blob) -> int:
    return layout.align16(blob.width * (4 if blob.packed else blob.element_size))


def _plan(blobs: tuple[Blob, ...]) -> tuple[bytes, int]:
    out = bytearray()
    offset = end = 0
    for k, blob in enumerate(blobs):
        stride = _stride(blob)
        if blob.output:
            at, size = 0, 0
        elif blob.packed:
            at, size = offset, blob.width * blob.height * blob.channels
        else:
            at, size = offset, stride * blob.height * blob.channels
        if size:
            offset = (at + size + 255) // 256 * 256
            end = max(end, at + size)
        out += struct.pack("<BBHHHIIIIIIiIII", blob.op, blob.element_size, blob.width, 0, blob.height,
                           blob.channels, at, 0x100 if blob.output else 0, stride, k << 16, 40 + 60 * k, 0,
                           size, 0, 0)
    return bytes(out), end


def write_wk(spec: WkSpec) -> bytes:
    """The bytes of a `.wk` as ``spec`` describes it (CRC and lengths computed)."""
    version, build, build_id = REAL_MAPPERS[spec.mapper]
    tables = bytearray()
    instructions_at = spec.data_length // 2
    for segment in spec.segments:
        tables += struct.pack("<BBBBHHII", segment.net_type, len(segment.sources), len(segment.destinations), 0, 0,
                              0, instructions_at, spec.data_length // 4)
        for role, nodes in (("src", segment.sources), ("dst", segment.destinations)):
            for node in nodes:
                name = node.name.encode("utf-8")[:layout.NAME_KEPT]
                kind = 0 if role == "src" else (0 if node.vector else 1)
                image = node.image_type if role == "src" else 0
                tables += struct.pack("<IIIBBBB", node.height, node.width, node.channels, kind, 0, image, 0)
                tables += name.ljust(layout.NAME_FIELD, b"\0") + struct.pack("<I", 3 if role == "src" else 2) + bytes(12)
    tables_end = layout.HEADER_SIZE + len(tables)
    seed = hashlib.sha256(repr(spec).encode()).digest()
    data_area = (seed * (spec.data_length // len(seed) + 1))[:spec.data_length]
    tail, temp = _plan(spec.blobs)
    header = bytearray(layout.HEADER_SIZE)
    struct.pack_into("<III", header, 4, tables_end + spec.data_length - layout.HEADER_SIZE
                     - layout.SEGMENT_RECORD * len(spec.segments), layout.HEADER_SIZE, temp)
    header[layout.FORMAT:layout.FORMAT + 4] = bytes(spec.format_version)
    header[layout.MAPPER_VERSION:layout.MAPPER_VERSION + 4] = bytes(version)
    struct.pack_into("<I", header, layout.BUILD_NUMBER, build)
    header[layout.BUILD_ID:layout.BUILD_ID + 16] = build_id
    header[layout.RUN_MODE] = 0
    header[layout.SEGMENT_COUNT] = len(spec.segments)
    header[layout.STRIDE_BYTE] = 16
    header[layout.STRIDE_BYTE + 1] = 0
    struct.pack_into("<II", header, layout.TABLES_END, tables_end, spec.data_length)
    # the data area's sections (offset, length) as the real files list them; the memory plan last
    struct.pack_into("<II", header, layout.SECTIONS, instructions_at + spec.data_length // 4, spec.data_length // 8)
    struct.pack_into("<II", header, layout.SECTIONS + 16, 0, instructions_at)
    struct.pack_into("<II", header, layout.DATA_LENGTH_AGAIN, spec.data_length, len(tail))
    for at, value in spec.extra.items():
        struct.pack_into("<I", header, at, value)
    body = bytes(header) + bytes(tables) + data_area
    crc = zlib.crc32(body[4:], layout.CRC_START) & 0xFFFFFFFF
    if layout.CRC not in spec.extra:
        body = struct.pack("<I", crc) + body[4:]
    return body + tail


def simple_spec(inputs: list[Node], outputs: list[Node], *, bits: str = "8-bit", mapper: str = "1.2.1.0",
                middle: int = 4) -> WkSpec:
    """One CNN segment: the input's record, ``middle`` intermediate blobs of the build's width
    (``8-bit``: 1 byte; ``16-bit``: 2; ``mixed``: half of each) with an S32 accumulator, and one
    S32 record per output."""
    element = {"8-bit": (1,), "16-bit": (2,), "mixed": (1, 2)}[bits]
    first = inputs[0]
    blobs = [Blob(first.width, first.height, first.channels, element[-1] if bits == "16-bit" else 1, op=INPUT_OP)]
    for k in range(middle):
        blobs.append(Blob(max(1, first.width // 2), max(1, first.height // 2), 8, element[k % len(element)]))
    blobs.append(Blob(max(1, first.width // 2), max(1, first.height // 2), 8, 4))
    for node in outputs:
        width = node.height * node.width * node.channels if node.vector else node.width
        blobs.append(Blob(width, 1 if node.vector else node.height, 1 if node.vector else node.channels, 4,
                          op=OUTPUT_OP, output=True))
    return WkSpec(segments=(Segment(tuple(inputs), tuple(outputs)),), blobs=tuple(blobs), mapper=mapper)


def lfs_pointer_for(data: bytes) -> bytes:
    """The Git LFS pointer a repository holds in place of ``data`` when LFS was never pulled."""
    return (b"version https://git-lfs.github.com/spec/v1\noid sha256:" + hashlib.sha256(data).hexdigest().encode()
            + b"\nsize " + str(len(data)).encode() + b"\n")


def flip(data: bytes, offset: int) -> bytes:
    """``data`` with one byte changed (the CRC breaks when the byte is under it)."""
    return data[:offset] + bytes([data[offset] ^ 0xFF]) + data[offset + 1:]
