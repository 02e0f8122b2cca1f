"""Keras 3 layers of the Transformer and its loss, written with `keras.ops` (any backend).

  encoder.py              the encoder stack (paper section 3.1).
  decoder.py              the decoder stack, teacher-forced or one step at a time.
  attention.py            multi-head scaled dot-product attention (section 3.2).
  head_projection.py      attention's projections into and out of heads, one 2-D matmul each.
  attention_bias.py       additive biases: 0 where attention may look, very negative where not.
  feed_forward.py         the position-wise feed-forward network (section 3.3).
  residual.py             residual connection, dropout and layer normalisation around a sublayer.
  dropout.py              dropout whose keep mask draws a half or a quarter of Keras's bits.
  symbol_dropout.py       token ids replaced by padding at random while training (word dropout).
  embedding.py            token embeddings (optionally shared with the softmax), positional encodings.
  slice_update.py         the decoding caches' writes: TensorFlow's own kernel off XLA.
  built_by_first_call.py  a build method for layers made only of other layers.
  losses.py               label-smoothed cross-entropy over non-padding tokens (section 5.4).
"""
