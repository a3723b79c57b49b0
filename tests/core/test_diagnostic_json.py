"""The one Diagnostic/Fix JSON codec (nnie_lsp/core/diagnostic_json.py), the one Diagnostic builder
(rules/context.py) and the one en/zh choice (i18n.py).

Round trip: ``decode(encode(d)) == d`` through the JSON text, for nnie-lint's shape (fixes,
alternatives, related places, any message) and for a triage finding (the ``layer``/``cfg_key``
extension, placed or about the comparison as a whole).  What the shape does not carry is left out
of the generated diagnostics and said here: a related place keeps only its start, a fix has at
least one edit, nnie-lint's shape writes no ``data``, a finding offers no alternatives.
"""

from __future__ import annotations

import json
import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nnie_lsp.core import i18n
from nnie_lsp.core.diagnostic_json import (decode_diagnostic, decode_fix, encode_diagnostic, encode_finding, encode_fix,
                                      rel)
from nnie_lsp.core.diagnostics import Applicability, Diagnostic, FileEdit, Fix, Related, Severity
from nnie_lsp.cli.output import render_json
from nnie_lsp.rules import meta
from nnie_lsp.rules.context import DiagnosticBuilder, RuleContext
from nnie_lsp.project.settings import LintSettings
from nnie_lsp.core.text import Range, TextEdit

PROPERTY = settings(max_examples=int(os.environ.get("NNIE_PROPERTY_EXAMPLES", "60")), deadline=None)

TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=40)  # any message, unicode
SEGMENT = st.text(alphabet="abcxyz_-09éß中文ファイル", min_size=1, max_size=8)
CODES = st.sampled_from(["NN301", "NN106", "NN000", "T102", "T207", "X999"])
N = st.integers(0, 100_000)


@st.composite
def paths(draw) -> str:
    """Absolute, normalised paths: under the working directory, or elsewhere."""
    root = draw(st.sampled_from([os.getcwd(), os.path.dirname(os.getcwd()), os.sep + "elsewhere"]))
    return os.path.join(root, *draw(st.lists(SEGMENT, min_size=1, max_size=4)))


def ranges() -> st.SearchStrategy[Range]:
    return st.builds(Range.of, N, N, N, N)


def points() -> st.SearchStrategy[Range]:
    return st.builds(Range.point, N, N)


def fixes() -> st.SearchStrategy[Fix]:
    edit = st.builds(FileEdit, paths(), st.builds(TextEdit, ranges(), TEXT))
    return st.builds(Fix, TEXT, st.sampled_from(list(Applicability)),
                     st.lists(edit, min_size=1, max_size=3).map(tuple))


def related() -> st.SearchStrategy[tuple[Related, ...]]:
    return st.lists(st.builds(Related, paths(), points(), TEXT), max_size=3).map(tuple)


def diagnostics() -> st.SearchStrategy[Diagnostic]:
    return st.builds(Diagnostic, code=CODES, message=TEXT, path=paths(), range=ranges(),
                     severity=st.sampled_from(list(Severity)), fix=st.none() | fixes(), related=related(),
                     alternatives=st.lists(fixes(), max_size=2).map(tuple), data=st.just(()))


@st.composite
def findings(draw) -> Diagnostic:
    data = {key: draw(SEGMENT) for key in ("layer", "cfg_key") if draw(st.booleans())}
    placed = draw(st.booleans())
    return Diagnostic(code=draw(CODES), message=draw(TEXT), path=draw(paths()) if placed else "",
                      range=draw(ranges()) if placed else Range.point(0, 0),
                      severity=draw(st.sampled_from(list(Severity))), fix=draw(st.none() | fixes()),
                      related=draw(related()), data=tuple(sorted(data.items())))


def _through_json(obj: dict) -> dict:
    return json.loads(json.dumps(obj, ensure_ascii=False, allow_nan=False))


@PROPERTY
@given(diagnostics())
def test_a_diagnostic_round_trips(d):
    assert decode_diagnostic(_through_json(encode_diagnostic(d)), os.getcwd()) == d


