"""Shared fixtures: the real data beside the project, and quiet TensorFlow."""

import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import pytest  # noqa: E402

SHARED_DATA = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data"))


@pytest.fixture(scope="session")
def shared_data():
  """Path of `../shared/data`: skips the test when absent, fails when under CI."""
  if not os.path.isdir(SHARED_DATA):
    if os.environ.get("CI"):
      pytest.fail(f"CI is set but the real data folder {SHARED_DATA} is missing")
    pytest.skip(f"real data folder {SHARED_DATA} is absent (it sits beside the project)")
  return SHARED_DATA
