"""BPE-dropout (hparams.bpe_dropout): training text read in sampled segmentations."""

import collections

import tensorflow as tf

from helpers import read_all
from t2t_lite.constants import EOS_ID
from t2t_lite.models.hyperparameters import HParams


def texts(vocab, sequences):
  """The strings a list of id sequences decode to, as a multiset."""
  ragged = tf.ragged.constant([list(ids) for ids in sequences], dtype=tf.int32)
  return collections.Counter(vocab.decode(ragged).numpy().tolist())


def test_resegmented_ids_spell_the_same_text_in_other_pieces(small_translation_data):
  problem, data_dir = small_translation_data
  _, vocab = problem.vocabularies(data_dir)
  examples = read_all(problem, data_dir, "dev", False, bpe_dropout=0.0)
  sentences = [targets for _, targets in examples][:40]
  resegment = vocab.resegmenter(0.3)
  resegmented = [tuple(resegment(tf.constant(ids, tf.int32)).numpy().tolist())
                 for ids in sentences]
  assert all(ids[-1] == EOS_ID and EOS_ID not in ids[:-1] for ids in resegmented)
  assert texts(vocab, resegmented) == texts(vocab, sentences)
  assert sum(new != old for new, old in zip(resegmented, sentences)) >= len(sentences) // 2
  assert sum(map(len, resegmented)) > sum(map(len, sentences))


def test_training_reads_new_segmentations_and_evaluation_the_generated_ones(
    small_translation_data):
  problem, data_dir = small_translation_data
  vocabularies = problem.vocabularies(data_dir)
  as_generated = read_all(problem, data_dir, "train", True, bpe_dropout=0.0)
  resegmented = read_all(problem, data_dir, "train", True, bpe_dropout=0.3)
  assert len(resegmented) == len(as_generated)
  for side, vocab in enumerate(vocabularies):
    old = [example[side] for example in as_generated]
    new = [example[side] for example in resegmented]
    assert texts(vocab, new) == texts(vocab, old)
    assert sum(map(len, new)) > sum(map(len, old))
  # The same examples, in other pieces: the two reads share few id sequences.
  assert len(set(resegmented) & set(as_generated)) < len(as_generated) // 2
  assert (read_all(problem, data_dir, "dev", False, bpe_dropout=0.3)
          == read_all(problem, data_dir, "dev", False, bpe_dropout=0.0))


def test_each_epoch_reads_its_own_segmentations(small_translation_data):
  problem, data_dir = small_translation_data
  first, second = (read_all(problem, data_dir, "dev", True, bpe_dropout=0.3) for _ in range(2))
  assert len(set(first) & set(second)) < len(first) // 2


def test_a_resegmenting_reader_resumes_from_a_checkpoint(small_translation_data, tmp_path):
  """t2t-trainer checkpoints its input position with the model: the sampler must survive it."""
  problem, data_dir = small_translation_data
  hparams = HParams(batch_size=1024, max_length=256, bpe_dropout=0.3)
  dataset = problem.dataset("train", data_dir, hparams, training=True, deterministic=True,
                            seed=1)
  reading = iter(dataset)
  for _ in range(3):
    next(reading)
  path = tf.train.Checkpoint(iterator=reading).write(str(tmp_path / "input"))
  resumed = iter(dataset)
  tf.train.Checkpoint(iterator=resumed).read(path).assert_consumed()
  _, vocab = problem.vocabularies(data_dir)
  assert all(vocab.decode(next(resumed)["targets"]).numpy().all() for _ in range(3))
