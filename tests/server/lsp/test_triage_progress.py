"""Triage progress in the editor: `nnie-triage … --progress json` lines become `$/progress` reports
with a real percentage and the stage (nnie_lsp/server/triage/jobs.py), rate-limited; Cancel kills
the process; the tool's other stderr lines stay its messages.

The end-to-end tests run the server over stdio with tests/server/lsp/fake_triage.py as nnie-triage (it
writes progress lines as the CLI does) and a client that creates the work-done token; the last one
runs the real CLI once it has `--progress`."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException, JsonRpcRequestCancelled
from pytest_lsp import ClientServerConfig

from nnie_lsp.server.triage import jobs
from nnie_lsp.server.triage.jobs import ProgressRelay, Step, StderrLines, parse_step

from .conftest import REPO, SERVER, EditorClient, dump_folder, make_client, start_session

FAKE = Path(__file__).with_name("fake_triage.py")
STAGE_MESSAGE = re.compile(r"^(?P<stage>\S.*?)(?: (?P<done>\d+)/(?P<total>\d+))?$")   # "align 12/40", "report"


def _config(*extra: str) -> ClientServerConfig:
    command = " ".join([sys.executable, str(FAKE), *extra])
    return ClientServerConfig(server_command=SERVER, client_factory=make_client,
                              server_env={**os.environ, "NNIE_LSP_TRIAGE_CMD": command, "PYTHONUNBUFFERED": "1"})


# ------------------------------------------------------------------ the parts, in process

def test_a_progress_line_is_exactly_the_json_object():
    assert parse_step('{"stage": "align", "done": 12, "total": 40, "percent": 31.5}') == Step("align", 12, 40, 31.5)
    assert parse_step('{"stage": "load", "done": 0, "total": 0, "percent": 0}\r\n').message == "load"
    assert parse_step('  {"stage": "align", "done": 12, "total": 40, "percent": 31.5}').message == "align 12/40"
    for line in ("nnie-triage compare: error: no dumps found in x", "", "{", "[1, 2]", "{}",
                 '{"stage": "", "done": 1, "total": 2, "percent": 5}',
                 '{"stage": "align", "done": -1, "total": 2, "percent": 5}',
                 '{"stage": "align", "done": true, "total": 2, "percent": 5}',
                 '{"stage": "align", "done": 1, "total": 2.5, "percent": 5}',
                 '{"stage": "align", "done": 1, "total": 2, "percent": "5"}',
                 '{"stage": "align", "done": 1, "total": 2, "percent": NaN}',
                 '{"stage": "align", "done": 1, "total": 2}'):
        assert parse_step(line) is None, line


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_the_relay_rate_limits_keeps_the_newest_step_and_never_goes_back():
    clock, sent = Clock(), []
    relay = ProgressRelay(lambda message, percentage: sent.append((percentage, message)),
                          lambda seconds: f"running… {seconds} s", clock)
    clock.now += 0.5
    relay.tick()
    assert sent == []                                       # less than a second: nothing yet
    clock.now += 0.6
    relay.tick()
    assert sent == [(None, "running… 1 s")]                 # before the first step: the seconds
    relay.step(Step("load", 1, 4, 2.0))
    assert sent[-1] == (2, "load 1/4")                      # the first step at once
    relay.step(Step("load", 2, 4, 4.9))
    relay.step(Step("load", 3, 4, 6.0))
    assert len(sent) == 2                                   # held back: too soon
    clock.now += jobs.REPORT_INTERVAL_SECONDS
    relay.tick()
    assert sent[-1] == (6, "load 3/4")                      # the newest one, on the next tick
    clock.now += 5
    relay.tick()
    assert len(sent) == 3                                   # after a step: no "seconds" reports
    relay.step(Step("align", 1, 40, 3.0))                   # a tool going back: the bar does not
    assert sent[-1] == (6, "align 1/40")
    n = len(sent)
    relay.step(Step("align", 2, 40, 6.5))                   # the same stage within the interval: held back
    relay.step(Step("regenerate", 1, 2, 7.0))               # a new stage: sent at once, even within it
    assert len(sent) == n + 1 and sent[-1] == (7, "regenerate 1/2")
    relay.step(Step("align", 3, 40, 8.0))
    relay.step(Step("align", 40, 40, 250.0))
    relay.flush()
    assert sent[-1] == (100, "align 40/40")
    sent.clear()
    relay.flush()
    clock.now += 1
    relay.step(Step("align", 40, 40, 100.0))
    assert sent == []                                       # nothing visible changed: nothing sent


def test_stderr_lines_split_anywhere_and_progress_lines_are_not_messages():
    steps = []
    relay = ProgressRelay(lambda message, percentage: steps.append(message), lambda seconds: "", Clock())
    lines = StderrLines(relay)
    text = ('warning: 2 layers unmatched\r\n{"stage": "align", "done": 1, "total": 2, "percent": 50}\n'
            '{"stage": "align", "done": 2, "to\n'
            'nnie-triage compare: error: no dumps found in x')
    raw = text.encode()
    for i in range(0, len(raw), 7):
        lines.feed(raw[i:i + 7])
    lines.close()
    assert steps == ["align 1/2"]
    assert lines.text() == ('warning: 2 layers unmatched\n{"stage": "align", "done": 2, "to\n'
                            'nnie-triage compare: error: no dumps found in x')
    plain = StderrLines(None)                               # a job without progress lines
    plain.feed(b'{"stage": "align", "done": 1, "total": 2, "percent": 50}\n')
    assert plain.text() == '{"stage": "align", "done": 1, "total": 2, "percent": 50}'


def test_stderr_lines_bound_what_they_keep():
    lines = StderrLines(None)
    lines.feed(b"x" * (jobs.MAX_LINE_BYTES + 10))           # no line break at all
    lines.feed(b"\n" + b"y" * 100 + b"\n")
    for _ in range(2000):
        lines.feed(b"z" * 99 + b"\n")
    lines.feed(b"the last line")
    lines.close()
    text = lines.text()
    assert len(text) <= jobs.MESSAGE_KEEP_CHARS and text.endswith("z\nthe last line")


def test_only_nnie_triage_command_lines_get_the_progress_option(monkeypatch):
    monkeypatch.setenv("NNIE_LSP_TRIAGE_CMD", "/opt/nnie/bin/nnie-triage --quiet")
    assert jobs._triage_prefix(["/opt/nnie/bin/nnie-triage", "--quiet", "compare"]) == (
        "/opt/nnie/bin/nnie-triage", "--quiet")
    assert jobs._triage_prefix(["/opt/nnie/bin/nnie-triage", "--quiet"]) is None
    assert jobs._triage_prefix(["nnie_mapper", "sim.cfg"]) is None
    assert jobs._refused_progress(2, "usage: …\nnnie-triage: error: unrecognized arguments: --progress json")
    assert not jobs._refused_progress(2, "nnie-triage compare: error: no dumps found in x")
    assert not jobs._refused_progress(1, "unrecognized arguments: --progress json")


# ------------------------------------------------------------------ end to end, over stdio

@pytest_lsp.fixture(params=["visual-studio-code", "neovim"], config=_config())
async def fake(request, lsp_client: EditorClient):
    lsp_client.preset = request.param
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=_config("--legacy"))
async def legacy(lsp_client: EditorClient):
    lsp_client.preset = "visual-studio-code"
    yield
    await lsp_client.shutdown_session()


def _dumps(tmp_path: Path, reference: str = "ref") -> dict:
    dump_folder(tmp_path / reference)
    dump_folder(tmp_path / "sim")
    return {"reference": str(tmp_path / reference), "sim": str(tmp_path / "sim")}


def _the_job(client: EditorClient) -> list:
    """The reports of the one job run (its token was created by the client)."""
    assert len(client.progress_reports) == 1, list(client.progress_reports)
    return list(next(iter(client.progress_reports.values())))


def assert_staged_progress(values: list, stages: list[str], min_stages: int = 2) -> list[int]:
    """begin (percentage 0, cancellable) → reports whose messages name the stages (in the order of
    `stages`, when given) and whose percentages never go back → end; the percentages reported."""
    assert [v.kind for v in values[:1] + values[-1:]] == ["begin", "end"], [v.kind for v in values]
    begin, reports = values[0], values[1:-1]
    assert begin.percentage == 0 and begin.cancellable is True
    staged = [r for r in reports if r.percentage is not None]
    assert len(staged) >= 3, reports
    percentages = [r.percentage for r in staged]
    assert all(isinstance(p, int) and 0 <= p <= 100 for p in percentages)
    assert percentages == sorted(percentages) and percentages[-1] > percentages[0], percentages
    seen = []
    for report in staged:
        match = STAGE_MESSAGE.match(report.message or "")
        assert match and "{" not in report.message, report.message
        assert match["done"] is None or int(match["done"]) <= int(match["total"]), report.message
        if not seen or seen[-1] != match["stage"]:
            seen.append(match["stage"])
    assert len(seen) >= min_stages, seen
    if stages:
        assert seen == [s for s in stages if s in seen], seen
    return percentages


async def test_triage_shows_the_stage_and_a_real_percentage(fake, project, tmp_path):
    client = fake
    await start_session(client, client.preset)
    result = await asyncio.wait_for(client.workspace_execute_command_async(lsp.ExecuteCommandParams(
        command="nnie.triage", arguments=[{**_dumps(tmp_path), "cfg": str(project / "tiny_face_inst.cfg")}])), 30)
    assert result["case"] == 2
    values = _the_job(client)
    percentages = assert_staged_progress(values, ["load", "align", "measure", "diagnose"])
    assert percentages[-1] == 100                           # the last step is sent before the end
    assert values[-1].message.startswith("done: Case 2")
    # the tool's plain stderr lines are its messages, logged; the progress lines are not
    logged = "\n".join(m.message for m in client.log_messages)
    assert "nnie-triage: comparing" in logged and "5 layers compared" in logged
    assert '{"stage"' not in logged and "--progress json" in logged


async def test_many_steps_are_rate_limited(fake, project, tmp_path):
    client = fake
    await start_session(client, client.preset)
    await asyncio.wait_for(client.workspace_execute_command_async(lsp.ExecuteCommandParams(
        command="nnie.triage", arguments=[{**_dumps(tmp_path, "many-ref"), "cfg": str(project / "tiny_face_inst.cfg")}])),
        30)
    values = _the_job(client)
    reports = [v for v in values if v.kind == "report" and v.percentage is not None]
    assert reports and len(reports) < 20, len(reports)     # 5000 steps written at once
    assert reports[-1].percentage == 100 and reports[-1].message == "align 5000/5000"


async def test_cancel_during_progress_kills_the_job_quietly(fake, project, tmp_path, capfd):
    client = fake
    await start_session(client, client.preset)
    dumps = _dumps(tmp_path, "slow-ref")
    task = asyncio.ensure_future(client.workspace_execute_command_async(lsp.ExecuteCommandParams(
        command="nnie.triage", arguments=[{**dumps, "prototxt": str(project / "model.prototxt")}])))
    pid_file = Path(dumps["reference"]) / "pid"
    for _ in range(200):
        if pid_file.exists() and any(getattr(v, "percentage", None) for vs in client.progress_reports.values()
                                     for v in vs if v.kind == "report"):
            break
        await asyncio.sleep(0.05)
    pid = int(pid_file.read_text())
    token = next(iter(client.progress_reports))
    client.window_work_done_progress_cancel(lsp.WorkDoneProgressCancelParams(token=token))
    with pytest.raises(JsonRpcRequestCancelled):
        await asyncio.wait_for(task, 10)
    values = client.progress_reports[token]
    assert values[-1].kind == "end" and values[-1].message == "cancelled"
    assert [v.message for v in values if v.kind == "report" and v.percentage is not None][-1].startswith("load ")
    with pytest.raises(ProcessLookupError):
        for _ in range(30):
            os.kill(pid, 0)  # raises once the process is gone (reaped by the server)
            await asyncio.sleep(0.1)
    # the server goes on: the same triage again runs (its job slot was released)
    dump_folder(tmp_path / "ref")
    again = await asyncio.wait_for(client.workspace_execute_command_async(lsp.ExecuteCommandParams(
        command="nnie.triage", arguments=[{"reference": str(tmp_path / "ref"), "sim": dumps["sim"],
                                           "prototxt": str(project / "model.prototxt")}])), 30)
    assert again["case"] == 2
    await asyncio.sleep(0.3)   # the server's stderr reaches this process
    err = capfd.readouterr().err
    for warning in ("Cancel notification for unknown message id", "unknown token", "Task was destroyed",
                    "InvalidStateError", "never retrieved"):
        assert warning not in err


async def test_a_failure_after_progress_says_only_the_tools_error(fake, tmp_path):
    client = fake
    await start_session(client, client.preset)
    with pytest.raises(JsonRpcException) as exc:
        await asyncio.wait_for(client.workspace_execute_command_async(lsp.ExecuteCommandParams(
            command="nnie.triage", arguments=[_dumps(tmp_path, "broken-ref")])), 30)
    message = str(exc.value)
    assert "nnie-triage failed (exit 2)" in message and "no dumps found" in message
    assert "nnie-triage: comparing" in message and '"stage"' not in message
    values = _the_job(client)
    assert values[-1].kind == "end" and '"stage"' not in values[-1].message


async def test_a_tool_without_the_progress_option_still_runs(legacy, project, tmp_path):
    client = legacy
    await start_session(client, client.preset)
    for reference in ("ref", "ref2"):
        result = await asyncio.wait_for(client.workspace_execute_command_async(lsp.ExecuteCommandParams(
            command="nnie.triage", arguments=[{**_dumps(tmp_path, reference), "cfg": str(project / "tiny_face_inst.cfg")}])),
            30)
        assert result["case"] == 2
    logged = [m.message for m in client.log_messages]
    assert sum("no --progress option" in m for m in logged) == 1      # found out once, then remembered
    first, second = client.progress_reports.values()
    assert first[0].percentage == 0 and second[0].percentage is None   # the second begin knows
    reports = [v for v in [*first, *second] if v.kind == "report"]
    assert all(r.percentage is None and r.message.startswith("comparing dumps…") for r in reports)


# ------------------------------------------------------------------ the real nnie-triage

def _cli_has_progress() -> bool:
    done = subprocess.run([sys.executable, "-m", "nnie_lsp.cli.triage", "compare", "--help"], capture_output=True,
                          text=True, timeout=120, cwd=REPO)
    return "--progress" in done.stdout


async def test_the_real_cli_reports_its_stages(client, tmp_path):
    """`nnie.triage` and `nnie.emulate` on the MTCNN demo, with the CLI's own progress lines."""
    if not _cli_has_progress():
        pytest.skip("nnie-triage has no --progress option yet")
    src = REPO / "examples" / "triage"
    dest = tmp_path / "triage"
    shutil.copytree(src / "quant_noise", dest / "quant_noise")
    shutil.copytree(src / "model", dest / "model")
    shutil.copy(src / "test1.jpg", dest / "test1.jpg")
    await start_session(client, client.preset, root=dest)
    cfg = dest / "quant_noise" / "sim.cfg"
    result = await asyncio.wait_for(client.workspace_execute_command_async(lsp.ExecuteCommandParams(
        command="nnie.triage", arguments=[{"cfg": str(cfg)}])), 120)
    assert result["case"] == 2
    values = _the_job(client)
    assert_staged_progress(values, [], min_stages=1)
    assert not any("no --progress option" in m.message for m in client.log_messages)
    done = await asyncio.wait_for(client.workspace_execute_command_async(lsp.ExecuteCommandParams(
        command="nnie.emulate", arguments=[{"cfg": str(cfg), "out": str(dest / "emulated")}])), 120)
    assert done["files"] >= 8
    emulate = [vs for vs in client.progress_reports.values() if vs[0].title.startswith("NNIE emulation")]
    assert emulate and emulate[0][-1].kind == "end"
    assert any(v.kind == "report" and v.percentage is not None for v in emulate[0]), emulate[0]
    print(json.dumps([[v.kind, getattr(v, "percentage", None), v.message] for v in values]))
