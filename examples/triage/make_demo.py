"""Regenerate the triage demo dump sets from the real MTCNN P-Net (det1, input 20x20).

    .venv/bin/python examples/triage/make_demo.py [--image PATH]

Each folder holds caffe/ (OpenCV Caffe forward, RuyiStudio format), nnie/ (numpy NNIE 8-bit
emulation, mapper_quant format), sim.cfg and a README line; try e.g.

    python -m nnie_lsp.cli.triage compare --reference examples/triage/channel_swap/caffe \\
        --sim examples/triage/channel_swap/nnie --cfg examples/triage/channel_swap/sim.cfg \\
        --prototxt examples/triage/model/det1.prototxt --html /tmp/report.html
"""
from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))

from nnie_lsp.reference.scenarios import scenarios, write_scenario  # noqa: E402

DEMOS = ("channel_swap", "quant_noise")


def main() -> int:
    ap = argparse.ArgumentParser()
    default_img = HERE.parent.parent.parent / "shared" / "corpus" / "models" / "mtcnn" / "test1.jpg"
    ap.add_argument("--image", default=str(HERE / "test1.jpg" if (HERE / "test1.jpg").exists() else default_img))
    args = ap.parse_args()
    image = Path(args.image)
    if not image.is_file():
        print(f"image {image} not found (pass --image)", file=sys.stderr)
        return 2
    if not (HERE / "test1.jpg").exists():
        shutil.copy(image, HERE / "test1.jpg")
    all_sc = scenarios()
    for name in DEMOS:
        out = HERE / name
        if out.exists():
            shutil.rmtree(out)
        sc = all_sc[name]
        write_scenario(sc, out, HERE / "model", HERE / "test1.jpg")
        (out / "images.txt").write_text("../test1.jpg\n")
        (out / "README.txt").write_text(f"{name}: {sc.description}; expected case {sc.expected_case}\n")
        print(f"{name}: {sc.description}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
