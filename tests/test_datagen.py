"""Datagen end to end: text -> vocabulary + records -> pipeline -> ids -> the same text.

Also: drops are counted, bad input gives one line, and an interrupted run
leaves nothing that a reader or a later run trusts.
"""

import os
import signal
import sys
import textwrap

import pytest
import tensorflow as tf

from commands import run as run_process, status_and_output
from t2t_lite.data import datagen, encoding, records
from t2t_lite.data.problem import Drop, Sources, TextPairProblem
from t2t_lite.errors import UserError
from t2t_lite.files.atomic_files import write_bytes_atomic
from t2t_lite.models.hyperparameters import HParams

PROBLEM = "translate_from_files"
TRAIN_LINES = 2000


def tool_lines(stderr, tool):
  """The tool's own lines on stderr (TensorFlow's start-up messages left out)."""
  return [line for line in stderr.splitlines() if line.startswith(f"{tool}:")]


def head(path, lines, out):
  with open(path, encoding="utf-8") as f, open(out, "w", encoding="utf-8") as g:
    for _ in range(lines):
      g.write(f.readline())
  return str(out)


@pytest.fixture(scope="module")
def europarl(shared_data, tmp_path_factory):
  """t2t-datagen run as a user: 2,000 Europarl en-de pairs, newstest2013 as dev."""
  tmp = tmp_path_factory.mktemp("europarl")
  europarl = os.path.join(shared_data, "europarl", "europarl-v7.de-en.first20k")
  news = os.path.join(shared_data, "wmt14", "newstest2013")
  data_dir = str(tmp / "data")
  code, out, err = status_and_output(
      "t2t-datagen", f"--problem={PROBLEM}", f"--data_dir={data_dir}",
      f"--tmp_dir={tmp / 'tmp'}",
      f"--train_source={head(europarl + '.en', TRAIN_LINES, tmp / 'train.en')}",
      f"--train_target={head(europarl + '.de', TRAIN_LINES, tmp / 'train.de')}",
      f"--dev_source={news}.en", f"--dev_target={news}.de",
      "--vocab_size=4000")
  assert code == 0, err
  return data_dir, out, news


def problem():
  from t2t_lite.registry import PROBLEMS
  return PROBLEMS[PROBLEM]()


def test_datagen_prints_a_summary(europarl):
  _, out, _ = europarl
  print(out)
  lines = out.splitlines()
  assert lines[0].startswith(f"{PROBLEM} -> ")
  assert "4000 pieces" in lines[1] and "shared by inputs and targets" in lines[1]
  train = next(line for line in lines if line.startswith("train "))
  dev = next(line for line in lines if line.startswith("dev "))
  assert "2,000" in train and "3,000" in dev
  assert "p50/p90/p99/max" in out


def test_real_sentences_round_trip_through_records_and_pipeline(europarl):
  data_dir, _, news = europarl
  task = problem()
  assert task.vocab_sizes(data_dir) == (4000, 4000)
  input_vocab, target_vocab = task.vocabularies(data_dir)
  hparams = HParams(batch_size=4096, max_length=256)
  pairs = []
  for batch in task.dataset("dev", data_dir, hparams, training=False):
    sources = input_vocab.decode(batch["inputs"]).numpy()  # [batch] strings
    targets = target_vocab.decode(batch["targets"]).numpy()
    pairs.extend(zip((s.decode("utf-8") for s in sources), (t.decode("utf-8") for t in targets)))
  with open(news + ".en", encoding="utf-8") as en, open(news + ".de", encoding="utf-8") as de:
    expected = [(s.strip(), t.strip()) for s, t in zip(en, de)]
  assert sorted(pairs) == sorted(expected)
  assert any("ü" in t for _, t in pairs) and any('"' in s for s, _ in pairs)


def test_training_batches_of_real_data_are_deterministic(europarl):
  data_dir, _, _ = europarl
  hparams = HParams(batch_size=1024, max_length=64)

  def run_once():
    dataset = problem().dataset("train", data_dir, hparams, training=True, deterministic=True,
                                seed=5)
    return [tf.io.serialize_tensor(b["inputs"]).numpy() for b in dataset.take(12)]
  assert run_once() == run_once()
  info = problem().split_info("train", data_dir)
  assert info.examples == TRAIN_LINES and 0 < info.count_longer_than(64) < TRAIN_LINES


