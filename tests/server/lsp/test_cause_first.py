"""The editor leads with the cause: in case 1 the root finding (T102, on the cfg's [RGB_order]
line, the fix) is the one error; the data layer that differs (T101) is a warning beside it; the
per-layer notes (T005) are hints with their cosine as inlay text; once the fix is applied, T102 is
a hint "fixed since the run" and nothing of the old run is an error any more."""

from __future__ import annotations

import pytest
from lsprotocol import types as lsp

from .conftest import find_line
from .test_triage_editor import actions, triage_case1, triage_copy, triage_items  # noqa: F401  (a fixture)

pytestmark = pytest.mark.asyncio
ERROR, WARNING, HINT = lsp.DiagnosticSeverity.Error, lsp.DiagnosticSeverity.Warning, lsp.DiagnosticSeverity.Hint


async def test_case1_the_cause_is_the_one_error(client, triage_copy):
    _cfg, _proto, cfg_uri, proto_uri, result = await triage_case1(client, triage_copy)
    assert result["case"] == 1
    cfg_items = triage_items(await client.diagnostics_for(cfg_uri, predicate=lambda ds: bool(triage_items(ds, "T102"))))
    proto_items = triage_items(await client.diagnostics_for(
        proto_uri, predicate=lambda ds: bool(triage_items(ds, "T101")) and bool(triage_items(ds, "T005"))))
    t102 = triage_items(cfg_items, "T102")[0]
    assert t102.severity == ERROR and t102.range.start.line == find_line(client.texts[cfg_uri], "[RGB_order]")
    assert [d.code for d in cfg_items + proto_items if d.severity == ERROR] == ["T102"]
    assert triage_items(proto_items, "T101")[0].severity == WARNING
    t005 = triage_items(proto_items, "T005")
    assert len(t005) >= 5 and {d.severity for d in t005} == {HINT}
    hints = await client.text_document_inlay_hint_async(lsp.InlayHintParams(
        text_document=lsp.TextDocumentIdentifier(uri=proto_uri),
        range=lsp.Range(start=lsp.Position(line=0, character=0), end=lsp.Position(line=10_000, character=0))))
    assert len([h for h in hints if str(h.label).startswith("cos ")]) >= len(t005)
    # the fix applied: T102 is a hint of what was fixed, and no finding of the old run is an error
    fix = (await actions(client, cfg_uri, [t102], [lsp.CodeActionKind.QuickFix]))[0]
    assert client.apply_workspace_edit(fix.edit)
    fixed = triage_items(await client.diagnostics_for(cfg_uri, predicate=lambda ds: any(
        "fixed since the run" in d.message for d in triage_items(ds, "T102"))))
    assert triage_items(fixed, "T102")[0].severity == HINT
    stale = triage_items(await client.diagnostics_for(proto_uri, predicate=lambda ds: any(
        "stale" in d.message for d in triage_items(ds, "T101"))))
    assert not [d for d in fixed + stale if d.severity == ERROR]
