"""NN608: output names that the `.wk` cuts to the same 31 characters.

A `.wk` keeps at most 31 characters of each node's name (a 32-byte field, NUL-terminated:
``docs/field-facts.md §18``), so outputs whose first 31 characters agree carry one name on the
board.  The prototxt side: the outputs and `_report` tops (:func:`nnie_lsp.rules.wk_checks.expected_outputs`);
the `.wk` side, for a `.wk` linted on its own: destination nodes that share a name.
"""

from __future__ import annotations

from typing import Iterator

from nnie_lsp.core.diagnostics import Diagnostic, Related, Severity
from nnie_lsp.core.text import Range, TextEdit
from nnie_lsp.core.registry import rule

KEPT = 31
REPORT = "_report"


def _cut(name: str) -> bytes:
    return name.encode("utf-8")[:KEPT]


def shorter_name(name: str, taken: set[bytes], used: set[str]) -> str | None:
    """A name of at most 31 bytes for ``name`` whose cut is not in ``taken`` and that no blob or
    layer in ``used`` has: interior words dropped, the fewest and longest first
    (``face_rpn_cls_prob_reshape_stride16`` → ``face_rpn_cls_prob_stride16``), a ``_report``
    suffix kept; else the head cut with ``_2``, ``_3`` … before the last word; None when none fits."""
    from itertools import combinations

    suffix = REPORT if name.endswith(REPORT) else ""
    stem = name[:-len(suffix)] if suffix else name
    parts = stem.split("_")
    budget = KEPT - len(suffix)

    def free(candidate: str) -> bool:
        new = candidate + suffix
        return len(new.encode("utf-8")) <= KEPT and _cut(new) not in taken and new not in used

    interior = range(1, len(parts) - 1)
    for count in range(1, min(len(parts) - 2, 6) + 1):
        combos = sorted(combinations(interior, count), key=lambda c: (-sum(len(parts[k]) for k in c), c))
        for combo in combos[:200]:
            candidate = "_".join(p for k, p in enumerate(parts) if k not in combo)
            if free(candidate):
                return candidate + suffix
    last = parts[-1]
    for k in range(2, 100):
        tail = f"_{k}_{last}" if len(parts) > 1 else f"_{k}"
        head = "_".join(parts[:-1]) if len(parts) > 1 else stem
        head = head.encode("utf-8")[:max(0, budget - len(tail.encode("utf-8")))].decode("utf-8", "ignore")
        if head and free(head + tail):
            return head + tail + suffix
        cut = stem.encode("utf-8")[:max(0, budget - len(f"_{k}"))].decode("utf-8", "ignore") + f"_{k}"
        if free(cut):
            return cut + suffix
    return None


@rule("NN608", "output-names-collide-at-31", Severity.WARNING, step=None,
      summary=("outputs whose first 31 characters agree: the .wk gives them one name", "前 31 个字符相同的输出：.wk 中它们同名"),
      messages={
          "collide": ("output \"{top}\" and \"{first}\" (line {line}) agree in their first 31 characters: the .wk keeps "
                      "31, so both are \"{cut}\" on the board, and board code that finds an output by name (or links a "
                      "segment's input to an earlier output, as the SDK sample does) takes the first",
                      "输出 \"{top}\" 与 \"{first}\"（第 {line} 行）前 31 个字符相同：.wk 只保留 31 个字符，板端它们都叫 "
                      "\"{cut}\"，按名字查找输出（或像 SDK 示例那样按名字把某段的输入连到前面的输出）的板端代码会取到第一个"),
          "first": ("\"{first}\" is also \"{cut}\" in the .wk", "\"{first}\" 在 .wk 中也是 \"{cut}\""),
          "in_wk": ("{n} outputs of this .wk share the name \"{cut}\" (names are cut at 31 characters): board code that "
                    "finds an output by name takes the first; rename them in the prototxt and build again",
                    "该 .wk 有 {n} 个输出同名 \"{cut}\"（名字截断到 31 个字符）：按名字查找输出的板端代码会取到第一个；"
                    "请在 prototxt 中改名后重新构建"),
          "rename": ("Rename \"{top}\" to \"{new}\" (update the board code that uses the name)",
                     "把 \"{top}\" 改名为 \"{new}\"（同时修改使用该名字的板端代码）"),
      },
      fix="unsafe",
      docs_zh="`.wk` 中节点名只保留 31 个字符（32 字节、以 NUL 结尾）。prototxt 中前 31 个字符相同的输出或 `_report` top "
              "在板端同名，按名字取输出的代码会取错。修复：把后一个 top 改名（不安全：板端代码使用这些名字）。")
