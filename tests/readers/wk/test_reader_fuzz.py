"""Property tests of the `.wk` reader from raw bytes, like the other readers'
(tests/test_properties_readers.py): arbitrary bytes and real or written `.wk` files mutated at the
byte level (flips, cuts, insertions, splices, header fields overwritten).

- :func:`parse_wk` returns a model or raises :class:`WkError`, nothing else;
- every offset it reports (an error's, each damage's, each node's record) lies inside the file;
- the same bytes give the same model;
- every description of a model it returns (text, JSON, HTML, summary, lens) renders.
"""

from __future__ import annotations

import json
import os
import struct
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nnie_lsp.testing.wk_files import Node, lfs_pointer_for, simple_spec, write_wk
from nnie_lsp.readers.wk.reader import WkError, parse_wk
from nnie_lsp.readers.wk.describe import lens_title, render_html, render_text, summary, to_json

DATA = Path(__file__).resolve().parents[2] / "data" / "wk"
SEEDS = [
    (DATA / "Strand2013__NNIE-lite__inst_mnist_cycle.wk").read_bytes(),
    write_wk(simple_spec([Node("data", 16, 16, 3)], [Node("a" * 40, 4, 4, 8), Node("p", 1, 1, 10, vector=True)])),
    write_wk(simple_spec([Node("img", 8, 12, 1, image_type=3)], [Node("o", 2, 3, 4)], bits="16-bit")),
]
SEEDS.append(lfs_pointer_for(SEEDS[0]))

EXAMPLES = int(os.environ.get("NNIE_PROPERTY_EXAMPLES", "120"))
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, derandomize=bool(os.environ.get("CI")),
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
HEADER_WORDS = [0x04, 0x0C, 0x34, 0x38, 0xB0, 0xB4, 0xC0, 0xC4, 0xC8, 0xCC, 0xD0, 0xD4, 0xD8]


@st.composite
def mutated(draw):
    data = draw(st.sampled_from(SEEDS))
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["byte", "word", "truncate", "delete", "insert", "splice"]))
        at = draw(st.integers(0, len(data)))
        if op == "byte" and at < len(data):
            data = data[:at] + bytes([draw(st.integers(0, 255))]) + data[at + 1:]
        elif op == "word" and len(data) >= 0xDC:
            word = draw(st.sampled_from(HEADER_WORDS))
            value = draw(st.sampled_from([0, 1, 16, 0xC0, 0xFFFFFFFF, len(data), len(data) + 48])
                         | st.integers(0, 2 ** 32 - 1))
            data = data[:word] + struct.pack("<I", value) + data[word + 4:]
        elif op == "truncate":
            data = data[:at]
        elif op == "delete":
            data = data[:at] + data[at + draw(st.integers(1, 64)):]
        elif op == "insert":
            data = data[:at] + draw(st.binary(min_size=1, max_size=64)) + data[at:]
        else:
            other = draw(st.sampled_from(SEEDS))
            start = draw(st.integers(0, len(other)))
            data = data[:at] + other[start:start + draw(st.integers(1, 300))] + data[at:]
    return data


@SETTINGS
@given(st.binary(max_size=600) | mutated())
def test_wk_reader_from_bytes(data):
    try:
        model = parse_wk(data, "x.wk")
    except WkError as exc:
        assert exc.kind in ("empty", "text", "lfs-pointer", "not-wk", "version", "truncated", "structure")
        assert exc.offset is None or 0 <= exc.offset <= len(data)
        assert str(exc).startswith("x.wk: ")
        return
    assert model.file_size == len(data)
    for damage in model.damage:
        assert 0 <= damage.offset <= len(data) and damage.message
    for node in model.nodes:
        assert node.offset + 64 <= len(data) and len(node.name_bytes) <= 31
    for record in model.plan:
        assert record.offset_in_file + 48 <= len(data)
    assert parse_wk(data, "x.wk") == model
    render_text(model, records=True), render_html(model), summary(model), lens_title(model)
    json.dumps(to_json(model, records=True))
