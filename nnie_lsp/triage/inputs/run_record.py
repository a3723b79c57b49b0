"""What a run's dumps were made from, by content: the record an output folder's manifest keeps and a
later triage compares with the files as they are now (T008, :mod:`..diagnose.staleness`).

Every input that decides what the NNIE (or the reference) computes is recorded by its meaning, not
its text or file time, so that a change of it is seen and a value-neutral change is not:

- ``inputs``: each network input's preprocessing as the mapper applies it (docs/field-facts.md §3.3,
  §5): the channel order, the mean it subtracts (the mean file's *values*: a reformatted file or
  another file with the same numbers is no change; a ``.binaryproto`` by its bytes), the scale it
  multiplies by, the image type.  ``norm_type`` is recorded but compared through what it does (a
  norm_type 3 and a norm_type 5 with a zero mean compute the same);
- ``compile_mode``: the precision (the mapper's default 0 when unset);
- ``prototxt``: the parsed net (its ``NetParameter``, serialized: comments and layout are no change);
- ``caffemodel``: its bytes; ``images``: every line of every image list and the bytes of each image
  (the mapper calibrates on the whole list, §5.6) — or the images given on the command line;
- ``card``: the model card entry of the net (its digest: what it declares, :func:`card_record`);
- ``cfg_keys``: the other keys that change the mapper's output (``net_type``, ``batch_num`` …), by
  value (comments, spacing and the order of lines are no change).

The record is made with the same command-line options the run had (an option that overrides the
cfg makes the cfg's value of that key irrelevant).  :func:`changes` says what differs, in words
for the T008 message, each with the cfg key where it is set.  Nothing here raises on a missing or
unreadable file: it is recorded as missing (and a file that appears or goes is a change).
Importing this module loads no numpy.
"""

from __future__ import annotations

import hashlib
import os
from typing import Mapping, Sequence

RECORD_VERSION = 1
#: Keys recorded through what they mean (``inputs``, ``compile_mode``, ``prototxt`` …) or that do not
#: change what the mapper computes; every other key is recorded by value in ``cfg_keys``.
COVERED_KEYS = frozenset({"prototxt_file", "caffemodel_file", "mean_file", "image_list", "norm_type",
                          "data_scale", "RGB_order", "image_type", "compile_mode"})
IRRELEVANT_KEYS = frozenset({"instruction_name", "instructions_name", "is_simulation", "log_level",
                             "is_check_prototxt"})

#: Digests of files by (path, size, mtime_ns): one process hashes a file once per change.
_DIGESTS: dict[tuple[str, int, int], str] = {}
_DIGESTS_MAX = 4096


def file_digest(path: str | None) -> str | None:
    """SHA-256 of a file's bytes (None: no such readable file)."""
    if not path:
        return None
    try:
        info = os.stat(path)
    except OSError:
        return None
    key = (os.path.abspath(path), info.st_size, info.st_mtime_ns)
    digest = _DIGESTS.get(key)
    if digest is not None:
        return digest
    h = hashlib.sha256()
    try:
        with open(path, "rb") as handle:
            for chunk in iter(lambda: handle.read(1 << 20), b""):
                h.update(chunk)
    except OSError:
        return None
    if len(_DIGESTS) >= _DIGESTS_MAX:
        _DIGESTS.pop(next(iter(_DIGESTS)))
    _DIGESTS[key] = digest = h.hexdigest()
    return digest


def _text_digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def card_record(cfg: str | None, prototxt: str | None) -> dict:
    """The model card entry the cfg's net is judged against (:func:`nnie_lsp.project.card_lookup.find_card`),
    by its digest: what it declares of the training preprocessing (with its mean image's bytes), so a
    comment or another net's entry changed in ``nnie.toml`` is no change."""
    from nnie_lsp.project.card_lookup import find_card

    card = find_card(cfg, [prototxt] if prototxt else []) if cfg else None
    if card is None or card.model is None:
        return {"file": None, "sha256": None}
    return {"file": os.path.relpath(card.card_path, os.path.dirname(os.path.abspath(cfg))), "sha256": card.digest()}


def prototxt_digest(path: str | None) -> str | None:
    """The parsed net's digest (its serialized ``NetParameter``), else the text's; None: unreadable."""
    if not path:
        return None
    from nnie_lsp.core import safe_io
    from nnie_lsp.core.text import decode
    try:
        text = decode(safe_io.read_bytes(str(path), safe_io.PROTOTXT)).text
    except (OSError, ValueError):
        return None
    try:
        from nnie_lsp.project.project import cached_prototxt
        doc, _graph = cached_prototxt(text, str(path))
        if not doc.syntax_errors:
            return hashlib.sha256(doc.message.SerializeToString(deterministic=True)).hexdigest()
    except Exception:   # an unparsable net is recorded by its text
        pass
    return _text_digest(text)


