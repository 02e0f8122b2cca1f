"""Training: distribution strategy, the train step, checkpoints, the loop."""
