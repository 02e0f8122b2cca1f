"""The built-in hparams sets; installed as `t2t_lite.hparams_sets` (setup.py names each
set as an entry point of `t2t_lite.hparams_sets`).

  transformer.py  the Transformer's sets (the paper's, tensor2tensor's, small ones), each a
                  `replace()` of another.
"""
