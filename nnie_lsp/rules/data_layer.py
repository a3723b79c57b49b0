"""Data-layer rules NN101-NN111 (guide step 2: preprocessing must match what the net was trained on)."""

from __future__ import annotations

import re

from ..diagnostics import Severity
from ..fixes import insert_cfg_line, set_cfg_value
from ..settings import RGB_FRAMEWORKS
from ..text import Range
from ._proto import child, layer_anchor
from .registry import rule

E, W, I = Severity.ERROR, Severity.WARNING, Severity.INFO

MEAN_NORMS = (1, 2, 4, 5)
SCALE_NORMS = (3, 4, 5)
BINARY_MEAN_NORMS = (1, 4)
TEXT_MEAN_NORMS = (2, 5)
DEFAULT_SCALE = 1 / 256
DATA_LAYER_TYPES = frozenset({"Data", "ImageData", "MemoryData", "Input", "DummyData", "WindowData",
                              "AnnotatedData", "HDF5Data"})


def _groups(project):
    cfg, config = project.cfg, project.config
    if cfg is None or config is None:
        return []
    return list(config.groups)


def _home(g, *keys):
    for k in keys:
        e = g.entry(k)
        if e is not None:
            return e
    return None


def _input(project, k):
    g = project.graph
    if g is None or k >= len(g.inputs):
        return None
    return g.inputs[k]


def _channels(project, k):
    inp = _input(project, k)
    if inp is None or not inp.shape or len(inp.shape) < 2:
        return None
    return inp.shape[1]


def _input_related(ctx, project, k, msg_id="input"):
    inp = _input(project, k)
    if inp is None or project.prototxt is None:
        return []
    return [ctx.related(msg_id, project.prototxt.path, inp.range, name=inp.name,
                        shape="x".join(map(str, inp.shape or ())) or "?")]


@rule("NN101", "mean-file-missing", E, step=2,
      summary=("norm_type 1/2/4/5 without a mean file", "norm_type 为 1/2/4/5 却没有均值文件"),
      messages={"missing": ("norm_type {norm} subtracts a mean, but [mean_file] is {what}",
                            "norm_type {norm} 需要减均值，但 [mean_file] {what}"),
                "absent": ("not set", "未设置"), "null": ("`{value}`", "为 `{value}`"),
                "norm": ("[norm_type] {norm} is here", "[norm_type] {norm} 在此"),
                "to_scale": ("Use norm_type {new} (no mean)", "改用 norm_type {new}（不减均值）")},
      fix="unsafe")
def nn101(project, ctx):
    """
    ## What it finds
    An input whose `[norm_type]` is 1 or 4 (mean image) or 2 or 5 (channel mean) while its
    `[mean_file]` is missing or a placeholder such as `null`.

    ## Why
    Guide step 2: the mapper subtracts the mean during calibration and on the chip; without one the
    quantization statistics and the simulator's data layer differ from Caffe's (data-layer cosine
    below 0.999).

    ## Example
    ```
    [norm_type] 5
    [mean_file] null        # needs a channel-mean text file, one value per line
    ```

    ## Fix
    Unsafe: switch to the norm_type without a mean (1/2 → 0, 4/5 → 3) — only right if the net was
    really trained without mean subtraction.
    """
    for g in _groups(project):
        norm = g.norm_type_value
        if norm not in MEAN_NORMS:
            continue
        mf = g.mean_file
        if mf is not None and not g.mean_file_is_null:
            continue
        what = ctx.text("absent") if mf is None else ctx.text("null", value=mf.value)
        home = mf or g.norm_type
        new = 0 if norm in (1, 2) else 3
        fix = ctx.fix("to_scale", [(project.cfg.path, set_cfg_value(g.norm_type, str(new)))], safe=False, new=new)
        rng = home.value_range if mf is not None else g.norm_type.value_range
        yield ctx.diag("missing", project.cfg.path, rng, fix=fix, norm=norm, what=what,
                       related=[ctx.related("norm", project.cfg.path, g.norm_type.line_range, norm=norm)] if mf is not None else [])


@rule("NN102", "mean-file-ignored", W, step=2,
      summary=("A real mean file that norm_type 0/3 ignores", "norm_type 0/3 会忽略已配置的均值文件"),
      messages={"ignored": ("[mean_file] {value} is ignored: norm_type {norm} subtracts no mean (use norm_type {suggest} if the net expects mean subtraction)",
                            "[mean_file] {value} 会被忽略：norm_type {norm} 不减均值（若网络需要减均值请用 norm_type {suggest}）"),
                "use": ("Use norm_type {suggest} so the mean is subtracted", "改用 norm_type {suggest} 以减去均值")},
      fix="unsafe")
