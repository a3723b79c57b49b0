"""The mapper's own output as findings: its log blocks (NN401 errors, NN402 warnings) placed where
the fix must happen, and the nodes ``cnn_net_tree.dot`` shows it inserting (through NN304).

The project hands the rules the parsed output (``Project.mapper_logs``, ``Project.net_tree``;
loaded by :mod:`nnie_lsp.readers.mapper.output_files`); the rules read no file.

Where a block of the log's last run goes (its target is read by :mod:`nnie_lsp.readers.mapper.messages`,
forms in ``docs/field-facts.md §16.3``):

- ``layer name: [X]`` / ``layer[X]`` → the name of layer X in the prototxt;
- ``layer type:[T]`` (and ``input layer has no input param!``, ``Permute can only support …``)
  → the first layer of type T that fits the message (an Input layer without ``input_param``, a
  Permute whose order is not (0,2,3,1)), with every other such layer as a related location:
  one cause, one finding -- the fix (replace the type) is the same everywhere;
- an echoed cfg line ``[key] value`` → that cfg line (the entry with that value, when the key is
  repeated per input); ``<path> is not a file!`` → the cfg line whose value is that path;
  ``… caused by bigger batch_num …`` → the ``[batch_num]`` line;
- anything else → the block in the log itself.

When the layer, type, key or path is not in the project the finding stays on the log and says
so.  ``RUN FAILURE`` unwinding blocks are folded into their cause by the reader and never become
findings of their own; the cause says the run stopped there.  The same block in two logs is
reported once.  Every message names the mapper version of the log (or says it has none).
"""

from __future__ import annotations

import os
import posixpath
from types import MappingProxyType
from typing import Mapping, Sequence

from nnie_lsp.core.diagnostics import Diagnostic, Related, Severity
from nnie_lsp.core.records import NamedTuple
from nnie_lsp.core.text import Range
from nnie_lsp.rules._proto import layer_anchor, names_text
from nnie_lsp.core.registry import rule

ERROR_WORDS = ("error", "错误")
WARNING_WORDS = ("warning", "警告")
PERMUTE_ORDER = (0, 2, 3, 1)  # the only order NNIE's Permute supports (docs/field-facts.md §7.5)


