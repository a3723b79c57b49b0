"""Step 6: one zip with everything support needs to look at one layer.

Contents: the layer's prototxt excerpt with its producers (``layer/excerpt.prototxt``), its weights
from the caffemodel (``layer/weights/<i>_<shape>.npy`` + ``.txt``), the Caffe and simulator data
for it (its output and its producers' outputs = its inputs), the cfg, image(s), mean file, the
mapper version read from a mapper log (``Mapper Version …`` line), the triage result and a README.
"""

from __future__ import annotations

import io
import json
import re
import zipfile
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from nnie_lsp.core import atomic_write, safe_io
from nnie_lsp.readers.prototxt.layers import HP_SUFFIX, base_layer_name
from nnie_lsp.core.text import decode

_MAPPER_RE = re.compile(r"Mapper Version\s+(.+?)\s*$", re.M)


class BundleError(ValueError):
    pass


def mapper_version(log_text: str) -> str | None:
    m = _MAPPER_RE.search(log_text)
    return m.group(1).strip() if m else None


def _layer_blocks(text: str) -> list[tuple[str, list[str], list[str], str]]:
    """(name, bottoms, tops, block text) for each top-level layer block, by brace matching."""
    out = []
    for m in re.finditer(r"^\s*layers?\s*\{", text, re.M):
        i = m.end()
        depth = 1
        while i < len(text) and depth:
            ch = text[i]
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
            elif ch == '"':
                j = text.find('"', i + 1)
                i = j if j > 0 else i
            elif ch == "#":
                j = text.find("\n", i)
                i = j if j > 0 else len(text)
                continue
            i += 1
        block = text[m.start():i]
        # only direct fields of the layer (depth 1)
        body = re.sub(r"\{[^{}]*\}", "", block[block.find("{") + 1:-1])
        while re.search(r"\{[^{}]*\}", body):
            body = re.sub(r"\{[^{}]*\}", "", body)
        name = re.search(r'\bname\s*:\s*"([^"]*)"', body)
        bottoms = re.findall(r'\bbottom\s*:\s*"([^"]*)"', body)
        tops = re.findall(r'\btop\s*:\s*"([^"]*)"', body)
        out.append((name.group(1) if name else "", bottoms, tops, block.strip()))
    return out


def prototxt_excerpt(text: str, layer: str) -> tuple[str, list[str], list[str]]:
    """Excerpt with the layer, the layers producing its bottoms (incl. in-place members) and the
    in-place layers rewriting its top. Returns (excerpt, producer layer names, bottom blobs)."""
    blocks = _layer_blocks(text)
    idx = next((i for i, b in enumerate(blocks) if b[0] == layer or base_layer_name(b[0]) == layer), None)
    if idx is None:
        raise BundleError(f"layer {layer!r} is not in the prototxt")
    name, bottoms, tops, block = blocks[idx]
    keep: list[int] = []
    producers: list[str] = []
    for b in bottoms:
        writers = [i for i in range(idx) if b in blocks[i][2]]
        for w in writers:
            if w not in keep:
                keep.append(w)
                producers.append(blocks[w][0])
    keep.append(idx)
    for i in range(idx + 1, len(blocks)):
        n, bt, tp, _ = blocks[i]
        if tops and tp == tops[:1] and bt == tops[:1]:
            keep.append(i)
        elif tops and tops[0] in bt:
            break
    header = [ln for ln in text.splitlines()[:40] if re.match(r"\s*(name|input|input_dim|input_shape|dim)\b", ln)
              or ln.strip() in ("}",)]
    head = "\n".join(ln for ln in header if not ln.strip() == "}") if any("input" in ln for ln in header) else ""
    parts = [f"# excerpt for layer {name}: producers {', '.join(producers) or '(network input)'}"]
    if head:
        parts.append(head)
    parts += [blocks[i][3] for i in sorted(keep)]
    return "\n".join(parts) + "\n", producers, bottoms


def _find_tensors(folder: str, names: list[str]) -> list[Path]:
    from nnie_lsp.readers.dumpio.names import normalize_name
    from nnie_lsp.readers.dumpio.scan import scan_dumps

    wanted = {normalize_name(n) for n in names if n}
    ds = scan_dumps(folder)
    out = []
    for t in ds.tensors:
        keys = {normalize_name(t.key)} | {normalize_name(k) for k in getattr(t, "alt_keys", ())}
        if keys & wanted:
            out.append(Path(t.path))
    return out


