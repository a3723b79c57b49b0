"""What a file is, told from its first few KB: a net, a solver file, a mapper cfg, a mapper log,
``cnn_net_tree.dot``, ``RUNTIME.txt``, a dump, an image list, binary data, or unknown text.

nnie-lint lints nets and mapper cfgs; the mapper's own output (logs, ``cnn_net_tree.dot``) is read
with a cfg; every other file named on a command line is said to be what it is instead of being
parsed as a net (a dot file read as a ``NetParameter`` is hundreds of "no field named digraph").
The same test serves folder mode, where nets saved under another extension (py-faster-rcnn's
``.pt`` prototxts) are found by their content.

Signatures (``docs/field-facts.md §9`` for the mapper's files, §16 for the shapes seen):

- **net**: a field only ``NetParameter`` has at the top level (``layer``, ``layers``, ``input``,
  ``input_shape`` …; :mod:`nnie_lsp.readers.prototxt.solver` reads the top-level fields), and at least
  half of the top-level names ``NetParameter`` fields (prose mentioning ``input:`` is not a net);
  **solver**: fields only ``SolverParameter`` has and none of those;
- **mapper cfg**: a ``[known key] value`` line (``.cfg`` files only; other ``.cfg`` files, such
  as ``setup.cfg``, are not ours);
- **mapper log**: :func:`nnie_lsp.readers.mapper.log_lines.looks_like_mapper_log`;
- **net tree**: a DOT graph (``digraph cnn_tree {``);
- **runtime**: ``RUNTIME.txt``'s ``Classify:`` / ``Sub_net_type:`` / ``Layer_cnt:`` lines (§9);
- **dump**: text holding only numbers (``.hex`` / ``.float`` dumps, one value a line; mean
  files written as text look the same);
- **image list**: every line an image path (``.jpg``, ``.png``, ``.bmp`` …);
- **wk**: the mapper's compiled model, a ``.wk`` file (any content: a Git LFS pointer or a
  truncated copy is a damaged `.wk`) or a file whose head is a `.wk` header (:mod:`nnie_lsp.readers.wk`);
- **binary**: NUL bytes in the head.

Only :data:`HEAD_BYTES` are read.  Never raises for a file that cannot be read: its kind is
:data:`UNREADABLE` (the callers say why through :mod:`nnie_lsp.core.safe_io`).

May import: core, readers.cfg, readers.prototxt, readers.mapper, readers.wk.
"""

from __future__ import annotations

import os
import re

from nnie_lsp.core import safe_io
from nnie_lsp.core.text import decode

NET = "net"
SOLVER = "solver"
MAPPER_CFG = "mapper cfg"
OTHER_CFG = "other cfg"
MAPPER_LOG = "mapper log"
NET_TREE = "net tree"
WK = "wk"
RUNTIME = "runtime"
DUMP = "dump"
IMAGE_LIST = "image list"
BINARY = "binary"
UTF16 = "utf16"  # UTF-16 text (a BOM, or NUL bytes between ASCII letters): not what the mapper reads
UNKNOWN = "unknown"
UNREADABLE = "unreadable"

#: Extensions nets are saved under: ``.prototxt``; ``.pt`` (py-faster-rcnn's ``test.pt``, also
#: PyTorch's binary weights: told apart by content); ``.pbtxt``.
NET_EXTENSIONS = (".prototxt", ".pt", ".pbtxt")
#: How much of a file is read to tell what it is.
HEAD_BYTES = 8192
#: Extensions of image files in an image list (the mapper reads them with OpenCV).
IMAGE_EXTENSIONS = (".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".ppm", ".pgm", ".webp", ".yuv", ".nv12",
                    ".nv21", ".rgb", ".bgr", ".raw")

#: The line that marks a ``.cfg`` as a mapper cfg when its key (group 1) is a known mapper or
#: look-alike key (:mod:`nnie_lsp.readers.cfg.keys`): ``[key]`` after blanks or a BOM.  What
#: :func:`nnie_lsp.readers.cfg.reader.bracket_key` reads without compiling it; the VS Code client's
#: sniffer applies this pattern (``scripts/gen_client_keys.py`` writes it into
#: ``vscode-client/src/cfgKeys.ts``).
MAPPER_CFG_KEY_LINE = r"^[ \t\ufeff]*\[([^\[\]\s]+)\]"

