"""NN403: a log of ATC (the successor chips' tool) read as what it is (:mod:`nnie_lsp.readers.mapper.atc_log`)."""

from __future__ import annotations

from nnie_lsp.core.diagnostics import Severity
from nnie_lsp.core.text import Range
from nnie_lsp.core.registry import rule

MAX_LINES = 20  # tagged lines reported from one log; the rest are counted


@rule("NN403", "atc-log", Severity.INFO, step=None,
      summary=("A log of ATC (SVP_NNN, the successor chips' tool), not of nnie_mapper",
               "ATC（SVP_NNN，后继芯片的工具）的日志，而非 nnie_mapper 的日志"),
      messages={"atc": ("{name} is a log of ATC (SVP_NNN, the tool of Hi3519DV500/SS928/Hi3403), not of nnie_mapper: nnie-lint reads only its [ERROR]/[WARN] lines and its result line ({found})",
                        "{name} 是 ATC（SVP_NNN，Hi3519DV500/SS928/Hi3403 的工具）的日志，不是 nnie_mapper 的：nnie-lint 只读取其 [ERROR]/[WARN] 行与结果行（{found}）"),
                "found": ("{errors} error line(s), {warnings} warning line(s){failed}", "{errors} 个错误行、{warnings} 个警告行{failed}"),
                "failed": ("; the run failed", "；运行失败"),
                "error": ("ATC: {text}", "ATC 报错：{text}"),
                "warning": ("ATC: {text}", "ATC 警告：{text}"),
                "failed_line": ("ATC says the run failed, with no [ERROR] line in this log: see the detail log ATC names", "ATC 表示运行失败，但此日志中没有 [ERROR] 行：请查看 ATC 指出的详细日志"),
                "more": ("{n} more tagged line(s) not reported one by one", "另有 {n} 个带标记的行未逐一报告")},
      docs_zh=('ATC（SVP_NNN，Hi3519DV500/SS928/Hi3403 '
               '等后继芯片的工具）写的日志不是 nnie_mapper 的日志：一条信息说明它是什么、'
               '读取了什么；每个 `[ERROR]` 行（及 `E10001:` 式错误码）'
               '为错误，`[WARN]`/`[WARNING]` 行为警告；有 `ATC '
               'run failed` 而无 `[ERROR]` 行时报错并指向详细日志。'
               '其余行的格式未见文档，不作解释。'))
def nn403(project, ctx):
    """
    ## What it finds
    A log given or found beside the cfg that ATC wrote — the tool of NNIE's successor chips
    (SVP_NNN: Hi3519DV500, SS928, Hi3403), which keeps some NNIE vocabulary (its version line reads
    `Mapper Version … (PICO_1.0)`) but not nnie_mapper's ERROR/WARNING blocks.  An info says what the
    log is and what is read of it; each `[ERROR]` line (and `E10001:`-style error code) is an error
    and each `[WARN]`/`[WARNING]` line a warning, on the log's line; an `ATC run failed` line
    without any `[ERROR]` line is an error saying so.

    ## Why
    Read as an nnie_mapper log, an ATC log holds no block nnie-lint knows and looked like "no
    problems".  Its other lines are not interpreted: their format is not documented for this
    project (docs/field-facts.md §1 [I]).

    ## Example
    ```
    ATC start working now, please wait for a moment.
    [ERROR] ... op type Upsample is not supported
    ATC run failed, Please check the detail log, Try 'atc --help' for more information
    ```

    ## Fix
    None automatic.  ATC's `.cfg`/options are not nnie_mapper's: lint the nnie_mapper cfg of an
    NNIE chip, or follow ATC's own documentation.
    """
    logs = tuple(getattr(project, "mapper_logs", ()))
    if not logs:
        return
    from nnie_lsp.readers.mapper.atc_log import atc_lines, is_atc_log  # only with logs: not on a prototxt's start-up path

    for found in logs:
        log = found.log
        if not is_atc_log(log.text):
            continue
        lines, failed = atc_lines(log.text)
        errors = sum(1 for a in lines if a.level == "error")
        summary = ctx.text("found", errors=errors, warnings=len(lines) - errors,
                           failed=ctx.text("failed") if failed is not None else "")
        idx = log.line_index
        first = next((k for k, t in enumerate(log.text.splitlines()) if t.strip()), 0)
        yield ctx.diag("atc", found.path, Range.of(first, 0, first, len(idx.line_text(first))),
                       name=found.name, found=summary)
        for a in lines[:MAX_LINES]:
            yield ctx.diag(a.level, found.path, Range.of(a.line, 0, a.line, len(idx.line_text(a.line))),
                           severity=Severity.ERROR if a.level == "error" else Severity.WARNING, text=a.text[:300])
        if len(lines) > MAX_LINES:
            last = lines[MAX_LINES].line
            yield ctx.diag("more", found.path, Range.of(last, 0, last, len(idx.line_text(last))), n=len(lines) - MAX_LINES)
        if failed is not None and not errors:
            yield ctx.diag("failed_line", found.path, Range.of(failed, 0, failed, len(idx.line_text(failed))),
                           severity=Severity.ERROR)
