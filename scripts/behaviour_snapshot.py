#!/usr/bin/env python3
"""Behaviour snapshot of nnie-lint / nnie-triage: the triage redesign must not change behaviour: snapshot
before, snapshot after, diff.  `snapshot --out DIR`; `diff A B` (exit 1 when any output differs); `check --against
DIR` (snapshot now, diff).  PYTHONPATH=<checkout> picks the code under test.

Runs the console scripts beside sys.executable: nnie-lint --format json on examples/, tests/data/triage and
the shared corpus (real cfg/prototxt files); nnie-triage (PLAN) on a temporary copy of examples/triage and on the dump sets tests/triage
builds from tests/data/triage (GEN). Per command: <slug>.json|.txt (stdout), <slug>.status.txt (command, exit code,
first stderr line), <slug>--<name>.txt (what it wrote: text or a SHA-256 manifest). Normalised: repository and code
roots (<ROOT>), the shared corpus (<SHARED>), the temporary folder (<TMP>), elapsed_s, dates, version strings.
"""
import argparse, collections, difflib, hashlib, os, re, shlex, shutil, subprocess, sys, tempfile, time  # noqa: E401
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("NNIE_SHARED") or ROOT / "tests/data/shared").resolve()  # as nnie_lsp/testing/shared_files.py
BIN = Path(sys.executable).parent
MODELS = {"det1": ROOT / "tests/data/triage/mtcnn", "det2": SHARED / "corpus/models/mtcnn"}

# The dump sets as tests/triage/*.py write them (argv: work root code det2); prints a PLAN line for each.
GEN = r'''
import importlib, pathlib, re, shutil, sys
import cv2, numpy as np, nnie_lsp
work, root, code, det2 = map(pathlib.Path, sys.argv[1:5])
def find(module, name):  # or, the refactor moved it, from the file that defines `name`
    try:
        return getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError):
        pkg = pathlib.Path(nnie_lsp.__file__).parent
        f = next(f for f in sorted(pkg.rglob("*.py")) if re.search(rf"^(def|class) {name}\b", f.read_text(), re.M))
        return getattr(importlib.import_module(".".join(["nnie_lsp", *f.relative_to(pkg).with_suffix("").parts])), name)
image, det1 = root / "examples/triage/test1.jpg", root / "tests/data/triage/mtcnn"
for name, sc in find("nnie_lsp.reference.scenarios", "scenarios")().items():  # tests/triage/conftest.py
    model_dir = det1 if sc.model == "det1" else det2
    if (model_dir / f"{sc.model}.caffemodel").is_file():
        p = find("nnie_lsp.reference.scenarios", "write_scenario")(sc, work / "scen" / name, model_dir, image)
        print(f"scen/{name} compare--scen-{name} compare --reference caffe --sim nnie --cfg sim.cfg --prototxt "
              f"'{p['prototxt']}' --format json" + (" --sim-16bit nnie16" if "nnie16" in p else ""))
sys.path.insert(0, str(next(d for d in (code / "tests/triage/align", code / "tests/triage", root / "tests/triage/align") if (d / "real_folders.py").is_file())))
from real_folders import build  # test_real_mapper_folders
for name, kw in {"swap": {}, "swap_linear": {"input_linear": True}, "plain": {"swap_channels": False}, "prefixed_swap":
                 {"reference": "prefixed"}, "prefixed": {"reference": "prefixed", "swap_channels": False},
                 "nodes": {"swap_channels": False, "mapper_nodes": True}}.items():
    build(work / "real" / name, **kw)
    print(f"real/{name} compare--real-{name} compare ${{RS}} --prototxt ssd_mini.prototxt --format json")
spec = find("nnie_lsp.triage.hp_synthetic", "DeepNetSpec")(depth=10, bottlenecks={7: 100.0})  # test_hp_plan_cli
find("nnie_lsp.triage.hp_synthetic", "write_project")(work / "deep", spec)
(multi := work / "multi").mkdir()  # test_multi_image
img = cv2.imread(str(image))
for name, picture in zip(("plain", "mirror", "dark"), (img, img[:, ::-1], (img * 0.6).astype(np.uint8))):
    cv2.imwrite(str(multi / f"{name}.png"), picture)
(multi / "images.txt").write_text("./plain.png\n./mirror.png\n./dark.png\n")
(multi / "mean.txt").write_text("127.5\n127.5\n127.5\n")
(multi / "net.cfg").write_text(f"[prototxt_file] {det1}/det1.prototxt\n[caffemodel_file] {det1}/det1.caffemodel\n"
    "[net_type] 0\n[compile_mode] 0\n[RGB_order] RGB\n[image_list] ./images.txt\n[image_type] 1\n"
    "[norm_type] 5\n[mean_file] ./mean.txt\n[data_scale] 0.0078125\n")
sim = work / "input_dump"  # test_data_from_input_dump
shutil.copytree(root / "examples/triage/channel_swap/mapper_quant", sim)
data = find("nnie_lsp.readers.dumpio", "read_hex_words")(str(sim / "data_output0_3_20_20_quant.linear.hex"))
(sim / "data_output0_3_20_20_quant.linear.hex").unlink()
find("nnie_lsp.readers.dumpio", "write_mapper_input")(sim, "conv1", data.reshape(1, 3, 20, 20), input_id=1)
(work / "mapper.log").write_text("Mapper Version 1.2.0.1_B040 (NNIE_1.2) 1904031504157241\n")  # test_bundle
'''

