"""MkDocs hook: the pages that ship inside the package (nnie_lsp/docs/*.md) join the site as
reference/<name>.md, read where they are (never copied by hand, so there is one copy of each).

Why a hook and not a docs_dir arrangement: nnie_lsp/docs/ must stay inside the package (the code
reads rules.md and field-facts.md, the wheel ships them, `nnie-lint --explain` and the editor's
rule links point at them), and the site's own pages belong in docs/.  `File.generated` (MkDocs
1.6) adds each package page to the site under reference/ with its real path as the source, so
`mkdocs serve` rebuilds when it changes (mkdocs.yml watches the folder).

Pages in docs/ link the package pages by their path in the repository
(`../nnie_lsp/docs/field-facts.md#12-...`), which GitHub follows; on_page_markdown rewrites those
links to the page's place in the site, so both readings work and `--strict` checks every link.
"""

from __future__ import annotations

import os
import posixpath
import re
from pathlib import Path

from mkdocs.structure.files import File

ROOT = Path(__file__).resolve().parents[2]
PACKAGE_DOCS = ROOT / "nnie_lsp" / "docs"
SITE_FOLDER = "reference"
_LINK = re.compile(r"(\]\()([^)\s#]+\.md)(#[^)\s]*)?(\))")


def on_files(files, config):
    for path in sorted(PACKAGE_DOCS.glob("*.md")):
        files.append(File.generated(config, f"{SITE_FOLDER}/{path.name}", abs_src_path=str(path)))
    return files


def on_page_markdown(markdown, page, config, files):
    src = page.file.abs_src_path
    if not src:
        return markdown
    here = os.path.dirname(src)
    page_dir = posixpath.dirname(page.file.src_uri)

    def repl(m: re.Match) -> str:
        target = Path(os.path.normpath(os.path.join(here, m.group(2))))
        if target.parent != PACKAGE_DOCS:
            return m.group(0)
        site_path = posixpath.relpath(f"{SITE_FOLDER}/{target.name}", page_dir or ".")
        return f"{m.group(1)}{site_path}{m.group(3) or ''}{m.group(4)}"

    return _LINK.sub(repl, markdown)
