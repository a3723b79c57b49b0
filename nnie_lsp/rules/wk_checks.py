"""The compiled model (`.wk`) against the project that should have built it: NN600-NN607.

The project hands the rules the `.wk` it read (``Project.wk``: the cfg's ``[instruction_name]``.wk,
a `.wk` named with the cfg, or a `.wk` linted on its own; :mod:`nnie_lsp.readers.mapper.wk_files`); the
rules read no file.  What the file holds and how sure each field is: ``docs/field-facts.md §18``
(:mod:`nnie_lsp.readers.wk.layout`).  With a cfg every finding sits on the cfg line it concerns
(``[instruction_name]`` when no other line does) with the `.wk` as related information; a `.wk`
linted alone gets its findings at its first byte.

The deployment targets -- the chip and the board's memory budget -- are project settings
(``[tool.nnie-lint]`` ``target-chip`` / ``board-memory``; a model card's ``chip`` and
``board_memory`` keys when the project has a card): :func:`deployment_targets` is the one place
that reads them.
"""

from __future__ import annotations

import os
from typing import Iterator

from nnie_lsp.core.diagnostics import Diagnostic, Related, Severity
from nnie_lsp.core.text import Range
from nnie_lsp.core.registry import CFG, WK, rule

FILE_START = Range.point(0, 0)


# ------------------------------------------------------------------ shared helpers

def _wk_name(project) -> str:
    found = project.wk
    if project.cfg_path:
        try:
            return os.path.relpath(found.path, os.path.dirname(project.cfg_path))
        except ValueError:  # another drive (Windows)
            return found.path
    return found.name


def _home(project, key: str | None = None, k: int = 0):
    """(path, range, related) of a finding about the `.wk`: the cfg's ``key`` line (the k-th of a
    per-input key), else its [instruction_name] line, else the cfg's first line; a `.wk` alone: its
    first byte."""
    found = project.wk
    if project.cfg is None or project.config is None:
        return found.path, FILE_START, ()
    entry = None
    if key is not None:
        entries = project.config.entries(key)
        entry = entries[k] if k < len(entries) else (entries[0] if len(entries) == 1 else None)
    entry = entry or found.entry
    rng = entry.line_range if entry is not None else FILE_START
    return project.cfg.path, rng, (Related(found.path, FILE_START, _wk_name(project)),)


def _readable(project):
    """The project's `.wk` model when there is one that could be read."""
    found = project.wk
    return found.model if found is not None and found.model is not None else None


def deployment_targets(project, settings) -> tuple[tuple[str | None, str], tuple[int | None, str]]:
    """((chip, where it was set), (board memory budget in bytes, where it was set)): the project's
    model card when it names them, else ``[tool.nnie-lint]``."""
    card = getattr(project, "card", None)
    chip = getattr(card, "chip", None)
    budget = getattr(card, "board_memory", None)
    origin = os.path.basename(settings.origin) if settings.origin else "settings"
    chip_from = "the model card" if chip else f"[tool.nnie-lint] target-chip ({origin})"
    budget_from = "the model card" if budget else f"[tool.nnie-lint] board-memory ({origin})"
    return (chip or settings.target_chip, chip_from), (budget or settings.board_memory, budget_from)


def _mib(n: int) -> str:
    from nnie_lsp.readers.wk.describe import mib

    return mib(n)


# ------------------------------------------------------------------ NN600 damage

@rule("NN600", "wk-damaged", Severity.ERROR, step=None, needs=WK,
      summary=("the .wk is damaged or not a .wk: truncated, CRC mismatch, a Git LFS pointer, an unknown format",
               ".wk 文件损坏或不是 .wk：被截断、CRC 不符、Git LFS 指针文件、未知格式"),
      messages={
          "error": ("{wk} cannot be loaded by the board: {message}", "{wk} 无法被板端加载：{message}"),
          "damage": ("{wk} is damaged: {message} (at byte {offset}){more}", "{wk} 已损坏：{message}（字节 {offset}）{more}"),
          "more": ("; and {n} more problem(s)", "；另有 {n} 处问题"),
      },
      docs_zh="`.wk` 无法读取或已损坏：不是 .wk、Git LFS 指针（模型从未拉取）、比大小等式短（拷贝被截断）、"
              "CRC-32 与内容不符（文件被改动）、未知的格式版本。板端 HI_MPI_SVP_NNIE_LoadModel 会拒绝它；"
              "请重新拷贝或重新运行 nnie_mapper。")
