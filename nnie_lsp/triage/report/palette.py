"""The triage report's colours, as data: the engine's statuses, the guide's threshold lines, the
plot's curves and its first-divergence mark.

The HTML report's SVG plot (:mod:`nnie_lsp.triage.report.svg_plot`) and its table's status
classes (:mod:`nnie_lsp.triage.report.render`) read them here; the VS Code client's plot reads
the copy ``scripts/gen_client_palette.py`` writes from this module
(``vscode-client/src/triage/report/palette.ts``; ``tests/test_client_palette.py`` checks it is
current). Plain data only: no import, so the generator can read it without the engine.
"""

from __future__ import annotations

#: The colour of each status of a layer row (``layers[].status``): the plot's points and the
#: table's cells.
STATUS_COLOUR = {"ok": "#1a7f37", "low": "#9a6700", "poor": "#bc4c00", "bad": "#cf222e", "nan": "#8250df",
                 "unmeasured": "#6e7781"}
#: The statuses the report's table colours (a CSS class each, ``.ok{color:…}``), in this order.
TABLE_STATUSES = ("ok", "low", "poor", "bad", "nan")
#: The guide's cosine thresholds drawn as lines: JSON key, label, colour, dash pattern (SVG's
#: ``stroke-dasharray``). The values come from the report's ``thresholds`` (``--threshold
#: KEY=VALUE`` changes them); a key the report lacks is not drawn.
THRESHOLD_LINES = (
    ("data_layer", "data layer", "#2da44e", "2 3"),
    ("good", "good", "#2da44e", "6 4"),
    ("decay_end", "decay end", "#d29922", "6 4"),
    ("middle_dip", "middle dip", "#cf222e", "6 4"),
)
#: The Caffe → NNIE curve (and a point whose status has no colour).
LINE_COLOUR = "#1f6feb"
#: The second hop (``compare --framework``: ONNX → Caffe, the rows' ``framework_cosine``), drawn
#: dashed; a layer whose Caffe output has another size than ONNX's (``framework_status`` "shape")
#: is a cross on the axis.
FRAMEWORK_COLOUR = "#8250df"
#: The vertical line at the first divergence and its label.
DIVERGENCE_COLOUR = "#cf222e"


def status_css() -> str:
    """The table's status classes: ``.ok{color:#1a7f37}.low{color:#9a6700}…``."""
    return "".join(f".{status}{{color:{STATUS_COLOUR[status]}}}" for status in TABLE_STATUSES)
