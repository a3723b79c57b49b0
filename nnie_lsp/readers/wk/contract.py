"""The board code's contract: what C code around ``HI_MPI_SVP_NNIE_Forward`` must do with every
source and destination node of every segment -- blob type, N/C/H/W, element size, row stride,
buffer size, how one value is read, and how the SDK sample links a later segment's inputs to
earlier outputs (by name) -- as JSON (``nnie-triage wk FILE.wk --board-contract``) and as a C
header of ``#define``s and a ``static const`` table (``--format c``).

Every number comes from the node's :class:`~.model.BoardBlob` (:func:`.board.node_blob`, the SDK
sample's rules, docs/field-facts.md §19): the board checks of the triage and the hover on a `.wk`
read the same :class:`ContractNode`s.  A contract is built from a `.wk` (:func:`from_wk`) or, where
there is none yet, from node shapes the caller knows (:func:`from_nodes`: the prototxt's inputs and
outputs, every field then inferred).  Pure Python, no numpy.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterable

from nnie_lsp.readers.wk import layout
from nnie_lsp.readers.wk.board import node_blob
from nnie_lsp.readers.wk.model import DESTINATION, SOURCE, BoardBlob

if TYPE_CHECKING:
    from nnie_lsp.readers.wk.model import WkModel, WkNode

SCHEMA_VERSION = 1
#: ``SVP_NNIE_NODE_NAME_LEN``: the sample compares names with ``strncmp`` over the 32-byte field.
NAME_FIELD = layout.NAME_FIELD

#: The lines of the SDK sample a board program is checked against (quoted by the board checks).
SAMPLE_INPUT_ROW = "pu8PicAddr += u32Stride;   /* SAMPLE_SVP_NNIE_FillSrcData: next input row */"
SAMPLE_OUTPUT_ROW = ("ps32ResultAddr += u32Stride / sizeof(HI_U32);   /* SAMPLE_SVP_NNIE_PrintReportResult: "
                     "next output row */")
SAMPLE_QUANT = "f32Value = (HI_FLOAT)ps32ResultAddr[w] / SAMPLE_SVP_NNIE_QUANT_BASE;   /* 4096 */"
SAMPLE_LINK = ("strncmp(astSeg[k].astSrcNode[i].szName, astSeg[j].astDstNode[n].szName, SVP_NNIE_NODE_NAME_LEN)"
               "   /* SAMPLE_SVP_NNIE_Forward: a later segment's input */")


@dataclass(frozen=True)
class Link:
    """How the sample finds a later segment's source: the earlier segments' destinations whose
    32-byte name equals it (``matches``, (segment, index) in file order); the sample takes the
    first match of the segment it is told the data comes from."""

    matches: tuple[tuple[int, int], ...] = ()

    @property
    def first(self) -> tuple[int, int] | None:
        return self.matches[0] if self.matches else None

    @property
    def ambiguous(self) -> bool:
        return len(self.matches) > 1


@dataclass(frozen=True)
class ContractNode:
    """One node as the board code must handle it."""

    segment: int
    role: str                         # SOURCE or DESTINATION
    index: int                        # within its segment and role
    name: str
    name_bytes: bytes                 # the 32-byte field's content (at most 31 bytes)
    blob: BoardBlob
    name_may_be_cut: bool = False
    image_type: int | None = None     # a source's [image_type] code
    link: Link | None = None          # a later segment's source: where the sample takes it from
    read_by: tuple[tuple[int, int], ...] = ()     # a destination: later sources linked to it
    same_name: tuple[int, ...] = ()   # a destination: other destinations of its segment with its 32-byte name
    status: str = layout.CERTAIN      # CERTAIN: read from a .wk; INFERRED: from the prototxt's shapes
    full_name: str | None = None      # the prototxt's blob when known (the .wk keeps 31 characters)

    @property
    def blob_name(self) -> str:
        """The blob the node stands for: the prototxt's full name when known, else the node's."""
        return self.full_name or self.name

    @property
    def row_bytes(self) -> int:
        """The bytes of one row's values (without the padding)."""
        return self.blob.width * self.blob.element_size

    @property
    def padding(self) -> int:
        """The bytes after each row's values up to the next row (0 when W × element size is a
        multiple of 16)."""
        return self.blob.stride - self.row_bytes

    @property
    def stride_words(self) -> int:
        """The row stride in elements (what a pointer to the element type advances by)."""
        return self.blob.stride // self.blob.element_size

    @property
    def packed_size(self) -> int:
        """Elements of one item without the padding: C × H × W."""
        return self.blob.channels * self.blob.height * self.blob.width

    @property
    def is_image(self) -> bool:
        return self.blob.blob_type in ("U8", "YVU420SP", "YVU422SP")

    @property
    def is_s32(self) -> bool:
        return self.blob.blob_type in ("S32", "VEC_S32", "SEQ_S32")

    @property
    def value_at(self) -> str:
        """How one value is read in C from the blob's virtual address (item n, channel c, row h,
        column w)."""
        b = self.blob
        if b.blob_type == "SEQ_S32":
            return ("(HI_FLOAT)((HI_S32 *)((HI_U8 *)blob->u64VirAddr + t * u32Stride))[d] / 4096"
                    "   /* t: the step counted over every sequence, d < dim */")
        if self.is_s32:
            return ("(HI_FLOAT)((HI_S32 *)((HI_U8 *)blob->u64VirAddr + ((n * C + c) * H + h) * u32Stride))[w] "
                    f"/ {layout.QUANT_BASE}")
        if b.blob_type == "U8":
            return "((HI_U8 *)blob->u64VirAddr + ((n * C + c) * H + h) * u32Stride)[w]"
        return ("Y plane: H rows of u32Stride bytes, then the interleaved V/U rows (H/2 for 420, H for 422), "
                "each u32Stride bytes")

    @property
    def where(self) -> str:
        return f"segment {self.segment} {'input' if self.role == SOURCE else 'output'} {self.index}"

    def to_json(self) -> dict:
        b = self.blob
        out = {
            "segment": self.segment, "role": self.role, "index": self.index, "name": self.name,
            "name_may_be_cut": self.name_may_be_cut,
            "blob_type": b.blob_type, "blob_type_code": b.blob_type_code,
            "n": b.num, "c": b.channels, "h": b.height, "w": b.width,
            "element_size": b.element_size, "row_bytes": self.row_bytes, "stride": b.stride,
            "stride_elements": self.stride_words, "padding_bytes": self.padding,
            "size": b.size, "read_as": b.read_as, "value_at": self.value_at,
            "status": "certain" if (b.status == layout.CERTAIN and self.status == layout.CERTAIN) else "inferred",
        }
        if self.full_name is not None and self.full_name != self.name:
            out["blob"] = self.full_name
        if self.image_type is not None:
            out["image_type"] = {"code": self.image_type,
                                 "name": layout.IMAGE_TYPES.get(self.image_type, f"unknown code {self.image_type}")}
        if self.link is not None:
            out["link"] = {"by": "name", "matches": [{"segment": s, "index": i} for s, i in self.link.matches],
                           "first": ({"segment": self.link.first[0], "index": self.link.first[1]}
                                     if self.link.first else None),
                           "ambiguous": self.link.ambiguous}
        if self.role == DESTINATION:
            out["read_by"] = [{"segment": s, "index": i} for s, i in self.read_by]
            out["same_name"] = list(self.same_name)
        return out


