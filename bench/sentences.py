"""Real sentences for decoding: newstest2014 English, tokenised with a vocabulary trained now.

The SentencePiece vocabulary (DECODE_VOCAB_SIZE pieces, BPE) is trained on the
fly on the 20,000 Europarl en-de pairs beside the project; newstest2014 is read
in place. Ids follow t2t_lite: 0 padding, 1 EOS (ending every input).
"""

import itertools
import os

import numpy as np
import sentencepiece as spm

from bench import configs
from t2t_lite.constants import EOS_ID
from t2t_lite.data.vocabulary import train_sentencepiece


def check_data():
  """Raises SystemExit with what is missing when the shared data folder is absent."""
  for path in (configs.NEWSTEST_EN, configs.EUROPARL + ".en"):
    if not os.path.exists(path):
      raise SystemExit(f"{path} is missing: the real data sits in ../shared/data beside the "
                       f"project (see its README)")


def europarl_vocabulary(vocab_size=configs.DECODE_VOCAB_SIZE):
  """A SentencePieceProcessor trained on Europarl's English and German sides."""
  check_data()

  def lines():
    for language in ("en", "de"):
      with open(f"{configs.EUROPARL}.{language}", encoding="utf-8") as f:
        yield from (line.rstrip("\n") for line in f)
  return spm.SentencePieceProcessor(model_proto=train_sentencepiece(lines(), vocab_size))


def newstest_ids(processor, count):
  """The first `count` sentences of newstest2014 (en) as id lists, each ending with EOS."""
  check_data()
  with open(configs.NEWSTEST_EN, encoding="utf-8") as f:
    lines = [line.rstrip("\n") for line in itertools.islice(f, count)]
  return [ids + [EOS_ID] for ids in processor.encode(lines)]


def padded_batches(sentences, batch_size, bucket=configs.WIDTH_BUCKET):
  """Id lists -> [batch_size, width] int32 arrays, width the longest rounded up to `bucket`."""
  batches = []
  for start in range(0, len(sentences), batch_size):
    rows = sentences[start:start + batch_size]
    width = -(-max(len(ids) for ids in rows) // bucket) * bucket
    batch = np.zeros((len(rows), width), np.int32)
    for row, ids in zip(batch, rows):
      row[:len(ids)] = ids
    batches.append(batch)
  return batches