# nnie-triage runs: <folder in the temp folder> <slug> <arguments>; keep:PATH = what it wrote; ${...} = MACROS
MACROS = {"Q": "--cfg quant_noise/sim.cfg", "DET1": shlex.quote(f"{MODELS['det1']}/det1"),
          "YU": shlex.quote(f"{SHARED}/corpus/models/yufacedetectnet-v1/yufacedetectnet-open-v1"),
          "P48": "--prototxt model/det1_48x48.prototxt --caffemodel model/det1.caffemodel --image test1.jpg",
          "SCEN": "--reference caffe --sim nnie --cfg sim.cfg --prototxt ${DET1}.prototxt",
          "DEMO": "--cfg quant_noise/sim.cfg --transpose", "RS": "--reference caffe --sim mapper_quant --cfg sim.cfg",
          "S5": "--reference s5/caffe --sim s5/nnie --prototxt model/det1_48x48.prototxt",
          "YUM": "--prototxt ${YU}.prototxt --caffemodel ${YU}.caffemodel --image ex/test1.jpg --norm-type 2 "
                 "--mean 104,117,123 --rgb-order BGR",
          "HPM": "--transpose --prototxt ${DET1}.prototxt --caffemodel ${DET1}.caffemodel"}
PLAN = r"""
# examples/triage as demo.sh, tests/server/lsp/make_compare_fixture.py and the tests run it
ex compare--ex-channel_swap compare --cfg channel_swap/sim.cfg --format json
ex compare--ex-channel_swap-text compare --cfg channel_swap/sim.cfg
ex compare--ex-quant_noise compare ${Q} --format json
ex compare--ex-quant_noise-text compare ${Q} --html r.html keep:r.html
ex/quant_noise compare--ex-fixture compare --reference output --sim mapper_quant \
    --sim-16bit compile_mode1/mapper_quant --cfg sim.cfg --prototxt ../model/det1.prototxt --format json
ex reference--ex-step5 reference ${P48} ${Q} -o s5/caffe keep:s5/caffe
ex emulate--ex-step5 emulate ${P48} ${Q} -o s5/nnie keep:s5/nnie
ex compare--ex-step5-post compare ${S5} --postprocess postprocess_pnet.py:decode --format json
ex compare--ex-step5-post-text compare ${S5} --postprocess postprocess_pnet.py:decode
ex hp-plan--ex-target hp-plan ${DEMO} --target 0.999 --format json
ex hp-plan--ex-target-text hp-plan ${DEMO} --target 0.999
ex hp-plan--ex-runs hp-plan ${DEMO} --sim quant_noise/mapper_quant --sim-16bit quant_noise/compile_mode1/mapper_quant \
    --format json
ex hp-plan--ex-bad-target hp-plan ${DEMO} --target 1.5
ex compare--ex-input-dump compare --reference channel_swap/output --sim ../input_dump --cfg channel_swap/sim.cfg \
    --prototxt model/det1.prototxt --format json
ex emulate--ex-input-dumps emulate ${Q} --input-dumps -o c/sim keep:c/sim
ex reference--ex-codes reference ${Q} -o c/caffe keep:c/caffe
ex compare--ex-codes compare --reference c/caffe --sim c/sim ${Q} --format json
ex emulate--ex-bare emulate ${Q} --input-dumps -o c/bare
strip-twins ex/c/bare
ex compare--ex-bare-clips compare --reference c/caffe --sim c/bare ${Q} --clips c/sim --format json
ex compare--ex-bare-text compare --reference c/caffe --sim c/bare ${Q}
ex compare--ex-bare-bad-clips compare --reference c/caffe --sim c/bare --clips model
# tests/data/triage/mtcnn: the seeded-fault scenarios
scen/channel_swap compare--scen-channel_swap-zh compare ${SCEN} --format json --lang zh
scen/quant_noise compare--scen-quant_noise-md compare ${SCEN} --sim-16bit nnie16 --format markdown
scen/quant_noise compare--scen-quant_noise-output compare --reference caffe --sim nnie --prototxt ${DET1}.prototxt \
    --format json --output t.json keep:t.json
scen/quant_noise bundle--scen-quant_noise bundle --layer conv2 ${SCEN} --caffemodel ${DET1}.caffemodel \
    --mapper-log ../../mapper.log --triage-json t.json -o b.zip keep:b.zip
scen/ok compare--scen-ok-post compare ${SCEN} --format json --postprocess ../../ex/postprocess_pnet.py:decode
scen/ok compare--scen-ok-missing-ref compare ${SCEN} --reference missing
scen/ok compare--scen-ok-bad-threshold compare ${SCEN} --threshold bogus=1
scen/ok compare--scen-ok-bad-post compare ${SCEN} --postprocess no_such_module_xyz:f
scen hp-plan--scen-ok hp-plan --cfg ok/sim.cfg ${HPM} --sim ok/nnie --target 0.999 --format json
scen hp-plan--scen-quant_noise hp-plan --cfg quant_noise/sim.cfg ${HPM} --sim quant_noise/nnie --format json
scen hp-plan--scen-ok-16bit hp-plan --cfg ok/sim.cfg ${HPM} --sim ok/nnie --sim-16bit quant_noise/nnie --format json
# tests/data/triage/real_shapes: the mapper's own node names through the dot
real/nodes compare--real-nodes-dot compare ${RS} --prototxt ssd_mini.prototxt --dot cnn_net_tree.dot --format json
deep hp-plan--deep hp-plan --cfg deep.cfg --format json
deep hp-plan--deep-budget0 hp-plan --cfg deep.cfg --budget 0 --format json
deep hp-plan--deep-images-all hp-plan --cfg deep.cfg --images all --format json
multi reference--multi reference --cfg net.cfg --images 3 --transpose keep:output
multi emulate--multi emulate --cfg net.cfg --images 3 --transpose keep:mapper_quant_emulated
multi compare--multi compare --reference output --sim mapper_quant_emulated --cfg net.cfg --format json
multi compare--multi-2 compare --reference output --sim mapper_quant_emulated --cfg net.cfg --images 2 --format json
. reference--ssd reference ${YUM} -o ssd/caffe keep:ssd/caffe
. emulate--ssd emulate ${YUM} -o ssd/sim keep:ssd/sim
. compare--ssd compare --reference ssd/caffe --sim ssd/sim --prototxt ${YU}.prototxt --format json
"""


