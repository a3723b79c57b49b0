"""Config rules NN001-NN005, NN007, NN008: the mapper cfg itself (syntax, keys, values, comments,
log level).  The files it names (NN006, NN009): :mod:`.cfg_file_rules`."""

from __future__ import annotations

import os

from nnie_lsp.readers.cfg import keys as cfg_keys
from nnie_lsp.readers.cfg.values import check_value
from nnie_lsp.readers.cfg.preprocessing import norm_semantics
from nnie_lsp.core.diagnostics import Severity
from nnie_lsp.rules.fixes import delete_cfg_line, insert_cfg_line, rename_cfg_key, set_cfg_value
from nnie_lsp.core.lang import is_zh, pick
from nnie_lsp.core.text import Position, Range, TextEdit
from nnie_lsp.core.registry import CFG, rule

ERROR, WARNING, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO


def _first_line_range(doc) -> Range:
    return doc.line_index.line_range(0) if doc.text else Range.point(0, 0)


@rule("NN001", "cfg-syntax", ERROR, step=None, needs=CFG,
      summary=("cfg line is not `[key] value`, blank or a `#` comment",
               "cfg 行不是 `[键] 值`、空行或 `#` 注释"),
      messages={"bad": ("not a cfg entry: {detail}; write `[key] value`",
                        "不是合法的配置行：{detail}；应写作 `[键] 值`"),
                "other_comment": ("`{start}` does not start a comment in the documented cfg form (only `#` lines are seen in real cfgs); whether nnie_mapper skips this line is not known: use `#`",
                                  "在文档记载的 cfg 写法中 `{start}` 不是注释符（真实 cfg 中只见到 `#` 注释行）；nnie_mapper 是否跳过这一行未知：请改用 `#`")},
      docs_zh=('nnie_mapper 逐行读取 `[键] 值`；`norm_type '
               '= 3` 这类 INI 写法或缺少 `]` 的行会被忽略，相应配置悄悄退回默认值，'
               '之后在第 2、3 步排查的“预处理/精度问题”其实只是笔误。以 `;` '
               '或 `//` 开头的行为警告而非错误：mapper 是否把它们当作注释跳过未知（真实 '
               'cfg 中只见到 `#` 注释行）。'))
def nn001(project, ctx):
    """
    ## What it finds
    A line of a mapper cfg that is not `[key] value`, a blank line or a full-line `#` comment —
    for example `norm_type = 3`, `[norm_type 3` or stray text.

    ## Why
    nnie_mapper reads one `[key] value` setting per line; anything else is at best ignored, so the
    setting you meant silently falls back to its default (guide step 2 and 3 then chase a
    preprocessing or precision mistake that is really a typo).

    ## Example
    ```
    norm_type = 3        # INI style: not read by nnie_mapper
    [norm_type] 3        # right
    ```

    A line starting with `;` or `//` is a warning, not an error: whether the mapper skips it as
    a comment is not known (docs/field-facts.md §2 [?]); only `#` comment lines are seen in cfgs
    the mapper accepts.

    ## Fix
    No automatic fix: the intended key and value cannot be guessed safely.
    """
    cfg = project.cfg
    if cfg is None:
        return
    for err in cfg.errors:
        start = cfg.line_index.line_text(err.range.start.line).lstrip()[:2]
        if start[:1] == ";" or start == "//":
            # the mapper's handling is unknown (docs/field-facts.md §2 [?]): a hedged warning
            yield ctx.diag("other_comment", cfg.path, err.range, severity=WARNING, start=start[:1] if start[:1] == ";" else start)
            continue
        detail = getattr(err, "message_zh", "") if is_zh(ctx.lang) else ""
        yield ctx.diag("bad", cfg.path, err.range, detail=detail or err.message)