def _block_messages(word: tuple[str, str]) -> dict[str, tuple[str, str]]:
    """The messages of NN401 / NN402: the same forms with "error" / "warning"."""
    en, zh = word
    return {
        "layer": (f'{{version}} {en} on layer "{{name}}": {{message}}{{stopped}}{{stale}} ({{origin}})',
                  f'{{version}} 在层 "{{name}}" 上报{zh}：{{message}}{{stopped}}{{stale}}（{{origin}}）'),
        "layer_type": (f"{{version}} {en} on layer type {{name}} ({{count}} layer(s) of this type: {{names}}): "
                       f"{{message}}{{stopped}}{{stale}} ({{origin}})",
                       f"{{version}} 对层类型 {{name}} 报{zh}（该类型共 {{count}} 层：{{names}}）："
                       f"{{message}}{{stopped}}{{stale}}（{{origin}}）"),
        "cfg": (f"{{version}} {en} on [{{name}}]: {{message}}{{stopped}}{{stale}} ({{origin}})",
                f"{{version}} 对 [{{name}}] 报{zh}：{{message}}{{stopped}}{{stale}}（{{origin}}）"),
        "log": (f"{{version}} {en}: {{message}}{{stopped}}{{stale}} ({{origin}})",
                f"{{version}} 报{zh}：{{message}}{{stopped}}{{stale}}（{{origin}}）"),
        "missing": (f"{{version}} {en}: {{message}}{{stopped}}{{stale}} ({{origin}}); {{missing}}",
                    f"{{version}} 报{zh}：{{message}}{{stopped}}{{stale}}（{{origin}}）；{{missing}}"),
        "missing_layer": ('layer "{name}" is not in {file}', '{file} 中没有层 "{name}"'),
        "missing_type": ("{file} has no {name} layer", "{file} 中没有 {name} 层"),
        "missing_key": ("{file} has no [{name}] line", "{file} 中没有 [{name}] 行"),
        "missing_path": ("no line of {file} names {name}", "{file} 中没有哪一行写的是 {name}"),
        "no_prototxt": ("the prototxt (none loaded)", "prototxt（未加载）"),
        "no_cfg": ("the cfg (none loaded)", "cfg（未加载）"),
        "no_version": ("nnie_mapper (version not in the log)", "nnie_mapper（日志中无版本行）"),
        "stopped": (" -- the run stopped here (RUN FAILURE, Return = {code})",
                    " —— 运行在此终止（RUN FAILURE，Return = {code}）"),
        "stopped_cut": (" -- the run stopped here (the log ends in the call stack that followed)",
                        " —— 运行在此终止（日志在随后的调用栈中截断）"),
        "crashed": (" -- then the process crashed ({crash})", " —— 随后进程崩溃（{crash}）"),
        "no_message": ("{function} (the log ends before the message)", "{function}（日志在错误信息之前截断）"),
        "crash": ("the mapper process crashed, the log states no error before it: {crash}",
                  "mapper 进程崩溃，日志中在此之前没有错误信息：{crash}"),
        "older": (f"{{version}} {en} in an older run ({{which}}), not the last one: {{message}}{{stopped}}{{stale}} "
                  f"({{origin}}); {{latest}}",
                  f"{{version}} 在较早的一次运行（{{which}}）中报{zh}，不是最后一次：{{message}}{{stopped}}{{stale}}"
                  f"（{{origin}}）；{{latest}}"),
        "run_of": ("run {k} of {n} in this log", "本日志第 {k} 次运行，共 {n} 次"),
        "runs_of": ("runs {ks} of {n} in this log", "本日志第 {ks} 次运行，共 {n} 次"),
        "older_log": ("{log} beside it holds a later run, which completed", "旁边的 {log} 记录了更晚的一次运行，且已完成"),
        "latest_ok": ("the last run completed", "最后一次运行已成功完成"),
        "latest_failed": ("the last run failed: see its own finding", "最后一次运行失败：见其单独的诊断"),
        "latest_unknown": ("the log does not say how the last run ended", "日志没有说明最后一次运行的结果"),
        "stale": (" [the log is older than {files}: run the mapper again to see whether this still applies]",
                  " [日志早于 {files} 的修改：请重新运行 mapper 确认是否仍然存在]"),
        "same_type": ('{type} layer "{layer}" too', '同为 {type} 层："{layer}"'),
        "in_log": ("the mapper's message ({origin})", "mapper 的原始信息（{origin}）"),
    }


class _Place(NamedTuple):
    """Where one block's finding goes and with which message."""

    msg_id: str
    path: str
    range: Range
    params: Mapping = MappingProxyType({})  # read-only default
    related: Sequence[Related] = ()


def _path_key(text: str) -> str:
    """A path as written, compared loosely: quotes and blanks trimmed, ``\\`` read as ``/``,
    ``./`` and ``a/..`` folded, case ignored (Windows paths are echoed as written)."""
    cleaned = text.strip().strip("\"'").strip().replace("\\", "/")
    return posixpath.normpath(cleaned).casefold() if cleaned else ""


def _layer_named(graph, name: str):
    """The prototxt layer the mapper names: by name, then with ``/`` read as ``_`` (as the mapper
    writes some names), then a layer whose top has that name; layers outside the TEST net last."""
    layers = list(graph.layers) + [excluded.layer for excluded in graph.excluded]
    plain = name.replace("/", "_")
    for matches in (lambda gl: gl.name == name,
                    lambda gl: gl.name.replace("/", "_") == plain,
                    lambda gl: name in gl.tops):
        for layer in layers:
            if matches(layer):
                return layer
    return None


def _permute_order(layer) -> tuple[int, ...] | None:
    try:
        return tuple(int(v) for v in layer.param.permute_param.order)
    except AttributeError:  # a V1 layer: no permute_param
        return None


def _fits_message(form_id: str | None, layer) -> bool:
    """Does this layer of the named type fit what the message says is wrong with it?"""
    if form_id == "no_input_param":
        try:
            return not layer.param.HasField("input_param")
        except ValueError:  # V1 layer parameters have no input_param
            return True
    if form_id == "permute_order":
        return _permute_order(layer) != PERMUTE_ORDER
    return True


