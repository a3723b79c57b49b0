"""The lint judging the cfg against the model card (NN120-NN124), and the hedged heuristics without
one (NN108, NN109): certainty where the card speaks, both edits where only a guess is possible,
and no fix of ours that makes another finding of ours appear."""

from __future__ import annotations

import itertools
import os

import pytest

from nnie_lsp.core.diagnostics import Severity
from nnie_lsp.lint.driver import fix_files, lint_files
from nnie_lsp.project.settings import LintSettings, settings_from_mapping
from nnie_lsp.core.text import apply_edits

NET = 'name: "n"\ninput: "data"\ninput_shape { dim: 1 dim: 3 dim: 24 dim: 24 }\n'
# a PyTorch RetinaFace exported through ONNX (numeric blob names, the biubug6 family: trained on BGR)
RETINA = ('name: "retinaface"\ninput: "input0"\ninput_shape { dim: 1 dim: 3 dim: 64 dim: 64 }\n'
          + "".join(f'layer {{ name: "Conv_{k}" type: "Convolution" bottom: "{"input0" if k == 0 else 400 + k - 1}" '
                    f'top: "{400 + k}" convolution_param {{ num_output: 8 kernel_size: 3 pad: 1 }} }}\n'
                    for k in range(6)))
CFG_TAIL = "[image_list] ./images.txt\n[image_type] 1\n"


def _project(tmp, cfg: str, card: str | None = None, prototxt: str = NET, files: dict | None = None):
    (tmp / ".git").mkdir(exist_ok=True)
    (tmp / "net.prototxt").write_text(prototxt)
    (tmp / "images.txt").write_text("a.jpg\n")
    (tmp / "a.jpg").write_bytes(b"\xff\xd8")
    (tmp / "net.cfg").write_text("[prototxt_file] ./net.prototxt\n" + CFG_TAIL + cfg)
    if card is not None:
        (tmp / "nnie.toml").write_text('[[model]]\nprototxt = "net.prototxt"\n' + card)
    for name, text in (files or {}).items():
        (tmp / name).write_text(text)
    return [str(tmp / "net.cfg")]


def _lint(files, select=("NN1",)):
    return lint_files(files, settings=settings_from_mapping({"select": list(select)})).diagnostics


def _codes(diags):
    return sorted(d.code for d in diags)


# ------------------------------------------------------------------------------------ the cases

def test_yufacedetectnet_rgb_order_is_a_certain_error_with_the_card(tmp_path):
    files = _project(tmp_path, "[RGB_order] RGB\n[norm_type] 2\n[mean_file] ./mean.txt\n",
                     'channel_order = "BGR"\nmean = [104, 117, 123]\nscale = 1.0\ntranspose = false\n',
                     files={"mean.txt": "104\n117\n123\n"})
    diags = _lint(files)
    assert _codes(diags) == ["NN121"]
    (d,) = diags
    assert d.severity == Severity.ERROR and d.fix is not None and not d.fix.is_safe
    assert d.message.startswith("[RGB_order] RGB, but the model card says the net was trained on BGR (nnie.toml:3)")
    assert d.related[0].path == str(tmp_path / "nnie.toml") and d.related[0].range.start.line == 2
    assert d.related[0].message == 'the model card: channel_order = "BGR"'
    # without the card: NN109 says one of the two is wrong and offers both edits
    os.remove(tmp_path / "nnie.toml")
    (d,) = _lint(files)
    assert d.code == "NN109" and d.fix.message == "Set [RGB_order] BGR (the net was trained on BGR)"
    (alt,) = d.alternatives
    assert alt.message == "Reverse the lines of mean.txt (123 / 117 / 104: the net was trained on RGB)"
    assert apply_edits("104\n117\n123\n", [alt.edits[0].edit]) == "123\n117\n104\n"
    assert "The model card (nnie.toml: channel_order) decides" in d.message


