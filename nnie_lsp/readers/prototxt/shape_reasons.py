"""Why a layer's output shape cannot be told: the reasons shape inference gives, by key, and the
exceptions the per-type rules (:mod:`.shape_rules`) raise with them.  Keys, not sentences, travel
with a :class:`~nnie_lsp.readers.prototxt.shapes.ShapeStop`, so NN022 can say each reason in the user's
language (``nnie_lsp/rules/shape_stops.py``).
"""

from __future__ import annotations

__all__ = ["REASONS", "ShapeProblem"]


#: why a layer's output shape cannot be told, by key: the English text (NN022 holds the Chinese
#: form of each, keyed ``why_<key>``).  The per-type rules raise the first group, the driver
#: (:mod:`.shapes`) states the rest.
REASONS: dict[str, str] = {
    "input_unknown": "input shape unknown",
    "rank": "expected a {ndim}-D input, got {got}-D",
    "axis_range": "axis {axis} out of range for a {ndim}-D blob",
    "num_output": "num_output missing",
    "kernel": "kernel size missing",
    "stride": "stride must be positive",
    "concat_empty": "Concat without inputs",
    "reshape_zero": "a copied dim is 0: -1 cannot be inferred",
    "permute_order": "bad permute order",
    "slice_points": "slice_point count must be #tops - 1",
    "slice_split": "axis not divisible by #tops",
    "reorg_channels": "channels not divisible by stride^2",
    "reorg_hw": "H/W not divisible by stride",
    "crop_inputs": "Crop needs two bottoms with known shapes",
    "interp_size": "no output size parameters",
    "custom_shapes": "custom_param needs one shape per top",
    "roi_inputs": "ROIPooling needs the feature map and ROI shapes",
    "psroi_inputs": "PSROIPooling needs the ROI shape",
    "input_layer_shape": "Input layer without shape",
    "input_layer_per_top": "Input layer needs one shape per top",
    "dummy_per_top": "dummy_data_param needs one {what} per top",
    "dummy_shape": "DummyData without shape",
    "memory_data": "memory_data_param needs batch_size, channels, height and width",
    # the driver's own
    "not_positive": "output size {shape} is not positive",
    "top_unknown": "a top is unknown",
    "no_shape_every_top": "{type} declares no shape for every top",
    "error": "{error}",
}


class _Unknown(Exception):
    """The rule cannot tell the output: ``key`` names the reason in :data:`REASONS`, ``params``
    fill it in; ``str()`` is the English text."""

    def __init__(self, key: str, **params) -> None:
        super().__init__(REASONS[key].format(**params))
        self.key = key
        self.params = params


class ShapeProblem(_Unknown):
    """A layer whose parameters do not fit its input: Caffe (and nnie_mapper) refuse to set the
    net up.  ``kind`` names the check (e.g. ``"count"`` for a Reshape whose element count
    changes); ``details`` holds the numbers for the message (``input`` shape, ``count``, ``dim``
    index in ``reshape_param.shape`` …)."""

    def __init__(self, layer: int, kind: str, **details) -> None:
        Exception.__init__(self, f"{kind}: {details}")
        self.key, self.params = "problem", {}
        self.layer = layer
        self.kind = kind
        self.details = details
