"""The mapper's own output in the editor, over stdio: log blocks as ordinary lint diagnostics in
the cfg and the prototxt (log-homed ones stay out of the editor), NN304 from cnn_net_tree.dot and
the hover's mapper view of a layer."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from lsprotocol import types as lsp

from .conftest import find_line, start_session

pytestmark = pytest.mark.asyncio

DATA = Path(__file__).resolve().parents[2] / "data" / "mapper"

CFG = """[prototxt_file] ./ssd.prototxt
[image_list] ./images.txt
[image_type] 1
[norm_type] 0
"""
PROTOTXT = """name: "ssd"
input: "data"
input_shape { dim: 1 dim: 3 dim: 300 dim: 300 }
layer { name: "conv1" type: "Convolution" bottom: "data" top: "conv1" convolution_param { num_output: 64 kernel_size: 3 stride: 2 pad: 1 } }
layer { name: "conv4_3" type: "Convolution" bottom: "conv1" top: "conv4_3" convolution_param { num_output: 512 kernel_size: 3 stride: 4 pad: 1 } }
layer { name: "conv4_3_norm" type: "Normalize" bottom: "conv4_3" top: "conv4_3_norm" norm_param { across_spatial: false channel_shared: false } }
"""
# a mapper_debug.log of one failed run (docs/field-facts.md §16.3): a warning on a layer, a
# warning naming nothing, an error echoing a cfg line, its RUN FAILURE unwinding
DEBUG_LOG = """Mapper Version 1.1.2.2_B010_P002 (NNIE_1.1) 1904031504157241
begin net parsing....
.end net parsing
begin net quantalizing(CPU)....
....................**********************************************************
WARNING: file: Inference::convBnParamProcess  line: 816
layer[conv4_3] value[0.00000000000000004205] is too small
**********************************************************
WARNING: file: Inference::computeNonlinearQuantizationDelta  line: 92
data containing only zeros; set max value to 1e-6.
**********************************************************
ERROR: file: read_lang_file  line: 231
[image_list] ./images.txt
file error: the file in the image_list should be a featuremap file, of which the data seperate symbol should be space or comma.
**********************************************************
ERROR: file: Mapper::run  line: 88
ERROR: RUN FAILURE in line 80. Return = -1
"""


def codes(items) -> list[str]:
    return sorted(str(d.code) for d in items)


@pytest.fixture
def mapper_project(tmp_path: Path) -> Path:
    folder = tmp_path / "ssd"
    folder.mkdir()
    (folder / "ssd.cfg").write_text(CFG, encoding="utf-8")
    (folder / "ssd.prototxt").write_text(PROTOTXT, encoding="utf-8")
    (folder / "images.txt").write_text("", encoding="utf-8")
    (folder / "mapper_debug.log").write_text(DEBUG_LOG, encoding="utf-8")
    shutil.copy(DATA / "nnie11_ssd_cnn_net_tree.dot", folder / "cnn_net_tree.dot")
    return folder


async def test_log_findings_are_diagnostics_in_the_cfg_and_the_prototxt(client, mapper_project):
    await start_session(client, client.preset)
    puri = client.open(mapper_project / "ssd.prototxt", "prototxt")
    items = await client.diagnostics_for(puri, predicate=lambda ds: "NN402" in codes(ds))
    text = client.texts[puri]
    nn402 = [d for d in items if d.code == "NN402"]
    assert len(nn402) == 1  # the layer's warning; "data containing only zeros" stays on the log
    assert nn402[0].range.start.line == find_line(text, '"conv4_3" type')
    assert "mapper 1.1.2.2_B010_P002 (NNIE_1.1) warning on layer \"conv4_3\"" in nn402[0].message
    assert nn402[0].related_information[0].location.uri.endswith("/mapper_debug.log")
    nn304 = [d for d in items if d.code == "NN304"]
    assert len(nn304) == 1 and "`permute_0` (Permute (batch)" in nn304[0].message
    assert nn304[0].range.start.line == find_line(text, '"conv4_3_norm" type')
    curi = client.open(mapper_project / "ssd.cfg", "nnie-cfg")
    cfg_items = await client.diagnostics_for(curi, predicate=lambda ds: "NN401" in codes(ds))
    nn401 = next(d for d in cfg_items if d.code == "NN401")
    assert nn401.severity == lsp.DiagnosticSeverity.Error
    assert nn401.range.start.line == 1 and nn401.range.start.character == len("[image_list] ")
    assert "the run stopped here" in nn401.message
    assert "NN402" not in codes(cfg_items)


async def test_hover_over_a_layer_shows_the_mappers_view(client, mapper_project):
    await start_session(client, client.preset)
    puri = client.open(mapper_project / "ssd.prototxt", "prototxt")
    text = client.texts[puri]
    line = find_line(text, '"conv4_3_norm" type')
    column = text.split("\n")[line].index("conv4_3_norm") + 1
    hover = await client.text_document_hover_async(lsp.HoverParams(
        text_document=lsp.TextDocumentIdentifier(uri=puri), position=lsp.Position(line=line, character=column)))
    value = hover.contents.value
    assert "The mapper's view (`cnn_net_tree.dot`)" in value
    assert "Segment 0" in value and "512 × 38 × 38" in value
    assert "data_bit_mode 0 (raw value: its meaning is undocumented)" in value
    assert "`permute_0` (Permute (batch)" in value
