"""Quantization rules NN201-NN203 (guide step 3: compile_mode and `_hp` high-precision layers).

Facts: compile_mode docs/field-facts.md §3.1, `_hp` §7.4, the quantizers §11.
"""

from __future__ import annotations

from nnie_lsp.core.diagnostics import Severity
from nnie_lsp.rules.fixes import insert_cfg_line, rename_layer, set_cfg_value
from nnie_lsp.readers.prototxt import layers
from nnie_lsp.rules._proto import layer_anchor
from nnie_lsp.core.registry import CFG, rule

CONV_TYPES = ("Convolution", "Deconvolution", "DepthwiseConvolution")


def hp_layers(graph):
    return [l for l in graph.layers if layers.is_hp_layer(l.name)]


def first_conv(graph):
    for l in graph.layers:
        if l.type in CONV_TYPES:
            return l
    return None


def compile_mode(project):
    if project.config is None:
        return None, None
    return project.config.value("compile_mode"), project.config.entry("compile_mode")


def _set_compile_mode(project, value: str):
    cfg = project.cfg
    e = project.config.entry("compile_mode")
    if e is not None:
        return cfg.path, set_cfg_value(e, value)
    return cfg.path, insert_cfg_line(cfg, "compile_mode", value, after=cfg.first("net_type") or None)


@rule("NN201", "hp-without-compile-mode-2", Severity.WARNING, step=3, needs=CFG,
      summary=("`_hp` layer names while compile_mode is not 2", "compile_mode 不为 2 时 `_hp` 层名无效"),
      messages={"ignored": ("layer \"{layer}\" is marked high precision (`_hp`) but [compile_mode] is {mode}: `_hp` only takes effect with compile_mode 2",
                            "层 \"{layer}\" 标记为高精度（`_hp`），但 [compile_mode] 为 {mode}：`_hp` 只在 compile_mode 2 时生效"),
                "cfg": ("[compile_mode] {mode} here", "[compile_mode] {mode} 在此"),
                "set2": ("Set [compile_mode] 2", "设置 [compile_mode] 2")},
      fix="unsafe",
      docs_zh=('`_hp` 层名只在 `[compile_mode] 2` 时生效；compile_mode '
               '为 0 时被忽略，为 1 时全网已是 16 比特。'))
def nn201(project, ctx):
    """
    ## What it finds
    Layers named `*_hp` while the cfg's `[compile_mode]` is 0 (default) or 1.

    ## Why
    Guide step 3: `_hp` on a layer name asks for 16-bit precision only under `[compile_mode] 2`
    (user-specified).  With 0 the mark is ignored (the layer stays 8-bit and accuracy does not
    improve); with 1 everything is 16-bit anyway (about 2× slower).

    ## Example
    ```
    layer { name: "conv1_hp" type: "Convolution" bottom: "data" top: "conv1" ... }
    [compile_mode] 0
    ```

    ## Fix
    Unsafe: set `[compile_mode] 2` (changes speed and the wk).
    """
    g, doc = project.graph, project.prototxt
    if g is None or doc is None or project.cfg is None:
        return
    mode, entry = compile_mode(project)
    if mode == 2 or mode is None and entry is not None:
        return
    mode = 0 if mode is None else mode
    for l in hp_layers(g):
        rel = [ctx.related("cfg", project.cfg.path, entry.line_range, mode=mode)] if entry else []
        fix = ctx.fix("set2", [_set_compile_mode(project, "2")], safe=False)
        yield ctx.diag("ignored", doc.path, layer_anchor(l.source), fix=fix, related=rel, layer=l.name, mode=mode)


@rule("NN202", "compile-mode-2-without-hp", Severity.WARNING, step=3, needs=CFG,
      summary=("compile_mode 2 with no `_hp` layer", "compile_mode 为 2 但没有 `_hp` 层"),
      messages={"none": ("[compile_mode] 2 marks layers high precision by their `_hp` suffix, but no layer in {net} has one: everything stays 8-bit",
                         "[compile_mode] 2 通过 `_hp` 后缀指定高精度层，但 {net} 中没有任何层带该后缀：全部仍为 8 比特"),
                "add": ("Rename the first convolution \"{layer}\" to \"{layer}_hp\"", "将第一个卷积层 \"{layer}\" 改名为 \"{layer}_hp\"")},
      fix="unsafe",
      docs_zh=('compile_mode 2 通过 `_hp` 后缀指定高精度层，但没有任何层带该后缀，'
               '相当于 compile_mode 0。指南建议从第一层开始逐个加 `_hp`，'
               '通常第一个卷积就够了。改名修复不安全：层名也是查找权重的依据。'))
