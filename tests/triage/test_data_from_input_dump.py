"""nnie_mapper has no data layer: its preprocessed input reaches mapper_quant only as the first
layer's input dump. Case 1 must still be found from it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from nnie_lsp.cli.triage import main
from nnie_lsp.dumpio import read_hex_words, write_mapper_input

EX = Path(__file__).resolve().parents[2] / "examples" / "triage"


def test_case1_from_first_layer_input_dump(tmp_path, capsys):
    sim = tmp_path / "nnie"
    shutil.copytree(EX / "channel_swap" / "mapper_quant", sim)
    data_file = sim / "data_output0_3_20_20_quant.linear.hex"
    data = read_hex_words(str(data_file)).reshape(1, 3, 20, 20)
    data_file.unlink()
    write_mapper_input(sim, "conv1", data, input_id=1)
    assert main(["compare", "--reference", str(EX / "channel_swap" / "output"), "--sim", str(sim),
                 "--cfg", str(EX / "channel_swap" / "sim.cfg"), "--prototxt", str(EX / "model" / "det1.prototxt"),
                 "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["case"] == 1
    assert doc["layers"][0]["name"] == "data" and doc["layers"][0]["cosine"] < 0.999
    assert any(e["key"] == "RGB_order" and e["new_value"] == "RGB" for e in doc["preprocessing"]["edits"])
    assert any("input dump of layer 'conv1'" in n for n in doc["alignment_notes"])