@dataclass
class CfgFiles:
    """What the cfg names that a bundle holds, resolved as the lint resolves it."""

    prototxt: str | None = None
    caffemodel: str | None = None
    images: list[str] = field(default_factory=list)
    mean_file: str | None = None


def cfg_files(cfg: str, warnings: list[str]) -> CfgFiles:
    """The prototxt, caffemodel, calibration images and mean file of the cfg (its first input),
    resolved as the lint resolves them (the one reading: :func:`nnie_lsp.project.project.load_project`,
    nnie_lsp.readers.cfg.preprocessing).  A file the cfg names that is not there becomes a bundle
    warning with its cfg position."""
    from nnie_lsp.project.project import load_project

    project = load_project(cfg_path=cfg, load_prototxt=False)
    out = CfgFiles()
    if project.cfg is None:
        warnings.append(f"cfg: {cfg} cannot be read")
        return out
    for key, attr in (("prototxt_file", "prototxt"), ("caffemodel_file", "caffemodel")):
        ref = next((r for r in project.refs if r.entry.key == key), None)
        if ref is None or ref.is_null:
            continue
        if ref.resolved is None:
            warnings.append(f"cfg: {cfg}:{ref.entry.line + 1}: [{key}] {ref.written} was not found: not in the bundle")
        else:
            setattr(out, attr, ref.resolved)
    first = project.input_preprocessing(0)
    if first is None:
        warnings.append(f"cfg: {cfg} names no input ([image_list] missing)")
        return out
    mean = first.mean_file
    if first.uses_mean and (mean is None or mean.resolved is None):
        warnings.append(f"cfg: {first.where('mean_file')}: the mean file of input 0 was not found")
    out.mean_file = mean.resolved if first.uses_mean and mean is not None else None
    out.images = project.calibration_images(first)
    return out


#: How many near names an unknown --layer is answered with.
NEAREST = 5


def layer_names(prototxt_text: str) -> list[str]:
    """The layer names of a prototxt, in order (the names ``--layer`` takes)."""
    return [name for name, _b, _t, _blk in _layer_blocks(prototxt_text) if name]


def check_layer(layer: str, names: list[str], where: str) -> None:
    """:class:`BundleError` naming the nearest of `names` when `layer` is none of them (a ``_hp``
    mark and its base name are the same layer)."""
    import difflib

    if layer in names or any(base_layer_name(n) == layer for n in names):
        return
    near = difflib.get_close_matches(layer, names, n=NEAREST, cutoff=0.5)
    if near:
        hint = "nearest: " + ", ".join(near)
    else:
        hint = "its names: " + ", ".join(names[:8]) + (" …" if len(names) > 8 else "") if names else "it names none"
    raise BundleError(f"--layer {layer}: no layer of that name in {where} ({hint})")


def dump_names(*folders: str) -> list[str]:
    """The tensor names the dump folders hold (what ``--layer`` can mean without a prototxt)."""
    from nnie_lsp.readers.dumpio.scan import scan_dumps

    names: dict[str, None] = {}
    for folder in folders:
        for t in scan_dumps(folder).tensors:
            names.setdefault(t.key, None)
    return list(names)


def safe_member_name(arc: str) -> str:
    """A zip member name that unpacks inside the bundle's folder: layer and file names come from
    the user's prototxt and folders, so ``..``, absolute paths, drive letters and backslashes
    are neutralised (``../x`` -> ``__/x``)."""
    parts = [part for part in arc.replace("\\", "/").split("/") if part not in ("", ".")]
    parts = ["__" if part == ".." else part.replace(":", "_") for part in parts]
    return "/".join(parts) or "_"


@dataclass
class BundleInputs:
    """The files of one bundle, checked and completed from the cfg (:func:`bundle_inputs`)."""

    prototxt: str | None
    caffemodel: str | None
    images: list[str]
    mean_file: str | None
    warnings: list[str]


