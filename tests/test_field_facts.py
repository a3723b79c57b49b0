"""Citations of the field-facts page resolve, and nothing cites notes that live outside the repository.

- every ``docs/field-facts.md §N`` / ``field-facts §N`` in ``nnie_lsp/``, ``README.md``, the docs
  site's pages ``docs/`` and ``vscode-client/src`` names a section (``## N.`` / ``### N.M``) of ``nnie_lsp/docs/field-facts.md``;
- every source tag ``[C, S13]``-style in ``nnie_lsp/`` names a source listed in its §15;
- no shipped file (``nnie_lsp/``, ``vscode-client/src``, ``scripts/``, ``README.md``, ``docs/``) mentions the
  engineers' private notes (their names below) or a ``shared/`` folder: a reader of the repository
  cannot open them.  Tests may read the shared corpus, so ``tests/`` is not scanned.
"""

from __future__ import annotations

import os
import re

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PAGE = os.path.join(ROOT, "nnie_lsp", "docs", "field-facts.md")

CITING = ("nnie_lsp", "README.md", "docs", os.path.join("vscode-client", "src"))
SHIPPED = ("nnie_lsp", os.path.join("vscode-client", "src"), "scripts", "README.md", "docs")
TEXT_SUFFIXES = (".py", ".md", ".ts", ".json", ".lark", ".proto", ".txt", ".toml", ".mjs", ".sh")
# Built from pieces so that this file does not itself contain the names it looks for.
OUTSIDE_NOTES = tuple(a + b for a, b in (
    ("NNIE_", "REFERENCE"), ("TRIAGE_", "ANCHORS"), ("LSP_", "NOTES"), ("TOOLCHAIN_", "NOTES")))
OUTSIDE_RE = re.compile("|".join(OUTSIDE_NOTES) + r"|(?<![\w.-])shared/")

_SECTION_HEADING = re.compile(r"^#{2,3} (\d+(?:\.\d+)?)\.? ", re.M)
_CITATION = re.compile(r"field-facts(?:\.md)?")
_ONE_SECTION = re.compile(
    r"[\s`'\"*]*(?:,|;|/|and|&)?\s*\(?§\s*(\d+(?:\.\d+)*)(?:\s*[-–]\s*§?\s*(\d+(?:\.\d+)*))?")
_SOURCE_TAG = re.compile(r"\[(?:C|C-u|I|\?)\b[^\]\n]*\]")
_SOURCE_ID = re.compile(r"\bS(\d+)(b?)\b")


def _page() -> str:
    with open(PAGE, encoding="utf-8") as fh:
        return fh.read()


def page_sections(text: str) -> set[str]:
    return set(_SECTION_HEADING.findall(text))


def page_sources(text: str) -> set[str]:
    return set(re.findall(r"^- \*\*(S\d+b?)\*\*", text, re.M)) | set(
        re.findall(r"\*\*(S\d+b)\*\*", text))


def cited_sections(text: str) -> list[tuple[int, str]]:
    """(line, section) for each ``field-facts[.md] §N[, §M][-K]`` citation in ``text``."""
    out = []
    for m in _CITATION.finditer(text):
        pos = m.end()
        while True:
            sm = _ONE_SECTION.match(text, pos)
            if not sm:
                break
            line = text.count("\n", 0, sm.start(1)) + 1
            out.append((line, sm.group(1)))
            if sm.group(2):
                out.append((line, sm.group(2)))
            pos = sm.end()
    return out


def _files(*roots: str):
    for root in roots:
        path = os.path.join(ROOT, root)
        if os.path.isfile(path):
            yield root, path
            continue
        for folder, dirs, names in os.walk(path):
            dirs[:] = [d for d in dirs if d not in ("__pycache__", "node_modules")]
            for name in sorted(names):
                if name.endswith(TEXT_SUFFIXES):
                    full = os.path.join(folder, name)
                    yield os.path.relpath(full, ROOT), full


def _read(path: str) -> str:
    with open(path, encoding="utf-8", errors="replace") as fh:
        return fh.read()


# ---------------------------------------------------------------- the page itself


