"""Regenerate the rule docs from the registry: the README rule table and nnie_lsp/docs/rules.md.

    python scripts/gen_docs.py          # write
    python scripts/gen_docs.py --check  # exit 1 if anything is out of date (used by the tests)
"""

from __future__ import annotations

import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from nnie_lsp.output import RULES_DOC, rules_reference_markdown, rules_table_markdown  # noqa: E402

README = os.path.join(ROOT, "README.md")
BEGIN, END = "<!-- rules:begin -->", "<!-- rules:end -->"


def readme_text(current: str) -> str:
    table = rules_table_markdown()
    pattern = re.compile(re.escape(BEGIN) + r".*?" + re.escape(END), re.S)
    if not pattern.search(current):
        raise SystemExit(f"README.md lacks the {BEGIN} … {END} markers")
    return pattern.sub(lambda m: f"{BEGIN}\n{table}{END}", current)


def main(argv: list[str]) -> int:
    check = "--check" in argv
    stale = []
    with open(README, encoding="utf-8") as fh:
        cur = fh.read()
    new = readme_text(cur)
    if new != cur:
        stale.append("README.md")
        if not check:
            with open(README, "w", encoding="utf-8") as fh:
                fh.write(new)
    ref = rules_reference_markdown()
    old = open(RULES_DOC, encoding="utf-8").read() if os.path.exists(RULES_DOC) else ""
    if ref != old:
        stale.append(os.path.relpath(RULES_DOC, ROOT))
        if not check:
            os.makedirs(os.path.dirname(RULES_DOC), exist_ok=True)
            with open(RULES_DOC, "w", encoding="utf-8") as fh:
                fh.write(ref)
    if check and stale:
        print("out of date (run `python scripts/gen_docs.py`): " + ", ".join(stale))
        return 1
    if not check:
        print("written: " + (", ".join(stale) or "nothing changed"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
