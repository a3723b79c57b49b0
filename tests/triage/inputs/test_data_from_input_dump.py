"""nnie_mapper has no data layer: its preprocessed input reaches mapper_quant only as the first
layer's input dump. Case 1 must still be found from it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from nnie_lsp.cli.triage import main

EX = Path(__file__).resolve().parents[3] / "examples" / "triage"


def test_case1_from_first_layer_input_dump(tmp_path, capsys):
    sim = tmp_path / "nnie"
    shutil.copytree(EX / "channel_swap" / "mapper_quant", sim)
    # the example holds what nnie_mapper writes: no data layer's dump, conv1's dequantized input
    assert not list(sim.glob("data_output*")) and list(sim.glob("conv1_input0_*_anti_quant.float"))
    assert main(["compare", "--reference", str(EX / "channel_swap" / "output"), "--sim", str(sim),
                 "--cfg", str(EX / "channel_swap" / "sim.cfg"), "--prototxt", str(EX / "model" / "det1.prototxt"),
                 "--format", "json", "--no-record"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["case"] == 1
    assert doc["layers"][0]["name"] == "data" and doc["layers"][0]["cosine"] < 0.999
    assert any(e["key"] == "RGB_order" and e["new_value"] == "RGB" for e in doc["preprocessing"]["edits"])
    assert any("input dump of layer 'conv1'" in n for n in doc["alignment_notes"])