def nn102(project, ctx):
    """
    ## What it finds
    An input with `[norm_type] 0` or `3` whose `[mean_file]` names a real file.

    ## Why
    norm_type 0 and 3 subtract nothing; the guide only requires the key to be present (e.g. `null`).
    A real file there usually means the author expected the mean to be subtracted — a step-2
    preprocessing mismatch that shows as a data-layer cosine below 0.999.

    ## Example
    ```
    [norm_type] 3
    [mean_file] ./mean.txt      # ignored; norm_type 5 = channel mean, then data_scale
    ```

    ## Fix
    Unsafe: switch to the norm_type that uses this kind of file (3 → 5 or 4, 0 → 2 or 1) — only
    right if the net was trained with mean subtraction.
    """
    for g in _groups(project):
        norm = g.norm_type_value
        mf = g.mean_file
        if norm not in (0, 3) or mf is None or g.mean_file_is_null:
            continue
        binary = mf.value.lower().endswith(".binaryproto")
        suggest = {(0, True): 1, (0, False): 2, (3, True): 4, (3, False): 5}[(norm, binary)]
        fix = ctx.fix("use", [(project.cfg.path, set_cfg_value(g.norm_type, str(suggest)))], safe=False, suggest=suggest)
        yield ctx.diag("ignored", project.cfg.path, mf.value_range, fix=fix, value=mf.value, norm=norm, suggest=suggest)


@rule("NN103", "mean-file-kind", E, step=2,
      summary=("Wrong mean file kind for the norm_type", "均值文件类型与 norm_type 不符"),
      messages={"need_binary": ("norm_type {norm} needs a mean image (.binaryproto), but [mean_file] is {value}",
                                "norm_type {norm} 需要均值图像（.binaryproto），但 [mean_file] 为 {value}"),
                "need_text": ("norm_type {norm} needs a channel-mean text file (one value per line), but [mean_file] is a .binaryproto",
                              "norm_type {norm} 需要通道均值文本文件（每行一个值），但 [mean_file] 是 .binaryproto"),
                "unreadable": ("[mean_file] {value} is not a channel-mean text file: {error}",
                               "[mean_file] {value} 不是通道均值文本文件：{error}"),
                "switch": ("Use norm_type {new} to match the file", "改用 norm_type {new} 以匹配该文件")},
      fix="unsafe")
def nn103(project, ctx):
    """
    ## What it finds
    `[norm_type]` 1 or 4 (mean image) with a mean file that is not `.binaryproto`, or 2 or 5
    (channel mean) with a `.binaryproto`; and channel-mean files that are not one number per line.

    ## Why
    The guide's table: norm_type 1/4 read a Caffe mean image (`.binaryproto`), 2/5 a text file with
    one float per channel.  The wrong kind is misread or refused.

    ## Example
    ```
    [norm_type] 4
    [mean_file] ./mean.txt       # 4 wants mean.binaryproto; for per-channel means use 5
    ```

    ## Fix
    Unsafe: switch the norm_type to the one matching the file (1 ↔ 2, 4 ↔ 5).
    """
    for g in _groups(project):
        norm = g.norm_type_value
        mf = g.mean_file
        if norm not in MEAN_NORMS or mf is None or g.mean_file_is_null:
            continue
        binary = mf.value.lower().endswith(".binaryproto")
        path = project.cfg.path
        if norm in BINARY_MEAN_NORMS and not binary:
            new = {1: 2, 4: 5}[norm]
            fix = ctx.fix("switch", [(path, set_cfg_value(g.norm_type, str(new)))], safe=False, new=new)
            yield ctx.diag("need_binary", path, mf.value_range, fix=fix, norm=norm, value=mf.value)
        elif norm in TEXT_MEAN_NORMS and binary:
            new = {2: 1, 5: 4}[norm]
            fix = ctx.fix("switch", [(path, set_cfg_value(g.norm_type, str(new)))], safe=False, new=new)
            yield ctx.diag("need_text", path, mf.value_range, fix=fix, norm=norm)
        else:
            facts = project.mean_for(mf)
            if facts is not None and facts.error and norm in TEXT_MEAN_NORMS:
                yield ctx.diag("unreadable", path, mf.value_range, value=mf.value, error=facts.error)


@rule("NN104", "mean-channel-count", E, step=2,
      summary=("Channel mean count differs from the input's channels", "通道均值个数与输入通道数不同"),
      messages={"count": ("[mean_file] {value} has {n} value(s) but input \"{name}\" has {c} channel(s)",
                          "[mean_file] {value} 有 {n} 个值，但输入 \"{name}\" 有 {c} 个通道"),
                "input": ("input \"{name}\" is declared {shape}", "输入 \"{name}\" 的形状为 {shape}")})