@PROPERTY
@given(findings())
def test_a_triage_finding_round_trips(d):
    assert decode_diagnostic(_through_json(encode_finding(d)), os.getcwd()) == d


@PROPERTY
@given(st.none() | fixes())
def test_a_fix_round_trips(fix):
    assert decode_fix(_through_json(encode_fix(fix) or {}), os.getcwd()) == fix


# ------------------------------------------------------------------ the shapes, field by field
CFG = os.path.join(os.getcwd(), "net.cfg")
PROTO = os.path.join(os.getcwd(), "net.prototxt")
FIX = Fix("Set [RGB_order] RGB", Applicability.UNSAFE, (FileEdit(CFG, TextEdit(Range.of(2, 11, 2, 14), "RGB")),))
DIAG = Diagnostic("T102", "通道顺序 BGR", CFG, Range.of(2, 11, 2, 14), Severity.ERROR, FIX,
                  (Related(PROTO, Range.point(1, 7), "the data input"),), (("cfg_key", "RGB_order"), ("layer", "data")))
FIX_JSON = {"applicability": "unsafe", "message": "Set [RGB_order] RGB",
            "edits": [{"path": "net.cfg", "line": 3, "column": 12, "end_line": 3, "end_column": 15, "new_text": "RGB"}]}
RELATED_JSON = [{"path": "net.prototxt", "line": 2, "column": 8, "message": "the data input"}]


def test_nnie_lint_shape():
    obj = encode_diagnostic(DIAG)
    assert list(obj) == ["path", "code", "name", "severity", "message", "line", "column", "end_line", "end_column",
                         "fix", "alternatives", "related", "url"]
    assert obj["path"] == "net.cfg" and obj["name"] == "rgb-order-mismatch" and obj["severity"] == "error"
    assert (obj["line"], obj["column"], obj["end_line"], obj["end_column"]) == (3, 12, 3, 15)
    assert obj["fix"] == FIX_JSON and obj["alternatives"] == [] and obj["related"] == RELATED_JSON
    assert obj["url"].endswith("/nnie_lsp/docs/rules.md#t102")
    assert render_json([DIAG]) == json.dumps([obj], ensure_ascii=False, indent=2) + "\n"


def test_the_triage_finding_extends_the_shape():
    obj = encode_finding(DIAG)
    assert list(obj) == ["code", "name", "severity", "message", "cfg_key", "layer", "path", "line", "column",
                         "end_line", "end_column", "fix", "related", "url"]
    lint = encode_diagnostic(DIAG)
    assert all(obj[key] == lint[key] for key in obj if key in lint)
    assert (obj["cfg_key"], obj["layer"]) == ("RGB_order", "data")
    nowhere = encode_finding(DIAG._replace(path="", data=()))
    assert list(nowhere) == ["code", "name", "severity", "message", "fix", "related", "url"]


def test_decoding_is_lenient_where_the_editor_was():
    obj = {**encode_diagnostic(DIAG), "severity": "fatal", "related": [{"line": 1, "column": 1}, *RELATED_JSON],
           "alternatives": [{"applicability": "safe", "message": "nothing", "edits": []}]}
    d = decode_diagnostic(obj, os.getcwd())
    assert d.severity is Severity.WARNING and len(d.related) == 1 and d.alternatives == ()
    assert decode_fix({"edits": [{"path": "a", "line": 1, "column": 1, "end_line": 1, "end_column": 1,
                                  "new_text": "x"}]}).applicability is Applicability.UNSAFE
    assert decode_diagnostic({"code": "T001", "message": "m"}) == Diagnostic("T001", "m", "", Range.point(0, 0))
    with pytest.raises(ValueError):
        decode_fix({**FIX_JSON, "applicability": "maybe"})
    assert rel(os.path.join(os.getcwd(), "a", "b.cfg")) == os.path.join("a", "b.cfg")


# ------------------------------------------------------------------ one builder, one en/zh choice
@pytest.mark.parametrize("tag, expected", [("en", "en"), ("zh", "zh"), ("zh-cn", "zh"), ("zh_CN", "zh"),
                                           ("ZH-Hans", "zh"), ("", "en"), (None, "en"), ("fr", "en")])
