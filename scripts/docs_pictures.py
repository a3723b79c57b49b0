"""Draw the pictures of the docs site from the product's own output on the bundled examples.

    python scripts/docs_pictures.py            # write docs/pictures/ (`make docs` runs it)
    python scripts/docs_pictures.py --out DIR  # somewhere else

Nothing here is drawn by hand.  Two kinds of picture:

- **terminal screenshots**: the command runs as a user runs it, in a pseudo-terminal of 100
  columns (so with the colours a terminal shows), on a copy of the example in a temporary folder;
  its output (stdout and stderr, interleaved as on a screen) is drawn by rich's SVG export;
- **plots and reports**: the per-layer cosine plot is cut out of the HTML report that
  `nnie-triage compare --html` writes (the same ``<svg>`` the report and the editor's webview
  show), and the report itself is kept beside it for the page to link.

The fix of the channel-swap loop is applied from the result's JSON with the product's own applier
(``diagnostic_json.decode_fix`` + ``fix_writes.apply_fixes``, what the editor's "Apply all triage
fixes" does).  The case-3 picture needs a dump set no example holds: it is built by the triage
cases' recipe (``nnie_lsp.testing.triage_cases``: the real det1 weights, the mapper's split of an
in-place PReLU emulated), and its page says so.  A file is rewritten only when its content
changed.  Runs in about 10-20 s on a quiet 2-core machine.
"""

from __future__ import annotations

import argparse
import fcntl
import io
import json
import os
import pty
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import termios
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
BIN = Path(sys.executable).parent
COLUMNS = 100
#: how the temporary folder holding the copies of the examples is written in the pictures
SHOWN_WORK = "~/nnie-examples"
PLOT_START, PLOT_END = "<!-- nnie-plot:start -->", "<!-- nnie-plot:end -->"


class PictureError(RuntimeError):
    pass


def run_tty(argv: list[str], cwd: Path, *, ok=(0,)) -> str:
    """Run `argv` in a pseudo-terminal of COLUMNS columns; its screen output (ANSI colours kept)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 200, COLUMNS, 0, 0))
    env = dict(os.environ, COLUMNS=str(COLUMNS), TERM="xterm-256color", NNIE_DEBUG="")
    for name in ("NO_COLOR", "FORCE_COLOR", "GITHUB_ACTIONS"):
        env.pop(name, None)
    exe = argv[0] if os.sep in argv[0] else str(BIN / argv[0])
    proc = subprocess.Popen([exe, *argv[1:]], cwd=cwd, stdin=subprocess.DEVNULL, stdout=slave, stderr=slave,
                            env=env)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    rc = proc.wait()
    os.close(master)
    text = b"".join(chunks).decode("utf-8", "replace").replace("\r\n", "\n")
    if rc not in ok:
        raise PictureError(f"{' '.join(argv)} (in {cwd}) exited {rc}:\n{text}")
    return text


def run(argv: list[str], cwd: Path) -> str:
    """Run `argv` without a terminal (for JSON output and setup steps); its stdout."""
    exe = argv[0] if os.sep in argv[0] else str(BIN / argv[0])
    p = subprocess.run([exe, *argv[1:]], cwd=cwd, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    if p.returncode != 0:
        raise PictureError(f"{' '.join(argv)} (in {cwd}) exited {p.returncode}:\n{p.stdout}{p.stderr}")
    return p.stdout


def terminal_svg(text: str, title: str) -> str:
    """`text` (with ANSI colours) as rich draws a terminal; no web fonts (the page must not fetch)."""
    from rich.console import Console
    from rich.text import Text

    console = Console(record=True, width=COLUMNS, file=io.StringIO(), force_terminal=True,
                      color_system="truecolor", legacy_windows=False)
    console.print(Text.from_ansi(text.rstrip("\n")), end="", soft_wrap=False)
    svg = console.export_svg(title=title)
    svg = re.sub(r"\s*@font-face\s*\{[^}]*\}", "", svg)
    return svg.replace("font-family: Fira Code, monospace", 'font-family: "Fira Code", "DejaVu Sans Mono", '
                       'Menlo, Consolas, monospace')


def plot_of(html_path: Path) -> str:
    """The cosine plot the HTML report embeds, as a standalone SVG file."""
    page = html_path.read_text(encoding="utf-8")
    if PLOT_START not in page:
        raise PictureError(f"{html_path}: no plot in the report")
    part = page.split(PLOT_START, 1)[1].split(PLOT_END, 1)[0]
    m = re.search(r"<svg\b.*</svg>", part, re.S)
    if not m:
        raise PictureError(f"{html_path}: no <svg> between the plot markers")
    svg = m.group(0)
    if "xmlns=" not in svg.split(">", 1)[0]:
        svg = svg.replace("<svg", '<svg xmlns="http://www.w3.org/2000/svg"', 1)
    # a file of its own is read without the report's page style: give it a white ground
    return '<?xml version="1.0" encoding="utf-8"?>\n' + svg + "\n"


class Pictures:
    def __init__(self, out: Path, work: Path) -> None:
        self.out, self.work = out, work
        self.written: list[str] = []
        self.kept: list[str] = []

    def save(self, name: str, content: str) -> None:
        path = self.out / name
        if path.is_file() and path.read_text(encoding="utf-8") == content:
            self.kept.append(name)
            return
        path.write_text(content, encoding="utf-8")
        self.written.append(name)

    def shot(self, name: str, argv: list[str], cwd: Path, *, title: str | None = None, ok=(0,)) -> str:
        text = self.shown(run_tty(argv, cwd, ok=ok))
        self.save(name, terminal_svg(text, title or "$ " + " ".join(argv)))
        return text

    def report(self, stem: str, html: Path) -> None:
        self.save(f"{stem}-plot.svg", self.shown(plot_of(html)))
        self.save(f"{stem}-report.html", self.shown(html.read_text(encoding="utf-8")))

    def shown(self, text: str) -> str:
        """The output as it reads for a user: the temporary folder's path is written SHOWN_WORK."""
        return text.replace(str(self.work), SHOWN_WORK)

    def copy(self, example: str, name: str | None = None) -> Path:
        dst = self.work / (name or example)
        shutil.copytree(ROOT / "examples" / example, dst,
                        ignore=shutil.ignore_patterns(".nnie-triage", "__pycache__"))
        return dst