def nn104(project, ctx):
    """
    ## What it finds
    A channel-mean file (norm_type 2/5) whose number of values differs from the channel count of
    its network input, or a mean image (1/4) with another channel count.

    ## Why
    The mapper subtracts one mean per channel; a gray net (1 channel) needs one line, a colour net
    three.  A mismatch is refused or, worse, reads past the values you meant.

    ## Example
    ```
    # data: 1x1x112x112 (gray)
    [mean_file] ./mean_bgr.txt     # 3 lines
    ```

    ## Fix
    None automatic.
    """
    for g in _groups(project):
        norm = g.norm_type_value
        mf = g.mean_file
        if norm not in MEAN_NORMS or mf is None or g.mean_file_is_null:
            continue
        facts = project.mean_for(mf)
        c = _channels(project, g.index)
        if facts is None or c is None or facts.channels is None:
            continue
        if facts.channels != c:
            inp = _input(project, g.index)
            yield ctx.diag("count", project.cfg.path, mf.value_range, value=mf.value, n=facts.channels,
                           name=inp.name, c=c, related=_input_related(ctx, project, g.index))


@rule("NN105", "data-scale-ignored", W, step=2,
      summary=("data_scale set but norm_type 0/1/2 ignores it", "设置了 data_scale 但 norm_type 0/1/2 会忽略它"),
      messages={"ignored": ("[data_scale] {value} is ignored: norm_type {norm} does not scale (3, 4 and 5 do)",
                            "[data_scale] {value} 会被忽略：norm_type {norm} 不做缩放（3、4、5 才会）"),
                "use": ("Use norm_type {new} so data_scale is applied", "改用 norm_type {new} 以应用 data_scale")},
      fix="unsafe")
def nn105(project, ctx):
    """
    ## What it finds
    `[data_scale]` given while every input it applies to has norm_type 0, 1 or 2.

    ## Why
    Only norm_type 3, 4 and 5 multiply by data_scale.  If the net was trained on inputs scaled to
    [0, 1] (1/255) or [-1, 1], the chip sees 0-255 values instead — step 2's data-layer mismatch.

    ## Example
    ```
    [norm_type] 2
    [data_scale] 0.0078125      # ignored; norm_type 5 = channel mean then × data_scale
    ```

    ## Fix
    Unsafe: switch to the scaling variant (0 → 3, 1 → 4, 2 → 5).
    """
    groups = _groups(project)
    for entry in (project.cfg.get("data_scale") if project.cfg else ()):
        users = [g for g in groups if g.data_scale is entry]
        if not users:
            continue
        norms = [g.norm_type_value for g in users]
        if any(n is None or n in SCALE_NORMS for n in norms):
            continue
        g = users[0]
        new = {0: 3, 1: 4, 2: 5}[norms[0]]
        fix = None
        if len(users) == 1 and g.norm_type is not None:
            fix = ctx.fix("use", [(project.cfg.path, set_cfg_value(g.norm_type, str(new)))], safe=False, new=new)
        yield ctx.diag("ignored", project.cfg.path, entry.value_range, fix=fix, value=entry.value, norm=norms[0], new=new)


@rule("NN106", "data-scale-default", W, step=2,
      summary=("norm_type 3/4/5 without data_scale (the default is 1/256, not 1/255)",
               "norm_type 3/4/5 未设置 data_scale（默认值是 1/256，不是 1/255）"),
      messages={"missing": ("norm_type {norm} scales the input but [data_scale] is not set: the mapper uses 1/256 (0.00390625), not 1/255",
                            "norm_type {norm} 会缩放输入，但未设置 [data_scale]：mapper 默认使用 1/256（0.00390625），而不是 1/255"),
                "add": ("Write the default explicitly: [data_scale] 0.00390625", "显式写出默认值：[data_scale] 0.00390625")},
      fix="safe")
def nn106(project, ctx):
    """
    ## What it finds
    An input with norm_type 3, 4 or 5 and no `[data_scale]`.

    ## Why
    The mapper's default data_scale is 0.00390625 (1/256).  Nets trained with `x / 255` (most
    PyTorch, Darknet and MXNet nets) then see values 0.4 % too small — small, but it is a
    preprocessing mismatch the guide's step 2 checks for, and it hides behind the default.

    ## Example
    ```
    [norm_type] 3
    # no [data_scale]: 1/256 is used
    [data_scale] 0.0039215686   # 1/255, if the net was trained with x/255
    ```

    ## Fix
    Safe: write the default (`[data_scale] 0.00390625`) explicitly — behaviour is unchanged and
    the value is now visible; change it to 1/255 if that is what the net was trained with.
    """
    cfg = project.cfg
    if cfg is None or cfg.get("data_scale"):
        return
    for g in _groups(project):
        norm = g.norm_type_value
        if norm in SCALE_NORMS and g.data_scale is None:
            fix = ctx.fix("add", [(cfg.path, insert_cfg_line(cfg, "data_scale", "0.00390625", after=g.norm_type))], safe=True)
            yield ctx.diag("missing", cfg.path, g.norm_type.value_range, fix=fix, norm=norm)
            return


