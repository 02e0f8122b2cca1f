"""The built-in problems; installed as `t2t_lite.problems`."""
from t2t_lite.problems import translate_from_files  # noqa: F401
from t2t_lite.problems import parsing_ptb  # noqa: F401
from t2t_lite.problems import translate_dictionary_deen  # noqa: F401
from t2t_lite.problems import translate_wmt14  # noqa: F401
from t2t_lite.problems import translate_multi30k  # noqa: F401
