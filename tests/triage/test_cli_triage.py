"""CLI exit codes and the JSON schema (v2)."""
from __future__ import annotations

import json

from nnie_lsp.cli.triage import main

REQUIRED = {"schema_version", "case", "next_step", "first_divergence", "layers", "findings", "preprocessing",
            "hp_candidates"}
ROW_KEYS = {"name", "matched_by", "confidence", "shape", "cosine", "max_abs_error"}


def _args(p, *extra):
    return ["compare", "--reference", str(p["caffe"]), "--sim", str(p["nnie"]), "--cfg", str(p["cfg"]),
            "--prototxt", str(p["prototxt"]), *extra]


def test_json_schema_v2(scenario_dirs, capsys):
    p = scenario_dirs("channel_swap")
    assert main(_args(p, "--format", "json")) == 0
    doc = json.loads(capsys.readouterr().out)
    assert REQUIRED <= set(doc) and doc["schema_version"] == 2
    assert doc["case"] == 1 and doc["next_step"] == 2
    assert [r["name"] for r in doc["layers"]][:3] == ["data", "conv1", "pool1"]  # network order
    for r in doc["layers"]:
        assert ROW_KEYS <= set(r)
    for f in doc["findings"]:
        assert {"code", "name", "severity", "message", "fix", "related", "url"} <= set(f) and f["code"][0] == "T"
        if "path" in f:  # placed findings: nnie-lint's 1-based position fields
            assert {"line", "column", "end_line", "end_column"} <= set(f) and f["line"] >= 1
    assert any(f.get("cfg_key") == "RGB_order" for f in doc["findings"])
    assert {r["status"] for r in doc["layers"]} <= {"ok", "low", "poor", "bad", "nan", "unmeasured"}
    assert doc["layers"][0]["status"] == "bad"  # the data layer, decided by the triage, not by editors


def test_findings_in_chinese(scenario_dirs, capsys):
    p = scenario_dirs("channel_swap")
    assert main(_args(p, "--format", "json", "--lang", "zh")) == 0
    doc = json.loads(capsys.readouterr().out)
    t102 = next(f for f in doc["findings"] if f["code"] == "T102")
    assert "请设置 [RGB_order] RGB" in t102["message"] and "为输入 0 设置" in t102["fix"]["message"]
    assert doc["reason"].startswith("the data layers differ")  # verdict and reason stay English


def test_a_bug_is_an_internal_error_not_bad_input(scenario_dirs, capsys, monkeypatch):
    """A KeyError (or any other bug) inside the triage: exit 2 with "internal error … please report",
    never reported as a problem with the user's input; NNIE_DEBUG=1 shows the traceback."""
    import nnie_lsp.triage.pipeline as pipeline

    def broken(*args, **kwargs):
        raise KeyError("conv9")

    monkeypatch.setattr(pipeline, "run_compare", broken)
    p = scenario_dirs("ok")
    monkeypatch.delenv("NNIE_DEBUG", raising=False)
    assert main(_args(p)) == 2
    err = capsys.readouterr().err
    assert "internal error: KeyError: 'conv9'" in err and "please report" in err and "Traceback" not in err
    monkeypatch.setenv("NNIE_DEBUG", "1")
    import pytest
    with pytest.raises(KeyError):
        main(_args(p))


def test_text_markdown_and_html_outputs(scenario_dirs, capsys, tmp_path):
    p = scenario_dirs("quant_noise")
    html = tmp_path / "r.html"
    assert main(_args(p, "--sim-16bit", str(p["nnie16"]), "--html", str(html))) == 0
    out = capsys.readouterr().out
    # case 2; the plan is hp-plan's, which refuses this run: its NNIE side loses more than the emulation
    assert "Case 2" in out and "First divergence: conv2" in out and "no `_hp` plan" in out and "hp-plan --cfg" in out
    assert main(_args(p, "--format", "markdown")) == 0
    md = capsys.readouterr().out
    assert md.startswith("# nnie-triage report") and "| # | layer |" in md
    assert html.read_text().startswith("<!DOCTYPE html>")


