"""SentencePiece vocabularies: special ids, exact round trips of real text, in-graph decoding."""

import os
import unicodedata

import pytest
import tensorflow as tf

from t2t_lite.data import records
from t2t_lite.data.vocabulary import (EOS_ID, PAD_ID, UNK_ID, Vocabulary, train_sentencepiece,
                                      vocab_size_of)
from t2t_lite.errors import UserError

LANGUAGES = ("en", "de", "fr")


@pytest.fixture(scope="module")
def news(shared_data):
  """{language: the 3000 lines of newstest2013}: real text with umlauts, accents, quotes."""
  lines = {}
  for language in LANGUAGES:
    path = os.path.join(shared_data, "wmt14", f"newstest2013.{language}")
    with open(path, encoding="utf-8") as f:
      lines[language] = f.read().splitlines()
  return lines


@pytest.fixture(scope="module")
def news_vocab(news):
  return Vocabulary(train_sentencepiece([l for ls in news.values() for l in ls], 4000))


def test_special_ids_agree_with_the_model(news_vocab):
  pieces = news_vocab.id_to_piece(tf.constant([PAD_ID, EOS_ID, UNK_ID])).numpy().tolist()
  assert pieces == [b"<pad>", b"</s>", b"<unk>"]
  assert (PAD_ID, EOS_ID) == (0, 1)
  assert news_vocab.size == 4000


def test_real_sentences_round_trip_exactly(news, news_vocab):
  text = "\n".join(news["de"] + news["fr"])
  for sample in ("ä", "ö", "ü", "ß", "é", "è", "ç", "œ", '"', "'"):  # The test covers them.
    assert sample in text
  for language, lines in news.items():
    ids = news_vocab.encode(tf.constant(lines))  # [3000, (length)]
    assert ids.shape[0] == len(lines)
    assert all(row[-1] == EOS_ID for row in ids.to_list())
    decoded = [s.decode("utf-8") for s in news_vocab.decode(ids).numpy()]
    mismatches = [(a, b) for a, b in zip(decoded, lines) if a != b]
    assert not mismatches, f"{language}: {len(mismatches)} lines differ, e.g. {mismatches[0]}"


def test_unseen_characters_fall_back_to_bytes(news_vocab):
  text = "Grüße 東京 🚀 — «ça»  two  spaces"
  ids = news_vocab.encode(tf.constant([text]))
  assert UNK_ID not in ids.flat_values.numpy()
  assert news_vocab.decode(ids).numpy()[0].decode("utf-8") == text


def test_decode_stops_at_eos_and_skips_padding(news_vocab):
  ids = news_vocab.encode(tf.constant(["Der Hund.", "Le chat est là."]))
  dense = ids.to_tensor(default_value=PAD_ID)  # [2, length]
  garbage = tf.fill([2, 3], 7)  # What a model may emit after EOS.
  padded = tf.concat([dense, garbage, tf.zeros([2, 2], tf.int32)], axis=1)
  assert news_vocab.decode(padded).numpy().tolist() == [b"Der Hund.", "Le chat est là.".encode()]
  assert news_vocab.decode(padded[1]).numpy() == "Le chat est là.".encode()
  without_eos = tf.constant([[PAD_ID] + ids[0].numpy()[:-1].tolist()])
  assert news_vocab.decode(without_eos).numpy().tolist() == [b"Der Hund."]


def test_graph_and_eager_agree(news, news_vocab):
  lines = tf.constant(news["de"][:64])

  @tf.function(input_signature=[tf.TensorSpec([None], tf.string)])
  def round_trip(strings):
    return news_vocab.decode(news_vocab.encode(strings).to_tensor())

  assert round_trip(lines).numpy().tolist() == news_vocab.decode(
      news_vocab.encode(lines)).numpy().tolist()
  assert round_trip(lines).numpy().tolist() == [l.encode() for l in news["de"][:64]]


def test_a_saved_model_carries_the_vocabulary(news, news_vocab, tmp_path):
  module = tf.Module()
  module.vocab = news_vocab
  module.round_trip = tf.function(
      lambda strings: news_vocab.decode(news_vocab.encode(strings).to_tensor()),
      input_signature=[tf.TensorSpec([None], tf.string)])
  tf.saved_model.save(module, str(tmp_path / "saved"))
  loaded = tf.saved_model.load(str(tmp_path / "saved"))
  lines = news["fr"][:32] + ["Grüße 東京 🚀"]
  assert loaded.round_trip(tf.constant(lines)).numpy().tolist() == [l.encode() for l in lines]


