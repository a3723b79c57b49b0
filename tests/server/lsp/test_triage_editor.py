"""Triage results in the editor, end to end over stdio with the real `nnie-triage` (issue 9):
the cfg alone finds its inputs, findings become quick fixes on the cfg and the prototxt, the `_hp`
plan is one edit across both files, results persist across a server restart and go stale when a
file changes, the code lens opens the report, and the results can be cleared."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import pytest
from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException
from pygls.uris import from_fs_path

from nnie_lsp.server.triage.annotations import SIMILARITY_CODE

from .conftest import CONFIG, REPO, EditorClient, edit_changes, find_line, start_session

pytestmark = pytest.mark.asyncio

EXAMPLES = REPO / "examples" / "triage"
RUN_TIMEOUT = 120


@pytest.fixture
def triage_copy(tmp_path: Path) -> Path:
    """examples/triage as a user has it: the model, and the project folders."""
    dest = tmp_path / "triage"
    for name in ("model", "channel_swap", "quant_noise", "quant_outlier"):
        shutil.copytree(EXAMPLES / name, dest / name)
    shutil.copy(EXAMPLES / "test1.jpg", dest / "test1.jpg")   # the image the cfgs' image lists name
    return dest


async def execute(client: EditorClient, command: str, argument, timeout: float = RUN_TIMEOUT):
    return await asyncio.wait_for(client.workspace_execute_command_async(lsp.ExecuteCommandParams(
        command=command, arguments=[argument])), timeout)


def triage_items(items, code: str | None = None):
    return [d for d in items if d.source == "nnie-triage" and (code is None or d.code == code)]


async def actions(client: EditorClient, uri: str, diagnostics, only) -> list[lsp.CodeAction]:
    rng = diagnostics[0].range if diagnostics else lsp.Range(start=lsp.Position(line=0, character=0),
                                                             end=lsp.Position(line=0, character=0))
    return list(await client.text_document_code_action_async(lsp.CodeActionParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), range=rng,
        context=lsp.CodeActionContext(diagnostics=list(diagnostics), only=only))) or [])


async def lenses(client: EditorClient, uri: str) -> list[lsp.CodeLens]:
    return list(await client.text_document_code_lens_async(lsp.CodeLensParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri))) or [])


async def triage_case1(client: EditorClient, triage_copy: Path):
    """channel_swap's cfg and the prototxt open, its triage run: (cfg, proto, cfg_uri, proto_uri, result)."""
    project = triage_copy / "channel_swap"
    cfg, proto = project / "sim.cfg", triage_copy / "model" / "det1.prototxt"
    await start_session(client, client.preset, root=triage_copy)
    cfg_uri = client.open(cfg, "nnie-cfg")
    proto_uri = client.open(proto, "prototxt")
    return cfg, proto, cfg_uri, proto_uri, await execute(client, "nnie.triage", {"cfg": str(cfg)})


