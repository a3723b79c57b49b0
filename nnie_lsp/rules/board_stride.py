"""NN701: the board must step through this output's (or input's) rows by the padded stride.

Every row of an NNIE blob starts ``ALIGN16(width × element size)`` bytes after the one before
(docs/field-facts.md §19; the numbers from :func:`nnie_lsp.readers.wk.board.node_blob`, the board contract's
one home).  An S32 output whose W × 4 is not a multiple of 16, or a U8 image input whose W is not a
multiple of 16, carries padding after each row -- the trap board code falls into.  Info, before any
mapper run: which blobs have it and their stride.
"""

from __future__ import annotations

from nnie_lsp.core.diagnostics import Severity
from nnie_lsp.readers.prototxt.nnie_ends import nnie_ends
from nnie_lsp.readers.wk import layout
from nnie_lsp.readers.wk.board import node_blob
from nnie_lsp.readers.wk.model import DESTINATION, SOURCE
from nnie_lsp.core.registry import rule

CONTRACT = "nnie-triage wk FILE.wk --board-contract"


def _input_kind(project, k: int) -> int:
    """The input's [image_type] code: the cfg's when the project has one, else U8 (1)."""
    prep = project.input_preprocessing(k) if getattr(project, "cfg", None) is not None else None
    return prep.image_type if prep is not None and prep.image_type is not None else 1


#: layers that feed the net an image the way an input does, to be replaced by one (NN015): the board
#: fills what they write like an input's blob
_FEEDING = frozenset({"DummyData", "MemoryData"})


def _net_inputs(g):
    """(blob, range) of every image the board fills: the declared inputs, then the first top of
    each DummyData / MemoryData layer the net reads (NN015 turns those into inputs)."""
    for inp in g.inputs:
        yield inp.name, inp.range
    read = {b for layer in g.layers for b in layer.bottoms}
    for layer in g.layers:
        if layer.type in _FEEDING and not layer.bottoms and layer.tops and layer.tops[0] in read:
            yield layer.tops[0], layer.source.name_range or layer.source.type_range


@rule("NN701", "board-stride-padding", Severity.INFO, step=None,
      summary=("The board must step through this blob's rows by the padded stride, not by its width",
               "板端必须按填充后的行跨度（而非宽度）逐行读写此 blob"),
      messages={
          "output": ("output {blob} ({shape}): on the board each of its rows starts {stride} bytes after the one before "
                     "(ALIGN16({w} × 4)), not {w} × 4 = {row} bytes — board code that reads {w} values per row and moves "
                     "on by the width reads the first row right and then a shear; read it as the SDK sample does "
                     "(`ps32 += u32Stride / 4` per row): {contract} prints every stride",
                     "输出 {blob}（{shape}）：在板端每行从上一行之后 {stride} 字节处开始（ALIGN16({w} × 4)），而不是 {w} × 4 = {row} 字节——"
                     "每行读 {w} 个值并按宽度前进的板端代码只有第一行正确，之后整体错位；请像 SDK 示例那样读取（每行 `ps32 += u32Stride / 4`）："
                     "{contract} 会给出每个 stride"),
          "input": ("input {blob} ({shape}, {kind}): on the board each of its rows must start {stride} bytes after the "
                    "one before (ALIGN16({w} × {element})), not {w} × {element} = {row} bytes — board code that copies "
                    "the image contiguously feeds a sheared image; fill it as the SDK sample does (`pu8PicAddr += "
                    "u32Stride` per row): {contract} prints every stride",
                    "输入 {blob}（{shape}，{kind}）：在板端每行必须从上一行之后 {stride} 字节处开始（ALIGN16({w} × {element})），"
                    "而不是 {w} × {element} = {row} 字节——连续拷贝图像的板端代码会送入错位的图像；请像 SDK 示例那样填充（每行 "
                    "`pu8PicAddr += u32Stride`）：{contract} 会给出每个 stride"),
      },
      docs_zh=("网络的输出（S32，宽 × 4 不是 16 的倍数，如 YOLO 的 13×13、26×26）或图像输入（U8，宽不是 16 的倍数，如 SSD 的 300）"
               "在板端每行末尾有填充：行间距是 ALIGN16(宽 × 元素字节数)。按宽度逐行前进的板端代码只有第一行正确。"
               "这是提示（info），在运行 mapper 之前就指出哪些 blob 有此陷阱及其 stride；"
               "`nnie-triage wk FILE.wk --board-contract` 给出 .wk 中每个节点的 stride，"
               "`nnie-triage compare --board DIR` 检查板端 dump（T601）。"))
def nn701(project, ctx):
    """
    ## What it finds
    An output of the net (a blob no NNIE layer reads: what the board reads back) whose width × 4
    is not a multiple of 16, or a U8 image input whose width is not a multiple of 16 (× 4 for a
    feature-map input, `[image_type] 0`): on the board its rows are padded to
    `ALIGN16(width × element size)` bytes.  Vectors (one row per image) are not reported.

    ## Why
    The SDK sample reads and fills every blob row by row, moving by `u32Stride`.  Board code that
    moves by the width instead reads (or writes) the first row right and then a shear: a YOLO
    13 × 13 head's cosine falls to about 0, an SSD 300 × 300 input is fed sheared.  Nothing before
    the board shows it — the mapper, the simulator and RuyiStudio all handle the padding — so the
    lint names it while the net is written.

    ## Example
    ```
    layer { name: "conv4-2" type: "Convolution" bottom: "conv3" top: "conv4-2" ... }   # 4×13×13:
    # each row 64 bytes on the board (ALIGN16(13 × 4)), not 52
    ```

    ## Fix
    None in the net: in the board code advance by `u32Stride` (`nnie-triage wk FILE.wk
    --board-contract --format c` writes every stride as a `#define`); `nnie-triage compare --board`
    checks the board's dumps (T601).
    """
    doc, g = project.prototxt, project.graph
    if doc is None or g is None or not doc.path:
        return
    for k, (name, rng) in enumerate(_net_inputs(g)):
        shape = g.image_shape(name)
        if shape is None or len(shape) != 3 or rng is None:
            continue
        c, h, w = shape
        kind = _input_kind(project, k)
        blob = node_blob(SOURCE, 0, h, w, c, 0, kind)
        if blob.blob_type in ("YVU420SP", "YVU422SP") or blob.stride == w * blob.element_size or c * h <= 1:
            continue
        yield ctx.diag("input", doc.path, rng, blob=name, shape=f"{c}×{h}×{w}", w=w,
                       kind=layout.IMAGE_TYPES.get(kind, blob.blob_type), element=blob.element_size,
                       stride=blob.stride, row=w * blob.element_size, contract=CONTRACT)
    ends = nnie_ends(g)
    seen = set()
    for layer in g.layers:
        for top in layer.tops:
            if top not in ends or top in seen:
                continue
            seen.add(top)
            shape = g.image_shape(top)
            if shape is None or len(shape) != 3:
                continue
            c, h, w = shape
            blob = node_blob(DESTINATION, 0, h, w, c, 1, None)
            if blob.stride == w * blob.element_size or c * h <= 1:
                continue
            chain = g.chain_of(top)
            head = chain.head if chain is not None else layer
            rng = head.source.name_range or head.source.type_range
            if rng is None:
                continue
            yield ctx.diag("output", doc.path, rng, blob=top, shape=f"{c}×{h}×{w}", w=w, stride=blob.stride,
                           row=w * 4, contract=CONTRACT)
