"""Benchmarks of t2t_lite against peers measured in the same run; `python -m bench` runs them all.

  training_throughput.py  target tokens/s of a full training step, and model-FLOPs utilisation
  decoding_speed.py       sentences/s and tokens/s of greedy and beam decoding of newstest2014
  scaling.py              time per decoded token vs output length; step time vs sequence length
  memory.py               peak resident memory of a training step and of decoding
  input_vs_training.py    the input pipeline alone vs what a training step consumes
  peers/                  the same models in PyTorch and in keras-hub layers
  ours.py                 t2t_lite's side: the real TrainStep, decode_ids, an uncached decoder
  forced_length.py        the model with EOS held back: decoders emit the same tokens
  configs.py              the shapes every benchmark shares
  timing.py               interleaved medians, matmul peaks, resident memory
  report.py               tables, the machine, docs/benchmarks.md
  gpu/                    `python -m bench.gpu`: on a GPU under Keras's JAX backend (no
                          TensorFlow), training and decoding against PyTorch; writes the GPU
                          section of docs/benchmarks.md
"""

import os

# PyTorch's OpenMP threads busy-wait by default; on a machine whose cores are shared
# that makes each of its parallel regions wait for a descheduled thread (several times
# slower). Passive waiting is set before any benchmark imports torch.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
