"""nnie-triage command line.

  nnie-triage compare --reference DIR --sim DIR [--sim-16bit DIR] [--framework DIR] [--board DIR [--board DIR]]
                      [--wk FILE] [--cfg FILE] [--prototxt FILE]
                      [--dot FILE] [--format text|json|markdown] [--html FILE]
                      [--postprocess module:function] [--output FILE] [--threshold KEY=VALUE]
                      [--lang en|zh] [--regenerate] [--no-hp-plan] [--progress auto|json|none]
  nnie-triage bundle --layer NAME [--cfg F] [--reference DIR --sim DIR] [--prototxt F] [--caffemodel F]
                     [--mapper-log F] [--image F ...] [--mean-file F] [-o ZIP]   (nnie_lsp/cli/triage_bundle.py)
  nnie-triage reference --cfg F [--images N|all] [-o DIR] [--prototxt F] [--caffemodel F] [--image F ...]
                        [--norm-type N --mean V,V,V|FILE --data-scale S --rgb-order RGB|BGR]
                        [--transpose] [--input-shape N,C,H,W] [--onnx MODEL] [--dump-format compact|text]
  nnie-triage emulate --cfg F [--images N|all] [-o DIR] [--prototxt F] [--caffemodel F] [--image F ...]
                      [--format mapper_quant|inst] [--bits 8|16] [--hp LAYER ...] [--input-dumps]
  nnie-triage hp-plan --cfg F [--target COS] [--budget N] [--images N|all] [--format text|json]
                      [--sim DIR [--sim-16bit DIR]]   (nnie_lsp/cli/triage_hp_plan.py)
  nnie-triage wk FILE.wk|--cfg F [--format text|json] [--records] [--batch N]   (nnie_lsp/cli/triage_wk.py;
                      exit 1 for a damaged .wk)
  nnie-triage wk FILE.wk --board-contract [--format text|json|c] [-o FILE]   (nnie_lsp/cli/triage_board_contract.py)
  nnie-triage card --cfg F [--write] [--format text|json]   (nnie_lsp/cli/triage_card.py: a draft model card)

reference/emulate take the prototxt, caffemodel, preprocessing and image list from the cfg; options
override it. Output: -o/--output, else output/ (reference), output_onnx/ (reference --onnx: the ONNX
model the net was converted from, run with ONNX Runtime on the same input, dumps named by the Caffe
blobs, nnie_lsp/reference/onnx_dumps.py) or mapper_quant_emulated/ (emulate) beside the cfg; with --images N > 1 one sub-folder per image (nnie_lsp/triage/inputs/image_sets.py).

compare runs the one triage entry, nnie_lsp.triage.pipeline (inputs found once, then align, measure,
diagnose).  --progress (compare, reference, emulate, hp-plan): auto = a bar when stderr is a
terminal; json = one JSON object per line on stderr (nnie_lsp/docs/triage-schema.md, "Progress");
none = nothing.

Exit codes: 0 analysed (whatever the case), 2 bad input (clear message, no traceback) or an
internal error (a bug: one line asking to report it; NNIE_DEBUG=1 shows the traceback).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from nnie_lsp.cli.triage_bundle import add_parser as add_bundle_parser, cmd_bundle
from nnie_lsp.cli.triage_card import add_parser as add_card_parser, cmd_card
from nnie_lsp.cli.triage_hp_plan import add_parser as add_hp_plan_parser, cmd_hp_plan
from nnie_lsp.cli.triage_wk import add_parser as add_wk_parser, cmd_wk

EXIT_OK = 0
EXIT_BAD_INPUT = 2
#: Progress (percent): the inputs found; the result computed (the report is written after it).
INPUTS_SHARE, RESULT_AT = 2.0, 97.0
#: With --regenerate: the emulation made again (then the comparison up to RESULT_AT).
REGENERATED_AT = 60.0


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # argparse exits 2 too; keep one message style
        self.print_usage(sys.stderr)
        print(f"nnie-triage: error: {message}", file=sys.stderr)
        raise SystemExit(EXIT_BAD_INPUT)


def _image_count(text: str) -> int | None:
    if text.strip().lower() == "all":
        return None
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: a number of images or 'all'") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: at least 1 image")
    return value


#: The stages each command reports with --progress (nnie_lsp/docs/triage-schema.md, "Progress").
PROGRESS_STAGES = {
    "compare": "inputs, regenerate (with --regenerate), align, measure, diagnose (several images: 'image K/N'), "
               "then in case 2 the `_hp` plan (hp-plan's load, check, rank, 'hp layer K'), report",
    "reference": "inputs, load, forward (done/total: images)",
    "emulate": "inputs, load, forward, write (done/total: images)",
    "hp-plan": "inputs, load, check (with --sim), rank, 'hp layer K' (the K-th pick), report",
}


def _add_progress_arg(p: argparse.ArgumentParser, command: str) -> None:
    p.add_argument("--progress", choices=["auto", "json", "none"], default="auto",
                   help="auto (default): a progress bar when stderr is a terminal; json: one line per step on "
                   'stderr, {"stage": …, "done": N, "total": N, "percent": 0-100 overall, never decreasing}; '
                   f"none. Stages: {PROGRESS_STAGES[command]}")


def _progress(args):
    from nnie_lsp.triage.progress import open_progress

    return open_progress(args.progress)


def _add_images_arg(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument("--images", type=_image_count, default=1, metavar="N|all",
                   help=f"{what} the last N images of the cfg's image_list (default 1: the last, the one the "
                   "mapper dumps; per-layer cosine then reported as min and median over the images)")


def _add_prep_args(p: argparse.ArgumentParser, default_output: str) -> None:
    p.add_argument("--cfg", help="the mapper cfg: prototxt, caffemodel, preprocessing and image_list come from it")
    p.add_argument("--prototxt", help="override the cfg's [prototxt_file]")
    p.add_argument("--caffemodel", help="override the cfg's [caffemodel_file]")
    p.add_argument("--image", action="append", default=[], help="input image (one per network input) instead "
                   "of the cfg's image_list")
    _add_images_arg(p, "run")
    p.add_argument("--norm-type", type=int, choices=range(6))
    p.add_argument("--mean", help="channel means 'v,v,v' or a mean file")
    p.add_argument("--data-scale", type=float)
    p.add_argument("--rgb-order", choices=["RGB", "BGR"])
    p.add_argument("--transpose", action=argparse.BooleanOptionalAction, default=None,
                   help="swap H and W (MATLAB-trained nets such as MTCNN)" + (
                       "; default: the model card's transpose, else not" if default_output == "output" else
                       "; the mapper is fed the images as the image list holds them: give it when they are "
                       "transposed"))
    p.add_argument("--input-shape", help="override the first input's shape, e.g. 1,3,48,48")
    p.add_argument("-o", "--output", "--out", dest="output",
                   help=f"output folder (default: {default_output}/ beside the cfg" + (", _16bit with --bits 16)" if default_output.endswith("emulated") else ")"))


def build_parser() -> argparse.ArgumentParser:
    ap = _Parser(prog="nnie-triage", description="Per-layer similarity triage of NNIE dumps against Caffe, "
                 "with a diagnosis (guide cases 1-4) and the concrete fix.")
    sub = ap.add_subparsers(dest="cmd", required=True, parser_class=_Parser)
    c = sub.add_parser("compare", help="compare Caffe dumps with NNIE dumps and diagnose")
    c.add_argument("--reference", help="Caffe-side dump folder (RuyiStudio, npy, ...); default: output/ beside --cfg")
    c.add_argument("--sim", help="NNIE-side dump folder (mapper_quant, inst, ...); default: mapper_quant/ beside --cfg")
    c.add_argument("--sim-16bit", help="a second NNIE run at compile_mode 1 (confirms/rejects quantization)")
    c.add_argument("--framework", metavar="DIR", help="the dumps of the ONNX model the Caffe net was converted from "
                   "(`reference --onnx`): both hops ONNX → Caffe and Caffe → NNIE are reported, and a Caffe net that "
                   "already differs from ONNX is named as the stage that lost the accuracy (conversion, T501)")
    c.add_argument("--board", action="append", metavar="DIR",
                   help="the board program's own dumps (one file per output node: <name>.bin = the blob memory, "
                   "<name>.txt = one value per line; nnie_lsp/docs/board-dumps.md): the board checks (row stride, the "
                   "4096 scale, HWC/CHW, channel order, which output, repeatability) before the board is compared "
                   "with the simulator and Caffe (the stage board); twice (or sub-folders): two runs of one input; "
                   "default: board/ beside --cfg")
    c.add_argument("--wk", metavar="FILE", help="the .wk the board runs (default: the cfg's [instruction_name].wk "
                   "beside the cfg); its strides and outputs read the board's dumps")
    c.add_argument("--cfg")
    c.add_argument("--prototxt")
    c.add_argument("--dot", help="cnn_net_tree.dot written by the mapper")
    c.add_argument("--format", choices=["text", "json", "markdown"], default="text")
    c.add_argument("--html", help="also write a self-contained HTML report")
    c.add_argument("--postprocess", help="module:function run on both final outputs (case 4)")
    c.add_argument("--output", help="write the --format output to this file instead of stdout")
    c.add_argument("--threshold", action="append", default=[], metavar="KEY=VALUE",
                   help="override a threshold (" + ", ".join(_threshold_names()) + ")")
    c.add_argument("--lang", choices=["en", "zh"], default="en", help="language of the findings' messages")
    c.add_argument("--images", type=_image_count, default=None, metavar="N|all",
                   help="compare the last N images the dump folders hold (written by reference/emulate --images; "
                   "default all): per-layer cosine as min and median over the images")
    c.add_argument("--clips", help="an emulated dump folder (nnie-triage emulate) whose clips decode 8-bit "
                   "…_quant.nonlinear.hex input dumps that have no dequantized twin")
    c.add_argument("--previous", default="auto", metavar="FILE|auto|none",
                   help="the earlier result of this cfg: a `compare --format json` output, or the record stored "
                   "beside the cfg (.nnie-triage/<cfg stem>.json, written by every compare --cfg and by the editor; "
                   "default auto: that one when it exists): the fixes applied since, and made again in the dumps, "
                   "are listed as confirmed fixed")
    c.add_argument("--no-record", action="store_true",
                   help="do not write the result beside the cfg (.nnie-triage/<cfg stem>.json and its reports, "
                   "the record the next compare and the editor read)")
    c.add_argument("--no-hp-plan", action="store_true",
                   help="in case 2, do not plan the `_hp` layers (the plan is `nnie-triage hp-plan` on the same cfg "
                   "and dumps: seconds to minutes of emulation; T207 then says how to make it)")
    c.add_argument("--regenerate", action="store_true",
                   help="first re-emulate the NNIE side with the cfg as it is now, into the same folder (only a "
                   "folder `nnie-triage emulate` wrote; for nnie_mapper's dumps re-run the mapper)")
    _add_progress_arg(c, "compare")
    add_bundle_parser(sub)
    r = sub.add_parser("reference", help="Caffe-side dumps of the cfg's net and images (OpenCV, no Caffe)")
    _add_prep_args(r, _layout().CAFFE_OUTPUT_DIR)
    r.add_argument("--onnx", metavar="MODEL", help="instead of the Caffe net: the ONNX model it was converted from, "
                   "run with ONNX Runtime on the same preprocessed input, every tensor that stands for a Caffe blob "
                   "dumped under the blob's name (default output: output_onnx/ beside the cfg; for compare "
                   "--framework)")
    r.add_argument("--dump-format", choices=["compact", "text"], default=None,
                   help="compact (default): RuyiStudio's file names ending .npz, float32 values, exact and about a "
                   "tenth of the bytes; text: RuyiStudio's own %%.18e text (.float), for tools that read only that "
                   "(nnie_lsp/docs/triage-schema.md, 'Caffe dump forms')")
    _add_progress_arg(r, "reference")
    e = sub.add_parser("emulate", help="simulated NNIE dumps (numpy NNIE quantization emulation)")
    _add_prep_args(e, _layout().EMULATED_DIR)
    e.add_argument("--format", choices=["mapper_quant", "inst"], default="mapper_quant")
    e.add_argument("--bits", type=int, choices=[8, 16], default=None,
                   help="override the cfg's [compile_mode] (0: 8 bit; 1: 16 bit; 2: 8 bit with the `_hp` layers at "
                   "16 bit), and say so")
    e.add_argument("--hp", action="append", default=[], help="also run this layer at 16 bit, whatever the "
                   "compile_mode (a what-if; a `_hp` name counts only under [compile_mode] 2, as for the mapper)")
    e.add_argument("--input-dumps", action="store_true", help="also write each layer's quantized input as the "
                   "mapper does (…_quant.nonlinear.hex codes and the …_anti_quant.float twin)")
    _add_progress_arg(e, "emulate")
    _add_progress_arg(add_hp_plan_parser(sub, _add_images_arg), "hp-plan")
    add_wk_parser(sub)
    add_card_parser(sub)
    return ap


def _layout():
    from nnie_lsp.triage.inputs import folder_names as layout

    return layout


def _run_options(args, command: str):
    """The options that shape a reference or emulation run (recorded in its manifest)."""
    from nnie_lsp.triage.inputs.run_options import RunOptions

    extra = {}
    if command == "emulate":
        extra = dict(bits=args.bits, hp=tuple(args.hp), format=args.format, input_dumps=bool(args.input_dumps))
    else:
        extra = dict(onnx=args.onnx, dump_format=args.dump_format)
    return RunOptions(command=command, cfg=args.cfg, prototxt=args.prototxt, caffemodel=args.caffemodel,
                      image=tuple(args.image), images=args.images, norm_type=args.norm_type, mean=args.mean,
                      data_scale=args.data_scale, rgb_order=args.rgb_order, transpose=args.transpose,
                      input_shape=_shape(args.input_shape), **extra)


#: Said after a reference whose preprocessing took a value from the cfg under test (T100 in compare).
FROM_CFG_NOTE = ("the {values} of these dumps came from the cfg under test (no model card declares them): a "
                 "mistake in {them} cannot show when the NNIE side is compared with them; declare how the net "
                 "was trained in nnie.toml (channel_order, mean, scale, transpose) and make the reference again")


def _output_folder(args, default_name: str) -> Path:
    if args.output:
        return Path(args.output)
    if not args.cfg:
        raise ValueError("give -o/--output (or --cfg: the output then goes beside it)")
    return Path(args.cfg).resolve().parent / default_name


def _say_written(report, what: str) -> None:
    where = report.folder
    if len(report.image_folders) > 1:
        names = ", ".join(f.name for f in report.image_folders[:4]) + (" …" if len(report.image_folders) > 4 else "")
        print(f"wrote {what} for {len(report.image_folders)} images to {where}/ (one folder per image: {names}; "
              f"the last is the image the mapper dumps)")
    else:
        print(f"wrote {what} to {where}/")
    for note in report.notes:
        print(f"note: {note}")


def _shape(text: str | None):
    if not text:
        return None
    try:
        return tuple(int(v) for v in text.replace("x", ",").split(","))
    except ValueError:
        raise ValueError(f"--input-shape {text!r}: expected N,C,H,W")


def cmd_reference(args) -> int:
    from nnie_lsp.triage.inputs.dump_runs import write_reference_run

    options = _run_options(args, "reference")
    with _progress(args) as progress:
        progress.part(0, INPUTS_SHARE).step("inputs", 0, 1)
        inputs = options.load_inputs()
        progress.part(0, INPUTS_SHARE).step("inputs", 1, 1)
        if args.onnx:
            from nnie_lsp.triage.inputs.dump_runs import write_onnx_reference_run
            from nnie_lsp.triage.inputs.folder_names import ONNX_OUTPUT_DIR as FRAMEWORK_OUTPUT_DIR

            out = _output_folder(args, FRAMEWORK_OUTPUT_DIR)
            report = write_onnx_reference_run(inputs, args.onnx, out, options.input_shape,
                                              progress=progress.part(INPUTS_SHARE, 100), run_options=options)
        else:
            out = _output_folder(args, _layout().CAFFE_OUTPUT_DIR)
            report = write_reference_run(inputs, out, options.input_shape, progress=progress.part(INPUTS_SHARE, 100),
                                         run_options=options)
    what = "ONNX (ONNX Runtime)" if args.onnx else "Caffe"
    sources = f"; {inputs.describe_sources}" if inputs.describe_sources else ""
    _say_written(report, f"{len(report.files)} {what} dumps ({inputs.describe_preprocessing}{sources})")
    from_cfg = [w.replace("_", " ") for w in inputs.from_cfg]
    if from_cfg:
        values = from_cfg[0] if len(from_cfg) == 1 else ", ".join(from_cfg[:-1]) + " and " + from_cfg[-1]
        print("warning: " + FROM_CFG_NOTE.format(values=values, them="it" if len(from_cfg) == 1 else "them"),
              file=sys.stderr)
    return EXIT_OK


def cmd_emulate(args) -> int:
    from nnie_lsp.triage.inputs.beside_cfg import EMULATED_16BIT_DIR
    from nnie_lsp.triage.inputs.dump_runs import write_emulation_run
    from nnie_lsp.triage.inputs.run_options import emulation_settings

    options = _run_options(args, "emulate")
    with _progress(args) as progress:
        progress.part(0, INPUTS_SHARE).step("inputs", 0, 1)
        inputs = options.load_inputs()
        progress.part(0, INPUTS_SHARE).step("inputs", 1, 1)
        emulation, precision = emulation_settings(options, inputs.compile_mode)
        # a --bits 16 run beside a cfg that is not all 16-bit goes apart (the cfg's own run stays)
        sixteen_apart = args.bits == 16 and inputs.compile_mode != 1
        out = _output_folder(args, EMULATED_16BIT_DIR if sixteen_apart else _layout().EMULATED_DIR)
        report = write_emulation_run(inputs, out, emulation, args.format, options.input_shape,
                                     progress=progress.part(INPUTS_SHARE, 100), run_options=options,
                                     precision=precision)
    bits = "16-bit" if precision.bits == 16 else ("8/16-bit" if report.sixteen_bit else "8-bit")
    _say_written(report, f"{len(report.files)} simulated {bits} NNIE dumps ({args.format})")
    if report.skipped:
        names = ", ".join(n for n, _ in report.skipped[:6]) + (" …" if len(report.skipped) > 6 else "")
        print(f"not emulated: {len(report.skipped)} CPU-side layer(s) after the NNIE segment ({names}); "
              f"e.g. {report.skipped[0][0]}: {report.skipped[0][1]}")
    return EXIT_OK


def _threshold_names() -> list[str]:
    from dataclasses import fields

    from nnie_lsp.triage.measure.metrics import Thresholds

    return [f.name for f in fields(Thresholds)]


def _thresholds(items: list[str]):
    from nnie_lsp.triage.pipeline import thresholds_from

    mapping = {}
    for it in items:
        if "=" not in it:
            raise ValueError(f"--threshold {it!r}: expected KEY=VALUE")
        k, v = it.split("=", 1)
        mapping[k.strip()] = v.strip()
    return thresholds_from(mapping, label="--threshold")


def cmd_compare(args) -> int:
    from dataclasses import replace

    from nnie_lsp.triage import pipeline

    request = pipeline.TriageRequest(reference=args.reference, sim=args.sim, sim16=args.sim_16bit, cfg=args.cfg,
                                     prototxt=args.prototxt, dot=args.dot, images=args.images, clips=args.clips,
                                     postprocess=args.postprocess, lang=args.lang, framework=args.framework,
                                     board=tuple(args.board) if args.board else None, wk=args.wk,
                                     plan=not args.no_hp_plan)
    with _progress(args) as progress:
        # the inputs first (what was found is said before any option is read), then the comparison
        request = pipeline.find_inputs(request, log=sys.stderr, progress=progress.part(0, INPUTS_SHARE))
        request = replace(request, thresholds=_thresholds(args.threshold))
        earlier = pipeline.earlier_result(request, None if args.previous == "none" else args.previous)
        request = replace(request, earlier=earlier)
        start = INPUTS_SHARE
        if args.regenerate:
            run = pipeline.regenerate(request, progress=progress.part(INPUTS_SHARE, REGENERATED_AT))
            print(f"regenerated the emulation in {run.folder}/ with the current cfg ({len(run.files)} dumps)",
                  file=sys.stderr)
            for note in run.notes:
                print(f"note: {note}", file=sys.stderr)
            start = REGENERATED_AT
        result = pipeline.triage(request, progress=progress.part(start, RESULT_AT))
        progress.step("report", 0, 1)   # the terminal bar ends here: the report may go to the terminal
        doc = result.to_json()
        doc.update(pipeline.follow_up(request, doc, earlier))
        _write_report(args, doc)
        if not args.no_record and request.cfg is not None:
            try:
                where = pipeline.save_record(request, doc)
            except OSError as exc:   # the report is written; the record is a convenience, said so
                print(f"nnie-triage: note: the result was not stored beside the cfg: {exc}", file=sys.stderr)
            else:
                if where:
                    print(f"nnie-triage: result stored in {os.path.relpath(where)} (--previous auto reads it; "
                          "--no-record writes none)", file=sys.stderr)
        progress.step("report", 1, 1)
    return EXIT_OK


def _write_report(args, doc: dict) -> None:
    from nnie_lsp.triage.report import render as report

    if args.format == "json":
        text = report.to_json_text(doc) + "\n"
    elif args.format == "markdown":
        text = report.render_markdown(doc)
    else:
        text = None
    if args.output:
        if text is None:
            text = report.render_text(doc)
        Path(args.output).write_text(text, encoding="utf-8")
    elif text is not None:
        sys.stdout.write(text)
    else:
        report.render_terminal(doc)
    if args.html:
        Path(args.html).write_text(report.render_html(doc), encoding="utf-8")
        print(f"HTML report: {args.html}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code) if isinstance(exc.code, int) else EXIT_BAD_INPUT
    handlers = {"compare": cmd_compare, "bundle": cmd_bundle, "reference": cmd_reference, "emulate": cmd_emulate,
                "hp-plan": cmd_hp_plan, "wk": cmd_wk, "card": cmd_card}
    try:
        return handlers[args.cmd](args)
    except KeyboardInterrupt:
        print("nnie-triage: interrupted", file=sys.stderr)
        return 130
    except (ValueError, OSError) as exc:
        # every user-facing error type in the triage/reference modules derives from ValueError; a
        # KeyError, TypeError… is a bug and goes to the internal-error branch below
        msg = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        if isinstance(exc, OSError) and getattr(exc, "filename", None):
            msg = f"{exc.filename}: {msg}"
        print(f"nnie-triage {args.cmd}: error: {msg}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except Exception as exc:  # a bug: one clear line (the traceback with NNIE_DEBUG=1), never a crash dump
        from nnie_lsp.core.extras import missing_message, missing_optional
        module = missing_optional(exc)
        if module is not None:   # an optional package (OpenCV, ONNX Runtime): what to install, not a bug
            print(f"nnie-triage {args.cmd}: error: {missing_message(module, 'this command')[0]}", file=sys.stderr)
            return EXIT_BAD_INPUT
        if os.environ.get("NNIE_DEBUG"):
            raise
        print(f"nnie-triage {args.cmd}: internal error: {type(exc).__name__}: {exc} "
              "(please report it; NNIE_DEBUG=1 shows the traceback)", file=sys.stderr)
        return EXIT_BAD_INPUT


if __name__ == "__main__":
    sys.exit(main())
