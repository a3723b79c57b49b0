"""Dump folders in the shapes real users have (``docs/field-facts.md §16.1``), for a small SSD-like
net (``tests/data/triage/real_shapes/ssd_mini.prototxt``: conv+ReLU, pooling, Normalize, a
two-output Slice, convs, an SSD ``*_mbox_conf_perm`` Permute and its Flatten).

File names are spelled out here, not built by the project's writers, so the tests check the
readers against the real forms:

* NNIE 1.1 ``mapper_quant/``: ``<layer>_output<k>_<C>_<H>_<W>_quant.linear.hex`` with ``k`` the
  output number (0, and 0/1 for the Slice), the data only as ``conv1_input0_3_10_10_anti_quant.float``
  (no ``.linear``; C++ stream values, six significant digits: ``%.6g`` of the float32), the Permute named with its permuted dims
  ``conv7_2_mbox_conf_perm_output0_5_5_2_…``; optionally dumps named after the mapper's own nodes
  (``permute_0`` after the Normalize, the Reportop ``conv6_2_report_0_0``);
* Caffe side, RuyiStudio: ``<blob>_output0_<dims>_caffe.linear.float`` (``%.18e``);
* Caffe side, the public C++ program: ``layer<i>_<name>_output0_<C>_<H>_<W>_caffe.linear.float``
  where ``i`` walks ``net.blobs()`` and ``<name>`` is ``net.layer_names()[i-1]`` (an ``input`` layer
  first for ``input:`` fields), so after the in-place ReLU a file carries the name of the layer
  before the one that wrote it (``layer3_relu1`` holds ``pool1``).
"""

from __future__ import annotations

import shutil
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from nnie_lsp.readers.dumpio.writers import write_hex

FIXTURES = Path(__file__).resolve().parents[2] / "data" / "triage" / "real_shapes"
PROTOTXT = FIXTURES / "ssd_mini.prototxt"
DOT = FIXTURES / "cnn_net_tree.dot"

# the blobs in network order (and Caffe's net.blobs() order: no blob is read twice)
BLOBS = ("data", "conv1", "pool1", "conv4_3_norm", "slice_a", "slice_b", "conv6_2", "conv7_2",
         "conv7_2_mbox_conf", "conv7_2_mbox_conf_perm", "conv7_2_mbox_conf_flat")
# Caffe's run-time layer names: the `input:` field becomes a layer named "input"
RUNTIME_LAYERS = ("input", "conv1", "relu1", "pool1", "conv4_3_norm", "slice1", "conv6_2", "conv7_2",
                  "conv7_2_mbox_conf", "conv7_2_mbox_conf_perm", "conv7_2_mbox_conf_flat")
# mapper_quant outputs: layer → its tops, in output-number order
MAPPER_OUTPUTS = {
    "conv1": ("conv1",), "pool1": ("pool1",), "conv4_3_norm": ("conv4_3_norm",), "slice1": ("slice_a", "slice_b"),
    "conv6_2": ("conv6_2",), "conv7_2": ("conv7_2",), "conv7_2_mbox_conf": ("conv7_2_mbox_conf",),
    "conv7_2_mbox_conf_perm": ("conv7_2_mbox_conf_perm",), "conv7_2_mbox_conf_flat": ("conv7_2_mbox_conf_flat",),
}
CFG = """[prototxt_file] ./ssd_mini.prototxt
[caffemodel_file] ./ssd_mini.caffemodel
[batch_num] 1
[net_type] 0
[image_list] ./images.txt
[image_type] 1
[norm_type] 0
[RGB_order] BGR
[compile_mode] 0
"""


def _conv(x, w, b, pad):
    _c, h, wd = x.shape
    o, _, k, _ = w.shape
    xp = np.pad(x, ((0, 0), (pad, pad), (pad, pad)))
    out = np.zeros((o, h + 2 * pad - k + 1, wd + 2 * pad - k + 1))
    for i in range(k):
        for j in range(k):
            out += np.einsum("oc,chw->ohw", w[:, :, i, j], xp[:, i:i + out.shape[1], j:j + out.shape[2]])
    return out + b[:, None, None]


