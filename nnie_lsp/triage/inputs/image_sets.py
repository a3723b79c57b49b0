"""Dump folders that hold several images, and the manifest nnie-triage writes in every output folder.

Layout (``nnie-triage reference|emulate --images N``; names from :mod:`.layout`):

- one image (the default): the dumps sit in the output folder itself, as RuyiStudio's ``output/``
  and the mapper's ``mapper_quant/`` hold them;
- N > 1 images: one sub-folder per image, ``image<n>_<name>/`` (``n`` = the image's line in the
  image list, 0-based; ``<name>`` = the image file's stem), each holding that image's dumps in the
  same format. The last image of the list is the one the mapper dumps (docs/field-facts.md §10.1);
- the manifest ``nnie-triage-dumps.json`` beside them says what was run: the command, cfg,
  prototxt, caffemodel, the image list's length, each image (its line, folder and files), the files
  written and, for an emulation, the activation clips it calibrated (which decode 8-bit input dumps,
  :mod:`.input_codes`).

Nothing a user owns is overwritten: :func:`prepare_output` refuses a folder that holds dump files
nnie-triage did not write there, and removes only the files its previous manifest lists.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from nnie_lsp.triage.inputs.folder_names import DUMP_MANIFEST, IMAGE_DIR_PREFIX

MANIFEST_VERSION = 1


class ImageSetError(ValueError):
    """A folder nnie-triage cannot write to, or image sets that cannot be paired; for the user."""


def image_folder_name(index: int, label: str) -> str:
    """``image<n>_<stem>`` (the stem cleaned to letters, digits, ``-`` and ``_``)."""
    stem = Path(str(label).split(":")[0]).stem if label else ""
    stem = re.sub(r"[^A-Za-z0-9_-]+", "_", stem).strip("_")[:40]
    return f"{IMAGE_DIR_PREFIX}{int(index)}" + (f"_{stem}" if stem else "")


# ------------------------------------------------------------------------------------- writing
def _dump_like(name: str) -> bool:
    from nnie_lsp.readers.dumpio.names import is_ignored_file, parse_dump_name

    parsed = parse_dump_name(name)
    return parsed is not None and not is_ignored_file(name)


def prepare_output(folder: str | Path) -> list[str]:
    """Make ``folder`` ready for a new run and return the notes to show. Files a previous run of
    nnie-triage wrote (its manifest lists them) are removed; a folder holding other dump files is
    refused with a message (they would be overwritten or mixed into the comparison)."""
    out = Path(folder)
    if out.exists() and not out.is_dir():
        raise ImageSetError(f"output {out} is a file, not a folder")
    if not out.exists():
        return []
    previous = read_manifest(out)
    ours = {os.path.normpath(f) for f in (previous or {}).get("files", [])}
    foreign = []
    for root, dirs, files in os.walk(out):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in files:
            rel = os.path.normpath(os.path.relpath(os.path.join(root, name), out))
            if rel != DUMP_MANIFEST and rel not in ours and _dump_like(name):
                foreign.append(rel)
    if foreign:
        shown = ", ".join(sorted(foreign)[:3]) + (f" and {len(foreign) - 3} more" if len(foreign) > 3 else "")
        raise ImageSetError(f"{out} already holds {len(foreign)} dump file(s) nnie-triage did not write "
                            f"({shown}); give another --output, or move them away first")
    removed = 0
    for rel in sorted(ours):
        path = out / rel
        if path.is_file():
            path.unlink()
            removed += 1
    for rel in sorted({os.path.dirname(r) for r in ours if os.path.dirname(r)}, reverse=True):
        try:
            (out / rel).rmdir()  # only when empty
        except OSError:
            pass
    return [f"replaced {removed} file(s) of the previous run in {out}"] if removed else []


def write_manifest(folder: str | Path, manifest: dict) -> Path:
    out = Path(folder)
    files = sorted({os.path.normpath(os.path.relpath(f, out)) for f in manifest.get("files", [])})
    doc = {"manifest_version": MANIFEST_VERSION, "tool": "nnie-triage", **manifest, "files": files}
    path = out / DUMP_MANIFEST
    path.write_text(json.dumps(doc, indent=1, default=str) + "\n", encoding="utf-8")
    return path


# ------------------------------------------------------------------------------------- reading
def read_manifest(folder: str | Path) -> dict | None:
    """The manifest of a folder nnie-triage wrote, or None (a folder of other tools, or a file)."""
    path = Path(folder) / DUMP_MANIFEST
    if not path.is_file():
        return None
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return doc if isinstance(doc, dict) and doc.get("tool") == "nnie-triage" else None


@dataclass
class ImageDumps:
    """The dumps of one image inside a dump folder."""

    index: int | None  # line of the image list (None: unknown, a folder without our manifest)
    label: str
    path: Path  # folder holding this image's dumps


@dataclass
class DumpFolder:
    """A dump folder as the comparison sees it: one or several images."""

    root: Path
    images: list[ImageDumps]
    list_length: int | None = None
    manifest: dict | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def several(self) -> bool:
        return len(self.images) > 1

    @classmethod
    def read(cls, folder: str | Path) -> "DumpFolder":
        root = Path(folder)
        manifest = read_manifest(root) if root.is_dir() else None
        if manifest is None:
            return cls(root=root, images=[ImageDumps(None, root.name, root)])
        images = []
        for item in manifest.get("images", []):
            sub = root / item.get("folder", ".")
            images.append(ImageDumps(item.get("index"), item.get("label") or sub.name, sub))
        if not images:
            images = [ImageDumps(None, root.name, root)]
        return cls(root=root, images=images, list_length=manifest.get("image_list_length"), manifest=manifest)

    def clips(self) -> dict[str, float]:
        """The activation clips an emulation recorded (blob -> clip), else empty."""
        raw = (self.manifest or {}).get("clips") or {}
        return {str(k): float(v) for k, v in raw.items() if isinstance(v, (int, float))}


@dataclass
class ImagePair:
    index: int | None
    label: str
    reference: Path
    sim: Path


def pair_images(reference: DumpFolder, sim: DumpFolder, count: int | None) -> tuple[list[ImagePair], list[str]]:
    """Which image dumps to compare with which: by image-list line; a folder without our manifest
    (RuyiStudio's output/, the mapper's mapper_quant/) holds one image, and the mapper's is the
    list's last. ``count``: the last ``count`` pairs (None = all)."""
    notes: list[str] = []
    ref_by = {img.index: img for img in reference.images}
    sim_by = {img.index: img for img in sim.images}
    if None in ref_by and None in sim_by:  # two single-image folders of unknown images
        pairs = [ImagePair(None, reference.images[0].label, reference.images[0].path, sim.images[0].path)]
    elif None in ref_by or None in sim_by:
        known, other = (sim_by, "reference") if None in ref_by else (ref_by, "simulator")
        single = ref_by.get(None) or sim_by.get(None)
        index = max(known)
        if len(known) > 1:
            notes.append(f"the {other} folder holds one image (taken as the list's last, the one the mapper "
                         f"dumps): compared with image {index} only")
        img = known[index]
        ref_path, sim_path = (single.path, img.path) if None in ref_by else (img.path, single.path)
        pairs = [ImagePair(index, img.label, ref_path, sim_path)]
    else:
        common = sorted(set(ref_by) & set(sim_by))
        if not common:
            raise ImageSetError(f"the reference images (lines {_lines(ref_by)}) and the simulator images "
                                f"(lines {_lines(sim_by)}) have no image in common")
        left = sorted(set(ref_by) ^ set(sim_by))
        if left:
            notes.append(f"image line(s) {', '.join(map(str, left))} dumped on one side only: not compared")
        for i in common:
            if ref_by[i].label != sim_by[i].label:
                notes.append(f"image line {i}: {ref_by[i].label} on the reference side, {sim_by[i].label} on the "
                             "simulator side (different image lists?)")
        pairs = [ImagePair(i, ref_by[i].label, ref_by[i].path, sim_by[i].path) for i in common]
    if count is not None:
        if count > len(pairs):
            if count > 1:
                notes.append(f"--images {count}: the dump folders hold {len(pairs)} image(s) in common; "
                             "comparing those (run `nnie-triage reference/emulate --images N` for more)")
        else:
            pairs = pairs[-count:]
    return pairs, notes


def _lines(by_index: dict) -> str:
    return ", ".join(str(i) for i in sorted(k for k in by_index if k is not None)) or "?"
