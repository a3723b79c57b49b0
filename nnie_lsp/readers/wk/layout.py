"""The `.wk` layout as data: offsets, record sizes, codes and how sure each field is.

One home for every fact about the file (``docs/field-facts.md §18``); the reader, the
descriptions, the rules and the editor read these tables.  Status tags are the project's own:
``C`` held on every real file examined (or stated by the SDK header), ``I`` inferred (no source
says it), ``?`` unknown.
"""

from __future__ import annotations

from nnie_lsp.core.records import NamedTuple

#: Every integer in the file is little-endian.
HEADER_SIZE = 0xC0
SEGMENT_RECORD = 16
NODE_RECORD = 64
BLOB_RECORD = 48
NAME_FIELD = 32
#: A node's name is NUL-terminated in its 32-byte field: at most 31 bytes are kept.
NAME_KEPT = NAME_FIELD - 1
#: ``hi_nnie.h``: up to 8 segments, 16 source and 16 destination nodes per segment.
MAX_SEGMENTS = 8
MAX_NODES = 16
#: The bytes at 0x10 on every real file.
FORMAT_VERSION = (1, 1, 1, 2)
#: The first line of a Git LFS pointer file (the model itself was never fetched).
LFS_PREFIX = b"version https://git-lfs.github.com/spec/"

# header offsets
CRC = 0x00
LENGTH = 0x04
HEADER_SIZE_AT = 0x08
TEMP_BUFFER = 0x0C
FORMAT = 0x10
MAPPER_VERSION = 0x18
BUILD_NUMBER = 0x1C
BUILD_ID = 0x20
BUILD_ID_SIZE = 16
RUN_MODE = 0x30
SEGMENT_COUNT = 0x31
STRIDE_BYTE = 0x32
TABLES_END = 0x34
DATA_LENGTH = 0x38
SECTIONS = 0x40          # 16-byte (offset, length, 0, 0) entries up to 0xB0 [?]
SECTIONS_END = 0xB0
DATA_LENGTH_AGAIN = 0xB0
TAIL_LENGTH = 0xB4
#: zlib's crc32 with this start value (the plain crc32 does not match the real files).
CRC_START = 0xFFFFFFFF

CERTAIN = "C"
INFERRED = "I"
UNKNOWN = "?"


class FieldFact(NamedTuple):
    """One field of the file: where it is, what it is read as, and how sure that reading is."""

    key: str
    offset: str
    meaning: str
    status: str


#: The fields the description shows, in the order of the file.
FIELDS: tuple[FieldFact, ...] = (
    FieldFact("crc", "0x00", "CRC-32 of bytes 4 up to [0x34]+[0x38] (zlib crc32, start 0xFFFFFFFF)", CERTAIN),
    FieldFact("length", "0x04", "[0x34]+[0x38] - 0xC0 - 16 x segments", CERTAIN),
    FieldFact("header_size", "0x08", "0xC0, the header size", CERTAIN),
    FieldFact("temp_buffer", "0x0C", "the temp buffer the board allocates: the end of the memory plan", CERTAIN),
    FieldFact("format_version", "0x10", "1.1.1.2 on every real file: read as the format version", INFERRED),
    FieldFact("mapper_version", "0x18", "read as the mapper version a.b.c.d and its build _B<n> (0x1C)", INFERRED),
    FieldFact("generation", "0x18", "its first two bytes read as the NNIE generation (1.2 on every real file)", INFERRED),
    FieldFact("build_id", "0x20", "16 ASCII characters: a build id of the mapper binary, not the compile time", INFERRED),
    FieldFact("run_mode", "0x30", "0 chip (instruction .wk), 1 functional simulation", CERTAIN),
    FieldFact("segments", "0x31", "number of segments", CERTAIN),
    FieldFact("internal_stride", "0x32", "16 on every real file (every cfg seen has [internal_stride] 16)", INFERRED),
    FieldFact("tables_end", "0x34", "end of the node tables, start of the data area", CERTAIN),
    FieldFact("data_length", "0x38", "length of the data area (again at 0xB0)", CERTAIN),
    FieldFact("tail_length", "0xB4", "length of the memory plan; file size = [0x34]+[0x38]+[0xB4]", CERTAIN),
    FieldFact("segment", "0xC0", "per segment: net type, sources, destinations, ROI count, max step, instructions", CERTAIN),
    FieldFact("node_shape", "node +0", "H, W, C of each input and output", CERTAIN),
    FieldFact("output_kind", "node +12", "1 for a 4-D (S32) output, 0 for a vector output", INFERRED),
    FieldFact("image_type", "node +14", "the cfg's [image_type] code of an input (0 for a feature map)", CERTAIN),
    FieldFact("name", "node +16", "the name, NUL-terminated in 32 bytes: at most 31 characters kept", CERTAIN),
    FieldFact("plan_record", "tail", "48 bytes per blob: width, height, channels, offset, row stride, size", CERTAIN),
    FieldFact("element_size", "tail +1", "bytes per element of the blob (1, 2 or 4)", INFERRED),
)