def nn600(project, ctx) -> Iterator[Diagnostic]:
    """
    ## What it finds
    A `.wk` the board cannot load as the mapper wrote it: not a `.wk` at all (text, another binary),
    a Git LFS pointer committed in place of the model, a copy shorter or longer than its size
    equation `[0x34] + [0x38] + [0xB4]` (truncated, bytes appended), a CRC-32 at 0x00 that does not
    match the bytes it covers, length fields that disagree, a memory plan that does not end at the
    temp buffer, an unknown format version.  Each with the byte offset where it shows.

    ## Why
    The layout (docs/field-facts.md §18) holds on every real `.wk` examined: any changed byte breaks
    the CRC, a cut copy breaks the size equation.  Such a file fails on the board in
    `HI_MPI_SVP_NNIE_LoadModel`, often far from where it was damaged (a download, a git checkout
    without `git lfs pull`, a copy to the board's SD card that ran out of space).

    ## Example
    ```
    [instruction_name] ./nnie_model/yolov3_inst     # yolov3_inst.wk is 133 bytes: a Git LFS pointer
    ```

    ## Fix
    None automatic: fetch or copy the file again (`git lfs pull`), or run nnie_mapper again.
    """
    found = project.wk
    if found is None:
        return
    path, rng, related = _home(project)
    wk = _wk_name(project)
    if found.error is not None:
        where = f" (at byte {found.error.offset:#x})" if found.error.offset is not None else ""
        yield ctx.diag("error", path, rng, related=related, wk=wk, message=found.error.message + where)
        return
    damage = found.model.damage
    if damage:
        first = damage[0]
        more = ctx.text("more", n=len(damage) - 1) if len(damage) > 1 else ""
        yield ctx.diag("damage", path, rng, related=related, wk=wk, message=first.message,
                       offset=f"{first.offset:#x}", more=more)


# ------------------------------------------------------------------ NN601 input shape

@rule("NN601", "wk-input-shape", Severity.WARNING, step=None, needs=CFG,
      summary=("the .wk's input H×W×C (or input count) differs from the prototxt's input",
               ".wk 的输入 H×W×C（或输入个数）与 prototxt 的输入不同"),
      messages={
          "shape": ("{wk} was built for input \"{name}\" of {built} (H×W×C) but the prototxt's input is {now}: "
                    "the .wk is from another version of the net; run nnie_mapper again",
                    "{wk} 是按输入 \"{name}\" 为 {built}（H×W×C）构建的，而 prototxt 的输入为 {now}："
                    ".wk 来自另一版本的网络，请重新运行 nnie_mapper"),
          "count": ("{wk} has {built} input(s) ({names}) but the prototxt declares {now}: the .wk is from another "
                    "net; run nnie_mapper again",
                    "{wk} 有 {built} 个输入（{names}），而 prototxt 声明了 {now} 个：.wk 来自另一个网络，请重新运行 nnie_mapper"),
          "input": ("the prototxt's input \"{name}\"", "prototxt 的输入 \"{name}\""),
      },
      docs_zh="`.wk` 第一段的输入（高×宽×通道）与 cfg 的 prototxt 声明的输入不同，或输入个数不同：该 .wk 不是由这个"
              "prototxt 生成的（网络已修改、或来自另一份拷贝），板端喂入的图像尺寸会不对。请重新运行 nnie_mapper。")