@dataclass(frozen=True)
class BoardContract:
    """Every node of every segment, in file order, and where the contract came from."""

    nodes: tuple[ContractNode, ...]
    source: str                       # "wk" | "prototxt"
    path: str | None = None           # the .wk (or prototxt) it was read from
    segments: int = 1
    temp_buffer: int | None = None    # from a .wk only
    notes: tuple[str, ...] = field(default=())

    @property
    def inputs(self) -> tuple[ContractNode, ...]:
        return tuple(n for n in self.nodes if n.role == SOURCE and n.segment == 0)

    @property
    def outputs(self) -> tuple[ContractNode, ...]:
        return tuple(n for n in self.nodes if n.role == DESTINATION)

    def output_named(self, name: str) -> tuple[ContractNode, ...]:
        """The outputs a board program finds under ``name`` (compared as the sample compares
        names: the first 31 bytes)."""
        key = name.encode("utf-8")[: layout.NAME_KEPT]
        return tuple(n for n in self.outputs if n.name_bytes == key)

    def to_json(self) -> dict:
        return {
            "schema_version": SCHEMA_VERSION,
            "tool": "nnie-triage wk --board-contract",
            "source": self.source,
            "path": self.path,
            "segments": self.segments,
            "temp_buffer": self.temp_buffer,
            "quant_base": layout.QUANT_BASE,
            "stride_align": layout.STRIDE_ALIGN,
            "name_field": NAME_FIELD,
            "sample_lines": {"input_row": SAMPLE_INPUT_ROW, "output_row": SAMPLE_OUTPUT_ROW,
                             "value": SAMPLE_QUANT, "link": SAMPLE_LINK},
            "nodes": [n.to_json() for n in self.nodes],
            "notes": list(self.notes),
        }