class TinyCorpus(TextPairProblem):
  """Pairs from Sources.tsv, so tests can give it any text."""
  vocab_size = 300
  record_shards = {"train": 2, "dev": 1, "test": 1}

  def text_pairs(self, split, sources):
    from t2t_lite.data.text_files import read_tsv
    if split in sources.tsv:
      yield from read_tsv(sources.tsv[split])


def tiny_sources(tmp_path, lines=200):
  text = "".join(f"the number {i} is here\tdie Nummer {i} ist hier\n" for i in range(lines))
  (tmp_path / "train.tsv").write_text(text + "\tnur Ziel\nonly source\t \n\n  \t  \n",
                                      encoding="utf-8")
  (tmp_path / "dev.tsv").write_text(text[:500], encoding="utf-8")
  return Sources(tmp_dir=str(tmp_path), tsv={"train": str(tmp_path / "train.tsv"),
                                             "dev": str(tmp_path / "dev.tsv")})


def test_empty_lines_and_drops_are_counted_with_reasons(tmp_path):
  class WithDrops(TinyCorpus):
    def text_pairs(self, split, sources):
      yield from super().text_pairs(split, sources)
      if split == "train":
        yield Drop("unparsable tree")

  summary = WithDrops().generate_data(str(tmp_path / "data"), tiny_sources(tmp_path),
                                      progress=False)
  train = summary.split("train")
  assert train.pairs_read == 205 and train.examples == 200
  assert train.dropped == {"empty source": 1, "empty target": 1, "empty source and target": 2,
                           "unparsable tree": 1}
  text = str(summary)
  assert ("dropped from train: 1 empty source, 2 empty source and target, 1 empty target, "
          "1 unparsable tree") in text
  assert "test: no examples" in text
  assert train.input_lengths["max"] >= train.input_lengths["p99"] >= train.input_lengths["p50"]


def test_separate_vocabularies(tmp_path):
  class Apart(TinyCorpus):
    shared_vocab = False

  data_dir = str(tmp_path / "data")
  Apart().generate_data(data_dir, tiny_sources(tmp_path), vocab_size=280, progress=False)
  inputs, targets = Apart().vocab_paths(data_dir)
  assert inputs != targets and os.path.isfile(inputs) and os.path.isfile(targets)
  assert Apart().vocab_sizes(data_dir) == (280, 280)
  input_vocab, target_vocab = Apart().vocabularies(data_dir)
  batch = next(iter(Apart().dataset("dev", data_dir, HParams(batch_size=512), training=False)))
  assert target_vocab.decode(batch["targets"][:1]).numpy()[0].startswith(b"die Nummer")
  assert input_vocab.decode(batch["inputs"][:1]).numpy()[0].startswith(b"the number")


def test_missing_data_says_to_run_datagen(tmp_path):
  with pytest.raises(UserError, match=f"run t2t-datagen --problem={PROBLEM}"):
    problem().vocab_sizes(str(tmp_path))
  with pytest.raises(UserError, match="run t2t-datagen"):
    problem().dataset("train", str(tmp_path), HParams(), training=True)


def test_a_writer_failing_midway_keeps_the_earlier_data(tmp_path, monkeypatch):
  data_dir = str(tmp_path / "data")
  sources = tiny_sources(tmp_path)
  TinyCorpus().generate_data(data_dir, sources, progress=False)  # A complete earlier run.
  earlier = {split: TinyCorpus().split_info(split, data_dir) for split in ("train", "dev")}
  calls = []

  def failing_write(writer, record):
    calls.append(1)
    if len(calls) > 50:
      raise OSError("disk full")
    return original(writer, record)

  original = records.ShardWriter.write
  monkeypatch.setattr(records.ShardWriter, "write", failing_write)
  with pytest.raises(OSError, match="disk full"):
    TinyCorpus().generate_data(data_dir, sources, progress=False)
  monkeypatch.setattr(records.ShardWriter, "write", original)
  for split in ("train", "dev"):  # The new data was written beside the old one.
    assert TinyCorpus().split_info(split, data_dir) == earlier[split]
  assert not [n for n in os.listdir(data_dir) if n.endswith(".incomplete")]
  TinyCorpus().generate_data(data_dir, sources, progress=False)  # A later run redoes it.
  assert TinyCorpus().split_info("train", data_dir).examples == 200