def nn601(project, ctx) -> Iterator[Diagnostic]:
    """
    ## What it finds
    The `.wk`'s inputs (the first segment's source nodes: H, W and C, certain on every real file)
    against the inputs the cfg's prototxt declares: a different count, or an input (matched by
    name, cut at 31 characters, else by position) whose H×W×C differs from the prototxt's
    `1 × C × H × W`.

    ## Why
    The `.wk` is what runs on the board; its input size is what the board code must feed.  When it
    differs from the prototxt the project holds, the `.wk` was built from another version of the
    net (an input resized after the last mapper run, or a `.wk` copied from another project), and
    the board is fed — or the board code written for — the wrong size.

    ## Example
    ```
    input_shape { dim: 1 dim: 3 dim: 416 dim: 416 }   # the .wk was built at 608 × 608
    ```

    ## Fix
    None automatic: run nnie_mapper again with this cfg.
    """
    model, graph = _readable(project), project.graph
    if model is None or graph is None or project.prototxt is None:
        return
    path, rng, related = _home(project)
    wk = _wk_name(project)
    inputs = [i for i in graph.inputs]
    built = model.inputs
    if len(built) != len(inputs) and inputs:
        yield ctx.diag("count", path, rng, related=related, wk=wk, built=len(built),
                       names=", ".join(n.name for n in built), now=len(inputs))
        return
    by_name = {i.name.encode("utf-8")[:31]: i for i in inputs}
    for k, node in enumerate(built):
        declared = by_name.get(node.name_bytes) or (inputs[k] if k < len(inputs) else None)
        if declared is None or not declared.shape or len(declared.shape) != 4 or any(d <= 0 for d in declared.shape):
            continue
        _n, c, h, w = declared.shape
        if (h, w, c) != (node.height, node.width, node.channels):
            rel = related + (Related(project.prototxt.path, declared.range, ctx.text("input", name=declared.name)),)
            yield ctx.diag("shape", path, rng, related=rel, wk=wk, name=node.name, built=node.shape_text,
                           now=f"{h}×{w}×{c}")


# ------------------------------------------------------------------ NN602 image type

@rule("NN602", "wk-image-type", Severity.WARNING, step=None, needs=CFG,
      summary=("the .wk's input image type differs from the cfg's [image_type]", ".wk 输入的图像类型与 cfg 的 [image_type] 不同"),
      messages={
          "differs": ("{wk} was built with [image_type] {built} ({built_name}) for input \"{name}\" but the cfg says "
                      "{now} ({now_name}): the .wk is from another cfg; run nnie_mapper again",
                      "{wk} 的输入 \"{name}\" 是按 [image_type] {built}（{built_name}）构建的，而 cfg 为 {now}"
                      "（{now_name}）：.wk 来自另一份 cfg，请重新运行 nnie_mapper"),
      },
      docs_zh="`.wk` 输入节点记录的 image_type（1 U8、3 YUV420SP、5 YUV422SP、0 特征图）与 cfg 的 [image_type] 不同："
              "该 .wk 不是用这份 cfg 生成的，板端要喂入的数据格式也随之不同。")
def nn602(project, ctx) -> Iterator[Diagnostic]:
    """
    ## What it finds
    An input whose image type in the `.wk` (byte +14 of its source node: the cfg's `[image_type]`
    code — 1 U8, 3 YUV420SP, 5 YUV422SP, 0 a feature map — shown on one net built three ways) is
    not the cfg's `[image_type]` for that input.

    ## Why
    The image type decides the blob the board feeds (U8 planes, or a YUV semi-planar frame from the
    video pipeline) and the colour conversion the chip does.  A `.wk` built with another image type
    is from another cfg — often the YUV build of a project whose cfg was switched back to U8, or
    the reverse — and the board code written for this cfg feeds it the wrong format.

    ## Example
    ```
    [image_type] 3      # the .wk beside the cfg was built with [image_type] 1 (U8)
    ```

    ## Fix
    None automatic: run nnie_mapper again with this cfg (or set `[image_type]` to what the board feeds).
    """
    model, config = _readable(project), project.config
    if model is None or config is None:
        return
    from nnie_lsp.readers.wk.layout import IMAGE_TYPES

    wk = _wk_name(project)
    for k, node in enumerate(model.inputs):
        now = config.image_type(k)
        if now is None or node.image_type is None or now == node.image_type:
            continue
        path, rng, related = _home(project, "image_type", k)
        yield ctx.diag("differs", path, rng, related=related, wk=wk, name=node.name, built=node.image_type,
                       built_name=IMAGE_TYPES.get(node.image_type, "unknown"), now=now,
                       now_name=IMAGE_TYPES.get(now, "unknown"))


# ------------------------------------------------------------------ NN603 outputs

def expected_outputs(graph) -> list[str]:
    """The tops a `.wk` of this net reports, in prototxt order: the NNIE ends (the blobs no NNIE
    layer reads, produced by an NNIE layer) and the `_report` tops of NNIE layers."""
    from nnie_lsp.readers.prototxt import layers as layer_table
    from nnie_lsp.readers.prototxt.nnie_ends import nnie_ends, runs_on_nnie

    ends = nnie_ends(graph)
    out: list[str] = []
    seen: set[str] = set()
    for layer in graph.layers:
        if not runs_on_nnie(layer):
            continue
        for top in layer.tops:
            if top in seen or top in graph.input_blobs:
                continue
            if top in ends or top.endswith(layer_table.REPORT_SUFFIX):
                out.append(top)
                seen.add(top)
    return out


