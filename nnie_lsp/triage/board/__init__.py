"""The last hop: the board's own dumps (``compare --board DIR``) checked for the mistakes board code
makes around ``HI_MPI_SVP_NNIE_Forward`` (docs/field-facts.md §20), before they are compared with
the simulator and with Caffe.

- :mod:`.folder` -- the board folder: its runs (sub-folders, or several ``--board``), each file's
  form (:mod:`nnie_lsp.readers.dumpio.board`) and the node it is named after, and the contract the files
  are read by (the `.wk` beside the cfg, :mod:`nnie_lsp.readers.wk.contract`; else the prototxt's shapes);
- :mod:`.readings` -- the ways one file can be read (row strides, scales, HWC/CHW, channel orders)
  and how close a reading is to what it should hold;
- :mod:`.checks` -- the board checks, in the order the board code runs: repeatability, the input
  (stride, layout, channel order), each output (stride, the 4096 scale, which output it is), then
  how close the board is to the simulator and to Caffe;
- :mod:`.findings` -- their T-codes (T601-T608, registered here: docs, en/zh);
- :mod:`.stage` -- the verdict: the stage **board** when a check fires, else the guide's.

Importing the package (or :mod:`.findings`) loads no numpy.
"""