@rule("NN002", "unknown-cfg-key", ERROR, step=None, needs=CFG,
      summary=("Unknown cfg key (did-you-mean; ATC keys named as such)",
               "未知的配置键（给出可能的正确拼写；识别 ATC 的键）"),
      messages={"unknown": ("unknown nnie_mapper key [{key}]", "未知的 nnie_mapper 配置键 [{key}]"),
                "unknown_suggest": ("unknown nnie_mapper key [{key}]; did you mean [{suggestion}]?",
                                    "未知的 nnie_mapper 配置键 [{key}]；是否应为 [{suggestion}]？"),
                "foreign": ("{detail}", "{detail}"),
                "unverified": ("[{key}] is a RuyiStudio dialog label, not a documented nnie_mapper cfg key; the mapper may not read it",
                               "[{key}] 是 RuyiStudio 界面中的名称，不是文档记载的 nnie_mapper 配置键，mapper 可能不会读取"),
                "rename": ("Rename [{key}] to [{suggestion}]", "将 [{key}] 改为 [{suggestion}]")},
      fix="safe (case only, default value) / unsafe",
      docs_zh=('未知的配置键会被忽略（例如把 `[RGB_order]` 写成 `[rgb_order]`，'
               'mapper 仍按 BGR 处理，正是第 2 步的典型错误）。ATC / '
               'MindSpore dpico 的键（`insert_op_conf`、'
               '`input_shape` 等）属于另一个工具。仅大小写不同的修复是安全的，'
               '拼写猜测则不安全。'))
def nn002(project, ctx):
    """
    ## What it finds
    A `[key]` that nnie_mapper does not know: typos (`[compile_mod]`), wrong case (`[rgb_order]`;
    keys are case-sensitive), keys of another tool (SVP_NNN ATC / MindSpore Lite dpico keys such as
    `[insert_op_conf]`, `[input_shape]`, `[out_nodes]`), and RuyiStudio dialog labels that are not
    documented cfg keys (`[align_bytes]`, `[marked_prototxt]`).

    ## Why
    An unknown key is ignored, so its setting silently takes the default — e.g. a misspelled
    `[RGB_order] RGB` leaves the mapper on BGR, the classic step-2 preprocessing mismatch.

    ## Example
    ```
    [rgb_order] RGB      # ignored: the key is RGB_order
    [RGB_order] RGB
    ```

    ## Fix
    Rename to the suggested key. The mapper ignores the unknown key, so renaming puts its value into
    effect: safe only when the letter case alone differs and the value is the key's default (nothing
    the net computes changes); unsafe otherwise (`[rgb_order] RGB` → `[RGB_order] RGB` switches the
    input to RGB) and when the suggestion is a spelling guess.
    """
    cfg = project.cfg
    if cfg is None:
        return
    for e in cfg.entries:
        spec = cfg_keys.lookup(e.key)
        if spec is not None:
            if spec.status == "unverified":
                yield ctx.diag("unverified", cfg.path, e.key_range, severity=WARNING, key=e.key)
            continue
        fk = cfg_keys.foreign(e.key)
        if fk is not None:
            yield ctx.diag("foreign", cfg.path, e.key_range,
                           detail=pick((fk.doc_en, fk.doc_zh), ctx.lang))
            continue
        sug = cfg_keys.suggest(e.key)
        if sug:
            # the mapper ignores the misspelt key, so the rename puts its value into effect: safe
            # only when that changes nothing (only the case differs, the value is the default and
            # the key is not set elsewhere)
            target = cfg_keys.lookup(sug)
            safe = (sug.lower() == e.key.lower() and target is not None and not cfg.get(sug)
                    and target.default is not None and check_value(target, e.value).ok
                    and check_value(target, e.value).parsed == target.default_value())
            fix = ctx.fix("rename", [(cfg.path, rename_cfg_key(e, sug))], safe=safe, key=e.key, suggestion=sug)
            yield ctx.diag("unknown_suggest", cfg.path, e.key_range, fix=fix, key=e.key, suggestion=sug)
        else:
            yield ctx.diag("unknown", cfg.path, e.key_range, key=e.key)


