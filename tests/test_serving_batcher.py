"""t2t-serve's dynamic batching (t2t_lite.serving.request_batching), on a decoder that records its
batches: gathering, sorting by length, each request's order, the bounded queue, a failing
batch, a caller that left."""

import asyncio
import subprocess
import sys
import threading

import pytest

from t2t_lite.serving.request_batching import Batcher, BatchFailed, BatchingSettings, QueueFull
from t2t_lite.serving.server_metrics import Metrics

LONG = 60_000_000  # A batch timeout (microseconds) no test waits for.


class Recorder:
  """decode(sentences) -> the sentences upper-cased; records each batch; `hold()` makes
  batches wait for `release()`; a batch with "fail" in it raises."""

  def __init__(self):
    self.batches = []
    self._open = threading.Event()
    self._open.set()

  def decode(self, sentences):
    self.batches.append(list(sentences))
    assert self._open.wait(60)
    if "fail" in sentences:
      raise MemoryError("out of memory")
    return [sentence.upper() for sentence in sentences]

  def hold(self):
    self._open.clear()

  def release(self):
    self._open.set()


def run(test, **settings):
  """Runs `test(batcher, recorder)` (a coroutine function) in a fresh event loop."""
  async def main():
    recorder = Recorder()
    settings.setdefault("num_batch_threads", 1)  # Not the default, one a CPU core.
    batcher = Batcher(recorder.decode, BatchingSettings(**settings), Metrics())
    try:
      return await test(batcher, recorder)
    finally:
      recorder.release()
      await batcher.idle()
      await batcher.close()
  return asyncio.run(main())


def submit(batcher, *sentences):
  """A task answering `sentences` (each as long as its text)."""
  return asyncio.ensure_future(batcher.submit(list(sentences), [len(s) for s in sentences]))


async def decoding(recorder, count):
  """Returns once `count` batches have entered decode."""
  while len(recorder.batches) < count:
    await asyncio.sleep(0.002)


async def held_first(batcher, recorder, *sentences):
  """A task answering `sentences`, once their batch is being decoded and held there."""
  recorder.hold()
  first = submit(batcher, *sentences)
  await decoding(recorder, 1)
  return first


def test_concurrent_requests_are_answered_in_one_search():
  async def test(batcher, recorder):
    answers = await asyncio.gather(*(submit(batcher, s) for s in ("a", "bb", "c", "dd")))
    assert answers == [["A"], ["BB"], ["C"], ["DD"]]
    assert len(recorder.batches) == 1 and sorted(recorder.batches[0]) == ["a", "bb", "c", "dd"]
    assert batcher.metrics.batch_size.counts[2] == 1  # One batch of 4 (bucket le=4).
  run(test, max_batch_size=4, batch_timeout_micros=LONG)  # Full: it need not wait.


def test_a_batch_that_is_not_full_goes_after_the_timeout():
  async def test(batcher, recorder):
    assert await asyncio.gather(submit(batcher, "x"), submit(batcher, "y")) == [["X"], ["Y"]]
    assert recorder.batches == [["x", "y"]]
  run(test, max_batch_size=8, batch_timeout_micros=20_000)


def test_waiting_sentences_are_sorted_by_length_into_batches():
  async def test(batcher, recorder):
    # The thread is busy with the first batch: the others wait, then are cut.
    first = await held_first(batcher, recorder, "first")
    others = [submit(batcher, "x" * n) for n in (5, 1, 3, 2, 4, 6)]
    await asyncio.sleep(0.05)
    recorder.release()
    await asyncio.gather(first, *others)
    assert [[len(s) for s in batch] for batch in recorder.batches[1:]] == [[1, 2], [3, 4],
                                                                           [5, 6]]
  run(test, max_batch_size=2, batch_timeout_micros=0)


def test_a_request_split_over_batches_gets_its_answers_in_its_order():
  async def test(batcher, recorder):
    assert await submit(batcher, "ccc", "a", "bb") == ["CCC", "A", "BB"]
    assert recorder.batches == [["a", "bb"], ["ccc"]]
  run(test, max_batch_size=2, batch_timeout_micros=LONG)


def test_a_full_queue_refuses_a_request_whole_and_takes_it_later():
  async def test(batcher, recorder):
    first = await held_first(batcher, recorder, "a", "b")
    second = submit(batcher, "c", "d")  # Waits: the queue (one batch of 2) is now full.
    await asyncio.sleep(0.01)
    with pytest.raises(QueueFull) as refused:
      await batcher.submit(["e"], [1])
    assert refused.value.retry_after >= 1
    assert batcher.waiting == 2  # Nothing of the refused request was queued.
    recorder.release()
    assert await asyncio.gather(first, second) == [["A", "B"], ["C", "D"]]
    assert await batcher.submit(["e"], [1]) == ["E"]
  run(test, max_batch_size=2, max_enqueued_batches=1, batch_timeout_micros=0)


