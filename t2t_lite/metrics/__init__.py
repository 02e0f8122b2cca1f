"""Evaluation metrics computed outside the model: BLEU for translation, EVALB bracket
scoring for parsing.

  bleu.py          BLEU as papers, WMT and tensor2tensor report it, computed by sacrebleu.
  bleu_dir.py      t2t-bleu --translations_dir: the BLEU of each translation of a directory.
  moses.py         Moses' tokenizer.perl in Python: sacremoses, plus the one rule it lacks.
  evalb.py         EVALB-compatible bracket scoring (Sekine & Collins 1997).
  evalb_params.py  EVALB's .prm files: what to delete, what counts as equal, when to give up.
  evalb_report.py  what EVALB reports: a row per sentence, totals, the printed report.
"""
