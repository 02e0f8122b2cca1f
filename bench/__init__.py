"""Benchmarks of t2t_lite against peers measured in the same run; `python -m bench` runs them all.

  __main__.py              `python -m bench`: runs each program in its own process, writes the docs
  training_throughput.py   target tokens/s of a full training step, and model-FLOPs utilisation
  cpu_replicas.py          transformer_auto's steps/s on replicas on the CPU vs one device
  real_batches.py          t2t-trainer on real batches vs one fixed batch, XLA off and on
  decoding_speed.py        sentences/s and tokens/s of greedy and beam decoding of newstest2014
  ctranslate2_decoding.py  t2t-decoder, the SavedModel and CTranslate2 decoding a trained run
  serving.py               t2t-serve under load against t2t-decoder's offline batches
  stalled_connections.py   t2t-serve against 20,000 stalled connections (a record; not in make bench)
  scaling.py               time per decoded token vs output length; step time vs sequence length
  memory.py                peak resident memory of a training step and of decoding
  datagen.py               t2t-datagen on a million pairs: pairs/s and peak memory, one core vs all
  input_pipeline.py        examples/s and tokens/s of the input pipeline alone, against a naive one
  input_vs_training.py     the input pipeline alone vs what a training step consumes
  peers/                   the same models in PyTorch and in keras-hub layers
  ours.py                  t2t_lite's side: the real TrainStep, decode_ids, an uncached decoder
  forced_length.py         the model with EOS held back: decoders emit the same tokens
  sentences.py             newstest2014 English tokenised with a vocabulary trained now
  configs.py               the shapes every benchmark shares
  timing.py                interleaved medians, matmul peaks, resident memory
  report.py                tables, the machine, docs/benchmarks.md
  document.py              docs/benchmarks.json, each section with its provenance, as Markdown
  kept_sections.py         the sections their own programs write, which a plain run keeps
  figure_records.py        those sections' tables as records: docs/figures/bench_*.json
  gpu/                     `python -m bench.gpu`: on a GPU under Keras's JAX backend (no
                           TensorFlow), training and decoding against PyTorch; writes the GPU
                           section of docs/benchmarks.md
"""

import os

# PyTorch's OpenMP threads busy-wait by default; on a machine whose cores are shared
# that makes each of its parallel regions wait for a descheduled thread (several times
# slower). Passive waiting is set before any benchmark imports torch.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