def test_retinaface_bgr_cfg_is_not_told_to_switch_to_rgb(tmp_path):
    """The biubug6 shape: numeric names, a correct BGR cfg whose real mistake is norm_type 3 with
    1/256 and no mean."""
    cfg = "[RGB_order] BGR\n[norm_type] 3\n[data_scale] 0.00390625\n[mean_file] null\n"
    files = _project(tmp_path, cfg, prototxt=RETINA)
    no_card = _lint(files)
    nn108 = [d for d in no_card if d.code == "NN108"]
    assert nn108 and all(d.severity == Severity.INFO for d in nn108)   # a guess: never an error or a warning
    assert "not always" in nn108[0].message and "model card" in nn108[0].message
    assert [f.message for f in nn108[0].alternatives] == ['Declare in nnie.toml that the net was trained on BGR '
                                                          '(channel_order = "BGR")']
    (tmp_path / "nnie.toml").write_text('[[model]]\nprototxt = "net.prototxt"\nchannel_order = "BGR"\n'
                                        'mean = [104, 117, 123]\nscale = 1\n')
    with_card = _lint(files)
    assert _codes(with_card) == ["NN122", "NN123"]
    assert all(d.severity == Severity.ERROR for d in with_card)
    fixed = fix_files(files, unsafe=True, settings=settings_from_mapping({"select": ["NN1"]}))
    cfg_text = fixed.fixed[str(tmp_path / "net.cfg")][1]
    assert "[norm_type] 5" in cfg_text and "[data_scale] 1\n" in cfg_text and "[mean_file] ./channel_mean.txt" in cfg_text
    assert fixed.fixed[str(tmp_path / "channel_mean.txt")] == ("", "104\n117\n123\n")
    assert _codes(fixed.diagnostics) == []


def test_nn108_declare_alternative_creates_the_card_and_settles_it(tmp_path):
    files = _project(tmp_path, "[RGB_order] BGR\n[norm_type] 0\n", prototxt=RETINA)
    (d,) = [d for d in _lint(files) if d.code == "NN108"]
    (alt,) = d.alternatives
    (edit,) = alt.edits
    assert edit.path == str(tmp_path / "nnie.toml")
    (tmp_path / "nnie.toml").write_text(apply_edits("", [edit.edit]))
    assert (tmp_path / "nnie.toml").read_text() == '[[model]]\nprototxt = "net.prototxt"\nchannel_order = "BGR"\n'
    assert _codes(_lint(files, ("NN",))) == _codes([x for x in _lint(files, ("NN",))])   # lints
    assert "NN108" not in _codes(_lint(files)) and not [c for c in _codes(_lint(files)) if c.startswith("NN12")]


def test_nn108_darknet_stays_a_warning(tmp_path):
    darknet = ('name: "d"\ninput: "data"\ninput_shape { dim: 1 dim: 3 dim: 32 dim: 32 }\n'
               + "".join(f'layer {{ name: "layer{k}-conv" type: "Convolution" bottom: "{"data" if k == 1 else f"layer{k - 1}-conv"}" '
                         f'top: "layer{k}-conv" convolution_param {{ num_output: 4 kernel_size: 1 }} }}\n' for k in range(1, 5)))
    files = _project(tmp_path, "[RGB_order] BGR\n[norm_type] 3\n[data_scale] 0.0039215686\n", prototxt=darknet)
    (d,) = [d for d in _lint(files) if d.code == "NN108"]
    assert d.severity == Severity.WARNING and "darknet" in d.message


def test_nn108_quiet_for_a_consistent_bgr_mean_file(tmp_path):
    files = _project(tmp_path, "[RGB_order] BGR\n[norm_type] 2\n[mean_file] ./mean.txt\n", prototxt=RETINA,
                     files={"mean.txt": "104\n117\n123\n"})
    assert "NN108" not in _codes(_lint(files))


def test_card_file_linted_on_its_own(tmp_path):
    (tmp_path / "nnie.toml").write_text('[[model]]\nprototxt = "missing.prototxt"\nchanel_order = "BGR"\n'
                                        '[[model]]\nprototxt = "b.prototxt"\nmean = [1, 2]\nchannel_order = "BGR"\n')
    diags = lint_files([str(tmp_path / "nnie.toml")], settings=LintSettings()).diagnostics
    got = sorted((d.range.start.line + 1, d.message.split(":")[0][:40]) for d in diags)
    assert [line for line, _ in got] == [2, 3, 5, 6]
    assert all(d.code == "NN120" and d.path == str(tmp_path / "nnie.toml") for d in diags)