def nn608(project, ctx) -> Iterator[Diagnostic]:
    """
    ## What it finds
    Output tops (the blobs no NNIE layer reads, and `_report` tops) whose first 31 characters
    agree with an earlier output's: one finding on each later top, naming the name both become in
    the `.wk`.  A `.wk` linted on its own: outputs that share a name.

    ## Why
    A `.wk` keeps at most 31 characters of a node's name (docs/field-facts.md §18; three
    `face_rpn_cls_prob_reshape_stride…` outputs of a public RetinaFace are all
    `face_rpn_cls_prob_reshape_strid`).  The SDK sample links a segment's inputs to earlier outputs
    by comparing names, and board code that looks an output up by name takes the first of them:
    the stride-16 head read as the stride-32 one gives boxes in the wrong places, with no error.

    ## Example
    ```
    layer { name: "face_rpn_cls_prob_reshape_stride16" ... top: "face_rpn_cls_prob_reshape_stride16" }
    ```

    ## Fix
    Unsafe: rename the later top to a name that is unique in its first 31 characters
    (`face_rpn_cls_prob_stride16`); the board code that uses the old name must change with it.
    """
    graph, doc = project.graph, project.prototxt
    if graph is None or doc is None:
        found = getattr(project, "wk", None)
        if found is not None and found.model is not None:
            for raw, nodes in found.model.duplicate_output_names().items():
                yield ctx.diag("in_wk", found.path, Range.point(0, 0), n=len(nodes), cut=raw.decode("utf-8", "replace"))
        return
    from nnie_lsp.rules.wk_checks import expected_outputs

    outputs = expected_outputs(graph)
    first_of: dict[bytes, str] = {}
    taken = {_cut(name) for name in outputs}
    used = set(graph.blobs()) | {layer.name for layer in graph.layers}
    for top in outputs:
        cut = _cut(top)
        if cut not in first_of:
            first_of[cut] = top
            continue
        first = first_of[cut]
        here = _top_range(doc, top)
        there = _top_range(doc, first)
        if here is None:
            continue
        related = [Related(doc.path, there, ctx.text("first", first=first, cut=cut.decode("utf-8", "replace")))] \
            if there is not None else []
        fix = None
        new = shorter_name(top, taken, used)
        if new is not None:
            taken.add(_cut(new))
            used.add(new)
            fix = ctx.fix("rename", [(doc.path, e) for e in _rename_edits(doc, top, new)], safe=False, top=top, new=new)
        yield ctx.diag("collide", doc.path, here, fix=fix, related=related, top=top, first=first,
                       line=(there.start.line + 1) if there is not None else "?", cut=cut.decode("utf-8", "replace"))


def _top_range(doc, blob: str):
    for source in doc.layers:
        for top, rng in source.tops:
            if top == blob:
                return rng
    return None


def _rename_edits(doc, old: str, new: str) -> list[TextEdit]:
    """Every place the prototxt writes the blob (tops, and bottoms of the in-place layers that rewrite it)."""
    from nnie_lsp.rules.fixes import replace_string_token

    edits = []
    for source in doc.layers:
        for name, rng in (*source.bottoms, *source.tops):
            if name == old:
                edits.append(replace_string_token(doc, rng, new))
    return edits
