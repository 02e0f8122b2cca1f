"""Decoding: searches as pure functions of a step callback and a static-shape cache, and
what t2t-decoder builds around them.

The searches and what they decode:
  beam_search.py     tensor2tensor's beam search (alive and finished sets, length penalty).
  retiring.py        the same search, its finished examples leaving the batch (TensorFlow).
  greedy.py          the argmax at every step, over the same step callback and cache.
  lengths.py         what both share: per-example limits, the forced EOS, the length penalty.
  model_decoding.py  a `Transformer` plugged in: encode, build the cache, search, trim.
  ensemble_model.py  several models as one: the mean of their probabilities at each step.
  mbr.py             a finished beam ranked by minimum Bayes risk (expected sentence BLEU).
  cache_growth.py    caches that grow with the search, so that a step costs what it uses.
  growing_loop.py    the same growth within one loop, its body traced once (no XLA).

Rules that restrict a step's choices (parsing):
  token_counts.py    the count rule: as many tokens of a set as the source requires.
  bracket_rule.py    the bracket rule: well-formed trees, on top of the count rule.
  copy_rule.py       the copy rule: leaves that are the source's own pieces, in order.

Around them, for t2t-decoder:
  decode_hparams.py  the settings: the problem's defaults, then --decode_hparams.
  translate.py       text in, text out with a trained run's model.
  sentence_batches.py  sentences in batches of similar lengths (t2t-serve's batches too).
  right_to_left.py   runs that read and write targets last token first: no rules for them.
  rerank.py          a beam reranked by runs of both directions.
  scoring.py         --score_file: the score of given (input, target) pairs.

A step callback is `step_fn(ids [n], step scalar, cache) -> (logits [n, vocab], cache)`:
`ids` are the decoder inputs at position `step` (the initial id at step 0, then the
previous outputs), and every tensor of the nested `cache` has the `n` rows first.
The searches run eagerly, under `tf.function`, under XLA and on Keras's JAX backend;
the retiring beam search (whose batch shrinks) eagerly and under `tf.function` only,
which is how t2t-decoder and the SavedModel search on a CPU.
What a problem's targets need beyond text (`Problem.target_form`) and a right-to-left
run's order of target ids live below decoding, in t2t_lite.data.target_form and
t2t_lite.data.target_order.
"""