def test_one_language_choice(tag, expected):
    assert i18n.language(tag) == expected
    assert i18n.pick(("english", "中文"), tag) == ("中文" if expected == "zh" else "english")
    assert i18n.is_zh(tag) is (expected == "zh")


@pytest.mark.parametrize("tag, expected", [("en", "en"), ("zh", "zh"), ("zh-cn", "zh"), ("zh_CN", "zh"),
                                           ("ZH-Hans", "zh"), ("", "en"), ("fr", "en")])
def test_every_language_choice_is_the_one(tag, expected):
    """The settings, the server, the rules' docs, the hover and the file problems choose as i18n does."""
    from nnie_lsp.editor.hover import rule_markdown
    from nnie_lsp.core.catalogue import get_rule
    from nnie_lsp.core.safe_io import FileProblem
    from nnie_lsp.server.config import choose_language
    from nnie_lsp.project.settings import normalize_lang

    assert normalize_lang(tag) == expected
    assert choose_language(tag, None) == expected == choose_language("auto", tag) == choose_language("auto", "en", tag)
    assert get_rule("NN101").explain(tag) == get_rule("NN101").explain(expected)
    assert rule_markdown("NN101", tag) == rule_markdown("NN101", expected)
    problem = FileProblem("a.prototxt", "prototxt", "fifo")
    assert problem.describe(tag) == problem.describe(expected)
    assert (problem.describe(tag) == problem.describe()) is (expected == "en")


def test_suppression_codes_come_from_the_meta_helpers():
    from nnie_lsp.rules.suppress import Directive, apply_suppressions

    directive = Directive("line", ("NN999",), 0, Range.of(0, 10, 0, 40), "net.prototxt", set(),
                          (Range.of(0, 30, 0, 35),))
    for lang in ("en", "zh"):
        found = apply_suppressions([], [directive], known_codes={"NN301"}, report_unused=True, lang=lang)
        assert found == [meta.unknown_suppression_code("NN999", "net.prototxt", Range.of(0, 30, 0, 35), lang),
                         meta.unused_suppression("NN999", "net.prototxt", Range.of(0, 10, 0, 40), lang)]
    assert found[0].message == "未知的规则代码 NN999（抑制注释）" and found[1].severity is Severity.INFO


def test_rule_context_and_meta_codes_use_the_one_builder():
    messages = {"m": ("value {v}", "取值 {v}"), "f": ("set {v}", "设为 {v}")}
    ctx = RuleContext("NN106", messages, LintSettings(), "zh", Severity.INFO)
    edit = TextEdit(Range.point(0, 0), "x")
    fix = ctx.fix("f", [("a.cfg", edit)], safe=True, v=1)
    assert fix == Fix("设为 1", Applicability.SAFE, (FileEdit("a.cfg", edit),))
    d = ctx.diag("m", "a.cfg", Range.point(1, 2), fix=fix, data={"z": "1", "a": "2"}, v=3)
    assert d == Diagnostic("NN106", "取值 3", "a.cfg", Range.point(1, 2), Severity.INFO, fix, (), (("a", "2"), ("z", "1")))
    assert d == DiagnosticBuilder("NN106", messages, "zh", Severity.INFO).diag(
        "m", "a.cfg", Range.point(1, 2), fix=fix, data={"z": "1", "a": "2"}, v=3)
    crash = meta.internal_error("NN301", KeyError("k"), "net.prototxt")
    assert crash == Diagnostic("NN000", "internal error in rule NN301: KeyError: 'k' (please report it)",
                               "net.prototxt", Range.point(0, 0), Severity.ERROR)
    assert meta.unused_suppression("NN301", "p", Range.point(3, 4), "zh").severity is Severity.INFO
    assert meta.unknown_suppression_code("NN31", "p", Range.point(3, 4)).severity is Severity.WARNING
    with pytest.raises(KeyError):
        DiagnosticBuilder.of("NN999")