def _layers_of_type(graph, type_name: str, form_id: str | None) -> list:
    exact = [gl for gl in graph.layers if gl.type == type_name]
    layers = exact or [gl for gl in graph.layers if gl.type.lower() == type_name.lower()]
    fitting = [gl for gl in layers if _fits_message(form_id, gl)]
    return fitting or layers


def _cfg_entries(cfg, key: str) -> list:
    return [entry for entry in cfg.entries if entry.key.lower() == key.lower()]


def _entry_range(entry) -> Range:
    empty = entry.value_range.start == entry.value_range.end
    return entry.bracket_range if empty else entry.value_range


def _version(ctx, found) -> str:
    log_version = found.log.version
    return log_version.label if log_version is not None else ctx.text("no_version")


def _origin(found, block) -> str:
    where = f"{found.name}:{block.range.start.line + 1}"
    return f"{where}, {block.function}" if block.function else where


def _message(ctx, block) -> str:
    """The block's message on one line; an echoed cfg line is left out (the finding is on it)."""
    if block.form_id == "crash":
        return ctx.text("crash", crash=block.message)
    lines = [line for line in block.message.split("\n") if line.strip()]
    if block.target.kind == "cfg_entry" and len(lines) > 1:
        lines = lines[1:]
    return " ".join(lines) if lines else ctx.text("no_message", function=block.function or "?")


def _stopped(ctx, block, run=None) -> str:
    """How the run ended after this cause: its unwinding stack, and a crash that followed."""
    out = ""
    for folded in block.unwinding:
        if folded.failure is not None:
            out = ctx.text("stopped", code=folded.failure.code or "?")
            break
    else:
        if block.unwinding:  # only frames cut short: the log ends in the stack
            out = ctx.text("stopped_cut")
    crash = getattr(run, "crash", None)
    if crash is not None and crash is not block and run is not None and run.cause is block:
        out += ctx.text("crashed", crash=crash.message)
    return out


def _stale(ctx, found) -> str:
    return ctx.text("stale", files=", ".join(found.newer_files)) if found.newer_files else ""


def _missing(ctx, project, found, block) -> _Place:
    target = block.target
    file_of = {
        "layer": (project.prototxt_path, "no_prototxt", "missing_layer"),
        "layer_type": (project.prototxt_path, "no_prototxt", "missing_type"),
        "cfg_entry": (project.cfg_path, "no_cfg", "missing_key"),
        "cfg_key": (project.cfg_path, "no_cfg", "missing_key"),
        "path": (project.cfg_path, "no_cfg", "missing_path"),
    }
    path, none_id, missing_id = file_of[target.kind]
    file = os.path.basename(path) if path else ctx.text(none_id)
    return _Place("missing", found.path, block.range,
                  {"missing": ctx.text(missing_id, name=target.name, file=file)})


def _place_on_layers(ctx, project, found, block) -> _Place | None:
    graph, doc = project.graph, project.prototxt
    if graph is None or doc is None:
        return None
    target = block.target
    if target.kind == "layer":
        layer = _layer_named(graph, target.name)
        if layer is None:
            return None
        return _Place("layer", doc.path, layer_anchor(layer.source), {"name": layer.name})
    layers = _layers_of_type(graph, target.name, block.form_id)
    if not layers:
        return None
    first, others = layers[0], layers[1:]
    related = [ctx.related("same_type", doc.path, layer_anchor(other.source), type=other.type, layer=other.name)
               for other in others]
    return _Place("layer_type", doc.path, layer_anchor(first.source),
                  {"name": first.type, "count": len(layers), "names": names_text([gl.name for gl in layers])},
                  related)


def _place_on_cfg(project, block) -> _Place | None:
    cfg = project.cfg
    if cfg is None:
        return None
    target = block.target
    if target.kind == "path":
        wanted = _path_key(target.name)
        entries = [entry for entry in cfg.entries if entry.value and _path_key(entry.value) == wanted]
    else:
        entries = _cfg_entries(cfg, target.name)
        if target.kind == "cfg_entry" and target.value is not None and len(entries) > 1:
            wanted = _path_key(target.value)
            entries = [entry for entry in entries if _path_key(entry.value) == wanted] or entries
    if not entries:
        return None
    entry = entries[0]
    return _Place("cfg", cfg.path, _entry_range(entry), {"name": entry.key})


