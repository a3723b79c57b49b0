"""Caffemodel blobs against ONNX initializers, per converted layer.

- Convolution / Deconvolution: the ONNX weights, with a BatchNormalization the converter folded
  into the layer applied (``w · γ/√(var+ε)``, ``(b − mean) · γ/√(var+ε) + β``, with the ONNX ε);
- InnerProduct: Gemm ``B`` (transposed unless ``transB``) times ``alpha``, MatMul's ``B``
  transposed; weights that are the right ones in H, W, C order after a Flatten are said so;
- BatchNorm (+ the Scale after it): Caffe keeps ``mean·s``, ``var·s`` and ``s``; ``eps`` against
  ONNX ``epsilon``.

A difference is reported when it is larger than 1e-4 of the largest weight (float32 export noise
is far below).  docs/field-facts.md §17.6.
"""

from __future__ import annotations

import numpy as np

from nnie_lsp.conversion.findings import FieldFix, Finding

RTOL = 1e-4


def _bn_fold(og, bn):
    scale, beta, mean, var = (og.const(t) for t in bn.inputs[1:5])
    if any(v is None for v in (scale, beta, mean, var)):
        return None
    f = scale / np.sqrt(var + bn.attrs.get("epsilon", 1e-5))
    return f, beta - mean * f


def _diff(a, b) -> float:
    return float(np.max(np.abs(a.astype(np.float64) - b.astype(np.float64)))) if a.size else 0.0


def _close(a, b) -> bool:
    return a.shape == b.shape and _diff(a, b) <= RTOL * max(1.0, float(np.max(np.abs(b))) if b.size else 1.0)


def _weights_finding(m, name, caffe, onnx, what, msg="weights", **extra) -> Finding:
    return Finding("NN507", msg, m.layer.name, ("name",),
                   dict(what=what, tensor=name, diff=f"{_diff(caffe, onnx):.4g}",
                        largest=f"{float(np.max(np.abs(onnx))):.4g}", **extra))


def check_conv(m, node, og, blobs) -> list[Finding]:
    if not blobs:
        return []
    w = og.const(node.inputs[1])
    if w is None:
        return []
    b = og.const(node.inputs[2]) if len(node.inputs) > 2 and node.inputs[2] else np.zeros(w.shape[0], np.float32)
    bns = [n for n in m.nodes if n.op == "BatchNormalization"]
    raw_w = w
    for bn in bns:
        fold = _bn_fold(og, bn)
        if fold is None:
            return []
        f, shift = fold
        w = w * f.reshape(-1, *([1] * (w.ndim - 1)))
        b = b * f + shift
    cw = np.asarray(blobs[0])
    if cw.size == w.size and cw.shape != w.shape:
        cw = cw.reshape(w.shape)
    if cw.shape != w.shape:
        return [Finding("NN507", "shape", m.layer.name, ("name",),
                        dict(caffe="×".join(map(str, cw.shape)), onnx="×".join(map(str, w.shape)),
                             tensor=node.inputs[1]))]
    if not _close(cw, w):
        if bns and _close(cw, raw_w):
            return [Finding("NN507", "fold_lost", m.layer.name, ("name",),
                            dict(bn=bns[0].name or bns[0].outputs[0], diff=f"{_diff(cw, w):.4g}"))]
        what = "weights" + (" (with the BatchNormalization folded in)" if bns else "")
        return [_weights_finding(m, node.inputs[1], cw, w, what)]
    if len(blobs) > 1 and not _close(np.asarray(blobs[1]).reshape(-1), b.reshape(-1)):
        return [_weights_finding(m, node.inputs[2] if len(node.inputs) > 2 else "(none)",
                                 np.asarray(blobs[1]).reshape(-1), b.reshape(-1), "bias")]
    return []


