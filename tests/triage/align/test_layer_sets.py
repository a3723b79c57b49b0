"""Different layer sets on the two sides: a tensor present on one side only is listed unmatched,
never paired with another layer by its values when both sides have names — with or without a
prototxt; value pairing stays for the instruction simulator's nameless dumps and says so."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from nnie_lsp.readers.dumpio.writers import write_inst, write_ruyi_caffe
from nnie_lsp.readers.dumpio.scan import scan_dumps
from nnie_lsp.triage.align.driver import align

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "triage"


@pytest.fixture
def layer_sets(tmp_path: Path) -> Path:
    """The channel_swap example with Caffe dumps without conv3 and conv4-1 and NNIE dumps without
    prob1 (conv4-1 has prob1's size)."""
    shutil.copytree(EXAMPLES / "channel_swap", tmp_path / "run")
    shutil.copytree(EXAMPLES / "model", tmp_path / "model")
    for pattern in ("output/conv3_*", "output/conv4-1_*", "mapper_quant/prob1_*"):
        for f in (tmp_path / "run").glob(pattern):
            f.unlink()
    return tmp_path / "run"


def test_without_a_prototxt_a_named_dump_is_never_paired_with_another_name(layer_sets):
    al = align(scan_dumps(layer_sets / "output"), scan_dumps(layer_sets / "mapper_quant"))
    assert {p.sim.key: p.ref.key for p in al.pairs} == {"conv1": "conv1", "pool1": "pool1", "conv2": "conv2",
                                                       "conv4-2": "conv4-2"}
    assert {t.key for t in al.unmatched_sim} >= {"conv3", "conv4-1"}
    assert {t.key for t in al.unmatched_ref} == {"data", "prob1"}
    assert any("never paired with another layer by values (no prototxt" in n for n in al.notes)


def test_the_cli_without_a_prototxt_lists_them_unmatched(layer_sets, capsys, monkeypatch):
    from nnie_lsp.cli.triage import main

    monkeypatch.chdir(layer_sets)
    assert main(["compare", "--reference", "output", "--sim", "mapper_quant", "--format", "json",
                 "--progress", "none", "--no-record"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert "prob1" not in {r["name"] for r in doc["layers"]}
    assert doc["unmatched"] == {"reference": ["data", "prob1"], "sim": ["conv3", "conv4-1"]}
    assert "prob1" not in (doc["reason"] or "")


def test_nameless_simulator_dumps_are_still_paired_by_values_and_say_so(tmp_path):
    rng = np.random.default_rng(2)
    a, b = rng.normal(size=(2, 5, 5)), rng.normal(size=(2, 5, 5))
    write_ruyi_caffe(tmp_path / "ref", "conv4-1", a)
    write_ruyi_caffe(tmp_path / "ref", "prob1", b)
    write_inst(tmp_path / "inst", 0, 17, b + 0.001)
    write_inst(tmp_path / "inst", 0, 9, a + 0.001)
    al = align(scan_dumps(tmp_path / "ref"), scan_dumps(tmp_path / "inst"))
    assert {p.sim.node: p.ref.key for p in al.pairs} == {9: "conv4-1", 17: "prob1"}
    assert all(p.matched_by == "values" and "value correlation" in p.note for p in al.pairs)
    assert any("paired by size and value correlation" in n for n in al.notes)