async def test_case1_from_the_cfg_alone_rgb_fix_and_report_lens(client, triage_copy):
    project = triage_copy / "channel_swap"
    cfg, proto, cfg_uri, proto_uri, result = await triage_case1(client, triage_copy)
    editor = result["editor"]
    assert result["case"] == 1 and result["first_divergence"] == "data"
    assert editor["summary"].startswith("Case 1:") and "first divergence: data" in editor["summary"]
    assert editor["inputs"]["reference"] == {"path": str(project / "output"), "origin": "discovered",
                                             "rule": editor["inputs"]["reference"]["rule"]}
    assert "output/" in editor["inputs"]["reference"]["rule"]
    assert editor["inputs"]["sim"]["path"] == str(project / "mapper_quant") and editor["inputs"]["sim16"] is None
    assert editor["prototxt"] == str(proto) and editor["stale"] is False
    assert Path(editor["report"]["html"]).read_text(encoding="utf-8").lstrip().lower().startswith("<!doctype html")
    assert "Verdict" in editor["text_report"] and editor["fixes"]["applicable"] == 1
    assert not list((project / ".nnie-triage").glob(".tmp-*")), "the HTML report is moved into place"
    # T102 on the cfg line, with its fix; T101 on the prototxt's data input
    items = await client.diagnostics_for(cfg_uri, predicate=lambda ds: bool(triage_items(ds, "T102")))
    t102 = triage_items(items, "T102")[0]
    rgb_line = find_line(client.texts[cfg_uri], "[RGB_order]")
    assert t102.range.start.line == rgb_line and t102.data["fix"]["applicability"] == "unsafe"
    assert t102.code_description.href.split("#")[1].startswith("L")
    proto_items = await client.diagnostics_for(proto_uri, predicate=lambda ds: bool(triage_items(ds, "T101")))
    assert triage_items(proto_items, "T101")[0].data["layer"] == "data"
    fixes = await actions(client, cfg_uri, [t102], [lsp.CodeActionKind.QuickFix])
    assert [a.title for a in fixes] == ["Set [RGB_order] RGB for input 0 (T102) (unsafe: review the change)"]
    assert client.apply_workspace_edit(fixes[0].edit)
    assert client.texts[cfg_uri].split("\n")[rgb_line] == "[RGB_order] RGB"
    # the only change is the result's own fix: T102 says it is fixed (no fix offered any more), the
    # others and the lens say the result is out of date because of it -- not "the cfg changed"
    stale = await client.diagnostics_for(proto_uri, predicate=lambda ds: any(
        "stale" in d.message for d in triage_items(ds, "T101")))
    assert "1 of its fixes applied since the run" in triage_items(stale, "T101")[0].message
    fixed = await client.diagnostics_for(cfg_uri, predicate=lambda ds: any(
        "fixed since the run" in d.message for d in triage_items(ds, "T102")))
    t102_now = triage_items(fixed, "T102")[0]
    assert "fix" not in (t102_now.data or {}) and "stale" not in t102_now.message
    assert await actions(client, cfg_uri, [t102_now], [lsp.CodeActionKind.QuickFix]) == []
    info = (await execute(client, "nnie.triageResult", {"cfg": str(cfg)}))["editor"]
    assert info["fixed"] == 1 and info["stale_reasons"] == ["1 of its fixes applied since the run"]
    top = await lenses(client, proto_uri)
    assert top[0].command.title.startswith("[stale] NNIE triage: Case 1")
    # one more edit of the cfg that is not a fix of the result: plainly stale again
    client.change(cfg_uri, client.texts[cfg_uri].rstrip("\n") + "\n[log_level] 0\n")
    again = await client.diagnostics_for(proto_uri, predicate=lambda ds: any(
        "the cfg changed after the run" in d.message for d in triage_items(ds, "T101")))
    assert triage_items(again, "T101")
    still_fixed = await client.diagnostics_for(cfg_uri, predicate=lambda ds: any(
        "fixed since the run" in d.message for d in triage_items(ds, "T102")))
    assert triage_items(still_fixed, "T102")  # its fix is still in the text
    assert [lens.command.command for lens in top] == ["nnie.openTriageReport", "nnie.triage"]
    shown = await execute(client, top[0].command.command, top[0].command.arguments[0])
    assert shown["shown"] is True
    assert client.shown_documents[-1].uri == from_fs_path(editor["report"]["html"])
    assert client.shown_documents[-1].external is True


