"""The nnie_mapper cfg key table: one :class:`KeySpec` per key, plus ATC/dpico look-alikes.

Single source of truth for the lint (types, ranges, required keys), the server (hover docs,
completion snippets, value choices) and triage (defaults).  Facts come from
``docs/field-facts.md`` §3 ("[S1,S3]" = HiSVP Development Guide §3.5.2 table 3-6 as quoted
by the public sources S1/S3); status tags [C]/[I]/[?] in notes follow that page.  What each
norm_type *does* is data in :mod:`.preprocessing`.  (Slightly over 600 lines: most of it is the
key table itself, which is data and reads best in one piece.)

Messages
--------
:func:`check_value` returns a :class:`ValueCheck` carrying both an English ``message`` and a
Simplified-Chinese ``message_zh`` (empty strings when the value is fine), plus an optional
``suggestion`` -- replacement text a quick fix may offer (``bgr`` -> ``BGR``, ``1/256`` ->
``0.00390625``).  Hover/completion docs are ``doc_en`` / ``doc_zh`` and ``value_docs``.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any, Literal, Mapping

from nnie_lsp.core.records import FrozenRecord

Kind = Literal["path", "int", "float", "enum", "string"]
Status = Literal["vendor", "ruyistudio", "spelling-variant", "unverified"]

FLT_MAX = 3.4028234663852886e38
VENDOR_TABLE = "HiSVP Development Guide §3.5.2 table 3-6 [S1,S3]"

#: The ONE set of "no file" values (compared lower-case, stripped): what people write for "no
#: mean file" with norm_type 0/3 (the vendor says any invalid value works, e.g. ``null``; a public
#: cfg writer uses ``ignore`` [S17]) and the empty value.  An empty value is still reported by
#: the value check ("has no value"); it just names no file.
NULL_PATH_VALUES = frozenset({"null", "none", "ignore", "nil", ""})
#: The placeholder this project writes itself (quick fixes, generated cfgs).
NULL_PATH_PLACEHOLDER = "null"


class KeySpec(FrozenRecord, eq=False):
    name: str
    kind: Kind
    doc_en: str
    doc_zh: str
    source: str
    status: Status = "vendor"
    choices: tuple[str, ...] = ()  # allowed values (enums, int sets), as written in the cfg
    value_docs: Mapping[str, tuple[str, str]] = MappingProxyType({})  # value -> (en, zh)
    minimum: float | None = None
    maximum: float | None = None
    min_inclusive: bool = True
    max_inclusive: bool = True
    bound_labels: tuple[str | None, str | None] = (None, None)  # how to print min / max
    default: str | None = None  # as cfg text; None = no default
    default_note: str | None = None  # e.g. "none listed by the vendor"
    repeatable: bool = False
    per_input: bool = False  # k-th occurrence belongs to network input k
    per_roi_layer: bool = False  # k-th occurrence belongs to the k-th ROI/PSROI pooling layer
    required: bool = False
    required_note: str | None = None
    allows_null: bool = False  # value may be a placeholder such as "null"
    allows_empty: bool = False
    max_length: int | None = None  # for strings: maximum allowed length (inclusive)
    alias_of: str | None = None  # spelling variants: the preferred key
    snippet: str = ""  # LSP snippet for completion

    def __repr__(self) -> str:
        return f"KeySpec({self.name!r}, kind={self.kind!r}, status={self.status!r})"

    def __post_init__(self) -> None:
        object.__setattr__(self, "value_docs", MappingProxyType(dict(self.value_docs)))
        if not self.snippet:
            object.__setattr__(self, "snippet", _default_snippet(self))

    @property
    def preferred(self) -> str:
        return self.alias_of or self.name

    @property
    def is_numeric_choice(self) -> bool:
        return bool(self.choices) and all(c.lstrip("+-").isdigit() for c in self.choices)

    def default_value(self) -> Any:
        """The default parsed like a cfg value (None when there is none)."""
        if self.default is None:
            return None
        from nnie_lsp.readers.cfg.values import check_value  # values reads KeySpec fields only

        return check_value(self, self.default).parsed


def _default_snippet(spec: KeySpec) -> str:
    if spec.choices:
        return f"[{spec.name}] ${{1|{','.join(spec.choices)}|}}"
    placeholder = spec.default or {"path": "./file", "string": "inst"}.get(spec.kind, "")
    placeholder = placeholder.replace("}", "\\}").replace("$", "\\$")
    return f"[{spec.name}] ${{1:{placeholder}}}"


def _spec(**kw: Any) -> KeySpec:
    kw.setdefault("source", VENDOR_TABLE)
    return KeySpec(**kw)


_NORM_DOCS = {
    "0": ("no preprocessing (mean_file still required, may be `null`)",
          "不做预处理（mean_file 仍须配置，可写 null）"),
    "1": ("subtract the mean image (mean_file: .binaryproto)",
          "减均值图像（mean_file 为 .binaryproto）"),
    "2": ("subtract per-channel means (mean_file: text, one value per channel)",
          "减通道均值（mean_file 为文本，每行一个通道均值）"),
    "3": ("multiply by data_scale (mean_file still required, may be `null`)",
          "乘以 data_scale（mean_file 仍须配置，可写 null）"),
    "4": ("subtract the mean image, then multiply by data_scale",
          "先减均值图像，再乘以 data_scale"),
    "5": ("subtract per-channel means, then multiply by data_scale",
          "先减通道均值，再乘以 data_scale"),
}

_SPECS: tuple[KeySpec, ...] = (
    _spec(
        name="prototxt_file", kind="path", required=True,
        required_note="the mapper needs the network; MindSpore Lite's nnie.cfg omits it because "
                      "MindSpore supplies it [C, S6]",
        default_note="no default",
        doc_en="Caffe network description (.prototxt) to map; must follow the NNIE Caffe dialect.",
        doc_zh="待转换的 Caffe 网络描述文件（.prototxt），需符合 NNIE 支持的 Caffe 层规范。",
        snippet="[prototxt_file] ${1:./model.prototxt}",
    ),
    _spec(
        name="caffemodel_file", kind="path", required=True,
        required_note="as prototxt_file; omitted in MindSpore Lite cfgs [C, S6]",
        default_note="no default",
        doc_en="Trained Caffe weights (.caffemodel) matching prototxt_file.",
        doc_zh="与 prototxt_file 对应的 Caffe 权重文件（.caffemodel）。",
        snippet="[caffemodel_file] ${1:./model.caffemodel}",
    ),
    _spec(
        name="net_type", kind="enum", choices=("0", "1", "2"),
        default_note="none listed by the vendor; every real cfg sets it",
        required_note="not marked required by the vendor table; recommended [I]",
        value_docs={
            "0": ("CNN: no LSTM/RNN/ROIPooling/PSROIPooling layers",
                  "CNN：不含 LSTM/RNN/ROIPooling/PSROIPooling 的网络"),
            "1": ("ROI/PSROI network (has ROIPooling or PSROIPooling; e.g. Faster R-CNN, R-FCN)",
                  "含 ROIPooling 或 PSROIPooling 的网络（如 Faster R-CNN、R-FCN）"),
            "2": ("recurrent network (LSTM/RNN)", "循环网络（LSTM/RNN）"),
        },
        doc_en="Network type: 0 CNN, 1 ROI/PSROI net, 2 recurrent (LSTM/RNN).",
        doc_zh="网络类型：0 普通 CNN，1 含 ROI/PSROI Pooling 的网络，2 LSTM/RNN 循环网络。",
    ),
    _spec(
        name="image_list", kind="path", repeatable=True, per_input=True, required=True,
        default_note="no default",
        doc_en="Calibration list used for quantization (image paths, or float text for "
               "image_type 0). Give one [image_list] per network input, in prototxt input order.",
        doc_zh="量化校准用的参考图片列表（image_type 为 0 时为浮点文本）。多输入网络需按 prototxt "
               "输入顺序为每个输入各写一个 [image_list]。",
        snippet="[image_list] ${1:./image_list.txt}",
    ),
    _spec(
        name="image_type", kind="enum", choices=("0", "1", "3", "5"), repeatable=True,
        per_input=True, required=True,
        default_note="none listed by the vendor",
        required_note="no default is listed and every real cfg sets it, so treated as required [I]",
        value_docs={
            "0": ("S32 feature map / vector (image_list holds float text); norm_type must be 0",
                  "S32 特征图/向量输入（image_list 为浮点文本）；norm_type 必须为 0"),
            "1": ("U8 image (gray or 3-channel)", "U8 图像（灰度或 3 通道）"),
            "3": ("YUV420SP (image_list still lists RGB images; converted per RGB_order)",
                  "YUV420SP（image_list 仍写 RGB 图片，硬件按 RGB_order 转换）"),
            "5": ("YUV422SP (as 3)", "YUV422SP（同 3）"),
        },
        doc_en="Run-time input blob type of this input: 0 S32 feature map, 1 U8 image, "
               "3 YUV420SP, 5 YUV422SP.",
        doc_zh="该输入在板端运行时的数据类型：0 S32 特征图，1 U8 图像，3 YUV420SP，5 YUV422SP。",
    ),
    _spec(
        name="norm_type", kind="enum", choices=("0", "1", "2", "3", "4", "5"), repeatable=True,
        per_input=True, required=True,
        default_note="none listed by the vendor (a public cfg writer uses 0 [S17])",
        required_note="no default is listed and every real cfg sets it, so treated as required [I]",
        value_docs=_NORM_DOCS,
        doc_en="Preprocessing of this input (mean first, then scale): 0 none, 1 mean image, "
               "2 channel mean, 3 × data_scale, 4 mean image then × data_scale, "
               "5 channel mean then × data_scale.",
        doc_zh="该输入的预处理方式（先减均值，再乘 data_scale）：0 不处理，1 减均值图像，"
               "2 减通道均值，3 乘 data_scale，4 减均值图像后乘 data_scale，"
               "5 减通道均值后乘 data_scale。",
    ),
    _spec(
        name="data_scale", kind="float", minimum=1 / 4096, maximum=FLT_MAX,
        min_inclusive=False, max_inclusive=False,
        bound_labels=("1/4096 (0.000244140625)", "FLT_MAX (3.4028235e+38)"),
        default="0.00390625", repeatable=True, per_input=True,
        default_note="1/256, not 1/255 [C, S1]",
        doc_en="Scale applied after mean subtraction for norm_type 3/4/5; default 1/256 = "
               "0.00390625 (not 1/255). May be omitted.",
        doc_zh="norm_type 为 3/4/5 时，减均值后乘的缩放系数；默认 1/256 = 0.00390625"
               "（不是 1/255），可省略。",
    ),
    _spec(
        name="mean_file", kind="path", repeatable=True, per_input=True, required=True,
        allows_null=True,
        required_note="the vendor says the key is required even when unused (norm_type 0/3), "
                      "where any value such as `null` works [C, S1, S3]",
        default_note="no default",
        doc_en="Mean for this input: norm_type 1/4 a .binaryproto mean image; 2/5 a text file "
               "with one mean per line per channel; 0/3 still required, e.g. `null`.",
        doc_zh="该输入的均值文件：norm_type 1/4 为 .binaryproto 均值图像；2/5 为文本文件，"
               "每行一个通道均值；0/3 时也必须配置，可写 null。",
        snippet="[mean_file] ${1:null}",
    ),
    _spec(
        name="batch_num", kind="int", minimum=0, maximum=256, default="256",
        doc_en="0/1 single-image mode; >1 batch mode (FC layers computed for batch_num images "
               "together). Range 0–256.",
        doc_zh="0/1 为单图模式；大于 1 为批处理模式（全连接层按 batch_num 张图一起计算）。"
               "取值 0–256。",
    ),
    _spec(
        name="sparse_rate", kind="float", minimum=0, maximum=1, default="0",
        doc_en="Fraction of FC weights forced to 0 for better compression (0–1).",
        doc_zh="全连接层权重稀疏化比例，置零以提升压缩率（0–1）。",
    ),
    _spec(
        name="compile_mode", kind="enum", choices=("0", "1", "2"), default="0",
        value_docs={
            "0": ("low bandwidth: 8-bit, least bandwidth, some accuracy loss",
                  "低带宽模式：8 bit，带宽最小，精度有一定损失"),
            "1": ("high precision: best accuracy, slower (often called int16)",
                  "高精度模式：精度最好，速度较慢（常被称为 int16）"),
            "2": ("user-specified: layers whose name ends in `_hp` run high precision",
                  "用户指定模式：层名带 `_hp` 的层按高精度运行"),
        },
        doc_en="Quantization/compile mode: 0 low bandwidth (8-bit), 1 high precision, "
               "2 user-specified (`_hp` layers).",
        doc_zh="量化编译模式：0 低带宽（8 bit），1 高精度，2 用户指定（`_hp` 层高精度）。",
    ),
    _spec(
        name="compress_mode", kind="enum", choices=("0", "1"), default="0",
        value_docs={
            "0": ("normal: automatic normal/ternary/binary/sparse compression",
                  "正常模式：自动选择普通/三值/二值/稀疏压缩"),
            "1": ("bypass: no parameter compression", "旁路模式：不压缩参数"),
        },
        doc_en="Parameter compression: 0 normal, 1 bypass.",
        doc_zh="参数压缩模式：0 正常压缩，1 不压缩。",
    ),
    _spec(
        name="max_roi_frame_cnt", kind="int", minimum=1, maximum=5000, default="300",
        doc_en="Maximum number of RPN proposals for ROI/PSROI networks (1–5000).",
        doc_zh="ROI/PSROI 网络中 RPN 输出候选框的最大数量（1–5000）。",
    ),
    _spec(
        name="roi_coordinate_file", kind="path", repeatable=True, per_roi_layer=True,
        default_note="no default",
        doc_en="ROI/PSROI nets: box file, one `batch_index x1 y1 x2 y2` per line, made by running "
               "Caffe to the RPN output on the image_list images. One per ROIPooling/PSROIPooling "
               "layer, in prototxt order.",
        doc_zh="ROI/PSROI 网络的候选框文件，每行一个 `batch_index x1 y1 x2 y2`，由 Caffe 对 "
               "image_list 中的图片跑到 RPN 输出得到。每个 ROIPooling/PSROIPooling 层对应一个，"
               "顺序与 prototxt 一致。",
    ),
    _spec(
        name="is_simulation", kind="enum", choices=("0", "1"), default="0",
        value_docs={
            "0": ("chip mode: instruction wk for boards and the instruction simulator",
                  "芯片模式：生成指令 wk，用于板端和指令仿真"),
            "1": ("simulation mode: functional wk for PC simulation only",
                  "仿真模式：生成功能 wk，仅用于 PC 端仿真"),
        },
        doc_en="0 chip (instruction wk); 1 functional simulation wk (PC only).",
        doc_zh="0 芯片模式（指令 wk）；1 功能仿真模式（仅 PC 端使用）。",
    ),
    _spec(
        name="instruction_name", kind="string", max_length=119, default="inst",
        source="all real cfgs and RuyiStudio-written cfgs [C, corpus]; vendor table spells it "
               "instructions_name [S1,S3]",
        doc_en="Output model name (path allowed); `.wk` is appended. Length < 120. Real files "
               "spell it instruction_name; the vendor table says instructions_name.",
        doc_zh="输出模型文件名（可带路径），会自动加上 `.wk` 后缀，长度小于 120。实际 cfg 写作 "
               "instruction_name，厂商文档表格写作 instructions_name。",
        snippet="[instruction_name] ${1:./inst}",
    ),
    _spec(
        name="instructions_name", kind="string", max_length=119, default="inst",
        status="spelling-variant", alias_of="instruction_name",
        doc_en="Vendor-table spelling of instruction_name (output .wk name). Accepted, but every "
               "real cfg uses instruction_name.",
        doc_zh="instruction_name 在厂商文档表格中的写法（输出 .wk 文件名）。可以接受，但实际 cfg "
               "均写作 instruction_name。",
        snippet="[instruction_name] ${1:./inst}",
    ),
    _spec(
        name="internal_stride", kind="int", choices=("16", "32"), default="16",
        value_docs={"16": ("for DDR3", "适用于 DDR3 内存"), "32": ("for DDR4", "适用于 DDR4 内存")},
        doc_en="Alignment of intermediate results: 16 for DDR3, 32 for DDR4.",
        doc_zh="中间结果的对齐字节数：DDR3 用 16，DDR4 用 32。",
    ),
    _spec(
        name="is_check_prototxt", kind="enum", choices=("0", "1"), default="0",
        value_docs={
            "0": ("map the network", "正常转换"),
            "1": ("only check the prototxt against the supported specs",
                  "只检查 prototxt 是否符合支持规格，不转换"),
        },
        doc_en="1 = only check the prototxt, do not map.",
        doc_zh="为 1 时只检查 prototxt 是否符合规格，不生成 wk。",
    ),
    _spec(
        name="log_level", kind="enum", choices=("0", "1", "2", "3"), default="0",
        default_note="0 (omitted = no log file)",
        value_docs={
            "0": ("main flow and cfg", "主流程和 cfg 信息"),
            "1": ("+ parsed inputs, memory allocation", "另加输入解析、内存分配信息"),
            "2": ("+ intermediate representation", "另加中间表示"),
            "3": ("everything: many files, much slower (hours for big nets)",
                  "全部信息：文件很多，转换明显变慢（大网络可能数小时）"),
        },
        doc_en="Mapper log detail 0–3; 3 writes everything and is much slower.",
        doc_zh="日志级别 0–3；3 会输出全部信息，转换明显变慢。",
    ),
    _spec(
        name="recurrent_tmax", kind="int", minimum=1, maximum=1024, default="1024",
        doc_en="Maximum frames per sentence for LSTM/RNN networks (1–1024).",
        doc_zh="LSTM/RNN 网络每句的最大帧数（1–1024）。",
    ),
    _spec(
        name="RGB_order", kind="enum", choices=("RGB", "BGR"), default="BGR", repeatable=True,
        per_input=True,
        value_docs={
            "RGB": ("network expects RGB channel order (e.g. Darknet/MXNet-trained)",
                    "网络输入为 RGB 通道顺序（如 Darknet/MXNet 训练的模型）"),
            "BGR": ("network expects BGR channel order (Caffe/OpenCV default)",
                    "网络输入为 BGR 通道顺序（Caffe/OpenCV 默认）"),
        },
        doc_en="Channel order the network expects. Ignored for image_type 0; for YUV input "
               "(3/5) the hardware converts to RGB- or BGR-planar. Per input in RuyiStudio [I].",
        doc_zh="网络期望的通道顺序。image_type 为 0 时无效；YUV 输入（3/5）由硬件转换为 RGB 或 "
               "BGR 平面格式。RuyiStudio 中可按输入分别设置 [I]。",
    ),
    # ---- look-alikes (§3.4)
    _spec(
        name="gfpq_param_file", kind="path", status="ruyistudio", allows_empty=True,
        source="RuyiStudio 2.0.41 Mapper Setting for Hi3516DV300 [C, S8]; file format [?]",
        default_note="RuyiStudio says leave empty",
        doc_en="Per-layer quantization clipping parameters (RuyiStudio 'Mapper Setting'; usually "
               "left empty). File format not public.",
        doc_zh="逐层量化截断参数文件（RuyiStudio 的 Mapper Setting 选项，一般留空）。文件格式未公开。",
    ),
    _spec(
        name="align_bytes", kind="int", choices=("16", "32"), status="unverified",
        source="RuyiStudio 2.0.41 UI label [C, S8]; not known as a cfg key [I]",
        doc_en="RuyiStudio UI label, probably internal_stride; not a known cfg key — use "
               "[internal_stride].",
        doc_zh="RuyiStudio 界面上的名称，很可能对应 internal_stride；并非已知的 cfg 键，"
               "请使用 [internal_stride]。",
    ),
    _spec(
        name="marked_prototxt", kind="path", status="unverified",
        source="RuyiStudio 'Input Setting' label [C, S8]; not known as a cfg key [I]",
        doc_en="RuyiStudio UI label; RuyiStudio writes the marked prototxt into [prototxt_file]. "
               "Not a known cfg key.",
        doc_zh="RuyiStudio 界面上的名称；RuyiStudio 会把标记后的 prototxt 写入 [prototxt_file]。"
               "并非已知的 cfg 键。",
    ),
    _spec(
        name="output_wk_name", kind="string", status="unverified",
        source="RuyiStudio 'Input Setting' label [C, S8]; not known as a cfg key [I]",
        doc_en="RuyiStudio UI label for the output name; the cfg key is [instruction_name].",
        doc_zh="RuyiStudio 界面上的输出名称；对应的 cfg 键是 [instruction_name]。",
    ),
)

KEYS: Mapping[str, KeySpec] = MappingProxyType({s.name: s for s in _SPECS})

#: Keys of the vendor table (§3.1) in table order, both spellings of instruction(s)_name.
VENDOR_KEYS: tuple[str, ...] = tuple(
    s.name for s in _SPECS if s.status == "vendor" or s.alias_of is not None)

PER_INPUT_KEYS: tuple[str, ...] = tuple(s.name for s in _SPECS if s.per_input)

#: Per-input keys that, given once in a multi-input cfg, apply to every input
#: (a public cfg writer writes them once [S17]; RuyiStudio shows them per input [S8]) [I].
SHAREABLE_PER_INPUT_KEYS: tuple[str, ...] = ("RGB_order", "data_scale")


class ForeignKey(FrozenRecord):
    """A key of another tool's cfg (SVP_NNN ATC / MindSpore Lite dpico), not nnie_mapper."""

    name: str
    tool: str
    doc_en: str
    doc_zh: str
    source: str


