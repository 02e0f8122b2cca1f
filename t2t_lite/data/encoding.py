"""Text pairs -> serialized records of ids: the work t2t-datagen spreads over processes.

    encoder = PairEncoder(input_model, target_model)   # SentencePiece models' bytes
    for encoded in encode_in_order(encoder, batches, processes=4):
      ...  # EncodedBatch of each batch of pairs, in the batches' order

A batch of pairs is encoded by SentencePiece's own library with the vocabulary's model,
one thread a process (the ids of `Vocabulary.encode`, its TensorFlow op, which the decoder
and a SavedModel use: tests/test_vocabulary.py checks that they agree), and serialized
without TensorFlow (`example_bytes`): a process that encodes is light and starts at once.
With several processes, the first `IN_PROCESS_BATCHES` batches are encoded here (a small
split starts no process), the others by `processes` processes started afresh
(`t2t_lite.data.encoding_workers`, which supervises them: one that dies ends the command at
once, in one line; spawned, so a Python script that calls this needs the
`if __name__ == "__main__":` guard), at most `IN_FLIGHT` batches per process in flight,
each taken back in its turn: the records are the same, byte for byte, whatever the number
of processes. What this process holds at a time does not grow with the split.
"""

import dataclasses

import sentencepiece as spm

from t2t_lite.constants import EOS_ID
from t2t_lite.data import example_bytes
from t2t_lite.data.encoding_workers import EncodingWorkers

IN_PROCESS_BATCHES = 16  # Encoded here before a pool starts (a process takes a second).
IN_FLIGHT = 2            # Batches handed to each process at a time.


@dataclasses.dataclass
class EncodedBatch:
  """records: serialized tf.train.Examples; input_lengths, target_lengths: their ids per
  side, EOS included (lists of int)."""
  records: list
  input_lengths: list
  target_lengths: list


class PairEncoder:
  """Encodes batches of (source, target) pairs with two SentencePiece models (the same
  bytes twice when shared); picklable, so that encoding processes each build their own."""

  def __init__(self, input_model, target_model):
    self.models = (input_model, target_model)
    self._built = None

  def __getstate__(self):
    return {"models": self.models, "_built": None}

  def encode(self, pairs):
    """[(source, target)] -> EncodedBatch."""
    (inputs_vocab, targets_vocab), varints = self._build()
    inputs = _encode(inputs_vocab, [source for source, _ in pairs])
    targets = _encode(targets_vocab, [target for _, target in pairs])
    return EncodedBatch([example_bytes.serialize(i, t, varints)
                         for i, t in zip(inputs, targets)],
                        [len(i) for i in inputs], [len(t) for t in targets])

  def _build(self):
    """((input processor, target processor), the varints of every id of either)."""
    if self._built is None:
      processors = [spm.SentencePieceProcessor(model_proto=model, num_threads=1)
                    for model in self.models]
      size = max(processor.get_piece_size() for processor in processors)
      self._built = processors, example_bytes.varint_table(size)
    return self._built


def _encode(processor, texts):
  """Texts -> a list of id lists, each ending with EOS."""
  return [ids + [EOS_ID] for ids in processor.encode(texts)]


def encode_in_order(encoder, batches, processes):
  """Yields `encoder.encode(batch)` for each of `batches` (an iterable of lists of pairs),
  in order, with `processes` processes (module doc)."""
  batches = iter(batches)
  for index, batch in enumerate(batches):
    yield encoder.encode(batch)
    if processes > 1 and index + 1 == IN_PROCESS_BATCHES:
      yield from _encode_in_processes(encoder, batches, processes)
      return


def _encode_in_processes(encoder, batches, processes):
  with EncodingWorkers(encoder, processes, IN_FLIGHT) as workers:
    yield from workers.encode_in_order(batches)
