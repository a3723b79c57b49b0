"""Seeded-fault dump sets from a REAL Caffe model (demo + tests).

The Caffe side is the OpenCV forward with the model's true preprocessing; the NNIE side is the
numpy NNIE emulation (8-bit log quantization) fed with the cfg's preprocessing, written in a real
dump format, with one fault injected per scenario. Each scenario also writes the NNIE-side cfg (and
mean file) so cfg line edits can be checked.

MTCNN (det1/det2) truth: RGB, (x − 127.5) × 0.0078125, image transposed (MATLAB-trained).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from nnie_lsp.reference.caffe_forward import prepare_inputs, run_reference, write_reference_dumps
from nnie_lsp.emulation.emulate import EmulationOptions, emulate, write_sim_dumps
from nnie_lsp.reference.net import load_net
from nnie_lsp.readers.cfg.keys import NULL_PATH_PLACEHOLDER
from nnie_lsp.readers.cfg.preprocessing import DEFAULT_DATA_SCALE

from nnie_lsp.reference.preprocess import Preprocessing

MTCNN_PREP = Preprocessing(norm_type=5, data_scale=0.0078125, mean=np.array([127.5, 127.5, 127.5], np.float32),
                           rgb_order="RGB", transpose=True)


@dataclass
class Scenario:
    name: str
    expected_case: int | None
    ref_prep: Preprocessing
    sim_prep: Preprocessing
    options: EmulationOptions
    model: str = "det1"
    fmt: str = "mapper_quant"
    sim16: bool = False
    description: str = ""


def scenarios() -> dict[str, Scenario]:
    good = MTCNN_PREP
    s = {
        "ok": Scenario("ok", 4, good, good, EmulationOptions(), description="correct cfg, 8-bit emulation"),
        "channel_swap": Scenario("channel_swap", 1, good, good.with_(rgb_order="BGR"), EmulationOptions(),
                                 description="cfg says BGR for an RGB-trained net"),
        "scale_255": Scenario("scale_255", 1, Preprocessing(norm_type=3, data_scale=1 / 255, rgb_order="RGB",
                                                              transpose=True),
                              Preprocessing(norm_type=3, data_scale=DEFAULT_DATA_SCALE, rgb_order="RGB", transpose=True),
                              EmulationOptions(), description="Caffe 1/255, cfg data_scale 1/256"),
        "missing_mean": Scenario("missing_mean", 1, good, good.with_(norm_type=3), EmulationOptions(),
                                 description="norm_type 3: the mean is not subtracted"),
        "quant_noise": Scenario("quant_noise", 2, good, good, EmulationOptions(noise=0.05), sim16=True,
                                description="8-bit-like noise growing with depth; a 16-bit run beside it"),
        "inplace_split": Scenario("inplace_split", 3, good, good,
                                  EmulationOptions(split_inplace=frozenset({"prelu4"})), model="det2",
                                  description="the mapper split in-place PReLU after InnerProduct conv4"),
        "permute_layout": Scenario("permute_layout", 3, good, good,
                                   EmulationOptions(hwc_layers=frozenset({"conv2"})),
                                   description="conv2's dump in H,W,C order (a mapper Permute)"),
        "inst_ok": Scenario("inst_ok", 4, good, good, EmulationOptions(), fmt="inst",
                            description="instruction-simulator dumps (node ids, no names)"),
    }
    return s


def _cfg_text(prep: Preprocessing, model: str, mean_name: str | None, compile_mode: int = 0) -> str:
    lines = [f"[prototxt_file] ./{model}.prototxt", f"[caffemodel_file] ./{model}.caffemodel", "[net_type] 0",
             f"[compile_mode] {compile_mode}", "[is_simulation] 0", "[instruction_name] ./inst",
             f"[RGB_order] {prep.rgb_order}", "[image_list] ./images.txt", "[image_type] 1",
             f"[norm_type] {prep.norm_type}", f"[mean_file] {('./' + mean_name) if mean_name else NULL_PATH_PLACEHOLDER}"]
    if prep.uses_scale:
        lines.append(f"[data_scale] {prep.data_scale:.10g}")
    return "\n".join(lines) + "\n"


def write_scenario(sc: Scenario, out: str | Path, model_dir: str | Path, image: str | Path,
                   input_shape: tuple[int, ...] | None = None) -> dict[str, Path]:
    """Write <out>/caffe, <out>/nnie (and nnie16), <out>/sim.cfg (+ mean file). Returns the paths."""
    out = Path(out)
    model_dir = Path(model_dir)
    proto = model_dir / f"{sc.model}.prototxt"
    weights = model_dir / f"{sc.model}.caffemodel"
    ref = run_reference(proto, weights, [image], sc.ref_prep, input_shape)
    write_reference_dumps(ref, out / "caffe")
    net = load_net(proto, weights)
    sim_inputs = prepare_inputs(net, [image], [sc.sim_prep], input_shape)
    run = emulate(net, sim_inputs, sc.options)
    write_sim_dumps(run, out / "nnie", fmt=sc.fmt)
    paths = {"caffe": out / "caffe", "nnie": out / "nnie", "prototxt": proto, "caffemodel": weights}
    if sc.sim16:
        run16 = emulate(net, sim_inputs, EmulationOptions(bits=16))
        write_sim_dumps(run16, out / "nnie16", fmt=sc.fmt)
        paths["nnie16"] = out / "nnie16"
    mean_name = None
    if sc.sim_prep.uses_mean and sc.sim_prep.mean is not None:
        mean_name = "mean.txt"
        (out / mean_name).write_text("".join(f"{v:g}\n" for v in np.asarray(sc.sim_prep.mean).reshape(-1)))
    (out / "images.txt").write_text(f"{Path(image).resolve()}\n")
    (out / "sim.cfg").write_text(_cfg_text(sc.sim_prep, sc.model, mean_name))
    paths["cfg"] = out / "sim.cfg"
    return paths
