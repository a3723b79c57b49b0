"""Command-line faces: nnie-lint (lint.py) and nnie-triage (triage.py)."""
