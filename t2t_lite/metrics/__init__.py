"""Evaluation metrics computed outside the model: BLEU for translation (bleu.py, with
Moses' tokenizer in moses.py), EVALB bracket scoring for parsing."""
