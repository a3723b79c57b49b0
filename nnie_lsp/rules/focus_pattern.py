"""NN023: a converted YOLOv5 Focus that stacks contiguous quadrants (a static pattern, hedged).

YOLOv5's Focus (before v6.0) stacks every second pixel of its input on the channels --
``cat(x[..., ::2, ::2], x[..., 1::2, ::2], x[..., ::2, 1::2], x[..., 1::2, 1::2])`` -- which a
Caffe Slice cannot express: a Slice cuts contiguous parts.  A converter that writes two levels of
Slices at H/2 and W/2 and a Concat of the four parts computes another function (the quadrants
top-left, …), and nothing fails: every shape is the same.  With the ONNX model beside the
prototxt the conversion check names the Slice (NN506); without it only the pattern can be seen,
and it is said as what it is."""

from __future__ import annotations

from nnie_lsp.core.diagnostics import Severity
from nnie_lsp.rules._proto import layer_anchor, names_text
from nnie_lsp.core.registry import rule


def _slice_axis(layer) -> int:
    p = layer.param.slice_param
    if p.HasField("axis"):
        return p.axis
    return p.slice_dim if p.HasField("slice_dim") else 1


def _halves(layer, shapes) -> bool:
    """A Slice in two equal contiguous parts (no slice_point, or the one at the middle)."""
    if len(layer.tops) != 2:
        return False
    points = list(layer.param.slice_param.slice_point)
    if not points:
        return True
    x = shapes.get(layer.bottoms[0]) if layer.bottoms else None
    axis = _slice_axis(layer)
    return len(points) == 1 and x is not None and len(x) > axis and x[axis] is not None and 2 * points[0] == x[axis]


def quadrant_stacks(graph, shapes):
    """(Concat, [first-level Slice, second-level Slices…], source blob) for each Concat on the
    channels whose four bottoms are the four contiguous quadrants of one blob."""
    writer = {}
    for layer in graph.layers:
        for k, t in enumerate(layer.tops):
            writer[t] = (layer, k)
    out = []
    for cat in graph.layers:
        if cat.type != "Concat" or len(cat.bottoms) != 4:
            continue
        cp = cat.param.concat_param
        if (cp.axis if cp.HasField("axis") else 1) != 1:
            continue
        seen, inner, outer = set(), [], set()
        for b in cat.bottoms:
            s2, k2 = writer.get(b, (None, None))
            if s2 is None or s2.type != "Slice" or not _halves(s2, shapes):
                break
            s1, k1 = writer.get(s2.bottoms[0], (None, None))
            if s1 is None or s1.type != "Slice" or not _halves(s1, shapes):
                break
            if {_slice_axis(s1), _slice_axis(s2)} != {2, 3}:
                break
            seen.add((k1, k2))
            inner.append(s2)
            outer.add((s1.index, s1.bottoms[0], s1))
        else:
            if len(seen) == 4 and len(outer) == 1:
                (_, source, s1), = outer
                out.append((cat, [s1, *{id(s): s for s in inner}.values()], source))
    return out


@rule("NN023", "focus-quadrants", Severity.WARNING, step=None,
      summary=("Slices and a Concat stack contiguous quadrants: a converted YOLOv5 Focus computes another function",
               "Slice 与 Concat 拼接的是连续的四个象限：转换后的 YOLOv5 Focus 计算的是另一个函数"),
      messages={"quadrants": ("Concat \"{layer}\" stacks the four contiguous quadrants of \"{blob}\" (Slices {slices} at H/2 and W/2) on the channels; YOLOv5's Focus stacks every second pixel (x[..., ::2, ::2], x[..., 1::2, ::2], …), which a Caffe Slice cannot express: if this is a converted Focus, the net computes another function with the same shapes — check it against the ONNX model (nnie-lint --onnx names it), or replace the Focus (YOLOv5 from v6.0 exports a 6×6 stride-2 convolution instead); the pattern alone cannot tell which function the net was trained with",
                              "Concat \"{layer}\" 在通道上拼接了 \"{blob}\" 的四个连续象限（Slice {slices} 在 H/2 与 W/2 处切分）；YOLOv5 的 Focus 拼接的是隔点采样（x[..., ::2, ::2]、x[..., 1::2, ::2] 等），Caffe 的 Slice 无法表达：若这是转换后的 Focus，网络在形状不变的情况下计算的是另一个函数——请用 ONNX 模型核对（nnie-lint --onnx 会指出），或替换 Focus（YOLOv5 自 v6.0 起导出为 6×6、步长 2 的卷积）；仅凭结构无法判断网络训练时用的是哪个函数")},
      docs_zh=('两级 Slice 在 H/2、W/2 处把同一个 blob 切成两半，再在通道上 '
               'Concat 这四个部分：拼接的是连续的四个象限，而 YOLOv5 的 '
               'Focus 拼接的是隔点采样（x[..., ::2, ::2] 等），Caffe '
               '的 Slice 无法表达。形状相同，什么也不会报错，Caffe 与 NNIE '
               '也一致，但第一个卷积看到的图像与训练时不同。网络也可能本来就按象限拼接，'
               '因此是带保留的警告；有 ONNX 模型时由转换检查判定（NN506：步长为 '
               '2 的 ONNX Slice）。'))
def nn023(project, ctx):
    """
    ## What it finds
    A Concat on the channels of the four parts of two levels of Slices that cut one blob in halves
    at H/2 and W/2 — the contiguous quadrants (top-left, bottom-left, top-right, bottom-right)
    stacked on the channels: what a converter writes for YOLOv5's Focus when it cannot express
    the stride-2 slices.

    ## Why
    YOLOv5's Focus (before v6.0) takes every second pixel: `x[..., ::2, ::2]`, `x[..., 1::2, ::2]`,
    `x[..., ::2, 1::2]`, `x[..., 1::2, 1::2]`.  The quadrants have the same shapes, so nothing
    fails and both Caffe and NNIE agree — but the first convolution sees another image than the
    trained model did.  The guide's Caffe-against-NNIE comparison cannot see it.  A net may also
    have been built with quadrant stacking on purpose, so this is a hedged warning; with the ONNX
    model the conversion check decides (NN506 on the Slice: ONNX Slice with steps 2).

    ## Example
    ```
    layer { name: "slice_h" type: "Slice" bottom: "images" top: "top" top: "bottom" slice_param { axis: 2 } }
    layer { name: "slice_t" type: "Slice" bottom: "top" top: "tl" top: "tr" slice_param { axis: 3 } }
    layer { name: "slice_b" type: "Slice" bottom: "bottom" top: "bl" top: "br" slice_param { axis: 3 } }
    layer { name: "focus_cat" type: "Concat" bottom: "tl" bottom: "bl" bottom: "tr" bottom: "br" top: "focus" }
    ```

    ## Fix
    None automatic: the NNIE-friendly Focus is a stride-2 convolution (YOLOv5 v6.0's 6×6 Conv, or a
    2×2 stride-2 convolution with fixed one-hot weights that moves each pixel to its channel).
    """
    doc, g = project.prototxt, project.graph
    if doc is None or g is None:
        return
    try:
        shapes = g.blob_shapes() or {}
    except Exception:  # shape inference is best effort
        shapes = {}
    for cat, slices, source in quadrant_stacks(g, shapes):
        yield ctx.diag("quadrants", doc.path, cat.source.type_range or layer_anchor(cat.source), layer=cat.name,
                       blob=source, slices=names_text([s.name for s in slices]))
