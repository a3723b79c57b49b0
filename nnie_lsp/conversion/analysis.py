"""The static conversion check: a prototxt (and its caffemodel) against the ONNX model it was
converted from, without running either.  :func:`analyze` is what the NN5xx rules read.

Where the files are (:func:`caffemodel_path`): the ONNX model is the project's
(:attr:`nnie_lsp.project.project.Project.onnx_path`: ``--onnx``, the ``onnx`` setting, or
``<prototxt stem>.onnx`` beside the prototxt); the caffemodel is the cfg's ``[caffemodel_file]``,
else ``<prototxt stem>.caffemodel`` beside the prototxt.
"""

from __future__ import annotations

import os
from typing import NamedTuple

from nnie_lsp.conversion.findings import Finding


class Analysis(NamedTuple):
    findings: tuple[Finding, ...]
    onnx_path: str | None


def caffemodel_path(project) -> str | None:
    for ref in getattr(project, "refs", ()):
        if getattr(ref.entry, "key", None) == "caffemodel_file" and ref.resolved:
            return ref.resolved
    proto = project.prototxt_path
    if proto:
        beside = os.path.splitext(proto)[0] + ".caffemodel"
        if os.path.isfile(beside):
            return beside
    return None


_CACHE: dict[tuple, Analysis] = {}


def _file_key(path: str | None):
    if not path:
        return None
    try:
        st = os.stat(path)
    except OSError:
        return (path, None)
    return (path, st.st_mtime_ns, st.st_size)


def analyze(project) -> Analysis | None:
    """The conversion findings of ``project``; None when it has no ONNX model or no prototxt."""
    onnx_path = getattr(project, "onnx_path", None)
    doc, graph = project.prototxt, project.graph
    if not onnx_path or doc is None or graph is None:
        return None
    model = caffemodel_path(project)
    key = (doc.text, doc.path, _file_key(onnx_path), _file_key(model))
    hit = _CACHE.get(key)
    if hit is None:
        hit = Analysis(tuple(_run(project, onnx_path, model)), onnx_path)
        if len(_CACHE) > 8:
            _CACHE.clear()
        _CACHE[key] = hit
    return hit


def _run(project, onnx_path: str, model: str | None) -> list[Finding]:
    from nnie_lsp.conversion.onnx_graph import OnnxReadError, OnnxUnavailable, cached_onnx
    if not os.path.isfile(onnx_path):
        return [Finding("NN500", "missing", None, params=dict(model=onnx_path))]
    try:
        og = cached_onnx(onnx_path)
    except OnnxUnavailable:
        from nnie_lsp.core.extras import missing_message
        text, _ = missing_message("onnx", "The conversion check (NN5xx)")
        return [Finding("NN500", "no_package", None, params=dict(text=text))]
    except (OnnxReadError, OSError) as exc:
        return [Finding("NN500", "unreadable", None, params=dict(model=onnx_path, error=str(exc)))]
    weights, notes = {}, []
    from nnie_lsp.project.repository import is_lfs_pointer

    if model is None:
        notes.append(Finding("NN500", "no_caffemodel", None, params=dict(model=onnx_path)))
    elif is_lfs_pointer(model):   # the repository keeps it in Git LFS and its content is not here
        notes.append(Finding("NN500", "lfs_caffemodel", None, params=dict(caffemodel=model, model=onnx_path)))
    else:
        from nnie_lsp.readers.caffemodel import NetLoadError, read_weights
        try:
            weights = read_weights(model)
        except NetLoadError as exc:
            notes.append(Finding("NN500", "bad_caffemodel", None, params=dict(error=str(exc))))
    from nnie_lsp.conversion.layer_checks import check_all
    return notes + check_all(project, og, weights)
