"""Settings, language and the nnie.triage command (progress, cancel, annotations) end to end."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException
from pytest_lsp import ClientServerConfig

from nnie_lsp.server.triage.annotations import SIMILARITY_CODE

from .conftest import SERVER, EditorClient, dump_folder, find_line, make_client, start_session

pytestmark = pytest.mark.asyncio

FAKE = Path(__file__).with_name("fake_triage.py")
TRIAGE_CONFIG = ClientServerConfig(server_command=SERVER, client_factory=make_client, server_env={
    **os.environ, "NNIE_LSP_TRIAGE_CMD": f"{sys.executable} {FAKE}"})


def codes(items):
    return {str(d.code) for d in items}


async def test_initialization_options_select_and_ignore(client, project):
    await start_session(client, client.preset, init_options={"nnie": {"lint": {"ignore": ["NN301"],
                                                                               "severity": {"NN302": "error"}}}})
    uri = client.open(project / "model.prototxt", "prototxt")
    items = await client.diagnostics_for(uri, predicate=lambda ds: "NN302" in codes(ds))
    assert "NN301" not in codes(items)
    assert next(d for d in items if d.code == "NN302").severity == lsp.DiagnosticSeverity.Error


async def test_invalid_settings_message_and_defaults(client, project):
    await start_session(client, client.preset, init_options={"lint": {"run": "sometimes"}})
    uri = client.open(project / "model.prototxt", "prototxt")
    items = await client.diagnostics_for(uri, predicate=lambda ds: "NN301" in codes(ds))
    assert "NN302" in codes(items)
    shown = [m.message for m in client.messages]
    assert any("invalid settings" in m and "lint.run" in m and "using the defaults" in m for m in shown), shown


async def test_workspace_configuration_and_change(client, project):
    client.set_configuration({"lint": {"select": ["NN3"]}}, section="nnie")
    await start_session(client, client.preset)
    uri = client.open(project / "model.prototxt", "prototxt")
    items = await client.diagnostics_for(uri, predicate=lambda ds: bool(ds) and all(c.startswith("NN3") for c in codes(ds)))
    assert {"NN301", "NN302"} <= codes(items) and "NN016" not in codes(items)
    client.set_configuration({"lint": {"select": ["NN0"]}, "language": "zh-cn"}, section="nnie")
    client.workspace_did_change_configuration(lsp.DidChangeConfigurationParams(settings=None))
    items = await client.diagnostics_for(uri, predicate=lambda ds: "NN016" in codes(ds) and "NN301" not in codes(ds))
    nn016 = next(d for d in items if d.code == "NN016")
    assert "旧式" in nn016.message


async def test_chinese_locale(client, project):
    await start_session(client, client.preset, locale="zh-cn")
    uri = client.open(project / "model.prototxt", "prototxt")
    items = await client.diagnostics_for(uri, predicate=lambda ds: "NN301" in codes(ds))
    nn301 = next(d for d in items if d.code == "NN301")
    assert "原位" in nn301.message
    actions = await client.text_document_code_action_async(lsp.CodeActionParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), range=nn301.range,
        context=lsp.CodeActionContext(diagnostics=[nn301], only=[lsp.CodeActionKind.QuickFix])))
    assert "在此行禁用 NN301" in [a.title for a in actions]
    assert any("取消" in a.title for a in actions if a.is_preferred)
    text = client.texts[uri]
    line = find_line(text, 'type: "Concat"')
    h = await client.text_document_hover_async(lsp.HoverParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri),
        position=lsp.Position(line=line, character=text.split("\n")[line].index("Concat"))))
    assert "NNIE 支持" in h.contents.value


async def test_on_save_mode(client, project):
    await start_session(client, client.preset, init_options={"lint": {"run": "onSave"}})
    uri = client.open(project / "model.prototxt", "prototxt")
    await client.diagnostics_for(uri, predicate=lambda ds: "NN301" in codes(ds))
    text = client.texts[uri].replace('top: "layer10-route"\n  name: "layer10-act"', 'top: "layer10-act"\n  name: "layer10-act"')
    assert text != client.texts[uri]
    client.change(uri, text)
    await asyncio.sleep(0.8)
    still = await client.diagnostics_for(uri)
    assert "NN301" in codes(still)  # not re-linted on type
    client.text_document_did_save(lsp.DidSaveTextDocumentParams(text_document=lsp.TextDocumentIdentifier(uri=uri)))
    if client.pull:
        await asyncio.sleep(0.3)
    after = await client.diagnostics_for(uri, predicate=lambda ds: "NN301" not in codes(ds))
    assert "NN302" in codes(after)


@pytest_lsp.fixture(params=["visual-studio-code", "neovim"], config=TRIAGE_CONFIG)
async def tclient(request, lsp_client: EditorClient):
    lsp_client.preset = request.param
    yield
    await lsp_client.shutdown_session()


async def test_triage_command_annotates_layers(tclient, project, tmp_path):
    client = tclient
    await start_session(client, client.preset)
    uri = client.open(project / "model.prototxt", "prototxt")
    await client.diagnostics_for(uri, predicate=lambda ds: "NN301" in codes(ds))
    dump_folder(tmp_path / "ref")
    dump_folder(tmp_path / "sim")
    result = await client.workspace_execute_command_async(lsp.ExecuteCommandParams(
        command="nnie.triage", arguments=[{"reference": str(tmp_path / "ref"), "sim": str(tmp_path / "sim"),
                                           "cfg": str(project / "tiny_face_inst.cfg")}]))
    assert result["case"] == 2 and result["inputs"]["prototxt"] == str(project / "model.prototxt")
    reports = [p for ps in client.progress_reports.values() for p in ps]
    kinds = [p.kind for p in reports]
    assert kinds[0] == "begin" and kinds[-1] == "end"
    items = await client.diagnostics_for(uri, predicate=lambda ds: any(d.source == "nnie-triage" for d in ds))
    tri = {d.data["layer"]: d for d in items if d.source == "nnie-triage"}
    assert set(tri) == {"layer10-route", "layer14-fc"}
    assert "0.9731" in tri["layer10-route"].message and "first divergence" in tri["layer10-route"].message
    # per-layer notes show where a cause shows: hints (with the inlay text), never errors
    assert {d.severity for d in tri.values()} == {lsp.DiagnosticSeverity.Hint}
    text = client.texts[uri]
    route = find_line(text, 'name: "layer10-route"')
    assert tri["layer10-route"].range.start.line == route
    hints = await client.text_document_inlay_hint_async(lsp.InlayHintParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri),
        range=lsp.Range(start=lsp.Position(line=0, character=0), end=lsp.Position(line=len(text.split("\n")), character=0))))
    labels = {h.label for h in hints}
    assert {"cos 0.9731", "cos 0.8012", "cos 0.9995"} <= labels
    assert any(h.position.line == route for h in hints if h.label == "cos 0.9731")
    if client.preset == "neovim":  # its capabilities announce inlayHint refresh support
        assert client.inlay_refreshes >= 1
    # both sources follow an edit: the triage findings move with their layers, lint findings stay
    version = client.change(uri, "# a new first line\n" + text)
    moved = await client.diagnostics_for(uri, min_version=version, predicate=lambda ds: any(
        d.source == "nnie-triage" and d.range.start.line == route + 1 for d in ds))
    assert "NN301" in codes(moved)
    assert {d.data["layer"] for d in moved if d.source == "nnie-triage"} == {"layer10-route", "layer14-fc"}


async def test_triage_cancel_kills_the_job(tclient, project, tmp_path):
    client = tclient
    await start_session(client, client.preset)
    ref = dump_folder(tmp_path / "slow-ref")
    dump_folder(tmp_path)
    task = asyncio.ensure_future(client.workspace_execute_command_async(lsp.ExecuteCommandParams(
        command="nnie.triage", arguments=[{"reference": str(ref), "sim": str(tmp_path),
                                           "prototxt": str(project / "model.prototxt")}])))
    for _ in range(200):
        if (ref / "pid").exists() and client.progress_reports:
            break
        await asyncio.sleep(0.05)
    pid = int((ref / "pid").read_text())
    token = next(iter(client.progress_reports))
    client.window_work_done_progress_cancel(lsp.WorkDoneProgressCancelParams(token=token))
    with pytest.raises(JsonRpcException):
        await asyncio.wait_for(task, 10)
    await asyncio.sleep(0.2)
    with pytest.raises(ProcessLookupError):
        for _ in range(20):
            os.kill(pid, 0)  # raises once the process is gone (reaped by the server)
            await asyncio.sleep(0.1)
    # a failing run gives an error response, bad arguments InvalidParams; the server keeps going
    broken = dump_folder(tmp_path / "broken-ref")
    with pytest.raises(JsonRpcException) as exc:
        await client.workspace_execute_command_async(lsp.ExecuteCommandParams(
            command="nnie.triage", arguments=[{"reference": str(broken), "sim": str(tmp_path)}]))
    assert "no dumps found" in str(exc.value)
    with pytest.raises(JsonRpcException):
        await client.workspace_execute_command_async(lsp.ExecuteCommandParams(
            command="nnie.triage", arguments=[{"sim": str(tmp_path)}]))


async def test_triage_with_the_real_cli(client, tmp_path):
    """The command runs `python -m nnie_lsp.cli.triage compare … --format json` on the MTCNN demo."""
    import shutil

    from .conftest import REPO
    src = REPO / "examples" / "triage"
    dest = tmp_path / "triage"
    shutil.copytree(src / "quant_noise", dest / "quant_noise")
    shutil.copytree(src / "model", dest / "model")
    await start_session(client, client.preset)
    proto = dest / "model" / "det1.prototxt"
    uri = client.open(proto, "prototxt")
    result = await asyncio.wait_for(client.workspace_execute_command_async(lsp.ExecuteCommandParams(
        command="nnie.triage", arguments=[{"reference": str(dest / "quant_noise" / "output"),
                                           "sim": str(dest / "quant_noise" / "mapper_quant"),
                                           "cfg": str(dest / "quant_noise" / "sim.cfg"), "prototxt": str(proto)}])), 60)
    assert result["case"] == 2 and result["layers"]
    low = {r["name"] for r in result["layers"] if r.get("status") in ("low", "poor", "bad")}
    items = await client.diagnostics_for(uri, predicate=lambda ds: any(d.source == "nnie-triage" for d in ds))
    similarity = [d for d in items if d.source == "nnie-triage" and d.code == SIMILARITY_CODE]
    flagged = {d.data["layer"] for d in similarity}
    assert flagged and flagged <= low and "conv4-2" in flagged
    assert all(d.code_description.href.rsplit("/", 1)[-1].startswith("rules.md#L") for d in similarity)
    text = client.texts[uri]
    hints = await client.text_document_inlay_hint_async(lsp.InlayHintParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri),
        range=lsp.Range(start=lsp.Position(line=0, character=0), end=lsp.Position(line=len(text.split("\n")), character=0))))
    conv1 = next(r for r in result["layers"] if r["name"] == "conv1")
    assert f"cos {conv1['cosine']:.4f}" in {h.label for h in hints}
