"""A draft model card from the user's inference or training code, read with :mod:`ast` -- never run.

Users rarely have the numbers at hand but always have the code that feeds the trained net
(docs/field-facts.md §21.3).  This reader follows, backwards from where the code feeds the net (a
*sink*: ``cv2.dnn.blobFromImage``, ``net.setInput(x)``, ``net.blobs['data'].data[...] = x``,
``session.run(…, {name: x})``, ``model(x)``), the chain of expressions that made the array: where
the image came from (``cv2.imread``: BGR; PIL, imageio, torchvision: RGB), channel swaps
(``cvtColor(…, COLOR_BGR2RGB)``, ``[..., ::-1]``, ``swapRB=True``, channels swapped by hand), the
arithmetic with literal constants (``- 127.5``, ``* 0.0078125``, ``/ 255``, ``-= (104, 117, 123)``,
``transforms.Normalize(mean, std)`` after ``ToTensor()``) and the layout (``transpose(2, 0, 1)``
is C×H×W; ``np.swapaxes(x, 0, 2)`` is C×W×H: H and W swapped).  Names bound to literals (module,
class or function level, dict entries) are resolved; local functions are followed into, with
their parameters bound to the caller's arguments.  mmcv's ``img_norm_cfg = dict(mean=, std=,
to_rgb=)`` is read as a training config.

Every value carries the file and line it came from; a value the code computes (``img - img.mean()``)
or that no code shows is "unknown", never guessed.  Python 2 files (``print x``) are read after a
line-preserving rewrite of their print statements.
"""

from __future__ import annotations

import ast
import os
from typing import Iterable

from nnie_lsp.card_draft import Draft, DraftValue
from nnie_lsp.card_draft.trace import MAX_BYTES, MAX_FILES, SKIP_DIRS, CodeReader, Op

# ------------------------------------------------------------------------------------ evaluation

LAYOUT_AFTER = {("HWC", (2, 0, 1)): "CHW", ("HWC", (2, 1, 0)): "CWH", ("NHWC", (0, 3, 1, 2)): "NCHW",
                ("NHWC", (0, 3, 2, 1)): "NCWH", ("CHW", (0, 2, 1)): "CWH", ("NCHW", (0, 1, 3, 2)): "NCWH",
                ("CWH", (0, 2, 1)): "CHW", ("HWC", (1, 0, 2)): "WHC", ("WHC", (2, 0, 1)): "CWH"}


def _layout_perm(layout: str | None, perm) -> str | None:
    if layout is None or perm is None:
        return None
    if (layout, tuple(perm)) in LAYOUT_AFTER:
        return LAYOUT_AFTER[(layout, tuple(perm))]
    if len(perm) == len(layout) and sorted(perm) == list(range(len(layout))):
        return "".join(layout[p] for p in perm)
    return None


