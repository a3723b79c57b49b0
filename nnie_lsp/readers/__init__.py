"""The readers: every file nnie-lsp reads becomes an immutable document with exact ranges.

- :mod:`.cfg` -- the mapper cfg (lark grammar, one reading of its preprocessing, path resolution);
- :mod:`.prototxt` -- the Caffe net (text format, graph, shapes, the layer table);
- :mod:`.caffemodel` -- the binary weights;
- :mod:`.mapper` -- the mapper's own output: logs, ``cnn_net_tree.dot``, where its files are;
- :mod:`.dumpio` -- tensor dumps of every tool (Caffe, RuyiStudio, the mapper, the board);
- :mod:`.wk` -- the compiled ``.wk`` model;
- :mod:`.card` -- the model card ``nnie.toml`` (read, and the edits that add an entry);
- :mod:`.file_kinds` -- what a file is, told from its first KB.

A reader never raises on content (problems are part of the document) and never decides what a
finding is: the rules and the triage do.  Each reader is its own unit of the layering: its
``May import`` line names the readers below it.

May import: core.
"""
