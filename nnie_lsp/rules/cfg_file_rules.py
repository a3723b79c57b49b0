"""Config rules NN006 and NN009: the files a mapper cfg names (missing files, an older
RuyiStudio marked prototxt)."""

from __future__ import annotations

import os

from nnie_lsp.core.diagnostics import Severity
from nnie_lsp.rules.fixes import set_cfg_value
from nnie_lsp.core.text import Range
from nnie_lsp.rules.config_rules import _semicolon_comment
from nnie_lsp.core.registry import CFG, rule

ERROR, WARNING, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO


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
                            "[{key}] 是 Windows 路径（{file}），无法在当前系统上检查"),
                "ignored": ("[{key}] {file} is not in this checkout: Git ignores it ({rule}), so it is not a wrong "
                            "path; it is checked where the file is",
                            "[{key}] {file} 不在当前检出中：Git 忽略了它（{rule}），并非路径错误；在有该文件的地方会检查它"),
                "lfs": ("[{key}] {file} is a Git LFS pointer, not the file (its content was not fetched): not checked "
                        "here; `git lfs pull` fetches it",
                        "[{key}] {file} 是 Git LFS 指针而不是文件本身（内容未下载）：此处未检查；`git lfs pull` 可下载"),
                "images_ignored": ("{count} of {total} images listed in {list} are not in this checkout: Git ignores "
                                   "them ({rule}; first: line {line}: {image}); they are checked where the images are",
                                   "{list} 中 {total} 张图片有 {count} 张不在当前检出中：Git 忽略了它们（{rule}；第一个："
                                   "第 {line} 行 {image}）；在有这些图片的地方会检查")},
      docs_zh=('cfg 中引用的文件不存在：prototxt、caffemodel、图片列表及其中每张图片、'
               '均值文件（norm_type 0/3 且为 null 时除外）、roi_coordinate_file。'
               '相对路径依次按 cfg 所在目录、当前目录、cfg 的上级目录查找。'))
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

    A file that is not in the checkout because the repository does not commit it is told apart
    from a wrong path, as info (a pre-commit hook, or a fresh clone, runs without the weights and
    images): a missing file or listed image that Git ignores (`*.caffemodel` in `.gitignore`; the
    message quotes the rule), and a caffemodel, mean file or list that is a Git LFS pointer whose
    content was not fetched.  A missing file Git does not ignore stays an error.

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
        if getattr(r, "absent", None) is not None:   # not committed, not a wrong path
            yield ctx.diag("lfs" if r.absent == "lfs" else "ignored", cfg.path, e.value_range, severity=INFO,
                           key=e.key, file=r.written, rule=r.absent)
            continue
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
        missing = [m for m in il.missing if getattr(m, "absent", None) is None]
        ignored = [m for m in il.missing if getattr(m, "absent", None) is not None]
        if ignored:
            first = ignored[0]
            yield ctx.diag("images_ignored", cfg.path, e.value_range, severity=INFO, count=len(ignored),
                           total=len(il.lines), list=name, rule=first.absent, line=first.line + 1, image=first.text)
        if not missing:
            continue
        related = [ctx.related("image_line", il.ref.resolved, Range.of(m.line, 0, m.line, len(m.text)), image=m.text)
                   for m in missing[:5]]
        first = missing[0]
        yield ctx.diag("images", cfg.path, e.value_range, related=related, missing=len(missing),
                       total=len(il.lines), list=name, line=first.line + 1, image=first.text)


@rule("NN009", "stale-marked-prototxt", WARNING, step=None, needs=CFG,
      summary=("`[prototxt_file]` names an older RuyiStudio marked prototxt", "`[prototxt_file]` 指向较旧的 RuyiStudio 标记 prototxt"),
      messages={"stale": ("[prototxt_file] names {used}, but RuyiStudio has written a newer marked prototxt of this net: {newest}",
                          "[prototxt_file] 指向 {used}，但 RuyiStudio 已生成该网络更新的标记 prototxt：{newest}"),
                "use": ("Use {newest}", "改用 {newest}")},
      fix="unsafe",
      docs_zh=('RuyiStudio 每次标记网络都会生成新的 `mark_prototxt/<名称>_mark_nnie_<时'
               '间戳>.prototxt` 并把 `[prototxt_file]` 指向它，'
               '但有时没有更新这一行，mapper 会悄悄映射旧版本的网络。'))
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
