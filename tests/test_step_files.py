"""Files numbered by step, taken in step order as they appear (t2t-avg-all, t2t-bleu)."""

from helpers import FakeTime
from t2t_lite.files.step_files import as_they_appear, numbered_files


def test_numbered_files_are_those_named_after_a_step(tmp_path):
  for name in ("out-100", "out-20", "out.txt", "out-3a", "ckpt-7.index"):
    (tmp_path / name).write_text("x")
  (tmp_path / "dir-5").mkdir()
  assert sorted(numbered_files(str(tmp_path))) == [(20, str(tmp_path / "out-20")),
                                                   (100, str(tmp_path / "out-100"))]


def test_without_waiting_each_file_from_min_steps_once_in_step_order():
  files = [(300, "c"), (100, "a"), (200, "b")]
  time = FakeTime()
  taken = list(as_they_appear(lambda: files, min_steps=150, clock=time.clock, sleep=time.sleep))
  assert taken == [(200, "b"), (300, "c")] and time.sleeps == 0


def test_new_files_are_waited_for_and_older_ones_never_come_back():
  files = [(100, "a")]

  def trainer_writes(sleeps):
    if sleeps == 3:
      files.extend([(200, "b"), (50, "late and old")])
  time = FakeTime(trainer_writes)
  taken = list(as_they_appear(lambda: files, wait_minutes=1, poll_seconds=10,
                              clock=time.clock, sleep=time.sleep))
  assert taken == [(100, "a"), (200, "b")]
  # After "b", a full minute without a new file: 6 more sleeps of 10 seconds.
  assert time.sleeps == 3 + 6
