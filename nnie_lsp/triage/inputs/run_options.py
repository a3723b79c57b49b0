"""The options that shaped a ``reference`` or ``emulate`` run, as the manifest of its output folder
records them, so that ``compare --regenerate`` makes the run again the same way (an MTCNN emulation
made with ``--transpose`` is made again transposed; ``--images 4`` again over four images; a ``--bits``
override again at that precision — and without one, at the precision the cfg says *now*).

Paths are recorded relative to the output folder (a copied or moved project keeps working) and read
back against it.  :func:`emulation_settings` turns the options and the cfg's ``[compile_mode]`` into
the emulation's :class:`~nnie_lsp.emulation.emulate.EmulationOptions` by the mapper's rule
(:mod:`nnie_lsp.emulation.precision`): the one place ``emulate`` and ``--regenerate`` both take it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Mapping

#: The options' manifest key, and the keys of the preprocessing overrides among them.
MANIFEST_KEY = "options"
OVERRIDE_KEYS = ("norm_type", "mean", "data_scale", "rgb_order")


@dataclass(frozen=True)
class RunOptions:
    """``nnie-triage reference|emulate`` options (None / empty: not given)."""

    command: str                        # "reference" | "emulate"
    cfg: str | None = None
    prototxt: str | None = None         # instead of the cfg's [prototxt_file]
    caffemodel: str | None = None       # instead of the cfg's [caffemodel_file]
    image: tuple[str, ...] = ()         # images given instead of the image lists
    images: int | None = 1              # the last N images of the list (None: all)
    norm_type: int | None = None
    mean: str | None = None             # "v,v,v" or a mean file
    data_scale: float | None = None
    rgb_order: str | None = None
    transpose: bool | None = None       # --transpose / --no-transpose (None: not given; a reference then
                                        # takes it from the model card)
    input_shape: tuple[int, ...] | None = None
    onnx: str | None = None             # reference --onnx
    dump_format: str | None = None      # reference --dump-format (None: the compact default)
    bits: int | None = None             # emulate --bits (None: the cfg's [compile_mode] decides)
    hp: tuple[str, ...] = ()            # emulate --hp
    format: str = "mapper_quant"        # emulate --format
    input_dumps: bool = False           # emulate --input-dumps
    notes: tuple[str, ...] = field(default=(), compare=False)

    @property
    def overrides(self) -> dict:
        """The preprocessing given on the command line (key -> value)."""
        return {k: getattr(self, k) for k in OVERRIDE_KEYS if getattr(self, k) is not None}

    def load_inputs(self):
        """The run's :class:`~nnie_lsp.reference.run_inputs.RunInputs` (the cfg read once, options
        first).  A reference takes the training preprocessing (options, else the model card, else the
        cfg: ``side="reference"``); an emulation what the cfg says.  ``transpose`` not given is None,
        so that the card decides it for a reference."""
        from nnie_lsp.reference.run_inputs import Overrides, load_run_inputs

        return load_run_inputs(self.cfg, prototxt=self.prototxt, caffemodel=self.caffemodel,
                               images=list(self.image) or None, count=self.images,
                               overrides=Overrides(norm_type=self.norm_type, mean=self.mean,
                                                   data_scale=self.data_scale, rgb_order=self.rgb_order,
                                                   transpose=self.transpose),
                               side="reference" if self.command == "reference" else "nnie")

    def to_json(self, folder: str | Path) -> dict:
        """The manifest's ``options``: paths relative to `folder`, only what was given."""
        out: dict = {}
        for f in fields(self):
            if f.name in ("command", "notes"):
                continue
            value = getattr(self, f.name)
            if value in (None, ()) or (value is False and f.name != "transpose") \
                    or (f.name == "format" and value == "mapper_quant"):
                continue
            if f.name in ("cfg", "prototxt", "caffemodel", "onnx") or (f.name == "mean" and os.path.isfile(str(value))):
                value = _relative(str(value), folder)
            elif f.name == "image":
                value = [_relative(p, folder) for p in value]
            elif isinstance(value, tuple):
                value = list(value)
            out[f.name] = value
        out["images"] = self.images   # None (all) is an option too
        return out

    @classmethod
    def from_manifest(cls, manifest: Mapping, folder: str | Path, cfg: str | None) -> "RunOptions":
        """The options a manifest recorded (a manifest of an older nnie-triage: what it says of them,
        its ``bits`` taken as given, so the run is made again as it was); `cfg` is the cfg given now."""
        command = str(manifest.get("command") or "emulate")
        raw = manifest.get(MANIFEST_KEY)
        notes: list[str] = []
        if not isinstance(raw, Mapping):   # before the options were recorded
            images = manifest.get("images") or [None]
            old_bits = manifest.get("bits")
            raw = {"images": len(images) if isinstance(images, list) else 1,
                   "bits": int(old_bits) if old_bits in (8, 16) and old_bits != 8 else None,
                   "hp": list(manifest.get("hp_layers") or ()), "format": manifest.get("format") or "mapper_quant",
                   "input_dumps": bool(manifest.get("input_dumps"))}
            if isinstance(manifest.get("transpose"), bool):   # said beside the options before they were
                raw["transpose"] = manifest["transpose"]
            notes.append("the folder's manifest records no options (an older nnie-triage): made again with the "
                         "cfg's, over as many images")
        values: dict = {"command": command, "cfg": cfg, "notes": tuple(notes)}
        for f in fields(cls):
            if f.name in ("command", "cfg", "notes") or f.name not in raw:
                continue
            value = raw[f.name]
            if f.name in ("prototxt", "caffemodel", "onnx") and value:
                value = _absolute(str(value), folder)
            elif f.name == "mean" and value and not _numbers(str(value)):
                value = _absolute(str(value), folder)
            elif f.name == "image":
                value = tuple(_absolute(str(p), folder) for p in value or ())
            elif f.name in ("hp", "input_shape") and value is not None:
                value = tuple(value)
            values[f.name] = value
        return cls(**values)

    def with_(self, **changes) -> "RunOptions":
        return replace(self, **changes)


def _numbers(text: str) -> bool:
    try:
        [float(v) for v in text.split(",")]
    except ValueError:
        return False
    return True


def _relative(path: str, folder: str | Path) -> str:
    try:
        return os.path.relpath(os.path.abspath(path), os.path.abspath(folder))
    except ValueError:   # another drive
        return os.path.abspath(path)


def _absolute(path: str, folder: str | Path) -> str:
    return os.path.normpath(path if os.path.isabs(path) else os.path.join(os.path.abspath(folder), path))


def emulation_settings(options: RunOptions, compile_mode: int | None):
    """(EmulationOptions, Precision) of an emulation run: the bits from the cfg's `compile_mode`
    unless ``--bits`` overrides it, `_hp` names honoured only under compile_mode 2."""
    from nnie_lsp.emulation.emulate import EmulationOptions
    from nnie_lsp.emulation.precision import precision_for

    precision = precision_for(compile_mode, options.bits)
    emulation = EmulationOptions(bits=precision.bits, hp_names=precision.hp_names, hp_layers=frozenset(options.hp),
                                 keep_inputs=options.input_dumps)
    return emulation, precision