class Snapshot:
    def __init__(self, out: Path, work: Path):
        self.out, self.counts, self.env = out, collections.Counter(), {**os.environ, "COLUMNS": "110", "NO_COLOR": "1"}
        probe = subprocess.run([sys.executable, "-c", "import nnie_lsp; print(nnie_lsp.__file__)"], cwd=work,
                               env=self.env, capture_output=True, text=True)  # cwd: -c puts it first on sys.path
        self.code = Path(probe.stdout.strip()).resolve().parent.parent if probe.returncode == 0 else ROOT
        self.subs = sorted({str(work): "<TMP>", str(work.resolve()): "<TMP>", str(ROOT): "<ROOT>", str(self.code):
                            "<ROOT>", str(SHARED): "<SHARED>"}.items(), key=lambda kv: -len(kv[0]))  # longest first

    def norm(self, text: str) -> str:
        for old, new in self.subs:
            text = text.replace(old, new)
        text = re.sub(r'("elapsed_s"\s*:\s*)-?[0-9.eE+-]+', r"\g<1>0", text)
        text = re.sub(r"\b(nnie-lint|nnie-triage|nnie-lsp|nnie_lsp) v?\d+\.\d+\.\d+\S*", r"\1 <VERSION>", text)
        text = re.sub(r'(?:(?<=id=")|(?<=#))[mp][0-9a-f]{10}\b', "<SVG-ID>", text)  # matplotlib's random SVG ids
        return re.sub(r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d(:\d\d(\.\d+)?)?([+-]\d\d:\d\d| ?UTC|Z)?", "<DATE>", text)

    def write(self, name: str, text: str) -> None:
        (self.out / name).write_text(self.norm(text), encoding="utf-8")

    def dump(self, path: Path) -> str:
        """A file's text; a folder's or zip's manifest: `name sha256` of each file's normalised content."""
        if path.is_file() and path.suffix != ".zip":
            return path.read_text(encoding="utf-8", errors="replace")
        if path.suffix == ".zip" and path.is_file():
            shutil.unpack_archive(path, path.with_suffix(".unzipped"))
            path = path.with_suffix(".unzipped")
        lines = []
        for p in sorted(q for q in path.rglob("*") if q.is_file()):  # binary files pass through unchanged
            data = self.norm(p.read_bytes().decode("utf-8", "surrogateescape")).encode("utf-8", "surrogateescape")
            lines.append(f"{p.relative_to(path).as_posix()}  {hashlib.sha256(data).hexdigest()}\n")
        return "".join(lines)

    def run(self, slug: str, tool: str, *args: str, cwd: Path, keep: tuple = ()) -> None:
        self.counts[tool if tool == "nnie-lint" else f"{tool} {args[0]}"] += 1
        p = subprocess.run([str(BIN / tool), *args], cwd=cwd, env=self.env, capture_output=True, text=True,
                           encoding="utf-8", errors="replace", timeout=600)
        self.write(slug + (".json" if "--format json" in " ".join(args) else ".txt"), p.stdout)
        self.write(f"{slug}.status.txt", f"$ {tool} {shlex.join(args)}\ncwd: {cwd}\nexit: {p.returncode}\n"
                                         f"stderr: {''.join(p.stderr.strip().splitlines()[:1])}\n")
        for k in keep:  # a missing one: an empty manifest
            self.write(f"{slug}--{Path(k).name}.txt", self.dump(cwd / k))


def snapshot(out: Path) -> Snapshot:
    if out.exists() and any(out.iterdir()):
        sys.exit(f"{out} is not empty")
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="behaviour-snapshot-") as tmp:
        s = Snapshot(out, w := Path(tmp))
        ex = [ROOT / "examples/project", ROOT / "examples/triage"]
        lint = ex + sorted(p for d in ex for p in d.rglob("*") if p.suffix in (".cfg", ".prototxt"))
        lint += [MODELS["det1"] / "det1.prototxt", ROOT / "tests/data/triage/real_shapes/ssd_mini.prototxt"]
        if not (SHARED / "corpus/real").is_dir():
            print(f"note: no {SHARED}/corpus/real: the real corpus is not linted")
        for arg in [os.path.relpath(p, ROOT) for p in lint + sorted((SHARED / "corpus/real").glob("*"))]:
            slug = "lint--" + re.sub(r"[^\w.-]+", "_", arg.removeprefix("../"))
            s.run(slug, "nnie-lint", "--format", "json", "--exit-zero", arg, cwd=ROOT)
        shutil.copytree(ROOT / "examples/triage", w / "ex")
        gen = subprocess.run([sys.executable, "-c", GEN, w, ROOT, s.code, MODELS["det2"]], cwd=w, env=s.env,
                             capture_output=True, text=True)
        s.write("gen.status.txt", f"exit: {gen.returncode}\n{gen.stdout}{gen.stderr[-3000:]}")
        s.write("gen--inputs.txt", s.dump(w))
        for line in [*gen.stdout.splitlines(), *PLAN.replace("\\\n", " ").splitlines()]:
            for _ in range(3):  # macros inside macros
                line = re.sub(r"\$\{(\w+)\}", lambda m: MACROS[m.group(1)], line)
            if not line.strip() or line.startswith("#"):
                continue
            cwd, slug, *args = shlex.split(line)
            if cwd == "strip-twins":  # the input codes without their dequantized twins (test_input_codes)
                for f in [w / slug / "nnie-triage-dumps.json", *(w / slug).glob("*_anti_quant.float")]:
                    f.unlink(missing_ok=True)
            else:  # a folder GEN could not write: the command fails, and says so
                (w / cwd).mkdir(parents=True, exist_ok=True)
                s.run(slug, "nnie-triage", *[a for a in args if not a.startswith("keep:")], cwd=w / cwd,
                      keep=tuple(a[5:] for a in args if a.startswith("keep:")))
    return s