def evaluate(ops: list[Op]) -> dict[str, DraftValue]:
    """The card values a chain of ops gives, each with where it came from (or why it is unknown)."""
    order = None
    order_where: list[str] = []
    layout = "HWC"
    layout_where: list[str] = []
    a: list[float] = [1.0, 1.0, 1.0]
    b: list[float] = [0.0, 0.0, 0.0]
    arith_where: list[str] = []
    mean_where: list[str] = []
    scale_where: list[str] = []
    unknown = None
    for op in ops:
        if op.kind == "source":
            order = {"bgr": "BGR", "rgb": "RGB", "gray": "GRAY"}.get(op.value)
            order_where.append(op.where + (" (OpenCV reads BGR)" if op.value == "bgr" else " (reads RGB)" if op.value == "rgb" else ""))
        elif op.kind == "swap":
            if order in ("BGR", "RGB"):
                order = "RGB" if order == "BGR" else "BGR"
            a, b = a[::-1], b[::-1]
            order_where.append(op.where)
        elif op.kind == "gray":
            order = "GRAY"
            order_where.append(op.where)
        elif op.kind in ("sub", "add", "mul", "div"):
            c = op.value if isinstance(op.value, tuple) else (op.value,) * 3
            if len(c) not in (1, 3):
                unknown = unknown or op
                continue
            c = c * 3 if len(c) == 1 else c
            for k in range(3):
                if op.kind == "sub":
                    b[k] -= c[k]
                elif op.kind == "add":
                    b[k] += c[k]
                elif op.kind == "mul":
                    a[k] *= c[k]
                    b[k] *= c[k]
                elif c[k] != 0:
                    a[k] /= c[k]
                    b[k] /= c[k]
            arith_where.append(op.where)
            (scale_where if op.kind in ("mul", "div") else mean_where).append(op.where)
        elif op.kind == "totensor":
            a, b = [x / 255.0 for x in a], [x / 255.0 for x in b]
            layout = _layout_perm(layout, (2, 0, 1)) if layout == "HWC" else layout
            arith_where.append(op.where + " (÷255)")
            scale_where.append(op.where + " (÷255)")
            layout_where.append(op.where)
        elif op.kind == "normalize":
            mean, std = op.value
            mean = mean if isinstance(mean, tuple) else (mean,) * 3
            std = std if isinstance(std, tuple) else (std,) * 3
            if len(mean) == 3 and len(std) == 3:
                for k in range(3):
                    b[k] = (b[k] - mean[k]) / std[k]
                    a[k] = a[k] / std[k]
            arith_where.append(op.where)
            mean_where.append(op.where)
            scale_where.append(op.where + " (1/std)")
        elif op.kind == "layout":
            layout = _layout_perm(layout, op.value)
            layout_where.append(op.where)
        elif op.kind == "swapaxes":
            i, j = op.value
            if layout is not None and i is not None and j is not None and max(i, j) < len(layout):
                chars = list(layout)
                chars[int(i)], chars[int(j)] = chars[int(j)], chars[int(i)]
                layout = "".join(chars)
            else:
                layout = None
            layout_where.append(op.where)
        elif op.kind == "batch":
            layout = ("N" + layout) if layout and not layout.startswith("N") else layout
        elif op.kind == "layout_is":
            layout = op.value
        elif op.kind == "unknown":
            if not any(o.kind == "source" for o in ops[:ops.index(op)]) and order is None:
                order_where.append(f"{op.where} ({op.value})")
            unknown = unknown or op
    if mean_where and scale_where:   # a scale before the mean changes the mean's unit: both lines
        mean_where = arith_where
    return _values(order, order_where, a, b, (mean_where, scale_where), layout, layout_where, unknown, ops)


def _values(order, order_where, a, b, arith_where, layout, layout_where, unknown, ops) -> dict[str, DraftValue]:
    out: dict[str, DraftValue] = {}
    if order is not None:
        out["channel_order"] = DraftValue("channel_order", order, "; ".join(order_where))
    else:
        why = "; ".join(order_where) or "no image reading or colour conversion before the net was found"
        out["channel_order"] = DraftValue("channel_order", None, f"unknown: {why}")
    if unknown is not None and unknown.kind == "unknown" and _after_source(ops, unknown):
        out["mean"] = DraftValue("mean", None, f"unknown: {unknown.where} ({unknown.value})")
        out["scale"] = DraftValue("scale", None, f"unknown: {unknown.where} ({unknown.value})")
    else:
        scale = tuple(round(x, 12) for x in a)
        mean = tuple((round(-bk / ak, 6) if ak else 0.0) + 0.0 for ak, bk in zip(a, b))   # + 0.0: no -0
        mean_where, scale_where = arith_where
        channels = 1 if order == "GRAY" else 3
        out["mean"] = DraftValue("mean", _collapse(mean, channels),
                                 "; ".join(mean_where) or "no mean subtracted before the net")
        out["scale"] = DraftValue("scale", _collapse(scale, channels),
                                  "; ".join(scale_where) or "no scaling before the net (0-255 pixels)")
    if layout in ("CHW", "NCHW"):
        out["transpose"] = DraftValue("transpose", False, "; ".join(layout_where) or "C×H×W")
    elif layout in ("CWH", "NCWH"):
        out["transpose"] = DraftValue("transpose", True, "; ".join(layout_where) + " (C×W×H: H and W swapped)")
    else:
        out["transpose"] = DraftValue("transpose", None, "unknown: the layout fed to the net is not clear"
                                      + (f" ({'; '.join(layout_where)})" if layout_where else ""))
    return out


def _after_source(ops: list[Op], op: Op) -> bool:
    """An unknown op that changes the values (not one before the image was read)."""
    k = ops.index(op)
    return any(o.kind == "source" for o in ops[:k]) or k > 0 or str(op.value) == "computed"


def _collapse(values: tuple[float, ...], channels: int):
    vals = tuple(float(f"{v:.10g}") for v in values)
    if channels == 1 or all(v == vals[0] for v in vals):
        return vals[0]
    return list(vals)


