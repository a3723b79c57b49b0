"""Regenerate the triage demo dump sets from the real MTCNN P-Net (det1, input 20x20).

    .venv/bin/python examples/triage/make_demo.py [--image PATH] [channel_swap|quant_noise ...]

Each folder is laid out as a real project folder is after the tools ran in it, so that
`nnie-triage compare --cfg <folder>/sim.cfg` (and the editor's `nnie.triage` with the cfg alone)
finds everything by itself (nnie_lsp/docs/editor-protocol.md, "Discovery"):

    sim.cfg          the NNIE-side cfg; its paths resolve from its own folder (../model/det1.*)
    output/          Caffe side (OpenCV Caffe forward), RuyiStudio "Get Caffe Output" format
    mapper_quant/    NNIE side (numpy NNIE 8-bit emulation), nnie_mapper's mapper_quant format

channel_swap is made by the tools themselves, so that the cfg is its only fault: output/ is
`nnie-triage reference --cfg sim.cfg` (the Caffe side takes how the net was trained from the model
card, examples/triage/nnie.toml: RGB, (x - 127.5) * 0.0078125, transposed), mapper_quant/ is
`nnie-triage emulate --cfg sim.cfg --transpose` (the cfg says BGR; the images are fed transposed, as
the net was trained) with its manifest (nnie-triage-dumps.json, paths made relative).  So the
editor's loop works on a copy: case 1 -> set [RGB_order] RGB -> "Regenerate and triage again" (the
emulation made again with the fixed cfg, still transposed) -> case 4.
quant_noise is a seeded scenario (nnie_lsp/testing/scenarios.py, MTCNN's true preprocessing): noise
growing with depth, which no quantization makes, so hp-plan (and compare's T207) refuse to plan on it.
quant_outlier is a quantization fault the emulation reproduces (OUTLIER: a float-neutral activation
tail in det1_outlier.caffemodel beside its cfg, with its own det1.prototxt, which the plan renames in), made
by the tools like channel_swap: case 2, and T207
is hp-plan's plan; applied and regenerated, it is confirmed fixed.
    compile_mode1/   quant_noise only: a copy of the project run at compile_mode 1
        sim.cfg        [compile_mode] 1
        mapper_quant/  the 16-bit run

Try e.g. `.venv/bin/nnie-triage compare --cfg examples/triage/quant_noise/sim.cfg`.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))

from nnie_lsp.cli.triage import main as triage_main  # noqa: E402
from nnie_lsp.testing.scenarios import scenarios, write_scenario  # noqa: E402
from nnie_lsp.triage.inputs.folder_names import CAFFE_OUTPUT_DIR, DUMP_MANIFEST, MAPPER_QUANT_DIR  # noqa: E402

DEMOS = ("channel_swap", "quant_noise", "quant_outlier")
#: quant_outlier's fault: conv1's output channel 3 x100 and conv2 reading it /100 (float-neutral through
#: PReLU): the activation's long tail makes its 8-bit clip too coarse (nnie_lsp/testing/faults.py)
OUTLIER = ("conv1", "conv2", 3, 100.0)
CARD = ("# How quant_outlier's net was trained (the P-Net of ../model, see ../nnie.toml)\n\n[[model]]\n"
        'prototxt = "det1.prototxt"\nchannel_order = "RGB"\nmean = 127.5\nscale = 0.0078125\ntranspose = true\n'
        'source = "DuinoDu/mtcnn demo.py: channels 0 and 2 swapped, (img - 127.5) * 0.0078125, '
        'np.swapaxes(im_data, 0, 2)"\n')
OUTLIER_NOTE = ("quant_outlier: det1 with conv1's output channel 3 x100 and conv2 reading it /100 (the float net "
                "computes the same; at 8 bit the long tail of that activation costs the rest its precision); "
                "output/ and mapper_quant/ written by `nnie-triage reference` and `emulate --transpose`; expected "
                "case 2 with hp-plan's `_hp` plan as T207 -- applied, `compare --cfg sim.cfg --regenerate` confirms it\n")
SIXTEEN_BIT_RUN = "compile_mode1"
LOOP_NOTE = ("output/ and mapper_quant/ were written by `nnie-triage reference` (the preprocessing the net was "
             "trained with, from the model card ../nnie.toml) and `nnie-triage emulate --transpose` (the cfg's "
             "[RGB_order] is the only fault): after the fix [RGB_order] RGB, `nnie-triage compare --cfg sim.cfg "
             "--regenerate` (the editor: \"Regenerate and triage again\") gives case 4\n")


def _set(cfg_text: str, key: str, value: str) -> str:
    return re.sub(rf"(?m)^\[{key}\] .*$", lambda _m: f"[{key}] {value}", cfg_text)


def _cfg(cfg_text: str, up: str, compile_mode: int = 0) -> str:
    """The scenario's cfg with paths that resolve from the cfg's own folder (`up` leads to examples/triage)."""
    for key, name in (("prototxt_file", "det1.prototxt"), ("caffemodel_file", "det1.caffemodel")):
        cfg_text = _set(cfg_text, key, f"{up}model/{name}")
    if up != "../":
        for key, name in (("image_list", "images.txt"), ("mean_file", "mean.txt")):
            cfg_text = _set(cfg_text, key, f"../{name}")
    return _set(cfg_text, "compile_mode", str(compile_mode))


def _made_by_the_tools(out: Path) -> None:
    """channel_swap: both sides made again by `nnie-triage reference` / `emulate` from the cfg, so
    that the cfg's [RGB_order] is the only fault and the emulation can be regenerated after the fix."""
    cfg = out / "sim.cfg"
    for folder in (CAFFE_OUTPUT_DIR, MAPPER_QUANT_DIR):
        shutil.rmtree(out / folder)
    for argv in (["reference", "--cfg", str(cfg), "-o", str(out / CAFFE_OUTPUT_DIR)],
                 ["emulate", "--cfg", str(cfg), "--transpose", "-o", str(out / MAPPER_QUANT_DIR)]):
        if triage_main([*argv, "--progress", "none"]) != 0:
            raise SystemExit(f"nnie-triage {argv[0]} failed")
    for folder in (CAFFE_OUTPUT_DIR, MAPPER_QUANT_DIR):
        _relative_manifest(out / folder)


