"""No dead ends, and expected outcomes said once (issue 17, points 2 and 4), end to end over stdio:

- only buttons that can work: ``nnie.checkFolder`` tells an output folder of dumps nnie-triage did
  not write (never overwritten: the job is refused before it runs, whatever ``overwrite`` says)
  from one of its own earlier runs (overwrite possible);
- missing inputs say what was looked for and where (``tried``); a chosen folder without dumps is
  refused with the reason before anything runs; a failed or refused run leaves no empty folder;
- several cfgs naming a prototxt: none is picked silently;
- the prototxt named by the cfg is missing: discovery says so, the result warns;
- expected outcomes (a refused folder, the tool's failure, Cancel, a missing optional package) are
  one log line and no traceback, one notification (none from the server for a client that shows
  outcomes itself), and no "Cancel notification for unknown message id" warnings;
- a missing optional package (OpenCV) is a clear message with a remedy, never an internal error.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException, JsonRpcRequestCancelled
from pytest_lsp import ClientServerConfig

from .conftest import REPO, SERVER, EditorClient, dump_folder, make_client, start_session
from .test_triage_editor import execute, triage_copy  # noqa: F401  (triage_copy: a fixture)

FAKE = Path(__file__).with_name("fake_triage.py")
SHOWS_OUTCOMES = {"nnie": {"commandOutcomes": True}}    # what the VS Code client announces

# A Python path entry whose sitecustomize makes `import cv2` fail as it does where OpenCV is not
# installed (the server and the nnie-triage it starts both see it).
NO_CV2 = Path(tempfile.mkdtemp(prefix="nnie-no-cv2-"))
(NO_CV2 / "sitecustomize.py").write_text(
    "import sys\n"
    "class _NoCv2:\n"
    "    def find_spec(self, name, path=None, target=None):\n"
    "        if name == 'cv2' or name.startswith('cv2.'):\n"
    "            raise ModuleNotFoundError(f\"No module named {name!r}\", name=name)\n"
    "        return None\n"
    "sys.meta_path.insert(0, _NoCv2())\n", encoding="utf-8")


def _env(**extra: str) -> dict:
    return {**os.environ, "PYTHONUNBUFFERED": "1", **extra}


FAKE_CONFIG = ClientServerConfig(server_command=SERVER, client_factory=make_client,
                                 server_env=_env(NNIE_LSP_TRIAGE_CMD=f"{sys.executable} {FAKE}"))
NO_CV2_CONFIG = ClientServerConfig(server_command=SERVER, client_factory=make_client, server_env=_env(
    PYTHONPATH=os.pathsep.join([str(NO_CV2), str(REPO)] + ([os.environ["PYTHONPATH"]] if os.environ.get("PYTHONPATH") else []))))


@pytest_lsp.fixture(params=["visual-studio-code", "neovim"], config=FAKE_CONFIG)
async def fake(request, lsp_client: EditorClient):
    lsp_client.preset = request.param
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(params=["visual-studio-code"], config=NO_CV2_CONFIG)
async def no_cv2(request, lsp_client: EditorClient):
    lsp_client.preset = request.param
    yield
    await lsp_client.shutdown_session()


async def _start(client: EditorClient, root: Path | None = None):
    """The VS Code preset announces what the VS Code client does (it shows command outcomes itself)."""
    vscode = client.preset == "visual-studio-code"
    return await start_session(client, client.preset, root=root, experimental=SHOWS_OUTCOMES if vscode else None)


def outcome_lines(client: EditorClient, command: str) -> list[str]:
    return [m.message for m in client.log_messages if m.message.startswith(f"{command}: ")]


async def _settle() -> None:
    await asyncio.sleep(0.3)     # the server's last notifications and stderr arrive


def assert_no_traceback(capfd) -> None:
    err = capfd.readouterr().err
    for text in ("Traceback", "Cancel notification for unknown message id", "Exception occurred for message",
                 "Failed to handle request"):
        assert text not in err, err[-3000:]


# ------------------------------------------------------------------ output folders: only buttons that work

async def test_overwrite_is_possible_only_for_dumps_nnie_triage_wrote(client, triage_copy, capfd):
    await _start(client, triage_copy)
    project = triage_copy / "quant_noise"
    cfg = str(project / "sim.cfg")
    ruyi = await execute(client, "nnie.checkFolder", {"folder": str(project / "output")})
    assert ruyi["holds_dumps"] is True and ruyi["foreign_dumps"] == 8 and ruyi["can_overwrite"] is False
    assert ruyi["written_by_nnie_triage"] == 0 and len(ruyi["foreign_examples"]) == 3
    # the job is refused before it runs, even with overwrite (the tool would refuse it), and the
    # message names no command-line flag
    for command, argument in (("nnie.reference", {"cfg": cfg, "overwrite": True}),
                              ("nnie.emulate", {"cfg": cfg, "out": str(project / "output"), "overwrite": True})):
        with pytest.raises(JsonRpcException) as error:
            await execute(client, command, argument)
        message = str(error.value)
        assert "8 dump file(s) nnie-triage did not write" in message and "never overwritten" in message
        assert "--output" not in message and "overwrite: true" not in message
    assert not client.progress_reports, "nothing ran"
    assert len(outcome_lines(client, "nnie.reference")) == 1 and len(outcome_lines(client, "nnie.emulate")) == 1
    # an emulation nnie-triage wrote: overwrite is possible, and asked for
    done = await execute(client, "nnie.emulate", {"cfg": cfg})
    ours = await execute(client, "nnie.checkFolder", {"folder": done["out"]})
    assert ours["written_by_nnie_triage"] >= 8 and ours["foreign_dumps"] == 0 and ours["can_overwrite"] is True
    with pytest.raises(JsonRpcException) as error:
        await execute(client, "nnie.emulate", {"cfg": cfg})
    assert "of an earlier nnie-triage run" in str(error.value) and "overwrite: true" in str(error.value)
    again = await execute(client, "nnie.emulate", {"cfg": cfg, "overwrite": True})
    assert again["files"] == done["files"]
    fresh = await execute(client, "nnie.checkFolder", {"folder": str(triage_copy / "nowhere")})
    assert fresh["exists"] is False and fresh["empty"] is True and fresh["why_not_dumps"] == "does not exist"
    await _settle()
    assert_no_traceback(capfd)
    assert client.messages == [] if client.preset == "visual-studio-code" else True


# ------------------------------------------------------------------ inputs: say what was looked for, refuse what cannot work

async def test_missing_inputs_say_what_was_looked_for_and_where(client, triage_copy):
    await _start(client, triage_copy)
    lonely = triage_copy / "lonely"
    (lonely / "output").mkdir(parents=True)
    (lonely / "mapper_quant").mkdir()
    (lonely / "mapper_quant" / "README").write_text("not a dump\n")
    shutil.copy(triage_copy / "quant_noise" / "sim.cfg", lonely / "sim.cfg")
    found = await execute(client, "nnie.discoverTriageInputs", {"cfg": str(lonely / "sim.cfg")})
    assert found["reference"] is None and found["sim"] is None
    assert found["tried"]["reference"] == [{"path": str(lonely / "output"), "why": "is empty"}]
    assert found["tried"]["sim"] == [{"path": str(lonely / "mapper_quant"), "why": "holds no dump files (1 other file)"},
                                     {"path": str(lonely / "mapper_quant_emulated"), "why": "does not exist"}]
    with pytest.raises(JsonRpcException) as error:
        await execute(client, "nnie.triage", {"cfg": str(lonely / "sim.cfg")})
    assert f"looked for output/ (RuyiStudio's Caffe output) in {lonely} (output/ is empty)" in str(error.value)
    assert not (lonely / ".nnie-triage").exists() and not client.progress_reports
    assert len(outcome_lines(client, "nnie.triage")) == 1


async def test_a_folder_without_dumps_is_refused_before_anything_runs(client, triage_copy):
    await _start(client, triage_copy)
    project = triage_copy / "quant_noise"
    empty = triage_copy / "chosen"
    empty.mkdir()
    with pytest.raises(JsonRpcException) as error:
        await execute(client, "nnie.triage", {"cfg": str(project / "sim.cfg"), "reference": str(empty),
                                              "sim": str(project / "mapper_quant")})
    assert str(error.value) == (f"{empty} is empty: it cannot be the folder of the Caffe dumps — choose the folder "
                                "that holds the dump files")
    state = await execute(client, "nnie.checkFolder", {"folder": str(empty)})
    assert state["holds_dumps"] is False and state["why_not_dumps"] == "is empty"
    assert not client.progress_reports and not (project / ".nnie-triage").exists()


async def test_a_failed_run_leaves_no_folder_and_says_it_once(fake, project, tmp_path, capfd):
    client = fake
    await _start(client)
    cfg = project / "tiny_face_inst.cfg"
    with pytest.raises(JsonRpcException) as error:
        await execute(client, "nnie.triage", {"cfg": str(cfg), "reference": str(dump_folder(tmp_path / "broken-ref")),
                                              "sim": str(dump_folder(tmp_path / "sim"))}, timeout=30)
    assert "no dumps found" in str(error.value)
    assert not (project / ".nnie-triage").exists(), "no empty .nnie-triage/ after a failure"
    await _settle()
    lines = outcome_lines(client, "nnie.triage")
    assert len(lines) == 1 and "nnie-triage failed (exit 2)" in lines[0] and "\n" not in lines[0]
    assert not any(m.message.startswith("request ended") for m in client.log_messages)
    # one notification: the error response for a client that shows outcomes, else one message
    errors = [m for m in client.messages if m.type == lsp.MessageType.Error]
    assert len(errors) == (0 if client.preset == "visual-studio-code" else 1)
    assert_no_traceback(capfd)


async def test_cancel_is_one_line_and_no_warning(fake, project, tmp_path, capfd):
    client = fake
    await _start(client)
    reference = dump_folder(tmp_path / "slow-ref")
    task = asyncio.ensure_future(execute(client, "nnie.triage", {
        "reference": str(reference), "sim": str(dump_folder(tmp_path / "sim")), "cfg": str(project / "tiny_face_inst.cfg")}))
    for _ in range(200):
        if (reference / "pid").exists() and client.progress_reports:
            break
        await asyncio.sleep(0.05)
    token = next(iter(client.progress_reports))
    client.window_work_done_progress_cancel(lsp.WorkDoneProgressCancelParams(token=token))
    with pytest.raises(JsonRpcRequestCancelled):
        await asyncio.wait_for(task, 10)
    # a $/cancelRequest for a request that answered long ago (editors send these all the time)
    hover = await client.text_document_hover_async(lsp.HoverParams(
        text_document=lsp.TextDocumentIdentifier(uri=client.open(project / "model.prototxt", "prototxt")),
        position=lsp.Position(line=0, character=0)))
    assert hover is None or hover.contents
    client.protocol.notify("$/cancelRequest", lsp.CancelParams(id=12345))
    await _settle()
    lines = outcome_lines(client, "nnie.triage")
    assert lines == ["nnie.triage: NNIE triage cancelled"]
    assert not client.messages
    assert not (project / ".nnie-triage").exists()
    assert_no_traceback(capfd)


# ------------------------------------------------------------------ which cfg, and the cfg's prototxt

async def test_several_cfgs_naming_a_prototxt_are_never_picked_silently(client, project):
    await _start(client, project)
    for name in ("b_inst.cfg", "c_inst.cfg"):
        shutil.copy(project / "tiny_face_inst.cfg", project / name)
    proto = project / "model.prototxt"
    found = await execute(client, "nnie.discoverTriageInputs", {"prototxt": str(proto)})
    assert found["cfg"] is None and found["cfgs"] == [str(project / n) for n in ("b_inst.cfg", "c_inst.cfg",
                                                                                  "tiny_face_inst.cfg")]
    with pytest.raises(JsonRpcException) as error:
        await execute(client, "nnie.triage", {"prototxt": str(proto)})
    assert "several cfgs name model.prototxt (b_inst.cfg, c_inst.cfg, tiny_face_inst.cfg): give the cfg" in str(error.value)
    one = await execute(client, "nnie.discoverTriageInputs", {"cfg": str(project / "c_inst.cfg")})
    assert one["cfg"] == str(project / "c_inst.cfg") and one["cfgs"] == [one["cfg"]]
    alone = project / "other.prototxt"
    shutil.copy(proto, alone)
    nobody = await execute(client, "nnie.discoverTriageInputs", {"prototxt": str(alone)})
    assert nobody["cfg"] is None and nobody["cfgs"] == []


async def test_a_missing_prototxt_is_said_before_and_after_the_run(fake, project, tmp_path):
    client = fake
    await _start(client)
    cfg = project / "tiny_face_inst.cfg"
    cfg.write_text(cfg.read_text().replace("./model.prototxt", "./modle.prototxt"))
    found = await execute(client, "nnie.discoverTriageInputs", {"cfg": str(cfg)})
    assert found["prototxt"] is None and found["prototxt_named"] == "./modle.prototxt"
    assert str(project / "modle.prototxt") in found["prototxt_tried"]
    result = await execute(client, "nnie.triage", {"cfg": str(cfg), "reference": str(dump_folder(tmp_path / "ref")),
                                                   "sim": str(dump_folder(tmp_path / "sim"))}, timeout=30)
    [warning] = result["editor"]["warnings"]
    assert warning.startswith("tiny_face_inst.cfg names the prototxt ./modle.prototxt, which does not exist")
    assert "the layers cannot be matched to the net" in warning
    assert any(m.message == warning for m in client.log_messages)


# ------------------------------------------------------------------ a missing optional package

async def test_a_missing_opencv_is_a_clear_message_with_a_remedy(no_cv2, triage_copy, capfd):
    client = no_cv2
    await _start(client, triage_copy)
    cfg = triage_copy / "quant_noise" / "sim.cfg"
    out = triage_copy / "quant_noise" / "caffe_new"
    with pytest.raises(JsonRpcException) as error:
        await execute(client, "nnie.reference", {"cfg": str(cfg), "out": str(out)})
    message = str(error.value)
    assert "NNIE reference (Caffe forward) needs OpenCV (the Python module cv2)" in message
    assert "internal error" not in message and "please report" not in message
    missing = error.value.data["missingPackage"]
    assert missing["module"] == "cv2" and missing["extra"] == "reference"
    assert missing["requirement"] == "opencv-python-headless>=4.8,<5" and missing["python"] == sys.executable
    assert missing["command"] == f'{sys.executable} -m pip install "opencv-python-headless>=4.8,<5"'   # this venv has pip
    assert missing["command"] in message
    assert not out.exists(), "no empty output folder after the failure"
    await _settle()
    assert len(outcome_lines(client, "nnie.reference")) == 1 and not client.messages
    assert_no_traceback(capfd)


def test_the_cli_says_the_same_without_opencv(tmp_path):
    cfg = REPO / "examples" / "triage" / "quant_noise" / "sim.cfg"
    env = _env(PYTHONPATH=os.pathsep.join([str(NO_CV2), str(REPO)]))
    done = subprocess.run([sys.executable, "-m", "nnie_lsp.cli.triage", "reference", "--cfg", str(cfg),
                           "-o", str(tmp_path / "out")], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 2
    assert "nnie-triage reference: error: this command needs OpenCV (the Python module cv2)" in done.stderr
    assert "internal error" not in done.stderr and "Traceback" not in done.stderr
    assert "pip install" in done.stderr