def _atc(name: str, en: str, zh: str, tool: str = "MindSpore Lite dpico / SVP_NNN ATC",
         source: str = "mindspore dpico mapper_config_parser.h [C, S19]") -> ForeignKey:
    return ForeignKey(
        name, tool,
        f"[{name}] is a {tool} key ({en}), not an nnie_mapper key; nnie_mapper (Hi3516DV300/"
        "Hi3519AV100/Hi3559AV100…) does not know it.",
        f"[{name}] 是 {tool} 的配置项（{zh}），不是 nnie_mapper 的配置项；nnie_mapper"
        "（Hi3516DV300/Hi3519AV100/Hi3559AV100 等）不识别该键。",
        source,
    )


#: ATC / dpico keys that are NOT also nnie_mapper keys (image_list, instruction_name and
#: gfpq_param_file are shared and live in :data:`KEYS`).
ATC_KEYS: Mapping[str, ForeignKey] = MappingProxyType({k.name: k for k in (
    _atc("insert_op_conf", "AIPP preprocessing config file", "AIPP 预处理配置文件"),
    _atc("input_shape", "input shapes", "输入形状"),
    _atc("out_nodes", "output node names", "输出节点名"),
    _atc("input_type", "input data type per input", "各输入的数据类型"),
    _atc("output_type", "output data type", "输出数据类型"),
    _atc("input_format", "input layout (an ATC option / AIPP field)", "输入数据排布",
         tool="SVP_NNN ATC", source="ATC command lines [S16, S19]"),
    _atc("soc_version", "target SoC, an ATC command-line option", "目标芯片，ATC 命令行参数",
         tool="SVP_NNN ATC", source="ATC command lines [S16, S19]"),
    _atc("framework", "source framework, an ATC command-line option", "源框架，ATC 命令行参数",
         tool="SVP_NNN ATC", source="ATC command lines [S16, S19]"),
)})


