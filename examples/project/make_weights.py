"""Write model.caffemodel with seeded random weights for model.prototxt (the demo needs a real file).

    python examples/project/make_weights.py
"""

import os

import numpy as np
from google.protobuf import text_format

from nnie_lsp.readers.prototxt import caffe_pb2

HERE = os.path.dirname(os.path.abspath(__file__))


def blob(arr):
    b = caffe_pb2.BlobProto()
    b.shape.dim.extend(arr.shape)
    b.data.extend(arr.astype(np.float32).ravel().tolist())
    return b


def main():
    net = caffe_pb2.NetParameter()
    with open(os.path.join(HERE, "model.prototxt")) as fh:
        text_format.Parse(fh.read(), net)
    rng = np.random.default_rng(2026)
    channels = {"data": 3}
    out = caffe_pb2.NetParameter(name=net.name)
    for layer in net.layer:
        cin = channels.get(layer.bottom[0], 0) if layer.bottom else 0
        cout = cin
        blobs = []
        if layer.type == "Convolution":
            p = layer.convolution_param
            k = p.kernel_size[0] if p.kernel_size else 1
            cout = p.num_output
            blobs.append(rng.normal(0, (2.0 / (cin * k * k)) ** 0.5, (cout, cin, k, k)))
            if p.bias_term:
                blobs.append(rng.normal(0, 0.05, (cout,)))
        elif layer.type == "InnerProduct":
            cout = layer.inner_product_param.num_output
            blobs += [rng.normal(0, (1.0 / cin) ** 0.5, (cout, cin)), rng.normal(0, 0.05, (cout,))]
        elif layer.type == "BatchNorm":
            blobs += [rng.normal(0, 0.1, (cin,)), rng.uniform(0.5, 1.5, (cin,)), np.ones(1)]
        elif layer.type == "Scale":
            blobs += [rng.uniform(0.8, 1.2, (cin,)), rng.normal(0, 0.05, (cin,))]
        elif layer.type == "Concat":
            cout = sum(channels[b] for b in layer.bottom)
        for t in layer.top:
            channels[t] = cout
        if blobs:
            lp = out.layer.add(name=layer.name, type=layer.type)
            lp.blobs.extend(blob(b) for b in blobs)
    with open(os.path.join(HERE, "model.caffemodel"), "wb") as fh:
        fh.write(out.SerializeToString())


if __name__ == "__main__":
    main()
