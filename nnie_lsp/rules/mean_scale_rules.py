"""Data-layer rules NN101-NN107: the mean and the scale (guide step 2: preprocessing must match
what the net was trained on) -- mean file presence, kind and channel count, data_scale, and the
prototxt's transform_param.  What each norm_type does comes from the one table in
:mod:`nnie_lsp.readers.cfg.preprocessing` (via ``project.preprocessing``); nothing here re-states it.
Channel order, input groups and image types: :mod:`.input_rules`."""

from __future__ import annotations

from nnie_lsp.readers.cfg.preprocessing import (
    TRAINING_SCALE_1_255,
    CHANNEL_MEAN,
    DEFAULT_DATA_SCALE,
    DEFAULT_DATA_SCALE_TEXT,
    MEAN_IMAGE,
    NO_MEAN,
    norm_type_for,
)
from nnie_lsp.core.diagnostics import Severity
from nnie_lsp.rules.fixes import insert_cfg_line, set_cfg_value
from nnie_lsp.rules._proto import child, layer_anchor
from nnie_lsp.rules.family_preprocessing import family_of
from nnie_lsp.rules.input_rules import format_number, input_related
from nnie_lsp.core.registry import CFG, rule

ERROR, WARNING = Severity.ERROR, Severity.WARNING

DATA_LAYER_TYPES = frozenset({"Data", "ImageData", "MemoryData", "Input", "DummyData", "WindowData",
                              "AnnotatedData", "HDF5Data"})


def _inputs(project):
    """The cfg's inputs as the one preprocessing reading sees them (empty without a cfg)."""
    return list(project.preprocessing) if project.cfg is not None else []


@rule("NN101", "mean-file-missing", ERROR, step=2, needs=CFG,
      summary=("norm_type 1/2/4/5 without a mean file", "norm_type 为 1/2/4/5 却没有均值文件"),
      messages={"missing": ("norm_type {norm} subtracts a mean, but [mean_file] is {what}",
                            "norm_type {norm} 需要减均值，但 [mean_file] {what}"),
                "absent": ("not set", "未设置"), "null": ("`{value}`", "为 `{value}`"),
                "norm": ("[norm_type] {norm} is here", "[norm_type] {norm} 在此"),
                "to_scale": ("Use norm_type {new} (no mean)", "改用 norm_type {new}（不减均值）")},
      fix="unsafe",
      docs_zh=('norm_type 为 1/4（均值图像）或 2/5（通道均值）却没有均值文件（或为 '
               'null）：量化校准与芯片上的数据层都与 Caffe 不同，数据层余弦相似度低于 '
               '0.999（指南第 2 步）。'))
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
    for prep in _inputs(project):
        if not prep.uses_mean or prep.has_mean_file:
            continue
        group, norm = prep.group, prep.norm_type
        mf = group.mean_file
        what = ctx.text("absent") if mf is None else ctx.text("null", value=mf.value)
        home = mf or group.norm_type
        new = norm_type_for(NO_MEAN, prep.semantics.scales)
        fix = ctx.fix("to_scale", [(project.cfg.path, set_cfg_value(group.norm_type, str(new)))], safe=False, new=new)
        rng = home.value_range if mf is not None else group.norm_type.value_range
        yield ctx.diag("missing", project.cfg.path, rng, fix=fix, norm=norm, what=what,
                       related=[ctx.related("norm", project.cfg.path, group.norm_type.line_range, norm=norm)] if mf is not None else [])


@rule("NN102", "mean-file-ignored", WARNING, step=2, needs=CFG,
      summary=("A real mean file that norm_type 0/3 ignores", "norm_type 0/3 会忽略已配置的均值文件"),
      messages={"ignored": ("[mean_file] {value} is ignored: norm_type {norm} subtracts no mean (use norm_type {suggest} if the net expects mean subtraction)",
                            "[mean_file] {value} 会被忽略：norm_type {norm} 不减均值（若网络需要减均值请用 norm_type {suggest}）"),
                "use": ("Use norm_type {suggest} so the mean is subtracted", "改用 norm_type {suggest} 以减去均值")},
      fix="unsafe",
      docs_zh=('norm_type 0/3 不减均值，却配置了真实的均值文件：作者多半以为会减均值，'
               '这是第 2 步的预处理不一致。'))
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
    for prep in _inputs(project):
        if prep.semantics is None or prep.uses_mean or not prep.has_mean_file:
            continue
        group, norm = prep.group, prep.norm_type
        mf = group.mean_file
        suggest = norm_type_for(prep.mean_file_kind, prep.semantics.scales)
        fix = ctx.fix("use", [(project.cfg.path, set_cfg_value(group.norm_type, str(suggest)))], safe=False, suggest=suggest)
        yield ctx.diag("ignored", project.cfg.path, mf.value_range, fix=fix, value=mf.value, norm=norm, suggest=suggest)


