"""The `.wk` in the editor, without LSP types: the view of a `.wk` file (the server renders it; the
VS Code client shows it in a read-only custom editor, any client can ask ``nnie.describeWk``), the
summary the cfg's ``[instruction_name]`` hover shows and the cfg's code lens.  The cross-check
findings are lint findings (NN600-NN608) and come with the cfg's diagnostics.
"""

from __future__ import annotations

import os

from nnie_lsp.core.text import Position, Range


def wk_view(path: str) -> dict:
    """``{path, title, intact, summary, text, html, error}`` of the `.wk` at ``path`` (read once per
    modification time: :func:`nnie_lsp.readers.mapper.wk_files.load_wk`)."""
    from nnie_lsp.readers.mapper.wk_files import load_wk
    from nnie_lsp.readers.wk.describe import error_html, render_html, render_text, summary, to_json

    path = os.path.abspath(path)
    model, error = load_wk(path)
    title = os.path.basename(path)
    if model is None:
        message = str(error.message) + (f" (at byte {error.offset:#x})" if error.offset is not None else "")
        return {"path": path, "title": title, "intact": False, "summary": None, "text": message,
                "html": error_html(path, message), "error": message, "model": None}
    return {"path": path, "title": title, "intact": model.intact, "summary": summary(model),
            "text": render_text(model), "html": render_html(model), "error": None, "model": to_json(model)}


def instruction_summary(project) -> str | None:
    """Markdown about the `.wk` the cfg builds (its [instruction_name] hover), or None without one."""
    found = getattr(project, "wk", None)
    if found is None:
        return None
    from nnie_lsp.readers.wk.describe import bits_text, integrity_text, mib

    name = found.name
    if found.model is None:
        return f"**{name}** — cannot be read: {found.error.message}\n"
    model = found.model
    memory = model.board_memory()
    lines = [f"**{name}** — {'intact' if model.intact else '**damaged**'}", "",
             f"- built: {bits_text(model)}, {len(model.segments)} segment(s), mapper {model.mapper_version} [I]"]
    for node in model.inputs:
        lines.append(f"- input `{node.name}`: {node.shape_text} (H×W×C), {node.image_type_name}")
    outputs = ", ".join(f"`{n.name}` {n.shape_text}" for n in model.outputs[:9])
    more = f" … ({len(model.outputs)} in all)" if len(model.outputs) > 9 else ""
    lines.append(f"- outputs: {outputs}{more}")
    lines.append(f"- board memory: {mib(memory.temp_buffer)} temp buffer + {mib(memory.blobs)} blobs (N = 1), "
                 f"plus the file ({mib(memory.model_file)})")
    if not model.intact:
        lines.append(f"- {integrity_text(model)}")
    if found.newer_sources:
        lines.append("- older than " + ", ".join(n for n, _ in found.newer_sources) + " by file time")
    return "\n".join(lines) + "\n"


def wk_lens(project) -> tuple[Range, str, str] | None:
    """(range, title, .wk path) of the cfg's code lens about its `.wk`: on the [instruction_name]
    line (the first line when the key is absent)."""
    found = getattr(project, "wk", None)
    if found is None or project.cfg is None:
        return None
    from nnie_lsp.readers.wk.describe import lens_title

    entry = found.entry
    line = entry.line_range.start.line if entry is not None else 0
    rng = Range(Position(line, 0), Position(line, 0))
    if found.model is None:
        return rng, f"{found.name}: cannot be read ({found.error.kind})", found.path
    return rng, lens_title(found.model), found.path
