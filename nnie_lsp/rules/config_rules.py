"""Config rules NN001-NN009: the mapper cfg itself (syntax, keys, values, files)."""

from __future__ import annotations

import os

from ..cfg import keys as cfg_keys
from ..cfg.values import check_value
from ..cfg.preprocessing import norm_semantics
from ..diagnostics import Severity
from ..fixes import delete_cfg_line, insert_cfg_line, rename_cfg_key, set_cfg_value
from ..lang import is_zh, pick
from ..text import Position, Range, TextEdit
from .registry import CFG, rule

ERROR, WARNING, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO


def _first_line_range(doc) -> Range:
    return doc.line_index.line_range(0) if doc.text else Range.point(0, 0)


@rule("NN001", "cfg-syntax", ERROR, step=None, needs=CFG,
      summary=("cfg line is not `[key] value`, blank or a `#` comment",
               "cfg 行不是 `[键] 值`、空行或 `#` 注释"),
      messages={"bad": ("not a cfg entry: {detail}; write `[key] value`",
                        "不是合法的配置行：{detail}；应写作 `[键] 值`")})
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

    ## Fix
    No automatic fix: the intended key and value cannot be guessed safely.
    """
    cfg = project.cfg
    if cfg is None:
        return
    for err in cfg.errors:
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
      fix="safe (case only, default value) / unsafe")
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
                "semicolon": ("[{key}] `;` does not start a comment in a cfg: the mapper reads \"{value}\" as the value; put the comment on its own line after `#`",
                              "[{key}] cfg 中 `;` 不是注释符：mapper 会把 \"{value}\" 整体当作取值；请把注释单独放一行并以 `#` 开头"),
                "move_semicolon": ("Move `{comment}` to a `#` comment line above", "把 `{comment}` 移到上一行作为 `#` 注释")},
      fix="safe/unsafe")
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

    A value followed by `; comment` (seen in cfgs in the wild): `;` does not start a comment in a
    cfg, so the mapper reads the comment as part of the value (whether it strips it is not
    documented: docs/field-facts.md §16.4 [?]).

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
            yield ctx.diag("semicolon", cfg.path, e.value_range, fix=fix, key=e.key, value=e.value)
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
      fix="safe (same value) / unsafe")
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
                "add": ("Add [{key}] {value}", "添加 [{key}] {value}"),
                "ms_note": (" (a MindSpore Lite nnie.cfg omits it because MindSpore supplies it)",
                            "（MindSpore Lite 的 nnie.cfg 会省略该项，由 MindSpore 提供）")},
      fix="safe (mean_file null)")
def nn005(project, ctx):
    """
    ## What it finds
    A key the mapper needs that the cfg does not set: `[prototxt_file]`, `[caffemodel_file]`,
    `[image_list]`, and `[mean_file]` — which the guide requires even for norm_type 0 and 3, where
    its value may be `null`.

    ## Why
    Without them nnie_mapper stops before quantization; a missing `[mean_file]` with norm_type 0/3
    is an easy one to forget because the value is not used.

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
                edits = [(cfg.path, insert_cfg_line(cfg, "mean_file", placeholder, after=cfg.get("norm_type")[-1]))]
                fix = ctx.fix("add", edits, safe=True, key="mean_file", value=placeholder)
        note = ctx.text("ms_note") if mindspore_like and spec.name in ("prototxt_file", "caffemodel_file") else ""
        yield ctx.diag("missing", cfg.path, _first_line_range(cfg), fix=fix, key=spec.name, note=note)


@rule("NN006", "file-not-found", ERROR, step=None, needs=CFG,
      summary=("A file the cfg names does not exist", "cfg 中引用的文件不存在"),
      messages={"missing": ("[{key}] file not found: {file} (looked in {where})",
                            "[{key}] 指向的文件不存在：{file}（已查找 {where}）"),
                "images": ("{missing} of {total} images listed in {list} not found (first: line {line}: {image})",
                           "{list} 中 {total} 张图片有 {missing} 张不存在（第一个：第 {line} 行 {image}）"),
                "image_line": ("image not found: {image}", "图片不存在：{image}"),
                "empty_list": ("image list {list} names no images", "图片列表 {list} 是空的"),
                "unreadable": ("[{key}] {file}: {reason}", "[{key}] {file}：{reason}"),
                "windows": ("[{key}] is a Windows path ({file}); it cannot be checked on this system",
                            "[{key}] 是 Windows 路径（{file}），无法在当前系统上检查")})