@rule("NN003", "invalid-cfg-value", ERROR, step=None, needs=CFG,
      summary=("Invalid cfg value (type, range, enum)", "配置值无效（类型、范围或枚举）"),
      messages={"bad": ("[{key}] {message}", "[{key}] {message}"),
                "kind": ("[{key}] names a {found} file; it expects {expected}",
                         "[{key}] 指向的是 {found} 文件；应为 {expected}"),
                "set": ("Change to {value}", "改为 {value}"),
                "semicolon": ("[{key}] `;` after the value: whether nnie_mapper treats `;` as a comment is not known; if it does not, it reads \"{value}\" as the value: put the comment on its own line after `#`",
                              "[{key}] 值后面有 `;`：nnie_mapper 是否把 `;` 当作注释符未知；若不是，mapper 会把 \"{value}\" 整体当作取值：请把注释单独放一行并以 `#` 开头"),
                "move_semicolon": ("Move `{comment}` to a `#` comment line above", "把 `{comment}` 移到上一行作为 `#` 注释")},
      fix="safe/unsafe",
      docs_zh=('值的类型、范围或枚举不符合《HiSVP 开发指南》表 3-6，例如 `[norm_type] '
               '6`、`[data_scale] 1/255`、`[RGB_order] '
               'rgb`；也检查 `[prototxt_file]` 与 `[caffemodel_file]` '
               '是否写反、`[image_list]` 是否误写成图片。值后面的 `; '
               '注释` 为警告：mapper 是否把 `;` 当作注释未知（与 NN007 '
               '的 `#` 同样不确定），若不是，注释会成为取值的一部分。'))
def nn003(project, ctx):
    """
    ## What it finds
    A value of the wrong type or outside the documented range or choices of its key: `[norm_type] 6`,
    `[data_scale] 1/255`, `[compile_mode] 3`, `[RGB_order] rgb`, `[batch_num] 300`, an empty value;
    and a path of the wrong kind: `[prototxt_file]` and `[caffemodel_file]` swapped, or
    `[image_list]` naming an image instead of the list file.

    ## Why
    The HiSVP guide's cfg table (§3.5.2, table 3-6) fixes each key's range; the mapper refuses or
    misreads out-of-range values, often after minutes of parsing.

    ## Example
    ```
    [data_scale] 1/255          # not a number for the mapper
    [data_scale] 0.00392156862745098
    ```

    A value followed by `; comment` (seen in cfgs in the wild) is a warning, worded as unknown:
    whether the mapper strips a `;` comment is not documented (docs/field-facts.md §16.4 [?]); if
    it does not, it reads the comment as part of the value (the same uncertainty as NN007's `#`).

    ## Fix
    Offered when the intended value is unambiguous (upper-case `RGB`, `1/255` written as a decimal,
    `3.0` as `3`); safe.  For `; comment`: move the comment to a `#` line above the entry; unsafe,
    because it changes the value the mapper reads.
    """
    cfg = project.cfg
    if cfg is None:
        return
    idx = cfg.line_index
    for e in cfg.entries:
        spec = cfg_keys.lookup(e.key)
        if spec is None:
            continue
        semicolon = _semicolon_comment(e.value)
        if semicolon:
            start = idx.offset(e.value_range.start)
            kept_end = idx.position(start + len(e.value[:semicolon].rstrip()))
            comment = e.value[semicolon + 1:].strip()
            line = idx.line_text(e.line)
            indent = line[: len(line) - len(line.lstrip())]
            edits = [(cfg.path, TextEdit(Range(Position(e.line, 0), Position(e.line, 0)), f"{indent}# {comment}\n")),
                     (cfg.path, TextEdit(Range(kept_end, e.value_range.end), ""))]
            short = comment if len(comment) <= 40 else comment[:37] + "..."
            fix = ctx.fix("move_semicolon", edits, safe=False, comment=short)
            # unknown mapper behaviour (docs/field-facts.md §2, §16.4 [?]): a hedged warning, as NN007
            yield ctx.diag("semicolon", cfg.path, e.value_range, severity=WARNING, fix=fix, key=e.key, value=e.value)
            continue
        wrong = _wrong_file_kind(e.key, e.value)
        if wrong:
            found, expected = wrong
            yield ctx.diag("kind", cfg.path, e.value_range, key=e.key, found=found, expected=expected)
            continue
        if spec.allows_null and e.value.strip() and cfg_keys.is_null_path(e.value):
            continue  # a placeholder such as `null` (an empty value is still reported)
        chk = check_value(spec, e.value)
        if chk.ok:
            continue
        msg = pick((chk.message_en, chk.message_zh), ctx.lang)
        fix = None
        if chk.suggestion is not None:
            fix = ctx.fix("set", [(cfg.path, set_cfg_value(e, chk.suggestion))], safe=True, value=chk.suggestion)
        rng = e.value_range if e.value else e.bracket_range
        yield ctx.diag("bad", cfg.path, rng, fix=fix, key=e.key, message=msg)


