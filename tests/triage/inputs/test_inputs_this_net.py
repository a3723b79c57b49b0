"""Inputs found near a cfg are this net's or they are skipped, with why
(nnie_lsp/triage/inputs/this_net.py, beside_cfg.py, sixteen_bit.py): a 16-bit run from a sibling
or sub-folder, the dot and the dump folders beside the cfg."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from nnie_lsp.readers.dumpio.writers import write_mapper_quant
from nnie_lsp.triage.inputs.beside_cfg import DiscoveryError, complete_inputs, discover

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "examples" / "triage"
# det1.prototxt of the example (20×20 input) and the same net made for 48×48
DET1 = {"conv1": (10, 18, 18), "pool1": (10, 9, 9), "conv2": (16, 7, 7), "conv3": (32, 5, 5),
        "conv4-1": (2, 5, 5), "conv4-2": (4, 5, 5), "prob1": (2, 5, 5)}
DET1_48 = {"conv1": (10, 46, 46), "pool1": (10, 23, 23), "conv2": (16, 21, 21), "conv3": (32, 19, 19),
           "conv4-1": (2, 19, 19), "conv4-2": (4, 19, 19), "prob1": (2, 19, 19)}
OTHER_NET = {"fc6": (4096,), "fc7": (4096,), "conv5_3": (512, 14, 14), "pool5": (512, 7, 7)}
CFG16 = "[prototxt_file] {proto}\n[caffemodel_file] ../model/det1.caffemodel\n[compile_mode] 1\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """The channel_swap example (det1, 20×20) in tmp/run with its model in tmp/model."""
    shutil.copytree(EXAMPLES / "channel_swap", tmp_path / "run")
    shutil.copytree(EXAMPLES / "model", tmp_path / "model")
    shutil.rmtree(tmp_path / "run" / ".nnie-triage", ignore_errors=True)
    return tmp_path / "run" / "sim.cfg"


def _run16(folder: Path, proto: str, shapes: dict) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "sim.cfg").write_text(CFG16.format(proto=proto))
    for layer, shape in shapes.items():
        write_mapper_quant(folder / "mapper_quant", layer, np.zeros(shape), 0)
    return folder / "mapper_quant"


def test_another_nets_compile_mode_1_run_in_a_sibling_folder_is_skipped(project):
    """The scenario that failed: a sibling folder holds another net's compile_mode 1 run — the
    same layer names at another input size, or other layer names altogether."""
    siblings = project.parent.parent
    bigger = _run16(siblings / "det1_48", "../model/det1_48x48.prototxt", DET1_48)
    other = _run16(siblings / "vgg", "./vgg.prototxt", OTHER_NET)
    found = discover(str(project))
    assert found.get("sim16") is None
    why = {Path(s["path"]): s["why"] for s in found.skipped if s["role"] == "sim16"}
    assert set(why) == {bigger, other}
    assert "other sizes" in why[bigger] and "conv1: 21160 values there, 10×18×18 = 3240 here" in why[bigger]
    assert "det1_48x48.prototxt" in why[bigger]
    assert "none of its 4 dump names is a layer or blob of det1.prototxt" in why[other]
    assert json.loads(json.dumps(found.to_json()))["skipped"][0]["role"] == "sim16"


def test_the_skip_is_said_on_stderr_and_in_the_reports_inputs(project):
    from nnie_lsp.triage import pipeline

    _run16(project.parent.parent / "det1_48", "../model/det1_48x48.prototxt", DET1_48)
    log = io.StringIO()
    request = pipeline.find_inputs(pipeline.TriageRequest(cfg=str(project)), log=log)
    assert request.sim16 is None
    said = log.getvalue()
    assert "nnie-triage: skipped sim16: " in said and "det1_48/mapper_quant" in said and "other sizes" in said
    doc = pipeline.triage(request).to_json()
    assert doc["inputs"]["sim_16bit"] is None
    [skip] = doc["inputs"]["skipped"]
    assert skip["role"] == "sim16" and skip["path"].endswith("det1_48/mapper_quant") and "other sizes" in skip["why"]


def test_this_nets_16_bit_run_is_taken_with_its_evidence(project):
    siblings = project.parent.parent
    # its cfg names the same prototxt
    run = _run16(siblings / "mode1", "../model/det1.prototxt", DET1)
    hit = discover(str(project)).get("sim16")
    assert hit.path == str(run) and "sim.cfg names the same prototxt" in hit.rule
    # a copy of the prototxt (same content) beside it
    shutil.rmtree(siblings / "mode1")
    run = _run16(siblings / "copy", "./det1.prototxt", DET1)
    shutil.copy(siblings / "model" / "det1.prototxt", siblings / "copy" / "det1.prototxt")
    hit = discover(str(project)).get("sim16")
    assert hit.path == str(run) and "names the same prototxt" in hit.rule
    # a prototxt that is not there, but dumps named and sized as this net's blobs
    shutil.rmtree(siblings / "copy")
    run = _run16(siblings / "moved", "./gone.prototxt", DET1)
    hit = discover(str(project)).get("sim16")
    assert hit.path == str(run) and "its tensors match this net's blobs" in hit.rule and "sizes agree" in hit.rule


def test_a_16_bit_named_folder_and_an_emulation_of_another_net_are_skipped(project):
    run = project.parent
    for layer, shape in OTHER_NET.items():
        write_mapper_quant(run / "int16", layer, np.zeros(shape), 0)
    found = discover(str(project))
    assert found.get("sim16") is None
    [skip] = found.skipped
    assert skip["path"] == str(run / "int16") and "the folder name says 16 bit" in skip["why"]
    shutil.rmtree(run / "int16")
    for layer, shape in DET1.items():
        write_mapper_quant(run / "int16", layer, np.zeros(shape), 0)
    hit = discover(str(project)).get("sim16")
    assert hit.path == str(run / "int16") and "only the name tells" in hit.rule


def test_a_dump_folder_beside_the_cfg_of_another_net_is_skipped(project):
    """mapper_quant/ beside the cfg holding another net's dumps: not compared, and the error says
    why; sizes alone do not refuse a folder beside the cfg (the comparison names them)."""
    mq = project.parent / "mapper_quant"
    shutil.rmtree(mq)
    for layer, shape in OTHER_NET.items():
        write_mapper_quant(mq, layer, np.zeros(shape), 0)
    found = discover(str(project))
    assert found.get("sim") is None and found.skipped[0]["role"] == "sim"
    with pytest.raises(DiscoveryError, match="another net's: none of its 4 dump names is a layer or blob"):
        complete_inputs(str(project))
    shutil.rmtree(mq)
    for layer, shape in DET1_48.items():   # this net's names at another size: taken
        write_mapper_quant(mq, layer, np.zeros(shape), 0)
    assert discover(str(project)).path("sim") == str(mq)


def _dot(names_sizes: dict) -> str:
    nodes = [f'"{name}" [label="{name}\\n net segment id: 0\\n id: {k}  type: 0\\ntype name: Convolution\\n '
             f'output size: {"*".join(map(str, size))}"];'
             for k, (name, size) in enumerate(names_sizes.items())]
    return "digraph cnn_tree {\n" + "\n".join(nodes) + "\n}\n"


def test_a_dot_of_another_net_is_skipped(project):
    dot = project.parent / "cnn_net_tree.dot"
    dot.write_text(_dot(OTHER_NET))
    found = discover(str(project))
    assert found.get("dot") is None
    assert found.skipped == ({"role": "dot", "path": str(dot),
                              "why": "another net's: 0 of its 4 nodes are layers or blobs of det1.prototxt"},)
    dot.write_text(_dot(DET1_48))
    assert "other output sizes" in discover(str(project)).skipped[0]["why"]
    dot.write_text(_dot(DET1))
    assert discover(str(project)).path("dot") == str(dot)


def test_given_inputs_are_never_checked(project):
    other = _run16(project.parent.parent / "vgg", "./vgg.prototxt", OTHER_NET)
    found = complete_inputs(str(project), sim16=str(other))
    assert found.sim16 == str(other) and found.discovery.skipped == ()
