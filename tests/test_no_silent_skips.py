"""The suite fails when a test is skipped without a reason (the hook in tests/conftest.py): an inner
pytest run, with that very conftest, on tiny test files.  And the shared corpus the data-guarded
skips wait for is in the repository (tests/data/shared), complete."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

CONFTEST = Path(__file__).resolve().parent / "conftest.py"


@pytest.fixture
def inner(pytester: pytest.Pytester, monkeypatch):
    pytester.makeconftest(CONFTEST.read_text(encoding="utf-8"))
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")  # the installed plugins: not needed here

    def run(source: str) -> pytest.RunResult:
        pytester.makepyfile(test_tiny=source)
        return pytester.runpytest("-p", "no:cacheprovider")

    return run


def test_a_bare_skip_fails_the_run_and_is_named(inner):
    result = inner("""
        import pytest

        def test_passes():
            pass

        def test_bare():
            pytest.skip()

        @pytest.mark.skip
        def test_marked():
            pass

        def test_said_why():
            pytest.skip("npm not found")
        """)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.assert_outcomes(passed=1, skipped=3)
    out = result.stdout.str()
    assert "skipped without a reason" in out
    assert "SKIPPED WITHOUT A REASON test_tiny.py::test_bare (" in out
    assert "SKIPPED WITHOUT A REASON test_tiny.py::test_marked (" in out
    assert "test_said_why" not in out.split("skipped without a reason", 1)[1]
    assert "2 test(s) skipped without saying why" in out


def test_an_empty_reason_and_a_module_level_skip_are_silent_too(inner):
    result = inner("""
        import pytest

        pytest.skip("", allow_module_level=True)

        def test_never():
            pass
        """)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert "SKIPPED WITHOUT A REASON test_tiny.py" in result.stdout.str()


def test_skips_that_say_why_and_xfails_pass(inner):
    result = inner("""
        import pytest

        def test_needs_a_tool():
            pytest.skip("npm not found: the VS Code client checks are skipped")

        def test_needs_a_package():
            pytest.importorskip("a_package_that_is_not_installed_here")

        @pytest.mark.skipif(True, reason="the shared corpus is absent")
        def test_needs_data():
            pass

        @pytest.mark.xfail(reason="a known bug")
        def test_known_bug():
            assert False
        """)
    assert result.ret == pytest.ExitCode.OK
    result.assert_outcomes(skipped=3, xfailed=1)
    assert "skipped without a reason" not in result.stdout.str()


def test_a_failing_run_keeps_its_own_status(inner):
    result = inner("""
        import pytest

        def test_fails():
            assert False

        def test_bare():
            pytest.skip()
        """)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert "SKIPPED WITHOUT A REASON test_tiny.py::test_bare" in result.stdout.str()


# ------------------------------------------------------------------ the data those skips guard


def test_the_shared_copy_in_the_repository_is_complete():
    """The tests that read the shared corpus skip only when it is absent; the repository carries it
    (tests/data/shared), so in a checkout those skips cannot fire: every file they read is there,
    real content (not a Git LFS pointer), each model beside its licence, each file of corpus/real
    named in its SOURCES.md and every file SOURCES.md names present."""
    from nnie_lsp.testing.shared_files import IN_REPO

    models = IN_REPO / "corpus" / "models"
    needed = {"mtcnn": ["det1.prototxt", "det1.caffemodel", "det2.prototxt", "det2.caffemodel",
                        "det3.prototxt", "det3.caffemodel", "test1.jpg", "test2.jpg"],
              "yufacedetectnet-v1": ["yufacedetectnet-open-v1.prototxt", "yufacedetectnet-open-v1.caffemodel"]}
    for folder, names in needed.items():
        assert (models / folder / "LICENSE").is_file(), folder
        for name in names:
            head = (models / folder / name).read_bytes()[:64]
            assert head and not head.startswith(b"version https://git-lfs"), (folder, name)
    real = IN_REPO / "corpus" / "real"
    sources = (real / "SOURCES.md").read_text(encoding="utf-8")
    files = {p.name for p in real.iterdir() if p.is_file()} - {"SOURCES.md"}
    assert len(files) >= 20
    for name in files:
        assert name in sources, f"{name} is not in corpus/real/SOURCES.md"
    for name in set(re.findall(r"^\| `?([\w.-]+__[\w.-]+)`? \|", sources, re.M)):
        assert name in files, f"corpus/real/SOURCES.md names {name}, which is not there"
    for licence in set(re.findall(r"`(LICENSE[\w.-]*)`", sources)):
        assert (real / licence).is_file(), licence
    assert "## Licences" in sources and "none known" in sources