def _transform_layers(project):
    g = project.graph
    if g is None:
        return []
    out = []
    for layer in g.layers:
        if layer.type in DATA_LAYER_TYPES and layer.source.param.HasField("transform_param"):
            out.append(layer)
    return out


def _close(a: float, b: float, rel: float = 1e-3) -> bool:
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-12)


def _fmt(x: float) -> str:
    return f"{x:.8g}"


@rule("NN107", "preprocessing-differs-from-prototxt", W, step=2,
      summary=("cfg preprocessing differs from the prototxt's transform_param",
               "cfg 的预处理与 prototxt 的 transform_param 不一致"),
      messages={"scale": ("cfg data scale {cfg} differs from the prototxt's transform_param scale {proto}{why}",
                          "cfg 的缩放系数 {cfg} 与 prototxt 中 transform_param 的 scale {proto} 不同{why}"),
                "scale_255": (" (1/256 vs 1/255)", "（1/256 与 1/255 之差）"),
                "no_scale": ("the prototxt scales the input by {proto} but norm_type {norm} applies no data_scale",
                             "prototxt 对输入乘以 {proto}，但 norm_type {norm} 不做缩放"),
                "no_mean": ("the prototxt subtracts mean_value {proto} but norm_type {norm} subtracts no mean",
                            "prototxt 减去 mean_value {proto}，但 norm_type {norm} 不减均值"),
                "mean": ("channel means in the cfg mean file ({cfg}) differ from the prototxt's mean_value ({proto})",
                         "cfg 均值文件中的通道均值（{cfg}）与 prototxt 的 mean_value（{proto}）不同"),
                "proto": ("transform_param of layer \"{layer}\"", "层 \"{layer}\" 的 transform_param"),
                "set_scale": ("Set [data_scale] {value}", "设置 [data_scale] {value}")},
      fix="unsafe")
def nn107(project, ctx):
    """
    ## What it finds
    A data layer in the prototxt whose `transform_param` (scale, mean_value) says how the net was
    fed in Caffe, and a cfg that preprocesses differently: another scale (0.0039062 vs
    0.00392157), no scaling, no mean subtraction, or other mean values.

    ## Why
    Guide step 2: `[mean_file]`, `[data_scale]` and `[norm_type]` must reproduce Caffe's
    preprocessing, or the data layer's cosine similarity drops below 0.999 and every later layer
    inherits the error.

    ## Example
    ```
    # prototxt: transform_param { scale: 0.00392157 }
    [norm_type] 3
    [data_scale] 0.0039062
    ```

    ## Fix
    Unsafe: set `[data_scale]` to the prototxt's scale (the prototxt may describe training only).
    """
    cfg, doc = project.cfg, project.prototxt
    if cfg is None or doc is None:
        return
    groups = _groups(project)
    for layer in _transform_layers(project):
        tp = layer.source.param.transform_param
        k = 0
        inputs = [i.name for i in project.graph.inputs]
        for t in layer.tops:
            if t in inputs:
                k = inputs.index(t)
        if k >= len(groups):
            continue
        g = groups[k]
        norm = g.norm_type_value
        if norm is None:
            continue
        rel = [ctx.related("proto", doc.path, layer_anchor(layer.source), layer=layer.name)]
        node = child(layer.source.node, "transform_param")
        if tp.HasField("scale") and not _close(tp.scale, 1.0, 1e-9):
            if norm in SCALE_NORMS:
                cfg_scale = g.data_scale_value
                if cfg_scale is not None and not _close(cfg_scale, tp.scale):
                    why = ctx.text("scale_255") if _close(cfg_scale, 1 / 256, 2e-3) and _close(tp.scale, 1 / 255, 2e-3) else ""
                    home = g.data_scale or g.norm_type
                    fix = None
                    if g.data_scale is not None:
                        sn = child(node, "scale")  # the value as written (float32 would print 0.0039215698)
                        written = sn.value_text if sn is not None else _fmt(tp.scale)
                        fix = ctx.fix("set_scale", [(cfg.path, set_cfg_value(g.data_scale, written))], safe=False, value=written)
                    yield ctx.diag("scale", cfg.path, home.value_range, fix=fix, related=rel,
                                   cfg=_fmt(cfg_scale), proto=_fmt(tp.scale), why=why)
            else:
                yield ctx.diag("no_scale", cfg.path, g.norm_type.value_range, related=rel,
                               proto=_fmt(tp.scale), norm=norm)
        if tp.mean_value:
            proto_means = [float(v) for v in tp.mean_value]
            if norm in (0, 3):
                yield ctx.diag("no_mean", cfg.path, g.norm_type.value_range, related=rel,
                               proto=", ".join(_fmt(v) for v in proto_means), norm=norm)
            elif norm in TEXT_MEAN_NORMS and g.mean_file is not None:
                facts = project.mean_for(g.mean_file)
                if facts is not None and facts.values:
                    cm = list(facts.values)
                    pm = proto_means * len(cm) if len(proto_means) == 1 else proto_means
                    if len(cm) == len(pm) and not all(abs(a - b) <= 0.5 for a, b in zip(cm, pm)):
                        yield ctx.diag("mean", cfg.path, g.mean_file.value_range, related=rel,
                                       cfg=", ".join(_fmt(v) for v in cm), proto=", ".join(_fmt(v) for v in pm))
        del node


