"""Make the conversion example (issue 19: the stage before Caffe): MTCNN det1 (P-Net, the real
weights of the shared corpus) as a PyTorch port exports it to ONNX at 25×25 — max-pooling that
rounds DOWN (ceil_mode 0) — and its Caffe conversion by a converter that forgets
`round_mode: FLOOR`, so Caffe's pool1 rounds UP (12×12 instead of 11×11) and every layer after it
computes something else.  Writes det1.onnx, det1.prototxt, det1.caffemodel, det1.cfg (MTCNN's
preprocessing), det1_mean.txt and images.txt (examples/triage/test1.jpg) beside this script.

    .venv/bin/python examples/conversion/make_example.py

demo.sh then shows the chain: nnie-lint --onnx names the layer statically (NN503, also in the
in-place, exporter-named copy of inplace/), nnie-triage compare --framework names the stage
(conversion at pool1, T501), and the re-export of reexported/ checks clean on both hops.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))

from nnie_lsp.testing import onnx_models as m  # noqa: E402
from nnie_lsp.testing.conversion_chain import MTCNN_PREP  # noqa: E402
from nnie_lsp.testing.faults import write_cfg  # noqa: E402
from nnie_lsp.testing.onnx_models_convert import convert  # noqa: E402


def _project(model, conv, folder: str = "", images: str = "../triage/test1.jpg") -> dict[str, bytes]:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        cfg = write_cfg(Path(tmp) / "det1.cfg", prototxt="./det1.prototxt", caffemodel="./det1.caffemodel",
                        prep=MTCNN_PREP)
        texts = {"det1.cfg": cfg.read_bytes(), "det1_mean.txt": (Path(tmp) / "det1_mean.txt").read_bytes()}
    out = {"det1.onnx": m.model_bytes(model), "det1.prototxt": conv.prototxt.encode("utf-8"),
           "det1.caffemodel": conv.caffemodel, "images.txt": f"{images}\n".encode("utf-8"), **texts}
    return {f"{folder}{name}": data for name, data in out.items()}


def files() -> dict[str, bytes]:
    """Every file of the example, by name (tests/triage/diagnose/test_conversion.py checks they are current):

    - the example: det1 at 25×25, the converter forgot `round_mode: FLOOR`;
    - ``inplace/``: the same fault in the shape real files have -- the PyTorch exporter's numbered
      tensors and nodes, every PReLU written in place (``top:`` = the convolution's blob);
    - ``reexported/``: the lasting fix, the model exported at 24×24, where rounding down and up give
      the same pool1 (22 → 11): nothing to write in the prototxt, nothing the NNIE wk does otherwise.
    """
    from nnie_lsp.testing.onnx_names import exporter_named

    model = m.pnet(size=25, ceil_mode=0)
    numbered = exporter_named(model)
    at24 = m.pnet(size=24, ceil_mode=0)
    return {**_project(model, convert(model, "ceil_mode")),
            **_project(numbered, convert(numbered, "ceil_mode", inplace=True), "inplace/", "../../triage/test1.jpg"),
            **_project(at24, convert(at24), "reexported/", "../../triage/test1.jpg")}


def main() -> int:
    if not m.mtcnn_available():
        print("the MTCNN models of the shared corpus are absent: nothing made", file=sys.stderr)
        return 1
    for name, data in files().items():
        (HERE / name).parent.mkdir(parents=True, exist_ok=True)
        (HERE / name).write_bytes(data)
    print(f"wrote {', '.join(files())} in {HERE} (fault: ceil_mode at pool1)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
