"""Evaluation metrics computed outside the model: EVALB bracket scoring for parsing."""
