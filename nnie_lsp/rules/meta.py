"""Codes the lint driver produces itself: NN000 (a rule crashed), NN901/NN902 (suppression
comments) and NN903 (a file to lint that was not read).  They live in the registry like every rule, so `--explain`, hover, the docs and the
docs list them; :mod:`nnie_lsp.lint` and :mod:`nnie_lsp.rules.suppress` make them with
:func:`internal_error`, :func:`unused_suppression` and :func:`unknown_suppression_code` (the one
construction path, :class:`~nnie_lsp.rules.context.DiagnosticBuilder`).
"""

from __future__ import annotations

from nnie_lsp.core.diagnostics import Diagnostic, Severity
from nnie_lsp.core.text import Range
from nnie_lsp.rules.context import DiagnosticBuilder
from nnie_lsp.core.registry import register_meta

NN000_MESSAGES = {"crash": ("internal error in rule {rule}: {error} (please report it)",
                            "规则 {rule} 内部错误：{error}（请报告此问题）")}
NN901_MESSAGES = {"unused": ("unused suppression: nothing here reports {codes}; remove the comment",
                             "抑制注释 disable={codes} 没有抑制任何诊断，可以删除")}
NN903_MESSAGES = {"not_read": ("this file was not linted: {reason}; nothing in it was checked",
                               "此文件未检查：{reason}；其中内容均未检查")}
NN902_MESSAGES = {"unknown": ("unknown rule code {code} in a suppression comment",
                              "未知的规则代码 {code}（抑制注释）")}

register_meta(
    "NN000", "internal-error", Severity.ERROR,
    summary=("A rule crashed on this input", "某条规则在此输入上发生内部错误"),
    messages=NN000_MESSAGES,
    docs={"What it finds": "A rule raised an exception while checking the file.",
          "Why": "The other rules still ran; this one did not, so its findings are missing.",
          "Example": "Any input that triggers a bug in nnie-lint.",
          "Fix": "Report the file and the message; `--ignore` the failing rule meanwhile."},
              docs_zh=('某条规则在检查该文件时抛出异常；其它规则照常运行，只是这条规则的结果缺失。'
                       '请报告该文件与消息，并暂时用 --ignore 关闭该规则。'))

register_meta(
    "NN901", "unused-suppression", Severity.INFO,
    summary=("A `# nnie-lint: disable=…` comment suppresses nothing",
             "抑制注释没有抑制任何诊断"),
    messages=NN901_MESSAGES,
    docs={
        "What it finds": "A line or file suppression comment whose codes no longer fire where it applies.",
        "Why": "Stale suppressions hide future findings of the same code at that line and make the "
               "file harder to read.",
        "Example": "```\nlayer { name: \"relu1\" type: \"ReLU\" bottom: \"fc1\" top: \"fc1\" }  # nnie-lint: disable=NN301\n```\n"
                   "(NN301 only concerns in-place activations on Concat outputs, so it never fires here.)",
        "Fix": "Delete the comment. No automatic fix.",
    },
              docs_zh=('抑制注释（`# nnie-lint: disable=…`）在其作用的位置没有抑制任何诊断，'
                       '删除即可。'))

register_meta(
    "NN902", "unknown-suppression-code", Severity.WARNING,
    summary=("A suppression comment names a code that does not exist", "抑制注释中的规则代码不存在"),
    messages=NN902_MESSAGES,
    docs={
        "What it finds": "`# nnie-lint: disable=NN999` where NN999 is not a rule code or prefix.",
        "Why": "A misspelled code suppresses nothing, so the finding you meant to silence still shows.",
        "Example": "```\n# nnie-lint: disable=NN31\n```",
        "Fix": "Correct the code (`nnie-lint --list-rules`). No automatic fix.",
    },
              docs_zh='抑制注释中写了不存在的规则代码，拼写错误的代码不会抑制任何内容。')


register_meta(
    "NN903", "not-linted", Severity.WARNING,
    summary=("A file to lint was not read (past the size bound, not a regular file…)", "要检查的文件未被读取（超过大小上限等）"),
    messages=NN903_MESSAGES,
    docs={
        "What it finds": "A file that was to be linted but could not be read: an editor buffer or file larger "
                         "than the bound nnie-lsp reads for its kind (8 MiB for a prototxt, 256 KiB for a cfg), "
                         "a file that grew past it or became unreadable while it was being linted.",
        "Why": "No rule ran on the file, so the absence of other findings says nothing about it.",
        "Example": "A 20 MB prototxt open in the editor.",
        "Fix": "Lint a smaller file (a net of 8 MiB is about 40,000 layers: a generated or concatenated file, or "
               "a binary one under a text name). No automatic fix.",
    },
              docs_zh='要检查的文件没有被读取（例如超过该类文件的大小上限），没有任何规则在其上运行。')


def not_linted(problem, path: str, lang: str = "en") -> Diagnostic:
    """NN903 at the top of `path`: the file was not read (`problem`, a :class:`~nnie_lsp.core.safe_io.FileProblem`)."""
    return DiagnosticBuilder.of("NN903", lang).diag("not_read", path, Range.point(0, 0),
                                                    reason=problem.describe(lang))


def internal_error(rule_code: str, exc: BaseException, path: str, lang: str = "en") -> Diagnostic:
    """NN000 at the top of `path`: rule `rule_code` raised `exc`."""
    return DiagnosticBuilder.of("NN000", lang).diag("crash", path, Range.point(0, 0), rule=rule_code,
                                                    error=f"{type(exc).__name__}: {exc}")


def unused_suppression(codes: str, path: str, range: Range, lang: str = "en") -> Diagnostic:
    """NN901 on a suppression comment (`range`) whose `codes` (comma-joined) suppress nothing."""
    return DiagnosticBuilder.of("NN901", lang).diag("unused", path, range, codes=codes)


def unknown_suppression_code(code: str, path: str, range: Range, lang: str = "en") -> Diagnostic:
    """NN902 on a code of a suppression comment that is no rule code or prefix."""
    return DiagnosticBuilder.of("NN902", lang).diag("unknown", path, range, code=code)
