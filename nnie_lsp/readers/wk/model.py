"""The `.wk` as an immutable document (:class:`WkModel`), with the facts derived from it.

Read by :mod:`.reader`; the layout and the status of each field are :mod:`.layout`.  Every
number here is what the file holds, except the fields marked inferred (``layout.FIELD_STATUS``)
and the board-side sizes, which follow the SDK sample's rules (:mod:`.board`).
"""

from __future__ import annotations

from nnie_lsp.core.records import NamedTuple

from nnie_lsp.readers.wk import layout
from nnie_lsp.readers.wk.board import DESTINATION, BoardBlob, BoardMemory, board_memory

SOURCE = "source"



class WkNode(NamedTuple):
    """An input (source) or output (destination) node of a segment."""

    segment: int
    role: str               # SOURCE or DESTINATION
    index: int              # within its segment and role
    offset: int             # of its 64-byte record in the file
    height: int
    width: int
    channels: int
    name: str
    name_bytes: bytes       # as stored (at most layout.NAME_KEPT bytes)
    kind_byte: int          # +12: 1 a 4-D output, 0 a vector output [I] (sources: 0)
    image_type: int | None  # +14 of a source: the cfg's [image_type] code; None for a destination
    extra: bytes            # +48..+63, unknown
    board: BoardBlob

    @property
    def name_may_be_cut(self) -> bool:
        """31 bytes kept: the prototxt's name may have been longer (the file cannot tell)."""
        return len(self.name_bytes) >= layout.NAME_KEPT

    @property
    def is_vector(self) -> bool:
        return self.role == DESTINATION and self.kind_byte == 0

    @property
    def shape_text(self) -> str:
        return f"{self.height}×{self.width}×{self.channels}"

    @property
    def image_type_name(self) -> str | None:
        if self.image_type is None:
            return None
        return layout.IMAGE_TYPES.get(self.image_type, f"unknown code {self.image_type}")


class BitCensus(NamedTuple):
    """Blobs of the memory plan by bytes per element: 1 = 8-bit, 2 = 16-bit, 4 = S32 results."""

    one: int = 0
    two: int = 0
    four: int = 0
    other: int = 0
    packed: int = 0          # 1-byte blobs whose row stride holds 4 bytes per column (see reader)

    @property
    def verdict(self) -> str:
        """``8-bit``, ``16-bit``, ``mixed`` (some layers 16-bit) or ``unknown`` (no 1- or 2-byte blob)."""
        if self.one and self.two:
            return "mixed"
        if self.two:
            return "16-bit"
        if self.one:
            return "8-bit"
        return "unknown"

    @property
    def total(self) -> int:
        return self.one + self.two + self.four + self.other



class PlanRecord(NamedTuple):
    """One 48-byte record of the memory plan (the file's tail), its fields in the file's order
    (the reader makes each from one ``struct`` unpack); ``word*`` are unknown [?]."""

    op: int                 # +0 (u8): 0x2C the input's record, 0x2D an output's; else the kind of layer? [?]
    element_size: int       # +1 (u8): bytes per element [I]
    width: int              # +2 (u16)
    word4: int              # +4 (u16), 0 on every real file
    height: int             # +6 (u16)
    channels: int           # +8
    offset: int             # +12, in the temp buffer
    word16: int
    stride: int             # +20, bytes per row
    word24: int             # its upper half counts the records' layers [?]
    word28: int
    word32: int             # signed
    size: int               # +36; 0 for an output the user's destination blob holds
    word40: int
    word44: int
    index: int              # the record's position in the plan
    offset_in_file: int

    @property
    def end(self) -> int:
        return self.offset + self.size

    @property
    def packed(self) -> bool:
        """The row stride is not align16(width × element size) (seen on 1-byte blobs whose stride
        is align16(4 × width): four channels per row) [I]."""
        return self.stride != layout.align16(self.width * self.element_size)


def count_census(plan) -> BitCensus:
    """The census of a memory plan's records."""
    counts = {1: 0, 2: 0, 4: 0}
    other = packed = 0
    for r in plan:
        if r.element_size in counts:
            counts[r.element_size] += 1
        else:
            other += 1
        packed += r.stride != layout.align16(r.width * r.element_size)
    return BitCensus(counts[1], counts[2], counts[4], other, packed)


