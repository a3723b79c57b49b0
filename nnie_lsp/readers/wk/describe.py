"""A :class:`~.model.WkModel` told to a person or a program: the table (``nnie-triage wk``), its
JSON (schema in ``docs/triage-schema.md``), an HTML page (the editor's view of a `.wk`), a one-line
summary (``nnie-lint``, the hover) and the cfg's code-lens title.  Every inferred field carries
``[I]`` where it is shown (:data:`.layout.FIELD_STATUS`); the legend at the end of the table says
what the marks mean.
"""

from __future__ import annotations

import html
import os

from nnie_lsp.readers.wk import layout
from nnie_lsp.readers.wk.model import WkModel, WkNode

SCHEMA_VERSION = 1
MIB = 1 << 20


def _i(key: str) -> str:
    """`` [I]`` after an inferred field."""
    return " [I]" if layout.FIELD_STATUS.get(key) == layout.INFERRED else ""


def mib(n: int) -> str:
    """A size for people: bytes, KiB or MiB (``nnie_lsp.core.safe_io.size_text``)."""
    from nnie_lsp.core.safe_io import size_text

    return size_text(n)


def size_text(n: int) -> str:
    return f"{n:,} B ({mib(n)})" if n >= 1 << 17 else f"{n:,} B"


def integrity_text(model: WkModel) -> str:
    if model.intact:
        return (f"intact: CRC-32 {model.crc_stored:#010x} matches; size {model.file_size:,} B = "
                "[0x34]+[0x38]+[0xB4]")
    return "DAMAGED: " + "; ".join(f"{d.message} (at byte {d.offset:#x})" for d in model.damage)


def census_counts(census) -> str:
    """``122 2-byte, 88 4-byte S32 blobs``: the memory plan's records by bytes per element."""
    parts = [f"{n} {what}" for n, what in ((census.one, "1-byte"), (census.two, "2-byte"),
                                            (census.four, "4-byte S32"), (census.other, "other")) if n]
    text = ", ".join(parts) + " blobs" if parts else "no blob records"
    if census.packed:
        text += f"; {census.packed} of the 1-byte ones with 4 bytes per column in the row stride"
    return text


def bits_text(model: WkModel, segment: int | None = None) -> str:
    census = model.census(segment)
    if census is None:
        return "not known per segment (the memory plan's records do not name their segment)"
    return f"{census.verdict}{_i('element_size')} ({census_counts(census)})"


def summary(model: WkModel) -> str:
    """One line: what the file is (``nnie-lint``'s note, the hover's first line)."""
    outputs = len(model.outputs)
    state = "" if model.intact else ", DAMAGED"
    segs = len(model.segments)
    return (f"a compiled NNIE model (.wk): {model.bits}, {segs} segment{'s' if segs != 1 else ''}, "
            f"{len(model.inputs)} input{'s' if len(model.inputs) != 1 else ''}, {outputs} output"
            f"{'s' if outputs != 1 else ''}, mapper {model.mapper_version} [I], needs "
            f"{mib(model.board_memory().total)} on the board{state}")


def lens_title(model: WkModel) -> str:
    """The cfg's code lens: ``built: 16-bit [I], 1 segment, 1 output, needs 85.0 MiB + 67.5 MiB blobs``."""
    segs = len(model.segments)
    memory = model.board_memory()
    state = "DAMAGED .wk — " if not model.intact else ""
    return (f"{state}built: {model.bits}{_i('element_size')}, {segs} segment{'s' if segs != 1 else ''}, "
            f"{len(model.outputs)} "
            f"output{'s' if len(model.outputs) != 1 else ''}, needs {mib(memory.temp_buffer)} + "
            f"{mib(memory.blobs)} blobs")


def _node_row(node: WkNode) -> list[str]:
    b = node.board
    size = f"{b.size:,}" if b.size is not None else "run-time"
    mark = " [I]" if b.status == layout.INFERRED else ""
    name = node.name + (" …" if node.name_may_be_cut else "")
    if node.role == "source":
        kind = f"{node.image_type_name} ({node.image_type})"
    else:
        kind = ("vector" if node.is_vector else "4-D") + _i("output_kind")
    return [name, node.shape_text, kind, f"{b.blob_type}{mark}", f"{b.stride}", size]


