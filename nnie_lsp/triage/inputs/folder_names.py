"""Where things live in an NNIE project folder: the folder and file names triage looks for beside a
cfg and writes by default (docs/field-facts.md §1 RuyiStudio layout, §9 files the mapper writes,
§10.3 RuyiStudio "Get Caffe Output").

Discovery (which of these exist beside a cfg) and the CLI's default output folders both read these
names; nothing else spells them.
"""

from __future__ import annotations

#: The mapper writes per-layer data of the last calibration image here, in its working directory.
MAPPER_QUANT_DIR = "mapper_quant"
#: RuyiStudio's "Get Caffe Output" script writes the Caffe side here by default (`-o`).
CAFFE_OUTPUT_DIR = "output"
#: RuyiStudio project folders: mapper outputs and simulator outputs.
RUYI_MAPPER_DIR = "mapper"
RUYI_SIM_DIR = "sim_out"
#: Our own: `nnie-triage reference --onnx` writes the ONNX side (ONNX Runtime, Caffe-named dumps) here.
ONNX_OUTPUT_DIR = "output_onnx"
#: The board program's own dumps (one file per output node, docs/board-dumps.md) for `compare --board`.
BOARD_DIR = "board"
#: Our own: `nnie-triage emulate` writes an emulated mapper_quant set here by default.
EMULATED_DIR = "mapper_quant_emulated"
#: Our own: what `nnie-triage reference` / `emulate` wrote in an output folder (images, files, clips).
DUMP_MANIFEST = "nnie-triage-dumps.json"
#: Our own: with several images, one sub-folder per image, ``image<n>_<name>`` (n = its line in the
#: image list, 0-based).
IMAGE_DIR_PREFIX = "image"
#: The compiled network the mapper writes (and its variants).
NET_TREE_FILE = "cnn_net_tree.dot"
#: The mapper's logs, in its working directory.
MAPPER_LOG_FILES = ("mapper_error.log", "mapper_debug.log")
#: Our own: stored triage results beside the cfg.
TRIAGE_STORE_DIR = ".nnie-triage"
