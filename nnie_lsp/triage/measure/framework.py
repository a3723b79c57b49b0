"""The first hop of the chain ONNX → Caffe → NNIE: the framework dumps (``nnie-triage reference
--onnx``, :mod:`nnie_lsp.reference.onnx_dumps`: named by the Caffe blobs) against the Caffe
reference, blob by blob, in network order.

Pairs are made by blob name only (the framework dumps are written under the Caffe blob each ONNX
tensor stands for, the map in their manifest); a blob without a framework dump is ``missing``
(its layer matches no ONNX node), never guessed.  Each blob's status:

- ``ok``: cosine ≥ ``Thresholds.conversion`` and relative L2 error ≤ ``Thresholds.conversion_rel_l2``
  (a same-size tensor in another shape is ok with a note: the values agree);
- ``differs``: below either (:func:`~nnie_lsp.triage.measure.metrics.compare_arrays`);
- ``shape``: the element counts differ (a pooling that rounds the other way, a dropped pad): the
  layer computes another tensor;
- ``missing``: no framework dump for the blob.

:func:`measure` gives the hop of one image; :func:`worst` combines several images (the lowest
cosine of each blob); :attr:`FrameworkHop.first` is the first layer after the data whose Caffe
output differs from ONNX's — where the conversion lost the accuracy.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from pathlib import Path

DIFFERING = ("differs", "shape")


@dataclass
class HopRow:
    blob: str
    name: str                    # the row name the comparison uses (the layer heading the blob's chain)
    order: int
    is_data: bool
    status: str                  # ok | differs | shape | missing
    cosine: float | None = None
    rel_l2: float | None = None
    max_abs_error: float | None = None
    caffe_shape: tuple[int, ...] | None = None
    framework_shape: tuple[int, ...] | None = None
    note: str | None = None
    #: the output of layer ``name`` that an in-place layer overwrites in ``blob`` (not its last value)
    overwritten: bool = False

    @property
    def key(self) -> tuple[str, str, bool]:
        return (self.blob, self.name, self.overwritten)

    def to_json(self) -> dict:
        out = {"blob": self.blob, "name": self.name, "status": self.status, "cosine": _num(self.cosine),
               "rel_l2_error": _num(self.rel_l2), "max_abs_error": _num(self.max_abs_error),
               "caffe_shape": list(self.caffe_shape) if self.caffe_shape else None,
               "framework_shape": list(self.framework_shape) if self.framework_shape else None,
               "note": self.note, "is_data": self.is_data}
        if self.overwritten:
            out["overwritten"] = True
        return out

    def what(self) -> str:
        """How it differs, in words: "cosine 0.8123 against ONNX" / "shape … against ONNX's …"."""
        if self.status == "shape":
            return (f"its shape {_dims(self.caffe_shape)} against ONNX's {_dims(self.framework_shape)}"
                    if self.caffe_shape and self.framework_shape else "its size differs from ONNX's")
        if self.cosine is not None and self.status == "differs":
            return f"cosine {self.cosine:.6f} against ONNX, relative L2 error {self.rel_l2:.3g}"
        return "agrees with ONNX"


@dataclass
class FrameworkHop:
    folder: str
    onnx: str | None                      # the ONNX model the manifest records (None: unknown)
    #: the model the manifest records is still there and its SHA-256 is not the one the dumps were
    #: made from: the dumps describe another model (never judged)
    model_changed: bool = False
    rows: list[HopRow] = field(default_factory=list)
    images: int = 1
    #: ONNX tensors no Caffe value stands for -> why (the manifest's ``not_comparable``)
    not_compared: dict[str, str] = field(default_factory=dict)

    @property
    def first(self) -> HopRow | None:
        return next((r for r in self.rows if not r.is_data and r.status in DIFFERING), None)

    @property
    def data_differs(self) -> HopRow | None:
        return next((r for r in self.rows if r.is_data and r.status in DIFFERING), None)

    def by_name(self) -> dict[str, HopRow]:
        out: dict[str, HopRow] = {}
        for r in self.rows:
            if r.overwritten:  # the chain's earlier values are rows of the hop only
                continue
            out.setdefault(r.name, r)
            out.setdefault(r.blob, r)
        return out

    def compared(self) -> list[HopRow]:
        return [r for r in self.rows if r.status != "missing"]


def _num(v):
    return v if isinstance(v, (int, float)) and math.isfinite(v) else None


def _dims(shape) -> str:
    return "×".join(str(d) for d in shape) if shape else "?"


def _tensors(folder: str | Path) -> dict[str, object]:
    from nnie_lsp.readers.dumpio.names import normalize_name
    from nnie_lsp.readers.dumpio.scan import scan_dumps

    out: dict[str, object] = {}
    if not Path(folder).is_dir():
        return out
    for t in scan_dumps(str(folder)).tensors:
        if t.role == "output" and t.index == 0:
            out.setdefault(normalize_name(t.key), t)
    return out


def _order(graph, reference: dict) -> list[tuple[str, str, bool]]:
    """(blob, row name, is data) in network order; without the prototxt, the reference's order."""
    from nnie_lsp.readers.dumpio.names import normalize_name

    if graph is None:
        return [(k, k, False) for k in reference]
    out, seen = [], set()
    for blob in graph.input_blobs:
        out.append((blob, blob, True))
        seen.add(blob)
    for layer in graph.layers:
        for blob in layer.tops:
            if blob in seen:
                continue
            seen.add(blob)
            chain = graph.chain_of(blob)
            out.append((blob, chain.head.name if chain is not None else layer.name, False))
    return [(b, n, d) for b, n, d in out if normalize_name(b) in reference]


