"""The ``nnie-lint`` console entry (``nnie_lsp/cli/console.py``): it skips the interpreter's
teardown with ``os._exit`` after flushing, so check that nothing is lost by it -- the exit status,
every line of a large output through a pipe, a file written by ``--fix``, a reader that goes away,
a full disk -- and the lazily built ``caffe_pb2`` classes.  (The time saved is measured by
``benchmarks/bench_startup.py``, never here.)"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ENTRY = "import sys; from nnie_lsp.cli.console import nnie_lint; sys.exit(nnie_lint())"

NET = """name: "n"
input: "data"
input_shape { dim: 1 dim: 3 dim: 16 dim: 16 }
"""
# one in-place ReLU after a Concat per block: each gives an NN301 finding with a safe fix
BLOCK = """layer {{ name: "c{i}" type: "Concat" bottom: "data" bottom: "data" top: "c{i}" }}
layer {{ name: "r{i}" type: "ReLU" bottom: "c{i}" top: "c{i}" }}
"""


def _run(args, cwd, **kw):
    return subprocess.run([sys.executable, "-c", ENTRY, *args], cwd=cwd, capture_output=True, text=True,
                          timeout=120, env={**os.environ, "PYTHONPATH": ROOT}, **kw)


def _net(blocks: int) -> str:
    return NET + "".join(BLOCK.format(i=i) for i in range(blocks))


def test_exit_status_and_summary(tmp_path):
    (tmp_path / "ok.prototxt").write_text(NET)
    (tmp_path / "bad.prototxt").write_text(_net(1))
    done = _run(["ok.prototxt"], tmp_path)
    assert done.returncode == 0 and "no problems" in done.stderr
    done = _run(["bad.prototxt"], tmp_path)
    assert done.returncode == 1 and "NN301" in done.stdout and "1 file(s) checked" in done.stderr
    done = _run(["--no-such-flag"], tmp_path)
    assert done.returncode == 2 and "unrecognized arguments" in done.stderr


def test_a_large_output_through_a_pipe_is_complete(tmp_path):
    (tmp_path / "big.prototxt").write_text(_net(3000))
    done = _run(["--format", "json", "big.prototxt"], tmp_path)
    assert done.returncode == 1
    import json

    findings = json.loads(done.stdout)  # complete JSON: the buffered output was flushed
    assert sum(1 for f in findings if f["code"] == "NN301") == 3000


def test_fix_writes_the_whole_file(tmp_path):
    target = tmp_path / "big.prototxt"
    target.write_text(_net(500))
    done = _run(["--fix", "big.prototxt"], tmp_path)
    assert done.returncode in (0, 1), done.stderr
    fixed = target.read_text()
    assert fixed.count('type: "ReLU"') == 500 and fixed.rstrip().endswith("}")
    again = _run(["--select", "NN301", "big.prototxt"], tmp_path)
    assert again.returncode == 0, again.stdout[-500:]


def test_a_reader_that_goes_away_gets_no_traceback(tmp_path):
    (tmp_path / "big.prototxt").write_text(_net(3000))
    proc = subprocess.Popen([sys.executable, "-c", ENTRY, "big.prototxt"], cwd=tmp_path, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env={**os.environ, "PYTHONPATH": ROOT})
    proc.stdout.readline()
    proc.stdout.close()  # like `nnie-lint ... | head -1`
    _, err = proc.communicate(timeout=120)
    assert b"Traceback" not in err and b"internal error" not in err


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_a_full_disk_is_an_error_not_a_silent_success(tmp_path):
    (tmp_path / "big.prototxt").write_text(_net(3000))
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-c", ENTRY, "big.prototxt"], cwd=tmp_path, stdout=full,
                              stderr=subprocess.PIPE, text=True, timeout=120, env={**os.environ, "PYTHONPATH": ROOT})
    assert done.returncode == 2 and "Traceback" not in done.stderr and "No space left" in done.stderr
    assert "internal error" not in done.stderr and "please report" not in done.stderr  # not a bug of ours


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs resource limits (POSIX)")
def test_a_fix_the_system_refuses_to_write_is_reported_and_the_file_kept(tmp_path):
    """--fix whose write fails (here: RLIMIT_FSIZE, which binds root too) names the file and the
    system's reason, exits 2 without "internal error", and leaves the file as it was (atomic)."""
    import resource
    import signal

    target = tmp_path / "net.prototxt"
    original = _net(200)
    target.write_text(original)

    def small_files():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)   # a too-large write fails with EFBIG instead
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))

    done = subprocess.run([sys.executable, "-c", ENTRY, "--fix", "net.prototxt"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120, env={**os.environ, "PYTHONPATH": ROOT}, preexec_fn=small_files)
    assert done.returncode == 2, done.stderr
    assert "cannot write the fixes to " in done.stderr and "net.prototxt: File too large; the file is unchanged" in done.stderr
    assert "internal error" not in done.stderr and "Traceback" not in done.stderr
    assert target.read_text() == original
    assert [p.name for p in tmp_path.iterdir()] == ["net.prototxt"]  # no temporary file left beside it


def test_caffe_pb2_classes_are_built_on_first_use_and_are_protobufs_own():
    code = """
import sys
from google.protobuf.internal import api_implementation
from nnie_lsp.readers.prototxt import caffe_pb2 as pb
# nothing built at import (the pure-Python runtime gets protoc's eager build)
assert ("LayerParameter" in vars(pb)) == (api_implementation.Type() == "python")
net = pb.NetParameter()
layer = net.layer.add()
assert type(layer) is pb.LayerParameter and type(layer.convolution_param) is pb.ConvolutionParameter
assert pb.V1LayerParameter.LayerType.Name(4) == "CONVOLUTION" and pb.Phase.Name(pb.TEST) == "TEST"
assert pb.PoolingParameter.MAX == 0
try:
    pb.NoSuchMessage
except AttributeError:
    pass
else:
    raise SystemExit("no AttributeError")
print("ok")
"""
    for impl in ("upb", "python"):
        env = {**os.environ, "PYTHONPATH": ROOT, "PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION": impl}
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
        assert done.returncode == 0 and done.stdout.strip() == "ok", (impl, done.stderr[-800:])


def test_the_shipped_caffe_pb2_is_the_lazy_rewrite_of_protocs_output():
    import importlib.util

    spec = importlib.util.spec_from_file_location("gen_proto_lazy", os.path.join(ROOT, "scripts", "gen_proto.py"))
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    with open(os.path.join(ROOT, "nnie_lsp", "readers", "prototxt", "caffe_pb2.py"), encoding="utf-8") as fh:
        shipped = fh.read()
    assert gen.LAZY_MARK in shipped and gen.make_lazy(shipped) == shipped