# ------------------------------------------------------------------ building

def _links(nodes: list[ContractNode]) -> list[ContractNode]:
    """Fill :attr:`ContractNode.link`, :attr:`read_by` and :attr:`same_name` (the sample's name
    matching: ``strncmp`` over the 32-byte field, first match in file order)."""
    from dataclasses import replace

    out = list(nodes)
    readers: dict[tuple[int, int], list[tuple[int, int]]] = {}
    for k, n in enumerate(out):
        if n.role != SOURCE or n.segment == 0:
            continue
        matches = tuple((d.segment, d.index) for d in out
                        if d.role == DESTINATION and d.segment < n.segment and d.name_bytes == n.name_bytes)
        out[k] = replace(n, link=Link(matches))
        if matches:
            readers.setdefault(matches[0], []).append((n.segment, n.index))
    for k, n in enumerate(out):
        if n.role != DESTINATION:
            continue
        twins = tuple(d.index for d in out if d.role == DESTINATION and d.segment == n.segment
                      and d.index != n.index and d.name_bytes == n.name_bytes)
        out[k] = replace(n, read_by=tuple(readers.get((n.segment, n.index), ())), same_name=twins)
    return out


def _node(node: WkNode) -> ContractNode:
    return ContractNode(segment=node.segment, role=node.role, index=node.index, name=node.name,
                        name_bytes=node.name_bytes, blob=node.board, name_may_be_cut=node.name_may_be_cut,
                        image_type=node.image_type if node.role == SOURCE else None)


def from_wk(model: WkModel, full_names: dict[tuple[int, str, int], str] | None = None) -> BoardContract:
    """The contract of a `.wk`: its nodes' board blobs (N = 1, the sample's single-image setting).
    ``full_names``: (segment, role, index) → the prototxt's blob, where the caller matched them."""
    from dataclasses import replace

    nodes = [_node(n) for s in model.segments for n in s.nodes]
    if full_names:
        nodes = [replace(n, full_name=full_names.get((n.segment, n.role, n.index))) for n in nodes]
    nodes = _links(nodes)
    notes = []
    if not model.intact:
        notes.append("the .wk is damaged: " + "; ".join(d.message for d in model.damage))
    return BoardContract(tuple(nodes), "wk", model.path, len(model.segments), model.temp_buffer, tuple(notes))


def from_nodes(inputs: Iterable[tuple[str, tuple[int, int, int], int | None]],
               outputs: Iterable[tuple[str, tuple[int, ...]]], *, path: str | None = None,
               notes: Iterable[str] = ()) -> BoardContract:
    """A one-segment contract from shapes the caller read elsewhere (the prototxt): ``inputs`` as
    (name, (C, H, W), image_type code or None for unknown: U8 assumed), ``outputs`` as (name,
    shape: (C, H, W) for a 4-D output, (D,) or (C,) for a vector).  Names are cut to 31 bytes as
    the mapper cuts them; every field is inferred (no `.wk` says it)."""
    nodes: list[ContractNode] = []
    for k, (name, (c, h, w), image_type) in enumerate(inputs):
        code = 1 if image_type is None else image_type
        blob = node_blob(SOURCE, 0, h, w, c, 0, code)
        nodes.append(_plain(0, SOURCE, k, name, blob, code))
    for k, (name, shape) in enumerate(outputs):
        dims = tuple(int(d) for d in shape)
        if len(dims) >= 3:
            c, h, w = dims[-3:]
            blob = node_blob(DESTINATION, 0, h, w, c, 1, None)
        else:
            n = 1
            for d in dims:
                n *= d
            blob = node_blob(DESTINATION, 0, 1, 1, n, 0, None)
        nodes.append(_plain(0, DESTINATION, k, name, blob, None))
    return BoardContract(tuple(_links(nodes)), "prototxt", path, 1, None, tuple(notes))


def _plain(segment: int, role: str, index: int, name: str, blob: BoardBlob, image_type: int | None) -> ContractNode:
    raw = name.encode("utf-8")
    kept = raw[: layout.NAME_KEPT]
    return ContractNode(segment=segment, role=role, index=index, name=kept.decode("utf-8", "ignore"),
                        name_bytes=kept, blob=blob, name_may_be_cut=len(raw) > layout.NAME_KEPT,
                        image_type=image_type if role == SOURCE else None, status=layout.INFERRED,
                        full_name=name)


