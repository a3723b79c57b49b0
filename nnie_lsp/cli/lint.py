"""`nnie-lint`: lint NNIE mapper cfg and Caffe prototxt files (translation layer only)."""

from __future__ import annotations

import argparse
import os
import sys

from nnie_lsp import __version__
from nnie_lsp.lint import InputError, lint
from nnie_lsp.lint.driver import counts, failing
from nnie_lsp.core.text import unified_diff
from nnie_lsp.cli.output import render_github, render_json, render_sarif, render_text, rules_table_markdown
from nnie_lsp.core.toml import toml_module
from nnie_lsp.project.settings import SOURCE_FRAMEWORKS, SettingsError, check_codes, normalize_lang, settings_from_mapping

# Start-up (a pre-commit hook pays it on every commit): tomllib, the mapper log reader, json,
# logging and the rule catalogue's listing are imported where they are used; rich is never
# imported.  Internal errors are printed by this face itself (``internal_errors``).


def _help_formatter(prog: str) -> argparse.HelpFormatter:
    """argparse's formatter with the terminal width found as ``shutil.get_terminal_size`` finds it
    (COLUMNS, the terminal, else 80) but without importing shutil for each of the 21 options argparse
    formats while the parser is built (start-up)."""
    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns
        except (AttributeError, ValueError, OSError):
            columns = 80
    return argparse.HelpFormatter(prog, width=max(columns, 40) - 2)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="nnie-lint", formatter_class=_help_formatter,
        description="Lint HiSilicon NNIE nnie_mapper .cfg files and their Caffe .prototxt before running the mapper.",
        epilog="What is linted: each file is told by its content (first 8 KB). A mapper cfg stands for its "
               "project: the cfg, the prototxt it names, its image lists and mean files, and the mapper output "
               "beside it (mapper_debug.log / mapper_error.log, cnn_net_tree.dot). A net (any extension) is linted "
               "with the cfg beside it that names it. Mapper logs and cnn_net_tree.dot given with a cfg are read as "
               "its mapper output. Solver files, RUNTIME.txt, dumps, image lists and other files are named on "
               "stderr and not linted. Exit status: 0 no errors or warnings, 1 findings, 2 usage or internal error.")
    p.add_argument("paths", nargs="*",
                   help="files or folders (folders: nets -- *.prototxt, and *.pt / *.pbtxt holding a net -- and "
                        "NNIE mapper *.cfg); '-' reads stdin")
    p.add_argument("--format", "--output-format", dest="format",
                   choices=("text", "json", "sarif", "github"), default=None,
                   help="output format (default: text; github when GITHUB_ACTIONS is set)")
    p.add_argument("--fix", action="store_true", help="apply safe fixes in place")
    p.add_argument("--unsafe-fixes", action="store_true", help="with --fix or --diff: also apply unsafe fixes")
    p.add_argument("--diff", action="store_true", help="print the fixes as a unified diff instead of writing them")
    p.add_argument("--select", help="comma-separated codes or prefixes to enable (replaces the default set)")
    p.add_argument("--extend-select", help="codes or prefixes to enable in addition (e.g. NN303)")
    p.add_argument("--ignore", help="codes or prefixes to disable")
    p.add_argument("--exit-zero", action="store_true", help="exit 0 even when there are findings")
    p.add_argument("--explain", metavar="CODE", help="print the documentation of a rule")
    p.add_argument("--list-rules", action="store_true", help="list all rules (text, json or markdown with --format)")
    p.add_argument("--stdin-filename", help="path to use for the text read from stdin ('-')")
    p.add_argument("--source-framework", choices=SOURCE_FRAMEWORKS,
                   help="framework the net was trained in (silences or forces NN108)")
    p.add_argument("--lang", choices=("en", "zh"), help="message language (default: en, or [tool.nnie-lint] lang)")
    p.add_argument("--config", metavar="PYPROJECT", help="use this pyproject.toml instead of the nearest one")
    p.add_argument("--mapper-log", metavar="FILE", action="append", default=[],
                   help="read this nnie_mapper log (mapper_error.log, mapper_debug.log or a saved console log) "
                        "instead of the mapper_debug.log / mapper_error.log beside the cfg; repeatable")
    p.add_argument("--onnx", metavar="MODEL",
                   help="the ONNX model the prototxt was converted from: check the conversion (NN5xx; "
                        "default: <prototxt name>.onnx beside it, or onnx in [tool.nnie-lint])")
    p.add_argument("--no-color", action="store_true", help="plain text output")
    p.add_argument("--force-exclude", action="store_true", help=argparse.SUPPRESS)  # pre-commit convention
    p.add_argument("--quiet", "-q", action="store_true", help="no summary line")
    p.add_argument("--version", action="version", version=f"nnie-lint {__version__}")
    return p