class WkSegment(NamedTuple):
    index: int
    offset: int             # of its 16-byte record
    net_type: int
    roi_count: int
    max_step: int
    reserved: int           # the u16 after max_step [?]
    instruction_offset: int  # relative to the data area
    instruction_length: int
    sources: tuple[WkNode, ...]
    destinations: tuple[WkNode, ...]

    @property
    def net_type_name(self) -> str:
        return layout.NET_TYPES.get(self.net_type, f"unknown ({self.net_type})")

    @property
    def nodes(self) -> tuple[WkNode, ...]:
        return self.sources + self.destinations


class Damage(NamedTuple):
    """Something in the file that the mapper did not write so (a clear error, with its offset)."""

    kind: str               # "crc", "size", "length", "plan"
    offset: int
    message: str


class WkModel(NamedTuple):
    """A `.wk` file read: its header fields, segments with their nodes, the memory plan and the
    damage found (an intact file has none)."""

    path: str | None
    file_size: int
    crc_stored: int
    crc_computed: int | None      # None when the file is too short to compute it
    length: int
    header_size: int
    temp_buffer: int
    format_version: tuple[int, int, int, int]
    mapper_bytes: tuple[int, int, int, int]   # [I] the mapper version
    build_number: int                          # [I]
    build_id: str                              # [I]
    run_mode: int
    stride_byte: int                           # [I] internal_stride
    tables_end: int
    data_length: int
    data_length_again: int
    tail_length: int
    sections: tuple[tuple[int, int], ...]      # (offset, length) pairs at 0x40..0xAF [?]
    segments: tuple[WkSegment, ...]
    plan: tuple[PlanRecord, ...]
    damage: tuple[Damage, ...] = ()
    plan_census: BitCensus | None = None       # the plan's census, counted once (see census())

    # ------------------------------------------------------------------ integrity
    @property
    def intact(self) -> bool:
        return not self.damage

    @property
    def crc_ok(self) -> bool | None:
        return None if self.crc_computed is None else self.crc_computed == self.crc_stored

    @property
    def expected_size(self) -> int:
        """The size equation: [0x34] + [0x38] + [0xB4]."""
        return self.tables_end + self.data_length + self.tail_length

    # ------------------------------------------------------------------ header facts
    @property
    def mapper_version(self) -> str:
        """``a.b.c.d_B<nnn>`` as the bytes at 0x18 read [I]."""
        return ".".join(str(b) for b in self.mapper_bytes) + f"_B{self.build_number:03d}"

    @property
    def generation(self) -> tuple[int, int]:
        """The NNIE generation the version bytes name [I]: (1, 2) on every real file."""
        return self.mapper_bytes[0], self.mapper_bytes[1]

    @property
    def generation_text(self) -> str:
        return f"NNIE {self.generation[0]}.{self.generation[1]}"

    @property
    def format_text(self) -> str:
        return ".".join(str(b) for b in self.format_version)

    @property
    def run_mode_name(self) -> str:
        return layout.RUN_MODES.get(self.run_mode, f"unknown ({self.run_mode})")

    # ------------------------------------------------------------------ nodes
    @property
    def inputs(self) -> tuple[WkNode, ...]:
        """The first segment's sources: what the board feeds."""
        return self.segments[0].sources if self.segments else ()

    @property
    def outputs(self) -> tuple[WkNode, ...]:
        """Every segment's destinations, in file order."""
        return tuple(n for s in self.segments for n in s.destinations)

    @property
    def nodes(self) -> tuple[WkNode, ...]:
        return tuple(n for s in self.segments for n in s.nodes)

    def duplicate_output_names(self) -> dict[bytes, tuple[WkNode, ...]]:
        """Output names that several destination nodes share (names cut at 31 characters)."""
        by_name: dict[bytes, list[WkNode]] = {}
        for node in self.outputs:
            by_name.setdefault(node.name_bytes, []).append(node)
        return {name: tuple(nodes) for name, nodes in by_name.items() if len(nodes) > 1}

    # ------------------------------------------------------------------ memory plan
    @property
    def plan_end(self) -> int:
        return max((r.end for r in self.plan), default=0)

    def census(self, segment: int | None = None) -> BitCensus | None:
        """Blobs by bytes per element, over the whole plan (``segment`` None) or one segment's.
        The plan's records do not say their segment: a segment's census is known only when the
        file has one segment (None otherwise)."""
        if segment is not None and len(self.segments) != 1:
            return None
        return self.plan_census if self.plan_census is not None else count_census(self.plan)

    @property
    def bits(self) -> str:
        """The build's bit width from the plan: ``8-bit``, ``16-bit``, ``mixed`` or ``unknown``."""
        census = self.census()
        return census.verdict if census is not None else "unknown"

    def board_memory(self, num: int = 1) -> BoardMemory:
        return board_memory(self, num)