async def test_case2_hp_plan_is_one_edit_and_apply_all(client, triage_copy):
    # quant_outlier: a quantization fault the emulation reproduces, so T207 is hp-plan's plan (quant_noise's
    # run is one hp-plan refuses to plan on); its own det1.prototxt takes the renames
    project = triage_copy / "quant_outlier"
    cfg, proto = project / "sim.cfg", project / "det1.prototxt"
    await start_session(client, client.preset, root=triage_copy)
    cfg_uri = client.open(cfg, "nnie-cfg")
    proto_uri = client.open(proto, "prototxt")
    result = await execute(client, "nnie.triage", {"cfg": str(cfg)})
    assert result["case"] == 2 and result["hp_plan"]["layers"] == ["conv1", "conv2", "pool1"]
    items = await client.diagnostics_for(cfg_uri, predicate=lambda ds: bool(triage_items(ds, "T207")))
    t207 = triage_items(items, "T207")[0]
    assert t207.range.start.line == find_line(client.texts[cfg_uri], "[compile_mode]")
    plan = await actions(client, cfg_uri, [t207], [lsp.CodeActionKind.QuickFix])
    assert len(plan) == 1 and set(edit_changes(plan[0].edit)) == {cfg_uri, proto_uri}
    # the prototxt's candidates: one quick fix each; none of them in "apply all"
    proto_items = await client.diagnostics_for(proto_uri, predicate=lambda ds: len(triage_items(ds, "T204")) == 4)
    conv2 = next(d for d in triage_items(proto_items, "T204") if d.data["layer"] == "conv2")
    single = await actions(client, proto_uri, [conv2], [lsp.CodeActionKind.QuickFix])
    assert [a.title for a in single] == ['Rename "conv2" to "conv2_hp" (T204) (unsafe: review the change)']
    # the source action: every fix, across both files, and never under source.fixAll
    assert not [a for a in await actions(client, cfg_uri, [], [lsp.CodeActionKind.SourceFixAll])
                if a.kind == "source.nnieTriage.applyAll"]
    apply_all = await actions(client, proto_uri, [], ["source.nnieTriage.applyAll"])
    assert [a.title for a in apply_all] == ["Apply all triage fixes (1)"]
    assert set(edit_changes(apply_all[0].edit)) == {cfg_uri, proto_uri}
    # the cfg's lens offers the same, through workspace/applyEdit (the notification's button too)
    top = await lenses(client, cfg_uri)
    assert top[0].command.title.startswith("NNIE triage: Case 2") and "next: step 3" in top[0].command.title
    assert top[1].command.title == "Apply triage fixes (1)" and top[1].command.command == "nnie.applyTriageFixes"
    applied = await execute(client, top[1].command.command, top[1].command.arguments[0])
    assert applied == {"applied": True, "fixes": 1, "skipped": [], "failure": None}
    text = client.texts[proto_uri]
    assert {'name: "conv1_hp"', 'name: "conv2_hp"', 'name: "pool1_hp"'} <= {line.strip() for line in text.split("\n")}
    assert '"conv4-2_hp"' not in text and 'top: "conv1"' in text
    assert "[compile_mode] 2" in client.texts[cfg_uri].split("\n")
    # both files changed, by the plan itself: T207 is fixed, the rest out of date because of it,
    # and no "apply all" any more
    fixed = await client.diagnostics_for(cfg_uri, predicate=lambda ds: any(
        "fixed since the run" in d.message for d in triage_items(ds, "T207")))
    assert "stale" not in triage_items(fixed, "T207")[0].message
    info = (await execute(client, "nnie.triageResult", {"prototxt": str(proto)}))["editor"]
    # the plan (T207) and the three candidates it renamed: their fixes are all in the texts (4
    # findings fixed), but the user applied one fix -- the count agrees with "Apply triage fixes (1)"
    assert info["fixed"] == 4 and info["stale_reasons"] == ["1 of its fixes applied since the run"]
    others = await client.diagnostics_for(proto_uri, predicate=lambda ds: any(
        "1 of its fixes applied since the run" in d.message for d in triage_items(ds)))
    fixed_layers = {d.data["layer"] for d in triage_items(others, "T204") if "fixed since the run" in d.message}
    assert fixed_layers == {"conv1", "conv2", "pool1"}
    assert await actions(client, proto_uri, [], ["source.nnieTriage.applyAll"]) == []
    again = await execute(client, "nnie.applyTriageFixes", {"prototxt": str(proto)})
    assert again["applied"] is False and "stale" in again["skipped"][0]


