"""Models registered in `t2t_lite.registry.MODELS`."""

from t2t_lite.models.transformer import Transformer  # noqa: F401  (registers "transformer")