def _cut(name: str) -> bytes:
    return name.encode("utf-8")[:31]


@rule("NN603", "wk-outputs", Severity.WARNING, step=None, needs=CFG,
      summary=("the .wk's outputs differ from the prototxt's outputs and `_report` tops (set or order)",
               ".wk 的输出与 prototxt 的输出及 `_report` top 不同（集合或顺序）"),
      messages={
          "missing": ("{wk} has no output for {names} (outputs or `_report` tops of the prototxt): the .wk was built "
                      "from another version of the prototxt; run nnie_mapper again",
                      "{wk} 中没有 {names} 的输出（prototxt 的输出或 `_report` top）：.wk 来自另一版本的 prototxt，请重新运行 nnie_mapper"),
          "extra": ("{wk} has output(s) {names} that the prototxt does not produce as outputs: the .wk was built from "
                    "another version of the prototxt; run nnie_mapper again",
                    "{wk} 有 prototxt 中并非输出的输出 {names}：.wk 来自另一版本的 prototxt，请重新运行 nnie_mapper"),
          "order": ("{wk} holds its outputs in the order {built}, the prototxt produces them as {now}: board code that "
                    "takes outputs by index reads the wrong ones (the mapper writes outputs in prototxt order on the one "
                    "real file that shows it [I])",
                    "{wk} 中输出的顺序为 {built}，而 prototxt 的顺序为 {now}：按下标取输出的板端代码会取错（在唯一能说明此事的"
                    "真实文件上，mapper 按 prototxt 顺序写输出 [I]）"),
      },
      docs_zh="`.wk` 的输出（各段的 destination 节点，名字截断到 31 个字符）与 prototxt 的输出（没有 NNIE 层读取的 blob）"
              "及 `_report` top 比较：少了、多了说明 .wk 来自另一版本的 prototxt；顺序不同时，按下标取输出的板端代码会取错。")
def nn603(project, ctx) -> Iterator[Diagnostic]:
    """
    ## What it finds
    The `.wk`'s outputs (every segment's destination nodes, names cut at 31 characters) against the
    prototxt's: the blobs an NNIE layer produces and no NNIE layer reads (the net's outputs, and the
    results only CPU layers read) plus the `_report` tops.  An output the prototxt has and the `.wk`
    lacks, or the reverse, is a `.wk` built from another version of the prototxt.  When the sets
    agree but the order differs, the finding is info: the mapper wrote the outputs in prototxt order
    on the one real file that shows it [I].

    ## Why
    Board code takes outputs by index or by name.  A `_report` added (or removed) since the last
    mapper run, a head renamed, an output layer reordered: the `.wk` on the board no longer holds what
    the code around it expects.

    ## Example
    ```
    layer { name: "conv5" ... top: "conv5_report" }   # added after the .wk was built: the .wk has no such output
    ```

    ## Fix
    None automatic: run nnie_mapper again with this cfg.
    """
    model, graph = _readable(project), project.graph
    if model is None or graph is None:
        return
    path, rng, related = _home(project)
    wk = _wk_name(project)
    expected = expected_outputs(graph)
    built = [n.name_bytes for n in model.outputs]
    want = [_cut(name) for name in expected]
    remaining = list(built)
    missing = []
    for name, cut in zip(expected, want):
        if cut in remaining:
            remaining.remove(cut)
        elif _cut(name.removesuffix("_report")) in remaining:   # the .wk may drop the suffix [?]
            remaining.remove(_cut(name.removesuffix("_report")))
        else:
            missing.append(name)
    if missing:
        yield ctx.diag("missing", path, rng, related=related, wk=wk, names=", ".join(f'"{n}"' for n in missing))
    if remaining:
        yield ctx.diag("extra", path, rng, related=related, wk=wk,
                       names=", ".join(f'"{n.decode("utf-8", "replace")}"' for n in remaining))
    if not missing and not remaining and len(model.segments) == 1 and built != want and sorted(built) == sorted(want):
        yield ctx.diag("order", path, rng, severity=Severity.INFO, related=related, wk=wk,
                       built=", ".join(n.decode("utf-8", "replace") for n in built),
                       now=", ".join(n.decode("utf-8", "replace") for n in want))