def nn202(project, ctx):
    """
    ## What it finds
    `[compile_mode] 2` (user-specified precision) while no layer name in the prototxt ends in `_hp`.

    ## Why
    Guide step 3: after `[compile_mode] 1` (all 16-bit) has shown that quantization is the
    problem, switch to 2 and add `_hp` to layer names one by one from the first layer — usually
    the first convolution is enough.  Mode 2 with no `_hp` layer is just mode 0.

    ## Example
    ```
    [compile_mode] 2
    layer { name: "conv1" type: "Convolution" ... }     # -> name: "conv1_hp"
    ```

    ## Fix
    Unsafe: rename the first Convolution layer to `<name>_hp` (its top stays unchanged). Unsafe
    because the layer name is also how weights are looked up: Caffe/OpenCV and other tools will not
    find `conv1_hp`'s weights in the caffemodel (the mapper is documented to accept the suffix),
    and because the right layer to promote is found by the similarity triage, not by position.
    """
    g, doc = project.graph, project.prototxt
    if g is None or doc is None or project.cfg is None:
        return
    mode, entry = compile_mode(project)
    if mode != 2 or entry is None or hp_layers(g):
        return
    conv = first_conv(g)
    fix = None
    if conv is not None and conv.name:
        fix = ctx.fix("add", [(doc.path, rename_layer(doc, conv, conv.name + layers.HP_SUFFIX))], safe=False, layer=conv.name)
    import os
    yield ctx.diag("none", project.cfg.path, entry.value_range, fix=fix, net=os.path.basename(doc.path or "the prototxt"))


@rule("NN203", "compile-mode-1-cost", Severity.INFO, step=3, needs=CFG,
      summary=("compile_mode 1 costs about 2× speed", "compile_mode 1 速度约慢一倍"),
      messages={"slow": ("[compile_mode] 1 runs every layer in 16-bit (about 2× slower); if it fixed accuracy, try [compile_mode] 2 with `_hp` on the first convolution{conv}",
                         "[compile_mode] 1 使所有层以 16 比特运行（约慢一倍）；若它解决了精度问题，请尝试 [compile_mode] 2 并给第一个卷积层{conv}加 `_hp`"),
                "conv": (" (\"{layer}\")", "（\"{layer}\"）"),
                "switch": ("Use [compile_mode] 2 and rename \"{layer}\" to \"{layer}_hp\"", "改用 [compile_mode] 2，并将 \"{layer}\" 改名为 \"{layer}_hp\"")},
      fix="unsafe",
      docs_zh=('compile_mode 1 使全网以 16 比特运行，约慢一倍；若它解决了精度问题，'
               '可部署的方案是 compile_mode 2 并只给少数层（通常是第一个卷积）'
               '加 `_hp`。'))
def nn203(project, ctx):
    """
    ## What it finds
    `[compile_mode] 1` (high precision for the whole net).

    ## Why
    Guide step 3: mode 1 is the diagnostic run — if 16-bit fixes the accuracy, quantization was the
    cause, and the deployable answer is mode 2 with `_hp` on the few layers that need it (usually
    the first convolution), keeping most of the 8-bit speed.

    ## Example
    ```
    [compile_mode] 1
    ```

    ## Fix
    Unsafe: set `[compile_mode] 2` and rename the first convolution to `<name>_hp` (edits the cfg
    and the prototxt; see NN202 for why renaming is unsafe).
    """
    g, doc = project.graph, project.prototxt
    if project.cfg is None:
        return
    mode, entry = compile_mode(project)
    if mode != 1 or entry is None:
        return
    conv = first_conv(g) if g is not None else None
    fix = None
    conv_txt = ""
    if conv is not None and conv.name and doc is not None:
        conv_txt = ctx.text("conv", layer=conv.name)
        edits = [(project.cfg.path, set_cfg_value(entry, "2"))]
        if not hp_layers(g):
            edits.append((doc.path, rename_layer(doc, conv, conv.name + layers.HP_SUFFIX)))
        fix = ctx.fix("switch", edits, safe=False, layer=conv.name)
    yield ctx.diag("slow", project.cfg.path, entry.value_range, fix=fix, conv=conv_txt)