def bundle_inputs(*, layer: str, reference: str, sim: str, prototxt: str | None = None,
                  caffemodel: str | None = None, cfg: str | None = None, mapper_log: str | None = None,
                  images: list[str] | None = None, mean_file: str | None = None) -> BundleInputs:
    """The bundle's inputs: the given files checked, what is not given taken from `cfg` (its
    prototxt, caffemodel, last calibration image, mean file), and `layer` checked against the
    prototxt (else the dump folders): :class:`BundleError` naming the nearest names.  Writes
    nothing."""
    for what, p in (("reference folder", reference), ("simulator folder", sim)):
        if not Path(p).exists():
            raise BundleError(f"{what} {p} does not exist")
    for what, p in (("prototxt", prototxt), ("caffemodel", caffemodel), ("cfg", cfg), ("mapper log", mapper_log),
                    ("mean file", mean_file), *(("image", i) for i in images or [])):
        if p and not Path(p).is_file():
            raise BundleError(f"{what} {p} does not exist")
    warnings: list[str] = []
    named = cfg_files(cfg, warnings) if cfg else CfgFiles()
    prototxt, caffemodel = prototxt or named.prototxt, caffemodel or named.caffemodel
    if prototxt:
        from nnie_lsp.readers.caffemodel import NetLoadError
        from nnie_lsp.reference.net import read_prototxt_text

        try:
            check_layer(layer, layer_names(read_prototxt_text(prototxt)), Path(prototxt).name)
        except NetLoadError as exc:
            raise BundleError(str(exc)) from exc
    elif not _find_tensors(reference, [layer]) and not _find_tensors(sim, [layer]):
        check_layer(layer, dump_names(reference, sim), f"the dumps of {reference} and {sim} (no prototxt given)")
    imgs = list(images or [])
    if not imgs:   # the image the mapper dumps: the list's last
        imgs = [i for i in named.images[-1:] if Path(i).is_file()]
    return BundleInputs(prototxt=prototxt, caffemodel=caffemodel, images=imgs, mean_file=mean_file or named.mean_file,
                        warnings=warnings)