# ------------------------------------------------------------------ NN604 bit widths

@rule("NN604", "wk-bit-width", Severity.WARNING, step=None, needs=CFG,
      summary=("the .wk's bit widths contradict [compile_mode] and the `_hp` layers: built from another cfg",
               ".wk 的位宽与 [compile_mode] 和 `_hp` 层矛盾：来自另一份 cfg"),
      messages={
          "sixteen": ("{wk} is a 16-bit build ({census}) but [compile_mode] is {mode}{hp}: it was built with compile_mode 1, "
                      "not from this cfg (stale, or from another copy); run nnie_mapper again",
                      "{wk} 是 16 位构建（{census}），而 [compile_mode] 为 {mode}{hp}：它是用 compile_mode 1 生成的，"
                      "不是由这份 cfg 生成（过期或来自另一份拷贝），请重新运行 nnie_mapper"),
          "eight": ("{wk} is an 8-bit build ({census}) but [compile_mode] is {mode}{hp}: it was built with compile_mode 0, "
                    "not from this cfg (stale, or from another copy); run nnie_mapper again",
                    "{wk} 是 8 位构建（{census}），而 [compile_mode] 为 {mode}{hp}：它是用 compile_mode 0 生成的，"
                    "不是由这份 cfg 生成（过期或来自另一份拷贝），请重新运行 nnie_mapper"),
          "mixed": ("{wk} has both 8- and 16-bit blobs ({census}) but [compile_mode] is {mode}{hp}: a mixed build comes "
                    "from compile_mode 2 with `_hp` layers, or the mapper chose 16 bit for some layers itself [I]",
                    "{wk} 同时有 8 位和 16 位 blob（{census}），而 [compile_mode] 为 {mode}{hp}：混合构建来自带 `_hp` 层的 "
                    "compile_mode 2，或 mapper 自行为部分层选择了 16 位 [I]"),
          "with_hp": (" with {n} `_hp` layer(s)", "，且有 {n} 个 `_hp` 层"),
          "no_hp": (" and the prototxt has no `_hp` layer", "，且 prototxt 中没有 `_hp` 层"),
      },
      docs_zh="`.wk` 内存计划中每个 blob 的每元素字节数给出构建的位宽（1 字节 = 8 位，2 字节 = 16 位，4 字节为 S32 结果）。"
              "与 [compile_mode] 矛盾（compile_mode 0 却是 16 位构建，或 compile_mode 1 却是 8 位构建，compile_mode 2 带 "
              "`_hp` 层却全是 8 位）说明这个 .wk 不是由这份 cfg 生成的：过期或来自另一份拷贝。")
def nn604(project, ctx) -> Iterator[Diagnostic]:
    """
    ## What it finds
    The `.wk`'s bit widths (each blob of its memory plan: 1 byte per element = 8-bit, 2 = 16-bit;
    4-byte S32 results aside) against `[compile_mode]` and the prototxt's `_hp` layers:

    - a 16-bit build for `[compile_mode] 0`, or for `2` without `_hp` layers — built with 1;
    - an 8-bit build for `[compile_mode] 1`, or for `2` with `_hp` layers (the marks were not applied);
    - a mixed build for `0` or `1` (info: the mapper may choose 16 bit for some layers itself [I]).

    ## Why
    The bytes per element are certain for the files examined (docs/field-facts.md §18: the ENet whose
    cfg says `[compile_mode] 1` has only 2-byte blobs; a RetinaFace's "low precision" build only
    1-byte ones, with half the temp buffer of its "high precision" build).  A contradiction means
    the `.wk` on the board is not what this cfg builds: accuracy or speed measured on it says
    nothing about the cfg you are editing.

    ## Example
    ```
    [compile_mode] 0     # the .wk beside it has only 2-byte blobs: a compile_mode 1 build
    ```

    ## Fix
    None automatic: run nnie_mapper again with this cfg.
    """
    model, config = _readable(project), project.config
    if model is None or config is None:
        return
    census = model.census()
    if census is None or census.verdict == "unknown":
        return
    from nnie_lsp.readers.wk.describe import census_counts

    mode = config.compile_mode
    mode = 0 if mode is None else mode
    hp = [layer.name for layer in project.graph.layers if layer.name.endswith("_hp")] if project.graph else []
    verdict = census.verdict
    if mode == 0:
        wrong = {"16-bit": "sixteen", "mixed": "mixed"}.get(verdict)
    elif mode == 1:
        wrong = {"8-bit": "eight", "mixed": "mixed"}.get(verdict)
    elif hp:
        wrong = {"8-bit": "eight", "16-bit": "sixteen"}.get(verdict)
    elif project.graph is not None:
        wrong = {"16-bit": "sixteen"}.get(verdict)
    else:
        wrong = None
    if wrong is None:
        return
    path, rng, related = _home(project, "compile_mode")
    note = ""
    if mode == 2:
        note = ctx.text("with_hp", n=len(hp)) if hp else ctx.text("no_hp")
    yield ctx.diag(wrong, path, rng, related=related, severity=Severity.INFO if wrong == "mixed" else None,
                   wk=_wk_name(project), census=census_counts(census) + " [I]", mode=mode, hp=note)