# ------------------------------------------------------------------------------------ entry points

def draft_from_source(text: str, path: str = "<code>") -> Draft | None:
    """The draft one file gives (None when it feeds no net the reader can see)."""
    reader = CodeReader(text, path)
    if reader.tree is None:
        return None
    for node in reader.norm_cfgs():
        return _from_norm_cfg(reader, node)
    best = None
    for value, feeder in reader.sinks():
        ops = reader.trace(value, reader.scope_of(feeder), getattr(feeder, "lineno", 10 ** 9))
        if not ops or ops[0].kind != "source":
            if best is None:
                best = ops
            continue
        best = ops
        break
    if best is None:
        return None
    values = evaluate(best)
    return Draft(tuple(values[k] for k in ("channel_order", "mean", "scale", "transpose")), (path,))


def _from_norm_cfg(reader: CodeReader, node: ast.Call) -> Draft:
    kw = {k.arg: k.value for k in node.keywords}
    scope = reader.scope_of(node)
    where = reader.where(node)
    mean = reader.const(kw.get("mean"), scope, node.lineno)
    std = reader.const(kw.get("std"), scope, node.lineno)
    to_rgb = kw.get("to_rgb")
    rgb = to_rgb.value if isinstance(to_rgb, ast.Constant) else None
    values = [DraftValue("channel_order", ("RGB" if rgb else "BGR") if rgb is not None else None,
                         f"{where} (mmcv loads BGR; to_rgb={rgb})" if rgb is not None else f"unknown: {where}"),
              DraftValue("mean", _collapse(mean, 3) if isinstance(mean, tuple) else mean,
                         where if mean is not None else f"unknown: {where}"),
              DraftValue("scale", _collapse(tuple(1 / s for s in std), 3) if isinstance(std, tuple) else
                         (1 / std if isinstance(std, float) and std else None),
                         f"{where} (1/std)" if std is not None else f"unknown: {where}"),
              DraftValue("transpose", False, f"{where} (mmcv feeds C×H×W)")]
    return Draft(tuple(values), (reader.path,))


def _distance(path: str, near: str | None) -> int:
    """How many folders lie between `path` and `near` (0: in it)."""
    if not near:
        return 0
    rel = os.path.relpath(os.path.dirname(os.path.abspath(path)), os.path.abspath(near))
    return 0 if rel == "." else len(rel.split(os.sep))


def python_files(root: str, limit: int = MAX_FILES) -> list[str]:
    out = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("."))
        for name in sorted(files):
            if name.endswith(".py"):
                out.append(os.path.join(folder, name))
                if len(out) >= limit:
                    return out
    return out


def draft_from_code(root: str, mentions: Iterable[str] = (), reader=None, near: str | None = None) -> Draft | None:
    """The draft from the Python files under `root` (and under `near`, the cfg's folder, which is
    searched first even inside a folder the walk skips): the files that name the net (`mentions`:
    the prototxt's or caffemodel's stem) first, then the nearest to `near`; the first file that feeds
    a net gives the values, the others that disagree are said in the notes."""
    mentions = [m for m in mentions if m]
    ranked = []
    paths = list(dict.fromkeys((python_files(near) if near else []) + python_files(root)))
    for path in paths:
        try:
            if os.path.getsize(path) > MAX_BYTES:
                continue
            text = reader(path) if reader else open(path, encoding="utf-8", errors="replace").read()
        except OSError:
            continue
        if not any(w in text for w in ("blobFromImage", "setInput", ".blobs[", "Normalize", "img_norm_cfg", "imread",
                                       "Image.open", ".run(")):
            continue
        score = sum(1 for m in mentions if m in text)
        ranked.append((-score, _distance(path, near), path, text))
    drafts = []
    for _score, _far, path, text in sorted(ranked):
        draft = draft_from_source(text, path)
        if draft is not None and not draft.empty:
            drafts.append(draft)
    if not drafts:
        return None
    first = drafts[0]
    notes = []
    for other in drafts[1:4]:
        for v in other.values:
            mine = first.get(v.key)
            if v.value is not None and mine is not None and mine.value is not None and v.value != mine.value:
                notes.append(f"{os.path.basename(other.files[0])} gives {v.key} {v.value} ({v.source})")
    return Draft(first.values, tuple(d.files[0] for d in drafts), tuple(notes))
