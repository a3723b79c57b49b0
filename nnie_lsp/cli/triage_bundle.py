"""``nnie-triage bundle``: guide step 6, one zip with everything support needs for one layer
(:mod:`nnie_lsp.triage.report.bundle`).

  nnie-triage bundle --layer NAME [--cfg F] [--reference DIR] [--sim DIR] [--prototxt F]
                     [--caffemodel F] [--mapper-log F] [--image F ...] [--mean-file F]
                     [--triage-json F] [-o ZIP]

With ``--cfg`` alone, the prototxt, the caffemodel, the images and the mean file are the cfg's and
the dump folders are found beside it as ``compare --cfg`` finds them; the triage result is
``--triage-json`` or computed.  A ``--layer`` that the prototxt (else the dumps) does not name is
exit 2 with the nearest names.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def add_parser(sub) -> None:
    b = sub.add_parser("bundle", help="step 6: a zip with everything support needs for one layer")
    b.add_argument("--layer", required=True, help="the layer (its name in the prototxt)")
    b.add_argument("--cfg", help="the mapper cfg: the prototxt, caffemodel, images, mean file and (beside it) "
                   "the dump folders come from it unless given")
    b.add_argument("--reference", help="Caffe-side dump folder (default: found beside --cfg, as compare finds it)")
    b.add_argument("--sim", help="NNIE-side dump folder (default: found beside --cfg, as compare finds it)")
    b.add_argument("--prototxt", help="default: the cfg's [prototxt_file]")
    b.add_argument("--caffemodel", help="default: the cfg's [caffemodel_file]")
    b.add_argument("--mapper-log")
    b.add_argument("--image", action="append", default=[], help="default: the last image of the cfg's image_list")
    b.add_argument("--mean-file", help="default: the cfg's [mean_file]")
    b.add_argument("--triage-json", help="an existing `compare --format json` result (else it is computed)")
    b.add_argument("-o", "--out", help="zip path (default <layer>_bundle.zip)")


def _folders(args):
    """(reference, sim, the triage request): given, or found beside the cfg as compare finds them."""
    from nnie_lsp.triage import pipeline

    if not args.cfg and not (args.reference and args.sim):
        raise ValueError("give --reference and --sim, or --cfg (the dump folders are then found beside it)")
    request = pipeline.TriageRequest(reference=args.reference, sim=args.sim, cfg=args.cfg, prototxt=args.prototxt)
    request = pipeline.find_inputs(request, log=sys.stderr)
    return request


def _triage(args, request) -> dict | None:
    """The triage result the bundle holds: --triage-json, else computed (a failure is said, the
    bundle is made without it)."""
    if args.triage_json:
        try:
            return json.loads(Path(args.triage_json).read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise ValueError(f"--triage-json {args.triage_json}: {exc}") from None
    from nnie_lsp.triage import pipeline

    try:
        return pipeline.triage(request).to_json()
    except ValueError as exc:
        print(f"warning: the bundle holds no triage result: the comparison failed: {exc}", file=sys.stderr)
        return None


def cmd_bundle(args) -> int:
    from nnie_lsp.triage.report.bundle import bundle_inputs, make_bundle

    request = _folders(args)
    out = args.out or f"{args.layer.replace('/', '_')}_bundle.zip"
    common = dict(layer=args.layer, reference=request.reference, sim=request.sim, prototxt=request.prototxt,
                  caffemodel=args.caffemodel, cfg=args.cfg, mapper_log=args.mapper_log, images=args.image,
                  mean_file=args.mean_file)
    bundle_inputs(**common)   # the layer and the files checked before the comparison runs
    info = make_bundle(out, **common, triage=_triage(args, request))
    print(f"wrote {out}: {len(info['files'])} files" + (f", mapper {info['mapper_version']}"
                                                       if info.get("mapper_version") else ""))
    for w in info.get("warnings", []):
        print(f"warning: {w}", file=sys.stderr)
    return 0
