"""The test tier's record (tests/tier_record.py): what its slowest files sum."""

import types

from tier_record import SLOWEST_FILES, slowest_files


def report(nodeid, duration):
  return types.SimpleNamespace(nodeid=nodeid, duration=duration)


def test_a_files_seconds_sum_its_tests_phases_and_only_the_slowest_are_kept():
  reports = [report(f"tests/test_{index}.py::test_one", float(index))
             for index in range(SLOWEST_FILES + 3)]
  reporter = types.SimpleNamespace(stats={
      "passed": reports + [report("tests/test_0.py::test_two", 100.0)],
      "": [report("tests/test_1.py::test_one", 50.0)],  # A set-up's or a tear-down's.
      "warnings": [types.SimpleNamespace(message="not a test's report")]})
  seconds = slowest_files(reporter)
  assert list(seconds)[:2] == ["tests/test_0.py", "tests/test_1.py"]
  assert seconds["tests/test_0.py"] == 100 and seconds["tests/test_1.py"] == 51
  assert len(seconds) == SLOWEST_FILES
  assert "tests/test_2.py" not in seconds  # The three fastest of the thirteen are left out.
