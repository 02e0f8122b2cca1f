"""The built-in problems; installed as `t2t_lite.problems` (setup.py names each problem
as an entry point of `t2t_lite.problems`).

  translate_wmt14.py            the paper's WMT 2014 English-German and English-French.
  translate_multi30k.py         Multi30k task 1: image captions, English, German, French.
  translate_dictionary_deen.py  German -> English example sentences of the Ding dictionary.
  translate_from_files.py       a user's own parallel corpus, any language pair.
  parsing_ptb.py                WSJ constituency parsing as translation (paper section 6.3).
"""