def _model_changed(manifest: dict) -> bool:
    """The manifest's ONNX model exists and its bytes are not those the dumps were made from."""
    import hashlib

    path, digest = manifest.get("onnx"), manifest.get("onnx_sha256")
    if not path or not digest or not Path(path).is_file():
        return False
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest() != digest


def measure(framework: str | Path, reference: str | Path, graph, thresholds) -> FrameworkHop:
    """The hop of one image: the framework dump folder against the Caffe dump folder."""
    from nnie_lsp.readers.dumpio.names import normalize_name
    from nnie_lsp.triage.inputs.image_sets import read_manifest

    manifest = read_manifest(framework) or read_manifest(Path(framework).parent) or {}
    hop = FrameworkHop(folder=str(framework), onnx=manifest.get("onnx"),
                       model_changed=_model_changed(manifest))
    ref, fw = _tensors(reference), _tensors(framework)
    hop.not_compared = {t: why for t, why in (manifest.get("not_comparable") or {}).items()
                        if t not in {n for n, _b, _a in _overwritten(graph)}}
    earlier = _earlier_rows(graph, reference, framework, manifest)
    for blob, name, is_data in _order(graph, ref):
        key = normalize_name(blob)
        for row, mine, theirs in earlier.pop(blob, []):
            _measure_row(row, mine, theirs, thresholds)
            hop.rows.append(row)
        row = HopRow(blob=blob, name=name, order=0, is_data=is_data, status="missing")
        hop.rows.append(row)
        _measure_row(row, ref.get(key), fw.get(key), thresholds)
    for k, row in enumerate(hop.rows):
        row.order = k
    return hop


def _overwritten(graph) -> list[tuple[str, str, str]]:
    from nnie_lsp.reference.inplace_values import overwritten
    if graph is None:
        return []
    return [(layer.name, blob, after.name) for layer, blob, after in overwritten(graph.layers)]