def nn006(project, ctx):
    """
    ## What it finds
    A path in `[prototxt_file]`, `[caffemodel_file]`, `[image_list]` (and every image listed in it),
    `[mean_file]` (unless `null` with norm_type 0/3) or `[roi_coordinate_file]` that does not exist.
    Relative paths are tried against the cfg's folder, the working directory, then the folders
    above the cfg (nnie_mapper resolves them against the directory it runs in).  A path that names
    something the lint does not read is reported too, with the reason: a folder, a FIFO, a device
    or a socket instead of a regular file, a symbolic link loop or a link to a missing file, a file
    without read permission, or a file larger than the lint reads for its kind (README,
    "Reliability").

    ## Why
    The mapper fails late (sometimes after parsing the whole net) or, for a stale RuyiStudio
    `mark_prototxt/..._mark_nnie_<time>.prototxt`, maps an old net.  A missing calibration image
    silently shrinks the calibration set.

    ## Example
    ```
    [caffemodel_file] ./model/yolov3.caffemodel     # no such file
    ```

    ## Fix
    None automatic: correct the path.
    """
    cfg = project.cfg
    if cfg is None:
        return
    unreadable = {id(u.ref.entry): u.problem for u in getattr(project, "unreadable", ()) if u.ref is not None}
    for r in project.refs:
        e = r.entry
        problem = unreadable.get(id(e))
        if problem is not None:
            yield ctx.diag("unreadable", cfg.path, e.value_range, key=e.key, file=r.written,
                           reason=problem.describe(ctx.lang))
            continue
        if r.foreign:
            yield ctx.diag("windows", cfg.path, e.value_range, severity=INFO, key=e.key, file=r.written)
            continue
        if r.is_null or r.resolved:
            continue
        if not r.written.strip():
            continue  # NN003 reports the empty value
        if _semicolon_comment(r.written):
            continue  # NN003 reports `; comment` after the path (one finding per cause)
        where = ", ".join(os.path.dirname(c) or "." for c in r.candidates[:3])
        yield ctx.diag("missing", cfg.path, e.value_range, key=e.key, file=r.written, where=where)
    for il in project.image_lists:
        e = il.ref.entry
        name = os.path.basename(il.ref.resolved or il.ref.written)
        if not il.lines:
            yield ctx.diag("empty_list", cfg.path, e.value_range, severity=WARNING, list=name)
            continue
        missing = il.missing
        if not missing:
            continue
        related = [ctx.related("image_line", il.ref.resolved, Range.of(m.line, 0, m.line, len(m.text)), image=m.text)
                   for m in missing[:5]]
        first = missing[0]
        yield ctx.diag("images", cfg.path, e.value_range, related=related, missing=len(missing),
                       total=len(il.lines), list=name, line=first.line + 1, image=first.text)


@rule("NN007", "inline-comment", WARNING, step=None, needs=CFG,
      summary=("Inline `#` comment after a value", "值后面带有行内 `#` 注释"),
      messages={"inline": ("inline comment after the value of [{key}]: nnie_mapper may read `{comment}` as part of the value",
                           "[{key}] 的值后面有行内注释：nnie_mapper 可能把 `{comment}` 当作值的一部分"),
                "move": ("Move the comment to its own line above", "将注释移到上一行单独成行")},
      fix="unsafe")
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
      fix="unsafe")
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


@rule("NN009", "stale-marked-prototxt", WARNING, step=None, needs=CFG,
      summary=("`[prototxt_file]` names an older RuyiStudio marked prototxt", "`[prototxt_file]` 指向较旧的 RuyiStudio 标记 prototxt"),
      messages={"stale": ("[prototxt_file] names {used}, but RuyiStudio has written a newer marked prototxt of this net: {newest}",
                          "[prototxt_file] 指向 {used}，但 RuyiStudio 已生成该网络更新的标记 prototxt：{newest}"),
                "use": ("Use {newest}", "改用 {newest}")},
      fix="unsafe")
def nn009(project, ctx):
    """
    ## What it finds
    A cfg whose `[prototxt_file]` is a RuyiStudio marked prototxt
    (`mark_prototxt/<name>_mark_nnie_<yyyymmddhhmmss>.prototxt`) while the same folder holds a newer
    one of the same net with different content (a newer mark holding the same net — same text, or
    the same layers and parameters once parsed — is not reported).

    ## Why
    RuyiStudio writes a new marked prototxt each time the net is marked and points `[prototxt_file]`
    at it — but users report it sometimes fails to update that line, so the mapper silently maps
    an old version of the net (every later triage step then chases a net you are not looking at).

    ## Example
    ```
    [prototxt_file] ./mark_prototxt/mobilefacenet_mark_nnie_20190723102335.prototxt
    # mark_prototxt/ also holds mobilefacenet_mark_nnie_20190801093012.prototxt
    ```

    ## Fix
    Unsafe: point `[prototxt_file]` at the newest marked prototxt (only you know which one you
    meant to map).
    """
    cfg, origin = project.cfg, project.prototxt_origin
    if cfg is None or origin is None or not project.marked_siblings or not origin.resolved:
        return
    newest = project.marked_siblings[0]
    if os.path.basename(newest) == os.path.basename(origin.resolved) or project.marked_newest_same:
        return  # the newest mark holds the same net: nothing is stale
    written = origin.written.strip()
    new_value = os.path.join(os.path.dirname(written), os.path.basename(newest)) if os.path.dirname(written) \
        else os.path.basename(newest)
    if "\\" in written and "/" not in written:
        new_value = new_value.replace("/", "\\")
    fix = ctx.fix("use", [(cfg.path, set_cfg_value(origin.entry, new_value))], safe=False, newest=os.path.basename(newest))
    yield ctx.diag("stale", cfg.path, origin.entry.value_range, fix=fix,
                   used=os.path.basename(origin.resolved), newest=os.path.basename(newest))