def _place(ctx, project, found, block) -> _Place:
    kind = block.target.kind
    place = None
    if kind in ("layer", "layer_type"):
        place = _place_on_layers(ctx, project, found, block)
    elif kind in ("cfg_entry", "cfg_key", "path"):
        place = _place_on_cfg(project, block)
    else:
        return _Place("log", found.path, block.range)
    return place if place is not None else _missing(ctx, project, found, block)


def _block_key(block) -> tuple:
    return (block.kind, block.function, block.source_line, block.message)


def _last_run_blocks(log, kind: str) -> list:
    """The blocks of the log's last run that are findings: every ERROR (``kind``) or WARNING
    block that is not a stack frame; a crash line when the run states no error."""
    run = log.last_run
    if run is None:
        return []
    out = [block for block in run.blocks if block.kind == kind and not block.is_unwinding]
    if kind == "ERROR" and not out and run.crash is not None:
        out.append(run.crash)
    return out


def _older_causes(found) -> list[tuple[object, list[int]]]:
    """(cause, 1-based numbers of the runs it failed) for the runs before the last one (every run
    of a log that holds only older runs), the same cause once."""
    runs = found.log.runs if getattr(found, "older_than", "") else found.log.runs[:-1]
    by_key: dict[tuple, tuple[object, list[int]]] = {}
    for run in runs:
        cause = run.cause
        if cause is not None:
            by_key.setdefault(_block_key(cause), (cause, []))[1].append(run.index + 1)
    return list(by_key.values())


def _latest(ctx, found) -> str:
    if getattr(found, "older_than", ""):
        return ctx.text("older_log", log=found.older_than)
    status = found.log.status
    return ctx.text({"succeeded": "latest_ok", "failed": "latest_failed"}.get(status, "latest_unknown"))


def block_findings(project, ctx, kind: str):
    """NN401 / NN402: one finding per ERROR (``kind`` "ERROR") or WARNING block of each log's
    last run, placed as the module says; a block repeated in another log is reported once.
    NN401 also reports the cause of each older failed run (info, on the log: it may be fixed
    since), once per cause, unless the last run reports the same error."""
    seen: set[tuple] = set()
    logs = tuple(getattr(project, "mapper_logs", ()))
    for found in logs:
        if getattr(found, "older_than", ""):
            continue
        run = found.log.last_run
        for block in _last_run_blocks(found.log, kind):
            if _block_key(block) in seen:
                continue
            seen.add(_block_key(block))
            place = _place(ctx, project, found, block)
            origin = _origin(found, block)
            related = list(place.related)
            if place.path != found.path:
                related.insert(0, ctx.related("in_log", found.path, block.range, origin=origin))
            params = {"name": "", **place.params}
            yield ctx.diag(place.msg_id, place.path, place.range, related=related,
                           version=_version(ctx, found), message=_message(ctx, block),
                           stopped=_stopped(ctx, block, run), stale=_stale(ctx, found), origin=origin,
                           data={"mapper_log": found.path}, **params)
    if kind != "ERROR":
        return
    for found in logs:
        total = len(found.log.runs)
        for cause, numbers in _older_causes(found):
            if _block_key(cause) in seen:
                continue
            seen.add(_block_key(cause))
            which = (ctx.text("run_of", k=numbers[0], n=total) if len(numbers) == 1
                     else ctx.text("runs_of", ks=", ".join(map(str, numbers)), n=total))
            run = found.log.runs[numbers[-1] - 1]
            yield ctx.diag("older", found.path, cause.range, severity=Severity.INFO,
                           version=_version(ctx, found), which=which, message=_message(ctx, cause),
                           stopped=_stopped(ctx, cause, run), stale=_stale(ctx, found), origin=_origin(found, cause),
                           latest=_latest(ctx, found),
                           data={"mapper_log": found.path})


_ERROR_MESSAGES = _block_messages(ERROR_WORDS)
_WARNING_MESSAGES = _block_messages(WARNING_WORDS)


