"""Data-layer rules NN108-NN112: channel order and input groups (guide step 2) -- RGB-trained
nets, ImageNet means in the wrong order, one cfg group per network input, image_type conflicts
and feature-map list sizes.  image_type and norm_type meanings come from the one reading in
:mod:`nnie_lsp.readers.cfg.preprocessing` (via ``project.preprocessing``).
Mean file and data_scale: :mod:`.mean_scale_rules`."""

from __future__ import annotations

import os
import re

from nnie_lsp.readers.cfg.preprocessing import CHANNEL_MEAN, DEFAULT_RGB_ORDER
from nnie_lsp.core.diagnostics import Severity
from nnie_lsp.rules.fixes import delete_cfg_line, insert_cfg_line, set_cfg_value
from nnie_lsp.core.lang import pick
from nnie_lsp.project.settings import RGB_FRAMEWORKS
from nnie_lsp.core.text import Range
from nnie_lsp.core.registry import CFG, rule

ERROR, WARNING, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO


def _inputs(project):
    """The cfg's inputs as the one preprocessing reading sees them (empty without a cfg)."""
    return list(project.preprocessing) if project.cfg is not None else []


def input_related(ctx, project, k, msg_id="input"):
    """Related information pointing at the prototxt's k-th network input (empty if unknown)."""
    inp = project.network_input(k)
    if inp is None or project.prototxt is None:
        return []
    return [ctx.related(msg_id, project.prototxt.path, inp.range, name=inp.name,
                        shape="x".join(map(str, inp.shape or ())) or "?")]


def format_number(x: float) -> str:
    """A number in a message: 8 significant digits."""
    return f"{x:.8g}"


# ------------------------------------------------------------------ RGB evidence

_DARKNET = re.compile(r"^layer\d+-(conv|bn|scale|act|upsample|route|shortcut|maxpool|concat)", re.I)
_PYTORCH2CAFFE = re.compile(r"_blob\d+$")
_ONNX_OP = re.compile(r"^(Conv|Relu|Sigmoid|Mul|Add|Concat|MaxPool|Resize|Reshape|Transpose|BatchNormalization|Gemm|LeakyRelu|Upsample|Slice|Split|Clip|HardSigmoid|GlobalAveragePool|Flatten|Softmax)_\d+$")
_MXNET = re.compile(r"(_fwd$|^_plus\d+|^_mulscalar\d+|^_minusscalar\d+|^stage\d+_unit\d+|^bn_data$|_relu_fwd$|^_copy\d+)")
# MXNet Gluon block prefixes (docs/field-facts.md §16.6): "<class name in lower case><counter>_" of the
# model zoo and GluonCV nets, then a child block "<kind><counter>" (mobilenet0_conv0, resnetv10_stage1_conv0,
# mobilenetv20_features_batchnorm0, insightface RetinaFace's mobilenet0_conv0)
_GLUON = re.compile(r"^(alexnet|densenet|inception3|mobilenet|mobilenetv2|mobilenetv3|resnetv1b?|resnetv2"
                    r"|squeezenet|vgg|ssd|yolov3|darknetv3|fasterrcnn|hybridsequential)\d+_"
                    r"([a-z]+\d*_)*(conv|batchnorm|dense|pool|relu|activation|flatten|dropout|hybridsequential)\d+")
# ONNX exports of PyTorch >= 1.13: nodes named by module scope "/layer1/layer1.0/conv1/Conv", values
# "/conv1/Conv_output_0" (docs/field-facts.md §16.6)
_ONNX_SCOPE = re.compile(r"^(/[\w.]+)*/(Conv|Relu|Sigmoid|Mul|Add|Concat|MaxPool|Resize|Reshape|Transpose"
                         r"|BatchNormalization|Gemm|LeakyRelu|Slice|Split|Clip|HardSigmoid|GlobalAveragePool"
                         r"|AveragePool|Flatten|Softmax|ConvTranspose)(_\d+)?(_output_\d+)?$")