# Compiled on first use (re's cache): a net or a cfg is told before any of them is needed (start-up).
_DOT_RE = r"(?is)\A(?:\s|//[^\n]*\n|#[^\n]*\n|/\*.*?\*/)*(?:strict\s+)?(?:di)?graph\b[^{\n]*\{"
_RUNTIME_RE = r"(?m)^[ \t]*(?:Classify|Sub_net_type|Layer_cnt)[ \t]*:"
_NUMBER_LINE_RE = (r"[ \t]*(?:[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|0[xX][0-9A-Fa-f]+|[0-9A-Fa-f]{2,16}"
                   r"|[-+]?(?:nan|inf))(?:[ \t,;]+(?:[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
                   r"|0[xX][0-9A-Fa-f]+|[0-9A-Fa-f]{2,16}|[-+]?(?:nan|inf)))*[ \t,;]*")
_SAMPLE_LINES = 200


def _lines(text: str) -> list[str]:
    """The first non-blank lines, without the last one when the head cut it."""
    lines = text.splitlines()
    if len(text) >= HEAD_BYTES - 4 and lines:
        lines = lines[:-1]
    return [line for line in lines[:_SAMPLE_LINES * 2] if line.strip()][:_SAMPLE_LINES]


def _only_numbers(lines: list[str]) -> bool:
    return bool(lines) and all(re.fullmatch(_NUMBER_LINE_RE, line) for line in lines)


def _image_list(lines: list[str]) -> bool:
    paths = [line.strip() for line in lines if not line.lstrip().startswith("#")]
    return bool(paths) and all(p.lower().endswith(IMAGE_EXTENSIONS) for p in paths)


def sniff(path: str, head: bytes, *, named: bool = True) -> str:
    """The kind of the file at ``path`` whose first bytes are ``head`` (see the module's table).

    ``named``: the user named the file; a text that is none of the known kinds is then a net when
    its extension is a net's (the lint reports its syntax).  In folder mode (``named=False``) only
    a ``.prototxt`` is taken on its extension; other files must show a net's fields."""
    low = os.path.basename(path).lower()
    ext = os.path.splitext(low)[1]
    if low in ("mapper_debug.log", "mapper_error.log"):
        return MAPPER_LOG  # by name, even empty (a run without errors leaves mapper_error.log empty)
    if ext == ".wk":
        return WK
    if _utf16(head[:HEAD_BYTES]):
        return UTF16
    if b"\x00" in head[:HEAD_BYTES]:
        from nnie_lsp.readers.wk.layout import looks_like_wk

        if looks_like_wk(head):
            return WK
        # a .prototxt holding binary data (often the caffemodel under the wrong name) is linted:
        # NN010 says what it holds
        return NET if ext == ".prototxt" else BINARY
    text = decode(head[:HEAD_BYTES]).text
    if ext == ".cfg":
        from nnie_lsp.readers.cfg.reader import looks_like_mapper_cfg

        return MAPPER_CFG if looks_like_mapper_cfg(text) else OTHER_CFG
    from nnie_lsp.readers.prototxt import caffe_pb2
    from nnie_lsp.readers.prototxt.solver import NET_ONLY_FIELDS, SOLVER_ONLY_FIELDS, top_level_fields

    fields = set(top_level_fields(text))
    net_fields = caffe_pb2.NetParameter.DESCRIPTOR.fields_by_name
    # a net's top-level names are (nearly) all NetParameter fields; prose that happens to hold an
    # "input:" (a README, notes) has many other words at its "top level"
    if fields & NET_ONLY_FIELDS and 2 * sum(1 for f in fields if f in net_fields) >= len(fields):
        return NET
    from nnie_lsp.readers.mapper.log_lines import looks_like_mapper_log

    if looks_like_mapper_log(text):  # before the solver test: "layer type:[Crop]" names a solver field
        return MAPPER_LOG
    if fields & SOLVER_ONLY_FIELDS and not fields & NET_ONLY_FIELDS:
        return SOLVER
    if re.match(_DOT_RE, text):
        return NET_TREE
    if len(re.findall(_RUNTIME_RE, text)) >= 2:
        return RUNTIME
    lines = _lines(text)
    if _only_numbers(lines):
        return DUMP
    if _image_list(lines):
        return IMAGE_LIST
    if ext == ".prototxt" or (named and ext in NET_EXTENSIONS):
        return NET
    return UNKNOWN