def _semicolon_comment(value: str) -> int:
    """Position of a `;` that follows a non-empty value (a would-be comment), else 0."""
    semicolon = value.find(";")
    return semicolon if semicolon > 0 and value[:semicolon].strip() else 0


_IMAGE_EXT = (".jpg", ".jpeg", ".png", ".bmp", ".jpe", ".jp2", ".webp", ".tif", ".tiff", ".pgm", ".ppm", ".pbm")
_EXPECTED = {"prototxt_file": ".prototxt", "caffemodel_file": ".caffemodel",
             "image_list": "a text file listing the images"}


def _wrong_file_kind(key: str, value: str):
    """(found, expected) when a path key names an obviously wrong kind of file (e.g. swapped)."""
    v = value.strip().strip('"').lower()
    found = None
    if key == "prototxt_file" and v.endswith((".caffemodel", ".wk", ".binaryproto")):
        found = os.path.splitext(v)[1]
    elif key == "caffemodel_file" and v.endswith((".prototxt", ".wk", ".cfg")):
        found = os.path.splitext(v)[1]
    elif key == "image_list" and v.endswith(_IMAGE_EXT):
        found = os.path.splitext(v)[1] + " image"
    return (found, _EXPECTED[key]) if found else None


@rule("NN004", "repeated-cfg-key", WARNING, step=None, needs=CFG,
      summary=("A non-repeatable key is given more than once", "不可重复的配置键出现多次"),
      messages={"dup": ("[{key}] is given {count} times; only one is used (which one is not documented)",
                        "[{key}] 出现了 {count} 次；只会使用其中一个（文档未说明是哪一个）"),
                "first": ("first [{key}] here", "第一个 [{key}] 在此"),
                "delete": ("Delete this duplicate line", "删除这一重复行")},
      fix="safe (same value) / unsafe",
      docs_zh=('非按输入分组的键（如 `[compile_mode]`、`[prototxt_file]`）'
               '重复出现时，mapper 取哪一个没有文档说明，生成的 wk 可能不是你想要的网络或精度。'
               '值相同时删除重复行是安全的。'))
def nn004(project, ctx):
    """
    ## What it finds
    A key that is not per-input (`prototxt_file`, `compile_mode`, `net_type`, …) set twice or more.
    Per-input keys (`image_list`, `image_type`, `norm_type`, `mean_file`, and `RGB_order`/`data_scale`
    where repeated) may repeat: one group per network input; `roi_coordinate_file` repeats per ROI layer.

    ## Why
    Copy-pasted cfgs often keep an old `[prototxt_file]` or `[compile_mode]` line; which one the
    mapper takes is undocumented, so the wk may come from the net or precision you did not mean.

    ## Example
    ```
    [compile_mode] 0
    [compile_mode] 2     # which one wins?
    ```

    ## Fix
    Delete the later duplicate. Safe when both lines have the same value; otherwise unsafe (you
    must decide which value you meant).
    """
    cfg = project.cfg
    if cfg is None:
        return
    seen = {}
    for e in cfg.entries:
        seen.setdefault(e.key, []).append(e)
    for key, entries in seen.items():
        spec = cfg_keys.lookup(key)
        if spec is None or spec.repeatable or spec.per_input or spec.per_roi_layer or len(entries) < 2:
            continue
        first = entries[0]
        for e in entries[1:]:
            same = e.value == first.value
            fix = ctx.fix("delete", [(cfg.path, delete_cfg_line(cfg, e))], safe=same)
            yield ctx.diag("dup", cfg.path, e.key_range, fix=fix, key=key, count=len(entries),
                           related=[ctx.related("first", cfg.path, first.line_range, key=key)])