def _relative_manifest(folder: Path) -> None:
    """The manifest's paths relative to its folder (the example is copied and moved)."""
    path = folder / DUMP_MANIFEST
    if not path.is_file():
        return
    doc = json.loads(path.read_text(encoding="utf-8"))
    for key in ("cfg", "prototxt", "caffemodel"):
        if doc.get(key):
            doc[key] = os.path.relpath(doc[key], folder)
    if isinstance(doc.get("card"), dict) and doc["card"].get("path"):
        doc["card"]["path"] = os.path.relpath(doc["card"]["path"], folder)
    for image in doc.get("images") or []:
        if image.get("label") and os.path.isabs(image["label"]):
            image["label"] = os.path.relpath(image["label"], folder)
    path.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def _outlier_demo(out: Path) -> None:
    """quant_outlier (module doc): its cfg, the faulty caffemodel beside it, both sides made by the tools."""
    from nnie_lsp.testing import faults

    if out.exists():
        shutil.rmtree(out)
    out.mkdir()
    cfg_text = (HERE / "channel_swap" / "sim.cfg").read_text()
    # its own copy of the net: the plan renames layers in it, not in the other demos' model/det1.prototxt
    shutil.copy(HERE / "model" / "det1.prototxt", out / "det1.prototxt")
    cfg_text = _set(_set(_set(cfg_text, "RGB_order", "RGB"), "caffemodel_file", "./det1_outlier.caffemodel"),
                    "prototxt_file", "./det1.prototxt")
    (out / "sim.cfg").write_text(cfg_text)
    for name in ("mean.txt", "images.txt"):
        shutil.copy(HERE / "channel_swap" / name, out / name)
    # its own model card (the nearest to its cfg): the project is whole when copied on its own
    (out / "nnie.toml").write_text(CARD)
    faults.channel_tail(HERE / "model" / "det1.caffemodel", out / "det1_outlier.caffemodel", *OUTLIER)
    cfg = out / "sim.cfg"
    for argv in (["reference", "--cfg", str(cfg), "-o", str(out / CAFFE_OUTPUT_DIR)],
                 ["emulate", "--cfg", str(cfg), "--transpose", "-o", str(out / MAPPER_QUANT_DIR)]):
        if triage_main([*argv, "--progress", "none"]) != 0:
            raise SystemExit(f"nnie-triage {argv[0]} failed")
    for folder in (CAFFE_OUTPUT_DIR, MAPPER_QUANT_DIR):
        _relative_manifest(out / folder)
    (out / "README.txt").write_text(OUTLIER_NOTE)


def main() -> int:
    ap = argparse.ArgumentParser()
    default_img = HERE.parent.parent.parent / "shared" / "corpus" / "models" / "mtcnn" / "test1.jpg"
    ap.add_argument("names", nargs="*", choices=[[], *DEMOS], default=[], metavar="NAME",
                    help=f"the demos to make again (default: all of {', '.join(DEMOS)})")
    ap.add_argument("--image", default=str(HERE / "test1.jpg" if (HERE / "test1.jpg").exists() else default_img))
    args = ap.parse_args()
    image = Path(args.image)
    if not image.is_file():
        print(f"image {image} not found (pass --image)", file=sys.stderr)
        return 2
    if not (HERE / "test1.jpg").exists():
        shutil.copy(image, HERE / "test1.jpg")
    all_sc = scenarios()
    for name in args.names or DEMOS:
        out = HERE / name
        if name == "quant_outlier":
            _outlier_demo(out)
            print(OUTLIER_NOTE.split(";")[0])
            continue
        if out.exists():
            shutil.rmtree(out)
        sc = all_sc[name]
        paths = write_scenario(sc, out, HERE / "model", HERE / "test1.jpg")
        paths["caffe"].rename(out / CAFFE_OUTPUT_DIR)
        paths["nnie"].rename(out / MAPPER_QUANT_DIR)
        cfg_text = paths["cfg"].read_text()
        paths["cfg"].write_text(_cfg(cfg_text, "../"))
        (out / "images.txt").write_text("../test1.jpg\n")
        if name == "channel_swap":
            _made_by_the_tools(out)
        if "nnie16" in paths:
            run16 = out / SIXTEEN_BIT_RUN
            run16.mkdir()
            paths["nnie16"].rename(run16 / MAPPER_QUANT_DIR)
            (run16 / "sim.cfg").write_text(_cfg(cfg_text, "../../", compile_mode=1))
        (out / "README.txt").write_text(f"{name}: {sc.description}; expected case {sc.expected_case}\n"
                                        + (LOOP_NOTE if name == "channel_swap" else ""))
        print(f"{name}: {sc.description}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