FIELD_STATUS = {f.key: f.status for f in FIELDS}

#: ``SVP_NNIE_NET_TYPE_E`` (hi_nnie.h).
NET_TYPES = {0: "CNN", 1: "ROI/PSROI", 2: "recurrent"}
#: ``SVP_NNIE_RUN_MODE_E`` (hi_nnie.h): the cfg's [is_simulation] 0 / 1.
RUN_MODES = {0: "chip", 1: "functional simulation"}
#: The cfg's [image_type] codes as a source node carries them (docs/field-facts.md §3.2).
IMAGE_TYPES = {0: "feature map", 1: "U8", 3: "YUV420SP", 5: "YUV422SP"}
#: ``SVP_BLOB_TYPE_E`` (hi_comm_svp.h): name -> value.
BLOB_TYPES = {"S32": 0, "U8": 1, "YVU420SP": 2, "YVU422SP": 3, "VEC_S32": 4, "SEQ_S32": 5}
#: Bytes per element of each blob type on the board (the SDK sample: 4 for the S32 kinds, 1 otherwise).
BLOB_ELEMENT = {"S32": 4, "U8": 1, "YVU420SP": 1, "YVU422SP": 1, "VEC_S32": 4, "SEQ_S32": 4}
#: The blob type of a source node by its image type (the board feeds an image input as the cfg
#: says; a feature map as S32 fixed point [I]).
SOURCE_BLOB = {1: "U8", 3: "YVU420SP", 5: "YVU422SP", 0: "S32"}
#: What the board does with a value it reads from an S32 blob (SAMPLE_SVP_NNIE_QUANT_BASE).
QUANT_BASE = 4096
#: The sample's row alignment for every source and destination blob.
STRIDE_ALIGN = 16

#: Chips by the NNIE generation their mapper builds for (docs/field-facts.md §1): a `.wk` runs
#: only on the generation of the mapper that built it.
CHIP_GENERATIONS: dict[str, tuple[int, int]] = {
    "Hi3559AV100": (1, 1),
    "Hi3519AV100": (1, 2),
    "Hi3516CV500": (1, 2),
    "Hi3516DV300": (1, 2),
}


def chip_named(name: str) -> str | None:
    """The chip of :data:`CHIP_GENERATIONS` a user's spelling names (case and ``hi`` prefix loose)."""
    key = name.strip().lower().replace("-", "").replace("_", "")
    if not key.startswith("hi"):
        key = "hi" + key
    for chip in CHIP_GENERATIONS:
        if chip.lower() == key:
            return chip
    return None


def align16(n: int) -> int:
    return (n + STRIDE_ALIGN - 1) // STRIDE_ALIGN * STRIDE_ALIGN


def looks_like_wk(head: bytes) -> bool:
    """The first bytes of a `.wk`: the 0xC0 header size at 0x08 and the format version at 0x10."""
    return (len(head) >= FORMAT + 4 and int.from_bytes(head[HEADER_SIZE_AT:HEADER_SIZE_AT + 4], "little") == HEADER_SIZE
            and tuple(head[FORMAT:FORMAT + 4]) == FORMAT_VERSION)