async def test_results_persist_across_a_restart_and_go_stale(client, triage_copy):
    cfg, proto = triage_copy / "channel_swap" / "sim.cfg", triage_copy / "model" / "det1.prototxt"
    await start_session(client, client.preset, root=triage_copy)
    first = await execute(client, "nnie.triage", {"cfg": str(cfg)})
    stored = Path(first["editor"]["report"]["json"])
    assert stored == triage_copy / "channel_swap" / ".nnie-triage" / "sim.json"
    record = json.loads(stored.read_text(encoding="utf-8"))
    assert record["result"]["case"] == 1 and record["cfg"] == "sim.cfg" and record["prototxt"] == "../model/det1.prototxt"
    # a new server on the same folder: the results are back before anything runs
    second = await CONFIG.start()
    try:
        second.preset = client.preset
        await start_session(second, client.preset, root=triage_copy)
        proto_uri = second.open(proto, "prototxt")
        items = await second.diagnostics_for(proto_uri, predicate=lambda ds: bool(triage_items(ds, "T101")))
        assert "stale" not in triage_items(items, "T101")[0].message
        assert {"conv1", "conv2"} <= {d.data["layer"] for d in triage_items(items, SIMILARITY_CODE)}
        top = await lenses(second, proto_uri)
        assert top[0].command.title.startswith("NNIE triage: Case 1") and "next: step 2" in top[0].command.title
        again = await execute(second, "nnie.triageResult", {"cfg": str(cfg)})
        assert again["verdict"] == first["verdict"] and again["editor"]["stale"] is False
        # an edit of the prototxt (unsaved) makes the result stale: messages and lens say so
        text = second.texts[proto_uri]
        second.change(proto_uri, "# a comment above\n" + text)
        items = await second.diagnostics_for(proto_uri, predicate=lambda ds: any(
            "stale" in d.message for d in triage_items(ds, "T101")))
        t101 = triage_items(items, "T101")[0]
        assert "the prototxt changed after the run" in t101.message
        assert t101.range.start.line == find_line(text, 'input: "data"') + 1    # carried over to the new text
        top = await lenses(second, proto_uri)
        assert top[0].command.title.startswith("[stale] ") and top[-1].command.command == "nnie.triage"
        assert (await execute(second, "nnie.triageResult", {"prototxt": str(proto)}))["editor"]["stale_reasons"] == [
            "the prototxt changed after the run"]
        # cleared: files gone, diagnostics and lenses gone
        cleared = await execute(second, "nnie.clearTriageResults", {"cfg": str(cfg)})
        assert cleared["cleared"] == [str(stored)] and not stored.exists()
        await second.diagnostics_for(proto_uri, predicate=lambda ds: not triage_items(ds))
        assert await lenses(second, proto_uri) == []
        assert await execute(second, "nnie.triageResult", {"cfg": str(cfg)}) is None
    finally:
        await second.shutdown_session()