KILLED_RUN = textwrap.dedent("""
    import os, signal, sys
    from t2t_lite.data.problem import Sources, TextPairProblem

    class TinyCorpus(TextPairProblem):
      vocab_size = 300
      passes = 0
      def text_pairs(self, split, sources):
        if split == "train":
          TinyCorpus.passes += 1
        for i in range(2000):
          if TinyCorpus.passes == 2 and i == 1500:  # Writing train: die like `kill -9`.
            sys.stdout.flush()
            os.kill(os.getpid(), signal.SIGKILL)
          yield f"the number {i} is here", f"die Nummer {i} ist hier"

    TinyCorpus().generate_data(sys.argv[1], Sources(tmp_dir=sys.argv[1]), progress=False)
""")


@pytest.mark.slow
def test_a_killed_run_leaves_no_trusted_shard_and_a_later_run_recovers(tmp_path):
  data_dir = str(tmp_path / "data")
  result = run_process([sys.executable, "-c", KILLED_RUN, data_dir], timeout=300)
  assert result.returncode == -signal.SIGKILL, result.stderr
  staging = os.path.join(data_dir, "tiny_corpus.incomplete")  # Where it was writing.
  assert os.listdir(data_dir) == ["tiny_corpus.incomplete"]
  assert "vocab.tiny_corpus.model" in os.listdir(staging)
  with pytest.raises(UserError, match="run t2t-datagen --problem=tiny_corpus"):
    TinyCorpus().dataset("train", data_dir, HParams(), training=True)
  TinyCorpus().generate_data(data_dir, tiny_sources(tmp_path), progress=False)
  assert not [n for n in os.listdir(data_dir) if n.endswith(".incomplete")]
  assert TinyCorpus().split_info("train", data_dir).examples == 200
  assert "vocab.tiny_corpus.model" in os.listdir(data_dir)


@pytest.mark.slow
@pytest.mark.parametrize("args, message", [
    ([f"--problem={PROBLEM}x", "--data_dir=/tmp/x"],
     f"t2t-datagen: error: unknown problem '{PROBLEM}x'; closest: {PROBLEM}"),
    ([f"--problem={PROBLEM}"], "t2t-datagen: error: --data_dir is required"),
    ([f"--problem={PROBLEM}", "--data_dir={tmp}/d", "--train_source={tmp}/a"],
     "t2t-datagen: error: --train_source needs --train_target"),
    ([f"--problem={PROBLEM}", "--data_dir={tmp}/d", "--train_source={tmp}/a",
      "--train_target={tmp}/b"],
     "t2t-datagen: error: line counts differ: {tmp}/a has 3 lines but {tmp}/b has 2"),
])
def test_bad_input_gives_one_line(tmp_path, args, message):
  (tmp_path / "a").write_text("1\n2\n3\n")
  (tmp_path / "b").write_text("1\n2\n")
  code, _, err = status_and_output("t2t-datagen", *(a.format(tmp=tmp_path) for a in args))
  lines = tool_lines(err, "t2t-datagen")
  assert code == 2 and "Traceback" not in err
  assert len(lines) == 1 and lines[0].startswith(message.format(tmp=tmp_path))


def test_splits_made_with_another_vocabulary_are_not_trusted(tmp_path):
  from t2t_lite.data.vocabulary import train_sentencepiece
  data_dir = str(tmp_path / "data")
  TinyCorpus().generate_data(data_dir, tiny_sources(tmp_path), progress=False)
  assert TinyCorpus().split_info("dev", data_dir).examples > 0
  other = train_sentencepiece([f"quite different text {i}" for i in range(300)], 280)
  write_bytes_atomic(TinyCorpus().vocab_paths(data_dir)[0], other)
  with pytest.raises(UserError, match="no complete 'dev' data"):
    TinyCorpus().split_info("dev", data_dir)


def train_and_marker(data_dir):
  """({record file name: its bytes}, the train split's marker without its timing)."""
  info = problem().split_info("train", data_dir)
  files = {}
  for path in info.files:
    with open(path, "rb") as f:
      files[os.path.basename(path)] = f.read()
  summary = dict(info.summary, seconds=None)
  return files, (info.examples, info.length_counts, summary)


