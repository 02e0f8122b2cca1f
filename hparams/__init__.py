"""The built-in hparams sets; installed as `t2t_lite.hparams_sets`. The registry imports every
module of this folder; each set registers itself with `@HPARAMS.register`.

  transformer.py  the Transformer's sets (the paper's, tensor2tensor's, small ones), each a
                  `replace()` of another.
"""