def make_bundle(out: str | Path, *, layer: str, reference: str, sim: str, prototxt: str | None = None,
                caffemodel: str | None = None, cfg: str | None = None, mapper_log: str | None = None,
                images: list[str] | None = None, mean_file: str | None = None, triage: dict | None = None) -> dict:
    """Write the bundle for `layer` to `out` (atomically); returns ``{layer, files, warnings,
    mapper_version, prototxt, caffemodel}``.  The inputs are :func:`bundle_inputs`'s: with `cfg`,
    what is not given comes from it."""
    given = bundle_inputs(layer=layer, reference=reference, sim=sim, prototxt=prototxt, caffemodel=caffemodel,
                          cfg=cfg, mapper_log=mapper_log, images=images, mean_file=mean_file)
    prototxt, caffemodel = given.prototxt, given.caffemodel
    files: list[str] = []
    warnings: list[str] = list(given.warnings)
    info: dict = {"layer": layer, "files": files, "warnings": warnings, "mapper_version": None,
                  "prototxt": prototxt, "caffemodel": caffemodel}
    producers: list[str] = []
    bottoms: list[str] = []
    tops: list[str] = [layer]
    # atomic (a killed run leaves an older bundle intact); a link at `out` is replaced, not followed
    with atomic_write.replacing(str(out), follow_symlinks=False) as handle, \
            zipfile.ZipFile(handle, "w", compression=zipfile.ZIP_DEFLATED) as z:
        def add_bytes(arc: str, data: bytes) -> None:
            arc = safe_member_name(arc)
            z.writestr(arc, data)
            files.append(arc)

        def add_file(arc: str, path: str | Path) -> None:
            # regular files only (a FIFO would hang the write, a device never end): safe_io
            problem = safe_io.check_file(str(path), safe_io.kind_for_path(str(path)), bounded=False)
            if problem is not None:
                raise BundleError(f"cannot add to the bundle: {problem.message}")
            arc = safe_member_name(arc)
            z.write(path, arc)
            files.append(arc)

        if prototxt:
            from nnie_lsp.readers.caffemodel import NetLoadError
            from nnie_lsp.reference.net import read_prototxt_text

            try:
                text = read_prototxt_text(prototxt)
            except NetLoadError as exc:
                raise BundleError(str(exc)) from exc
            excerpt, producers, bottoms = prototxt_excerpt(text, layer)
            blk = next(b for b in _layer_blocks(text) if b[0] == layer or base_layer_name(b[0]) == layer)
            tops = blk[2] or [layer]
            add_bytes(f"layer/{layer}.excerpt.prototxt", excerpt.encode())
            add_file(f"model/{Path(prototxt).name}", prototxt)
        if caffemodel:
            from nnie_lsp.readers.caffemodel import NetLoadError, read_weights

            try:
                weights = read_weights(caffemodel)
            except NetLoadError as exc:
                raise BundleError(str(exc)) from exc
            wl = weights.get(layer) or weights.get(base_layer_name(layer)) or weights.get(layer + HP_SUFFIX) or []
            if not wl:
                warnings.append(f"layer {layer} has no weights in {caffemodel}")
            for i, w in enumerate(wl):
                shape = "x".join(map(str, w.shape))
                buf = io.BytesIO()
                np.save(buf, w)
                add_bytes(f"layer/weights/{layer}_blob{i}_{shape}.npy", buf.getvalue())
                add_bytes(f"layer/weights/{layer}_blob{i}_{shape}.txt",
                          "\n".join(f"{v:.9g}" for v in w.reshape(-1)).encode() + b"\n")
        names = [layer] + tops + producers + bottoms
        for side, folder in (("caffe", reference), ("nnie", sim)):
            found = _find_tensors(folder, names)
            if not found:
                warnings.append(f"no {side} dump found for {layer} or its inputs in {folder}")
            for p in found:
                add_file(f"data/{side}/{p.name}", p)
        if cfg:
            add_file(f"cfg/{Path(cfg).name}", cfg)
        for im in given.images:
            add_file(f"images/{Path(im).name}", im)
        mf = given.mean_file
        if mf and Path(mf).is_file():
            add_file(f"cfg/{Path(mf).name}", mf)
        if mapper_log:
            try:  # the version line is at the top; a log_level 3 log can be gigabytes
                log = decode(safe_io.read_head(str(mapper_log), 4 * safe_io.MIB, safe_io.LOG)).text
            except OSError as exc:
                raise BundleError(f"cannot read the mapper log {mapper_log}: {exc}") from exc
            info["mapper_version"] = mapper_version(log)
            if info["mapper_version"] is None:
                warnings.append(f"{mapper_log}: no 'Mapper Version' line")
            add_file(f"mapper/{Path(mapper_log).name}", mapper_log)
        if triage is not None:
            add_bytes("triage.json", json.dumps(triage, indent=2, ensure_ascii=False, default=str).encode())
        row = None
        if triage:
            row = next((r for r in triage.get("layers", []) if r.get("name") == layer or r.get("blob") == layer), None)
        readme = [f"# nnie-triage bundle: layer {layer}", "",
                  f"Made {datetime.now(timezone.utc).strftime('%Y-%m-%d %H:%M UTC')} by nnie-triage (guide step 6).", "",
                  f"- mapper version: {info['mapper_version'] or 'unknown (no mapper log given)'}",
                  f"- prototxt: {Path(prototxt).name if prototxt else 'none given'}; the layer's weights from: "
                  f"{Path(caffemodel).name if caffemodel else 'none given'}",
                  f"- producers: {', '.join(producers) or 'network input / unknown'}",
                  f"- layer inputs (blobs): {', '.join(bottoms) or 'unknown'}"]
        if triage:
            readme += [f"- triage: case {triage.get('case')}, next step {triage.get('next_step')}, first divergence "
                       f"{triage.get('first_divergence')}", f"- verdict: {triage.get('verdict')} — {triage.get('reason')}"]
        if row:
            readme.append(f"- this layer: cosine {row.get('cosine')}, max abs error {row.get('max_abs_error')}, "
                          f"matched by {row.get('matched_by')}")
        readme += ["", "## Files", ""] + [f"- `{f}`" for f in files] + ["", "Data: `data/caffe` = Caffe reference "
                   "dumps, `data/nnie` = simulator/board dumps (20.12 hex = int32/4096), for the layer and the "
                   "layers feeding it.", ""]
        if warnings:
            readme += ["## Warnings", ""] + [f"- {w}" for w in warnings] + [""]
        add_bytes("README.md", "\n".join(readme).encode())
    return info
