"""Numbers every layer of t2t_lite agrees on: the special ids and the large negatives.

Ids (the SentencePiece vocabulary, the model and the searches agree on them):
  PAD_ID  0: padding, never a key attended to; also the decoder's first input.
  EOS_ID  1: end of sequence; every input and target ends with it.
  UNK_ID  2: a piece the vocabulary does not hold (byte fallback makes it rare).
WORD_START ("▁"): SentencePiece's mark of a word's start, which begins a piece.

Two large negatives, for two jobs:
  MASKED_BIAS: the attention bias of a key a query may not see. Added to logits
    that may be cast to float16, so it must be finite there (float16's largest
    magnitude is 65504); exp() of it is 0 in every float type.
  IMPOSSIBLE_LOG_PROB: the log-probability (and score) of a hypothesis that
    cannot be, e.g. an empty beam slot. Searches keep scores in float32 and
    compare them, so -inf is exact: it loses to every finite score and stays
    -inf when added to.

PER_EXAMPLE ("per_example"): the entry of a decoding cache (a dict) that the searches
neither tile nor reorder: one row per example, which all of its hypotheses read
(the encoder's keys and values); every other cache tensor has a row per hypothesis.
"""

PAD_ID = 0
EOS_ID = 1
UNK_ID = 2
WORD_START = "\u2581"

MASKED_BIAS = -6e4
IMPOSSIBLE_LOG_PROB = float("-inf")

PER_EXAMPLE = "per_example"