@rule("NN005", "missing-cfg-key", ERROR, step=None, needs=CFG,
      summary=("A required cfg key is missing", "缺少必需的配置键"),
      messages={"missing": ("required key [{key}] is missing{note}", "缺少必需的配置键 [{key}]{note}"),
                "missing_inferred": ("key [{key}] is missing: the vendor table lists no default for it and every real cfg sets it, so the mapper probably needs it (not documented)",
                                     "缺少配置键 [{key}]：厂商的表格没有列出其默认值，且所有真实 cfg 都设置了它，因此 mapper 很可能需要它（文档未说明）"),
                "add": ("Add [{key}] {value}", "添加 [{key}] {value}"),
                "ms_note": (" (a MindSpore Lite nnie.cfg omits it because MindSpore supplies it)",
                            "（MindSpore Lite 的 nnie.cfg 会省略该项，由 MindSpore 提供）")},
      fix="safe (mean_file null)",
      docs_zh=('缺少 mapper 必需的键：`[prototxt_file]`、`[caffemodel_file]`、'
               '`[image_list]`，以及 `[mean_file]`——即使 '
               'norm_type 为 0/3 也必须给出（可写 `null`），此时可安全地自动补上。'
               '`[image_type]`、`[norm_type]` 在厂商表格中没有默认值且所有真实 '
               'cfg 都设置了它们，mapper 需要它们只是推断，因此缺少时为警告并如实说明。'
               '多输入 cfg 中每个输入组都补上 `[mean_file] null`。'))
def nn005(project, ctx):
    """
    ## What it finds
    A key the mapper needs that the cfg does not set: `[prototxt_file]`, `[caffemodel_file]`,
    `[image_list]`, and `[mean_file]` — which the guide requires even for norm_type 0 and 3, where
    its value may be `null`.

    ## Why
    Without them nnie_mapper stops before quantization; a missing `[mean_file]` with norm_type 0/3
    is an easy one to forget because the value is not used.  `[image_type]` and `[norm_type]`
    have no default in the vendor table and every real cfg sets them; that the mapper needs them
    is our inference (docs/field-facts.md §3.1 [I]), so their absence is a warning that says so.

    ## Example
    ```
    [norm_type] 3
    [data_scale] 0.0039062
    # [mean_file] missing: add `[mean_file] null`
    ```

    ## Fix
    For `[mean_file]` with norm_type 0/3: add `[mean_file] null` (safe). Other keys need a path
    only you know.
    """
    cfg = project.cfg
    if cfg is None or not cfg.entries:
        return
    present = {e.key for e in cfg.entries}
    spec_norm = cfg_keys.KEYS["norm_type"]
    mindspore_like = not ({"prototxt_file", "caffemodel_file"} & present)
    for spec in cfg_keys.all_specs():
        if not spec.required or spec.alias_of:
            continue
        names = {spec.name} | {s.name for s in cfg_keys.all_specs() if s.alias_of == spec.name}
        if names & present:
            continue
        fix = None
        if spec.name == "mean_file":
            norms = [norm_semantics(check_value(spec_norm, e.value).parsed) for e in cfg.get("norm_type")]
            if norms and all(n is not None and not n.uses_mean for n in norms):
                placeholder = cfg_keys.NULL_PATH_PLACEHOLDER
                # one per input group, after its norm_type: the k-th [mean_file] is the k-th input's (NN110)
                edits = [(cfg.path, insert_cfg_line(cfg, "mean_file", placeholder, after=e))
                         for e in cfg.get("norm_type")]
                fix = ctx.fix("add", edits, safe=True, key="mean_file", value=placeholder)
        if "[I]" in (spec.required_note or ""):
            # required by our reading only (docs/field-facts.md §3.1 Decisions [I]): a hedged warning
            yield ctx.diag("missing_inferred", cfg.path, _first_line_range(cfg), severity=WARNING, fix=fix, key=spec.name)
            continue
        ms = mindspore_like and spec.name in ("prototxt_file", "caffemodel_file")
        note = ctx.text("ms_note") if ms else ""
        # a MindSpore Lite nnie.cfg is right without them (MindSpore supplies them): advice only
        yield ctx.diag("missing", cfg.path, _first_line_range(cfg), fix=fix, key=spec.name, note=note,
                       severity=Severity.INFO if ms else None)


