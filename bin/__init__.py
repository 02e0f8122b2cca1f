"""Command-line entry points; installed as `t2t_lite.bin` (setup.py's console scripts).

  t2t_datagen.py    t2t-datagen: a problem's vocabulary and sharded TFRecords of ids.
  t2t_trainer.py    t2t-trainer: trains a model on a problem; also --summary, --registry_help.
  t2t_decoder.py    t2t-decoder: translates (or parses) with a trained run.
  t2t_exporter.py   t2t-exporter: a text-in/text-out SavedModel of a trained run.
  t2t_avg_all.py    t2t-avg-all: the last N checkpoints of a run averaged into one.
  t2t_bleu.py       t2t-bleu: a translation file scored against reference files.
  t2t_visualize.py  t2t-visualize: every attention head on one sentence, as heat maps.
  t2t_serve.py      t2t-serve: a model served over TensorFlow Serving's REST API, batched.
  common.py         what every command shares: quiet TensorFlow, registries, one-line errors.
"""
