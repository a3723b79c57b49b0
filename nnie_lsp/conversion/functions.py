"""Element-wise functions compared by value: what a Caffe layer group computes against what its
ONNX nodes compute, on probe inputs from -10 to 10 for every channel.

This is how activations are checked whatever a converter made of them (ReLU6 as ReLU or as Clip,
HardSwish as Power + Clip + Power + Eltwise or lost, SiLU as Swish or as Sigmoid + Eltwise PROD or
half lost): both sides are evaluated, never pattern-matched by name.  Semantics: ONNX operator
docs and Caffe's layers (docs/field-facts.md §17.4).
"""

from __future__ import annotations

import numpy as np

PROBES = np.linspace(-10.0, 10.0, 401)


class NotElementwise(ValueError):
    """A node or layer outside the element-wise set (the caller checks it another way)."""


def _per_channel(arr, channels: int) -> np.ndarray:
    a = np.asarray(arr, np.float64)
    if a.size == 1:
        return a.reshape(1, 1)
    if a.size == channels:
        return a.reshape(channels, 1)
    raise NotElementwise(f"a constant of {a.size} values for {channels} channels")


def onnx_eval(og, nodes, x_tensor: str, channels: int) -> np.ndarray:
    """The value the ONNX ``nodes`` give for the last node's output with ``x_tensor`` = probes."""
    x = np.tile(PROBES, (channels, 1))
    vals = {x_tensor: x}

    def get(t):
        if t in vals:
            return vals[t]
        c = og.const(t)
        if c is None:
            raise NotElementwise(f"tensor {t} is neither the input nor a constant")
        return _per_channel(c, channels)

    for n in nodes:
        a = n.attrs
        i = [get(t) if t else None for t in n.inputs]
        op = n.op
        if op == "Relu":
            y = np.maximum(i[0], 0)
        elif op == "LeakyRelu":
            y = np.where(i[0] >= 0, i[0], i[0] * a.get("alpha", 0.01))
        elif op == "PRelu":
            y = np.where(i[0] >= 0, i[0], i[0] * i[1])
        elif op == "Clip":
            lo = i[1] if len(i) > 1 and i[1] is not None else a.get("min", -np.inf)
            hi = i[2] if len(i) > 2 and i[2] is not None else a.get("max", np.inf)
            y = np.clip(i[0], lo, hi)
        elif op == "Sigmoid":
            y = 1 / (1 + np.exp(-i[0]))
        elif op == "HardSigmoid":
            y = np.clip(i[0] * a.get("alpha", 0.2) + a.get("beta", 0.5), 0, 1)
        elif op == "HardSwish":
            y = i[0] * np.clip(i[0] / 6 + 0.5, 0, 1)
        elif op == "Tanh":
            y = np.tanh(i[0])
        elif op == "Elu":
            y = np.where(i[0] > 0, i[0], a.get("alpha", 1.0) * (np.exp(i[0]) - 1))
        elif op == "Softplus":
            y = np.log1p(np.exp(i[0]))
        elif op == "Mish":
            y = i[0] * np.tanh(np.log1p(np.exp(i[0])))
        elif op in ("Mul", "Add", "Sub", "Div", "Max", "Sum"):
            fn = {"Mul": np.multiply, "Add": np.add, "Sub": np.subtract, "Div": np.divide,
                  "Max": np.maximum, "Sum": np.add}[op]
            y = i[0]
            for other in i[1:]:
                y = fn(y, other)
        elif op == "Abs":
            y = np.abs(i[0])
        elif op == "Exp":
            y = np.exp(i[0])
        elif op == "Neg":
            y = -i[0]
        elif op in ("Identity", "Dropout"):
            y = i[0]
        else:
            raise NotElementwise(op)
        vals[n.outputs[0]] = y
    return vals[nodes[-1].outputs[0]] if nodes else x


def caffe_eval(layers, x_blob: str, channels: int, blobs_of) -> np.ndarray:
    """The value the Caffe ``layers`` (in order) give for the last layer's top with ``x_blob`` =
    probes; ``blobs_of(name)`` gives a layer's weights (a list, maybe empty)."""
    x = np.tile(PROBES, (channels, 1))
    vals = {x_blob: x}
    for layer in layers:
        p = layer.param
        try:
            i = [vals[b] for b in layer.bottoms]
        except KeyError as exc:
            raise NotElementwise(f"blob {exc} comes from outside the group") from None
        t = layer.type
        w = blobs_of(layer.name)
        if t == "ReLU":
            slope = p.relu_param.negative_slope
            y = np.where(i[0] > 0, i[0], i[0] * slope)
        elif t == "ReLU6":
            y = np.clip(i[0], 0, 6)
        elif t == "Clip":
            y = np.clip(i[0], p.clip_param.min, p.clip_param.max)
        elif t == "PReLU":
            if not w:
                raise NotElementwise("PReLU without weights")
            y = np.where(i[0] > 0, i[0], i[0] * _per_channel(w[0], channels))
        elif t == "Sigmoid":
            y = 1 / (1 + np.exp(-i[0]))
        elif t == "TanH":
            y = np.tanh(i[0])
        elif t == "Swish":
            beta = p.swish_param.beta if p.HasField("swish_param") else 1.0
            y = i[0] / (1 + np.exp(-beta * i[0]))
        elif t == "HardSwish":
            y = i[0] * np.clip(i[0] + 3, 0, 6) / 6
        elif t == "Power":
            pp = p.power_param
            y = (pp.shift + pp.scale * i[0]) ** pp.power
        elif t == "AbsVal":
            y = np.abs(i[0])
        elif t == "ELU":
            y = np.where(i[0] > 0, i[0], p.elu_param.alpha * (np.exp(i[0]) - 1))
        elif t == "Exp":
            y = np.exp(i[0])
        elif t == "Scale" and len(i) == 1:
            if not w:
                raise NotElementwise("Scale without weights")
            y = i[0] * _per_channel(w[0], channels)
            if len(w) > 1:
                y = y + _per_channel(w[1], channels)
        elif t == "Bias" and len(i) == 1 and w:
            y = i[0] + _per_channel(w[0], channels)
        elif t == "Eltwise":
            ep = p.eltwise_param
            op = ep.operation
            if op == ep.PROD:
                y = np.prod(np.stack(i), axis=0)
            elif op == ep.MAX:
                y = np.max(np.stack(i), axis=0)
            else:
                coeffs = list(ep.coeff) or [1.0] * len(i)
                y = sum(c * v for c, v in zip(coeffs, i))
        else:
            raise NotElementwise(t)
        for top in layer.tops:
            vals[top] = y
    return vals[layers[-1].tops[0]]


def describe_onnx(og, nodes) -> str:
    """A short text of what ONNX nodes compute (``Clip(min 0, max 6)``, ``Sigmoid → Mul``)."""
    parts = []
    for n in nodes:
        if n.op == "Clip":
            lo = og.const(n.inputs[1]) if len(n.inputs) > 1 and n.inputs[1] else n.attrs.get("min")
            hi = og.const(n.inputs[2]) if len(n.inputs) > 2 and n.inputs[2] else n.attrs.get("max")
            parts.append(f"Clip(min {_num(lo)}, max {_num(hi)})")
        elif n.op == "LeakyRelu":
            parts.append(f"LeakyRelu(alpha {_num(n.attrs.get('alpha', 0.01))})")
        else:
            parts.append(n.op)
    return " → ".join(parts) or "identity"


def _num(v) -> str:
    if v is None:
        return "none"
    v = float(np.asarray(v).reshape(-1)[0])
    return f"{v:g}"
