"""The Problem contract: real text in, batches of ids out, and ids back to text.

A concrete problem (in the top-level `problems/` folder) says only where its
text pairs come from; this base class does the rest: vocabulary, sharded
TFRecords of ids, the tf.data pipeline, and the way back to text.

    class TranslateEndeWmt32k(TextPairProblem):
      vocab_size = 32768
      def text_pairs(self, split, sources): ...   # yields (source_text, target_text)

What a subclass sets or implements:
  vocab_size            SentencePiece vocabulary size ("32k" in the name); the
                        `--vocab_size` flag of t2t-datagen overrides it (small corpora).
  shared_vocab          one vocabulary for source and target (the paper's choice).
  user_defined_symbols  tokens kept atomic in the vocabulary, e.g. "(S", ")S".
  lowercase             the vocabulary lowercases all text it encodes, so the model
                        reads and writes lowercased text (default False: cased).
  decode_defaults       DecodeDefaults(beam_size, alpha, extra_length).
  target_form           what its targets need at decode time beyond being text
                        (t2t_lite.data.target_form; parsing: a count rule,
                        trees as output text, repairs); default plain text.
  decoding_metric_name  what t2t-trainer's dev decoding reports ("bleu": cased
                        sacreBLEU, `t2t_lite.training.dev_decoding`), and
  decoding_metric(sources, outputs, references)  its value for decoded lines
                        against reference targets (parsing: "bracket_f1"); None
                        for sacreBLEU.
  record_shards         {split: number of TFRecord files}; the train split's grows with
                        its size (`datagen.train_shards`), or is t2t-datagen's --num_shards.
  text_pairs(split, sources)  yields (source_text, target_text) for "train",
                        "dev", "test" (or `Drop(reason)` for an item to skip);
                        raises UserError on bad input. A split with no pairs is
                        written empty (a dev or test set the user lacks).

What callers call:
  generate_data(data_dir, sources, vocab_size=None) -> DatagenSummary
      (t2t-datagen) text pairs -> vocabulary file(s) + sharded TFRecords.
  vocab_sizes(data_dir) -> (input_vocab_size, target_vocab_size)
  vocabularies(data_dir) -> (input Vocabulary, target Vocabulary): text <-> ids
      inside the TensorFlow graph (see `t2t_lite.data.vocabulary`).
  vocab_paths(data_dir) -> (input model path, target model path): the files a
      run directory copies so that it describes itself.
  dataset(split, data_dir, hparams, training=..., ...) -> tf.data.Dataset of
      {"inputs": [batch, s] int32, "targets": [batch, t] int32}, 0-padded.
  split_info(split, data_dir) -> SplitInfo: files, example count, lengths;
      `split_info(...).count_longer_than(hparams.max_length)` is how many
      examples training drops.

Ids: 0 = padding (and the decoder's first input), 1 = EOS, 2 = unknown;
every record's "inputs" and "targets" end with EOS. The vocabulary is BPE
SentencePiece trained on the train split (sources and targets together when
shared), with identity normalisation and byte fallback, so decoding restores
text exactly. When the training text cannot give `vocab_size` pieces,
t2t-datagen stops with a one-line error naming the largest size that fits
(pass it with --vocab_size); it never shrinks the vocabulary silently.

On disk, in data_dir (several problems may share one):
  vocab.<problem>.model                 shared SentencePiece model, or
  vocab.<problem>.{inputs,targets}.model
  <problem>-<split>-00000-of-00016.tfrecord ...
  <problem>-<split>.json                a split's completion marker, written last
A run writes everything into `<problem>.incomplete/` beside the data first:
the vocabulary, then each split's shards and, last, its marker (which
records the vocabulary's digest). Only when all of it is complete are the
problem's old files replaced, so input that fails (or a full disk) leaves the
earlier data as it was. `dataset()` trusts only a split with its marker and
a matching vocabulary, so an interrupted run leaves nothing trusted and the
next run redoes it.
"""

import dataclasses

from t2t_lite.data import datagen, pipeline
from t2t_lite.data.target_form import PLAIN_TEXT
from t2t_lite.data.vocabulary import Vocabulary, vocab_size_of
from t2t_lite.names import snake_case


@dataclasses.dataclass(frozen=True)
class Drop:
  """Yielded by `text_pairs` instead of a pair to skip an item, counted under `reason`."""
  reason: str


@dataclasses.dataclass(frozen=True)
class DecodeDefaults:
  """Decoding defaults a problem brings (paper: translation beam 4, alpha 0.6, +50), and the
  length penalties t2t-avg-all tries on dev beside `alpha` (`t2t_lite.training.alpha_choice`;
  (): `alpha` stays)."""
  beam_size: int = 4
  alpha: float = 0.6
  extra_length: int = 50
  dev_alphas: tuple = (0.6, 1.0, 1.4)


@dataclasses.dataclass(frozen=True)
class Sources:
  """Where raw text comes from at datagen time.

  tmp_dir: downloads and extracted raw text.
  files: {split: (source_path, target_path)} local line-aligned text files
    given by flags; a problem that can read local files uses them instead of
    downloading.
  tsv: {split: path} local files of `source<TAB>target` lines, the other way
    of giving local text.
  """
  tmp_dir: str
  files: dict = dataclasses.field(default_factory=dict)
  tsv: dict = dataclasses.field(default_factory=dict)