def _mean_record(prep) -> dict:
    """What an input's mean is: its values (text files), its bytes (a mean image), or missing."""
    from nnie_lsp.readers.cfg.preprocessing import CHANNEL_MEAN, parse_channel_means

    mean = prep.mean_file
    if mean is None or mean.is_null:
        return {"file": None}
    name = os.path.basename(mean.resolved or mean.written)
    if not mean.resolved:
        return {"file": name, "missing": True}
    if prep.semantics is not None and prep.semantics.mean_kind == CHANNEL_MEAN:
        try:
            with open(mean.resolved, encoding="utf-8", errors="replace") as handle:
                parsed = parse_channel_means(handle.read())
        except OSError:
            return {"file": name, "missing": True}
        if parsed.values is not None:
            return {"file": name, "values": [float(v) for v in parsed.values]}
    return {"file": name, "sha256": file_digest(mean.resolved)}


def _input_record(prep, overrides: Mapping) -> dict:
    """One input's preprocessing as it is applied (overrides first)."""
    out = {"index": prep.index,
           "norm_type": overrides.get("norm_type", prep.norm_type),
           "rgb_order": overrides.get("rgb_order") or prep.rgb_order,
           "image_type": prep.image_type}
    norm = out["norm_type"]
    from nnie_lsp.readers.cfg.preprocessing import norm_semantics

    row = norm_semantics(norm if isinstance(norm, int) else None)
    scale = overrides.get("data_scale", prep.data_scale)
    out["scale"] = float(scale) if row is not None and row.scales and scale is not None else (1.0 if row else None)
    if overrides.get("mean") is not None:
        given = str(overrides["mean"])
        out["mean"] = ({"file": os.path.basename(given), "sha256": file_digest(given)} if os.path.isfile(given)
                       else {"values": [float(v) for v in given.split(",") if v.strip()]})
    elif row is not None and row.uses_mean:
        out["mean"] = _mean_record(prep)
    else:
        out["mean"] = None
    return out


def _list_images(project, prep) -> list[str]:
    """Each line of an input's image list as a digest: an image's bytes, a feature map's text."""
    facts = project.image_list_for(prep.entry("image_list"))
    if facts is None:
        listed = prep.image_list
        return ["missing:" + (listed.written if listed is not None else "")]
    out = []
    for line in facts.lines:
        if prep.is_feature_map:
            out.append(_text_digest(line.text))
        else:
            out.append(file_digest(line.resolved) or f"missing:{line.text}")
    return out


def run_record(cfg: str | None, *, prototxt: str | None = None, caffemodel: str | None = None,
               images: Sequence[str] = (), overrides: Mapping | None = None) -> dict:
    """The record of a run made from `cfg` with these options (module doc).  `prototxt` and
    `caffemodel` are the files the run read (else the cfg's); `images`: files given instead of the
    image lists; `overrides`: ``norm_type``, ``mean``, ``data_scale``, ``rgb_order`` given on the
    command line."""
    overrides = {k: v for k, v in (overrides or {}).items() if v is not None}
    record: dict = {"version": RECORD_VERSION}
    project = None
    if cfg and os.path.isfile(cfg):
        from nnie_lsp.project.project import load_project
        try:
            project = load_project(cfg_path=str(cfg), load_prototxt=False)
        except (OSError, ValueError):
            project = None
    config = project.config if project is not None else None
    if config is not None:
        record["compile_mode"] = config.compile_mode if config.compile_mode is not None else 0
        record["inputs"] = [_input_record(prep, overrides) for prep in project.preprocessing]
        keys: dict[str, list[str]] = {}
        for entry in project.cfg.entries:
            if entry.key and entry.key not in COVERED_KEYS and entry.key not in IRRELEVANT_KEYS:
                keys.setdefault(entry.key, []).append(" ".join((entry.value or "").split()))
        record["cfg_keys"] = keys
        for key, attr in (("prototxt_file", "prototxt"), ("caffemodel_file", "caffemodel")):
            ref = next((r for r in project.refs if r.entry.key == key), None)
            if ref is not None and ref.resolved and not (prototxt if attr == "prototxt" else caffemodel):
                if attr == "prototxt":
                    prototxt = ref.resolved
                else:
                    caffemodel = ref.resolved
    else:
        record["inputs"] = []
    record["prototxt"] = {"file": os.path.basename(prototxt) if prototxt else None,
                          "sha256": prototxt_digest(prototxt)}
    record["caffemodel"] = {"file": os.path.basename(caffemodel) if caffemodel else None,
                            "sha256": file_digest(caffemodel)}
    if images:
        digests = [file_digest(p) or f"missing:{p}" for p in images]
        record["images"] = {"given": True, "count": len(digests), "sha256": _text_digest("\n".join(digests))}
    elif project is not None:
        lists = [_list_images(project, prep) for prep in project.preprocessing]
        flat = [d for one in lists for d in one]
        record["images"] = {"given": False, "count": max((len(one) for one in lists), default=0),
                            "sha256": _text_digest("\n".join(flat)),
                            "lines": [_text_digest("\n".join(one)) for one in lists]}
    record["card"] = card_record(cfg, prototxt)
    return record


