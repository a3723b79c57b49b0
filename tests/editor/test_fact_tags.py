"""Source and status tags in hover texts explained (nnie_lsp/editor/fact_tags.py): each status a
plain word, each source a link to its entry in docs/field-facts.md; the meanings read from the page."""

from __future__ import annotations

import re
from pathlib import Path

from nnie_lsp.core import i18n
from nnie_lsp.readers.cfg.keys import KEYS
from nnie_lsp.editor import fact_tags
from nnie_lsp.editor import hover as fh
from nnie_lsp.readers.prototxt.layers import LAYERS

PAGE = Path(fact_tags.FIELD_FACTS).read_text(encoding="utf-8").split("\n")
LINK = re.compile(r'\[([^\]]+)\]\((file://[^ )]+)#L(\d+) "([^"\\]*(?:\\.[^"\\]*)*)"\)')
# a tag group left as it was: "[C, S13]", "[I]", "[S16, S19]" (not followed by a link target)
RAW_TAG = re.compile(r"\[(?:C-u|C|I|\?|S\d+)(?:[,;:\s/§][^\[\]]*)?\](?!\()")


def test_the_page_gives_every_status_and_source():
    facts = fact_tags.load()
    assert {k: v.word for k, v in facts.statuses.items()} == {
        "C": "confirmed", "C-u": "confirmed only by user reports", "I": "inferred", "?": "unknown"}
    for tag, entry in facts.statuses.items():
        assert PAGE[entry.line - 1].lstrip().startswith(f"- **[{tag}]**")
        assert i18n.t(f"facts.status.{tag}", "zh")            # a Chinese word for each
    assert {f"S{n}" for n in range(1, 23)} | {"S16b"} <= set(facts.sources)
    for tag, entry in facts.sources.items():
        assert f"**{tag}**" in PAGE[entry.line - 1]
    assert PAGE[facts.sections["15"] - 1].startswith("## 15. Sources")
    assert PAGE[facts.sections["16.4"] - 1].startswith("### 16.4 ")


def test_a_group_becomes_words_and_links():
    text = fact_tags.explain("Limits: group <= 2048 [C-u, S3]; also [I: usual definition].")
    links = LINK.findall(text)
    assert [label for label, *_ in links] == ["confirmed only by user reports", "S3", "inferred"]
    facts = fact_tags.load()
    assert all(url == facts.url for _label, url, _line, _title in links)
    assert int(links[1][2]) == facts.sources["S3"].line and links[1][3].startswith("S3: Public Markdown note")
    assert int(links[0][2]) == facts.statuses["C-u"].line
    assert text.endswith(': usual definition).') and not RAW_TAG.search(text)
    assert fact_tags.explain(text) == text                      # explained once only
    zh = fact_tags.explain("[C, S8 §4.3.1]", "zh")
    assert LINK.findall(zh)[0][0] == "已确认" and "§4.3.1)" in zh


def test_what_is_not_a_tag_is_left_alone():
    for text in ("**[RGB_order]** — nnie_mapper key", "[CfgEntry, ...]", "`[C, S13]` in code", "[S99] unknown",
                 "```\n[C]\n```", "see [the docs](https://example.org)"):
        assert fact_tags.explain(text) == text, text
    assert LINK.findall(fact_tags.explain("[C, corpus] and [C, §16.4, §7.3]"))[1][0] == "corpus"


def test_no_hover_text_shows_a_bare_tag():
    """Every key's and layer type's hover: the tags are all explained (none unknown to the page)."""
    for spec in KEYS.values():
        md = fact_tags.explain(fh.key_markdown(spec, "en"))
        assert not RAW_TAG.search(md), (spec.name, RAW_TAG.search(md))
    for type_ in LAYERS:
        md = fact_tags.explain(fh.layer_type_markdown(type_, "en"))
        assert not RAW_TAG.search(md), (type_, RAW_TAG.search(md))


def test_cfg_hover_is_explained():
    from nnie_lsp.lint import project_for_file
    from nnie_lsp.project.settings import LintSettings
    from nnie_lsp.core.text import Position

    example = Path(__file__).resolve().parents[2] / "examples" / "project"
    project = project_for_file(str(example / "tiny_face_inst.cfg"), settings=LintSettings(), is_cfg=True)
    entry = next(e for e in project.cfg.entries if e.key == "norm_type")
    md, _ = fh.cfg_hover(project, Position(entry.line, 1), "en")
    assert "field-facts.md#L" in md and not RAW_TAG.search(md)
