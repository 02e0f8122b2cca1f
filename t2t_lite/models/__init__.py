"""The built-in models (setup.py names each as an entry point of `t2t_lite.models`).

  transformer.py        the Transformer of "Attention Is All You Need" as a Keras 3 model.
  hyperparameters.py    `HParams`: typed, frozen hyperparameters with tensor2tensor's field names.
  building.py           a registered model made with its weights, for every command that needs one.
  parameter_summary.py  parameter counts, part by part, without any data: t2t-trainer --summary.
  size.py               a model's size from its hparams alone: weights, memory, does it fit.
"""
