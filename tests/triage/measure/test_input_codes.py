"""8-bit quantized input dumps (issue 10): `<layer>_input<k>_…_quant.nonlinear.hex` decoded where
the clip is known -- read off the dequantized twin, or calibrated by an emulation -- and otherwise
a reason. The dump is generated in the real shape of docs/field-facts.md §16.5: a 256x10x10 layer
input after a ReLU, 51,200 values (two batch items), a third of them zero, 128 distinct non-zero magnitudes
clip*2^(-k/16) (k = 0..127) with clip 1.0, the twin written as the mapper writes it: C++ stream output, six significant digits (field-facts §16.5)."""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

from nnie_lsp.readers.dumpio.readers import read_text_floats
from nnie_lsp.readers.dumpio.scan import scan_dumps
from nnie_lsp.emulation.codes import (
    CodeFileError,
    clip_from_twin,
    decode_codes,
    on_grid,
    read_codes,
    write_input_dumps,
)

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "triage"


def _relu_input(seed: int = 3, scale: float = 1.0) -> np.ndarray:
    """A post-ReLU (2, 256, 10, 10) tensor whose largest value is exactly ``scale``; 33.5 % zeros
    (the real file holds 51,200 values under a 256_10_10 name: two batch items)."""
    rng = np.random.default_rng(seed)
    x = rng.normal(0.426, 1.0, size=(2, 256, 10, 10))  # P(x <= 0) = 0.335
    x = np.maximum(x, 0.0)
    return x / x.max() * scale


@pytest.fixture
def real_shape(tmp_path) -> tuple[Path, Path, np.ndarray]:
    code_file, twin = write_input_dumps(tmp_path, "conv6_2", 0, _relu_input(), clip=1.0)
    return code_file, twin, _relu_input()


def test_the_generated_dump_has_the_real_shape(real_shape):
    code_file, twin, _ = real_shape
    assert code_file.name == "conv6_2_input0_256_10_10_quant.nonlinear.hex"
    assert twin.name == "conv6_2_input0_256_10_10_anti_quant.float"
    lines = twin.read_text().splitlines()
    stream = re.compile(r"-?(\d+(\.\d+)?|\d(\.\d+)?e[+-]\d\d)")  # C++ `stream << float`: %g, 6 digits
    assert len(lines) == 51200 and all(stream.fullmatch(v) and len(re.sub(r"e.*|\D", "", v).lstrip("0")) <= 6
                                       for v in lines)
    values = read_text_floats(twin)
    assert 0.33 < np.mean(values == 0) < 0.34 and values.min() == 0.0 and values.max() == 1.0
    magnitudes = np.unique(values[values > 0])
    assert len(magnitudes) == 128
    k = -16 * np.log2(magnitudes)
    assert np.all(np.abs(k - np.round(k)) < 0.01) and sorted(np.round(k).astype(int)) == list(range(128))


def test_decoding_with_the_clip_read_off_the_twin(real_shape):
    code_file, twin, original = real_shape
    codes, bits = read_codes(code_file)
    assert bits == 8 and codes.size == 51200
    values = read_text_floats(twin)
    # §16.5 reading: zero is the -0 pattern, positive magnitude code 0 is the smallest level
    assert set(codes[values == 0]) == {0x80}
    assert np.all(values[codes == 0x00] == pytest.approx(2 ** (-127 / 16), abs=5e-7))
    check = clip_from_twin(codes, values)
    assert check.clip == 1.0 and check.agrees and check.max_error <= 5e-7
    decoded = decode_codes(codes, check.clip)
    np.testing.assert_allclose(decoded, values, atol=5e-7)
    # the decoded values are the quantized input itself: within half a log step of the original
    nz = original.reshape(-1) > 2 ** (-127 / 16)
    assert np.all(np.abs(np.log2(decoded[nz] / original.reshape(-1)[nz])) <= 1 / 32 + 1e-9)
    assert on_grid(decoded, 1.0) and not on_grid(decoded * 1.01, 1.0)


def test_the_clip_is_exact_even_when_the_image_does_not_reach_it(tmp_path):
    """The clip comes from the (code, value) pairs, not from the largest value: an image whose
    values stay under the calibrated clip still gives the clip."""
    clip = 2.0 ** (21 / 16)
    code_file, twin = write_input_dumps(tmp_path, "conv3", 1, _relu_input(scale=1.3), clip=clip)
    codes, bits = read_codes(code_file)
    values = read_text_floats(twin)
    assert values.max() < clip / 1.5
    check = clip_from_twin(codes, values, bits)
    assert check.clip == clip and check.agrees


def test_codes_and_a_twin_that_disagree_or_carry_no_level(real_shape):
    code_file, twin, _ = real_shape
    codes, _ = read_codes(code_file)
    values = read_text_floats(twin)
    assert not clip_from_twin(codes, values * 1.01).agrees
    with pytest.raises(CodeFileError, match="every code is zero"):
        clip_from_twin(np.full(10, 0x80), np.zeros(10))
    with pytest.raises(CodeFileError, match="10 codes but 9"):
        clip_from_twin(codes[:10], values[:9])
    bad = code_file.parent / "x_input0_2_quant.nonlinear.hex"
    bad.write_text("80\nzz\n")
    with pytest.raises(CodeFileError, match=r"x_input0_2_quant.nonlinear.hex:2: 'zz'"):
        read_codes(bad)