@rule("NN401", "mapper-error", Severity.ERROR, step=None,
      summary=("nnie_mapper reported an error (mapper_error.log / mapper_debug.log / --mapper-log)",
               "nnie_mapper 报告了错误（mapper_error.log / mapper_debug.log / --mapper-log）"),
      messages=_ERROR_MESSAGES,
      docs_zh="把 mapper 日志（cfg 旁的 mapper_debug.log，没有时用 mapper_error.log，或 --mapper-log 指定的日志，"
              "包括保存下来的控制台输出）最后一次运行中的每个 ERROR 块变成一条诊断，放在它指向的位置："
              "`layer name: [X]` / `layer[X]` → prototxt 中层 X 的名字；`layer type:[T]` → 第一个 T 类型的层，"
              "其余同类型层作为相关位置；回显的 cfg 行 `[key] value`、`<path> is not a file!`、"
              "`batch_num` → cfg 中对应的行；其余 → 日志中的该块。找不到对应的层或行时留在日志上并说明。"
              "RUN FAILURE 回溯块并入其原因，不单独报告；日志在回溯栈中截断时也是如此。较早运行的原因（包括进程崩溃，"
              "如 Segmentation fault）作为提示留在日志上并注明来自较早的运行；cfg 旁的 mapper_debug.log 以 "
              "`Compiler process complete!` 结束时，mapper_error.log 中的错误都属于较早的运行，不放到 cfg 上。"
              "消息中带有 mapper 版本；日志早于 cfg/prototxt 时会注明。")
def nn401(project, ctx):
    """
    ## What it finds
    Every `ERROR` block of the last mapper run in the mapper's log: `mapper_debug.log` beside the
    cfg (else `mapper_error.log` there), or the logs given with `nnie-lint --mapper-log FILE`
    (saved console and RuyiStudio logs too).  The finding goes where the fix must happen:
    `layer name: [X]` / `layer[X]` → layer X's name in the prototxt; `layer type:[Crop]` → the
    first Crop layer, the other Crop layers as related locations (one cause, one finding);
    `input layer has no input param!` → the Input layers without `input_param`; an echoed cfg
    line `[image_list] ./x.txt`, `<path> is not a file!` or `… bigger batch_num …` → that cfg
    line; anything else → the block in the log.  When the layer, key or path is not in the
    project, the finding stays on the log and says so.  The `RUN FAILURE in line …` blocks that
    follow an error are its unwinding call stack: they are folded into it ("the run stopped
    here"), never reported on their own -- also when the log ends inside that stack (a frame's
    header without its message is a frame, never a cause).  A run killed by a signal (a console
    log's `Segmentation fault (core dumped)`) has that line as its cause.  The cause of each
    older run of the log is one info finding on the log, said to be from an older run (once per
    cause; not repeated when the last run reports the same error); a `mapper_error.log` beside a
    `mapper_debug.log` whose run completed (`Compiler process complete!`) holds only older runs,
    so nothing of it is placed on the cfg or the prototxt.

    ## Why
    The mapper stops at its first error and prints it with its own function name and source line,
    far from the prototxt or cfg line to change; `mapper_error.log` keeps the errors of every run,
    so the same message appears again and again.  Reading only the last run, and showing each
    error on the line it names, turns the log into a to-do list (docs/field-facts.md §8, §16.3).
    The message names the mapper version of the log.  A log older than the cfg or the prototxt
    may describe a previous version of the net: the message says so.

    ## Example
    ```
    **********************************************************
    ERROR: file: parseLayerType  line: 341
    layer type:[Crop], error: layer type is not supported!
    ```
    becomes, on the first `type: "Crop"` layer's name:
    `nnie_mapper … error on layer type Crop (1 layer(s) of this type: "crop1"): layer type:[Crop],
    error: layer type is not supported! -- the run stopped here (RUN FAILURE, Return = -1)`.

    ## Fix
    None automatic: the message says what the mapper refused; the other rules often name the fix
    (NN015 for unsupported layers, NN006 for missing files).  Run the mapper again afterwards: the
    log describes the run that wrote it.  Log-homed findings are shown by `nnie-lint`; the editor
    shows those placed in the cfg and the prototxt.
    """
    yield from block_findings(project, ctx, "ERROR")


