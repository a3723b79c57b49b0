"""The board side of a `.wk`'s nodes: blob type, N/C/H/W, element size, row stride and buffer size,
by the SDK sample's rules (docs/field-facts.md §19): ``stride = align16(width × element size)``,
``size = N × stride × height × channels``; the S32 kinds take 4 bytes per element, the others 1.
The sample allocates the temp buffer, the first segment's source blobs and every segment's
destination blobs (a later segment's sources are earlier outputs) and loads the file itself.

Board code (and the board checks) use :func:`node_blob` through :attr:`WkNode.board`.
"""

from __future__ import annotations

from nnie_lsp.core.records import NamedTuple

from nnie_lsp.readers.wk import layout

RECURRENT = 2
DESTINATION = "destination"   # the role of an output node (WkNode.role)


class BoardBlob(NamedTuple):
    """How the board holds one node's blob (the SDK sample's rules, docs/field-facts.md §19):
    ``size`` is for ``num`` items (N), None when it depends on what is fed at run time (the
    total steps of a recurrent segment)."""

    blob_type: str          # a key of layout.BLOB_TYPES
    num: int
    channels: int
    height: int
    width: int
    element_size: int
    stride: int
    size: int | None
    status: str             # layout.CERTAIN or layout.INFERRED (the blob type or shape read is inferred)

    @property
    def blob_type_code(self) -> int:
        return layout.BLOB_TYPES[self.blob_type]

    @property
    def read_as(self) -> str:
        """How a value of the blob is read on the board."""
        if self.blob_type in ("S32", "VEC_S32", "SEQ_S32"):
            return f"S32 / {layout.QUANT_BASE}"
        return "U8"


class BoardMemory(NamedTuple):
    """What the board allocates for the model (the SDK sample's ParamInit, N = ``num``): the temp
    buffer, the first segment's source blobs and every segment's destination blobs; the sample also
    loads the whole file into memory, and the task buffer comes from an SDK call (not in the file)."""

    num: int
    temp_buffer: int
    sources: int
    destinations: int
    model_file: int
    unknown_sizes: tuple[str, ...] = ()   # nodes whose size depends on run-time input (recurrent steps)

    @property
    def blobs(self) -> int:
        return self.sources + self.destinations

    @property
    def total(self) -> int:
        """Temp buffer and blobs (the figure the board's ParamInit allocates besides the task buffer)."""
        return self.temp_buffer + self.blobs

    @property
    def at_least(self) -> int:
        """Everything known the board must hold: the model file too (the task buffer is not known)."""
        return self.total + self.model_file




def node_blob(role: str, net_type: int, height: int, width: int, channels: int, kind_byte: int,
              image_type: int | None, num: int = 1) -> BoardBlob:
    """The board blob of one node (``num`` items).  A U8 or YUV image input is certain; an output
    (4-D S32 or vector by byte +12), a feature-map input (S32) and a recurrent segment's blobs
    (SEQ_S32, sized by the steps fed at run time) are inferred."""
    status = layout.INFERRED
    if net_type == RECURRENT:
        blob_type = "SEQ_S32"
    elif role == DESTINATION:
        blob_type = "S32" if kind_byte else "VEC_S32"
    else:
        blob_type = layout.SOURCE_BLOB.get(image_type if image_type is not None else -1, "S32")
        if image_type in (1, 3, 5):
            status = layout.CERTAIN
    element = layout.BLOB_ELEMENT[blob_type]
    if blob_type in ("VEC_S32", "SEQ_S32"):
        # a vector's length is its dimension; the memory plan's record of such an output has
        # width = that length, height = channels = 1 (the one real vector output) [I]
        c, h, w = 1, 1, height * width * channels
    else:
        c, h, w = channels, height, width
    stride = layout.align16(w * element)
    size = None if blob_type == "SEQ_S32" else num * stride * h * c
    return BoardBlob(blob_type=blob_type, num=num, channels=c, height=h, width=w, element_size=element,
                     stride=stride, size=size, status=status)


def board_memory(model, num: int = 1) -> BoardMemory:
    """What the board allocates for ``model`` (a :class:`~.model.WkModel`) with ``num`` items per
    blob (the sample's N)."""
    sources = destinations = 0
    unknown: list[str] = []
    for k, segment in enumerate(model.segments):
        nodes = (segment.sources if k == 0 else ()) + segment.destinations
        for node in nodes:
            blob = node.board if num == node.board.num else node_blob(
                node.role, segment.net_type, node.height, node.width, node.channels, node.kind_byte,
                node.image_type, num)
            if blob.size is None:
                unknown.append(node.name)
            elif node.role == DESTINATION:
                destinations += blob.size
            else:
                sources += blob.size
    return BoardMemory(num=num, temp_buffer=model.temp_buffer, sources=sources, destinations=destinations,
                       model_file=model.file_size, unknown_sizes=tuple(unknown))
