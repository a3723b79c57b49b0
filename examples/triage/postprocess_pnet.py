"""MTCNN P-Net post-processing for `nnie-triage compare --postprocess` (guide step 5).

    nnie-triage compare ... --postprocess examples/triage/postprocess_pnet.py:decode

`decode(outputs)` gets the final output tensors of one side ({blob name: array}) and returns
detections, {"boxes": [[x1, y1, x2, y2], ...], "scores": [...]}, in input-image pixels. The triage
runs it on the Caffe and on the NNIE outputs and matches the boxes by IoU, so a case-4 net whose
tensors agree to 0.99 can still be shown to give different faces.

The decoding is MTCNN's generateBoundingBox: P-Net is a 12x12 sliding window with stride 2;
`prob1` channel 1 is the face score and `conv4-2` the box regression (dx1, dy1, dx2, dy2) in
units of the window. (MATLAB-trained weights see the image transposed, so x and y are swapped
back at the end.)
"""

from __future__ import annotations

import numpy as np

STRIDE, CELL = 2, 12
THRESHOLD = 0.6
NMS_IOU = 0.5


def _nms(boxes: np.ndarray, scores: np.ndarray, iou: float) -> list[int]:
    order = list(np.argsort(-scores))
    keep = []
    while order:
        i = order.pop(0)
        keep.append(i)
        rest = []
        for j in order:
            xx1, yy1 = max(boxes[i, 0], boxes[j, 0]), max(boxes[i, 1], boxes[j, 1])
            xx2, yy2 = min(boxes[i, 2], boxes[j, 2]), min(boxes[i, 3], boxes[j, 3])
            inter = max(0.0, xx2 - xx1) * max(0.0, yy2 - yy1)
            area = lambda b: (b[2] - b[0]) * (b[3] - b[1])
            if inter / (area(boxes[i]) + area(boxes[j]) - inter + 1e-9) <= iou:
                rest.append(j)
        order = rest
    return keep


def decode(outputs: dict) -> dict:
    prob = np.asarray(outputs["prob1"], dtype=np.float64).reshape(2, *np.asarray(outputs["prob1"]).shape[-2:])
    reg = np.asarray(outputs["conv4-2"], dtype=np.float64).reshape(4, *prob.shape[-2:])
    ys, xs = np.nonzero(prob[1] >= THRESHOLD)
    if ys.size == 0:
        return {"boxes": np.zeros((0, 4)), "scores": np.zeros(0)}
    scores = prob[1, ys, xs]
    # window corners in the net input, then the regression (MTCNN order: dx1, dy1, dx2, dy2)
    x1 = STRIDE * xs + 1.0
    y1 = STRIDE * ys + 1.0
    x2 = STRIDE * xs + CELL
    y2 = STRIDE * ys + CELL
    w, h = x2 - x1 + 1, y2 - y1 + 1
    boxes = np.stack([x1 + reg[0, ys, xs] * w, y1 + reg[1, ys, xs] * h,
                      x2 + reg[2, ys, xs] * w, y2 + reg[3, ys, xs] * h], axis=1)
    boxes = boxes[:, [1, 0, 3, 2]]  # MATLAB transpose: back to image x, y
    keep = _nms(boxes, scores, NMS_IOU)
    return {"boxes": boxes[keep], "scores": scores[keep]}