def test_a_failing_batch_fails_its_requests_and_the_next_batch_is_answered():
  async def test(batcher, recorder):
    failed = await asyncio.gather(submit(batcher, "fail"), submit(batcher, "ok"),
                                  return_exceptions=True)
    assert all(isinstance(error, BatchFailed) for error in failed)
    assert "MemoryError: out of memory" in str(failed[0])
    assert await submit(batcher, "next") == ["NEXT"]
    assert batcher.metrics.batch_failures == 1
  run(test, max_batch_size=2, batch_timeout_micros=10_000)


def test_the_sentences_of_a_caller_that_left_are_not_decoded():
  async def test(batcher, recorder):
    first = await held_first(batcher, recorder, "first")
    gone = submit(batcher, "gone")
    kept = submit(batcher, "kept")
    await asyncio.sleep(0.01)
    gone.cancel()  # Its client disconnected.
    recorder.release()
    assert await asyncio.gather(first, kept) == [["FIRST"], ["KEPT"]]
    assert recorder.batches == [["first"], ["kept"]]
  run(test, max_batch_size=4, batch_timeout_micros=0)


def test_a_draining_batcher_decodes_what_waits_without_waiting_to_fill():
  async def test(batcher, recorder):
    waiting = submit(batcher, "last")
    await asyncio.sleep(0.01)
    assert not recorder.batches  # Waits for a full batch ...
    batcher.drain()  # ... until the server stops: then it goes at once.
    assert await waiting == ["LAST"]
  run(test, max_batch_size=8, batch_timeout_micros=LONG)


def test_beside_a_batch_being_decoded_only_a_full_one_starts():
  """Two threads: a batch that is not full waits while the other thread decodes (on a CPU
  the two would share the cores: request_batching.py's doc), a full one starts beside it."""
  async def test(batcher, recorder):
    first = await held_first(batcher, recorder, "first")
    partial = submit(batcher, "p")
    await asyncio.sleep(0.05)  # Long past the batch timeout.
    assert len(recorder.batches) == 1
    full = submit(batcher, "a", "b")  # With "p": a full batch of 3 starts at once.
    await decoding(recorder, 2)
    assert sorted(recorder.batches[1]) == ["a", "b", "p"] and batcher.decoding == 2
    late = submit(batcher, "late")
    await asyncio.sleep(0.05)
    assert len(recorder.batches) == 2
    recorder.release()  # A thread is free, none is decoding: the partial batch goes.
    assert await asyncio.gather(first, partial, full, late) == [
        ["FIRST"], ["P"], ["A", "B"], ["LATE"]]
    assert recorder.batches[2] == ["late"]
  run(test, max_batch_size=3, batch_timeout_micros=0, num_batch_threads=2)


def test_a_partial_batch_beside_a_running_one_goes_when_the_batcher_drains():
  async def test(batcher, recorder):
    first = await held_first(batcher, recorder, "first")
    last = submit(batcher, "last")
    await asyncio.sleep(0.05)
    assert len(recorder.batches) == 1
    batcher.drain()
    await decoding(recorder, 2)  # Beside the held first batch.
    recorder.release()
    assert await asyncio.gather(first, last) == [["FIRST"], ["LAST"]]
  run(test, max_batch_size=4, batch_timeout_micros=0, num_batch_threads=2)


def test_sentences_whose_lengths_are_computed_hold_their_room_in_the_queue():
  """Under overload a request is refused before its tokenizing, not queued for it."""
  async def test(batcher, recorder):
    with batcher.room_for(3):
      assert batcher.waiting == 3
      with pytest.raises(QueueFull):
        with batcher.room_for(2):
          pass
      assert batcher.waiting == 3  # The refused request held nothing.
    assert batcher.waiting == 0
    with batcher.room_for(4):
      pass
    assert await submit(batcher, "a", "b", "c", "d") == ["A", "B", "C", "D"]
  run(test, max_batch_size=2, max_enqueued_batches=2, batch_timeout_micros=0)


@pytest.mark.slow
def test_the_batcher_imports_no_tensorflow():
  """t2t-serve's batching is plain Python: a process importing it imports no TensorFlow."""
  result = subprocess.run(
      [sys.executable, "-c", "import sys, t2t_lite.serving.request_batching\n"
       "print(sorted({'tensorflow', 'keras'} & set(sys.modules)))"],
      capture_output=True, text=True, timeout=120)
  assert result.returncode == 0 and result.stdout.strip() == "[]", result.stderr[-2000:]