@rule("NN103", "mean-file-kind", ERROR, step=2, needs=CFG,
      summary=("Wrong mean file kind for the norm_type", "均值文件类型与 norm_type 不符"),
      messages={"need_binary": ("norm_type {norm} needs a mean image (.binaryproto), but [mean_file] is {value}",
                                "norm_type {norm} 需要均值图像（.binaryproto），但 [mean_file] 为 {value}"),
                "need_text": ("norm_type {norm} needs a channel-mean text file (one value per line), but [mean_file] is a .binaryproto",
                              "norm_type {norm} 需要通道均值文本文件（每行一个值），但 [mean_file] 是 .binaryproto"),
                "unreadable": ("[mean_file] {value} is not a channel-mean text file: {error}",
                               "[mean_file] {value} 不是通道均值文本文件：{error}"),
                "unreadable_image": ("[mean_file] {value} is not a readable mean image (.binaryproto): {error}",
                                     "[mean_file] {value} 不是可读取的均值图像（.binaryproto）：{error}"),
                "switch": ("Use norm_type {new} to match the file", "改用 norm_type {new} 以匹配该文件")},
      fix="unsafe",
      docs_zh=('norm_type 1/4 需要 `.binaryproto` 均值图像，'
               '2/5 需要每行一个通道均值的文本文件；类型不对会被误读或拒绝。损坏的 '
               '`.binaryproto`（没有数值，或数值个数与其形状不符）报告为不可读取的均值图像。'))
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
    for prep in _inputs(project):
        if not prep.uses_mean or not prep.has_mean_file:
            continue
        group, norm = prep.group, prep.norm_type
        mf = group.mean_file
        wanted, found = prep.expected_mean_kind, prep.mean_file_kind
        path = project.cfg.path
        if wanted != found:
            new = norm_type_for(found, prep.semantics.scales)
            fix = ctx.fix("switch", [(path, set_cfg_value(group.norm_type, str(new)))], safe=False, new=new)
            if wanted == MEAN_IMAGE:
                yield ctx.diag("need_binary", path, mf.value_range, fix=fix, norm=norm, value=mf.value)
            else:
                yield ctx.diag("need_text", path, mf.value_range, fix=fix, norm=norm)
        else:
            facts = project.mean_for(mf)
            if facts is not None and facts.error:
                key = "unreadable" if wanted == CHANNEL_MEAN else "unreadable_image"
                yield ctx.diag(key, path, mf.value_range, value=mf.value, error=facts.error)


@rule("NN104", "mean-channel-count", ERROR, step=2, needs=CFG,
      summary=("Channel mean count differs from the input's channels", "通道均值个数与输入通道数不同"),
      messages={"count": ("[mean_file] {value} holds {n} channel mean(s), one per line, but input \"{name}\" has {c} channel(s): the mapper subtracts one mean per channel",
                          "[mean_file] {value} 有 {n} 个通道均值（每行一个），但输入 \"{name}\" 有 {c} 个通道：mapper 每个通道减一个均值"),
                "image_count": ("[mean_file] {value} is a mean image of {n} channel(s) but input \"{name}\" has {c} channel(s)",
                                "[mean_file] {value} 是 {n} 通道的均值图像，但输入 \"{name}\" 有 {c} 个通道"),
                "image_size": ("[mean_file] {value} is a {mh}×{mw} mean image but input \"{name}\" is {h}×{w}: a mean image is subtracted pixel by pixel, so it must have the input's size (Caffe's transformer and nnie-triage's reference refuse it; whether nnie_mapper resizes it is not documented)",
                               "[mean_file] {value} 是 {mh}×{mw} 的均值图像，但输入 \"{name}\" 为 {h}×{w}：均值图像逐像素相减，尺寸必须与输入相同（Caffe 的 transformer 与 nnie-triage 的参考实现都拒绝它；nnie_mapper 是否会缩放未见文档）"),
                "input": ("input \"{name}\" is declared {shape}", "输入 \"{name}\" 的形状为 {shape}")},
      docs_zh=('通道均值个数与网络输入的通道数不同：灰度网络需要 1 行，彩色网络需要 '
               '3 行。均值图像（norm_type 1/4）的高×宽与输入不同时为警告：'
               '均值图像逐像素相减（Caffe 与 nnie-triage 的参考实现都拒绝；'
               'mapper 是否缩放未见文档）。'))