def test_sixteen_bit_codes(tmp_path):
    clip = 2.0 ** (5000 / 2048)
    code_file, twin = write_input_dumps(tmp_path, "conv1_hp", 0, _relu_input(scale=4.0), clip=clip, bits=16)
    codes, bits = read_codes(code_file)
    assert bits == 16 and code_file.read_text().splitlines()[0].__len__() == 4
    check = clip_from_twin(codes, read_text_floats(twin), bits)
    assert check.clip == pytest.approx(clip, rel=1e-12) and check.agrees


@pytest.fixture(scope="module")
def emulated(tmp_path_factory):
    """The example project's emulation with its layer inputs (`emulate --input-dumps`)."""
    from nnie_lsp.cli.triage import main

    root = tmp_path_factory.mktemp("codes")
    cfg = EXAMPLES / "quant_noise" / "sim.cfg"
    # the images fed transposed, as the example's model card says MTCNN was trained (the reference follows it)
    assert main(["emulate", "--cfg", str(cfg), "--input-dumps", "--transpose", "-o", str(root / "sim")]) == 0
    assert main(["reference", "--cfg", str(cfg), "-o", str(root / "caffe")]) == 0
    return root, cfg


def test_compare_checks_code_files_against_their_twins(emulated, capsys):
    from nnie_lsp.cli.triage import main

    root, cfg = emulated
    capsys.readouterr()
    assert main(["compare", "--reference", str(root / "caffe"), "--sim", str(root / "sim"), "--cfg", str(cfg),
                 "--format", "json", "--no-record"]) == 0
    doc = json.loads(capsys.readouterr().out)
    codes = {c["layer"]: c for c in doc["input_codes"]}
    assert sorted(codes) == ["conv2", "conv3", "conv4-1", "conv4-2", "pool1", "prob1"]
    clips = json.loads((root / "sim" / "nnie-triage-dumps.json").read_text())["clips"]
    for c in codes.values():
        assert c["clip_source"] == "dequantized twin" and c["twin_agrees"] and not c["decoded"]
        assert c["bits"] == 8 and c["reason"] is None
    assert codes["pool1"]["clip"] == pytest.approx(clips["conv1"])
    assert codes["conv4-1"]["clip"] == pytest.approx(clips["conv3"])
    assert not any("nonlinear" in w for w in doc["warnings"])  # the scan's skip note is answered


def test_without_twins_the_emulated_clips_decode_and_otherwise_a_reason(emulated, tmp_path, capsys):
    from nnie_lsp.cli.triage import main
    from nnie_lsp.triage.inputs.load import load_graph
    from nnie_lsp.triage.measure.input_codes import decode_input_codes

    root, cfg = emulated
    bare = tmp_path / "mapper_quant"  # a mapper folder that kept only the codes: no twins, no manifest
    shutil.copytree(root / "sim", bare)
    (bare / "nnie-triage-dumps.json").unlink()
    twins = {}
    for twin in bare.glob("*_anti_quant.float"):
        if twin.name.startswith("conv1_input0_"):  # the net's input (emulate writes no code file for it)
            twin.unlink()
            continue
        twins[twin.name.split("_input")[0]] = read_text_floats(twin)
        twin.unlink()
    graph = load_graph(EXAMPLES / "model" / "det1.prototxt")
    _, reports = decode_input_codes(scan_dumps(bare), None, graph)
    assert len(reports) == 6 and not any(r.decoded for r in reports)
    assert all("--clips" in r.reason for r in reports)
    _, reports = decode_input_codes(scan_dumps(bare), {"conv1": 1.0}, None)
    assert all("without the prototxt" in r.reason for r in reports)

    clips = json.loads((root / "sim" / "nnie-triage-dumps.json").read_text())["clips"]
    dumps, reports = decode_input_codes(scan_dumps(bare), clips, graph)
    assert all(r.decoded and r.clip_source == "emulation" for r in reports)
    decoded = {t.raw_name: t for t in dumps.tensors if t.role == "input"}
    for layer, values in twins.items():
        np.testing.assert_allclose(decoded[layer].load(), values.reshape(decoded[layer].load().shape),
                                   rtol=5e-6, atol=5e-7)  # six significant digits
    capsys.readouterr()
    assert main(["compare", "--reference", str(root / "caffe"), "--sim", str(bare), "--cfg", str(cfg),
                 "--clips", str(root / "sim"), "--format", "json", "--no-record"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["case"] == 4 and all(c["decoded"] for c in doc["input_codes"])
    assert main(["compare", "--reference", str(root / "caffe"), "--sim", str(bare), "--cfg", str(cfg), "--no-record"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "8-bit input dumps: 6 code file(s): 6 not decoded" in text
    assert main(["compare", "--reference", str(root / "caffe"), "--sim", str(bare), "--clips", str(tmp_path)]) == 2
    assert "no clips recorded there" in capsys.readouterr().err
