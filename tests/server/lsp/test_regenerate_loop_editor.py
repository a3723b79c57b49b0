"""Issue 17, point 1, in the editor, end to end over stdio with the real `nnie-triage`, on a copy of
examples/triage/channel_swap (an emulation nnie-triage wrote; the cfg's [RGB_order] is its only
fault): case 1 → apply the T102 fix → the lens offers "Regenerate and triage again" (never "Run
triage again", which would compare the old dumps) → triage on the old dumps says T008 first and
offers no fix → regenerate → case 4 with T102 confirmed fixed; `$/progress` and Cancel as for
every triage run.  With the mapper's dumps (no manifest) no regenerate is offered anywhere."""

from __future__ import annotations

import asyncio
import os
import shutil
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException, JsonRpcRequestCancelled

from .conftest import CONFIG, REPO, EditorClient, find_line, start_session

pytest.importorskip("cv2")
pytestmark = pytest.mark.asyncio

EXAMPLES = REPO / "examples" / "triage"
RUN_TIMEOUT = 120
REGENERATE = "Regenerate and triage again"


@pytest_lsp.fixture(config=CONFIG)
async def vscode(lsp_client: EditorClient):
    lsp_client.preset = "visual-studio-code"
    yield
    await lsp_client.shutdown_session()


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    dest = tmp_path / "triage"
    for name in ("model", "channel_swap"):
        shutil.copytree(EXAMPLES / name, dest / name)
    shutil.copy2(EXAMPLES / "test1.jpg", dest / "test1.jpg")
    return dest


async def execute(client: EditorClient, command: str, argument, timeout: float = RUN_TIMEOUT):
    return await asyncio.wait_for(client.workspace_execute_command_async(lsp.ExecuteCommandParams(
        command=command, arguments=[argument])), timeout)


async def lenses(client: EditorClient, uri: str) -> list[lsp.CodeLens]:
    return list(await client.text_document_code_lens_async(lsp.CodeLensParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri))) or [])


async def quick_fixes(client: EditorClient, uri: str, diagnostic) -> list[lsp.CodeAction]:
    return list(await client.text_document_code_action_async(lsp.CodeActionParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), range=diagnostic.range,
        context=lsp.CodeActionContext(diagnostics=[diagnostic], only=[lsp.CodeActionKind.QuickFix]))) or [])


def save(client: EditorClient, path: Path, uri: str) -> None:
    path.write_text(client.texts[uri], encoding="utf-8")
    client.text_document_did_save(lsp.DidSaveTextDocumentParams(text_document=lsp.TextDocumentIdentifier(uri=uri)))


async def apply_t102(client: EditorClient, cfg: Path, cfg_uri: str) -> None:
    """The T102 quick fix, applied and saved as a user does."""
    items = await client.diagnostics_for(cfg_uri, predicate=lambda ds: any(
        d.source == "nnie-triage" and d.code == "T102" for d in ds))
    t102 = next(d for d in items if d.source == "nnie-triage" and d.code == "T102")
    [fix] = await quick_fixes(client, cfg_uri, t102)
    assert client.apply_workspace_edit(fix.edit)
    assert client.texts[cfg_uri].split("\n")[find_line(client.texts[cfg_uri], "[RGB_order]")] == "[RGB_order] RGB"
    save(client, cfg, cfg_uri)