@pytest.mark.slow  # Starts the encoding processes.
def test_the_records_are_the_same_bytes_with_one_process_or_two(shared_data, tmp_path,
                                                                 monkeypatch):
  """Parallel encoding as the guide's command runs it (docs/clusters.md), on 1,500 Europarl
  pairs in batches of 100, the pool taking over after the first 2 batches."""
  monkeypatch.setattr(datagen, "ENCODE_BATCH", 100)
  monkeypatch.setattr(encoding, "IN_PROCESS_BATCHES", 2)
  europarl = os.path.join(shared_data, "europarl", "europarl-v7.de-en.first20k")
  source = head(europarl + ".en", 1500, tmp_path / "train.en")
  target = head(europarl + ".de", 1500, tmp_path / "train.de")
  made = []
  for processes in (1, 2):
    data_dir = str(tmp_path / f"data{processes}")
    code, _, err = status_and_output(
        "t2t-datagen", f"--problem={PROBLEM}", f"--data_dir={data_dir}",
        f"--train_source={source}", f"--train_target={target}",
        "--vocab_size=1000", "--num_shards=4",
        f"--num_concurrent_processes={processes}", "--noprogress")
    assert code == 0, err[-3000:]
    made.append(train_and_marker(data_dir))
  (files, marker), (parallel_files, parallel_marker) = made
  assert sorted(files) == [f"{PROBLEM}-train-0000{i}-of-00004.tfrecord" for i in range(4)]
  assert parallel_files == files and parallel_marker == marker
  assert marker[0] == 1500


def test_the_train_split_comes_in_a_power_of_two_of_files_from_its_size():
  assert [datagen.train_shards(pairs, 16) for pairs in (
      200, 1_000_000, 1_600_001, 4_500_000, 36_000_000, 10 ** 9)] == [
          16, 16, 32, 64, 512, datagen.MAX_SHARDS]
  assert datagen.train_shards(29_000, 4) == 4  # Multi30k: its own count.


def test_num_shards_sets_the_train_files(tmp_path):
  summary = TinyCorpus().generate_data(str(tmp_path / "data"), tiny_sources(tmp_path),
                                       progress=False, num_shards=3)
  info = TinyCorpus().split_info("train", str(tmp_path / "data"))
  assert len(info.files) == 3 and summary.split("train").examples == 200
  assert len(TinyCorpus().split_info("dev", str(tmp_path / "data")).files) == 1


def test_length_percentiles_from_counts_are_numpys():
  import collections
  import numpy as np
  from t2t_lite.data.report import PERCENTILES, length_percentiles
  lengths = np.random.default_rng(3).integers(1, 200, size=999)
  expected = np.percentile(lengths, PERCENTILES, method="inverted_cdf")
  assert length_percentiles(collections.Counter(lengths.tolist())) == dict(
      {f"p{p}": int(v) for p, v in zip(PERCENTILES, expected)}, max=int(lengths.max()))


def test_records_are_the_bytes_of_tensorflows_own_serialization():
  """What the encoding processes write without TensorFlow is tf.train.Example's
  deterministic serialization: ids of every varint width, empty lists too."""
  import random
  from t2t_lite.data import example_bytes
  rng = random.Random(0)
  varints = example_bytes.varint_table(1 << 15)  # Ids of 1 to 3 varint bytes.
  for width in (1, 2, 3, 4, 1 << 14, 1 << 15, 1 << 40):
    for length in (0, 1, 300):
      inputs = [rng.randrange(width) for _ in range(length)]
      targets = [rng.randrange(width) for _ in range(rng.randrange(1, 40))]
      feature = {name: tf.train.Feature(int64_list=tf.train.Int64List(value=ids))
                 for name, ids in (("inputs", inputs), ("targets", targets))}
      expected = tf.train.Example(features=tf.train.Features(
          feature=feature)).SerializeToString(deterministic=True)
      assert example_bytes.serialize(inputs, targets) == expected
      if width <= len(varints):
        assert example_bytes.serialize(inputs, targets, varints) == expected
      assert tf.io.parse_single_example(expected, records.FEATURES)[
          "inputs"].numpy().tolist() == inputs
