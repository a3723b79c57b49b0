"""The keys of a model card's ``[[model]]`` entry, as data: the one place the reader, hover,
completion and the docs learn what a key means and which values it takes.

The contract keys (``prototxt``, ``channel_order``, ``mean``, ``scale``, ``transpose``, ``source``)
keep their names; later keys extend it.  ``chip`` and ``board_memory`` are reserved for the checks
of the mapper's ``.wk`` output (read there; the card only validates them).
"""

from __future__ import annotations

from nnie_lsp.core.records import NamedTuple

#: The array of tables a card holds: one ``[[model]]`` per source model.
MODEL_TABLE = "model"

CHANNEL_ORDERS = ("RGB", "BGR", "GRAY")
#: channels of the net's input for each order
ORDER_CHANNELS = {"RGB": 3, "BGR": 3, "GRAY": 1}
FRAMEWORKS = ("caffe", "darknet", "mxnet", "pytorch", "onnx", "tensorflow", "paddle")
#: the chips nnie_mapper targets (docs/field-facts.md §1)
CHIPS = ("Hi3516CV500", "Hi3516DV300", "Hi3519AV100", "Hi3559AV100")

# value kinds
PATH, ORDER, NUMBERS, BOOL, TEXT, CHOICE, SIZE = "path", "order", "numbers", "bool", "text", "choice", "size"


class CardKey(NamedTuple):
    name: str
    kind: str                      # PATH, ORDER, NUMBERS, BOOL, TEXT, CHOICE, SIZE
    summary: tuple[str, str]       # one line (en, zh)
    doc: tuple[str, str]           # hover / docs (en, zh), markdown
    example: str                   # the value as written in TOML
    required: bool = False
    choices: tuple[str, ...] = ()
    read_by: str = ""              # what reads it (docs, hover)
    extension: str = ""            # PATH: the file kind expected (completion)
    reserved: bool = False         # read by a later check; the card only validates it