# ------------------------------------------------------------------ RGB evidence

_DARKNET = re.compile(r"^layer\d+-(conv|bn|scale|act|upsample|route|shortcut|maxpool|concat)", re.I)
_PYTORCH2CAFFE = re.compile(r"_blob\d+$")
_ONNX_OP = re.compile(r"^(Conv|Relu|Sigmoid|Mul|Add|Concat|MaxPool|Resize|Reshape|Transpose|BatchNormalization|Gemm|LeakyRelu|Upsample|Slice|Split|Clip|HardSigmoid|GlobalAveragePool|Flatten|Softmax)_\d+$")
_MXNET = re.compile(r"(_fwd$|^_plus\d+|^_mulscalar\d+|^_minusscalar\d+|^stage\d+_unit\d+|^bn_data$|_relu_fwd$|^_copy\d+)")


def rgb_evidence(project, lang: str = "en") -> list[str]:
    """Reasons to believe the net comes from an RGB-trained framework (empty if none)."""
    g = project.graph
    if g is None:
        return []
    zh = lang.startswith("zh")
    names = [l.name for l in g.layers] + [b for l in g.layers for b in l.tops]
    ev = []

    def say(en: str, cn: str) -> None:
        ev.append(cn if zh else en)

    def sample(rx):
        return [n for n in names if rx.search(n)]

    h = sample(_DARKNET)
    if len(h) >= 3:
        say(f"darknet2caffe layer names ({h[0]}, …)", f"darknet2caffe 风格的层名（{h[0]} 等）")
    h = sample(_PYTORCH2CAFFE)
    if len(h) >= 3 or any(i.name == "blob1" for i in g.inputs):
        first = (h or ["blob1"])[0]
        say(f"PytorchToCaffe blob names ({first}, …)", f"PytorchToCaffe 风格的 blob 名（{first} 等）")
    h = sample(_ONNX_OP)
    numeric = [n for n in names if n.isdigit()]
    if len(h) >= 3:
        say(f"ONNX converter layer names ({h[0]}, …)", f"ONNX 转换工具风格的层名（{h[0]} 等）")
    elif len(numeric) >= max(3, len(names) // 4):
        say(f"ONNX/PyTorch converter numeric blob names (\"{numeric[0]}\", …)",
            f"ONNX/PyTorch 转换工具的数字 blob 名（\"{numeric[0]}\" 等）")
    h = sample(_MXNET)
    if len(h) >= 3:
        say(f"mxnet2caffe names ({h[0]}, …)", f"mxnet2caffe 风格的名称（{h[0]} 等）")
    # SiLU written as Sigmoid × x: YOLOv5 and other PyTorch nets
    sig_tops = {l.tops[0] for l in g.layers if l.type == "Sigmoid" and l.tops}
    silu = [l for l in g.layers if l.type == "Eltwise" and len(l.bottoms) == 2 and
            any(b in sig_tops for b in l.bottoms) and _is_prod(l)]
    if len(silu) >= 3:
        say(f"{len(silu)} SiLU blocks (Sigmoid × x, a PyTorch activation)",
            f"{len(silu)} 个 SiLU 结构（Sigmoid × x，PyTorch 的激活函数）")
    return ev


def _is_prod(layer) -> bool:
    p = layer.source.param
    return p.HasField("eltwise_param") and p.eltwise_param.operation == 0  # PROD


@rule("NN108", "rgb-trained-source", W, step=2,
      summary=("The net looks RGB-trained but RGB_order is BGR or unset", "网络看起来是 RGB 训练的，但 RGB_order 为 BGR 或未设置"),
      messages={"rgb": ("the net looks converted from an RGB-trained framework ({evidence}) but [RGB_order] is {order}: set [RGB_order] RGB, or declare source-framework = \"caffe\" if it was trained on BGR",
                        "网络看起来由 RGB 训练的框架转换而来（{evidence}），但 [RGB_order] 为 {order}：请设置 [RGB_order] RGB；若确实用 BGR 训练，请声明 source-framework = \"caffe\""),
                "declared": ("declared source framework {fw}", "声明的源框架为 {fw}"),
                "unset": ("unset (BGR)", "未设置（默认 BGR）"),
                "set_rgb": ("Set [RGB_order] RGB", "设置 [RGB_order] RGB")},
      fix="unsafe")
def nn108(project, ctx):
    """
    ## What it finds
    A net whose layer and blob names or patterns show it was converted from an RGB-trained framework
    — darknet2caffe (`layer86-upsample`), PytorchToCaffe (`conv_blob1`), ONNX converters
    (`Conv_0`, numeric blobs such as `"292"`), mxnet2caffe (`stage1_unit1_…`), SiLU written as
    Sigmoid × x — or a declared `source-framework` of that kind, while `[RGB_order]` is BGR or unset
    (default BGR). The message names the evidence.

    ## Why
    Guide step 2: MXNet and Darknet nets (and most converted PyTorch nets) are trained on RGB, so
    `[RGB_order]` must be `RGB`; with BGR the red and blue planes are swapped and YOLO-style nets
    find nothing (wllkk/yolov5-nnie#1).

    ## Example
    ```
    # prototxt converted by darknet2caffe: layer1-conv, layer1-bn, …
    [RGB_order] BGR
    ```

    ## Fix
    Unsafe: set `[RGB_order] RGB` (the evidence is a heuristic). If the net really was trained on
    BGR, declare `source-framework = "caffe"` in `[tool.nnie-lint]` (or the editor setting) to
    silence it.
    """
    cfg = project.cfg
    if cfg is None or project.graph is None:
        return
    fw = project.settings.source_framework
    if fw == "caffe":
        return
    ev = [ctx.text("declared", fw=fw)] if fw in RGB_FRAMEWORKS else rgb_evidence(project, ctx.lang)
    if not ev:
        return
    sep = "；" if ctx.lang.startswith("zh") else "; "
    for g in _groups(project)[:max(1, len(project.graph.inputs))]:
        itype = g.image_type_value
        if itype == 0:
            continue
        c = _channels(project, g.index)
        if c is not None and c != 3:
            continue
        order = g.rgb_order_value
        e = g.entry("RGB_order")
        if e is not None and order == "RGB":
            continue
        if e is not None and order not in ("BGR", None):
            continue  # NN003 reports an invalid value
        if e is not None:
            fix = ctx.fix("set_rgb", [(cfg.path, set_cfg_value(e, "RGB"))], safe=False)
            yield ctx.diag("rgb", cfg.path, e.value_range, fix=fix, evidence=sep.join(ev), order=e.value)
        else:
            anchor = g.image_type or g.image_list or (cfg.entries[-1] if cfg.entries else None)
            if anchor is None:
                continue
            fix = ctx.fix("set_rgb", [(cfg.path, insert_cfg_line(cfg, "RGB_order", "RGB", after=anchor))], safe=False)
            yield ctx.diag("rgb", cfg.path, anchor.key_range, fix=fix, evidence=sep.join(ev), order=ctx.text("unset"))
        if g.entry("RGB_order") is not None and "RGB_order" in g.shared:
            break


IMAGENET_BGR = (103.94, 116.78, 123.68)


@rule("NN109", "imagenet-mean-order", W, step=2,
      summary=("Channel means look like ImageNet means in the other channel order",
               "通道均值看起来是另一种通道顺序的 ImageNet 均值"),
      messages={"swapped": ("channel means ({values}) are the ImageNet means in {file_order} order, but [RGB_order] is {order}: the first line should be the {first} mean",
                            "通道均值（{values}）是 {file_order} 顺序的 ImageNet 均值，但 [RGB_order] 为 {order}：第一行应为 {first} 通道的均值")})
def nn109(project, ctx):
    """
    ## What it finds
    A 3-line channel-mean file holding the ImageNet means (≈ 104, 117, 124) in BGR order while
    `[RGB_order]` is RGB, or in RGB order (≈ 124, 117, 104) while it is BGR.

    ## Why
    The mean file's lines follow the channels as the net sees them.  The red and blue means differ
    by 20 — a visible step-2 data-layer mismatch.  (Which order the mapper expects for the mean
    lines is not stated by the vendor; HiSilicon's own Caffe dump script takes means in the
    network's channel order, B, G, R for BGR nets.)

    ## Example
    ```
    [RGB_order] RGB
    [mean_file] ./mean.txt     # 104.0 / 117.0 / 123.0  -> 123.0 / 117.0 / 104.0
    ```

    ## Fix
    None automatic: reverse the lines of the mean file if the finding is right.
    """
    for g in _groups(project):
        if g.norm_type_value not in TEXT_MEAN_NORMS or g.mean_file is None:
            continue
        facts = project.mean_for(g.mean_file)
        if facts is None or not facts.values or len(facts.values) != 3:
            continue
        v = facts.values
        bgr = all(abs(a - b) <= 2.0 for a, b in zip(v, IMAGENET_BGR))
        rgb = all(abs(a - b) <= 2.0 for a, b in zip(v, reversed(IMAGENET_BGR)))
        order = g.rgb_order_value or "BGR"
        if (bgr and order == "RGB") or (rgb and order == "BGR"):
            yield ctx.diag("swapped", project.cfg.path, g.mean_file.value_range,
                           values=", ".join(_fmt(x) for x in v), file_order="BGR" if bgr else "RGB",
                           order=order, first="R" if order == "RGB" else "B")


@rule("NN110", "input-group-count", E, step=2,
      summary=("Per-input groups do not match the network inputs", "按输入分组的配置个数与网络输入个数不符"),
      messages={"count": ("the cfg describes {n} input(s) ([image_list] ×{n}) but the prototxt has {m}: {names}",
                          "cfg 描述了 {n} 个输入（[image_list] ×{n}），但 prototxt 有 {m} 个：{names}"),
                "key_count": ("[{key}] is given {count} time(s) for {n} input(s); the k-th [{key}] belongs to the k-th input",
                              "[{key}] 出现 {count} 次，而输入有 {n} 个；第 k 个 [{key}] 属于第 k 个输入"),
                "input": ("network input \"{name}\" ({shape})", "网络输入 \"{name}\"（{shape}）")})
def nn110(project, ctx):
    """
    ## What it finds
    A cfg whose number of `[image_list]` groups differs from the number of network inputs, or whose
    per-input keys (`image_type`, `norm_type`, `mean_file`, and `RGB_order`/`data_scale` when
    repeated) appear a different number of times than `[image_list]`.

    ## Why
    The guide: with several inputs, give one `[image_list]` (and its group of settings) per input,
    in the prototxt's input order.  A missing group leaves an input uncalibrated; a shifted group
    preprocesses one input with another's settings.

    ## Example
    ```
    # prototxt: inputs "data" and "im_info"
    [image_list] ./data.txt        # only one group
    ```

    ## Fix
    None automatic.
    """
    cfg, config = project.cfg, project.config
    if cfg is None or config is None:
        return
    n = config.input_count
    g = project.graph
    if g is not None and project.prototxt is not None and g.inputs and n:
        m = len(g.inputs)
        if m != n:
            lists = cfg.get("image_list")
            rel = [ctx.related("input", project.prototxt.path, i.range, name=i.name,
                               shape="x".join(map(str, i.shape or ())) or "?") for i in g.inputs]
            yield ctx.diag("count", cfg.path, lists[-1].key_range, related=rel, n=n, m=m,
                           names=", ".join(i.name for i in g.inputs))
    for mm in config.per_input_mismatches() if n else ():  # no [image_list] at all: NN005 says so
        yield ctx.diag("key_count", cfg.path, mm.entries[-1].key_range, key=mm.key, count=mm.count, n=mm.expected)


@rule("NN111", "image-type-conflict", E, step=2,
      summary=("image_type conflicts with norm_type, RGB_order or the input", "image_type 与 norm_type、RGB_order 或输入不一致"),
      messages={"itype0_norm": ("image_type 0 (feature-map input) needs norm_type 0; norm_type {norm} is not applied to float inputs",
                                "image_type 0（特征图输入）要求 norm_type 为 0；norm_type {norm} 不适用于浮点输入"),
                "rgb_itype0": ("[RGB_order] is meaningless for image_type 0 (float feature-map input)",
                               "image_type 0（浮点特征图输入）时 [RGB_order] 没有意义"),
                "rgb_gray": ("[RGB_order] is meaningless for input \"{name}\" with {c} channel",
                             "输入 \"{name}\" 只有 {c} 个通道，[RGB_order] 没有意义"),
                "channels": ("image_type {itype} feeds a gray or 3-channel image, but input \"{name}\" has {c} channels",
                             "image_type {itype} 输入灰度或三通道图像，但输入 \"{name}\" 有 {c} 个通道"),
                "set0": ("Set norm_type 0", "设置 norm_type 为 0"),
                "input": ("input \"{name}\" is declared {shape}", "输入 \"{name}\" 的形状为 {shape}")},
      fix="safe")
def nn111(project, ctx):
    """
    ## What it finds
    `[image_type] 0` (S32 feature-map / vector input from float text) with a norm_type other than 0;
    `[RGB_order]` on an image_type-0 or one-channel input; image inputs (image_type 1/3/5) whose
    network input is neither 1- nor 3-channel.

    ## Why
    The guide: image_type 0 ⇒ norm_type 0, and RGB_order is ignored for image_type 0.  Such
    settings are silently ignored, which hides the preprocessing the author thought they had.

    ## Example
    ```
    [image_type] 0
    [norm_type] 3      # not applied: feature-map input
    ```

    ## Fix
    Safe: set norm_type 0 for image_type 0 (the mapper ignores the other value anyway).
    """
    cfg = project.cfg
    for g in _groups(project):
        itype = g.image_type_value
        norm = g.norm_type_value
        if itype == 0 and norm not in (0, None):
            fix = ctx.fix("set0", [(cfg.path, set_cfg_value(g.norm_type, "0"))], safe=True)
            yield ctx.diag("itype0_norm", cfg.path, g.norm_type.value_range, fix=fix, norm=norm)
        e = g.entry("RGB_order")
        shared = "RGB_order" in g.shared
        if itype == 0 and e is not None and not shared:
            yield ctx.diag("rgb_itype0", cfg.path, e.key_range, severity=W)
        c = _channels(project, g.index)
        inp = _input(project, g.index)
        if c == 1 and e is not None and itype != 0 and not shared:
            yield ctx.diag("rgb_gray", cfg.path, e.key_range, severity=I, name=inp.name, c=c)
        if itype in (1, 3, 5) and c is not None and c not in (1, 3):
            yield ctx.diag("channels", cfg.path, g.image_type.value_range, severity=W, itype=itype,
                           name=inp.name, c=c, related=_input_related(ctx, project, g.index))


@rule("NN112", "feature-input-size", E, step=2,
      summary=("image_type 0 list lines do not hold one C·H·W tensor", "image_type 0 列表中每行不是一个 C·H·W 张量"),
      messages={"size": ("line {line} of {list} holds {n} numbers, but input \"{name}\" ({shape}) needs {need} per line (one C·H·W tensor)",
                         "{list} 第 {line} 行有 {n} 个数，但输入 \"{name}\"（{shape}）每行需要 {need} 个（一个 C·H·W 张量）"),
                "bad": ("line {line} of {list} is not numbers: {text}", "{list} 第 {line} 行不是数字：{text}"),
                "line": ("this line", "该行"),
                "input": ("input \"{name}\" is declared {shape}", "输入 \"{name}\" 的形状为 {shape}")})
def nn112(project, ctx):
    """
    ## What it finds
    With `[image_type] 0` (feature-map / vector input), lines of the `[image_list]` file whose count
    of numbers differs from the network input's C·H·W, or that are not numbers.

    ## Why
    The guide: for image_type 0 each line of the list is one full C·H·W tensor as float text
    (space or comma separated); several lines are several frames. A line of another size is
    refused by the mapper or, worse, read across frame boundaries during calibration. (Recurrent
    nets, `[net_type] 2`, use one vector per line and are not checked here.)

    ## Example
    ```
    # input "feat": 1x1x1x128
    [image_type] 0
    [image_list] ./feat.txt      # a line with 127 numbers
    ```

    ## Fix
    None automatic: regenerate the list with the input's shape.
    """
    cfg, config = project.cfg, project.config
    if cfg is None or config is None or config.value("net_type") == 2:
        return
    import os
    for g in _groups(project):
        if g.image_type_value != 0 or g.image_list is None:
            continue
        facts = project.image_list_for(g.image_list)
        inp = _input(project, g.index)
        if facts is None or inp is None or not inp.shape or len(inp.shape) < 2:
            continue
        need = 1
        for d in inp.shape[1:]:
            need *= int(d)
        name = os.path.basename(facts.ref.resolved or facts.ref.written)
        for ln in facts.lines[:64]:
            toks = [t for t in ln.text.replace(",", " ").split() if t]
            try:
                [float(t) for t in toks]
            except ValueError:
                yield ctx.diag("bad", cfg.path, g.image_list.value_range, list=name, line=ln.line + 1,
                               text=ln.text[:40],
                               related=[ctx.related("line", facts.ref.resolved, Range.of(ln.line, 0, ln.line, len(ln.text)))])
                break
            if len(toks) != need:
                shape = "x".join(map(str, inp.shape))
                yield ctx.diag("size", cfg.path, g.image_list.value_range, list=name, line=ln.line + 1,
                               n=len(toks), name=inp.name, shape=shape, need=need,
                               related=[ctx.related("line", facts.ref.resolved, Range.of(ln.line, 0, ln.line, len(ln.text))),
                                        ctx.related("input", project.prototxt.path, inp.range, name=inp.name, shape=shape)])
                break
