"""The whole chain ONNX → Caffe → NNIE on a model whose conversion is known (faithful, or with one
converter fault: :mod:`.onnx_models_convert`), as a user runs it — through ``nnie-triage`` only:

1. a project folder: ``net.onnx``, its conversion ``net.prototxt`` + ``net.caffemodel``, a cfg with
   the model's real preprocessing and an image list (:func:`write_project`);
2. ``nnie-triage reference`` (Caffe, OpenCV), ``reference --onnx`` (ONNX Runtime) and ``emulate``
   (the NNIE side), then ``compare --framework`` (:func:`run_chain`).

Used by the tests (tests/triage/diagnose/test_conversion*.py), the verdict benchmark's conversion row and
examples/conversion/.  Not a product feature.
"""

from __future__ import annotations

import contextlib
import io
import json
from dataclasses import dataclass
from pathlib import Path

from nnie_lsp.testing.faults import Prep, write_cfg

#: MTCNN's preprocessing (the nets were trained in MATLAB: RGB, (x - 127.5) / 128, H/W transposed)
MTCNN_PREP = Prep(rgb_order="RGB", norm_type=5, mean=(127.5, 127.5, 127.5), data_scale=0.0078125)


@dataclass
class ChainProject:
    folder: Path
    cfg: Path
    prototxt: Path
    caffemodel: Path
    onnx: Path
    transpose: bool = True


def write_project(folder: str | Path, model, conversion, images: list[str | Path], *, prep: Prep = MTCNN_PREP,
                  transpose: bool = True, name: str = "net") -> ChainProject:
    """The project files of ``model`` (an onnx ModelProto) and its ``conversion``."""
    from nnie_lsp.testing.onnx_models import save

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    proto, caffemodel = folder / f"{name}.prototxt", folder / f"{name}.caffemodel"
    proto.write_text(conversion.prototxt, encoding="utf-8")
    caffemodel.write_bytes(conversion.caffemodel)
    onnx_path = save(model, folder / f"{name}.onnx")
    (folder / "images.txt").write_text("".join(f"{Path(i).resolve()}\n" for i in images), encoding="utf-8")
    cfg = write_cfg(folder / f"{name}.cfg", prototxt=f"./{proto.name}", caffemodel=f"./{caffemodel.name}", prep=prep)
    return ChainProject(folder, cfg, proto, caffemodel, onnx_path, transpose)


def triage(args: list[str]) -> tuple[int, str]:
    """``nnie-triage ARGS`` in this process: (exit status, what it wrote)."""
    from nnie_lsp.cli.triage import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        code = main(args)
    return code, out.getvalue()


def _run(args: list[str]) -> str:
    code, text = triage(args)
    if code != 0:
        raise RuntimeError(f"nnie-triage {' '.join(args)} exited {code}: {text.strip()[-600:]}")
    return text


def make_dumps(p: ChainProject) -> dict[str, Path]:
    """The three dump folders of the chain: ``caffe``, ``onnx``, ``nnie`` (8-bit emulation)."""
    t = ["--transpose"] if p.transpose else []
    dirs = {k: p.folder / k for k in ("caffe", "onnx", "nnie")}
    _run(["reference", "--cfg", str(p.cfg), "-o", str(dirs["caffe"]), "--progress", "none", *t])
    _run(["reference", "--cfg", str(p.cfg), "--onnx", str(p.onnx), "-o", str(dirs["onnx"]), "--progress", "none", *t])
    _run(["emulate", "--cfg", str(p.cfg), "-o", str(dirs["nnie"]), "--progress", "none", *t])
    return dirs


def run_chain(p: ChainProject, extra: list[str] = ()) -> dict:
    """The dumps, then ``compare --framework … --format json``: the result."""
    dirs = make_dumps(p)
    out = p.folder / "triage.json"
    _run(["compare", "--cfg", str(p.cfg), "--reference", str(dirs["caffe"]), "--sim", str(dirs["nnie"]),
          "--framework", str(dirs["onnx"]), "--format", "json", "--output", str(out), "--progress", "none",
          "--previous", "none", *extra])
    return json.loads(out.read_text(encoding="utf-8"))