# ------------------------------------------------------------------ what changed

def _mean_text(mean) -> str:
    if mean is None:
        return "none"
    if "values" in mean:
        return ", ".join(f"{v:g}" for v in mean["values"])
    if mean.get("missing"):
        return f"{mean.get('file')} (missing)"
    if mean.get("file") is None:
        return "none"
    return f"{mean.get('file')} ({str(mean.get('sha256'))[:8]})"


def _same_mean(a, b) -> bool:
    def effect(m):
        if m is None or m.get("file", "x") is None and "values" not in m and "sha256" not in m:
            return None
        if "values" in m:
            values = [round(float(v), 6) for v in m["values"]]
            return None if not any(values) else ("values", tuple(values))
        return ("bytes", m.get("sha256"), bool(m.get("missing")))
    return effect(a) == effect(b)


def changes(old: Mapping, new: Mapping) -> list[tuple[str, str, str]]:
    """What differs between two records: ``(cfg key or what, was, is now)``, in the cfg's order of
    concern (preprocessing first).  Only what changes a computed value is listed."""
    out: list[tuple[str, str, str]] = []
    old_inputs, new_inputs = list(old.get("inputs") or []), list(new.get("inputs") or [])
    several = max(len(old_inputs), len(new_inputs)) > 1
    for k in range(max(len(old_inputs), len(new_inputs))):
        a = old_inputs[k] if k < len(old_inputs) else {}
        b = new_inputs[k] if k < len(new_inputs) else {}
        tag = f" (input {k})" if several else ""
        if a.get("rgb_order") != b.get("rgb_order"):
            out.append((f"RGB_order{tag}", str(a.get("rgb_order")), str(b.get("rgb_order"))))
        same_mean = _same_mean(a.get("mean"), b.get("mean"))
        same_scale = a.get("scale") == b.get("scale")
        if a.get("norm_type") != b.get("norm_type") and not (same_mean and same_scale):
            out.append((f"norm_type{tag}", str(a.get("norm_type")), str(b.get("norm_type"))))
        if not same_mean:
            what = "mean_file" + (" values" if any("values" in (m or {}) for m in (a.get("mean"), b.get("mean")))
                                  else "")
            out.append((f"{what}{tag}", _mean_text(a.get("mean")), _mean_text(b.get("mean"))))
        if not same_scale:
            out.append((f"data_scale{tag}", f"{a.get('scale')}", f"{b.get('scale')}"))
        if a.get("image_type") != b.get("image_type"):
            out.append((f"image_type{tag}", str(a.get("image_type")), str(b.get("image_type"))))
    if old.get("compile_mode") != new.get("compile_mode") and "compile_mode" in old:
        out.append(("compile_mode", str(old.get("compile_mode")), str(new.get("compile_mode"))))
    for key, what in (("prototxt", "prototxt_file"), ("caffemodel", "caffemodel_file")):
        a, b = old.get(key) or {}, new.get(key) or {}
        # a file unknown on one side (not found then, or now) is not known to differ
        if a.get("sha256") and b.get("sha256") and a.get("sha256") != b.get("sha256"):
            out.append((what, f"{a.get('file')} ({_short(a.get('sha256'))})",
                        f"{b.get('file')} ({_short(b.get('sha256'))})"))
    a, b = old.get("images") or {}, new.get("images") or {}
    if a.get("sha256") != b.get("sha256") and (a or b):
        out.append(("image_list", f"{a.get('count', 0)} image(s) ({_short(a.get('sha256'))})",
                    f"{b.get('count', 0)} image(s) ({_short(b.get('sha256'))})"))
    a, b = old.get("card") or {}, new.get("card") or {}
    if a.get("sha256") != b.get("sha256"):
        out.append(("model card", f"{a.get('file') or 'none'} ({_short(a.get('sha256'))})",
                    f"{b.get('file') or 'none'} ({_short(b.get('sha256'))})"))
    old_keys, new_keys = old.get("cfg_keys") or {}, new.get("cfg_keys") or {}
    for key in sorted(set(old_keys) | set(new_keys)):
        if list(old_keys.get(key) or []) != list(new_keys.get(key) or []):
            out.append((key, ", ".join(old_keys.get(key) or []) or "-", ", ".join(new_keys.get(key) or []) or "-"))
    return out


def _short(digest) -> str:
    return str(digest)[:8] if digest else "none"


def cfg_key_of(change: str) -> str | None:
    """The cfg key a :func:`changes` entry is about (where T008 points), None for the card."""
    key = change.split(" ", 1)[0]
    return key if key != "model" else None