def diff(a: Path, b: Path) -> int:
    if not (a.is_dir() and b.is_dir()):
        sys.exit(f"no snapshot folder {b if a.is_dir() else a}")
    names, differ = sorted({p.relative_to(d).as_posix() for d in (a, b) for p in d.rglob("*") if p.is_file()}), 0
    for name in names:
        ta, tb = ((d / name).read_text(encoding="utf-8") if (d / name).is_file() else None for d in (a, b))
        if ta != tb:
            differ += 1
            lines = list(difflib.unified_diff((ta or "").splitlines(), (tb or "").splitlines(), f"{a}/{name}",
                                              f"{b}/{name}", lineterm="", n=2))
            more = f"\n[… {len(lines) - 40} more diff lines]" if len(lines) > 40 else ""
            missing = f" (only in {a if tb is None else b})" if None in (ta, tb) else ""
            print(f"=== {name} differs{missing}\n" + "\n".join(lines[:40]) + more)
    print(f"{len(names)} outputs compared, {differ} differ")
    return 1 if differ else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    sub.add_parser("snapshot", help="write a snapshot").add_argument("--out", type=Path, required=True)
    sub.add_parser("diff", help="compare two snapshots A B").add_argument("dirs", nargs=2, type=Path)
    sub.add_parser("check", help="snapshot now, diff against DIR").add_argument("--against", type=Path, required=True)
    args = ap.parse_args()
    if args.command == "diff":
        return diff(*args.dirs)
    git = ["git", "-C", str(ROOT), "status", "--porcelain", "examples", "tests"]
    before, t0 = subprocess.run(git, capture_output=True, text=True).stdout, time.monotonic()
    with tempfile.TemporaryDirectory(prefix="behaviour-check-") as tmp:
        out = args.out if args.command == "snapshot" else Path(tmp) / "snapshot"
        s = snapshot(out)
        print(", ".join(f"{n} × {k}" for k, n in sorted(s.counts.items())) +
              f": {sum(s.counts.values())} commands on the code in {s.code}, {time.monotonic() - t0:.0f} s")
        if subprocess.run(git, capture_output=True, text=True).stdout != before:
            print("warning: `git status examples tests` changed while the snapshot ran", file=sys.stderr)
        return diff(args.against, out) if args.command == "check" else 0


if __name__ == "__main__":
    sys.exit(main())
