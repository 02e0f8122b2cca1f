"""The built-in hparams sets; installed as `t2t_lite.hparams_sets`."""

from t2t_lite.hparams_sets import transformer  # noqa: F401  (registers the sets)
