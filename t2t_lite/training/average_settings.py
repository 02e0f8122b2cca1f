"""t2t-avg-all's defaults, each declared once, in a module light enough for its flags (no
TensorFlow): which checkpoints it averages (`checkpoint_choice`) and how many dev sentences
check the average (`average_dev_check`)."""

# The fraction of the run's steps, counted back from its newest checkpoint, whose
# checkpoints are averaged (1: the whole run). On Europarl's first 18,000 pairs (val
# sacreBLEU, beam 4, 20 checkpoints 140 steps apart) the last 10% scored 6.66, 5% 6.64,
# 20% 6.55, 30% 6.30, 50% 5.91, the whole run 3.79, the last checkpoint 6.57
# (docs/own-data.md).
DEFAULT_WINDOW = 0.1
# How many dev sentences the average and the last checkpoint decode (0: no check).
DEFAULT_DEV_SENTENCES = 200