# ------------------------------------------------------------------ NN605 chip

@rule("NN605", "wk-chip", Severity.WARNING, step=None, needs=WK,
      summary=("the .wk's version bytes name another NNIE generation than the project's target chip",
               ".wk 的版本字节表示的 NNIE 代际与项目的目标芯片不同"),
      messages={
          "differs": ("{wk} reads as built by mapper {version} ({generation}) but the target chip {chip} ({where}) runs "
                      "NNIE {wanted} .wk files: on the board it fails to load (\"arch_version(12) of input model should "
                      "be 11!\"); the version bytes are read as the mapper version [I]; build it with the mapper of NNIE "
                      "{wanted}",
                      "{wk} 按版本字节读作 mapper {version}（{generation}）构建，而目标芯片 {chip}（{where}）运行的是 NNIE "
                      "{wanted} 的 .wk：板端加载会失败（\"arch_version(12) of input model should be 11!\"）；版本字节按 mapper "
                      "版本解读 [I]；请用 NNIE {wanted} 的 mapper 重新构建"),
      },
      docs_zh="项目设置了目标芯片（`[tool.nnie-lint]` 的 `target-chip`，或模型卡的 `chip`）时，`.wk` 偏移 0x18 处的版本字节"
              "（读作 mapper 版本，前两位为 NNIE 代际 [I]）与该芯片的代际不同：Hi3559AV100 为 NNIE 1.1，Hi3519AV100、"
              "Hi3516CV500、Hi3516DV300 为 NNIE 1.2。这样的 .wk 在板端加载失败。")
def nn605(project, ctx) -> Iterator[Diagnostic]:
    """
    ## What it finds
    With a target chip set — `target-chip` in `[tool.nnie-lint]` (or the model card's `chip`) — a
    `.wk` whose version bytes at 0x18 name another NNIE generation: Hi3559AV100 runs NNIE 1.1,
    Hi3519AV100, Hi3516CV500 and Hi3516DV300 run NNIE 1.2 (docs/field-facts.md §1).  The bytes read
    as the mapper version on every real file (1.2.x.y), so the reading is inferred [I] and the
    finding says so.

    ## Why
    A `.wk` runs only on the generation of the mapper that built it: users meet
    `arch_version(12) of input model should be 11!` at load time on the board, after the deployment.

    ## Example
    ```toml
    [tool.nnie-lint]
    target-chip = "Hi3559AV100"     # the .wk reads 1.2.1.0: built for NNIE 1.2
    ```

    ## Fix
    None automatic: build the `.wk` with the chip's own mapper (`nnie_mapper` of its SDK).
    """
    model = _readable(project)
    if model is None:
        return
    from nnie_lsp.readers.wk.layout import CHIP_GENERATIONS

    (chip, where), _budget = deployment_targets(project, ctx.settings)
    wanted = CHIP_GENERATIONS.get(chip or "")
    if wanted is None or model.generation == wanted:
        return
    path, rng, related = _home(project)
    yield ctx.diag("differs", path, rng, related=related, wk=_wk_name(project), version=model.mapper_version,
                   generation=model.generation_text, chip=chip, where=where, wanted=f"{wanted[0]}.{wanted[1]}")


# ------------------------------------------------------------------ NN606 memory

