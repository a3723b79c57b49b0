"""Hover and completion explain their sources over stdio (issue 17, point 5): no bare `[S17]`,
`[I]`, `[C-u, S3]`; a status is a plain word and a source a link to its entry in
docs/field-facts.md (a file: URI at the entry's line), in English and Chinese."""

from __future__ import annotations

import re

from lsprotocol import types as lsp

from nnie_lsp.editor.fact_tags import FIELD_FACTS

from .conftest import find_line, start_session

RAW_TAG = re.compile(r"\[(?:C-u|C|I|\?|S\d+)(?:[,;:\s/§][^\[\]]*)?\](?!\()")
FACTS_LINK = re.compile(r"\]\((file://[^ )]*field-facts\.md)#L(\d+) \"")


async def test_hover_and_completion_link_their_sources(client, project):
    await start_session(client, client.preset)
    curi = client.open(project / "tiny_face_inst.cfg", "nnie-cfg")
    puri = client.open(project / "model.prototxt", "prototxt")
    ctext = client.texts[curi].split("\n")
    norm = next(i for i, x in enumerate(ctext) if x.startswith("[norm_type]"))
    hover = await client.text_document_hover_async(lsp.HoverParams(
        text_document=lsp.TextDocumentIdentifier(uri=curi), position=lsp.Position(line=norm, character=3)))
    md = hover.contents.value
    links = FACTS_LINK.findall(md)
    assert links and not RAW_TAG.search(md), md
    page = open(FIELD_FACTS, encoding="utf-8").read().split("\n")
    assert all(page[int(line) - 1].startswith(("- **S", "  - **[")) for _uri, line in links)
    text = client.texts[puri]
    concat = find_line(text, 'type: "Concat"')
    hover = await client.text_document_hover_async(lsp.HoverParams(
        text_document=lsp.TextDocumentIdentifier(uri=puri),
        position=lsp.Position(line=concat, character=text.split("\n")[concat].index("Concat") + 1)))
    assert "**Concat**" in hover.contents.value and not RAW_TAG.search(hover.contents.value)
    # completion documentation too
    client.change(curi, client.texts[curi] + "\n[norm")
    last = len(client.texts[curi].split("\n")) - 1
    comp = await client.text_document_completion_async(lsp.CompletionParams(
        text_document=lsp.TextDocumentIdentifier(uri=curi), position=lsp.Position(line=last, character=5)))
    docs = [i.documentation.value for i in comp.items if isinstance(i.documentation, lsp.MarkupContent)]
    assert docs and not any(RAW_TAG.search(d) for d in docs)


async def test_chinese_hover_uses_chinese_words(client, project):
    await start_session(client, client.preset, locale="zh-cn")
    curi = client.open(project / "tiny_face_inst.cfg", "nnie-cfg")
    ctext = client.texts[curi].split("\n")
    line = next(i for i, x in enumerate(ctext) if x.startswith("[norm_type]"))
    hover = await client.text_document_hover_async(lsp.HoverParams(
        text_document=lsp.TextDocumentIdentifier(uri=curi), position=lsp.Position(line=line, character=3)))
    md = hover.contents.value
    assert not RAW_TAG.search(md) and FACTS_LINK.search(md)
    assert "[已确认](" in md or "[推断](" in md or "[仅由用户报告确认](" in md or "[S" in md
