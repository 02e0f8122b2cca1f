"""Problems' machinery: text read and checked, vocabularies, TFRecords of ids, the tf.data
pipeline.

A problem and the text it reads:
  problem.py       the Problem contract: real text in, batches of ids out, ids back to text.
  text_files.py    text files read line by line (parallel files, TSV), with one-line errors.
  download.py      a problem's raw files fetched once into tmp_dir, checked, unpacked.
  published_files.py  a dataset's published files checked by SHA-256 (each problem keeps its own).
  trees.py         Penn Treebank trees: read, normalised, linearised for parsing.
  linearised_trees.py  linearised trees as targets: tokens unglued, pieces, back to trees.
  target_form.py   what a problem's targets need at decode time beyond being text.
  target_order.py  a model's order of target ids: reading order, or last token first.

What t2t-datagen writes:
  datagen.py       text pairs -> a SentencePiece vocabulary -> sharded TFRecords of ids.
  datagen_settings.py  t2t-datagen's counts (files, processes) and their ranges, declared once.
  encoding.py      text pairs -> serialized records, on every core, the same bytes always.
  encoding_workers.py  the encoding processes, supervised: one that dies ends datagen at once.
  example_bytes.py  a record of ids serialized without TensorFlow (tf.train.Example's bytes).
  vocabulary.py    SentencePiece vocabularies: trained, and text <-> ids in the graph.
  records.py       TFRecords of ids: sharded atomic writing, parsing, the completion marker.
  shard_bounds.py  how many record files a split may have: its pairs, the open-file limit.
  layout.py        a data directory's layout: every name t2t-datagen gives what it writes.
  report.py        what t2t-datagen prints: a progress line while it reads, a summary.

Reading batches:
  pipeline.py      the tf.data pipeline: shards of records -> shuffled, filtered batches.
  batching.py      token-based batching in length buckets, as tensor2tensor does it.
  damaged_records.py  a truncated or altered record file named in one line, wherever read.
"""