def nn104(project, ctx):
    """
    ## What it finds
    A channel-mean file (norm_type 2/5) whose number of values differs from the channel count of
    its network input, or a mean image (1/4) with another channel count or (warning) another
    height × width than the input.  A `.binaryproto` that is no readable mean image is NN103's.

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
    for prep in _inputs(project):
        if not prep.uses_mean or not prep.has_mean_file:
            continue
        mf = prep.group.mean_file
        facts = project.mean_for(mf)
        c = project.input_channels(prep.index)
        if facts is None or c is None or facts.channels is None:
            continue
        inp = project.network_input(prep.index)
        image = facts.kind == "binaryproto"
        if facts.channels != c:
            yield ctx.diag("image_count" if image else "count", project.cfg.path, mf.value_range, value=mf.value,
                           n=facts.channels, name=inp.name, c=c, related=input_related(ctx, project, prep.index))
        elif image and facts.size is not None and inp is not None and inp.shape and len(inp.shape) == 4 \
                and tuple(inp.shape[2:]) != facts.size:
            yield ctx.diag("image_size", project.cfg.path, mf.value_range, severity=WARNING, value=mf.value,
                           mh=facts.size[0], mw=facts.size[1], h=inp.shape[2], w=inp.shape[3], name=inp.name,
                           related=input_related(ctx, project, prep.index))


@rule("NN105", "data-scale-ignored", WARNING, step=2, needs=CFG,
      summary=("data_scale set but norm_type 0/1/2 ignores it", "设置了 data_scale 但 norm_type 0/1/2 会忽略它"),
      messages={"ignored": ("[data_scale] {value} is ignored: norm_type {norm} does not scale (3, 4 and 5 do)",
                            "[data_scale] {value} 会被忽略：norm_type {norm} 不做缩放（3、4、5 才会）"),
                "use": ("Use norm_type {new} so data_scale is applied", "改用 norm_type {new} 以应用 data_scale")},
      fix="unsafe",
      docs_zh=('只有 norm_type 3/4/5 才乘以 data_scale；norm_type '
               '0/1/2 时 `[data_scale]` 被忽略，网络若按 [0,1] '
               '或 [−1,1] 训练，芯片看到的却是 0–255。'))
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
    Unsafe: switch to the scaling variant (0 → 3, 1 → 4, 2 → 5) — not offered for a net of a
    family whose public trainings feed unscaled pixels (NN113).
    """
    inputs = _inputs(project)
    for entry in (project.cfg.get("data_scale") if project.cfg else ()):
        users = [prep for prep in inputs if prep.group.data_scale is entry]
        if not users:
            continue
        if any(prep.semantics is None or prep.uses_scale for prep in users):
            continue
        norms = [prep.norm_type for prep in users]
        group = users[0].group
        new = norm_type_for(users[0].semantics.mean_kind, True)
        fix = None
        # no switch to scaling for a family whose public trainings are unscaled: NN113 would say
        # the switch makes the chip see inputs about 1/data_scale times too small
        unscaled_family = project.graph is not None and (fam := family_of(project.graph)) is not None and not fam.scaled
        if len(users) == 1 and group.norm_type is not None and not unscaled_family:
            fix = ctx.fix("use", [(project.cfg.path, set_cfg_value(group.norm_type, str(new)))], safe=False, new=new)
        yield ctx.diag("ignored", project.cfg.path, entry.value_range, fix=fix, value=entry.value, norm=norms[0], new=new)