def _utf16(head: bytes) -> bool:
    """A UTF-16 text: its BOM, or every other byte NUL in text made of ASCII (an editor's
    "Unicode" save of a cfg)."""
    if head[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return True
    sample = head[:512]
    if len(sample) < 8:
        return False
    for zeros, letters in ((sample[1::2], sample[0::2]), (sample[0::2], sample[1::2])):
        if zeros.count(0) >= 0.9 * len(zeros) and all(32 <= b < 127 or b in (9, 10, 13) for b in letters if b):
            return True
    return False


def refused_note(path: str, kind: str) -> str:
    """Why a file named on the command line under a cfg's or net's name could not be linted."""
    if kind == UTF16:
        return (f"{path}: could not be linted: UTF-16 text; nnie_mapper reads 8-bit text files: save it as "
                "UTF-8 (or ASCII)")
    return f"{path}: could not be linted: binary data under a {os.path.splitext(path)[1]} name, not a text file"


def kind_of(path: str, *, named: bool = True) -> str:
    """:func:`sniff` on the file's first :data:`HEAD_BYTES` (:data:`UNREADABLE` when it cannot be read)."""
    try:
        head = safe_io.read_head(path, HEAD_BYTES)
    except OSError:
        return UNREADABLE
    return sniff(path, head, named=named)


def wk_note(path: str, *, with_cfg: bool = False, cfg: str | None = None) -> str:
    """What a `.wk` is, in one line: its summary (or why it cannot be read) and where its
    findings go (``with_cfg``: read as the compiled model of the cfg linted with it)."""
    from nnie_lsp.readers.mapper.wk_files import load_wk
    from nnie_lsp.readers.wk.describe import summary

    model, error = load_wk(os.path.abspath(path))
    what = summary(model) if model is not None else f"a .wk that cannot be read: {error.message}"
    if cfg:
        return f"{path}: {what}; read with the cfg that builds it ({os.path.basename(cfg)})"
    if with_cfg:
        return f"{path}: {what}; read as the compiled model of the cfg linted with it"
    return f"{path}: {what}"


def not_linted_note(path: str, kind: str, *, with_cfg: bool = False) -> str:
    """What nnie-lint says of a file named on its command line that it does not lint as a net or
    cfg: what the file is, and where it is read instead (``with_cfg``: a cfg is linted in the
    same run, so the mapper output is read with it)."""
    name = os.path.basename(path)
    if kind == NET_TREE:
        if with_cfg:
            return f"{path}: the mapper's graph dump, read as cnn_net_tree.dot for the cfg linted with it"
        return (f"{path}: {name} is the mapper's graph dump, not a net: nothing to lint on its own; "
                "lint its cfg (the cnn_net_tree.dot beside a cfg is read with it)")
    if kind == WK:
        return wk_note(path, with_cfg=with_cfg)
    if kind == RUNTIME:
        return (f"{path}: {name} is the mapper's segment list (RUNTIME.txt), not a net: nothing to lint; "
                "lint its cfg")
    if kind == DUMP:
        what = "a dump of numbers" if name.endswith((".hex", ".float", ".bin")) else "numbers only (a dump or a mean file)"
        return f"{path}: {what}, not a net: nothing to lint; nnie-triage compare reads dumps"
    if kind == IMAGE_LIST:
        return f"{path}: an image list, not a net: nothing to lint on its own; lint the cfg that names it"
    if kind == SOLVER:
        return f"{path}: a Caffe solver file (SolverParameter: net, base_lr, max_iter, …), not a net: not linted"
    if kind == BINARY:
        return f"{path}: binary data (a caffemodel, weights or an image?), not a text net or cfg: not linted"
    if kind == MAPPER_LOG:
        return f"{path}: a mapper log: read with the cfg(s) linted"
    return (f"{path}: neither a net nor a mapper cfg (its first {HEAD_BYTES // 1024} KB hold no net's fields): "
            "not linted")
