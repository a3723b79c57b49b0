"""What every triage finding's registration shares: :func:`register_finding` and message snippets.

Each T-code is registered by the triage module that emits it (``nnie_lsp.triage.diagnose.tree``,
``.preprocessing``, ``.quantization``, ``.layer_matching``, ``.postprocessing``,
``nnie_lsp.triage.measure.rows``), beside the code that builds it; :mod:`nnie_lsp.core.rule_index`
names that module.  This module imports only the registry (no numpy, no triage module).
"""

from __future__ import annotations

from nnie_lsp.core.diagnostics import Severity
from nnie_lsp.core.registry import TRIAGE, Messages, rule

#: how a finding quotes a cfg key the cfg does not set (T102/T103/T104/T207)
UNSET: Messages = {"unset": ("not set, default {default}", "未设置，默认 {default}")}
#: the data input a cfg finding is about (related information)
DATA_INPUT: Messages = {"data": ("data input \"{blob}\"", "数据输入 \"{blob}\"")}


#: how a finding on NNIE dumps that predate the inputs (T008) ends instead of its advice
WITHHELD_TAIL = ("; no advice from dumps that predate the cfg: make them again, then triage again (T008)",
                 "；这些 dump 早于当前 cfg，暂不给出建议：请重新生成后再分析（T008）")


def withheld(en: str, zh: str, *msg_ids: str) -> Messages:
    """The ``withheld_<id>`` variants of `msg_ids` (the finding builder words a finding with them
    while T008 withholds the fixes): what was found, never the advice — on old dumps that advice
    may be the undo of the fix just made."""
    return {f"withheld_{m}": (en + WITHHELD_TAIL[0], zh + WITHHELD_TAIL[1]) for m in msg_ids}


def register_finding(module: str, code: str, name: str, severity: Severity, step: int, *, summary: tuple[str, str],
                     messages: Messages, docs: str, docs_zh: str, fix: str | None = None) -> None:
    """Register one T-code in the rule registry; its docs (the four sections) come from `docs`.
    Its check yields nothing: triage findings come from nnie-triage, never from a lint run.
    ``module`` is the registering module's ``__name__`` (the rule index names it)."""

    def check(project, ctx):
        return ()

    check.__name__ = f"triage_{code.lower()}"
    check.__module__ = module
    check.__doc__ = docs
    rule(code, name, severity, step=step, summary=summary, messages=messages, fix=fix,
         docs_zh=docs_zh, needs=TRIAGE)(check)