# ----------------------------------------------------------------------------------------- lint

def lint(p: Pictures) -> None:
    project = p.copy("project")
    p.shot("lint-project.svg", ["nnie-lint", "."], project, title="$ nnie-lint examples/project", ok=(1,))
    p.shot("lint-diff.svg", ["nnie-lint", ".", "--diff", "--select", "NN301"], project,
           title="$ nnie-lint examples/project --diff --select NN301", ok=(0, 1))


# --------------------------------------------------------------------------- the guide's six steps

def apply_triage_fixes(result: dict, base: Path, codes: set[str]) -> list[str]:
    """Apply the fixes of the findings `codes` of a compare result, as the editor does."""
    from nnie_lsp.core.diagnostic_json import decode_fix
    from nnie_lsp.lint.fix_writes import apply_fixes

    fixes = [fx for f in result.get("findings") or [] if f.get("code") in codes
             if (fx := decode_fix(f.get("fix"), str(base))) is not None]
    if not fixes:
        raise PictureError(f"no fix of {sorted(codes)} in the result")
    report = apply_fixes(fixes)
    if report.changed or report.failed or report.held:
        raise PictureError(f"the fixes were not written: {report}")
    return [f.message for f in fixes]


def triage_steps(p: Pictures) -> None:
    tri = p.copy("triage")
    quiet = ["--progress", "none"]
    # step 1 and 2: the channel swap, case 1, then fix -> regenerate -> confirmed
    p.shot("step1-compare.svg", ["nnie-triage", "compare", "--cfg", "channel_swap/sim.cfg", "--html",
                                 "case1.html", *quiet], tri,
           title="$ nnie-triage compare --cfg channel_swap/sim.cfg")
    p.report("step1", tri / "case1.html")
    # the record the editor stores beside the cfg holds the result (and the texts it was made for)
    result = json.loads((tri / "channel_swap" / ".nnie-triage" / "sim.json").read_text(encoding="utf-8"))["result"]
    apply_triage_fixes(result, tri, {"T102"})
    p.shot("step2-confirmed.svg", ["nnie-triage", "compare", "--cfg", "channel_swap/sim.cfg", "--regenerate",
                                   "--html", "confirmed.html", *quiet], tri,
           title="$ nnie-triage compare --cfg channel_swap/sim.cfg --regenerate   # after the fix")
    p.report("step2", tri / "confirmed.html")
    # step 3: quantization, the 16-bit run, the _hp plan
    p.shot("step3-compare.svg", ["nnie-triage", "compare", "--cfg", "quant_noise/sim.cfg", "--no-record",
                                 "--html", "case2.html", *quiet], tri,
           title="$ nnie-triage compare --cfg quant_noise/sim.cfg")
    p.report("step3", tri / "case2.html")
    p.shot("step3-hp-plan.svg", ["nnie-triage", "hp-plan", "--cfg", "quant_noise/sim.cfg", "--transpose",
                                 "--target", "0.999", *quiet], tri,
           title="$ nnie-triage hp-plan --cfg quant_noise/sim.cfg --transpose --target 0.999")
    # step 4: layer matching (a dump set built by the triage cases' recipe)
    case3(p)
    # step 5: a clean 8-bit run, the MTCNN P-Net decoding on both sides
    args = ["--prototxt", "model/det1_48x48.prototxt", "--caffemodel", "model/det1.caffemodel",
            "--image", "test1.jpg", "--cfg", "quant_noise/sim.cfg"]
    run(["nnie-triage", "reference", *args, "-o", "step5/caffe", *quiet], tri)
    run(["nnie-triage", "emulate", *args, "--transpose", "-o", "step5/nnie", *quiet], tri)
    p.shot("step5-postprocess.svg", ["nnie-triage", "compare", "--reference", "step5/caffe", "--sim", "step5/nnie",
                                     "--prototxt", "model/det1_48x48.prototxt",
                                     "--postprocess", "postprocess_pnet.py:decode", *quiet], tri,
           title="$ nnie-triage compare --reference caffe/ --sim nnie/ --prototxt det1_48x48.prototxt "
                 "--postprocess postprocess_pnet.py:decode")
    # step 6: the vendor bundle of the first divergent layer of the quantization run
    q = "quant_noise"
    p.shot("step6-bundle.svg", ["nnie-triage", "bundle", "--layer", "conv2", "--cfg", f"{q}/sim.cfg",
                                "-o", "conv2_bundle.zip"], tri,
           title="$ nnie-triage bundle --layer conv2 --cfg quant_noise/sim.cfg -o conv2_bundle.zip")
    import zipfile

    with zipfile.ZipFile(tri / "conv2_bundle.zip") as z:
        listing = "\n".join(f"{i.file_size:>10}  {i.filename}" for i in z.infolist())
    p.save("step6-bundle-contents.svg", terminal_svg(listing, "conv2_bundle.zip: its members (bytes, name)"))