class TextPairProblem:
  """Base of problems made of (source text, target text) pairs.

  Subclasses set `vocab_size` (and optionally the others) and implement
  `text_pairs(split, sources)`.
  """

  vocab_size = 32768                  # SentencePiece vocabulary size, "32k" in the name.
  shared_vocab = True                 # One vocabulary for source and target (paper).
  user_defined_symbols = ()           # Tokens that stay atomic, e.g. ("(S", ")S").
  lowercase = False                   # The vocabulary lowercases what it encodes.
  splits = ("train", "dev", "test")
  record_shards = {"train": 16, "dev": 1, "test": 1}
  decode_defaults = DecodeDefaults()
  target_form = PLAIN_TEXT            # What decoding needs beyond text (none).
  decoding_metric_name = "bleu"       # Dev decoding's metric: cased sacreBLEU,
  decoding_metric = None              # unless a problem scores its own.

  @property
  def name(self):
    return snake_case(type(self).__name__)

  def text_pairs(self, split, sources):
    """Yields (source_text, target_text) for `split`; raises UserError on bad input.

    Text is stripped of surrounding whitespace afterwards; pairs with an empty
    side are dropped and counted by `generate_data`, not errors. Yield
    `Drop("reason")` to skip an unusable item; it is counted under its reason.
    """
    raise NotImplementedError

  def clean_pairs(self, split, sources, counts):
    """Yields the stripped non-empty (source, target) pairs of `text_pairs`.

    counts: a Counter updated with "read" (items `text_pairs` yielded) and one
    entry per reason a pair was dropped.
    """
    for item in self.text_pairs(split, sources):
      counts["read"] += 1
      if isinstance(item, Drop):
        counts[item.reason] += 1
        continue
      source, target = (text.strip() for text in item)
      if not source or not target:
        counts["empty source and target" if not (source or target)
               else "empty source" if not source else "empty target"] += 1
        continue
      yield source, target

  # Data generation.

  def generate_data(self, data_dir, sources, *, vocab_size=None, progress=True,
                    num_shards=None, processes=None):
    """Writes the vocabulary and each split's TFRecords into `data_dir`.

    vocab_size: overrides the class's `vocab_size` (for small corpora).
    progress: print a progress line to stderr while reading.
    num_shards: the train split's number of files (default: from its size, at least
      `record_shards["train"]`; `datagen.train_shards`).
    processes: processes that encode the records (default: one per core); the records
      are the same whatever their number.
    Returns a `DatagenSummary` (`str()` of it is the report t2t-datagen prints).
    Each run regenerates everything beside the old data and replaces it only
    once complete; until a split's marker is written last, readers do not
    trust any of its files.
    """
    return datagen.generate(self, data_dir, sources, vocab_size=vocab_size or self.vocab_size,
                            progress=progress, num_shards=num_shards, processes=processes)

  # Vocabularies.

  def vocab_paths(self, data_dir):
    """(input model path, target model path); the same path twice when shared."""
    return datagen.vocab_paths(self, data_dir)

  def vocabularies(self, data_dir):
    """(input `Vocabulary`, target `Vocabulary`); one object twice when shared.

    Raises UserError, saying to run t2t-datagen, when the vocabulary is missing.
    """
    input_path, target_path = self.vocab_paths(data_dir)
    inputs = Vocabulary.load(input_path, problem=self.name)
    targets = inputs if target_path == input_path else Vocabulary.load(target_path,
                                                                      problem=self.name)
    return inputs, targets

  def vocab_sizes(self, data_dir):
    """(input_vocab_size, target_vocab_size) of the generated vocabularies."""
    input_path, target_path = self.vocab_paths(data_dir)
    return vocab_size_of(input_path, self.name), vocab_size_of(target_path, self.name)

  # Reading the records.

  def split_info(self, split, data_dir):
    """The `SplitInfo` of a completely generated split; UserError when incomplete."""
    return datagen.read_split_info(self, split, data_dir)

  def dataset(self, split, data_dir, hparams, *, training, shuffle=None, deterministic=False,
              num_shards=1, shard_index=0, seed=None, repeat=None,
              pad_to_bucket_boundary=False):
    """Batches of padded ids of `split`, batched by tokens in length buckets.

    Returns a tf.data.Dataset of {"inputs": [batch, s] int32, "targets":
    [batch, t] int32}, padded with 0. Each batch holds at most
    `hparams.batch_size` tokens counting padding (tokens per replica), in
    tensor2tensor's length buckets up to `hparams.max_length`.

    training: drop (and log the count of) examples longer than
      `hparams.max_length` tokens on either side; eval keeps every example.
      With `hparams.bpe_dropout` above 0, training examples are segmented anew
      (BPE-dropout) each time they are read; eval's are as generated.
    shuffle: shuffle files, examples and batches; defaults to `training`.
    deterministic: the same batches in the same order on every run for a
      given seed (seed 0 when None); otherwise faster, unordered reading.
    num_shards, shard_index: this worker reads a disjoint 1/num_shards of the
      examples; the shards of all workers partition the split.
    repeat: repeat forever; defaults to `training`.
    pad_to_bucket_boundary: pad each bucket's batches to one length (fixed
      shapes for XLA) instead of the batch's longest example.
    """
    info = self.split_info(split, data_dir)
    resegmenters = None
    if training and hparams.bpe_dropout:
      inputs, targets = self.vocabularies(data_dir)
      resegment_inputs = inputs.resegmenter(hparams.bpe_dropout)
      resegmenters = (resegment_inputs, resegment_inputs if targets is inputs
                      else targets.resegmenter(hparams.bpe_dropout))
    return pipeline.make_dataset(info, hparams, training=training,
                                 shuffle=training if shuffle is None else shuffle,
                                 deterministic=deterministic, num_shards=num_shards,
                                 shard_index=shard_index, seed=seed,
                                 repeat=training if repeat is None else repeat,
                                 pad_to_bucket_boundary=pad_to_bucket_boundary,
                                 resegmenters=resegmenters)
