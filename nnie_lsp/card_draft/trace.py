"""The backward trace of :mod:`.code`: from where a Python file feeds a net back to where the image
came from, as a list of :class:`Op` in forward order (read with :mod:`ast`, never run).

:class:`CodeReader` holds one file's scopes (its assignments in line order), the literal constants
names are bound to, and the *sinks* (where an array is fed to a net).  ``trace(node)`` follows
assignments, augmented assignments, channel swaps by hand, local function calls (into their
``return``, parameters bound to the arguments) and parameters back to their call sites.
"""

from __future__ import annotations

import ast
import os
import re
from typing import Iterable

from nnie_lsp.core.records import NamedTuple

#: at most this many .py files are read, each at most this many bytes
MAX_FILES, MAX_BYTES = 400, 1 << 20
SKIP_DIRS = {".git", ".hg", ".svn", ".venv", "venv", "env", "node_modules", "__pycache__", "site-packages",
             "build", "dist", ".tox", ".e2e", ".nnie-triage"}
MAX_DEPTH = 48   # how deep the backward trace goes (assignments, calls) before it says "unknown"

RGB_READERS = {"imageio.imread", "imageio.v2.imread", "imageio.v3.imread", "skimage.io.imread", "io.imread",
               "plt.imread", "matplotlib.pyplot.imread", "mpimg.imread", "Image.open", "PIL.Image.open"}
BGR_READERS = {"cv2.imread", "cv2.imdecode", "mmcv.imread", "mmcv.imfrombytes"}
PASS_THROUGH = {"cv2.resize", "np.float32", "np.array", "np.asarray", "np.ascontiguousarray", "numpy.array",
                "numpy.asarray", "torch.from_numpy", "torch.tensor", "torch.as_tensor", "torch.Tensor",
                "np.copy", "cv2.copyMakeBorder", "np.squeeze", "Image.fromarray", "np.uint8", "np.float64",
                "cv2.flip", "cv2.warpAffine", "letterbox", "np.pad", "torch.FloatTensor"}
PASS_METHODS = {"astype", "copy", "float", "double", "cuda", "to", "contiguous", "numpy", "cpu", "half",
                "convert", "resize", "crop", "squeeze", "detach", "clone", "type", "reshape"}
BATCH_CALLS = {"np.expand_dims", "numpy.expand_dims"}
SINK_METHODS = {"setInput", "predict", "forward", "run", "infer", "detect"}


class Op(NamedTuple):
    kind: str           # source, swap, gray, sub, add, mul, div, totensor, normalize, layout, batch, unknown
    value: object
    where: str          # "detect.py:42: cv2.imread(path)"


def _src(source: str, node: ast.AST, path: str) -> str:
    text = ast.get_source_segment(source, node) or ""
    text = " ".join(text.split())
    if len(text) > 70:
        text = text[:67] + "…"
    return f"{os.path.basename(path)}:{getattr(node, 'lineno', '?')}: {text}"


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        head = _dotted(node.value)
        return f"{head}.{node.attr}" if head else node.attr
    return ""


def parse_python(text: str) -> ast.Module | None:
    """The module's tree; Python 2 print statements are rewritten in place first when needed."""
    try:
        return ast.parse(text)
    except SyntaxError:
        pass
    fixed = re.sub(r"(?m)^(\s*)print\s+(?![\s(=])(.*?)\s*$", lambda m: f"{m.group(1)}print({m.group(2)})", text)
    fixed = re.sub(r"(?m)^(\s*)print\s*$", r"\1print()", fixed)
    fixed = re.sub(r"(?m)^(\s*except\s+[\w.]+)\s*,\s*(\w+)\s*:", r"\1 as \2:", fixed)
    try:
        return ast.parse(fixed)
    except SyntaxError:
        return None


