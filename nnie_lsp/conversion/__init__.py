"""The ONNX → Caffe conversion stage: a converted prototxt (and caffemodel) checked against the ONNX
model it came from, without running either (the NN5xx rules read :func:`analysis.analyze`).

- :mod:`.onnx_graph` reads the model (``onnx``, the ``[onnx]`` extra, imported when a model is read);
- :mod:`.matching` matches Caffe layers to ONNX nodes (tensor name, then graph structure and shapes);
- :mod:`.layer_checks` runs the checks of :mod:`.geometry`, :mod:`.layout`, :mod:`.weights` and the
  element-wise comparison of :mod:`.functions`, giving :class:`.findings.Finding`\\ s.

Facts: docs/field-facts.md §17.

May import: core, readers, project.
"""
