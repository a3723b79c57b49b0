"""The engine parts behind the editor's triage commands, in process: discovery of the inputs
beside a cfg (nnie_lsp/triage/inputs/beside_cfg.py), stored results (nnie_lsp/triage/store.py), and a
result carried over to the current texts (nnie_lsp/server/triage/carry_over.py)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from nnie_lsp.core.diagnostics import Applicability, Diagnostic, FileEdit, Fix
from nnie_lsp.server.triage import carry_over
from nnie_lsp.core.catalogue import all_rules
from nnie_lsp.server.convert import rule_href
from nnie_lsp.core.text import Range, TextEdit
from nnie_lsp.triage import store
from nnie_lsp.triage.inputs.beside_cfg import DiscoveryError, complete_inputs, discover

CFG = "[prototxt_file] ./net.prototxt\n[caffemodel_file] ./net.caffemodel\n[compile_mode] {mode}\n"
# the net the dumps below are of: data 3×8×8, conv1 4×6×6 (discovery takes a run near the cfg only
# when it is this net's)
NET = ('name: "n"\ninput: "data"\ninput_shape { dim: 1 dim: 3 dim: 8 dim: 8 }\n'
       'layer { name: "conv1" type: "Convolution" bottom: "data" top: "conv1" '
       'convolution_param { num_output: 4 kernel_size: 3 } }\n')


def dumps(folder: Path, suffix: str = "quant.linear.hex") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("data_output0_3_8_8", "conv1_output0_4_6_6"):
        (folder / f"{name}_{suffix}").write_text("0\n")
    return folder


def project(tmp_path: Path, mode: int = 0) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "net.prototxt").write_text(NET)
    (root / "net.caffemodel").write_bytes(b"")
    cfg = root / "net.cfg"
    cfg.write_text(CFG.format(mode=mode))
    return cfg


# ------------------------------------------------------------------ discovery

def test_discovery_finds_the_tool_folders_beside_the_cfg(tmp_path):
    cfg = project(tmp_path)
    root = cfg.parent
    dumps(root / "output", "caffe.linear.float")
    dumps(root / "mapper_quant")
    (root / "cnn_net_tree.dot").write_text("digraph G {}\n")
    run16 = root / "run_fp"                      # a copy of the project run at compile_mode 1
    run16.mkdir()
    (run16 / "net.cfg").write_text(CFG.format(mode=1))
    dumps(run16 / "mapper_quant")
    found = discover(str(cfg))
    assert found.prototxt == str(root / "net.prototxt") and found.caffemodel == str(root / "net.caffemodel")
    assert found.path("reference") == str(root / "output") and found.get("reference").origin == "discovered"
    assert found.path("sim") == str(root / "mapper_quant")
    assert found.path("sim16") == str(run16 / "mapper_quant") and "[compile_mode] 1" in found.get("sim16").rule
    assert found.path("dot") == str(root / "cnn_net_tree.dot")
    assert json.loads(json.dumps(found.to_json()))["sim16"]["origin"] == "discovered"


def test_discovery_16_bit_rules_in_order(tmp_path):
    cfg = project(tmp_path)
    root = cfg.parent
    dumps(root / "mapper_quant")
    assert discover(str(cfg)).get("sim16") is None
    dumps(root / "mapper_quant_emulated_16bit")                     # rule 3: our own emulation
    assert "emulated 16-bit run" in discover(str(cfg)).get("sim16").rule
    dumps(root / "nnie16")                                           # rule 2: a name that says 16 bit
    hit = discover(str(cfg)).get("sim16")
    assert hit.path == str(root / "nnie16") and "only the name tells" in hit.rule
    sibling = tmp_path / "proj_mode1"                                # rule 1: a sibling folder's cfg says so
    sibling.mkdir()
    (sibling / "a.cfg").write_text(CFG.format(mode=1))
    dumps(sibling / "mapper_quant")
    hit = discover(str(cfg)).get("sim16")
    assert hit.path == str(sibling / "mapper_quant") and "sibling folder" in hit.rule
    # a folder named 16bit without dumps, or a compile_mode 2 cfg, is no 16-bit run
    (sibling / "a.cfg").write_text(CFG.format(mode=2))
    (root / "16bit").mkdir()
    assert discover(str(cfg)).path("sim16") == str(root / "nnie16")


def test_a_compile_mode_1_cfg_gets_no_16_bit_run_and_emulated_sim_is_said(tmp_path):
    cfg = project(tmp_path, mode=1)
    root = cfg.parent
    dumps(root / "nnie16")
    dumps(root / "mapper_quant_emulated")
    found = discover(str(cfg))
    assert found.get("sim16") is None and "already the 16-bit run" in found.notes[0]
    assert "emulated 8-bit run" in found.get("sim").rule and found.get("reference") is None


def test_complete_inputs_given_folders_are_kept_as_given(tmp_path):
    cfg = project(tmp_path)
    root = cfg.parent
    dumps(root / "output", "caffe.linear.float")
    dumps(root / "mapper_quant")
    dumps(root / "nnie16")
    elsewhere = dumps(tmp_path / "mine")
    explicit = complete_inputs(str(cfg), reference=str(elsewhere), sim=str(elsewhere))
    assert (explicit.sim16, explicit.dot) == (None, None) and explicit.discovered == ("prototxt",)
    forced = complete_inputs(str(cfg), reference=str(elsewhere), sim=str(elsewhere), force=True)
    assert forced.sim16 == str(root / "nnie16") and forced.reference == str(elsewhere)
    alone = complete_inputs(str(cfg))
    assert (alone.reference, alone.sim) == (str(root / "output"), str(root / "mapper_quant"))
    assert set(alone.discovered) == {"reference", "sim", "sim16", "prototxt"}
    shutil.rmtree(root / "output")
    with pytest.raises(DiscoveryError, match="looked for output/"):
        complete_inputs(str(cfg))
    with pytest.raises(DiscoveryError, match="--reference is required"):
        complete_inputs(None, sim=str(elsewhere))


def test_discovery_never_raises_on_an_unreadable_cfg(tmp_path):
    found = discover(str(tmp_path / "missing.cfg"))
    assert found.prototxt is None and "cannot read" in found.notes[0]


# ------------------------------------------------------------------ stored results

def stored_record(tmp_path: Path) -> store.StoredTriage:
    cfg = project(tmp_path)
    root = cfg.parent
    reference = dumps(root / "output", "caffe.linear.float")
    result = {"schema_version": 2, "case": 1, "verdict": "preprocessing mismatch (case 1)", "next_step": 2,
              "first_divergence": "data", "inputs": {"working_directory": str(root)}, "findings": []}
    inputs = {"reference": {"path": str(reference), "origin": "discovered", "rule": "output/"},
              "sim": {"path": str(dumps(root / "mapper_quant")), "origin": "given", "rule": None}}
    return store.new_record(str(cfg), result, cfg=str(cfg), prototxt=str(root / "net.prototxt"), inputs=inputs)


def test_store_round_trip_relative_paths_and_a_moved_project(tmp_path):
    record = stored_record(tmp_path)
    paths = store.save(record, html="<!doctype html>", text="Verdict: case 1\n")
    root = Path(record.owner).parent
    assert Path(paths.json) == root / ".nnie-triage" / "net.json" and Path(paths.html).read_text() == "<!doctype html>"
    assert not [p for p in os.listdir(root / ".nnie-triage") if p.startswith(".tmp-")]
    raw = json.loads(Path(paths.json).read_text())
    assert raw["cfg"] == "net.cfg" and raw["inputs"]["reference"]["path"] == "output" and raw["texts"]["cfg"]
    moved = tmp_path / "elsewhere"
    shutil.move(str(root), moved)
    again = store.load(str(moved / ".nnie-triage" / "net.json"))
    assert again.cfg == str(moved / "net.cfg") and again.input_path("reference") == str(moved / "output")
    assert again.result["inputs"]["working_directory"] == str(moved)    # rebased: the old folder is gone
    assert store.changed_inputs(again) == []
    assert store.scan(str(tmp_path)) == [str(moved / ".nnie-triage" / "net.json")]
    deleted = store.clear(again)
    assert len(deleted) == 3 and not (moved / ".nnie-triage").exists()


def test_store_stamps_say_what_changed(tmp_path):
    record = stored_record(tmp_path)
    cfg = Path(record.cfg)
    os.utime(cfg, ns=(1, 1))                                          # touched, same text: not a change
    assert store.changed_inputs(record) == []
    assert store.changed_inputs(record, lambda path: "[compile_mode] 2\n" if path == record.cfg else None) == ["cfg"]
    cfg.write_text(cfg.read_text() + "[net_type] 0\n")
    (Path(record.input_path("reference")) / "extra_output0_1_caffe.linear.float").write_text("1\n")
    assert store.changed_inputs(record) == ["cfg", "reference"]
    assert store.changed_inputs(record, check_folders=False) == ["cfg"]
    assert carry_over.stale_reasons(["cfg", "reference"]) == ["the cfg changed after the run",
                                                                  "the Caffe dumps changed after the run"]


def test_store_refuses_what_it_cannot_read(tmp_path):
    bad = tmp_path / ".nnie-triage" / "x.json"
    bad.parent.mkdir()
    bad.write_text("{not json")
    with pytest.raises(store.StoreError, match="not JSON"):
        store.load(str(bad))
    bad.write_text(json.dumps({"store_version": 99}))
    with pytest.raises(store.StoreError, match="not a version 1"):
        store.load(str(bad))


# ------------------------------------------------------------------ carried over to the current text

def test_line_map_head_tail_and_middle():
    old = "a\nb\nc\nd\ne"
    mapping = carry_over.LineMap(old, "top\na\nX\nc\nd\ne")
    assert [mapping.line(n) for n in range(5)] == [1, None, 3, 4, 5]
    assert mapping.range(Range.of(2, 1, 3, 0)) == Range.of(3, 1, 4, 0)
    assert mapping.range(Range.of(0, 0, 1, 0)) is None
    assert carry_over.LineMap(old, old).range(Range.of(4, 0, 4, 1)) == Range.of(4, 0, 4, 1)


def _rename(path: str, line: int, old: str, new: str) -> Fix:
    start = len('  name: "')
    return Fix(f"Rename {old}", Applicability.UNSAFE,
               (FileEdit(path, TextEdit(Range.of(line, start - 1, line, start + len(old) + 1), f'"{new}"')),))


PROTO = 'layer {\n  name: "conv1"\n}\nlayer {\n  name: "conv2"\n}\n'


def _result(path: str) -> dict:
    finding = {"code": "T204", "severity": "info", "message": "candidate", "layer": "conv2", "path": path,
               "line": 5, "column": 9, "end_line": 5, "end_column": 16,
               "fix": {"applicability": "unsafe", "message": "Rename conv2",
                       "edits": [{"path": path, "line": 5, "column": 9, "end_line": 5, "end_column": 16,
                                  "new_text": '"conv2_hp"'}]}}
    return {"inputs": {"working_directory": os.path.dirname(path)}, "findings": [finding]}


def test_findings_follow_edits_and_fixes_only_on_unchanged_lines(tmp_path):
    path = str(tmp_path / "net.prototxt")
    result = _result(path)
    shifted = "# new first line\n" + PROTO
    placed = carry_over.place_findings(result, {path: PROTO}, lambda p: shifted, " [stale]")
    finding = placed.diagnostics[0]
    assert placed.carried and finding.range == Range.of(5, 8, 5, 15) and finding.message.endswith("[stale]")
    assert finding.fix.edits[0].edit.range == Range.of(5, 8, 5, 15)
    renamed = PROTO.replace('name: "conv2"', 'name: "conv2x"')       # the fix's own line changed
    moved = "\n\n" + renamed
    placed = carry_over.place_findings(result, {path: PROTO}, lambda p: moved)
    assert placed.diagnostics[0].fix is None
    assert placed.diagnostics[0].range.start.line == 6                 # the changed line, by position
    # the name's line changed but it still names the layer: found again by the layer name
    commented = "# c\n" + PROTO.replace('  name: "conv2"', '  type: "Convolution"  name: "conv2"')
    placed = carry_over.place_findings(result, {path: PROTO}, lambda p: commented)
    column = commented.split("\n")[5].index('"conv2"')
    assert placed.diagnostics[0].range == Range.of(5, column, 5, column + 7) and placed.diagnostics[0].fix is None


def test_fix_all_takes_the_plan_not_the_candidates_nor_the_alternatives(tmp_path):
    path = str(tmp_path / "net.prototxt")
    plan = Fix("plan", Applicability.UNSAFE, _rename(path, 1, "conv1", "conv1_hp").edits)
    rgb = Fix("rgb", Applicability.UNSAFE, (FileEdit(path + ".cfg", TextEdit(Range.of(0, 0, 0, 3), "RGB")),))
    other = Fix("other", Applicability.UNSAFE, (FileEdit(path + ".cfg", TextEdit(Range.of(0, 1, 0, 2), "x")),))
    findings = [
        Diagnostic("T207", "plan", path, Range.of(0, 0, 0, 1), fix=plan),
        Diagnostic("T204", "candidate", path, Range.of(4, 0, 4, 1), fix=_rename(path, 4, "conv2", "conv2_hp")),
        Diagnostic("T102", "rgb", path + ".cfg", Range.of(0, 0, 0, 3), fix=rgb, alternatives=(other,)),
        Diagnostic("T104", "overlaps the rgb fix", path + ".cfg", Range.of(0, 0, 0, 3), fix=other),
    ]
    assert [(d.code, fix.message) for d, fix in carry_over.fix_all(findings)] == [("T207", "plan"), ("T102", "rgb")]
    assert carry_over.fix_counts(findings) == {"total": 4, "applicable": 2, "safe": 0}


def test_every_rule_link_opens_rules_md_at_its_heading():
    codes = [rule.code for rule in all_rules()]
    assert codes
    for code in codes:
        href = rule_href(code)
        document, line = href.split("#L")
        lines = Path(document.removeprefix("file://")).read_text(encoding="utf-8").split("\n")
        assert lines[int(line) - 1].startswith(f"## {code} ("), code
        assert lines[int(line) - 2] == f'<a id="{code.lower()}"></a>', code


def test_the_editor_reads_the_store_folder_name_from_folder_names():
    """`.nnie-triage` is spelt in nnie_lsp/triage/inputs/folder_names.py only: no string in the
    server or the editor features names it (docstrings may), and reading it loads no numpy."""
    import ast
    import subprocess
    import sys

    from nnie_lsp.triage.inputs.folder_names import TRIAGE_STORE_DIR

    package = Path(__file__).resolve().parents[3] / "nnie_lsp"
    spelt = []
    for path in [*(package / "server").rglob("*.py"), *(package / "features").rglob("*.py")]:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                      if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                      and node.body and isinstance(node.body[0], ast.Expr)
                      and isinstance(node.body[0].value, ast.Constant)}
        spelt += [f"{path.name}:{node.lineno}" for node in ast.walk(tree)
                  if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
                  and TRIAGE_STORE_DIR in node.value]
    assert spelt == []
    probe = "import sys, nnie_lsp.server.triage.results; print('numpy' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "False", done.stderr
