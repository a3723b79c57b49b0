"""End-to-end: the server over stdio with VS Code-like and Neovim-like client capabilities."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException

from .conftest import apply_text_edits, edit_changes, find_line, raw_request, start_session

pytestmark = pytest.mark.asyncio


def codes(items) -> list[str]:
    return sorted(str(d.code) for d in items)


async def test_diagnostics_push_or_pull(client, project):
    result = await start_session(client, client.preset)
    # VS Code (since 1.68) pulls and can be told to pull again; Neovim 0.11 pulls without refresh
    # support, so it is pushed to
    assert client.pull == (client.preset == "visual-studio-code")
    uri = client.open(project / "model.prototxt", "prototxt")
    items = await client.diagnostics_for(uri, predicate=lambda ds: "NN301" in codes(ds))
    assert {"NN016", "NN301", "NN302", "NN304"} <= set(codes(items))
    nn301 = next(d for d in items if d.code == "NN301")
    text = client.texts[uri]
    line = find_line(text, 'name: "layer10-act"')
    assert nn301.range.start.line == line
    assert nn301.range.start.character == text.split("\n")[line].index('"layer10-act"')
    assert nn301.source == "nnie-lint"
    # the code link opens rules.md at the rule: a line fragment VS Code honours, on the rule's heading
    href = nn301.code_description.href
    doc, fragment = href.split("#L")
    rules = Path(doc.removeprefix("file://")).read_text(encoding="utf-8").split("\n")
    assert rules[int(fragment) - 1].startswith("## NN301 ") and rules[int(fragment) - 2] == '<a id="nn301"></a>'
    assert nn301.severity in (lsp.DiagnosticSeverity.Warning, lsp.DiagnosticSeverity.Error)
    assert nn301.related_information and nn301.related_information[0].location.uri == uri
    assert nn301.data["fix"]["applicability"] == "safe"
    # the fix travels as WorkspaceEdit changes in the client's encoding, for the version it was made on
    assert list(nn301.data["fix"]["changes"]) == [uri] and nn301.data["fix"]["versions"] == {uri: 1}
    fixed = apply_text_edits(text, [lsp.TextEdit(range=lsp.Range(
        start=lsp.Position(**e["range"]["start"]), end=lsp.Position(**e["range"]["end"])), new_text=e["newText"])
        for e in nn301.data["fix"]["changes"][uri]], client.encoding)
    assert 'top: "layer10-act"' in fixed and fixed != text
    if client.pull:
        await asyncio.sleep(0.5)
        assert uri not in client.published, "a pull client must never get pushed diagnostics"
        assert result.capabilities.diagnostic_provider.inter_file_dependencies is True
    else:
        assert result.capabilities.diagnostic_provider is None
    # the cfg: its own findings only, with a cross-file fix edit for NN202
    cfg_uri = client.open(project / "tiny_face_inst.cfg", "nnie-cfg")
    cfg_items = await client.diagnostics_for(cfg_uri, predicate=lambda ds: "NN202" in codes(ds))
    assert {"NN108", "NN202", "NN106"} <= set(codes(cfg_items))
    assert not {"NN301", "NN302"} & set(codes(cfg_items))
    nn202 = next(d for d in cfg_items if d.code == "NN202")
    assert list(nn202.data["fix"]["changes"]) == [uri]  # the edit is in the (open) prototxt


async def test_quick_fix_clears_its_diagnostic(client, project):
    await start_session(client, client.preset)
    uri = client.open(project / "model.prototxt", "prototxt")
    items = await client.diagnostics_for(uri, predicate=lambda ds: "NN301" in codes(ds))
    nn301 = next(d for d in items if d.code == "NN301")
    actions = await client.text_document_code_action_async(lsp.CodeActionParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), range=nn301.range,
        context=lsp.CodeActionContext(diagnostics=[nn301])))
    titles = [a.title for a in actions]
    assert any("Disable NN301 for this line" == t for t in titles), titles
    fix = next(a for a in actions if a.is_preferred)
    assert fix.kind == lsp.CodeActionKind.QuickFix and "NN301" in fix.title
    # the editor applies it (same path as a workspace/applyEdit from the server)
    client.apply_workspace_edit(fix.edit)
    version = client.versions[uri]
    after = await client.diagnostics_for(uri, min_version=version, predicate=lambda ds: "NN301" not in codes(ds))
    assert "NN302" in codes(after)
    assert 'top: "layer10-act"' in client.texts[uri]


async def test_disable_line_and_fix_all(client, project):
    await start_session(client, client.preset)
    uri = client.open(project / "model.prototxt", "prototxt")
    items = await client.diagnostics_for(uri, predicate=lambda ds: "NN302" in codes(ds))
    nn302 = next(d for d in items if d.code == "NN302")
    only_fix_all = await client.text_document_code_action_async(lsp.CodeActionParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), range=nn302.range,
        context=lsp.CodeActionContext(diagnostics=[], only=[lsp.CodeActionKind.SourceFixAll])))
    assert [a.kind for a in only_fix_all] == ["source.fixAll.nnie"]
    quick_only = await client.text_document_code_action_async(lsp.CodeActionParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), range=nn302.range,
        context=lsp.CodeActionContext(diagnostics=[nn302], only=[lsp.CodeActionKind.QuickFix])))
    assert quick_only and all(a.kind == lsp.CodeActionKind.QuickFix for a in quick_only)
    disable = next(a for a in quick_only if a.title == "Disable NN302 for this line")
    client.apply_workspace_edit(disable.edit)
    line = client.texts[uri].split("\n")[nn302.range.start.line]
    assert line.rstrip().endswith("# nnie-lint: disable=NN302")
    after = await client.diagnostics_for(uri, min_version=client.versions[uri],
                                         predicate=lambda ds: "NN302" not in codes(ds))
    assert "NN301" in codes(after) and "NN901" not in codes(after)
    # fix all safe fixes: NN301 and NN016 go away
    fix_all = await client.text_document_code_action_async(lsp.CodeActionParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), range=nn302.range,
        context=lsp.CodeActionContext(diagnostics=[], only=["source.fixAll.nnie"])))
    assert len(fix_all) == 1
    client.apply_workspace_edit(fix_all[0].edit)
    final = await client.diagnostics_for(uri, min_version=client.versions[uri],
                                         predicate=lambda ds: "NN301" not in codes(ds))
    assert "NN016" not in codes(final)
    assert "input_shape {" in client.texts[uri]


async def test_cross_file_compile_mode(client, project):
    await start_session(client, client.preset)
    proto_path = project / "model.prototxt"
    text = proto_path.read_text().replace('name: "layer1-conv"', 'name: "layer1-conv_hp"')
    puri = client.open(proto_path, "prototxt", text)
    curi = client.open(project / "tiny_face_inst.cfg", "nnie-cfg")
    first = await client.diagnostics_for(puri, predicate=lambda ds: "NN301" in codes(ds))
    assert "NN201" not in codes(first)
    cfg_text = client.texts[curi].replace("[compile_mode] 2", "[compile_mode] 0")
    client.change(curi, cfg_text)  # unsaved: the editor text wins over disk
    after = await client.diagnostics_for(puri, predicate=lambda ds: "NN201" in codes(ds))
    nn201 = next(d for d in after if d.code == "NN201")
    assert nn201.related_information and nn201.related_information[0].location.uri == curi
    client.change(curi, cfg_text.replace("[compile_mode] 0", "[compile_mode] 2"))
    back = await client.diagnostics_for(puri, predicate=lambda ds: "NN201" not in codes(ds) and "NN301" in codes(ds))
    assert "NN201" not in codes(back)


async def test_hover_completion_definition(client, project):
    await start_session(client, client.preset)
    puri = client.open(project / "model.prototxt", "prototxt")
    curi = client.open(project / "tiny_face_inst.cfg", "nnie-cfg")
    text = client.texts[puri]
    lines = text.split("\n")
    concat = find_line(text, 'type: "Concat"')
    h = await client.text_document_hover_async(lsp.HoverParams(
        text_document=lsp.TextDocumentIdentifier(uri=puri), position=lsp.Position(line=concat, character=lines[concat].index("Concat") + 1)))
    assert "**Concat**" in h.contents.value and "NNIE" in h.contents.value
    act = find_line(text, 'name: "layer10-act"')
    bottom = find_line(text, 'bottom: "layer10-route"', act - 3)
    col = lines[bottom].index("layer10-route")
    h = await client.text_document_hover_async(lsp.HoverParams(
        text_document=lsp.TextDocumentIdentifier(uri=puri), position=lsp.Position(line=bottom, character=col)))
    assert "Produced by" in h.contents.value and "layer10-act" in h.contents.value  # producer + in-place chain
    ctext = client.texts[curi].split("\n")
    nt = next(i for i, x in enumerate(ctext) if x.startswith("[norm_type]"))
    h = await client.text_document_hover_async(lsp.HoverParams(
        text_document=lsp.TextDocumentIdentifier(uri=curi), position=lsp.Position(line=nt, character=3)))
    assert "[norm_type]" in h.contents.value and "data_scale" in h.contents.value
    # definition: bottom -> producing layer's top
    d = await client.text_document_definition_async(lsp.DefinitionParams(
        text_document=lsp.TextDocumentIdentifier(uri=puri), position=lsp.Position(line=bottom, character=col)))
    route_top = find_line(text, 'top: "layer10-route"')
    assert d[0].uri == puri and d[0].range.start.line == route_top
    # definition: cfg path -> file
    pl = next(i for i, x in enumerate(ctext) if x.startswith("[prototxt_file]"))
    d = await client.text_document_definition_async(lsp.DefinitionParams(
        text_document=lsp.TextDocumentIdentifier(uri=curi), position=lsp.Position(line=pl, character=18)))
    assert d[0].uri == puri
    # completion: cfg keys with a value snippet, prototxt layer types and blob names
    client.change(curi, client.texts[curi] + "\n[norm")
    last = len(client.texts[curi].split("\n")) - 1
    comp = await client.text_document_completion_async(lsp.CompletionParams(
        text_document=lsp.TextDocumentIdentifier(uri=curi), position=lsp.Position(line=last, character=5)))
    item = next(i for i in comp.items if i.label == "[norm_type]")
    assert item.text_edit.new_text.startswith("[norm_type] ")
    if client.preset == "visual-studio-code":
        assert item.insert_text_format == lsp.InsertTextFormat.Snippet and "${1|0,1,2,3,4,5|}" in item.text_edit.new_text
    new_text = text.replace('type: "Concat"', 'type: "Con')
    client.change(puri, new_text)
    comp = await client.text_document_completion_async(lsp.CompletionParams(
        text_document=lsp.TextDocumentIdentifier(uri=puri),
        position=lsp.Position(line=concat, character=len(new_text.split("\n")[concat]))))
    labels = {i.label for i in comp.items}
    assert {"Concat", "Convolution", "ReLU"} <= labels
    client.change(puri, text)
    comp = await client.text_document_completion_async(lsp.CompletionParams(
        text_document=lsp.TextDocumentIdentifier(uri=puri), position=lsp.Position(line=bottom, character=col)))
    blob_labels = [i.label for i in comp.items]
    assert "layer10-route" in blob_labels and "layer14-fc" not in blob_labels  # only blobs produced before


async def test_rename_blob_and_layer(client, project):
    await start_session(client, client.preset)
    puri = client.open(project / "model.prototxt", "prototxt")
    text = client.texts[puri]
    lines = text.split("\n")
    top = find_line(text, 'top: "layer10-route"')
    pos = lsp.Position(line=top, character=lines[top].index("layer10-route") + 2)
    prep = await client.text_document_prepare_rename_async(lsp.PrepareRenameParams(
        text_document=lsp.TextDocumentIdentifier(uri=puri), position=pos))
    assert prep is not None
    edit = await client.text_document_rename_async(lsp.RenameParams(
        text_document=lsp.TextDocumentIdentifier(uri=puri), position=pos, new_name="route10"))
    n = text.count('"layer10-route"') - 1  # the layer's own name is not a blob reference
    assert len(edit_changes(edit)[puri]) == n and n >= 3
    new = apply_text_edits(text, edit_changes(edit)[puri], client.encoding)
    assert 'name: "layer10-route"' in new and new.count('"route10"') == n
    with pytest.raises(JsonRpcException) as exc:
        await client.text_document_rename_async(lsp.RenameParams(
            text_document=lsp.TextDocumentIdentifier(uri=puri), position=pos, new_name="layer14-fc"))
    assert "already exists" in str(exc.value)
    name_line = find_line(text, 'name: "layer10-act"')
    lpos = lsp.Position(line=name_line, character=lines[name_line].index("layer10-act"))
    edit = await client.text_document_rename_async(lsp.RenameParams(
        text_document=lsp.TextDocumentIdentifier(uri=puri), position=lpos, new_name="relu10"))
    assert len(edit_changes(edit)[puri]) == 1 and edit_changes(edit)[puri][0].new_text == '"relu10"'
    with pytest.raises(JsonRpcException):
        await client.text_document_rename_async(lsp.RenameParams(
            text_document=lsp.TextDocumentIdentifier(uri=puri), position=lpos, new_name="layer1-bn"))
    refs = await client.text_document_references_async(lsp.ReferenceParams(
        text_document=lsp.TextDocumentIdentifier(uri=puri), position=pos,
        context=lsp.ReferenceContext(include_declaration=True)))
    assert len(refs) == n


async def test_formatting_symbols_links_folding(client, project):
    await start_session(client, client.preset)
    messy = 'name:"n"\ninput:   "data"\nlayer{name:"c1" type:"Convolution"  bottom:"data" top:"c1"   # conv\n' \
            'convolution_param{num_output:4 kernel_size:3}}\n'
    path = project / "messy.prototxt"
    path.write_text(messy)
    uri = client.open(path, "prototxt")
    edits = await client.text_document_formatting_async(lsp.DocumentFormattingParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), options=lsp.FormattingOptions(tab_size=2, insert_spaces=True)))
    assert edits
    formatted = apply_text_edits(messy, edits, client.encoding)
    assert '  name: "c1"' in formatted and "# conv" in formatted and "    num_output: 4" in formatted
    client.change(uri, formatted)
    again = await client.text_document_formatting_async(lsp.DocumentFormattingParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), options=lsp.FormattingOptions(tab_size=2, insert_spaces=True)))
    assert len(again) == 0
    client.change(uri, formatted + "layer { name: \"x\"\n")
    with pytest.raises(JsonRpcException) as exc:
        await client.text_document_formatting_async(lsp.DocumentFormattingParams(
            text_document=lsp.TextDocumentIdentifier(uri=uri), options=lsp.FormattingOptions(tab_size=2, insert_spaces=True)))
    assert "syntax error" in str(exc.value)
    puri = client.open(project / "model.prototxt", "prototxt")
    syms = await client.text_document_document_symbol_async(lsp.DocumentSymbolParams(
        text_document=lsp.TextDocumentIdentifier(uri=puri)))
    concat = next(s for s in syms if s.name == "layer10-route")
    assert concat.detail == "Concat" and concat.range.end.line > concat.range.start.line
    folds = await client.text_document_folding_range_async(lsp.FoldingRangeParams(
        text_document=lsp.TextDocumentIdentifier(uri=puri)))
    assert len([f for f in folds if f.kind == lsp.FoldingRangeKind.Region]) >= len([s for s in syms if s.detail != "input"])
    curi = client.open(project / "tiny_face_inst.cfg", "nnie-cfg")
    links = await client.text_document_document_link_async(lsp.DocumentLinkParams(
        text_document=lsp.TextDocumentIdentifier(uri=curi)))
    targets = {lk.target.rsplit("/", 1)[-1] for lk in links}
    assert {"model.prototxt", "model.caffemodel", "images.txt", "mean.txt"} <= targets


async def test_malformed_request_gets_error_and_server_survives(client, project):
    await start_session(client, client.preset)
    uri = client.open(project / "model.prototxt", "prototxt")
    with pytest.raises(JsonRpcException) as exc:
        await raw_request(client, lsp.TEXT_DOCUMENT_HOVER, {"textDocument": 5, "position": {"line": "x"}})
    assert exc.value.code == -32602
    # a codeAction whose context carries a malformed diagnostic (pygls alone never answers it)
    with pytest.raises(JsonRpcException):
        await raw_request(client, lsp.TEXT_DOCUMENT_CODE_ACTION, {
            "textDocument": {"uri": uri}, "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}},
            "context": {"diagnostics": [{"message": "x"}]}})
    text = client.texts[uri]
    concat = find_line(text, 'type: "Concat"')
    h = await client.text_document_hover_async(lsp.HoverParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri),
        position=lsp.Position(line=concat, character=text.split("\n")[concat].index("Concat"))))
    assert "Concat" in h.contents.value


async def test_alternative_fixes_are_extra_quick_fixes_never_in_fix_all(client, tmp_path):
    """NN106: the safe fix writes the default 1/256; the 1/255 alternative is offered too, unsafe,
    and source.fixAll takes only the safe one."""
    from .conftest import REPO
    model = REPO / "examples" / "triage" / "model"
    cfg = tmp_path / "net.cfg"
    cfg.write_text(f"[prototxt_file] {model / 'det1.prototxt'}\n[caffemodel_file] {model / 'det1.caffemodel'}\n"
                   "[net_type] 0\n[image_list] ./images.txt\n[image_type] 1\n[norm_type] 3\n[mean_file] null\n")
    (tmp_path / "images.txt").write_text(str(REPO / "examples" / "triage" / "test1.jpg") + "\n")
    await start_session(client, client.preset)
    uri = client.open(cfg, "nnie-cfg")
    items = await client.diagnostics_for(uri, predicate=lambda ds: "NN106" in codes(ds))
    nn106 = next(d for d in items if d.code == "NN106")
    assert len(nn106.data["alternatives"]) == 1
    actions = await client.text_document_code_action_async(lsp.CodeActionParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), range=nn106.range,
        context=lsp.CodeActionContext(diagnostics=[nn106], only=[lsp.CodeActionKind.QuickFix])))
    fixes = [a for a in actions if a.edit is not None and not a.title.startswith("Disable")]
    assert [a.title.split(" (NN106)")[0] for a in fixes] == ["Write the default explicitly: [data_scale] 0.00390625",
                                                            "Set [data_scale] 0.0039215686 (1/255, if the net was trained with x/255)"]
    assert fixes[0].is_preferred and not fixes[1].is_preferred and fixes[1].title.endswith("(unsafe: review the change)")
    fix_all = await client.text_document_code_action_async(lsp.CodeActionParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), range=nn106.range,
        context=lsp.CodeActionContext(diagnostics=[], only=["source.fixAll.nnie"])))
    new_texts = [e.new_text for a in fix_all for edits in edit_changes(a.edit).values() for e in edits]
    assert any("0.00390625" in t for t in new_texts) and not any("0.0039215686" in t for t in new_texts)