def test_the_page_keeps_the_section_numbers_code_cites():
    sections = page_sections(_page())
    for number in range(1, 17):
        assert str(number) in sections, f"§{number} missing"
    for sub in ("3.1", "3.2", "3.3", "3.4", "5.1", "5.6", "7.1", "7.2", "7.3", "7.4", "7.5",
                "10.1", "10.2", "10.3", "10.4", "16.1", "16.2", "16.3", "16.4", "16.5"):
        assert sub in sections, f"§{sub} missing"


def test_the_page_explains_citations_and_status_tags():
    text = _page()
    assert "How code cites this page" in text
    for tag in ("[C]", "[C-u]", "[I]", "[?]"):
        assert f"**{tag}**" in text, tag
    assert "Decision" in text


def test_every_source_the_page_uses_is_in_its_bibliography():
    text = _page()
    listed = page_sources(text)
    assert {"S1", "S13", "S16", "S16b", "S19"} <= listed
    body = text.split("## 15. Sources", 1)[0]
    cited = 0
    for line_no, line in enumerate(body.splitlines(), 1):
        for bracket in re.finditer(r"\[[^\[\]\n]*\]", line):  # [C, S1, S3], [S14 owner/repo#3]
            for sm in _SOURCE_ID.finditer(bracket.group(0)):
                cited += 1
                assert "S" + sm.group(1) + sm.group(2) in listed, f"field-facts.md:{line_no}: {sm.group(0)}"
    assert cited > 100


# ---------------------------------------------------------------- the citation parser


@pytest.mark.parametrize("text, expected", [
    ("see docs/field-facts.md §3.3.", ["3.3"]),
    ("(docs/field-facts.md §3.3, §5) and more", ["3.3", "5"]),
    ("field-facts §7.2-7.5 and §15", ["7.2", "7.5", "15"]),
    ("docs/field-facts.md (§10.1)", ["10.1"]),
    ("``docs/field-facts.md`` §7.2-7.5 (sources: §15)", ["7.2", "7.5"]),
    ("field-facts.md §3 ([S1] = HiSVP Development Guide §3.5.2)", ["3"]),
    ("docs/field-facts.md lists them", []),
])
def test_citation_parser(text, expected):
    assert [section for _, section in cited_sections(text)] == expected


def test_a_missing_section_is_caught():
    sections = page_sections(_page())
    assert "99" not in sections and "3.9" not in sections
    assert [s for _, s in cited_sections("docs/field-facts.md §3.9")] == ["3.9"]


# ---------------------------------------------------------------- the repository


def test_every_field_facts_citation_names_an_existing_section():
    sections = page_sections(_page())
    bad = []
    for rel, path in _files(*CITING):
        if os.path.abspath(path) == os.path.abspath(PAGE):
            continue
        for line, section in cited_sections(_read(path)):
            if section not in sections:
                bad.append(f"{rel}:{line}: §{section}")
    assert not bad, "citations of sections that field-facts.md does not have:\n" + "\n".join(bad)


def test_source_tags_in_the_package_name_listed_sources():
    listed = page_sources(_page())
    bad = []
    for rel, path in _files("nnie_lsp"):
        text = _read(path)
        for tag in _SOURCE_TAG.finditer(text):
            for sm in _SOURCE_ID.finditer(tag.group(0)):
                if "S" + sm.group(1) + sm.group(2) not in listed:
                    line = text.count("\n", 0, tag.start()) + 1
                    bad.append(f"{rel}:{line}: {tag.group(0)}")
    assert not bad, "source tags not in field-facts.md §15:\n" + "\n".join(bad)


def test_no_shipped_file_cites_notes_outside_the_repository():
    bad = []
    for rel, path in _files(*SHIPPED):
        for line_no, line in enumerate(_read(path).splitlines(), 1):
            if OUTSIDE_RE.search(line):
                bad.append(f"{rel}:{line_no}: {line.strip()[:100]}")
    assert not bad, ("cite docs/field-facts.md §N instead of notes outside the repository:\n"
                     + "\n".join(bad))