async def test_discovery_errors_and_job_commands(client, triage_copy):
    await start_session(client, client.preset, root=triage_copy)
    project = triage_copy / "quant_noise"
    found = await execute(client, "nnie.discoverTriageInputs", {"cfg": str(project / "sim.cfg")})
    assert found["reference"]["path"] == str(project / "output") and found["dot"] is None
    assert found["prototxt"] == str(triage_copy / "model" / "det1.prototxt")
    lonely = triage_copy / "lonely"
    lonely.mkdir()
    shutil.copy(project / "sim.cfg", lonely / "sim.cfg")
    with pytest.raises(JsonRpcException) as error:
        await execute(client, "nnie.triage", {"cfg": str(lonely / "sim.cfg")})
    assert "looked for output/" in str(error.value)
    with pytest.raises(JsonRpcException) as error:
        await execute(client, "nnie.triage", {"cfg": str(project / "sim.cfg"), "sim_16bit": "x"})
    assert "unknown key(s) sim_16bit" in str(error.value)
    with pytest.raises(JsonRpcException) as error:
        await execute(client, "nnie.triage", {"cfg": str(project / "nope.cfg")})
    assert f"cfg: {project / 'nope.cfg'} does not exist" in str(error.value)
    # emulate writes beside the cfg, refuses to write over files, reference the same
    done = await execute(client, "nnie.emulate", {"cfg": str(project / "sim.cfg")})
    assert done["out"] == str(project / "mapper_quant_emulated") and done["files"] >= 8
    assert "simulated 8-bit" in done["message"]
    reports = [p for ps in client.progress_reports.values() for p in ps]
    assert reports and reports[0].kind == "begin" and reports[-1].kind == "end"
    with pytest.raises(JsonRpcException) as error:
        await execute(client, "nnie.emulate", {"cfg": str(project / "sim.cfg")})
    assert "already holds" in str(error.value) and "overwrite" in str(error.value)
    with pytest.raises(JsonRpcException) as error:
        await execute(client, "nnie.reference", {"cfg": str(project / "sim.cfg")})
    assert "output" in str(error.value) and "already holds" in str(error.value)
    fresh = await execute(client, "nnie.reference", {"cfg": str(project / "sim.cfg"), "out": str(triage_copy / "caffe2")})
    assert fresh["files"] >= 8 and "Caffe dumps" in fresh["message"]


@pytest.fixture
def missing_mean(tmp_path: Path) -> Path:
    """A case-1 project whose fix writes a new channel-mean file (norm_type 3: the mean is not
    subtracted), laid out as the tools leave it."""
    from nnie_lsp.testing.scenarios import scenarios, write_scenario

    project = tmp_path / "missing_mean"
    model = tmp_path / "model"
    shutil.copytree(EXAMPLES / "model", model)
    paths = write_scenario(scenarios()["missing_mean"], project, model, EXAMPLES / "test1.jpg")
    paths["caffe"].rename(project / "output")
    paths["nnie"].rename(project / "mapper_quant")
    cfg = project / "sim.cfg"
    cfg.write_text(cfg.read_text().replace("./det1.", "../model/det1."))
    return cfg


async def test_a_fix_that_creates_the_mean_file(client, missing_mean):
    cfg = missing_mean
    mean_file = cfg.parent / "channel_mean.txt"
    await start_session(client, client.preset, root=cfg.parent)
    cfg_uri = client.open(cfg, "nnie-cfg")
    result = await execute(client, "nnie.triage", {"cfg": str(cfg)})
    assert result["case"] == 1
    items = await client.diagnostics_for(cfg_uri, predicate=lambda ds: bool(triage_items(ds, "T104")))
    t104 = triage_items(items, "T104")[0]
    assert t104.data["fix"]["creates"] == [from_fs_path(str(mean_file))]
    fixes = await actions(client, cfg_uri, [t104], [lsp.CodeActionKind.QuickFix])
    if client.preset == "visual-studio-code":   # announces documentChanges with create
        assert len(fixes) == 1
        operations = fixes[0].edit.document_changes
        assert isinstance(operations[0], lsp.CreateFile) and operations[0].uri == from_fs_path(str(mean_file))
        assert operations[0].options.overwrite is False
        assert client.apply_workspace_edit(fixes[0].edit)
        assert [float(v) for v in mean_file.read_text().split()] == [127.5, 127.5, 127.5]
        lines = client.texts[cfg_uri].split("\n")
        assert "[norm_type] 5" in lines and "[mean_file] ./channel_mean.txt" in lines
        # the lines it edited changed: the finding is stale and carries no fix any more
        fresh = await client.diagnostics_for(cfg_uri, predicate=lambda ds: any(
            "stale" in d.message for d in triage_items(ds, "T104")))
        assert "fix" not in triage_items(fresh, "T104")[0].data
    else:   # the Neovim preset does not: no action, and "apply all" says why
        assert fixes == []
        applied = await execute(client, "nnie.applyTriageFixes", {"cfg": str(cfg)})
        assert applied["applied"] is False and "cannot create files" in applied["skipped"][0]
        assert not mean_file.exists()
