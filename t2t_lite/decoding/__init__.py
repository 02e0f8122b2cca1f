"""Decoding as pure functions of a step callback and a static-shape cache.

  beam_search.py     tensor2tensor's beam search (alive and finished sets, length penalty).
  greedy.py          the argmax at every step, over the same step callback and cache.
  lengths.py         what both share: per-example limits, the forced EOS, the length penalty.
  model_decoding.py  a `Transformer` plugged in: encode, build the cache, search, trim.
  ensemble.py        several models as one: the mean of their probabilities at each step.
  mbr.py             a finished beam ranked by minimum Bayes risk (expected sentence BLEU).

A step callback is `step_fn(ids [n], step scalar, cache) -> (logits [n, vocab], cache)`:
`ids` are the decoder inputs at position `step` (the initial id at step 0, then the
previous outputs), and every tensor of the nested `cache` has the `n` rows first.
The searches run eagerly, under `tf.function`, under XLA and on Keras's JAX backend.
"""