def test_bad_inputs_exit_2_without_traceback(scenario_dirs, capsys, tmp_path):
    p = scenario_dirs("ok")
    cases = [
        ["compare", "--reference", str(tmp_path / "missing"), "--sim", str(p["nnie"])],
        ["compare", "--reference", str(tmp_path), "--sim", str(p["nnie"])],  # empty folder
        _args(p, "--postprocess", "no_such_module_xyz:f"),
        _args(p, "--threshold", "bogus=1"),
        ["compare", "--reference", str(p["caffe"]), "--sim", str(p["nnie"]), "--prototxt", str(tmp_path / "x.prototxt")],
        ["compare", "--reference", str(p["caffe"])],  # argparse: missing --sim
        ["bundle", "--layer", "nope", "--reference", str(p["caffe"]), "--sim", str(p["nnie"]),
         "--prototxt", str(p["prototxt"]), "-o", str(tmp_path / "b.zip")],
    ]
    for argv in cases:
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert "Traceback" not in err and "error" in err, (argv, err)


def test_postprocess_runs_user_code_on_final_outputs(scenario_dirs, capsys, tmp_path):
    p = scenario_dirs("ok")
    mod = tmp_path / "pp.py"
    mod.write_text("import numpy as np\n"
                   "def run(outputs):\n"
                   "    prob = np.asarray(outputs['prob1']).reshape(2, -1)\n"
                   "    return prob[1]\n")
    assert main(_args(p, "--format", "json", "--postprocess", f"{mod}:run")) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["case"] == 4
    assert doc["postprocess"]["kind"] == "classification"
    assert any(f["code"] in ("T402", "T403") for f in doc["findings"])


def test_json_is_strict_and_documented(scenario_dirs, capsys):
    """No Infinity/NaN tokens, and every top-level and row field is in the schema document."""
    import json as _json
    from pathlib import Path as _P
    from nnie_lsp.cli.triage import main as _main
    p = scenario_dirs("quant_noise")
    assert _main(_args(p, "--sim-16bit", str(p["nnie16"]), "--format", "json")) == 0
    out = capsys.readouterr().out

    def bad(token):
        raise AssertionError(f"non-standard JSON token {token}")
    doc = _json.loads(out, parse_constant=bad)
    schema = (_P(__file__).resolve().parents[2] / "nnie_lsp" / "docs" / "triage-schema.md").read_text()
    for key in doc:
        assert f"`{key}`" in schema, key
    for row in doc["layers"]:
        for key in row:
            assert f"`{key}`" in schema, key
    for section in ("inputs", "thresholds", "sim16"):
        for key in doc[section]:
            assert f"`{key}`" in schema, (section, key)
    for key in doc["hp_plan"]:
        assert f"`{key}`" in schema, ("hp_plan", key)
    # fixes: quant_noise's plan is refused (its run loses more than the emulation), channel_swap has T102's
    swap = scenario_dirs("channel_swap")
    assert _main(_args(swap, "--format", "json")) == 0
    findings = doc["findings"] + _json.loads(capsys.readouterr().out, parse_constant=bad)["findings"]
    nested = [*findings, *doc["hp_candidates"], *(f["fix"] for f in findings if f["fix"]),
              *(e for f in findings if f["fix"] for e in f["fix"]["edits"]),
              *(r for f in findings for r in f["related"])]
    assert doc["findings"] and doc["hp_candidates"] and any(f["fix"] for f in findings)
    for obj in nested:
        for key in obj:
            assert f"`{key}`" in schema or f"{key}," in schema or f"{key}}}" in schema, key


def test_example_pnet_postprocess_on_a_case4_set(scenario_dirs, capsys):
    """examples/triage/postprocess_pnet.py decodes MTCNN P-Net boxes on both sides (detection IoU)."""
    from pathlib import Path as _P
    script = _P(__file__).resolve().parents[2] / "examples" / "triage" / "postprocess_pnet.py"
    p = scenario_dirs("ok")
    assert main(_args(p, "--format", "json", "--postprocess", f"{script}:decode")) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["case"] == 4
    pp = doc["postprocess"]
    assert pp["kind"] == "detection", pp
    assert pp["ref_boxes"] >= 1 and pp["matched"] >= 1
    assert any(f["code"] in ("T402", "T403") for f in doc["findings"])