CASE3_CFG = """[prototxt_file] ./net.prototxt
[caffemodel_file] ./net.caffemodel
[net_type] 0
[compile_mode] 0
[RGB_order] RGB
[image_list] ./images.txt
[image_type] 1
[norm_type] 5
[mean_file] ./mean.txt
[data_scale] 0.0078125
"""


def case3(p: Pictures) -> None:
    from nnie_lsp.testing import triage_cases

    recipe = {"kind": "model", "model": "det1", "reference_net": "case", "emulation": {"split_inplace": ["PReLU2"]}}
    case = p.work / "case3"
    case.mkdir()
    (case / "net.cfg").write_text(CASE3_CFG, encoding="utf-8")
    (case / "mean.txt").write_text("127.5\n127.5\n127.5\n", encoding="utf-8")
    shutil.copyfile(triage_cases.model_prototxt(recipe), case / "net.prototxt")
    triage_cases.build_dumps(recipe, case, cache=False)
    p.shot("step4-compare.svg", ["nnie-triage", "compare", "--cfg", "net.cfg", "--reference", "caffe", "--sim", "nnie",
                                 "--no-record", "--html", "case3.html", "--progress", "none"], case,
           title="$ nnie-triage compare --cfg net.cfg --reference caffe/ --sim nnie/")
    p.report("step4", case / "case3.html")