class _Scope:
    """A function (or the module): its assignments in line order."""

    def __init__(self, node, parent: "_Scope | None"):
        self.node = node
        self.parent = parent
        self.assigns: dict[str, list[tuple[int, ast.AST, str]]] = {}   # name -> [(line, value, how)]
        self.subscript_sets: dict[str, list[ast.Assign]] = {}
        self.params = [a.arg for a in node.args.args] if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else []
        body = node.body if not isinstance(node, ast.Lambda) else []
        for stmt in _walk_body(body):
            if isinstance(stmt, ast.Assign):
                for target in stmt.targets:
                    self._target(target, stmt.value, stmt.lineno, "=")
                    if isinstance(target, ast.Subscript):
                        name = _dotted(target.value)
                        if name:
                            self.subscript_sets.setdefault(name, []).append(stmt)
            elif isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name):
                self.assigns.setdefault(stmt.target.id, []).append((stmt.lineno, stmt, "aug"))
            elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None and isinstance(stmt.target, ast.Name):
                self.assigns.setdefault(stmt.target.id, []).append((stmt.lineno, stmt.value, "="))
            elif isinstance(stmt, (ast.For, ast.AsyncFor)):
                for name in _names(stmt.target):
                    self.assigns.setdefault(name, []).append((stmt.lineno, stmt.iter, "for"))

    def _target(self, target, value, line, how):
        if isinstance(target, (ast.Name, ast.Attribute)):
            name = _dotted(target)
            if name:
                self.assigns.setdefault(name, []).append((line, value, how))
        elif isinstance(target, (ast.Tuple, ast.List)):
            for k, elt in enumerate(target.elts):
                if isinstance(value, (ast.Tuple, ast.List)) and k < len(value.elts):
                    self._target(elt, value.elts[k], line, how)
                else:   # ret, frame = cap.read(): the last element is the image
                    self._target(elt, value, line, "unpack" if k < len(target.elts) - 1 else how)

    def last(self, name: str, before: int):
        found = [a for a in self.assigns.get(name, []) if a[0] < before]
        return max(found, key=lambda a: a[0]) if found else None


def _walk_body(body) -> Iterable[ast.stmt]:
    """The statements of a body and of its nested blocks (not of nested functions), in order."""
    for stmt in body:
        yield stmt
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for field in ("body", "orelse", "finalbody", "handlers"):
            inner = getattr(stmt, field, None)
            if isinstance(inner, list):
                yield from _walk_body([s for s in inner if isinstance(s, ast.stmt)] +
                                      [b for h in inner if isinstance(h, ast.ExceptHandler) for b in h.body])
        if isinstance(stmt, (ast.With, ast.AsyncWith)):
            pass


def _names(target) -> list[str]:
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [n for e in target.elts for n in _names(e)]
    return []


