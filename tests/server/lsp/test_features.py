"""The pure editor features (no server): i18n catalogue, encodings, actions, completion, rename."""

from __future__ import annotations

import json
import re
import string

import pytest

from nnie_lsp.core import i18n
from nnie_lsp.core.diagnostics import Applicability, Diagnostic, FileEdit, Fix
from nnie_lsp.editor import actions as fa
from nnie_lsp.editor import completion as fc
from nnie_lsp.editor import hover as fh
from nnie_lsp.editor import navigation as fn
from nnie_lsp.editor.common import document_kind
from nnie_lsp.project.project import cached_prototxt
from nnie_lsp.testing.synth_nets import generate_big_prototxt
from nnie_lsp.server.config import choose_language, parse_settings
from nnie_lsp.server.convert import Encoder, changes_from_data, fix_data, uri_of
from nnie_lsp.project.settings import SettingsError
from nnie_lsp.core.text import LineIndex, Position, Range, TextEdit, apply_edits

from .conftest import EXAMPLE, apply_text_edits


def fields(s: str) -> set[str]:
    return {f for _, f, _, _ in string.Formatter().parse(s) if f}


@pytest.mark.parametrize("key", sorted(i18n.UI))
def test_every_ui_string_has_both_languages(key):
    en, zh = i18n.UI[key]
    assert en.strip() and zh.strip()
    assert fields(en) == fields(zh), key
    assert re.search(r"[\u4e00-\u9fff]", zh) or key == "hover.blob", f"{key}: zh text is not Chinese"


def test_encoder_round_trips_non_ascii():
    line = "name: \"层😀x\"  # 注释"
    for enc, col_x in (("utf-16", 10), ("utf-8", 14), ("utf-32", 9)):
        e = Encoder(enc)
        cp = line.index("x")
        assert e.to_lsp_col(line, cp) == col_x, enc
        assert e.from_lsp_col(line, col_x) == cp, enc
    assert Encoder("utf-16").to_lsp_col("abc", 2) == 2


def test_document_kind_sniffs_cfg_content():
    assert document_kind("/p/setup.cfg", "ini", "[metadata]\nname = x\n") is None
    assert document_kind("/p/a.cfg", "properties", "[net_type] 0\n") == "cfg"
    assert document_kind("/p/x.txt", "nnie-cfg", "") == "cfg"
    assert document_kind("/p/m.prototxt", "plaintext", "") == "prototxt"


def test_disable_line_edits():
    proto = 'layer {\n  top: "a"\n  top: "b"  # nnie-lint: disable=NN301\n}\n'
    e = fa.disable_line_edit(proto, 1, "NN302", "prototxt")
    assert apply_edits(proto, [e]).split("\n")[1] == '  top: "a"  # nnie-lint: disable=NN302'
    e = fa.disable_line_edit(proto, 2, "NN302", "prototxt")
    assert apply_edits(proto, [e]).split("\n")[2].endswith("disable=NN301,NN302")
    cfg = "[net_type] 0\n[mean_file] ./m.txt   # x\n"
    e = fa.disable_line_edit(cfg, 1, "NN007", "cfg")
    out = apply_edits(cfg, [e])
    assert out.split("\n")[1:3] == ["# nnie-lint: disable=NN007", "[mean_file] ./m.txt   # x"]
    e2 = fa.disable_line_edit(out, 2, "NN102", "cfg")
    assert apply_edits(out, [e2]).split("\n")[1] == "# nnie-lint: disable=NN007,NN102"


def test_fix_all_is_safe_and_non_overlapping(tmp_path):
    p = str(tmp_path / "a.prototxt")
    other = str(tmp_path / "b.cfg")
    r = Range.of(0, 0, 0, 3)

    def d(code, fix):
        return Diagnostic(code, "m", p, r, fix=fix)
    safe1 = Fix("one", Applicability.SAFE, (FileEdit(p, TextEdit(r, "xyz")),))
    overlapping = Fix("two", Applicability.SAFE, (FileEdit(p, TextEdit(Range.of(0, 1, 0, 2), "q")),))
    unsafe = Fix("three", Applicability.UNSAFE, (FileEdit(p, TextEdit(Range.of(1, 0, 1, 1), "u")),))
    elsewhere = Fix("four", Applicability.SAFE, (FileEdit(other, TextEdit(r, "c")),))
    act = fa.fix_all([d("NN1", safe1), d("NN2", overlapping), d("NN3", unsafe), d("NN4", elsewhere)], p)
    assert act.kind == "source.fixAll.nnie" and act.codes == ("NN1",)
    assert [e.new_text for e in act.edits[p]] == ["xyz"]
    assert fa.fix_all([d("NN3", unsafe)], p) is None
    assert fa.fix_title("three", "NN3", safe=False).startswith("three (NN3) (unsafe")
    assert fa.fix_title("one", "NN1", safe=True) == "one (NN1)"