# ------------------------------------------------------------------ text

def _size(n: int | None) -> str:
    return f"{n:,}" if n is not None else "run-time"


def render_text(contract: BoardContract) -> str:
    """The contract as a table (the hover on a `.wk`, the default of ``--board-contract``)."""
    name = os.path.basename(contract.path) if contract.path else "(net)"
    lines = [f"{name}: the board code's contract ({'read from the .wk' if contract.source == 'wk' else 'inferred from the prototxt: no .wk'})",
             f"  every S32 value is read as int32 / {layout.QUANT_BASE}; every row starts u32Stride bytes after "
             f"the one before (align{layout.STRIDE_ALIGN}(W × element size))", ""]
    for seg in range(contract.segments):
        lines.append(f"segment {seg}")
        for n in (x for x in contract.nodes if x.segment == seg):
            b = n.blob
            kind = "input " if n.role == SOURCE else "output"
            rows = b.channels * b.height
            trap = (f"  ! rows are {b.stride} bytes apart, not W × {b.element_size} = {n.row_bytes}" if n.padding and rows > 1
                    else f"  (one row per item: padded to {b.stride} bytes, which only a batch steps by)" if n.padding
                    else "")
            lines.append(f"  {kind} {n.index} {n.name}{' …' if n.name_may_be_cut else ''}: {b.blob_type} "
                         f"N={b.num} C={b.channels} H={b.height} W={b.width}, {b.element_size} B/element, stride "
                         f"{b.stride} B, {_size(b.size)} B, read as {b.read_as}{trap}")
            if n.link is not None:
                if n.link.first is None:
                    lines.append("      linked by name to: nothing (no earlier output has this name: the sample "
                                 "fails \"can't find src blob\")")
                else:
                    s, i = n.link.first
                    more = f" ({len(n.link.matches) - 1} more share the name: the first wins)" if n.link.ambiguous else ""
                    lines.append(f"      linked by name to segment {s} output {i}{more}")
            if n.same_name:
                lines.append(f"      ! shares its 31-character name with output(s) {', '.join(map(str, n.same_name))} "
                             "of this segment: code that finds outputs by name takes the first")
    for note in contract.notes:
        lines.append(f"note: {note}")
    return "\n".join(lines) + "\n"


def hover_markdown(contract: BoardContract, limit: int = 9) -> str:
    """Markdown lines for a hover on the `.wk` (the cfg's ``[instruction_name]``): each node's
    blob and stride, the padding where board code must step by the stride."""
    lines = ["**Board contract** (`nnie-triage wk FILE.wk --board-contract`):"]
    nodes = [n for n in contract.nodes if n.role == DESTINATION or n.segment == 0]
    for n in nodes[:limit]:
        b = n.blob
        pad = (f", rows {b.stride} B apart (not {n.row_bytes})" if n.padding and b.channels * b.height > 1
               else f", stride {b.stride} B")
        lines.append(f"- {'input' if n.role == SOURCE else 'output'} `{n.name}`: {b.blob_type} "
                     f"{b.channels}×{b.height}×{b.width}{pad}, read as {b.read_as}"
                     + (" — shares its 31-character name" if n.same_name else ""))
    if len(nodes) > limit:
        lines.append(f"- … ({len(nodes)} in all)")
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------ C header

def _macro_stem(path: str | None) -> str:
    stem = os.path.splitext(os.path.basename(path))[0] if path else "NET"
    stem = re.sub(r"[^A-Za-z0-9]+", "_", stem).strip("_").upper() or "NET"
    return ("N" + stem) if stem[0].isdigit() else stem


def _c_string(text: str) -> str:
    out = []
    for ch in text.encode("utf-8"):
        c = chr(ch)
        if c in '\\"':
            out.append("\\" + c)
        elif 32 <= ch < 127:
            out.append(c)
        else:
            out.append(f"\\{ch:03o}")
    return '"' + "".join(out) + '"'


