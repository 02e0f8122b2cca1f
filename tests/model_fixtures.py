"""Small Transformers and id batches shared by the model tests, and an untrained parser."""

import dataclasses

import numpy as np

from t2t_lite.models.hyperparameters import HParams
from t2t_lite.models.transformer import Transformer

VOCAB = 40

SMALL = dataclasses.replace(HParams(), num_hidden_layers=2, hidden_size=32, filter_size=64,
                            num_heads=4, max_length=32)

# Variations the model must handle: the paper's, tensor2tensor v3's, and Table 3's.
VARIANTS = {
    "paper": SMALL,
    "pre_norm": dataclasses.replace(SMALL, pre_norm=True),
    "learned_positions": dataclasses.replace(SMALL, pos="emb"),
    "key_value_depths": dataclasses.replace(SMALL, attention_key_channels=16,
                                            attention_value_channels=48),
    "unshared": dataclasses.replace(SMALL, shared_embedding=False,
                                    shared_embedding_and_softmax_weights=False),
}


def small_model(hparams=SMALL, input_vocab=VOCAB, target_vocab=VOCAB, seed=0):
  import keras
  keras.utils.set_random_seed(seed)
  return Transformer(hparams, input_vocab, target_vocab)


def random_batch(batch=3, input_length=7, target_length=6, seed=0):
  """Ids in [2, VOCAB) with some trailing padding (0) in inputs and targets."""
  rng = np.random.default_rng(seed)
  inputs = rng.integers(2, VOCAB, (batch, input_length)).astype("int32")
  targets = rng.integers(2, VOCAB, (batch, target_length)).astype("int32")
  inputs[0, input_length - 2:] = 0
  targets[1, target_length - 3:] = 0
  return inputs, targets


# Sentences to parse, and trees to train the parser's vocabulary with them.
SENTENCES = ["The cat sat on the mat .", "Stocks fell .", "He said the plan failed ."]
TREES = ["(S (NP DT NN )NP (VP VBD (PP IN (NP DT NN )NP )PP )VP . )S",
         "(S (NP NNS )NP (VP VBD )VP . )S"]


def untrained_parser(problem=None):
  """-> (problem, model, vocabulary): an untrained parser with a small real vocabulary;
  problem: a parsing problem (default: parsing_english_ptb16k's)."""
  from t2t_lite.data.vocabulary import Vocabulary, train_sentencepiece
  from t2t_lite.problems.parsing_ptb import ParsingEnglishPtb16k
  problem = problem or ParsingEnglishPtb16k()
  size = 480
  model = small_model(hparams=dataclasses.replace(SMALL, max_length=64), input_vocab=size,
                      target_vocab=size, seed=1)  # Before the vocabulary: seeding resets
  vocabulary = Vocabulary(train_sentencepiece(   # the TF resources made before it.
      (SENTENCES + TREES) * 20, size, user_defined_symbols=problem.user_defined_symbols))
  return problem, model, vocabulary