@rule("NN007", "inline-comment", WARNING, step=None, needs=CFG,
      summary=("Inline `#` comment after a value", "值后面带有行内 `#` 注释"),
      messages={"inline": ("inline comment after the value of [{key}]: nnie_mapper may read `{comment}` as part of the value",
                           "[{key}] 的值后面有行内注释：nnie_mapper 可能把 `{comment}` 当作值的一部分"),
                "move": ("Move the comment to its own line above", "将注释移到上一行单独成行")},
      fix="unsafe",
      docs_zh=('值后面的行内 `#` 注释：mapper 是否会去掉它没有文档说明，若不去掉，'
               '路径或数字就变成了无效值。修复会把注释移到上一行；若 mapper 本来不去掉注释，'
               '移动后它读到的值会变化，所以该修复标为不安全。'))
def nn007(project, ctx):
    """
    ## What it finds
    `[key] value   # comment` — a comment after a value on the same line.

    ## Why
    Full-line `#` comments are used in cfgs the mapper accepts, but whether it strips a trailing
    comment is not documented: if it does not, `./model.prototxt   # the net` is a path that does
    not exist, or `3  # scale` is not a number.  README listings show this form; real working cfgs
    do not.

    ## Example
    ```
    [norm_type] 3    # scale only
    # scale only
    [norm_type] 3
    ```

    ## Fix
    Move the comment to its own line above the entry. Unsafe: nothing is lost, but if the mapper does
    not strip trailing comments (undocumented, docs/field-facts.md §2 [?]) it reads a different value
    after the move, so what the net computes may change.
    """
    cfg = project.cfg
    if cfg is None:
        return
    idx = cfg.line_index
    for e in cfg.entries:
        rng = e.inline_comment_range
        if rng is None:
            continue
        comment = cfg.text[idx.offset(rng.start):idx.offset(rng.end)]
        indent = idx.line_text(e.line)[: len(idx.line_text(e.line)) - len(idx.line_text(e.line).lstrip())]
        # delete from the end of the value to the end of the line, insert the comment above
        cut = TextEdit(Range(e.value_range.end, rng.end), "")
        above = TextEdit(Range(Position(e.line, 0), Position(e.line, 0)), f"{indent}{comment}\n")
        fix = ctx.fix("move", [(cfg.path, above), (cfg.path, cut)], safe=False)
        short = comment if len(comment) <= 40 else comment[:37] + "..."
        yield ctx.diag("inline", cfg.path, rng, fix=fix, key=e.key, comment=short)


@rule("NN008", "log-level-3", WARNING, step=None, needs=CFG,
      summary=("`[log_level] 3` dumps everything: mapping becomes very slow", "`[log_level] 3` 输出全部信息：映射会非常慢"),
      messages={"slow": ("[log_level] 3 writes everything (many files) and makes mapping much slower — users report over 6 hours for RetinaFace on the GPU mapper; use 0–2 unless you need the full dump",
                         "[log_level] 3 会输出全部信息（大量文件），映射会慢很多——有用户报告 RetinaFace 在 GPU mapper 上超过 6 小时；除非确实需要，请使用 0–2"),
             "lower": ("Set [log_level] 2", "设置 [log_level] 2")},
      fix="unsafe",
      docs_zh=('`[log_level] 3` 会输出全部信息（大量文件），映射会慢很多：'
               '有用户报告 GPU mapper 转换 RetinaFace 超过 6 '
               '小时。逐层对比所需的 mapper_quant 输出不依赖于它，一般用 '
               '0–2 即可。'))
def nn008(project, ctx):
    """
    ## What it finds
    `[log_level] 3` in a mapper cfg.

    ## Why
    The vendor table: 3 logs everything ("many files, much slower"). Users report conversions of more
    than 6 hours with log_level 3 on the GPU mapper (hanson-young/nniefacelib#29); RuyiStudio-written
    cfgs often carry it. Level 2 already logs the intermediate representation, and the per-layer
    dumps the triage needs (`mapper_quant/`) do not depend on it.

    ## Example
    ```
    [log_level] 3
    ```

    ## Fix
    Unsafe: set `[log_level] 2` (you may want level 3 on purpose for a vendor report).
    """
    cfg, config = project.cfg, project.config
    if cfg is None or config is None:
        return
    e = config.entry("log_level")
    if e is not None and config.value("log_level") == 3:
        fix = ctx.fix("lower", [(cfg.path, set_cfg_value(e, "2"))], safe=False)
        yield ctx.diag("slow", cfg.path, e.value_range, fix=fix)