def _earlier_rows(graph, reference, framework, manifest) -> dict[str, list[tuple]]:
    """Blob -> the rows of the values its in-place chain overwrites (the head's output before the
    PReLU, ...) with both sides' tensors (None: not written), read from the ``.inplace``
    folders (:mod:`nnie_lsp.reference.inplace_values`)."""
    from nnie_lsp.readers.dumpio.names import normalize_name
    from nnie_lsp.reference.inplace_values import INPLACE_DIR

    chain = _overwritten(graph)
    if not chain:
        return {}
    ref, fw = _tensors(Path(reference) / INPLACE_DIR), _tensors(Path(framework) / INPLACE_DIR)
    why = manifest.get("not_comparable") or {}
    out: dict[str, list[tuple]] = {}
    for name, blob, after in chain:
        key = normalize_name(name)
        row = HopRow(blob=blob, name=name, order=0, is_data=False, status="missing", overwritten=True,
                     note=f"the output of layer \"{name}\" before \"{after}\" rewrites blob \"{blob}\" in place")
        if key not in ref or key not in fw:
            reason = why.get(name) or ("the Caffe reference holds no overwritten values (made by an older version: "
                                       "run nnie-triage reference again)" if key not in ref else
                                       "the ONNX dumps hold no overwritten values (run reference --onnx again)")
            row.note += f": not compared ({reason})"
        out.setdefault(blob, []).append((row, ref.get(key), fw.get(key)))
    return out


def _measure_row(row: HopRow, mine, theirs, th) -> None:
    import numpy as np

    from nnie_lsp.triage.measure.metrics import compare_arrays

    if mine is None or theirs is None:
        return
    a = np.asarray(mine.load(), dtype=np.float64)
    b = np.asarray(theirs.load(), dtype=np.float64)
    row.caffe_shape, row.framework_shape = tuple(a.shape), tuple(b.shape)
    if a.size != b.size:
        row.status = "shape"
        return
    m = compare_arrays(a.reshape(-1), b.reshape(-1))
    row.cosine, row.rel_l2, row.max_abs_error = m.cosine, m.rel_l2_error, m.max_abs_error
    low = not math.isfinite(m.cosine) or m.cosine < th.conversion or not m.rel_l2_error <= th.conversion_rel_l2
    row.status = "differs" if low else "ok"
    if a.shape != b.shape:
        shape_note = f"same values in another shape: Caffe {_dims(a.shape)}, ONNX {_dims(b.shape)}"
        row.note = f"{row.note}; {shape_note}" if row.note else shape_note


_RANK = {"shape": 0, "differs": 1, "ok": 2, "missing": 3}


def worst(hops: list[FrameworkHop]) -> FrameworkHop | None:
    """Several images: each blob's worst row (a size difference, else the lowest cosine)."""
    if not hops:
        return None
    out = replace(hops[0], rows=[replace(r) for r in hops[0].rows], images=len(hops))
    by_blob = {r.key: r for r in out.rows}
    for hop in hops[1:]:
        for r in hop.rows:
            mine = by_blob.get(r.key)
            if mine is None:
                out.rows.append(replace(r))
                by_blob[r.key] = out.rows[-1]
                continue
            key = lambda x: (_RANK[x.status], x.cosine if x.cosine is not None else 2.0)  # noqa: E731
            if key(r) < key(mine):
                by_blob[r.key] = replace(r, order=mine.order)
                out.rows[out.rows.index(mine)] = by_blob[r.key]
    return out


def annotate(hop: FrameworkHop, doc: dict) -> None:
    """The result JSON's second hop (docs/triage-schema.md): ``framework_cosine`` /
    ``framework_status`` (/ ``framework_note``) on each row and the ``framework`` section."""
    by = hop.by_name()
    for row in doc.get("layers", []):
        h = by.get(row.get("blob") or "") or by.get(row.get("name") or "")
        row["framework_cosine"] = _num(h.cosine) if h is not None else None
        row["framework_status"] = h.status if h is not None else "missing"
        if h is not None and h.note:
            row["framework_note"] = h.note
    first = hop.first
    compared = hop.compared()
    doc["framework"] = {
        "folder": hop.folder, "onnx": hop.onnx, "images": hop.images,
        "first_difference": first.name if first is not None else None,
        "first_difference_blob": first.blob if first is not None else None,
        "compared": len(compared), "differing": sum(1 for r in compared if r.status in DIFFERING),
        "inputs_differ": hop.data_differs is not None,
        "layers": [r.to_json() for r in hop.rows],
        "not_compared": [{"tensor": t, "why": why} for t, why in hop.not_compared.items()],
    }