class CodeReader:
    """One Python file: its scopes, constants and sinks."""

    def __init__(self, text: str, path: str):
        self.text, self.path = text, path
        self.tree = parse_python(text)
        self.scopes: dict[int, _Scope] = {}
        self.functions: dict[str, tuple[ast.AST, _Scope]] = {}
        self.parents: dict[int, ast.AST] = {}
        if self.tree is None:
            return
        for node in ast.walk(self.tree):
            for child in ast.iter_child_nodes(node):
                self.parents[id(child)] = node
        self.module = _Scope(self.tree, None)
        self.scopes[id(self.tree)] = self.module
        for node in ast.walk(self.tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                scope = _Scope(node, self.module)
                self.scopes[id(node)] = scope
                self.functions.setdefault(node.name, (node, scope))
        self.class_consts: dict[str, ast.AST] = {}
        for node in ast.walk(self.tree):
            if isinstance(node, ast.ClassDef):
                for stmt in node.body:
                    if isinstance(stmt, ast.Assign):
                        for t in stmt.targets:
                            if isinstance(t, ast.Name):
                                self.class_consts[t.id] = stmt.value

    # ------------------------------------------------------------------ where
    def scope_of(self, node: ast.AST) -> _Scope:
        cur = self.parents.get(id(node))
        while cur is not None:
            if id(cur) in self.scopes:
                return self.scopes[id(cur)]
            cur = self.parents.get(id(cur))
        return self.module

    def where(self, node: ast.AST) -> str:
        return _src(self.text, node, self.path)

    # ------------------------------------------------------------------ constants
    def const(self, node: ast.AST, scope: _Scope, line: int, depth: int = 0):
        """A literal number, or tuple of numbers, the node stands for; None when computed."""
        if depth > MAX_DEPTH or node is None:
            return None
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
            return float(node.value)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            v = self.const(node.operand, scope, line, depth + 1)
            return -v if isinstance(v, float) else tuple(-x for x in v) if isinstance(v, tuple) else None
        if isinstance(node, ast.BinOp):
            a, b = self.const(node.left, scope, line, depth + 1), self.const(node.right, scope, line, depth + 1)
            if isinstance(a, float) and isinstance(b, float):
                try:
                    return {ast.Add: a + b, ast.Sub: a - b, ast.Mult: a * b, ast.Div: a / b}.get(type(node.op))
                except ZeroDivisionError:
                    return None
            return None
        if isinstance(node, (ast.Tuple, ast.List)):
            vals = [self.const(e, scope, line, depth + 1) for e in node.elts]
            return tuple(vals) if vals and all(isinstance(v, float) for v in vals) else None
        if isinstance(node, ast.Call):
            name = _dotted(node.func)
            if name in ("np.array", "numpy.array", "np.asarray", "torch.tensor", "np.float32", "float",
                        "torch.Tensor") and node.args:
                return self.const(node.args[0], scope, line, depth + 1)
            if name in ("dict",):
                return None
            return None
        if isinstance(node, ast.Subscript):   # CONFIG["mean"], self.cfg['scale']
            key = node.slice.value if isinstance(node.slice, ast.Constant) else None
            base = self._binding(node.value, scope, line, depth)
            if isinstance(key, str) and isinstance(base, ast.Dict):
                for k, v in zip(base.keys, base.values):
                    if isinstance(k, ast.Constant) and k.value == key:
                        return self.const(v, scope, line, depth + 1)
            if isinstance(key, str) and isinstance(base, ast.Call) and _dotted(base.func) == "dict":
                for kw in base.keywords:
                    if kw.arg == key:
                        return self.const(kw.value, scope, line, depth + 1)
            return None
        bound = self._binding(node, scope, line, depth)
        return self.const(bound, scope, line, depth + 1) if bound is not None else None

    def _binding(self, node: ast.AST, scope: _Scope, line: int, depth: int):
        """The expression a name (``MEAN``, ``self.mean``, ``cls.MEAN``) was last bound to."""
        name = _dotted(node)
        if not name:
            return None
        for s in (scope, scope.parent, self.module):
            if s is None:
                continue
            hit = s.last(name, line if s is scope else 10 ** 9)
            if hit is not None and hit[2] == "=":
                return hit[1]
        short = name.split(".")[-1]
        if name.startswith(("self.", "cls.")):
            for s in self.scopes.values():   # self.mean = (…) in __init__
                hit = s.last(name, 10 ** 9)
                if hit is not None and hit[2] == "=":
                    return hit[1]
            return self.class_consts.get(short)
        return None

    # ------------------------------------------------------------------ tracing
    def trace(self, node: ast.AST, scope: _Scope, line: int, depth: int = 0) -> list[Op]:
        """The ops, in forward order, that made the value of `node` at `line`."""
        if depth > MAX_DEPTH:
            return [Op("unknown", "too deep", self.where(node))]
        if isinstance(node, ast.Name) or (isinstance(node, ast.Attribute) and _dotted(node).startswith("self.")):
            return self._trace_name(_dotted(node), node, scope, line, depth)
        if isinstance(node, ast.BinOp):
            return self._trace_binop(node, scope, line, depth)
        if isinstance(node, ast.Subscript):
            return self._trace_subscript(node, scope, line, depth)
        if isinstance(node, ast.Call):
            return self._trace_call(node, scope, line, depth)
        if isinstance(node, (ast.List, ast.Tuple)) and len(node.elts) == 1:   # np.array([img])
            return self.trace(node.elts[0], scope, line, depth + 1) + [Op("batch", None, self.where(node))]
        return [Op("unknown", "computed", self.where(node))]

    def _trace_name(self, name: str, node, scope: _Scope, line: int, depth: int) -> list[Op]:
        hit = scope.last(name, line)
        if hit is None and scope.parent is not None and name in scope.params:
            return self._from_callers(scope, name, depth)
        if hit is None:
            outer = self.module.last(name, 10 ** 9) if scope is not self.module else None
            if outer is None:
                return [Op("unknown", "not assigned here", self.where(node))]
            hit, scope = outer, self.module
        at, value, how = hit
        if how == "aug":
            ops = self._trace_name(name, node, scope, at, depth + 1)
            return ops + self._arith(value.op, value.value, scope, at, value)
        if how == "for":
            return [Op("unknown", "a loop variable", self.where(value))]
        ops = self.trace(value, scope, at, depth + 1)
        return ops + self._manual_swaps(name, scope, at, line)

    def _manual_swaps(self, name: str, scope: _Scope, after: int, before: int) -> list[Op]:
        """``x[:, :, 2] = x[:, :, 0]`` with ``x[:, :, 0] = tmp`` between the assignment and the use."""
        sets = [s for s in scope.subscript_sets.get(name, []) if after < s.lineno < before]
        channels = {self._last_index(t) for s in sets for t in s.targets if isinstance(t, ast.Subscript)}
        if {0, 2} <= channels:
            return [Op("swap", "by hand", self.where(sets[0]))]
        return []

    @staticmethod
    def _last_index(sub: ast.Subscript):
        sl = sub.slice
        elts = sl.elts if isinstance(sl, ast.Tuple) else [sl]
        last = elts[-1] if elts else None
        return last.value if isinstance(last, ast.Constant) and isinstance(last.value, int) else None

    def _from_callers(self, scope: _Scope, param: str, depth: int) -> list[Op]:
        func = scope.node
        k = scope.params.index(param)
        offset = 1 if scope.params and scope.params[0] in ("self", "cls") else 0
        for call in ast.walk(self.tree):
            if not isinstance(call, ast.Call) or _dotted(call.func).split(".")[-1] != func.name:
                continue
            arg = next((kw.value for kw in call.keywords if kw.arg == param), None)
            if arg is None and 0 <= k - offset < len(call.args):
                arg = call.args[k - offset]
            if arg is not None:
                ops = self.trace(arg, self.scope_of(call), call.lineno, depth + 1)
                if ops and ops[0].kind == "source":
                    return ops
        return [Op("unknown", f"parameter {param} of {func.name}", self.where(func))]

    def _arith(self, op, other: ast.AST, scope: _Scope, line: int, node: ast.AST) -> list[Op]:
        kind = {ast.Sub: "sub", ast.Add: "add", ast.Mult: "mul", ast.Div: "div"}.get(type(op))
        value = self.const(other, scope, line)
        if kind is None or value is None:
            return [Op("unknown", "computed", self.where(node))]
        return [Op(kind, value, self.where(node))]

    def _is_const(self, node, scope, line) -> bool:
        return self.const(node, scope, line) is not None

    def _trace_binop(self, node: ast.BinOp, scope: _Scope, line: int, depth: int) -> list[Op]:
        if self._is_const(node.right, scope, line):
            return self.trace(node.left, scope, line, depth + 1) + self._arith(node.op, node.right, scope, line, node)
        if self._is_const(node.left, scope, line) and isinstance(node.op, (ast.Mult, ast.Add)):
            return self.trace(node.right, scope, line, depth + 1) + self._arith(node.op, node.left, scope, line, node)
        return self.trace(node.left, scope, line, depth + 1) + [Op("unknown", "computed", self.where(node))]

    def _trace_subscript(self, node: ast.Subscript, scope: _Scope, line: int, depth: int) -> list[Op]:
        base = self.trace(node.value, scope, line, depth + 1)
        sl = node.slice
        elts = sl.elts if isinstance(sl, ast.Tuple) else [sl]
        last = elts[-1] if elts else None
        if isinstance(last, ast.Slice) and last.step is not None and self.const(last.step, scope, line) == -1.0 \
                and last.lower is None and last.upper is None and (len(elts) >= 2 or isinstance(elts[0], ast.Slice)):
            if len(elts) >= 3 or (len(elts) == 2 and isinstance(elts[0], ast.Constant) and elts[0].value is Ellipsis):
                return base + [Op("swap", "[..., ::-1]", self.where(node))]
        if isinstance(last, (ast.List, ast.Tuple)) and self.const(last, scope, line) == (2.0, 1.0, 0.0):
            return base + [Op("swap", "[2, 1, 0]", self.where(node))]
        if any(isinstance(e, ast.Constant) and e.value is None for e in elts) or \
                any(_dotted(e) in ("np.newaxis", "numpy.newaxis") for e in elts):
            return base + [Op("batch", None, self.where(node))]
        return base

    def _trace_call(self, node: ast.Call, scope: _Scope, line: int, depth: int) -> list[Op]:
        name = _dotted(node.func)
        method = node.func.attr if isinstance(node.func, ast.Attribute) else None
        if name in BGR_READERS or name.endswith(".imread") and name.startswith("cv2"):
            flag = node.args[1] if len(node.args) > 1 else next((k.value for k in node.keywords if k.arg in ("flags", "flag")), None)
            gray = flag is not None and (self.const(flag, scope, line) == 0.0 or "GRAYSCALE" in _dotted(flag))
            order = "rgb" if name.startswith("mmcv") and any(k.arg == "channel_order" and isinstance(k.value, ast.Constant)
                                                             and str(k.value.value).lower() == "rgb" for k in node.keywords) else "bgr"
            return [Op("source", "gray" if gray else order, self.where(node))]
        if name in RGB_READERS or name.endswith("Image.open") or name.endswith("read_image"):
            layout = "CHW" if name.endswith("read_image") else "HWC"
            return [Op("source", "rgb", self.where(node)), Op("layout_is", layout, self.where(node))] \
                if layout == "CHW" else [Op("source", "rgb", self.where(node))]
        if method == "read" and isinstance(node.func, ast.Attribute):
            created = self._binding(node.func.value, scope, line, depth)
            if isinstance(created, ast.Call) and _dotted(created.func).endswith("VideoCapture"):
                return [Op("source", "bgr", self.where(node))]
        if method == "convert" and node.args and isinstance(node.args[0], ast.Constant):
            base = self.trace(node.func.value, scope, line, depth + 1)
            mode = str(node.args[0].value).upper()
            if mode == "L":
                return base + [Op("gray", None, self.where(node))]
            if mode == "RGB" and base and base[0].kind == "source":
                return base
            return base
        if name.endswith("cvtColor") and len(node.args) >= 2:
            code = _dotted(node.args[1]).upper()
            base = self.trace(node.args[0], scope, line, depth + 1)
            if "BGR2RGB" in code or "RGB2BGR" in code:
                return base + [Op("swap", "cvtColor", self.where(node))]
            if "2GRAY" in code:
                return base + [Op("gray", None, self.where(node))]
            return base + [Op("unknown", f"colour conversion {code}", self.where(node))]
        if name.endswith("dnn.blobFromImage") or name.endswith("dnn.blobFromImages"):
            return self._blob_from_image(node, scope, line, depth)
        if method in ("transpose", "permute") and isinstance(node.func, ast.Attribute) and node.args:
            perm = self._perm(node.args, scope, line)
            return self.trace(node.func.value, scope, line, depth + 1) + [Op("layout", perm, self.where(node))]
        if name in ("np.transpose", "numpy.transpose", "torch.permute") and len(node.args) >= 2:
            return self.trace(node.args[0], scope, line, depth + 1) + [
                Op("layout", self._perm(node.args[1:], scope, line), self.where(node))]
        if name in ("np.swapaxes", "numpy.swapaxes", "torch.transpose") and len(node.args) >= 3:
            a, b = (self.const(x, scope, line) for x in node.args[1:3])
            return self.trace(node.args[0], scope, line, depth + 1) + [Op("swapaxes", (a, b), self.where(node))]
        if method in ("swapaxes",) and len(node.args) >= 2:
            a, b = (self.const(x, scope, line) for x in node.args[:2])
            return self.trace(node.func.value, scope, line, depth + 1) + [Op("swapaxes", (a, b), self.where(node))]
        if name in BATCH_CALLS or method == "unsqueeze":
            target = node.args[0] if name in BATCH_CALLS else node.func.value
            return self.trace(target, scope, line, depth + 1) + [Op("batch", None, self.where(node))]
        if name in ("np.array", "numpy.array") and node.args and isinstance(node.args[0], (ast.List, ast.Tuple)) \
                and len(node.args[0].elts) == 1:
            return self.trace(node.args[0].elts[0], scope, line, depth + 1) + [Op("batch", None, self.where(node))]
        if name.split(".")[-1] in ("divide", "subtract", "multiply") and len(node.args) >= 2:
            op = {"divide": ast.Div(), "subtract": ast.Sub(), "multiply": ast.Mult()}[name.split(".")[-1]]
            return self.trace(node.args[0], scope, line, depth + 1) + self._arith(op, node.args[1], scope, line, node)
        transform = self._transform(node.func, scope, line, depth)
        if transform is not None and node.args:
            return self.trace(node.args[0], scope, line, depth + 1) + transform
        if name in PASS_THROUGH or name.split(".")[-1] in {"resize", "letterbox"}:
            if node.args:
                return self.trace(node.args[0], scope, line, depth + 1)
        if method in PASS_METHODS and isinstance(node.func, ast.Attribute):
            return self.trace(node.func.value, scope, line, depth + 1)
        local = self.functions.get(name.split(".")[-1])
        if local is not None:
            return self._into(local, node, scope, line, depth)
        return [Op("unknown", f"{name or 'a call'}(…)", self.where(node))]

    def _into(self, local, call: ast.Call, scope: _Scope, line: int, depth: int) -> list[Op]:
        """A call of a function of this file: its return value traced, its parameters bound to the arguments."""
        func, fscope = local
        returns = [r for r in ast.walk(func) if isinstance(r, ast.Return) and r.value is not None]
        if not returns:
            return [Op("unknown", f"{func.name} returns nothing", self.where(call))]
        ret = returns[-1]
        value = ret.value.elts[0] if isinstance(ret.value, ast.Tuple) and ret.value.elts else ret.value
        ops = self.trace(value, fscope, ret.lineno, depth + 1)
        if ops and ops[0].kind == "unknown" and str(ops[0].value).startswith("parameter "):
            param = str(ops[0].value).split()[1]
            params = fscope.params[1:] if fscope.params and fscope.params[0] in ("self", "cls") else fscope.params
            arg = next((kw.value for kw in call.keywords if kw.arg == param), None)
            if arg is None and param in params and params.index(param) < len(call.args):
                arg = call.args[params.index(param)]
            if arg is not None:
                return self.trace(arg, scope, line, depth + 1) + ops[1:]
        return ops

    def _perm(self, args, scope, line):
        if len(args) == 1:
            v = self.const(args[0], scope, line)
            return tuple(int(x) for x in v) if isinstance(v, tuple) else None
        vals = [self.const(a, scope, line) for a in args]
        return tuple(int(v) for v in vals) if all(isinstance(v, float) for v in vals) else None

    def _transform(self, func: ast.AST, scope: _Scope, line: int, depth: int) -> list[Op] | None:
        """``t(img)`` where ``t = transforms.Compose([... ToTensor(), Normalize(mean, std)])``."""
        bound = self._binding(func, scope, line, depth)
        if not isinstance(bound, ast.Call) or not _dotted(bound.func).endswith("Compose") or not bound.args:
            return None
        steps = bound.args[0]
        if not isinstance(steps, (ast.List, ast.Tuple)):
            return None
        ops: list[Op] = []
        for step in steps.elts:
            if not isinstance(step, ast.Call):
                continue
            kind = _dotted(step.func).split(".")[-1]
            if kind == "ToTensor":
                ops.append(Op("totensor", None, self.where(step)))
            elif kind == "Normalize":
                args = list(step.args) + [k.value for k in step.keywords if k.arg in ("mean", "std")]
                mean = self.const(args[0], scope, line) if args else None
                std = self.const(args[1], scope, line) if len(args) > 1 else None
                if mean is None or std is None:
                    ops.append(Op("unknown", "Normalize with computed values", self.where(step)))
                else:
                    ops.append(Op("normalize", (mean, std), self.where(step)))
            elif kind in ("Lambda",):
                ops.append(Op("unknown", "a Lambda transform", self.where(step)))
        return ops

    def _blob_from_image(self, node: ast.Call, scope: _Scope, line: int, depth: int) -> list[Op]:
        names = ["image", "scalefactor", "size", "mean", "swapRB", "crop"]
        given = {names[k]: a for k, a in enumerate(node.args[:6])}
        given.update({k.arg: k.value for k in node.keywords if k.arg})
        img = given.get("image") or given.get("images")
        ops = self.trace(img, scope, line, depth + 1) if img is not None else [Op("unknown", "no image", self.where(node))]
        where = self.where(node)
        swap = given.get("swapRB")
        if swap is not None:
            flag = swap.value if isinstance(swap, ast.Constant) else None
            if flag is None:
                ops.append(Op("unknown", "swapRB computed", where))
            elif flag:
                ops.append(Op("swap", "swapRB=True", where))
        mean = given.get("mean")
        if mean is not None:
            value = self.const(mean, scope, line)
            ops.append(Op("sub", value, where) if value is not None else Op("unknown", "mean computed", where))
        scale = given.get("scalefactor")
        if scale is not None:
            value = self.const(scale, scope, line)
            ops.append(Op("mul", value, where) if value is not None else Op("unknown", "scalefactor computed", where))
        ops.append(Op("layout_is", "NCHW", where))
        return ops

    # ------------------------------------------------------------------ sinks
    def sinks(self) -> list[tuple[ast.AST, ast.AST]]:
        """(the value fed to the net, the node that feeds it), in file order."""
        if self.tree is None:
            return []
        out = []
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Call):
                name = _dotted(node.func)
                method = node.func.attr if isinstance(node.func, ast.Attribute) else None
                if name.endswith("dnn.blobFromImage") or name.endswith("dnn.blobFromImages"):
                    out.append((node, node))
                elif method == "setInput" and node.args and not _is_blob_call(node.args[0]):
                    out.append((node.args[0], node))
                elif method == "run" and len(node.args) >= 2 and isinstance(node.args[1], ast.Dict):
                    out += [(v, node) for v in node.args[1].values]
                elif method in SINK_METHODS - {"setInput", "run"} and node.args and _looks_like_net(node.func.value):
                    out.append((node.args[0], node))
                elif method == "forward" and node.keywords and _looks_like_net(node.func.value):
                    out += [(k.value, node) for k in node.keywords if k.arg]
                elif isinstance(node.func, (ast.Name, ast.Attribute)) and _looks_like_net(node.func) and node.args \
                        and not _constructs(node):
                    out.append((node.args[0], node))
            elif isinstance(node, ast.Assign):
                for t in node.targets:
                    if isinstance(t, ast.Subscript) and ".blobs[" in (ast.get_source_segment(self.text, t) or ""):
                        out.append((node.value, node))
        return sorted(out, key=lambda s: getattr(s[1], "lineno", 0))

    def norm_cfgs(self) -> list[ast.AST]:
        """mmcv/mmdet ``img_norm_cfg = dict(mean=…, std=…, to_rgb=…)``."""
        if self.tree is None:
            return []
        out = []
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Call) and _dotted(node.func) == "dict":
                keys = {k.arg for k in node.keywords}
                if {"mean", "std"} <= keys and ("to_rgb" in keys or _assigned_to(self, node, "img_norm_cfg")):
                    out.append(node)
        return out


def _assigned_to(reader: CodeReader, node: ast.AST, name: str) -> bool:
    parent = reader.parents.get(id(node))
    return isinstance(parent, ast.Assign) and any(_dotted(t) == name for t in parent.targets)


def _is_blob_call(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and _dotted(node.func).endswith(("blobFromImage", "blobFromImages"))


def _constructs(call: ast.Call) -> bool:
    """``caffe.Net(prototxt, caffemodel, …)``, ``cv2.dnn.readNet…``, ``load_model(…)``: building a
    net from files, not feeding it an image."""
    name = _dotted(call.func)
    last = name.split(".")[-1]
    return (last[:1].isupper() and name.count(".") >= 1) or last.startswith(("read", "load", "create", "build")) \
        or any(isinstance(a, ast.Constant) and isinstance(a.value, str) for a in call.args[:1]) \
        or any(isinstance(a, ast.BinOp) and isinstance(a.op, ast.Add) for a in call.args[:1])


def _looks_like_net(node: ast.AST) -> bool:
    name = _dotted(node).split(".")[-1].lower()
    return any(w in name for w in ("net", "model", "session", "sess", "detector", "predictor", "interpreter"))