def _table(rows: list[list[str]], head: list[str], indent: str = "    ") -> list[str]:
    widths = [max(len(r[k]) for r in [head] + rows) for k in range(len(head))]
    fmt = indent + "  ".join(f"{{:<{w}}}" for w in widths)
    return [fmt.format(*head).rstrip()] + [fmt.format(*r).rstrip() for r in rows]


def render_text(model: WkModel, *, records: bool = False, num: int = 1) -> str:
    """The table ``nnie-triage wk`` prints (``num``: items per blob for the board memory)."""
    name = os.path.basename(model.path) if model.path else "<bytes>"
    memory = model.board_memory(num)
    lines = [f"{name}: compiled NNIE model (.wk), {model.file_size:,} bytes", ""]
    facts = [
        ("integrity", integrity_text(model)),
        ("format", f"{model.format_text}{_i('format_version')}"),
        ("mapper", f"{model.mapper_version}{_i('mapper_version')} — {model.generation_text}{_i('generation')}; "
                   f"build id {model.build_id or '(none)'}{_i('build_id')}"),
        ("run mode", f"{model.run_mode}: {model.run_mode_name}"),
        ("internal stride", f"{model.stride_byte}{_i('internal_stride')}"),
        ("segments", str(len(model.segments))),
        ("bits", bits_text(model)),
        ("temp buffer", size_text(model.temp_buffer)),
        ("board memory", f"{mib(memory.temp_buffer)} temp + {mib(memory.sources)} inputs + "
                         f"{mib(memory.destinations)} outputs = {mib(memory.total)} (N = {memory.num}); the board "
                         f"also holds the file ({mib(memory.model_file)}) and the task buffer (an SDK call, not "
                         "in the file)"),
        ("memory plan", f"{len(model.plan)} blob records, ending at {model.plan_end:,}"
                        + (" = the temp buffer" if model.plan and model.plan_end == model.temp_buffer else "")),
    ]
    if memory.unknown_sizes:
        facts.append(("run-time sizes", ", ".join(memory.unknown_sizes) + " (recurrent steps fed at run time)"))
    width = max(len(k) for k, _ in facts)
    lines += [f"  {k:<{width}}  {v}" for k, v in facts]
    for segment in model.segments:
        lines += ["", f"segment {segment.index}: {segment.net_type_name} (net type {segment.net_type}), "
                      f"{len(segment.sources)} input(s), {len(segment.destinations)} output(s), ROI {segment.roi_count}, "
                      f"max step {segment.max_step}; bits {bits_text(model, segment.index)}"]
        head = ["input", "H×W×C", "image type", "board blob", "stride", "bytes"]
        lines += _table([_node_row(n) for n in segment.sources], head)
        head = ["output", "H×W×C", "kind", "board blob", "stride", "bytes"]
        lines += _table([_node_row(n) for n in segment.destinations], head)
    dups = model.duplicate_output_names()
    if dups:
        lines.append("")
        for raw, nodes in dups.items():
            lines.append(f"  ! {len(nodes)} outputs share the name {raw.decode('utf-8', 'replace')!r} (names are cut "
                         "at 31 characters): board code that finds outputs by name takes the first")
    if records:
        lines += ["", "memory plan (op [?], bytes per element [I], W×H×C, offset, stride, size):"]
        for r in model.plan:
            lines.append(f"  {r.index:5d}  op {r.op:3d}  {r.element_size}B  {r.width}×{r.height}×{r.channels}  "
                         f"@{r.offset}  stride {r.stride}  size {r.size}" + ("  packed [I]" if r.packed else ""))
    lines += ["", "[I] inferred from real files, not documented; … a name of 31 characters that may have been cut; "
                  "every other field held on every real .wk examined (docs/field-facts.md §18)."]
    return "\n".join(lines) + "\n"


def _node_json(node: WkNode) -> dict:
    b = node.board
    out = {"name": node.name, "name_may_be_cut": node.name_may_be_cut, "height": node.height,
           "width": node.width, "channels": node.channels, "offset": node.offset}
    if node.role == "source":
        out["image_type"] = {"code": node.image_type, "name": node.image_type_name}
    else:
        out["kind"] = {"value": "vector" if node.is_vector else "4-D", "status": "inferred"}
    out["board"] = {"blob_type": b.blob_type, "blob_type_code": b.blob_type_code, "n": b.num, "c": b.channels,
                    "h": b.height, "w": b.width, "element_size": b.element_size, "stride": b.stride,
                    "size": b.size, "read_as": b.read_as,
                    "status": "certain" if b.status == layout.CERTAIN else "inferred"}
    return out