@rule("NN606", "wk-board-memory", Severity.WARNING, step=None, needs=WK,
      summary=("the .wk needs more memory than the board budget the project sets", ".wk 需要的内存超过项目设定的板端预算"),
      messages={
          "over": ("{wk} needs at least {need} on the board (temp buffer {temp} + input and output blobs {blobs} + the "
                   "model file {file}; the task buffer comes on top) but the board budget is {budget} ({where}): "
                   "the board's ParamInit fails (\"Malloc memory failed\")",
                   "{wk} 在板端至少需要 {need}（临时缓冲 {temp} + 输入输出 blob {blobs} + 模型文件 {file}；另需任务缓冲），"
                   "而板端预算为 {budget}（{where}）：板端 ParamInit 会失败（\"Malloc memory failed\"）"),
      },
      docs_zh="设置了板端内存预算（`[tool.nnie-lint]` 的 `board-memory`，或模型卡的 `board_memory`）时，`.wk` 在板端至少需要的"
              "内存（临时缓冲 + 第一段输入 blob + 各段输出 blob + 模型文件本身；任务缓冲另计）超过预算。")
def nn606(project, ctx) -> Iterator[Diagnostic]:
    """
    ## What it finds
    With a board memory budget set — `board-memory` in `[tool.nnie-lint]` (`"256 MiB"`, `"512M"`,
    bytes; or the model card's `board_memory`) — a `.wk` that needs more: its temp buffer (0x0C),
    the first segment's source blobs and every segment's destination blobs (N = 1, sized as the SDK
    sample sizes them: `stride × H × C`, stride `align16(W × element size)`), and the model file,
    which the sample loads into memory.  The task buffer (an SDK call on the board) comes on top, so
    the figure is a lower bound.

    ## Why
    "Malloc memory failed" in the sample's ParamInit is what users of large-input nets meet on small
    boards: a public ENet `.wk` needs 85 MiB of temp buffer plus a 66 MiB output blob.

    ## Example
    ```toml
    [tool.nnie-lint]
    board-memory = "128 MiB"      # the .wk needs at least 154.7 MiB
    ```

    ## Fix
    None automatic: a smaller input, fewer or smaller outputs (`_report` tops cost a blob each), or
    more memory for the MMZ.
    """
    model = _readable(project)
    if model is None:
        return
    _chip, (budget, where) = deployment_targets(project, ctx.settings)
    if budget is None:
        return
    memory = model.board_memory()
    if memory.at_least <= budget:
        return
    path, rng, related = _home(project)
    yield ctx.diag("over", path, rng, related=related, wk=_wk_name(project), need=_mib(memory.at_least),
                   temp=_mib(memory.temp_buffer), blobs=_mib(memory.blobs), file=_mib(memory.model_file),
                   budget=_mib(budget), where=where)


# ------------------------------------------------------------------ NN607 older than its sources

@rule("NN607", "wk-older-than-sources", Severity.INFO, step=None, needs=CFG,
      summary=("the .wk is older than its cfg, prototxt or caffemodel by file time", "按文件时间，.wk 比 cfg、prototxt 或 caffemodel 旧"),
      messages={
          "older": ("{wk} was written before {files} changed (by file time): it may not hold the current net; file "
                    "times lie after a copy or a checkout, so this is only a hint — rebuild to be sure",
                    "按文件时间，{wk} 写于 {files} 修改之前：它可能不是当前的网络；拷贝或检出后文件时间并不可靠，"
                    "这只是提示——重新构建即可确定"),
      },
      docs_zh="按文件修改时间，`.wk` 比 cfg、prototxt 或 caffemodel 旧。拷贝、git 检出会重置文件时间，所以这只是提示（info）。")
def nn607(project, ctx) -> Iterator[Diagnostic]:
    """
    ## What it finds
    A `.wk` whose file time is earlier than the cfg's, the prototxt's or the caffemodel's (by more
    than 2 seconds).

    ## Why
    An edit after the last mapper run means the `.wk` may not hold the net you are editing.  But
    file times lie: a copy, an unzip or a git checkout gives every file a new time, so this is
    information only, never a warning; the cross-checks of the `.wk`'s content (NN601-NN604) say
    what actually differs.

    ## Example
    ```
    net.prototxt modified 10:42, nnie_model/net_inst.wk written 09:15
    ```

    ## Fix
    None automatic: run nnie_mapper again if the change matters to the `.wk`.
    """
    found = project.wk
    if found is None or not found.newer_sources or found.error is not None:
        return
    path, rng, related = _home(project)
    yield ctx.diag("older", path, rng, related=related, wk=_wk_name(project),
                   files=", ".join(name for name, _seconds in found.newer_sources))
