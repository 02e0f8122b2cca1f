"""t2t-decoder --score_file: tensor2tensor's loss of given pairs, per target token."""

import dataclasses
import types

import numpy as np
import pytest
import tensorflow as tf

from decoding_fakes import teacher_forced_log_prob
from model_fixtures import SMALL, VOCAB, small_model
from t2t_lite.decoding.lengths import EOS_ID
from t2t_lite.decoding.scoring import PAIRS_PER_BATCH, pair_losses, score_lines
from t2t_lite.errors import UserError
from t2t_lite.layers.losses import smoothed_cross_entropy


class LetterVocabulary:
  """Each letter an id in [2, VOCAB), then EOS: a stand-in for a SentencePiece model."""

  def encode(self, strings):
    texts = [text.decode("utf-8") for text in strings.numpy()]
    return tf.ragged.constant([[2 + ord(c) % (VOCAB - 2) for c in text] + [EOS_ID]
                               for text in texts], dtype=tf.int32)


def translator_of(model):
  return types.SimpleNamespace(model=model, hparams=model.hparams, reranker=None,
                               input_vocab=LetterVocabulary(), target_vocab=LetterVocabulary())


def test_without_smoothing_the_loss_is_the_negative_log_likelihood_per_token():
  model = small_model(dataclasses.replace(SMALL, label_smoothing=0.0))
  inputs = np.array([[5, 6, 7, EOS_ID], [8, 9, EOS_ID, 0]], np.int32)
  targets = np.array([[10, 11, EOS_ID], [12, EOS_ID, 0]], np.int32)
  losses = np.asarray(pair_losses(model, inputs, targets))
  expected = [-teacher_forced_log_prob(model, [5, 6, 7, EOS_ID], [10, 11, EOS_ID]) / 3,
              -teacher_forced_log_prob(model, [8, 9, EOS_ID], [12, EOS_ID]) / 2]
  np.testing.assert_allclose(losses, expected, rtol=1e-5)


def test_with_smoothing_it_is_the_training_loss_of_the_pair_alone():
  model = small_model()
  inputs, targets = np.array([[8, 9, EOS_ID, 0]], np.int32), np.array([[12, EOS_ID, 0]], np.int32)
  alone_logits = model({"inputs": inputs[:, :3], "targets": targets[:, :2]}, training=False)
  expected = np.mean(smoothed_cross_entropy(targets[:, :2], alone_logits, 0.1))
  assert float(pair_losses(model, inputs, targets)[0]) == pytest.approx(expected, rel=1e-5)


def test_scores_come_back_in_input_order_across_batches():
  model = small_model(dataclasses.replace(SMALL, label_smoothing=0.0))
  vocabulary = LetterVocabulary()
  pairs = [("abcdefghij"[:1 + k % 9], "klmnopq"[:1 + k % 6]) for k in range(PAIRS_PER_BATCH + 9)]
  scores = score_lines(translator_of(model), [f"{source}\t{target}" for source, target in pairs])
  assert len(scores) == len(pairs)
  for (source, target), score in zip(pairs[::7], scores[::7]):
    source_ids, target_ids = (vocabulary.encode(tf.constant([text])).to_list()[0]
                              for text in (source, target))
    expected = -teacher_forced_log_prob(model, source_ids, target_ids) / len(target_ids)
    assert len(score.split(".")[1]) == 6 and float(score) == pytest.approx(expected, abs=2e-6)


@pytest.mark.parametrize("lines, hparams, message", [
    (["a\tb", "no tab here"], SMALL, "--score_file line 2: expected input<TAB>target, found "
                                     "0 tabs"),
    (["a\tb\tc"], SMALL, "--score_file line 1: expected input<TAB>target, found 2 tabs"),
    (["a\t" + "b" * 40], dataclasses.replace(SMALL, pos="emb"),
     "--score_file line 1 has 41 tokens; this model's learned positions stop at max_length=32"),
])
def test_bad_lines_are_one_line_errors(lines, hparams, message):
  with pytest.raises(UserError, match=message.replace("(", r"\(")):
    score_lines(translator_of(small_model(hparams)), lines)