# ---------------------------------------------------------------- lookup


_LOWER = {name.lower(): name for name in KEYS}
_SUGGESTABLE = [s.name for s in _SPECS if s.status != "unverified" and s.alias_of is None]
_SUGGESTABLE_LOWER = {n.lower(): n for n in _SUGGESTABLE}


def lookup(key: str) -> KeySpec | None:
    """The spec for a key exactly as written (keys are case-sensitive), or None."""
    return KEYS.get(key)


def is_known_any(key: str) -> bool:
    """Case-insensitive: an nnie_mapper key (any status) or an ATC/dpico key."""
    k = key.lower()
    return k in _LOWER or k in _ATC_LOWER


def suggest(key: str) -> str | None:
    """Did-you-mean for a key.

    - a known key spelled exactly: None, except a spelling variant -> its preferred key
      (``instructions_name`` -> ``instruction_name``);
    - a case-only difference: the right case (``rgb_order`` -> ``RGB_order``);
    - otherwise the closest vendor/RuyiStudio key by difflib (``compile_mod`` -> ``compile_mode``),
      or None.  ATC keys get no suggestion (they are a different tool's keys).
    """
    spec = KEYS.get(key)
    if spec is not None:
        return spec.alias_of
    if key in ATC_KEYS:
        return None
    low = key.strip().lower()
    if low in _LOWER:
        found = KEYS[_LOWER[low]]
        return found.alias_of or found.name
    import difflib  # only for a did-you-mean (start-up)

    matches = difflib.get_close_matches(low, list(_SUGGESTABLE_LOWER), n=1, cutoff=0.75)
    return _SUGGESTABLE_LOWER[matches[0]] if matches else None


_ATC_LOWER = frozenset(a.lower() for a in ATC_KEYS)


def foreign(key: str) -> ForeignKey | None:
    return ATC_KEYS.get(key)


def is_null_path(text: str) -> bool:
    """``null`` and friends (or empty): a path value that names no file, e.g. the mean_file of
    norm_type 0/3.  See :data:`NULL_PATH_VALUES`."""
    return text.strip().lower() in NULL_PATH_VALUES


def all_specs() -> tuple[KeySpec, ...]:
    return _SPECS
