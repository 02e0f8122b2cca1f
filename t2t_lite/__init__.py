"""t2t_lite: tensor2tensor's Transformer on TensorFlow 2 and Keras 3.

A subpackage per job (docs/architecture.md draws the layers):
  layers/               the Transformer's Keras 3 layers and its loss.
  models/               the model, its hyperparameters' class, its size from them alone.
  data/                 text, vocabularies, records, the input pipeline: t2t-datagen's side.
  decoding/             the searches and t2t-decoder's translator.
  run/                  a run directory as one object; the guard of every path written.
  training/             the train step, the loop, evaluation, averaging: t2t-trainer's side.
  metrics/              BLEU and EVALB.
  export/               the SavedModel and the CTranslate2 export.
  serving/              t2t-serve: the REST API and its dynamic batching.
  visualization/        attention maps drawn and browsed.
  distribute/           the cluster a process trains in and its tf.distribute strategy.
  files/                reading and writing files safely.
  cli/                  the flag machinery.

The root keeps what several layers share:
  errors.py             errors a user can cause: each prints as one line, never a traceback.
  constants.py          the special ids and the large negatives every layer agrees on.
  registry.py           named problems, hparams sets and models: built in, installed, a user's.
  built_in.py           the marks by which the built-in problems, sets and models are found.
  names.py              the names registered things go by when none is given.
  quiet.py              TensorFlow imported without its chatter and without JAX.
  progress_line.py      one status line on stderr, the progress display every command shares.
  cores.py              the CPU cores this process may run on.
"""

import os

# TensorFlow turns its oneDNN kernels on by itself only on CPUs with AVX512_VNNI or newer;
# on AVX2-only CPUs it runs Eigen's, whose float32 matmul ran at 0.7x oneDNN's there and
# the training step at 0.5-0.8x (docs/results.md). Set before TensorFlow is imported;
# TF_ENABLE_ONEDNN_OPTS=0 still turns them off.
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "1")

__version__ = "0.1.0"