def test_new_mean_file_never_overwrites_other_values(tmp_path):
    card = 'mean = [104, 117, 123]\n'
    files = _project(tmp_path, "[RGB_order] BGR\n[norm_type] 0\n", card, files={"channel_mean.txt": "1\n2\n3\n"})
    (d,) = _lint(files)
    paths = sorted(os.path.basename(e.path) for e in d.fix.edits)
    assert paths == ["channel_mean_card.txt", "net.cfg", "net.cfg"]
    (tmp_path / "channel_mean_card.txt").write_text("9\n9\n9\n")
    (d,) = _lint(files)
    assert d.fix is None and "104, 117, 123" in d.message
    (tmp_path / "channel_mean_card.txt").write_text("104\n117\n123\n")   # already the card's: reused, not rewritten
    (d,) = _lint(files)
    assert sorted(os.path.basename(e.path) for e in d.fix.edits) == ["net.cfg", "net.cfg"]


def test_nn106_defers_to_the_card(tmp_path):
    files = _project(tmp_path, "[RGB_order] BGR\n[norm_type] 3\n[mean_file] null\n")
    assert "NN106" in _codes(_lint(files))
    (tmp_path / "nnie.toml").write_text('[[model]]\nprototxt = "net.prototxt"\nscale = 0.00390625\n')
    assert _codes(_lint(files)) == []


# ------------------------------------------------------------------------------------ no fix makes a finding

CARDS = {
    "bgr_mean": 'channel_order = "BGR"\nmean = [104, 117, 123]\nscale = 1\n',
    "rgb_127": 'channel_order = "RGB"\nmean = 127.5\nscale = 0.0078125\n',
    "rgb_255": 'channel_order = "RGB"\nmean = 0\nscale = 0.00392156862745098\n',
    "order_only": 'channel_order = "RGB"\n',
    "scale_only": "scale = 0.0078125\n",
    "mean_only": "mean = [128, 128, 128]\n",
}
CFGS = {
    "n0": "[norm_type] 0\n[mean_file] null\n",
    "n3_default": "[RGB_order] RGB\n[norm_type] 3\n[mean_file] null\n",
    "n3_256": "[RGB_order] BGR\n[norm_type] 3\n[data_scale] 0.00390625\n[mean_file] null\n",
    "n2_bgrmean": "[RGB_order] RGB\n[norm_type] 2\n[mean_file] ./mean.txt\n",
    "n5_128": "[RGB_order] BGR\n[norm_type] 5\n[data_scale] 0.0078125\n[mean_file] ./mean.txt\n",
    "n5_other": "[norm_type] 5\n[data_scale] 0.017\n[mean_file] ./mean.txt\n",
}


@pytest.mark.parametrize("card,cfg", list(itertools.product(CARDS, CFGS)))
def test_no_card_fix_makes_another_finding(tmp_path, card, cfg):
    files = _project(tmp_path, CFGS[cfg], CARDS[card], prototxt=RETINA, files={"mean.txt": "104\n117\n123\n"})
    before = _lint(files)
    for d in before:
        for fix in (d.fix, *d.alternatives):
            if fix is None:
                continue
            saved = {}
            for path, edits in _by_path(fix).items():
                saved[path] = open(path).read() if os.path.exists(path) else None
                with open(path, "w") as fh:
                    fh.write(apply_edits(saved[path] or "", edits))
            after = _lint(files)
            new = set(_codes(after)) - set(_codes(before))
            assert not new, f"{card} × {cfg}: {d.code}'s fix {fix.message!r} makes {new}: {[a.message for a in after]}"
            assert (d.code, d.message) not in {(a.code, a.message) for a in after} or d.code == "NN106"
            for path, text in saved.items():
                if text is None:
                    os.remove(path)
                else:
                    with open(path, "w") as fh:
                        fh.write(text)
    # and every fix applied together leaves no card finding
    fixed = fix_files(files, unsafe=True, settings=settings_from_mapping({"select": ["NN1"]}))
    left = [d.code for d in fixed.diagnostics if d.code.startswith("NN12") and d.code != "NN124"]
    assert not left, [d.message for d in fixed.diagnostics]


def _by_path(fix):
    out = {}
    for fe in fix.edits:
        out.setdefault(fe.path, []).append(fe.edit)
    return out


def test_tolerances_are_the_triage_fits():
    from nnie_lsp.readers.card.expect import MEAN_TOLERANCE, SCALE_RTOL
    from nnie_lsp.triage.measure.metrics import Thresholds

    assert MEAN_TOLERANCE == Thresholds().mean_tolerance
    assert SCALE_RTOL == Thresholds().fit_scale_tolerance