def test_fix_data_is_a_ready_workspace_edit(tmp_path):
    """Diagnostic.data carries the fix as LSP changes: client encoding, the file's line breaks."""
    path = str(tmp_path / "a.prototxt")
    text = 'name: "网络"\r\nlayer { name: "𝒳a" top: "x" }\r\n'
    line = text.split("\r\n")[1]
    col = line.index('"x"')
    edit = TextEdit(Range.of(1, col, 1, col + 3), '"y"\n  bottom: "z"')
    fix = Fix("retarget", Applicability.SAFE, (FileEdit(path, edit),))
    data = fix_data(fix, lambda p: LineIndex(text), Encoder("utf-16"), {path: 7})
    uri = uri_of(path)
    assert list(data["changes"]) == [uri] and data["versions"] == {uri: 7}
    assert data["applicability"] == "safe" and data["message"] == "retarget"
    assert data["changes"][uri][0]["range"]["start"] == {"line": 1, "character": col + 1}  # 𝒳 is 2 UTF-16 units
    changes = changes_from_data(json.loads(json.dumps(data)))  # as the client sends it back
    expected = apply_edits(text, [TextEdit(edit.range, '"y"\r\n  bottom: "z"')])
    assert apply_text_edits(text, changes[uri], "utf-16") == expected
    utf8 = fix_data(fix, lambda p: LineIndex(text), Encoder("utf-8"), {})
    assert utf8["changes"][uri][0]["range"]["start"]["character"] == len(line[:col].encode("utf-8"))
    assert utf8["versions"] == {}
    for bad in ({"changes": {}}, {"changes": {uri: [{"range": {"start": {"line": -1, "character": 0},
                                                              "end": {"line": 0, "character": 0}}, "newText": ""}]}},
                {"changes": {uri: [{"newText": "x"}]}}, {"changes": {uri: "x"}}):
        with pytest.raises((KeyError, ValueError, TypeError)):
            changes_from_data(bad)


def test_cfg_completion_keys_and_values():
    items = fc.cfg_completions("[norm", Position(0, 5), "en", snippets=True)
    nt = next(i for i in items if i.label == "[norm_type]")
    assert nt.snippet and nt.insert_text.startswith("[norm_type] ${1|0,1,2,3,4,5|}")
    assert nt.replace == Range.of(0, 0, 0, 5)
    plain = fc.cfg_completions("", Position(0, 0), "en", snippets=False)
    assert next(i for i in plain if i.label == "[norm_type]").insert_text == "[norm_type] 0"
    values = fc.cfg_completions("[RGB_order] ", Position(0, 12), "zh")
    assert [v.label for v in values] == ["RGB", "BGR"]
    assert fc.cfg_completions("[image_list] ./a", Position(0, 16)) == []


def test_cfg_key_completion_ranks_keys_already_set_last():
    text = "[prototxt_file] ./net.prototxt\n[RGB_order] BGR\n[norm_type] 5\n\n[caffemodel_file] ./net.caffemodel\n"
    items = sorted(fc.cfg_completions("", Position(3, 0), "en", text=text), key=lambda i: i.sort_text)
    labels = [i.label for i in items]
    # keys set that cannot repeat come after every other key; the required ones not set come first
    assert set(labels[-2:]) == {"[prototxt_file]", "[caffemodel_file]"}
    required_missing = [i.label for i in items if i.sort_text.startswith("0")]
    assert required_missing and labels[:len(required_missing)] == required_missing
    assert "[prototxt_file]" not in required_missing and "[caffemodel_file]" not in required_missing
    # per-input keys may be given again (one per network input): not ranked last
    assert labels.index("[RGB_order]") < len(labels) - 2 and labels.index("[norm_type]") < len(labels) - 2
    # the key on the cursor's own line does not count as set
    on_line = fc.cfg_completions("[proto", Position(0, 6), "en", text=text)
    assert next(i for i in on_line if i.label == "[prototxt_file]").sort_text.startswith("0")


def test_prototxt_completion_fields_enums_blobs():
    text = (EXAMPLE / "model.prototxt").read_text()
    doc, graph = cached_prototxt(text, str(EXAMPLE / "model.prototxt"))
    lines = text.split("\n")
    k = next(i for i, x in enumerate(lines) if "kernel_size: 3" in x)
    items = fc.prototxt_completions(doc, graph, Position(k, 4), "en", text_line="    ")
    assert {"num_output", "kernel_size", "stride", "weight_filler"} <= {i.label for i in items}
    pool = next(i for i, x in enumerate(lines) if x.strip().startswith("pool:"))
    items = fc.prototxt_completions(doc, graph, Position(pool, len("    pool: ")), "en", text_line="    pool: ")
    assert {"MAX", "AVE"} <= {i.label for i in items}
    name = next(i for i, x in enumerate(lines) if 'name: "layer1-conv"' in x)
    items = fc.prototxt_completions(doc, graph, Position(name, 2), "en", text_line="  ")
    labels = [i.label for i in sorted(items, key=lambda i: i.sort_text)]
    assert labels[0] == "convolution_param"  # the layer's own param block first