def test_a_lowercasing_vocabulary_reads_any_case_and_writes_lowercase(news):
  vocab = Vocabulary(train_sentencepiece(news["de"], 4000, lowercase=True))
  lines = news["de"][:32] + ["GROSSE Straße, ÄRGER über Öl"]
  lowered = [unicodedata.normalize("NFKC", line).lower() for line in lines]  # ß stays ß.
  encoded = vocab.encode(tf.constant(lines))
  assert encoded.to_list() == vocab.encode(tf.constant(lowered)).to_list()
  assert [d.decode() for d in vocab.decode(encoded.to_tensor()).numpy()] == lowered


def test_user_defined_symbols_stay_atomic():
  trees = ["(S (NP the dog )NP (VP barks )VP )S", "(S (NP cats )NP (VP sleep )VP )S"] * 50
  tree = tf.constant("(S (NP birds )NP )S")

  def pieces(vocab):
    return [p.decode() for p in vocab.id_to_piece(vocab.encode(tree)).numpy()]
  symbols = ("(S", ")S", "(NP", ")NP", "(VP", ")VP")
  atomic = pieces(Vocabulary(train_sentencepiece(trees, 300, user_defined_symbols=symbols)))
  assert [p for p in atomic if p in symbols] == ["(S", "(NP", ")NP", ")S"]
  plain = pieces(Vocabulary(train_sentencepiece(trees, 300)))
  assert not [p for p in plain if p in symbols]  # Without them, BPE splits the brackets.


def test_datagen_encodes_as_the_graph_does(news, news_vocab):
  """t2t-datagen's encoding processes (SentencePiece's library) and the decoder's and a
  SavedModel's tokenizer (its TensorFlow op) give the same ids: on real news text in three
  languages, on what falls back to bytes, on a lowercasing vocabulary, and on
  user-defined symbols."""
  from t2t_lite.data.encoding import PairEncoder
  odd = ["Grüße 東京 🚀 — «ça»  two  spaces", " leading and trailing ", "tab\there",
         "\u00a0no-break\u2009thin\u200bzero-width", "e\u0301 combining", "\x7f\x01 control"]
  lowercase = Vocabulary(train_sentencepiece(news["de"], 4000, lowercase=True))
  trees = ["(S (NP the dog )NP (VP barks )VP )S", "(S (NP cats )NP (VP sleep )VP )S"] * 50
  symbols = Vocabulary(train_sentencepiece(trees, 300, user_defined_symbols=("(S", ")S")))
  cases = [(news_vocab, [line for lines in news.values() for line in lines] + odd),
           (lowercase, news["de"][:500] + ["GROSSE Straße, ÄRGER über Öl"] + odd),
           (symbols, trees[:2] + ["(S (NP birds )NP )S"] + odd)]
  for vocab, texts in cases:
    encoded = PairEncoder(vocab.model_proto, vocab.model_proto).encode(
        [(text, text) for text in texts])
    in_graph = vocab.encode(tf.constant(texts))  # [texts, (length)]
    lengths = in_graph.row_lengths().numpy().tolist()
    assert encoded.input_lengths == encoded.target_lengths == lengths
    expected = [records.serialize(ids, ids) for ids in in_graph.to_list()]
    assert encoded.records == expected


def test_too_large_vocab_says_what_size_fits():
  with pytest.raises(UserError, match=r"pass --vocab_size=\d+ or smaller") as info:
    train_sentencepiece(["a tiny corpus", "of two lines"], 1000)
  assert "\n" not in str(info.value)


def test_too_small_vocab_is_refused():
  with pytest.raises(UserError, match="vocab_size=100 is too small"):
    train_sentencepiece(["text"], 100)


def test_missing_vocabulary_says_to_run_datagen(tmp_path):
  with pytest.raises(UserError, match="run t2t-datagen --problem=some_problem"):
    vocab_size_of(str(tmp_path / "vocab.some_problem.model"), "some_problem")
  with pytest.raises(UserError, match="run t2t-datagen"):
    Vocabulary.load(str(tmp_path / "vocab.x.model"), "x")