def rgb_evidence(project, lang: str = "en") -> list[str]:
    """Reasons to believe the net comes from an RGB-trained framework (empty if none)."""
    graph = project.graph
    if graph is None:
        return []
    names = [l.name for l in graph.layers] + [b for l in graph.layers for b in l.tops]
    ev = []

    def say(en: str, cn: str) -> None:
        ev.append(pick((en, cn), lang))

    def sample(rx):
        return [n for n in names if rx.search(n)]

    h = sample(_DARKNET)
    if len(h) >= 3:
        say(f"darknet2caffe layer names ({h[0]}, …)", f"darknet2caffe 风格的层名（{h[0]} 等）")
    h = sample(_PYTORCH2CAFFE)
    if len(h) >= 3 or any(i.name == "blob1" for i in graph.inputs):
        first = (h or ["blob1"])[0]
        say(f"PytorchToCaffe blob names ({first}, …)", f"PytorchToCaffe 风格的 blob 名（{first} 等）")
    h = sample(_ONNX_OP)
    numeric = [n for n in names if n.isdigit()]
    if len(h) >= 3:
        say(f"ONNX converter layer names ({h[0]}, …)", f"ONNX 转换工具风格的层名（{h[0]} 等）")
    elif len(numeric) >= max(3, len(names) // 4):
        say(f"ONNX/PyTorch converter numeric blob names (\"{numeric[0]}\", …)",
            f"ONNX/PyTorch 转换工具的数字 blob 名（\"{numeric[0]}\" 等）")
    h = sample(_ONNX_SCOPE)
    if len(h) >= 3:
        say(f"PyTorch ONNX export scope names ({h[0]}, …)", f"PyTorch 导出 ONNX 的作用域名（{h[0]} 等）")
    h = sample(_GLUON)
    if len(h) >= 3:
        say(f"MXNet Gluon block names ({h[0]}, …)", f"MXNet Gluon 模块名（{h[0]} 等）")
    else:
        h = sample(_MXNET)
        if len(h) >= 3:
            say(f"mxnet2caffe names ({h[0]}, …)", f"mxnet2caffe 风格的名称（{h[0]} 等）")
    # SiLU written as Sigmoid × x: YOLOv5 and other PyTorch nets
    sig_tops = {l.tops[0] for l in graph.layers if l.type == "Sigmoid" and l.tops}
    silu = [l for l in graph.layers if l.type == "Eltwise" and len(l.bottoms) == 2 and
            any(b in sig_tops for b in l.bottoms) and _is_prod(l)]
    if len(silu) >= 3:
        say(f"{len(silu)} SiLU blocks (Sigmoid × x, a PyTorch activation)",
            f"{len(silu)} 个 SiLU 结构（Sigmoid × x，PyTorch 的激活函数）")
    return ev


def _is_prod(layer) -> bool:
    param = layer.source.param
    return param.HasField("eltwise_param") and param.eltwise_param.operation == 0  # PROD


@rule("NN108", "rgb-trained-source", WARNING, step=2, needs=CFG,
      summary=("The net may be RGB-trained but RGB_order is BGR or unset (a guess: a model card settles it)",
               "网络可能是 RGB 训练的，但 RGB_order 为 BGR 或未设置（推测：模型卡片可以确定）"),
      messages={"rgb": ("the net looks converted from another framework ({evidence}); such nets are often trained on RGB, "
                        "but not always (PyTorch RetinaFace of the biubug6 family is trained on BGR), and [RGB_order] "
                        "is {order}: if it was trained on RGB, set [RGB_order] RGB; declare how it was trained in the "
                        "model card (nnie.toml: channel_order) and lint will know",
                        "网络看起来由其他框架转换而来（{evidence}）；这类网络常用 RGB 训练，但并非总是如此（biubug6 系列的 "
                        "PyTorch RetinaFace 用 BGR 训练），而 [RGB_order] 为 {order}：若用 RGB 训练，请设置 [RGB_order] RGB；"
                        "在模型卡片（nnie.toml: channel_order）中声明训练方式后 lint 即可确定"),
                "darknet": ("the net is converted from darknet ({evidence}), which feeds RGB in [0, 1], but [RGB_order] "
                            "is {order}: set [RGB_order] RGB (or declare channel_order in the model card, nnie.toml, "
                            "if this net was trained otherwise)",
                            "网络由 darknet 转换而来（{evidence}），darknet 按 RGB、[0, 1] 输入，但 [RGB_order] 为 {order}："
                            "请设置 [RGB_order] RGB（若此网络另有训练方式，请在模型卡片 nnie.toml 中声明 channel_order）"),
                "declared": ("declared source framework {fw}", "声明的源框架为 {fw}"),
                "unset": ("unset (BGR)", "未设置（默认 BGR）"),
                "set_rgb": ("Set [RGB_order] RGB", "设置 [RGB_order] RGB"),
                "declare_bgr": ("Declare in {card} that the net was trained on BGR (channel_order = \"BGR\")",
                                "在 {card} 中声明网络用 BGR 训练（channel_order = \"BGR\"）")},
      fix="unsafe",
      docs_zh=('MXNet、Darknet 以及多数转换自 PyTorch/ONNX 的网络都是用 '
               'RGB 训练的，此时 [RGB_order] 必须为 RGB（指南第 2 '
               '步）。证据来自层名与结构（darknet2caffe、PytorchToCaffe、'
               'ONNX 数字 blob 名与 PyTorch ≥ 1.13 的作用域名 '
               '`/layer1/…/Conv`、mxnet2caffe 与 MXNet '
               'Gluon 模块名 `mobilenet0_conv0`、`resnetv10_conv0`、'
               'SiLU 结构）；若确实用 BGR 训练，请在配置中声明 source-framework '
               '= "caffe"。'))
def nn108(project, ctx):
    """
    ## What it finds
    A net whose layer and blob names or patterns show it was converted from another framework
    — darknet2caffe (`layer86-upsample`), PytorchToCaffe (`conv_blob1`), ONNX converters
    (`Conv_0`, numeric blobs such as `"292"`, PyTorch ≥ 1.13 scope names `/layer1/layer1.0/conv1/Conv`),
    mxnet2caffe (`stage1_unit1_…`), MXNet Gluon block names (`mobilenet0_conv0`, `resnetv10_conv0`:
    the model zoo's and GluonCV's prefixes, docs/field-facts.md §16.6), SiLU written as
    Sigmoid × x — or a declared `source-framework` (or the model card's `framework`) of that kind,
    while `[RGB_order]` is BGR or unset (default BGR). The message names the evidence.  Silent when
    the model card declares the net's `channel_order` (NN121 judges then), and when the cfg's
    channel-mean file holds the ImageNet means in the order `[RGB_order]` says (a BGR pipeline
    written consistently; not for darknet, which subtracts no mean).

    ## Why
    Guide step 2: darknet feeds RGB in [0, 1] (a fact, docs/field-facts.md §21): a warning.  For
    the other converters it is a guess (info): most of their nets are trained on RGB, but not all
    — the biubug6 Pytorch_Retinaface family reads images with OpenCV and trains on BGR, where
    setting RGB would break a working cfg.  The training order is a fact about the net, not about
    its layer names: the model card (`nnie.toml`, `channel_order`) states it, and with it NN121
    gives a certain answer.

    ## Example
    ```
    # prototxt converted by darknet2caffe: layer1-conv, layer1-bn, …
    [RGB_order] BGR
    ```

    ## Fix
    Unsafe: set `[RGB_order] RGB`.  Also offered (unsafe): declare in the model card that the
    net was trained on BGR (`channel_order = "BGR"`, a new `nnie.toml` beside the cfg or an entry
    in the nearest one) — which settles it for every face.
    """
    cfg = project.cfg
    if cfg is None or project.graph is None:
        return
    model = project.card.model if project.card is not None else None
    if model is not None and model.channel_order is not None:
        return   # the card says how the net was trained: NN121 judges
    ev, darknet = _rgb_evidence(project, model, ctx)
    if not ev:
        return
    msg, severity = ("darknet", WARNING) if darknet else ("rgb", INFO)
    sep = pick(("; ", "；"), ctx.lang)
    for prep in _inputs(project)[:max(1, len(project.graph.inputs))]:
        if prep.is_feature_map:
            continue
        group = prep.group
        c = project.input_channels(prep.index)
        if c is not None and c != 3:
            continue
        order = prep.rgb_order
        e = group.entry("RGB_order")
        if e is not None and order == "RGB":
            continue
        if e is not None and order not in ("BGR", None):
            continue  # NN003 reports an invalid value
        if not darknet and _imagenet_order(project, prep, model) == "BGR":
            continue  # the mean file's ImageNet means are BGR too: a consistent BGR pipeline
        declare = _declare_bgr(project, ctx)
        if e is not None:
            fix = ctx.fix("set_rgb", [(cfg.path, set_cfg_value(e, "RGB"))], safe=False)
            yield ctx.diag(msg, cfg.path, e.value_range, fix=fix, severity=severity, alternatives=declare,
                           evidence=sep.join(ev), order=e.value)
        else:
            anchor = group.image_type or group.image_list or (cfg.entries[-1] if cfg.entries else None)
            if anchor is None:
                continue
            fix = ctx.fix("set_rgb", [(cfg.path, insert_cfg_line(cfg, "RGB_order", "RGB", after=anchor))], safe=False)
            yield ctx.diag(msg, cfg.path, anchor.key_range, fix=fix, severity=severity, alternatives=declare,
                           evidence=sep.join(ev), order=ctx.text("unset"))
        if group.entry("RGB_order") is not None and "RGB_order" in group.shared:
            break


def _rgb_evidence(project, model, ctx) -> tuple[list[str], bool]:
    """NN108's evidence (declared framework, else the net's names) and whether it is darknet's
    (darknet feeds RGB: a fact, not a guess)."""
    fw = (model.framework if model is not None and model.framework else None) or project.settings.source_framework
    if fw == "caffe":
        return [], False
    ev = [ctx.text("declared", fw=fw)] if fw in RGB_FRAMEWORKS else rgb_evidence(project, ctx.lang)
    return ev, bool(ev) and (fw == "darknet" or any("darknet" in e for e in ev))


def _declare_bgr(project, ctx) -> tuple:
    """The alternative fix: the model card says the net was trained on BGR (a new card beside the
    cfg, an entry in the nearest card, or the key in the cfg's entry)."""
    origin = project.prototxt_origin
    if origin is None or not origin.resolved:
        return ()
    from nnie_lsp.readers.card.render import add_entry_edits, add_keys_edits, card_for_cfg

    card = project.card
    if card is not None and not card.document.ok:
        return ()   # a card with errors: NN120 first
    if card is not None and card.model is not None:
        edits = add_keys_edits(card.card_path, card.document, card.model, {"channel_order": "BGR"})
        path = card.card_path
    else:
        path = card_for_cfg(project.cfg.path, card.card_path if card is not None else None)
        edits = add_entry_edits(path, card.document.text if card is not None else None, origin.resolved,
                                {"channel_order": "BGR"})
    return (ctx.fix("declare_bgr", [(e.path, e.edit) for e in edits], safe=False, card=os.path.basename(path)),)


IMAGENET_BGR = (103.94, 116.78, 123.68)


def _imagenet_order(project, prep, model=None) -> str | None:
    """"BGR" / "RGB" when the input's channel means are the ImageNet means in that order: the model
    card's `mean` when it declares one (it is what the file must hold), else the channel-mean file's."""
    group = prep.group
    if model is not None and model.mean is not None:
        v = model.means(3)
    else:
        if prep.expected_mean_kind != CHANNEL_MEAN or group.mean_file is None:
            return None
        facts = project.mean_for(group.mean_file)
        if facts is None or not facts.values or len(facts.values) != 3:
            return None
        v = facts.values
    if not v:
        return None
    if all(abs(a - b) <= 2.0 for a, b in zip(v, IMAGENET_BGR)):
        return "BGR"
    if all(abs(a - b) <= 2.0 for a, b in zip(v, reversed(IMAGENET_BGR))):
        return "RGB"
    return None


@rule("NN109", "imagenet-mean-order", WARNING, step=2, needs=CFG,
      summary=("Channel means look like ImageNet means in the other channel order",
               "通道均值看起来是另一种通道顺序的 ImageNet 均值"),
      messages={"swapped": ("channel means ({values}) are the ImageNet means in {file_order} order, but [RGB_order] is "
                            "{order}: one of the two is wrong — if the net was trained on {file_order}, set [RGB_order] "
                            "{file_order}; if on {order}, reverse the mean file. The model card (nnie.toml: "
                            "channel_order) decides",
                            "通道均值（{values}）是 {file_order} 顺序的 ImageNet 均值，但 [RGB_order] 为 {order}：两者必有一处错误——"
                            "若网络用 {file_order} 训练，请设置 [RGB_order] {file_order}；若用 {order} 训练，请把均值文件倒序。"
                            "模型卡片（nnie.toml: channel_order）可以确定"),
                "set_order": ("Set [RGB_order] {file_order} (the net was trained on {file_order})",
                              "设置 [RGB_order] {file_order}（网络用 {file_order} 训练）"),
                "reverse": ("Reverse the lines of {file} ({values_reversed}: the net was trained on {order})",
                            "把 {file} 倒序为 {values_reversed}（网络用 {order} 训练）")},
      fix="unsafe",
      docs_zh=('3 行通道均值文件是另一种通道顺序的 ImageNet 均值（≈104、'
               '117、124）：R 与 B 的均值相差约 20，会造成数据层不一致。'))
def nn109(project, ctx):
    """
    ## What it finds
    A 3-line channel-mean file holding the ImageNet means (≈ 104, 117, 124) in BGR order while
    `[RGB_order]` is RGB, or in RGB order (≈ 124, 117, 104) while it is BGR.  Silent when the model
    card declares the net's `channel_order` (NN121 and NN122 judge then, with certainty).

    ## Why
    The mean file's lines follow the channels as the net sees them.  The red and blue means differ
    by 20 — a visible step-2 data-layer mismatch.  Which of the two is wrong depends on how the net
    was trained, which the cfg does not say: a BGR-trained net needs `[RGB_order] BGR` (reversing
    the file would keep feeding it RGB), an RGB-trained one the file reversed.  (Which order the
    mapper expects for the mean lines is not stated by the vendor; HiSilicon's own Caffe dump script
    takes means in the network's channel order, B, G, R for BGR nets.)

    ## Example
    ```
    [RGB_order] RGB
    [mean_file] ./mean.txt     # 104.0 / 117.0 / 123.0: [RGB_order] BGR, or 123.0 / 117.0 / 104.0
    ```

    ## Fix
    Both edits are offered, unsafe: set `[RGB_order]` to the file's order, or reverse the lines of
    the mean file.  The model card (`channel_order`) says which.  For a net converted from darknet
    (which feeds RGB) only the reversal is offered: `[RGB_order] BGR` would undo NN108's edit.
    """
    model = project.card.model if project.card is not None else None
    if model is not None and model.channel_order is not None:
        return
    for prep in _inputs(project):
        file_order = _imagenet_order(project, prep)
        order = prep.rgb_order or DEFAULT_RGB_ORDER
        if file_order is None or file_order == order:
            continue
        if model is not None and model.mean is not None and _imagenet_order(project, prep, model) != file_order:
            continue  # the card declares other means: the file is wrong, and NN122 says so
        group = prep.group
        facts = project.mean_for(group.mean_file)
        if facts is None or not facts.values:
            continue
        v = facts.values
        cfg = project.cfg
        e = group.entry("RGB_order")
        if e is not None:
            edit = set_cfg_value(e, file_order)
        else:
            anchor = group.image_type or group.image_list or (cfg.entries[-1] if cfg.entries else None)
            edit = insert_cfg_line(cfg, "RGB_order", file_order, after=anchor)
        set_order = ctx.fix("set_order", [(cfg.path, edit)], safe=False, file_order=file_order)
        reverse = None
        if facts.text is not None and facts.ref.resolved and (model is None or model.mean is None):
            # (a card that declares the mean says what the file holds: reversing it is not an option)
            from nnie_lsp.rules.fixes import channel_mean_text, write_whole_file

            reversed_text = channel_mean_text(tuple(reversed(v)))
            reverse = ctx.fix("reverse", [write_whole_file(facts.ref.resolved, facts.text, reversed_text)],
                              safe=False, file=os.path.basename(facts.ref.resolved), order=order,
                              values_reversed=" / ".join(format_number(x) for x in reversed(v)))
        _ev, darknet = _rgb_evidence(project, model, ctx)
        if darknet and file_order == "BGR" and reverse is not None:
            fix, alternatives = reverse, ()   # darknet feeds RGB: [RGB_order] BGR would undo NN108's edit
        else:
            fix, alternatives = set_order, ((reverse,) if reverse is not None else ())
        yield ctx.diag("swapped", cfg.path, group.mean_file.value_range, fix=fix, alternatives=alternatives,
                       values=", ".join(format_number(x) for x in v), file_order=file_order, order=order)


@rule("NN110", "input-group-count", ERROR, step=2, needs=CFG,
      summary=("Per-input groups do not match the network inputs", "按输入分组的配置个数与网络输入个数不符"),
      messages={"count": ("the cfg describes {n} input(s) ([image_list] ×{n}) but the prototxt has {m}: {names}",
                          "cfg 描述了 {n} 个输入（[image_list] ×{n}），但 prototxt 有 {m} 个：{names}"),
                "key_count": ("[{key}] is given {count} time(s) for {n} input(s); the k-th [{key}] belongs to the k-th input",
                              "[{key}] 出现 {count} 次，而输入有 {n} 个；第 k 个 [{key}] 属于第 k 个输入"),
                "input": ("network input \"{name}\" ({shape})", "网络输入 \"{name}\"（{shape}）")},
      docs_zh=('多输入网络需要每个输入一组 `[image_list]`（及其对应设置）'
               '，顺序与 prototxt 的输入顺序一致；组数不对会导致某个输入未校准或用错预处理。'))
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
    graph = project.graph
    if graph is not None and project.prototxt is not None and graph.inputs and n:
        m = len(graph.inputs)
        if m != n:
            lists = cfg.get("image_list")
            rel = [ctx.related("input", project.prototxt.path, i.range, name=i.name,
                               shape="x".join(map(str, i.shape or ())) or "?") for i in graph.inputs]
            yield ctx.diag("count", cfg.path, lists[-1].key_range, related=rel, n=n, m=m,
                           names=", ".join(i.name for i in graph.inputs))
    for mm in config.per_input_mismatches() if n else ():  # no [image_list] at all: NN005 says so
        yield ctx.diag("key_count", cfg.path, mm.entries[-1].key_range, key=mm.key, count=mm.count, n=mm.expected)


@rule("NN111", "image-type-conflict", ERROR, step=2, needs=CFG,
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
                "set0_scale": ("Set norm_type 0 and delete [data_scale] (ignored with norm_type 0 as before)",
                               "设置 norm_type 为 0 并删除 [data_scale]（norm_type 0 时与原先一样被忽略）"),
                "input": ("input \"{name}\" is declared {shape}", "输入 \"{name}\" 的形状为 {shape}")},
      fix="safe",
      docs_zh=('image_type 0（浮点特征图输入）要求 norm_type 为 '
               '0，此时 RGB_order 没有意义；图像输入（1/3/5）对应的网络输入应为 '
               '1 或 3 通道。修复同时删除该输入的 `[data_scale]`（norm_type '
               '0 同样忽略它，不会留下 NN105）。'))
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
    Safe: set norm_type 0 for image_type 0 (the mapper ignores the other value anyway), and delete
    the input's `[data_scale]`, which norm_type 0 ignores too (so the fix leaves no NN105 behind).
    """
    cfg = project.cfg
    for prep in _inputs(project):
        group, itype, norm = prep.group, prep.image_type, prep.norm_type
        kind = prep.image_type_semantics
        if kind is not None and norm is not None and norm not in kind.norm_types:
            allowed = kind.norm_types[0]  # image_type 0: norm_type 0 only
            edits = [(cfg.path, set_cfg_value(group.norm_type, str(allowed)))]
            scale = group.entry("data_scale")
            if scale is not None and "data_scale" not in group.shared:
                # norm_type 0 ignores it too (NN105): the line goes with the fix, nothing changes
                edits.append((cfg.path, delete_cfg_line(cfg, scale)))
            fix = ctx.fix("set0_scale" if len(edits) > 1 else "set0", edits, safe=True)
            yield ctx.diag("itype0_norm", cfg.path, group.norm_type.value_range, fix=fix, norm=norm)
        e = group.entry("RGB_order")
        shared = "RGB_order" in group.shared
        if prep.is_feature_map and e is not None and not shared:
            yield ctx.diag("rgb_itype0", cfg.path, e.key_range, severity=WARNING)
        c = project.input_channels(prep.index)
        inp = project.network_input(prep.index)
        if c == 1 and e is not None and not prep.is_feature_map and not shared:
            yield ctx.diag("rgb_gray", cfg.path, e.key_range, severity=INFO, name=inp.name, c=c)
        if kind is not None and kind.is_image and c is not None and c not in (1, 3):
            yield ctx.diag("channels", cfg.path, group.image_type.value_range, severity=WARNING, itype=itype,
                           name=inp.name, c=c, related=input_related(ctx, project, prep.index))


@rule("NN112", "feature-input-size", ERROR, step=2, needs=CFG,
      summary=("image_type 0 list lines do not hold one C·H·W tensor", "image_type 0 列表中每行不是一个 C·H·W 张量"),
      messages={"size": ("line {line} of {list} holds {n} numbers, but input \"{name}\" ({shape}) needs {need} per line (one C·H·W tensor)",
                         "{list} 第 {line} 行有 {n} 个数，但输入 \"{name}\"（{shape}）每行需要 {need} 个（一个 C·H·W 张量）"),
                "bad": ("line {line} of {list} is not numbers: {text}", "{list} 第 {line} 行不是数字：{text}"),
                "line": ("this line", "该行"),
                "input": ("input \"{name}\" is declared {shape}", "输入 \"{name}\" 的形状为 {shape}")},
      docs_zh=('image_type 0（特征图/向量输入）时，列表文件每行必须是一个完整的 '
               'C·H·W 张量（空格或逗号分隔的浮点数）；个数不对会被 mapper '
               '拒绝，或在校准时跨帧读取。循环网络（net_type 2）每行一个向量，'
               '不在此检查。'))
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
    for prep in _inputs(project):
        group = prep.group
        if not prep.is_feature_map or group.image_list is None:
            continue
        facts = project.image_list_for(group.image_list)
        inp = project.network_input(prep.index)
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
                yield ctx.diag("bad", cfg.path, group.image_list.value_range, list=name, line=ln.line + 1,
                               text=ln.text[:40],
                               related=[ctx.related("line", facts.ref.resolved, Range.of(ln.line, 0, ln.line, len(ln.text)))])
                break
            if len(toks) != need:
                shape = "x".join(map(str, inp.shape))
                yield ctx.diag("size", cfg.path, group.image_list.value_range, list=name, line=ln.line + 1,
                               n=len(toks), name=inp.name, shape=shape, need=need,
                               related=[ctx.related("line", facts.ref.resolved, Range.of(ln.line, 0, ln.line, len(ln.text))),
                                        ctx.related("input", project.prototxt.path, inp.range, name=inp.name, shape=shape)])
                break