def check_inner_product(m, node, og, blobs) -> list[Finding]:
    if not blobs:
        return []
    w = og.const(node.inputs[1])
    if w is None:
        return []
    if node.op == "Gemm":
        w = (w if node.attrs.get("transB", 0) else w.T) * node.attrs.get("alpha", 1.0)
        b = og.const(node.inputs[2]) if len(node.inputs) > 2 and node.inputs[2] else None
        if b is not None:
            b = b * node.attrs.get("beta", 1.0)
    else:
        w, b = w.T, None
        add = next((n for n in m.nodes if n.op == "Add"), None)
        if add is not None:
            b = next((og.const(t) for t in add.inputs if og.const(t) is not None), None)
    cw = np.asarray(blobs[0])
    if cw.size == w.size:
        cw = cw.reshape(w.shape)
    else:
        return [Finding("NN507", "shape", m.layer.name, ("name",),
                        dict(caffe="×".join(map(str, cw.shape)), onnx="×".join(map(str, w.shape)),
                             tensor=node.inputs[1]))]
    if not _close(cw, w):
        flat = next((n for n in m.nodes if n.op in ("Flatten", "Reshape")), None)
        if flat is None and m.inputs and m.inputs[0]:  # a Flatten the converter wrote as its own layer
            before = og.node_of(m.inputs[0])
            flat = before if before is not None and before.op in ("Flatten", "Reshape") else None
        src = og.shape(flat.inputs[0]) if flat is not None else None
        if src is not None and len(src) == 4:
            c, h, wd = src[1:]
            hwc = w.reshape(-1, c, h, wd).transpose(0, 2, 3, 1).reshape(w.shape)
            if _close(cw, hwc):
                return [Finding("NN507", "ip_order", m.layer.name, ("name",),
                                dict(c=c, h=h, w=wd, diff=f"{_diff(cw, w):.4g}"))]
        return [_weights_finding(m, node.inputs[1], cw, w, "weights")]
    if b is not None and len(blobs) > 1 and not _close(np.asarray(blobs[1]).reshape(-1), b.reshape(-1)):
        return [_weights_finding(m, node.inputs[2], np.asarray(blobs[1]).reshape(-1), b.reshape(-1), "bias")]
    return []


def check_batchnorm(m, node, og, blobs, scale_layer=None, scale_blobs=None) -> list[Finding]:
    out: list[Finding] = []
    bp = m.layer.param.batch_norm_param
    eps_caffe = bp.eps if bp.HasField("eps") else 1e-5
    eps_onnx = node.attrs.get("epsilon", 1e-5)
    if not np.isclose(eps_caffe, eps_onnx, rtol=1e-3, atol=0):
        out.append(Finding("NN507", "bn_eps", m.layer.name, ("batch_norm_param", "eps"),
                           dict(caffe=f"{eps_caffe:g}", onnx=f"{eps_onnx:g}"),
                           FieldFix("batch_norm_param", (("eps", f"{eps_onnx:g}"),)), "fix_eps"))
    scale, beta, mean, var = (og.const(t) for t in node.inputs[1:5])
    if blobs and len(blobs) >= 3 and mean is not None:
        sf = float(np.asarray(blobs[2]).reshape(-1)[0])
        sf = 1.0 / sf if sf != 0 else 0.0
        for got, want, name in ((np.asarray(blobs[0]).reshape(-1) * sf, mean, node.inputs[3]),
                                (np.asarray(blobs[1]).reshape(-1) * sf, var, node.inputs[4])):
            if not _close(got, want.reshape(-1)):
                out.append(_weights_finding(m, name, got, want.reshape(-1), "mean/variance"))
                break
    if scale_layer is not None and scale_blobs and scale is not None:
        for got, want, name in ((scale_blobs[0], scale, node.inputs[1]),
                                (scale_blobs[1] if len(scale_blobs) > 1 else None, beta, node.inputs[2])):
            if got is not None and not _close(np.asarray(got).reshape(-1), want.reshape(-1)):
                out.append(Finding("NN507", "weights", scale_layer.name, ("name",),
                                   dict(what="scale/bias", tensor=name, diff=f"{_diff(np.asarray(got).reshape(-1), want.reshape(-1)):.4g}",
                                        largest=f"{float(np.max(np.abs(want))):.4g}")))
                break
    return out


__all__ = ["FieldFix", "check_conv", "check_inner_product", "check_batchnorm"]