def _split(v: str | None, option: str):
    """The codes of a --select/--ignore/--extend-select value, each checked (SettingsError with a
    did-you-mean for one that names no rule)."""
    if v is None:
        return None
    return check_codes((x.strip().upper() for x in v.replace(" ", ",").split(",") if x.strip()), option)


def _config_settings(path: str):
    """Settings from `--config PYPROJECT` ([tool.nnie-lint]); a bad file is a SettingsError."""
    if not os.path.isfile(path):
        raise SettingsError(f"{path}: no such file")
    tomllib = toml_module()  # tomli on Python 3.10
    try:
        with open(path, "rb") as fh:
            data = tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:  # the message ends with "(at line L, column C)"
        raise SettingsError(f"{path}: not valid TOML: {exc}") from None
    except OSError as exc:
        raise SettingsError(f"{path}: cannot read: {exc.strerror or exc}") from None
    tool = data.get("tool", {})
    table = tool.get("nnie-lint", {}) if isinstance(tool, dict) else None
    if not isinstance(table, dict):
        raise SettingsError(f"{path}: [tool.nnie-lint] must be a table")
    return settings_from_mapping(table, origin=path)


def main(argv: list[str] | None = None) -> int:
    try:
        return _main(argv)
    except KeyboardInterrupt:
        print("nnie-lint: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader of the output went away (`nnie-lint . | head`): nothing to say
        return 1
    except OSError as exc:  # the system refused a write (full disk, no permission): not a bug of ours
        if os.environ.get("NNIE_DEBUG"):
            raise
        where = exc.filename if exc.filename else "cannot write the output"
        print(f"nnie-lint: {where}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # a bug: one clear line (the traceback with NNIE_DEBUG=1)
        if os.environ.get("NNIE_DEBUG"):
            raise
        print(f"nnie-lint: internal error: {type(exc).__name__}: {exc} "
              "(please report it; NNIE_DEBUG=1 shows the traceback)", file=sys.stderr)
        return 2


def _main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    out = sys.stdout
    fmt = args.format or ("github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text")
    lang = normalize_lang(args.lang) if args.lang else None

    if args.explain or args.list_rules:
        from nnie_lsp.core.catalogue import all_rules, get_rule
    if args.explain:
        r = get_rule(args.explain)
        if r is None:
            print(f"nnie-lint: unknown rule code {args.explain!r} (see --list-rules)", file=sys.stderr)
            return 2
        out.write(r.explain(lang or "en"))
        return 0
    if args.list_rules:
        if fmt == "json":
            import json
            out.write(json.dumps([{"code": r.code, "name": r.name, "severity": r.severity.label,
                                   "default_enabled": r.default_enabled, "fix": r.fix, "summary": r.summary[0],
                                   "summary_zh": r.summary[1], "step": r.step} for r in all_rules()],
                                 ensure_ascii=False, indent=2) + "\n")
        else:
            out.write(rules_table_markdown(lang or "en"))
        return 0
    if not args.paths:
        parser.print_usage(sys.stderr)
        print("nnie-lint: give files or folders to lint (or --list-rules / --explain CODE)", file=sys.stderr)
        return 2

    try:
        base = None
        if args.config:
            base = _config_settings(args.config)
        overrides = {"select": _split(args.select, "--select"), "ignore": _split(args.ignore, "--ignore"),
                     "extend_select": _split(args.extend_select, "--extend-select"),
                     "source_framework": args.source_framework,
                     "lang": lang, "onnx": os.path.abspath(args.onnx) if args.onnx else None}
        if args.onnx and not os.path.isfile(args.onnx):
            raise InputError(f"--onnx {args.onnx}: no such file")
        paths = list(args.paths)
        stdin = None
        if "-" in paths:
            if args.fix:
                raise InputError("--fix cannot write to stdin; use --diff")
            name = args.stdin_filename or "stdin.prototxt"
            from nnie_lsp.core.safe_io import FileReadError, read_stream

            try:   # the bound and message of a file of that name (safe_io)
                stdin = (name, read_stream(sys.stdin.buffer, name))
            except FileReadError as exc:
                raise InputError(f"{name} (stdin): not linted: {exc.problem.describe()}") from None
            paths = [p for p in paths if p != "-"]
        res = lint(paths, settings=base, overrides=overrides, lang=lang, mapper_logs=args.mapper_log,
                   fix=args.fix or args.diff, unsafe_fixes=args.unsafe_fixes, stdin=stdin,
                   on_note=lambda note: print(f"nnie-lint: {note}", file=sys.stderr))
        files, mapper_logs, provider = res.files, res.mapper_logs, res.provider
        stdin_path = os.path.abspath(stdin[0]) if stdin else None
        refused = _say_refused(res)
        if not files and not mapper_logs and not getattr(res, "wk_files", None):
            if not refused:
                print("nnie-lint: no NNIE cfg or prototxt files found", file=sys.stderr)
            if fmt in ("json", "sarif"):  # machine output stays a valid (empty) document
                out.write(render_json([]) if fmt == "json" else render_sarif([]))
            return 2 if refused else 0
    except (InputError, SettingsError) as exc:
        print(f"nnie-lint: {exc}", file=sys.stderr)
        return 2

    if args.diff:
        for path, (old, new) in sorted(res.fixed.items()):
            out.write(unified_diff(path, old, new))
    not_written = 0
    fixed_count = res.applied
    if args.fix and not args.diff:  # --diff shows the fixes instead of writing them
        from nnie_lsp.lint.fix_writes import write_with_retry

        def relint(with_fixes: bool):
            return lint(paths, settings=base, overrides=overrides, lang=lang, mapper_logs=args.mapper_log,
                        fix=with_fixes, unsafe_fixes=args.unsafe_fixes)

        try:
            outcome = write_with_retry(res, relint, skip=[stdin_path] if stdin_path else [])
        except (InputError, SettingsError) as exc:   # a file given was removed or broken meanwhile
            print(f"nnie-lint: {exc}", file=sys.stderr)
            return 2
        for message in outcome.messages:
            print(f"nnie-lint: {message}", file=sys.stderr)
        not_written = len(outcome.report.not_written)
        fixed_count = outcome.report.fixes_written
        res = outcome.run   # findings of the text on disk now
    diags = res.diagnostics
    if fmt == "json":
        out.write(render_json(diags))
    elif fmt == "sarif":
        out.write(render_sarif(diags))
    elif fmt == "github":
        out.write(render_github(diags))
    elif not args.diff:
        color = not args.no_color and out.isatty() and not os.environ.get("NO_COLOR")
        out.write(render_text(diags, color=color))
        if not args.quiet:
            c = counts(diags)
            fixable = sum(1 for d in diags if d.fix is not None and d.fix.is_safe)
            parts = [f"{n} {k}{'s' if n != 1 else ''}" for k, n in c.items() if n]
            summary = ", ".join(parts) if parts else "no problems"
            extra = f"; {fixable} fixable with --fix" if fixable and not args.fix else ""
            fixed = f"; fixed {fixed_count}" if args.fix and fixed_count else ""
            logs = f" and {len(mapper_logs)} mapper log(s)" if mapper_logs else ""
            wks = len(getattr(res, "wk_files", ()))
            named = len(getattr(res, "checked", files)) - len(files)
            more = f" (and {named} file(s) their cfgs name)" if named > 0 else ""
            checked = f"{len(files)} file(s){logs}" if files or not wks else ""
            if wks:
                checked += (" and " if checked else "") + f"{wks} .wk file(s)"
            print(f"{checked} checked{more}: {summary}{extra}{fixed}.", file=sys.stderr)
    for e in res.internal_errors:
        print(f"nnie-lint: internal error (reported as NN000): {e}", file=sys.stderr)
    if not_written or refused:  # a file the user named is linted or is an error, never skipped
        return 2
    if args.exit_zero:
        return 0
    if args.diff and res.fixed:
        return 1
    return 1 if failing(diags) else 0


def _say_refused(res) -> list[str]:
    """Say each file named on the command line that could not be linted (exit status 2)."""
    refused = list(getattr(res, "refused", ()))
    for note in refused:
        print(f"nnie-lint: error: {note}", file=sys.stderr)
    return refused


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