async def test_fix_old_dumps_regenerate_case4_confirmed(vscode, copy):
    client = vscode
    cfg = copy / "channel_swap" / "sim.cfg"
    await start_session(client, client.preset, root=copy)
    cfg_uri = client.open(cfg, "nnie-cfg")
    first = await execute(client, "nnie.triage", {"cfg": str(cfg)})
    assert first["case"] == 1 and first["editor"]["remake"] is None and first["editor"]["confirmed"] is None
    await apply_t102(client, cfg, cfg_uri)
    # the fix is applied, the dumps are the old cfg's: one action, regenerate -- not "Run triage again"
    top = await lenses(client, cfg_uri)
    titles = [lens.command.title for lens in top]
    assert titles[0].startswith("[stale] NNIE triage: Case 1") and REGENERATE in titles
    assert "Run triage again" not in titles and not any(t.startswith("Apply triage fixes") for t in titles)
    regen = next(lens.command for lens in top if lens.command.title == REGENERATE)
    assert regen.command == "nnie.triage" and regen.arguments[0]["regenerate"] is True
    assert regen.arguments[0]["cfg"] == str(cfg)
    # triage on the old dumps: T008 first, no fix (none that would revert [RGB_order] RGB)
    second = await execute(client, "nnie.triage", {"cfg": str(cfg)})
    assert second["findings"][0]["code"] == "T008" and "(RGB_order: BGR → RGB)" in second["findings"][0]["message"]
    assert all(f["fix"] is None and not f.get("alternatives") for f in second["findings"])
    editor = second["editor"]
    assert editor["summary"] == ("The NNIE dumps were made with the old cfg (RGB_order: BGR → RGB); "
                                 "the findings describe the old cfg")
    assert editor["next_step"] == "regenerate the emulation with the current cfg, then triage again"
    assert editor["remake"]["title"] == REGENERATE and editor["remake"]["arguments"]["regenerate"] is True
    assert editor["fixes"]["applicable"] == 0 and editor["confirmed"] is None
    assert [e["code"] for e in second["awaiting_confirmation"]] == ["T102"]
    items = await client.diagnostics_for(cfg_uri, predicate=lambda ds: any(
        d.source == "nnie-triage" and d.code == "T008" for d in ds))
    t102 = next(d for d in items if d.source == "nnie-triage" and d.code == "T102")
    assert "no advice from dumps that predate the cfg" in t102.message and "BGR" not in t102.message
    assert await quick_fixes(client, cfg_uri, t102) == []
    top = await lenses(client, cfg_uri)
    assert [lens.command.title for lens in top][1:] == [REGENERATE]
    # the lens's command: regenerate with the current cfg → case 4, T102 confirmed fixed; progress as before
    client.progress_reports.clear()
    regen = top[1].command
    third = await execute(client, regen.command, regen.arguments[0])
    assert third["case"] == 4 and [f["code"] for f in third["findings"]] == ["T401"]
    assert [e["code"] for e in third["confirmed_fixed"]] == ["T102"]
    assert third["editor"]["confirmed"] == ("Confirmed fixed: T102 The simulator's channels are Caffe's in another "
                                            "order: set [RGB_order] (sim.cfg:7 [RGB_order] RGB)")
    assert third["editor"]["remake"] is None
    assert "Confirmed fixed: T102" in third["editor"]["text_report"]
    [values] = client.progress_reports.values()
    assert values[0].kind == "begin" and values[0].cancellable is True and values[-1].kind == "end"
    assert any(v.kind == "report" and (v.message or "").startswith("regenerate") for v in values)
    top = await lenses(client, cfg_uri)
    assert [lens.command.title for lens in top][0].startswith("NNIE triage: Case 4")
    assert len(top) == 1
    # an unsaved cfg is never regenerated from the disk's older text
    client.change(cfg_uri, client.texts[cfg_uri].replace("[RGB_order] RGB", "[RGB_order] BGR"))
    with pytest.raises(JsonRpcException, match="save sim.cfg first"):
        await execute(client, "nnie.triage", {"cfg": str(cfg), "regenerate": True})


async def test_mapper_dumps_offer_no_regenerate(vscode, copy):
    client = vscode
    project = copy / "channel_swap"
    cfg = project / "sim.cfg"
    (project / "mapper_quant" / "nnie-triage-dumps.json").unlink()   # as nnie_mapper leaves its dumps
    await start_session(client, client.preset, root=copy)
    cfg_uri = client.open(cfg, "nnie-cfg")
    assert (await execute(client, "nnie.triage", {"cfg": str(cfg)}))["case"] == 1
    await apply_t102(client, cfg, cfg_uri)
    newest = max(p.stat().st_mtime for p in (project / "mapper_quant").iterdir())
    os.utime(cfg, (newest + 10, newest + 10))   # the fix was made after the mapper ran
    top = await lenses(client, cfg_uri)
    titles = [lens.command.title for lens in top]
    words = "The NNIE dumps predate the cfg: re-run nnie_mapper with the current cfg, then triage again"
    assert titles[1:] == [words] and top[1].command.command == "" and not top[1].command.arguments
    result = await execute(client, "nnie.triage", {"cfg": str(cfg)})
    # the earlier triage's record (the editor stores it) read these same dumps: the cfg changed since
    assert result["findings"][0]["code"] == "T008" and "earlier triage" in result["findings"][0]["message"]
    editor = result["editor"]
    assert editor["remake"] == {"action": "mapper", "title": "re-run nnie_mapper with the current cfg, then triage again",
                                "command": None, "arguments": None}
    assert editor["next_step"] == "re-run nnie_mapper with the current cfg, then triage again"
    assert all(f["fix"] is None for f in result["findings"])
    assert REGENERATE not in [lens.command.title for lens in await lenses(client, cfg_uri)]
    with pytest.raises(JsonRpcException, match="were not written by nnie-triage: re-run nnie_mapper"):
        await execute(client, "nnie.triage", {"cfg": str(cfg), "regenerate": True})


async def test_cancel_a_regenerate(vscode, copy):
    client = vscode
    cfg = copy / "channel_swap" / "sim.cfg"
    sim = copy / "channel_swap" / "mapper_quant"
    await start_session(client, client.preset, root=copy)
    task = asyncio.ensure_future(client.workspace_execute_command_async(lsp.ExecuteCommandParams(
        command="nnie.triage", arguments=[{"cfg": str(cfg), "regenerate": True}])))
    for _ in range(400):
        if client.progress_reports:
            break
        await asyncio.sleep(0.02)
    token = next(iter(client.progress_reports))
    client.window_work_done_progress_cancel(lsp.WorkDoneProgressCancelParams(token=token))
    with pytest.raises(JsonRpcRequestCancelled):
        await asyncio.wait_for(task, 30)
    assert client.progress_reports[token][-1].kind == "end" and client.progress_reports[token][-1].message == "cancelled"
    assert not (copy / "channel_swap" / ".nnie-triage" / "sim.json").exists()
    # the folder is still nnie-triage's: regenerate runs to the end afterwards
    assert (sim / "nnie-triage-dumps.json").is_file()
    again = await execute(client, "nnie.triage", {"cfg": str(cfg), "regenerate": True})
    assert again["case"] == 1 and again["editor"]["inputs"]["sim"]["path"] == str(sim)
