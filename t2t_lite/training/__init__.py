"""Training: the train step, saving checkpoints, evaluation, the loop, averaging."""