# ------------------------------------------------------------------------------- the other stages

def conversion(p: Pictures) -> None:
    conv = p.copy("conversion")
    p.shot("conversion-lint.svg", ["nnie-lint", "det1.prototxt", "--onnx", "det1.onnx"], conv,
           title="$ nnie-lint det1.prototxt --onnx det1.onnx", ok=(1,))
    quiet = ["--progress", "none"]
    run(["nnie-triage", "reference", "--cfg", "det1.cfg", "--transpose", "-o", "caffe", *quiet], conv)
    run(["nnie-triage", "reference", "--cfg", "det1.cfg", "--transpose", "--onnx", "det1.onnx", "-o", "onnx",
         *quiet], conv)
    run(["nnie-triage", "emulate", "--cfg", "det1.cfg", "--transpose", "-o", "nnie", *quiet], conv)
    p.shot("conversion-compare.svg", ["nnie-triage", "compare", "--cfg", "det1.cfg", "--reference", "caffe", "--sim",
                                      "nnie", "--framework", "onnx", "--no-record", "--previous", "none",
                                      "--html", "conversion.html", *quiet], conv,
           title="$ nnie-triage compare --cfg det1.cfg --reference caffe/ --sim nnie/ --framework onnx/")
    p.report("conversion", conv / "conversion.html")


def wk_and_board(p: Pictures) -> None:
    wk = ROOT / "tests" / "data" / "wk" / "Strand2013__NNIE-lite__inst_mnist_cycle.wk"
    shown = "inst_mnist_cycle.wk"
    folder = p.work / "wk"
    folder.mkdir()
    shutil.copyfile(wk, folder / shown)
    p.shot("wk-describe.svg", ["nnie-triage", "wk", shown], folder, title=f"$ nnie-triage wk {shown}")
    p.shot("wk-contract.svg", ["nnie-triage", "wk", shown, "--board-contract"], folder,
           title=f"$ nnie-triage wk {shown} --board-contract")
    board = p.copy("board")
    p.shot("board-compare.svg", ["nnie-triage", "compare", "--cfg", "net.cfg", "--no-record", "--progress", "none"],
           board, title="$ nnie-triage compare --cfg net.cfg   # output/, mapper_quant/ and board/ beside it")


#: An inference script in the shape of the MTCNN Python port's demo.py (DuinoDu/mtcnn, which
#: examples/triage/nnie.toml cites): what `nnie-triage card` reads, with ast, never running it.
DETECT_PY = '''import cv2
import numpy as np


def detect_face(img, PNet):
    im_data = cv2.resize(img, (36, 36))
    im_data = (im_data - 127.5) * 0.0078125
    im_data = np.swapaxes(im_data, 0, 2)
    PNet.blobs["data"].data[...] = np.array([im_data], dtype=np.float32)
    return PNet.forward()


def main(PNet, path):
    img = cv2.imread(path)
    img_matlab = img.copy()
    tmp = img_matlab[:, :, 2].copy()
    img_matlab[:, :, 2] = img_matlab[:, :, 0]
    img_matlab[:, :, 0] = tmp
    return detect_face(img_matlab, PNet)
'''


def card(p: Pictures) -> None:
    """The model card drafted for the board example (no card yet) from its Caffe dumps and a detect.py."""
    project = p.copy("board", "card")
    (project / "detect.py").write_text(DETECT_PY, encoding="utf-8")
    p.shot("card-draft.svg", ["nnie-triage", "card", "--cfg", "net.cfg"], project,
           title="$ nnie-triage card --cfg net.cfg   # beside it: output/ (Caffe dumps) and detect.py")


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--out", default=str(ROOT / "docs" / "pictures"))
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="nnie-docs-pictures-") as tmp:
        p = Pictures(out, Path(tmp))
        try:
            lint(p)
            triage_steps(p)
            conversion(p)
            wk_and_board(p)
            card(p)
        except PictureError as exc:
            print(f"docs_pictures: {exc}", file=sys.stderr)
            return 1
    print(f"docs pictures in {os.path.relpath(out, ROOT)}: {len(p.written)} written, {len(p.kept)} unchanged")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