KEYS: tuple[CardKey, ...] = (
    CardKey("prototxt", PATH, ("The net this entry describes", "此条目描述的网络"),
            ("The Caffe prototxt of the source model, relative to this `nnie.toml`. A cfg whose "
             "`[prototxt_file]` is this file (or a RuyiStudio marked copy of it, "
             "`<name>_mark_nnie_<stamp>.prototxt`, beside it) is judged against this entry.",
             "源模型的 Caffe prototxt，路径相对于本 `nnie.toml`。`[prototxt_file]` 指向该文件（或其旁边 RuyiStudio "
             "标记的副本 `<name>_mark_nnie_<stamp>.prototxt`）的 cfg 按此条目检查。"),
            '"model/net.prototxt"', required=True, read_by="lint, reference, triage, the editor",
            extension=".prototxt"),
    CardKey("channel_order", ORDER, ("The channel order the trained net expects", "训练好的网络所期望的通道顺序"),
            ('`"RGB"`, `"BGR"` or `"GRAY"`: the order of the channels the net was trained on (OpenCV reads BGR; '
             'PIL, torchvision and darknet give RGB). The cfg\'s `[RGB_order]` must say the same (NN121); '
             '`nnie-triage reference` feeds the Caffe side in this order.',
             '`"RGB"`、`"BGR"` 或 `"GRAY"`：训练网络时输入通道的顺序（OpenCV 读出 BGR；PIL、torchvision 与 darknet 为 RGB）。'
             'cfg 的 `[RGB_order]` 必须与之一致（NN121）；`nnie-triage reference` 按此顺序给 Caffe 侧输入。'),
            '"BGR"', choices=CHANNEL_ORDERS, read_by="NN121, nnie-triage reference"),
    CardKey("mean", NUMBERS, ("Subtracted from the pixels first", "先从像素中减去的均值"),
            ("The mean subtracted from the 0-255 pixels before the scale: one value per channel in "
             "`channel_order`, or one value for every channel. `transforms.Normalize(mean, std)` after "
             "`ToTensor()` (÷255) is `mean × 255` here. The cfg's channel-mean file must hold these values "
             "(NN122).",
             "在乘以缩放之前从 0–255 像素中减去的均值：按 `channel_order` 每个通道一个值，或一个值用于所有通道。"
             "`ToTensor()`（÷255）之后的 `transforms.Normalize(mean, std)` 在此写作 `mean × 255`。cfg 的通道均值文件必须是这些值（NN122）。"),
            "[104, 117, 123]", read_by="NN122, nnie-triage reference"),
    CardKey("mean_file", PATH, ("A mean image instead of channel means", "用均值图像代替通道均值"),
            ("A Caffe mean image (`.binaryproto`, relative to this file) subtracted instead of `mean`: the "
             "cfg must use it with `[norm_type]` 1 or 4 (NN122).",
             "用 Caffe 均值图像（`.binaryproto`，路径相对于本文件）代替 `mean`：cfg 必须以 `[norm_type]` 1 或 4 使用它（NN122）。"),
            '"model/mean.binaryproto"', read_by="NN122, nnie-triage reference", extension=".binaryproto"),
    CardKey("scale", NUMBERS, ("Multiplied after the mean", "减均值之后乘以的缩放"),
            ("The factor the pixels are multiplied by after the mean: one value, or one per channel (1/std). "
             "The cfg's `[data_scale]` (norm_type 3/4/5) must be this value (NN123); one per channel cannot be "
             "written in a cfg (NN124).",
             "减均值之后乘以的系数：一个值，或每个通道一个（1/std）。cfg 的 `[data_scale]`（norm_type 3/4/5）必须等于该值（NN123）；"
             "逐通道的缩放无法写进 cfg（NN124）。"),
            "1.0", read_by="NN123, NN124, nnie-triage reference"),
    CardKey("transpose", BOOL, ("The net was trained with H and W swapped", "网络训练时 H 与 W 互换"),
            ("`true` for nets trained on transposed images (MATLAB Caffe: MTCNN). The reference transposes "
             "the image; no cfg key makes the mapper transpose, so the images of `[image_list]` and the board "
             "input must be transposed by the application (NN124, T105).",
             "用转置图像训练的网络为 `true`（MATLAB Caffe：MTCNN）。参考侧会转置图像；没有 cfg 配置项能让 mapper 转置，"
             "`[image_list]` 中的图像与板端输入必须由应用程序转置（NN124、T105）。"),
            "false", read_by="NN124, nnie-triage reference"),
    CardKey("source", TEXT, ("Where these values were read from", "这些值的出处"),
            ("Free text: the file and line the values were read from (`detect.py:42`), a README, a paper. "
             "Not used in any check; the draft card writes it.",
             "自由文本：这些值读取自哪个文件哪一行（`detect.py:42`）、README 或论文。不参与检查；草稿卡片会写入它。"),
            '"detect.py:42"', read_by="people"),
    CardKey("framework", CHOICE, ("The framework the net was trained in", "训练网络所用的框架"),
            ("The training framework (`caffe`, `pytorch`, `darknet`, `mxnet`, `onnx`, `tensorflow`, `paddle`): "
             "for this model it replaces the project's `source-framework` setting (NN108's evidence). It says "
             "nothing certain about the channel order: `channel_order` does.",
             "训练框架（`caffe`、`pytorch`、`darknet`、`mxnet`、`onnx`、`tensorflow`、`paddle`）：对此模型取代项目的 "
             "`source-framework` 设置（NN108 的依据）。它不能确定通道顺序：通道顺序由 `channel_order` 声明。"),
            '"pytorch"', choices=FRAMEWORKS, read_by="NN108"),
    CardKey("chip", CHOICE, ("The chip the model is deployed on", "部署模型的芯片"),
            ("The target chip (`Hi3516CV500`, `Hi3516DV300`, `Hi3519AV100`, `Hi3559AV100`): "
             "reserved for the checks of the mapper's `.wk` output.",
             "目标芯片（`Hi3516CV500`、`Hi3516DV300`、`Hi3519AV100`、`Hi3559AV100`）：保留给 mapper 输出 `.wk` 的检查使用。"),
            '"Hi3516DV300"', choices=CHIPS, read_by="the .wk checks", reserved=True),
    CardKey("board_memory", SIZE, ("The board memory the model may use", "模型可用的板端内存"),
            ("The memory budget on the board, in bytes (an integer) or with a unit (`\"64 MiB\"`, `\"512KB\"`): "
             "reserved for the checks of the mapper's `.wk` output.",
             "板端内存预算，单位为字节（整数）或带单位（`\"64 MiB\"`、`\"512KB\"`）：保留给 mapper 输出 `.wk` 的检查使用。"),
            '"64 MiB"', read_by="the .wk checks", reserved=True),
)

BY_NAME = {k.name: k for k in KEYS}

#: board_memory units (bytes)
SIZE_UNITS = {"b": 1, "kb": 1000, "kib": 1024, "k": 1024, "mb": 1000 ** 2, "mib": 1024 ** 2, "m": 1024 ** 2,
              "gb": 1000 ** 3, "gib": 1024 ** 3, "g": 1024 ** 3}


def key(name: str) -> CardKey | None:
    return BY_NAME.get(name)


def suggest(name: str, candidates: tuple[str, ...] | None = None) -> str | None:
    """The key a misspelled one most likely means (case, ``-``/``_`` and near spellings)."""
    import difflib

    names = candidates if candidates is not None else tuple(BY_NAME)
    low = name.lower().replace("-", "_")
    for n in names:
        if n.lower() == low:
            return n
    aliases = {"order": "channel_order", "rgb_order": "channel_order", "color_order": "channel_order",
               "colour_order": "channel_order", "channels": "channel_order", "std": "scale",
               "data_scale": "scale", "mean_value": "mean", "means": "mean", "mean_values": "mean",
               "transposed": "transpose", "model": "prototxt", "net": "prototxt"}
    if low in aliases and aliases[low] in names:
        return aliases[low]
    found = difflib.get_close_matches(low, list(names), n=1, cutoff=0.7)
    return found[0] if found else None