def render_c(contract: BoardContract) -> str:
    """A C header the board code can include: one ``#define`` per fact of every node (by segment
    and index: names are not C identifiers) and a ``static const`` table of them all."""
    stem = _macro_stem(contract.path)
    guard = f"NNIE_CONTRACT_{stem}_H"
    p = f"NNIE_{stem}"
    src = os.path.basename(contract.path) if contract.path else "the prototxt"
    lines = [
        f"/* The board code's contract of {src}: generated by `nnie-triage wk --board-contract --format c`.",
        " * Strides follow the SDK sample: u32Stride = ALIGN16(width x element size); an S32 value is",
        f" * (HI_FLOAT)s32 / {layout.QUANT_BASE}; a later segment's input is the earlier output of the same 32-byte name.",
        " * " + ("Read from the .wk." if contract.source == "wk" else "Inferred from the prototxt (no .wk): check it "
                 "against the .wk the mapper writes."),
        " */",
        f"#ifndef {guard}",
        f"#define {guard}",
        "",
        f"#define {p}_QUANT_BASE {layout.QUANT_BASE}",
        f"#define {p}_STRIDE_ALIGN {layout.STRIDE_ALIGN}",
        f"#define {p}_SEGMENTS {contract.segments}",
    ]
    if contract.temp_buffer is not None:
        lines.append(f"#define {p}_TEMP_BUFFER {contract.temp_buffer}u")
    for seg in range(contract.segments):
        seg_nodes = [n for n in contract.nodes if n.segment == seg]
        lines.append(f"#define {p}_SEG{seg}_SRC_NUM {sum(1 for n in seg_nodes if n.role == SOURCE)}")
        lines.append(f"#define {p}_SEG{seg}_DST_NUM {sum(1 for n in seg_nodes if n.role == DESTINATION)}")
    for n in contract.nodes:
        b = n.blob
        m = f"{p}_SEG{n.segment}_{'SRC' if n.role == SOURCE else 'DST'}{n.index}"
        lines += ["", f"/* {n.where}: {n.name}{' (name cut at 31 characters)' if n.name_may_be_cut else ''} */",
                  f"#define {m}_NAME {_c_string(n.name)}",
                  f"#define {m}_TYPE {b.blob_type_code} /* SVP_BLOB_TYPE_{b.blob_type} */",
                  f"#define {m}_N {b.num}", f"#define {m}_C {b.channels}", f"#define {m}_H {b.height}",
                  f"#define {m}_W {b.width}", f"#define {m}_ELEMENT_SIZE {b.element_size}",
                  f"#define {m}_STRIDE {b.stride} /* bytes per row; {n.row_bytes} hold values */"]
        if b.size is not None:
            lines.append(f"#define {m}_SIZE {b.size}u")
        if n.link is not None and n.link.first is not None:
            lines.append(f"#define {m}_FROM_SEG {n.link.first[0]}")
            lines.append(f"#define {m}_FROM_DST {n.link.first[1]}")
    lines += [
        "",
        "typedef struct {",
        "    int segment;          /* segment index */",
        "    int is_output;        /* 0 a source (input) node, 1 a destination (output) node */",
        "    int index;            /* within its segment and role */",
        "    const char *name;     /* at most 31 characters, as the .wk keeps it */",
        "    int blob_type;        /* SVP_BLOB_TYPE_E */",
        "    unsigned int n, c, h, w;",
        "    unsigned int element_size;",
        "    unsigned int stride;  /* bytes per row */",
        "    unsigned long size;   /* bytes of the blob, 0 when fed at run time (recurrent steps) */",
        "    int from_segment;     /* a later segment's input: the output it is linked to by name, else -1 */",
        "    int from_index;",
        f"}} {p.lower()}_node_t;",
        "",
        "#if defined(__GNUC__)",
        f"#define {p}_UNUSED __attribute__((unused))",
        "#else",
        f"#define {p}_UNUSED",
        "#endif",
        "",
        f"static const {p.lower()}_node_t {p}_NODES[] {p}_UNUSED = {{",
    ]
    for n in contract.nodes:
        b = n.blob
        link = n.link.first if n.link is not None and n.link.first is not None else (-1, -1)
        lines.append(f"    {{{n.segment}, {int(n.role == DESTINATION)}, {n.index}, {_c_string(n.name)}, "
                     f"{b.blob_type_code}, {b.num}u, {b.channels}u, {b.height}u, {b.width}u, {b.element_size}u, "
                     f"{b.stride}u, {b.size or 0}ul, {link[0]}, {link[1]}}},")
    lines += ["};", f"#define {p}_NODE_COUNT {len(contract.nodes)}", "", f"#endif /* {guard} */", ""]
    return "\n".join(lines)