@rule("NN402", "mapper-warning", Severity.WARNING, step=None,
      summary=("nnie_mapper printed a warning (mapper_error.log / mapper_debug.log / --mapper-log)",
               "nnie_mapper 输出了警告（mapper_error.log / mapper_debug.log / --mapper-log）"),
      messages=_WARNING_MESSAGES,
      docs_zh="与 NN401 相同，但针对 mapper 日志最后一次运行中的 WARNING 块，例如 "
              "`layer[X] value[…] is too small`（BatchNorm 折叠后数值过小，放在层 X 上）和 "
              "`data containing only zeros; set max value to 1e-6.`（校准数据全为零，留在日志上）。")
def nn402(project, ctx):
    """
    ## What it finds
    Every `WARNING` block of the last mapper run in the mapper's log, placed like NN401's errors:
    `layer[mobilenet0_conv5_group_15] value[0.00000000000000004205] is too small`
    (`Inference::convBnParamProcess`) goes on that layer's name; `data containing only zeros;
    set max value to 1e-6.` (`Inference::computeNonlinearQuantizationDelta`) names nothing and
    stays on the log.

    ## Why
    The mapper's warnings are about quantization: a folded BatchNorm value too small to
    represent, a calibration tensor that is all zeros.  Both often explain a later accuracy loss
    on the chip (guide step 3), yet they scroll by between progress dots.  Shown on the layer,
    they are seen where the net is edited (docs/field-facts.md §8, §16.3).

    ## Example
    ```
    **********************************************************
    WARNING: file: Inference::convBnParamProcess  line: 816
    layer[conv5] value[0.00000000000000004205] is too small
    ```
    becomes a warning on `name: "conv5"`.

    ## Fix
    None automatic.  For a too-small value, check the BatchNorm statistics of that layer (a dead
    channel); for all-zero data, check the calibration images and the preprocessing.
    """
    yield from block_findings(project, ctx, "WARNING")


# ---------------------------------------------------------------- cnn_net_tree.dot → NN304

INSERTED_NODE_MESSAGES = {
    "inserted": ("cnn_net_tree.dot: the mapper inserted {nodes} after {type} \"{layer}\": the chip's output "
                 "of this layer is the inserted node's, in its layout; compare with it (nnie-triage does) or "
                 "with the next layer",
                 "cnn_net_tree.dot：mapper 在 {type} 层 \"{layer}\" 之后插入了 {nodes}：芯片上该层的输出是插入节点的输出"
                 "（其布局）；请与它对比（nnie-triage 会这样做）或与下一层对比"),
}


def _node_text(node) -> str:
    details = [node.type_name or "?"]
    if node.output_size:
        details.append("×".join(str(d) for d in node.output_size))
    return f"`{node.name}` ({', '.join(details)})"


def inserted_nodes_by_layer(project) -> list[tuple[object, list]]:
    """(prototxt layer, mapper-inserted nodes after it) from ``cnn_net_tree.dot``, in layer order;
    inserted nodes whose layer is not in the prototxt are left out."""
    tree, graph = getattr(project, "net_tree", None), project.graph
    if tree is None or graph is None:
        return []
    by_index: dict[int, tuple[object, list]] = {}
    excluded = {item.layer.index for item in graph.excluded}  # not in the net the mapper converts
    for node in tree.inserted_nodes():
        followed = tree.followed_layer(node.name)
        layer = _layer_named(graph, followed.name) if followed is not None else None
        if layer is None or layer.index in excluded:
            continue
        by_index.setdefault(layer.index, (layer, []))[1].append(node)
    return [by_index[index] for index in sorted(by_index)]


def inserted_node_findings(project, ctx) -> tuple[list[Diagnostic], set[int]]:
    """NN304's findings from ``cnn_net_tree.dot``: one per layer the mapper inserted nodes after
    (``permute_<k>`` of type ``Permute (batch)`` after a Normalize, …), and the indexes of those
    layers (NN304's layer-table finding is not repeated for them).  ``ctx`` must hold
    :data:`INSERTED_NODE_MESSAGES`."""
    doc = project.prototxt
    out: list[Diagnostic] = []
    covered: set[int] = set()
    if doc is None:
        return out, covered
    for layer, nodes in inserted_nodes_by_layer(project):
        covered.add(layer.index)
        anchor = layer.source.type_range or layer_anchor(layer.source)
        out.append(ctx.diag("inserted", doc.path, anchor, nodes=", ".join(_node_text(n) for n in nodes),
                            type=layer.type, layer=layer.name, data={"layer": layer.name}))
    return out, covered
