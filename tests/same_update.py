"""Whether two runs of tests/distribution_check.py gave the same update: its saved results
read, and compared within the float32 round-off of reordered sums (NumPy only:
bench/gpu/two_replicas.py compares with it too)."""

import numpy as np


def run_result(path):
  """(initial weights, their updates, each step's loss sum, tokens per step) of a check."""
  with np.load(path) as saved:
    count = sum(name.startswith("update_") for name in saved.files)
    initial = [saved[f"initial_{i}"] for i in range(count)]
    updates = [saved[f"update_{i}"] for i in range(count)]
    return initial, updates, saved["losses"], float(saved["tokens"])


# Why these bounds hold on any CPU: every mode computes the same float32 sums (over tokens,
# replicas, micro-batches and hidden units, at most a few hundred terms) in another order,
# with other SIMD widths or XLA fusions. Reordering such a sum moves it by a few ulps of its
# largest terms, ~1e-6 of a tensor's scale: 1e-4 leaves two orders of magnitude for that,
# while a lost, doubled or wrongly normalised replica half changes losses and updates by tens
# of percent. Plain SGD keeps the update proportional to the gradient (see the check's doc).
RELATIVE_ROUND_OFF = 1e-4
# Each of the 3 steps rounds a weight to float32 once, in each of the two runs compared.
WEIGHT_ROUNDINGS = 3 * 2


def assert_same_update(expected, actual):
  initial, expected_updates, expected_losses, expected_tokens = expected
  _, actual_updates, actual_losses, actual_tokens = actual
  assert actual_tokens == expected_tokens
  np.testing.assert_allclose(actual_losses, expected_losses, rtol=RELATIVE_ROUND_OFF)
  for index, (weight, a, b) in enumerate(zip(initial, expected_updates, actual_updates)):
    scale = np.abs(a).max()
    weight_ulp = np.spacing(np.abs(weight + a).max())
    np.testing.assert_allclose(
        b, a, rtol=0, atol=RELATIVE_ROUND_OFF * scale + WEIGHT_ROUNDINGS * weight_ulp,
        err_msg=f"weight {index}, largest update {scale:.3g}")
