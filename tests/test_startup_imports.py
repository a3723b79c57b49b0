"""What `nnie-lint` imports (issue 11, start-up; the speed itself is measured by
``benchmarks/bench_startup.py``, never here).

A pre-commit hook starts nnie-lint on every commit, so linting a prototxt must not load numpy,
rich, lark (the cfg reader uses the generated standalone parser), tomllib when no pyproject.toml
names nnie-lint, nor the mapper log / dot readers when there is no log or dot file.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

NEVER = ("numpy", "rich", "lark", "tomllib", "tomli", "nnie_lsp.readers.mapper.log", "nnie_lsp.readers.mapper.nettree",
         "nnie_lsp.triage", "nnie_lsp.server", "pygls", "tempfile")

PROBE = """
import json, sys
sys.argv = ["nnie-lint"] + sys.argv[1:]
from nnie_lsp.cli.lint import main
code = main()
print(json.dumps({"code": code, "modules": sorted(sys.modules)}), file=sys.stderr)
"""

ONE_LAYER = """name: "one"
input: "data"
input_shape { dim: 1 dim: 3 dim: 8 dim: 8 }
layer { name: "conv" type: "Convolution" bottom: "data" top: "conv"
  convolution_param { num_output: 4 kernel_size: 3 } }
"""

CFG = """[prototxt_file] ./one.prototxt
[net_type] 0
[compile_mode] 0
[image_type] 0
[RGB_order] RGB
[norm_type] 0
"""


def _modules_after(args: list[str], cwd) -> tuple[int, set[str]]:
    done = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, cwd=cwd,
                          timeout=120, env={**os.environ, "PYTHONPATH": ROOT})
    last = done.stderr.strip().splitlines()[-1]
    report = json.loads(last)
    return report["code"], set(report["modules"])


def _loaded(modules: set[str], names) -> list[str]:
    return [name for name in names if name in modules or any(m.startswith(name + ".") for m in modules)]


def test_importing_the_cli_loads_no_heavy_module(tmp_path):
    code = "import sys, nnie_lsp.cli.lint; print(' '.join(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=tmp_path,
                          env={**os.environ, "PYTHONPATH": ROOT})
    assert done.returncode == 0, done.stderr
    assert _loaded(set(done.stdout.split()), NEVER + ("nnie_lsp.readers.cfg.standalone_parser", "json")) == []


# a prototxt alone: no cfg side (reader, key table, preprocessing, the cfg rules), no triage
# findings, no mapper output readers, and nothing only --fix / --diff / a crash needs
PROTOTXT_ONLY_NEVER = ("nnie_lsp.readers.cfg", "nnie_lsp.project.cfg_files", "nnie_lsp.readers.mapper", "nnie_lsp.rules.config_rules",
                       "nnie_lsp.rules.input_rules", "nnie_lsp.rules.mean_scale_rules",
                       "nnie_lsp.rules.quantization", "nnie_lsp.rules.triage_common",
                       "nnie_lsp.core.atomic_write",
                       "logging", "difflib", "dataclasses", "inspect")


def test_linting_a_prototxt_loads_only_what_it_needs(tmp_path):
    (tmp_path / "one.prototxt").write_text(ONE_LAYER)
    code, modules = _modules_after(["one.prototxt"], tmp_path)
    assert code == 0
    assert _loaded(modules, NEVER + PROTOTXT_ONLY_NEVER) == []


def test_linting_a_cfg_reads_it_without_lark(tmp_path):
    (tmp_path / "one.prototxt").write_text(ONE_LAYER)
    (tmp_path / "one.cfg").write_text(CFG)
    code, modules = _modules_after(["--format", "json", "one.cfg"], tmp_path)
    assert code in (0, 1)
    # the cfg was parsed (nnie_lsp.readers.cfg.reader); its lines are all well formed, so the line parser
    # (the generated standalone parser) is not loaded at all (issue 18)
    assert "nnie_lsp.readers.cfg.reader" in modules and "nnie_lsp.readers.cfg.standalone_parser" not in modules
    assert _loaded(modules, NEVER) == []


# a cfg with its one-layer prototxt (issue 18: within 1.6x a bare `import text_format` process,
# benchmarks/bench_startup.py): the cfg side's records are nnie_lsp.core.records classes, not
# dataclasses (importing dataclasses loads inspect, ast, dis, tokenize: about 9 ms); nothing only
# --fix, --diff, a crash, hover docs, a mapper log or a dot file needs (json: the probe itself loads it)
CFG_PATH_NEVER = ("dataclasses", "inspect", "ast", "dis", "tokenize", "logging", "difflib",
                  "nnie_lsp.core.atomic_write", "nnie_lsp.rules.triage_common",
                  "nnie_lsp.readers.cfg.standalone_parser", "nnie_lsp.readers.mapper.log", "nnie_lsp.readers.mapper.nettree",
                  "nnie_lsp.readers.mapper.dot", "nnie_lsp.readers.prototxt.solver", "nnie_lsp.readers.prototxt.schema")

# what the probe reports besides the modules: records built by typing.NamedTuple (their string
# annotations compiled into ForwardRefs: about 0.2 ms a class) or by dataclasses among the classes
# of the nnie_lsp modules loaded, and whether the protobuf-text tokenizer's pattern was compiled
SLOW_RECORDS_PROBE = PROBE.replace("code = main()\n", """code = main()
import typing
slow = []
for name, module in sorted(sys.modules.items()):
    if name.startswith("nnie_lsp") and module is not None:
        for cls in vars(module).values():
            if isinstance(cls, type) and cls.__module__ == name:
                notes = getattr(cls, "__annotations__", {})
                if issubclass(cls, tuple) and any(isinstance(v, typing.ForwardRef) for v in notes.values()):
                    slow.append(name + "." + cls.__name__ + " (typing.NamedTuple)")
                if "__dataclass_params__" in vars(cls):
                    slow.append(name + "." + cls.__name__ + " (dataclass)")