def test_rename_refuses_collisions_and_bad_names():
    text = (EXAMPLE / "model.prototxt").read_text()
    doc, graph = cached_prototxt(text, str(EXAMPLE / "model.prototxt"))
    line = next(i for i, x in enumerate(text.split("\n")) if 'top: "layer1-conv"' in x)
    pos = Position(line, text.split("\n")[line].index("layer1-conv"))
    with pytest.raises(fn.RenameError, match="already exists"):
        fn.rename(doc, graph, pos, "layer10-route")
    with pytest.raises(fn.RenameError, match="quotes"):
        fn.rename(doc, graph, pos, 'a"b')
    with pytest.raises(fn.RenameError, match="已存在"):
        fn.rename(doc, graph, pos, "layer10-route", lang="zh")
    edits = fn.rename(doc, graph, pos, "c1")
    new = apply_edits(text, edits)
    assert '"layer1-conv"' in new  # the layer name stays
    assert new.count('"c1"') == len(edits) == text.count('bottom: "layer1-conv"') + text.count('top: "layer1-conv"')


def test_hover_suppression_code_and_cfg_value():
    md, rng = fh.suppression_hover("  top: \"x\"  # nnie-lint: disable=NN301,NN302", Position(0, 42), "en")
    assert "NN302" in md and "NN301 (" not in md and rng.start.character == 39
    assert fh.suppression_hover("top: \"NN301\"", Position(0, 8)) is None
    from nnie_lsp.lint import project_for_file
    from nnie_lsp.project.settings import LintSettings
    project = project_for_file(str(EXAMPLE / "tiny_face_inst.cfg"), settings=LintSettings(), is_cfg=True)
    line = next(e.line for e in project.cfg.entries if e.key == "norm_type")
    md, _ = fh.cfg_hover(project, Position(line, 12), "zh")
    assert "乘以 data_scale" in md


def test_settings_validation_and_language():
    s = parse_settings({"lint.run": "onSave", "lint.select": ["NN3"], "sourceFramework": "darknet"})
    assert s.run == "onSave" and s.lint_settings().select == ("NN3",)
    assert s.lint_settings().source_framework == "darknet"
    for bad in ({"lint": {"run": "x"}}, {"lint": {"severity": {"NN301": "loud"}}}, {"colour": 1},
                {"sourceFramework": "caffe2"}, {"lint": {"debounce": -1}}, {"language": "fr"}):
        with pytest.raises(SettingsError):
            parse_settings(bad)
    assert choose_language("auto", "zh-CN") == "zh" and choose_language("en", "zh-CN") == "en"
    assert choose_language("auto", None, cli="zh") == "zh"


def test_big_file_features_work():
    text = generate_big_prototxt(2000)
    assert text.count("\n") > 28000
    doc, graph = cached_prototxt(text, "/tmp/big.prototxt")
    syms = fn.prototxt_symbols(doc, graph)
    folds = fn.prototxt_folding(doc)
    mid = doc.layers[1000]
    blob, rng = mid.bottoms[0]
    md, _ = fh.prototxt_hover(doc, graph, rng.start, "en")
    locs = fn.prototxt_definition(doc, graph, rng.start)
    assert len([s for s in syms if s.kind == "layer"]) == len(doc.layers)
    assert len(folds) >= len(doc.layers) and blob in md and locs


def test_client_only_settings_are_accepted():
    """VS Code sends the whole `nnie` section; keys only the client uses must not void the rest."""
    from nnie_lsp.server.config import parse_settings
    s = parse_settings({"server": {"command": ["python3", "-m", "nnie_lsp"]}, "interpreter": "/usr/bin/python3",
                        "cfgFilePatterns": ["**/*_inst.cfg"], "lint": {"ignore": ["NN304"]}})
    assert "NN304" in s.lint_settings().ignore
    with pytest.raises(SettingsError):
        parse_settings({"lnt": {}})


def test_cfg_path_completion(tmp_path):
    from nnie_lsp.editor.completion import cfg_completions
    (tmp_path / "net.prototxt").write_text("name: 'x'\n")
    (tmp_path / "net.caffemodel").write_bytes(b"\0")
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "big.prototxt").write_text("")
    line = "[prototxt_file] ./"
    items = sorted(cfg_completions(line, Position(0, len(line)), base_dir=str(tmp_path)), key=lambda i: i.sort_text)
    labels = [i.label for i in items]
    assert labels == ["./net.prototxt", "./models/"]  # files first, then folders
    assert items[0].replace.start.character == len("[prototxt_file] ")
    line = "[prototxt_file] models/b"
    labels = [i.label for i in cfg_completions(line, Position(0, len(line)), base_dir=str(tmp_path))]
    assert labels == ["models/big.prototxt"]
    line = "[caffemodel_file] "
    assert sorted(i.label for i in cfg_completions(line, Position(0, len(line)), base_dir=str(tmp_path))) == \
        ["./models/", "./net.caffemodel"]  # an empty value gets the usual ./ prefix
    # enum values still complete as before
    line = "[norm_type] "
    assert [i.label for i in cfg_completions(line, Position(0, len(line)), base_dir=str(tmp_path))][:2] == ["0", "1"]
