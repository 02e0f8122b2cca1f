"""The peers: the same Transformer in other implementations, imported only when installed.

  torch_transformer.py      PyTorch's nn.Transformer: training, cached and uncached decoding
  keras_hub_transformer.py  keras-hub's TransformerEncoder/TransformerDecoder layers: training
"""
