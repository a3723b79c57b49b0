"""``nnie.reference`` / ``nnie.emulate`` check the cfg first: what the job lacks (the net, the
weights, the image each input runs) is said in the cfg's terms at the cfg line that names it, with
the lint's own words, before any question (``nnie.checkToolInputs``) and before the output folder
is looked at (the job's refusal)."""

from __future__ import annotations

from pathlib import Path

import pytest
from pygls.exceptions import JsonRpcException

from .conftest import start_session
from .test_triage_editor import execute, triage_copy  # noqa: F401  (triage_copy: a fixture)

pytestmark = pytest.mark.asyncio


def _cfg(project: Path, old: str, new: str) -> str:
    cfg = project / "sim.cfg"
    cfg.write_text(cfg.read_text().replace(old, new))
    return str(cfg)


async def test_a_missing_caffemodel_is_said_at_its_cfg_line_before_the_folder(client, triage_copy):
    await start_session(client, client.preset, root=triage_copy)
    project = triage_copy / "channel_swap"
    cfg = _cfg(project, "../model/det1.caffemodel", "../model/det1_v2.caffemodel")
    checked = await execute(client, "nnie.checkToolInputs", {"kind": "reference", "cfg": cfg})
    assert checked["ok"] is False and len(checked["problems"]) == 1
    problem = checked["problems"][0]
    assert problem["key"] == "caffemodel_file" and problem["line"] == 1 and problem["character"] == 18
    assert problem["message"].startswith("The Caffe reference needs the trained weights (the caffemodel): "
                                         "[caffemodel_file] file not found: ../model/det1_v2.caffemodel (looked in ")
    # the job itself is refused with the same words, before the output folder: output/ holds
    # RuyiStudio's dumps (a refusal of its own), but the cfg's problem comes first
    with pytest.raises(JsonRpcException) as error:
        await execute(client, "nnie.reference", {"cfg": cfg, "overwrite": True})
    message = str(error.value)
    assert "sim.cfg:2: The Caffe reference needs the trained weights" in message
    assert "never overwritten" not in message and "expects one object" not in message
    assert "give caffemodel" not in message


async def test_the_image_each_input_runs_and_an_unset_key(client, triage_copy):
    await start_session(client, client.preset, root=triage_copy)
    project = triage_copy / "quant_noise"
    (project / "images.txt").write_text("../test1.jpg\n../gone.jpg\n")
    cfg = str(project / "sim.cfg")
    checked = await execute(client, "nnie.checkToolInputs", {"kind": "emulate", "cfg": cfg})
    assert [p["key"] for p in checked["problems"]] == ["image_list"]
    assert ("The NNIE emulation needs the image it runs: the last image of images.txt (line 2: ../gone.jpg), "
            "the one the mapper dumps, is not found") == checked["problems"][0]["message"]
    # an image given by the editor: the list is not needed
    given = await execute(client, "nnie.checkToolInputs",
                          {"kind": "emulate", "cfg": cfg, "image": str(triage_copy / "test1.jpg")})
    assert given == {"ok": True, "problems": []}
    # a cfg without [prototxt_file] (and none beside it)
    cfg = _cfg(project, "[prototxt_file] ../model/det1.prototxt\n", "")
    checked = await execute(client, "nnie.checkToolInputs",
                            {"kind": "reference", "cfg": cfg, "image": str(triage_copy / "test1.jpg")})
    assert checked["problems"][0]["key"] is None and checked["problems"][0]["line"] == 0
    assert "sim.cfg sets no [prototxt_file] and none was found beside it: add [prototxt_file] to the cfg" \
        in checked["problems"][0]["message"]


async def test_a_complete_cfg_is_ok(client, triage_copy):
    await start_session(client, client.preset, root=triage_copy)
    for kind in ("reference", "emulate"):
        checked = await execute(client, "nnie.checkToolInputs", {"kind": kind, "cfg": str(triage_copy / "channel_swap" / "sim.cfg")})
        assert checked == {"ok": True, "problems": []}, kind
    with pytest.raises(JsonRpcException):
        await execute(client, "nnie.checkToolInputs", {"kind": "compare", "cfg": str(triage_copy / "channel_swap" / "sim.cfg")})
