"""`nnie-triage reference` writes its Caffe dumps in the compact exact form by default and
RuyiStudio's `%.18e` text with `--dump-format text` (nnie_lsp/docs/triage-schema.md, "Caffe
dump forms"); compare reads both to the same result; the form is kept when the reference is made again;
a reference that fails to run leaves the previous dumps as they were."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np

from nnie_lsp.cli.triage import main
from nnie_lsp.readers.dumpio.scan import scan_dumps

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "triage"


def _project(tmp_path: Path) -> Path:
    root = tmp_path / "triage"
    (root / "quant_noise").mkdir(parents=True)
    for name in ("sim.cfg", "mean.txt", "images.txt"):
        shutil.copy(EXAMPLES / "quant_noise" / name, root / "quant_noise" / name)
    shutil.copytree(EXAMPLES / "model", root / "model")
    shutil.copy(EXAMPLES / "test1.jpg", root / "test1.jpg")
    return root / "quant_noise" / "sim.cfg"


def _values(folder: Path) -> dict[str, np.ndarray]:
    return {t.key: t.load_raw().astype(np.float32) for t in scan_dumps(str(folder)).tensors}


def test_the_compact_form_is_the_default_and_holds_the_text_forms_values(tmp_path, capsys):
    cfg = _project(tmp_path)
    assert main(["reference", "--cfg", str(cfg), "-o", str(tmp_path / "compact"), "--progress", "none"]) == 0
    assert main(["reference", "--cfg", str(cfg), "-o", str(tmp_path / "text"), "--dump-format", "text",
                 "--progress", "none"]) == 0
    compact, text = tmp_path / "compact", tmp_path / "text"
    assert {p.suffix for p in compact.iterdir() if p.is_file() and p.name != "nnie-triage-dumps.json"} == {".npz"}
    assert {p.suffix for p in text.iterdir() if p.is_file() and p.name != "nnie-triage-dumps.json"} == {".float"}
    a, b = _values(compact), _values(text)
    assert a.keys() == b.keys() and all(np.array_equal(a[k].view(np.uint32), b[k].view(np.uint32)) for k in a)
    manifest = json.loads((compact / "nnie-triage-dumps.json").read_text())
    assert manifest["dump_format"] == "compact"
    assert json.loads((text / "nnie-triage-dumps.json").read_text())["options"]["dump_format"] == "text"
    # the in-place chain's overwritten values go the same way, and the manifest lists them
    assert any(f.startswith(".inplace/") and f.endswith(".npz") for f in manifest["files"])
    sizes = {name: sum(p.stat().st_size for p in folder.rglob("*_caffe.linear.*"))
             for name, folder in (("compact", compact), ("text", text))}
    assert sizes["compact"] * 5 < sizes["text"]
    sim = tmp_path / "sim"
    assert main(["emulate", "--cfg", str(cfg), "-o", str(sim), "--progress", "none"]) == 0
    docs = []
    for ref in (compact, text):
        out = tmp_path / f"{ref.name}.json"
        assert main(["compare", "--reference", str(ref), "--sim", str(sim), "--cfg", str(cfg), "--format", "json",
                     "--output", str(out), "--progress", "none", "--no-record"]) == 0
        docs.append(json.loads(out.read_text()))
    assert docs[0]["verdict"] == docs[1]["verdict"]
    # the same values: cosines equal to the text parser's last float64 bit
    assert np.allclose([r["cosine"] for r in docs[0]["layers"]], [r["cosine"] for r in docs[1]["layers"]],
                       rtol=0, atol=1e-12)


def test_a_reference_that_fails_to_run_leaves_the_previous_dumps(tmp_path, capsys):
    cfg = _project(tmp_path)
    out = tmp_path / "ref"
    assert main(["reference", "--cfg", str(cfg), "-o", str(out), "--progress", "none"]) == 0
    before = sorted(p.name for p in out.iterdir())
    broken = tmp_path / "broken.caffemodel"
    broken.write_bytes(b"not a caffemodel")
    assert main(["reference", "--cfg", str(cfg), "-o", str(out), "--caffemodel", str(broken),
                 "--progress", "none"]) == 2
    assert sorted(p.name for p in out.iterdir()) == before
    assert len(scan_dumps(str(out)).tensors) == 8   # data and the seven blobs of det1, readable


def test_the_form_is_recorded_and_made_again_so(tmp_path, capsys):
    from nnie_lsp.triage.inputs.dump_runs import dump_form
    from nnie_lsp.triage.inputs.image_sets import read_manifest
    from nnie_lsp.triage.inputs.run_options import RunOptions

    cfg = _project(tmp_path)
    out = tmp_path / "text"
    assert main(["reference", "--cfg", str(cfg), "-o", str(out), "--dump-format", "text", "--progress", "none"]) == 0
    again = RunOptions.from_manifest(read_manifest(out), out, str(cfg))
    assert again.dump_format == "text" and dump_form(None, again) == "text"
    assert dump_form(None, RunOptions(command="reference")) == "compact"   # none recorded: the default