def forward(x: np.ndarray, seed: int = 0) -> dict[str, np.ndarray]:
    """Every blob of ssd_mini for one (3, 10, 10) input; weights drawn from ``seed``."""
    rng = np.random.default_rng(seed)
    weights = {
        "conv1": (rng.normal(0, .5, (4, 3, 3, 3)), rng.normal(0, .1, 4)),
        "conv6_2": (rng.normal(0, .5, (6, 2, 1, 1)), rng.normal(0, .1, 6)),
        "conv7_2": (rng.normal(0, .5, (4, 2, 1, 1)), rng.normal(0, .1, 4)),
        "conf": (rng.normal(0, .5, (2, 4, 3, 3)), rng.normal(0, .1, 2)),
    }
    b = {"data": x}
    b["conv1"] = np.maximum(_conv(x, *weights["conv1"], 1), 0)
    b["pool1"] = b["conv1"].reshape(4, 5, 2, 5, 2).max(axis=(2, 4))
    b["conv4_3_norm"] = b["pool1"] / np.sqrt((b["pool1"] ** 2).sum(0, keepdims=True) + 1e-10) * 20
    b["slice_a"], b["slice_b"] = b["conv4_3_norm"][:2], b["conv4_3_norm"][2:]
    b["conv6_2"] = _conv(b["slice_a"], *weights["conv6_2"], 0)
    b["conv7_2"] = _conv(b["slice_b"], *weights["conv7_2"], 0)
    b["conv7_2_mbox_conf"] = _conv(b["conv7_2"], *weights["conf"], 1)
    b["conv7_2_mbox_conf_perm"] = b["conv7_2_mbox_conf"].transpose(1, 2, 0)  # order (0, 2, 3, 1)
    b["conv7_2_mbox_conf_flat"] = b["conv7_2_mbox_conf_perm"].reshape(-1)
    return b


def _dims(a: np.ndarray) -> str:
    return "_".join(str(d) for d in a.shape)


def _on_grid(a: np.ndarray) -> np.ndarray:
    return np.round(np.asarray(a, dtype=np.float64) * 4096) / 4096


def build(root: Path, *, swap_channels: bool = True, input_linear: bool = False, reference: str = "ruyi",
          mapper_nodes: bool = False, seed: int = 0) -> SimpleNamespace:
    """Write a Caffe-side and a mapper_quant folder (plus prototxt, cfg, dot) under ``root``.

    ``swap_channels``: the simulator's data is the Caffe data with channels 0 and 2 swapped (a
    plain RGB_order fault); ``input_linear``: the data input dump in the documented
    ``…_anti_quant.linear.float`` form instead of NNIE 1.1's ``…_anti_quant.float``;
    ``reference``: "ruyi" (blob names) or "prefixed" (the C++ program's ``layer<i>_`` names);
    ``mapper_nodes``: also dumps named after the mapper's nodes ``permute_0`` and
    ``conv6_2_report_0_0``."""
    root = Path(root)
    x = np.random.default_rng(100 + seed).uniform(0, 1, (3, 10, 10))
    ref = forward(x, seed)
    sim = forward(x[::-1].copy() if swap_channels else x, seed)
    caffe, mq = root / "caffe", root / "mapper_quant"
    caffe.mkdir(parents=True)
    mq.mkdir(parents=True)
    if reference == "ruyi":
        for blob, value in ref.items():
            np.savetxt(caffe / f"{blob}_output0_{_dims(value)}_caffe.linear.float", value.reshape(-1), fmt="%.18e")
    elif reference == "prefixed":
        for i, (blob, layer) in enumerate(zip(BLOBS, RUNTIME_LAYERS), start=1):
            value = ref[blob]
            dims = _dims(value) if value.ndim == 3 else f"{value.size}_1_1"  # it writes shape[1..3]
            np.savetxt(caffe / f"layer{i}_{layer}_output0_{dims}_caffe.linear.float", value.reshape(-1), fmt="%.18e")
    else:
        raise ValueError(reference)
    data_name = f"conv1_input0_3_10_10_anti_quant{'.linear' if input_linear else ''}.float"
    np.savetxt(mq / data_name, sim["data"].reshape(-1).astype(np.float32).astype(np.float64), fmt="%.6g")
    np.savetxt(mq / "pool1_input0_4_10_10_anti_quant.float",
               sim["conv1"].reshape(-1).astype(np.float32).astype(np.float64), fmt="%.6g")
    for layer, tops in MAPPER_OUTPUTS.items():
        for k, top in enumerate(tops):
            write_hex(mq / f"{layer}_output{k}_{_dims(sim[top])}_quant.linear.hex", _on_grid(sim[top]))
    if mapper_nodes:
        write_hex(mq / "permute_0_output0_4_5_5_quant.linear.hex", _on_grid(sim["conv4_3_norm"]))
        write_hex(mq / "conv6_2_report_0_0_output0_6_5_5_quant.linear.hex", _on_grid(sim["conv6_2"]))
    shutil.copy(PROTOTXT, root / "ssd_mini.prototxt")
    shutil.copy(DOT, root / "cnn_net_tree.dot")
    (root / "sim.cfg").write_text(CFG)
    (root / "images.txt").write_text("./last_image.jpg\n")
    return SimpleNamespace(root=root, caffe=caffe, mapper_quant=mq, prototxt=root / "ssd_mini.prototxt",
                           dot=root / "cnn_net_tree.dot", cfg=root / "sim.cfg", ref=ref, sim=sim)