@rule("NN106", "data-scale-default", WARNING, step=2, needs=CFG,
      summary=("norm_type 3/4/5 without data_scale (the default is 1/256, not 1/255)",
               "norm_type 3/4/5 未设置 data_scale（默认值是 1/256，不是 1/255）"),
      messages={"missing": (f"norm_type {{norm}} scales the input but [data_scale] is not set: the mapper uses 1/256 ({DEFAULT_DATA_SCALE_TEXT}), not 1/255",
                            f"norm_type {{norm}} 会缩放输入，但未设置 [data_scale]：mapper 默认使用 1/256（{DEFAULT_DATA_SCALE_TEXT}），而不是 1/255"),
                "add": (f"Write the default explicitly: [data_scale] {DEFAULT_DATA_SCALE_TEXT}", f"显式写出默认值：[data_scale] {DEFAULT_DATA_SCALE_TEXT}"),
                "add_255": (f"Set [data_scale] {TRAINING_SCALE_1_255[2]} (1/255, if the net was trained with x/255)",
                            f"设置 [data_scale] {TRAINING_SCALE_1_255[2]}（1/255，若网络按 x/255 训练）")},
      fix="safe/unsafe",
      docs_zh=('norm_type 3/4/5 未设置 data_scale 时，mapper '
               '默认使用 1/256（0.00390625），而不是多数框架训练时的 1/255。'
               '修复会显式写出默认值，行为不变，是安全的。'))
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

    Silent when the model card (`nnie.toml`) declares the net's `scale`: NN123 then says for
    certain whether the default is right.

    ## Fix
    Safe: write the default (`[data_scale] 0.00390625`) explicitly — behaviour is unchanged and
    the value is now visible.  Also offered (unsafe, never applied by `--fix`): write 1/255
    (`[data_scale] 0.0039215686`), if that is what the net was trained with — it changes what the
    net computes.
    """
    cfg = project.cfg
    if cfg is None or cfg.get("data_scale"):
        return
    model = project.card.model if project.card is not None else None
    if model is not None and model.scale is not None:
        return   # the model card says the training scale: NN123 judges, with certainty
    for prep in _inputs(project):
        if prep.uses_scale and prep.data_scale_defaulted:
            group = prep.group
            fix = ctx.fix("add", [(cfg.path, insert_cfg_line(cfg, "data_scale", DEFAULT_DATA_SCALE_TEXT, after=group.norm_type))], safe=True)
            scale_255 = ctx.fix("add_255", [(cfg.path, insert_cfg_line(cfg, "data_scale", TRAINING_SCALE_1_255[2], after=group.norm_type))], safe=False)
            yield ctx.diag("missing", cfg.path, group.norm_type.value_range, fix=fix, norm=prep.norm_type,
                           alternatives=(scale_255,))
            return


def _transform_layers(project):
    graph = project.graph
    if graph is None:
        return []
    out = []
    for layer in graph.layers:
        if layer.type in DATA_LAYER_TYPES and layer.source.param.HasField("transform_param"):
            out.append(layer)
    return out


def _close(a: float, b: float, rel: float = 1e-3) -> bool:
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-12)


@rule("NN107", "preprocessing-differs-from-prototxt", WARNING, step=2, needs=CFG,
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
      fix="unsafe",
      docs_zh=('prototxt 数据层的 transform_param（scale、'
               'mean_value）描述了 Caffe 中的输入方式，cfg 的预处理与之不同（如 '
               '0.0039062 与 0.00392157）。'))
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
    cfg_inputs = _inputs(project)
    for layer in _transform_layers(project):
        tp = layer.source.param.transform_param
        k = 0
        inputs = [i.name for i in project.graph.inputs]
        for t in layer.tops:
            if t in inputs:
                k = inputs.index(t)
        if k >= len(cfg_inputs):
            continue
        prep = cfg_inputs[k]
        group, norm = prep.group, prep.norm_type
        if prep.semantics is None:
            continue
        rel = [ctx.related("proto", doc.path, layer_anchor(layer.source), layer=layer.name)]
        node = child(layer.source.node, "transform_param")
        if tp.HasField("scale") and not _close(tp.scale, 1.0, 1e-9):
            if prep.uses_scale:
                cfg_scale = prep.data_scale
                if cfg_scale is not None and not _close(cfg_scale, tp.scale):
                    why = ctx.text("scale_255") if _close(cfg_scale, DEFAULT_DATA_SCALE, 2e-3) and _close(tp.scale, 1 / 255, 2e-3) else ""
                    home = group.data_scale or group.norm_type
                    fix = None
                    if group.data_scale is not None:
                        sn = child(node, "scale")  # the value as written (float32 would print 0.0039215698)
                        written = sn.value_text if sn is not None else format_number(tp.scale)
                        fix = ctx.fix("set_scale", [(cfg.path, set_cfg_value(group.data_scale, written))], safe=False, value=written)
                    yield ctx.diag("scale", cfg.path, home.value_range, fix=fix, related=rel,
                                   cfg=format_number(cfg_scale), proto=format_number(tp.scale), why=why)
            else:
                yield ctx.diag("no_scale", cfg.path, group.norm_type.value_range, related=rel,
                               proto=format_number(tp.scale), norm=norm)
        if tp.mean_value:
            proto_means = [float(v) for v in tp.mean_value]
            if not prep.uses_mean:
                yield ctx.diag("no_mean", cfg.path, group.norm_type.value_range, related=rel,
                               proto=", ".join(format_number(v) for v in proto_means), norm=norm)
            elif prep.expected_mean_kind == CHANNEL_MEAN and group.mean_file is not None:
                facts = project.mean_for(group.mean_file)
                if facts is not None and facts.values:
                    cm = list(facts.values)
                    pm = proto_means * len(cm) if len(proto_means) == 1 else proto_means
                    if len(cm) == len(pm) and not all(abs(a - b) <= 0.5 for a, b in zip(cm, pm)):
                        yield ctx.diag("mean", cfg.path, group.mean_file.value_range, related=rel,
                                       cfg=", ".join(format_number(v) for v in cm), proto=", ".join(format_number(v) for v in pm))
        del node