def _census_json(model: WkModel, segment: int | None) -> dict | None:
    census = model.census(segment)
    if census is None:
        return None
    return {"verdict": census.verdict, "one_byte": census.one, "two_byte": census.two, "four_byte": census.four,
            "other": census.other, "packed": census.packed, "status": "inferred"}


def to_json(model: WkModel, *, records: bool = False) -> dict:
    """The JSON document of ``nnie-triage wk --format json`` (``docs/triage-schema.md``)."""
    memory = model.board_memory()
    doc = {
        "schema_version": SCHEMA_VERSION,
        "tool": "nnie-triage wk",
        "path": model.path,
        "file_size": model.file_size,
        "intact": model.intact,
        "damage": [{"kind": d.kind, "offset": d.offset, "message": d.message} for d in model.damage],
        "crc": {"stored": model.crc_stored, "computed": model.crc_computed, "ok": model.crc_ok},
        "size_equation": {"expected": model.expected_size, "ok": model.expected_size == model.file_size},
        "format_version": {"value": model.format_text, "status": "inferred"},
        "mapper_version": {"value": model.mapper_version, "status": "inferred"},
        "generation": {"value": model.generation_text, "status": "inferred"},
        "build_id": {"value": model.build_id, "status": "inferred"},
        "run_mode": {"code": model.run_mode, "name": model.run_mode_name},
        "internal_stride": {"value": model.stride_byte, "status": "inferred"},
        "temp_buffer": model.temp_buffer,
        "bits": _census_json(model, None),
        "memory": {"n": memory.num, "temp_buffer": memory.temp_buffer, "sources": memory.sources,
                   "destinations": memory.destinations, "total": memory.total, "model_file": memory.model_file,
                   "task_buffer": None, "unknown_sizes": list(memory.unknown_sizes)},
        "memory_plan": {"records": len(model.plan), "end": model.plan_end,
                        "matches_temp_buffer": bool(model.plan) and model.plan_end == model.temp_buffer},
        "segments": [{
            "index": s.index, "net_type": {"code": s.net_type, "name": s.net_type_name}, "roi_count": s.roi_count,
            "max_step": s.max_step, "instructions": {"offset": s.instruction_offset, "length": s.instruction_length},
            "bits": _census_json(model, s.index),
            "sources": [_node_json(n) for n in s.sources],
            "destinations": [_node_json(n) for n in s.destinations],
        } for s in model.segments],
        "duplicate_output_names": [raw.decode("utf-8", "replace") for raw in model.duplicate_output_names()],
    }
    if records:
        doc["memory_plan"]["list"] = [
            {"op": r.op, "element_size": r.element_size, "width": r.width, "height": r.height, "channels": r.channels,
             "offset": r.offset, "stride": r.stride, "size": r.size, "packed": r.packed} for r in model.plan]
    return doc


def render_html(model: WkModel) -> str:
    """The table as a self-contained HTML page (the editor's read-only view of a `.wk`)."""
    text = render_text(model)
    title = html.escape(os.path.basename(model.path) if model.path else ".wk")
    return ("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>" + title + "</title>"
            "<style>body{font-family:var(--vscode-editor-font-family,monospace);padding:1em}"
            "pre{white-space:pre;font-size:var(--vscode-editor-font-size,13px)}"
            ".bad{color:var(--vscode-errorForeground,#c00)}</style></head><body>"
            + ("" if model.intact else "<p class=\"bad\">This file is damaged: see <em>integrity</em>.</p>")
            + "<pre>" + html.escape(text) + "</pre>" + _contract_html(model) + "</body></html>")


def _contract_html(model: WkModel) -> str:
    """The board code's contract (:mod:`.contract`, the facts the board checks read the board's
    dumps by) below the table."""
    from nnie_lsp.readers.wk.contract import from_wk, render_text as contract_text

    return ("<h2>The board code's contract</h2><pre>" + html.escape(contract_text(from_wk(model)))
            + "</pre><p>As JSON or a C header: <code>nnie-triage wk FILE.wk --board-contract --format json|c</code></p>")


def error_html(path: str, message: str) -> str:
    return ("<!DOCTYPE html><html><head><meta charset=\"utf-8\"></head><body><p><strong>"
            + html.escape(os.path.basename(path)) + "</strong>: " + html.escape(message) + "</p></body></html>")