tokenizer = sys.modules.get("nnie_lsp.readers.prototxt.tokenizer")
compiled = getattr(tokenizer, "_token_re", None)
print(json.dumps({"slow": slow, "tokenizer_compiled": bool(compiled and compiled.cache_info().currsize)}),
      file=sys.stderr)
""")


def _probe(args: list[str], cwd) -> tuple[set[str], dict]:
    done = subprocess.run([sys.executable, "-c", SLOW_RECORDS_PROBE, *args], capture_output=True, text=True,
                          cwd=cwd, timeout=120, env={**os.environ, "PYTHONPATH": ROOT})
    lines = done.stderr.strip().splitlines()
    assert len(lines) >= 2, done.stderr
    return set(json.loads(lines[-1])["modules"]), json.loads(lines[-2])


def test_linting_a_cfg_loads_only_what_it_needs(tmp_path):
    (tmp_path / "one.prototxt").write_text(ONE_LAYER)
    (tmp_path / "one.cfg").write_text(CFG)
    modules, report = _probe(["one.cfg"], tmp_path)
    assert "nnie_lsp.readers.cfg.preprocessing" in modules and "nnie_lsp.rules.config_rules" in modules  # the cfg side ran
    assert _loaded(modules, NEVER + CFG_PATH_NEVER) == []
    # every record class on the path is cheap to define (nnie_lsp.core.records)
    assert report["slow"] == []
    # a well-formed prototxt is read by the fast path: the general tokenizer's pattern (about
    # 0.8 ms to compile) is never compiled
    assert report["tokenizer_compiled"] is False


def test_linting_a_broken_prototxt_still_tokenizes_it(tmp_path):
    """The lazily compiled tokenizer pattern is used when the fast path gives up."""
    (tmp_path / "bad.prototxt").write_text(ONE_LAYER + "layer { name: \"x\" type: }\n")
    modules, report = _probe(["--format", "json", "bad.prototxt"], tmp_path)
    assert report["tokenizer_compiled"] is True


def test_a_pyproject_that_names_nnie_lint_is_read(tmp_path):
    (tmp_path / "one.prototxt").write_text(ONE_LAYER.replace('name: "conv"', 'name: "conv" # noqa'))
    (tmp_path / "pyproject.toml").write_text('[tool.nnie-lint]\nselect = ["NN001"]\n')
    code, modules = _modules_after(["one.prototxt"], tmp_path)
    assert code == 0 and "tomllib" in modules
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "other"\n')
    code, modules = _modules_after(["one.prototxt"], tmp_path)
    assert code == 0 and "tomllib" not in modules


def test_loading_every_rule_loads_no_numpy(tmp_path):
    """`--list-rules`, `--explain`, hover and docs load every rule module, the triage modules that
    register the T-codes among them: none may load numpy (nor the server, pygls or rich)."""
    code = ("import sys\nfrom nnie_lsp.core.catalogue import all_rules\nrules = all_rules()\n"
            "assert any(r.code.startswith('T') for r in rules) and any(r.code.startswith('NN') for r in rules)\n"
            "print(' '.join(sorted(sys.modules)))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=tmp_path,
                          env={**os.environ, "PYTHONPATH": ROOT})
    assert done.returncode == 0, done.stderr
    modules = set(done.stdout.split())
    assert "nnie_lsp.triage.diagnose.tree" in modules  # the T-codes were registered where they are emitted
    assert _loaded(modules, ("numpy", "rich", "nnie_lsp.server", "pygls")) == []


def test_explaining_a_triage_code_loads_no_numpy(tmp_path):
    code, modules = _modules_after(["--explain", "T102"], tmp_path)
    assert code == 0
    assert _loaded(modules, ("numpy", "rich", "nnie_lsp.server", "pygls")) == []
