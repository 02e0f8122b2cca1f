"""Dynamic batching with TensorFlow Serving's settings: the sentences of concurrent requests
gathered into searches, sorted by length as t2t-decoder sorts them.

    batcher = Batcher(decode, BatchingSettings(max_batch_size=32), metrics)
    with batcher.room_for(len(sentences)):               # QueueFull when there is none
      lengths = ...                                      # the sentences' tokens
    outputs = await batcher.submit(sentences, lengths)   # one output per sentence, in order
    batcher.drain()                                       # no more waiting for full batches
    await batcher.idle()                                  # every accepted sentence answered

`decode(sentences) -> [output per sentence]` runs in one of `num_batch_threads` threads.
`BatchingSettings` takes t2t-serve's defaults, and refuses a value outside a flag's range
in the flag's one line (`serve_settings`).

The settings keep TensorFlow Serving's names and meanings:
  max_batch_size        the most sentences one search decodes;
  batch_timeout_micros  how long a free batch thread waits, from the arrival of the oldest
                        waiting sentence, for a full batch before it decodes what there is;
  max_enqueued_batches  how many batches may wait (that many times max_batch_size
                        sentences): a request that would pass it is refused whole
                        (`QueueFull`: the server answers 503 with Retry-After), so the
                        queue's memory is bounded. Sentences whose lengths are being
                        computed (`room_for`) count as waiting: under overload a request
                        is refused before its tokenizing, not queued for it;
  num_batch_threads     how many batches are decoded at once. One rule of ours: beside a
                        batch being decoded, another starts only when full (or when the
                        server drains). On a CPU concurrent batches share the cores, and a
                        batch of a few sentences beside a full one slows both: without the
                        rule, 64 one-sentence clients on 2 threads were decoded in batches
                        of 2 at a third of one thread's rate.

How batches form: when a thread is free and no batch is cut, every waiting sentence is
sorted by its length and cut into batches of max_batch_size, shortest first
(`batches_by_length`, t2t-decoder's rule), once max_batch_size sentences wait or the oldest
has waited batch_timeout_micros; those batches are decoded in that order before the
sentences that came meanwhile are cut in their turn, so no sentence is passed over for
ever. The last batch of a cut, when not full, is topped up with the sentences that came
meanwhile, oldest first, and waits for a full batch while another batch is being decoded
(num_batch_threads). A request's sentences may be decoded in several batches; its
outputs come back in its own order. A batch that fails fails the requests it holds
(`BatchFailed`) and the batcher goes on. The sentences of a request whose caller left (its
futures cancelled) are dropped while they wait; a batch being decoded is decoded whole,
for the others in it.
"""

import asyncio
import collections
import concurrent.futures
import contextlib
import dataclasses
import math
import time

from t2t_lite.cli.command_line import declared
from t2t_lite.cli.flag_bounds import check_bounds
from t2t_lite.cores import usable_cores
from t2t_lite.decoding.sentence_batches import batches_by_length
from t2t_lite.serving.serve_settings import SERVE


@dataclasses.dataclass(frozen=True)
class BatchingSettings:
  """TensorFlow Serving's batching settings (the module doc), t2t-serve's defaults and
  ranges (`serve_settings`); num_batch_threads=0 is one per CPU core, counted here."""
  max_batch_size: int = declared(SERVE, "max_batch_size")
  batch_timeout_micros: int = declared(SERVE, "batch_timeout_micros")
  max_enqueued_batches: int = declared(SERVE, "max_enqueued_batches")
  num_batch_threads: int = declared(SERVE, "num_batch_threads")

  def __post_init__(self):
    check_bounds(self)  # As t2t-serve checks its flags: "--max_batch_size=0: it must be ...".
    if not self.num_batch_threads:
      object.__setattr__(self, "num_batch_threads", usable_cores())  # Frozen: set once here.

  @property
  def capacity(self):
    """The most sentences that may wait for a batch thread."""
    return self.max_enqueued_batches * self.max_batch_size


class QueueFull(Exception):
  """A request refused because the queue is full; `retry_after`: seconds to wait."""

  def __init__(self, retry_after):
    super().__init__("the server's queue is full: too many sentences are waiting for a "
                     "batch; retry later")
    self.retry_after = retry_after


class BatchFailed(Exception):
  """The batch a request's sentence was in failed: its reason, in one line."""


@dataclasses.dataclass
class _Waiting:
  """One sentence waiting for its batch."""
  sentence: str
  length: int
  future: asyncio.Future
  arrival: float  # time.monotonic()


class Batcher:
  """Sentences in, outputs out, decoded in batches (the module doc).

  decode: `decode(sentences) -> outputs` (a list, one per sentence), called in a thread.
  settings: `BatchingSettings`.
  metrics: a `t2t_lite.serving.server_metrics.Metrics`, told of each batch.
  """

  def __init__(self, decode, settings, metrics):
    self.settings = settings
    self.metrics = metrics
    self._decode = decode
    self._pending = collections.deque()  # _Waiting, not yet cut, oldest first.
    self._held = 0  # Sentences given room by `room_for`, not yet submitted.
    self._ready = collections.deque()    # Batches cut ([_Waiting]), in decoding order.
    self._changed = asyncio.Event()
    self._threads = asyncio.Semaphore(settings.num_batch_threads)
    self._executor = concurrent.futures.ThreadPoolExecutor(
        settings.num_batch_threads, thread_name_prefix="batch")
    self._decoding = set()  # asyncio.Tasks of the batches being decoded.
    self._busy = 0  # Batches being decoded, counted down before their thread is free.
    self._batch_seconds = None  # A running mean of a batch's decoding time.
    self._draining = False  # Set by `drain`: batches go without waiting to fill.
    self._dispatcher = asyncio.ensure_future(self._dispatch())

  @property
  def waiting(self):
    """How many sentences wait for a batch thread (or for their lengths: `room_for`)."""
    return self._held + len(self._pending) + sum(len(batch) for batch in self._ready)

  @contextlib.contextmanager
  def room_for(self, count):
    """Holds room in the queue for `count` sentences while their lengths are computed, before
    `submit`; raises QueueFull (nothing held) when there is none."""
    self._check_room(count)
    self._held += count
    try:
      yield
    finally:
      self._held -= count

  @property
  def decoding(self):
    """How many batches are being decoded."""
    return len(self._decoding)

  async def submit(self, sentences, lengths):
    """Decodes `sentences` (each of `lengths[i]` tokens) -> their outputs, in order.

    Raises QueueFull (nothing was queued) or BatchFailed.
    """
    self._check_room(len(sentences))
    loop = asyncio.get_running_loop()
    now = time.monotonic()
    waiting = [_Waiting(sentence, length, loop.create_future(), now)
               for sentence, length in zip(sentences, lengths)]
    self._pending.extend(waiting)
    self._changed.set()
    results = await asyncio.gather(*(item.future for item in waiting), return_exceptions=True)
    failed = [result for result in results if isinstance(result, BaseException)]
    if failed:
      raise failed[0]
    return results

  def drain(self):
    """From now on, a free thread decodes what waits at once (the server is stopping: no
    more sentences will come to fill a batch)."""
    self._draining = True
    self._changed.set()

  async def idle(self):
    """Returns once no sentence waits and no batch is being decoded."""
    while self.waiting or self._decoding:
      await asyncio.sleep(0.01)

  async def close(self, wait=True):
    """Stops the dispatcher and the batch threads: after `idle`, or at once (`wait` False:
    a drain's deadline passed); a batch being decoded then ends with its search, unheard."""
    self._dispatcher.cancel()
    await asyncio.gather(self._dispatcher, return_exceptions=True)
    self._executor.shutdown(wait=wait, cancel_futures=not wait)

  def _check_room(self, count):
    """Raises QueueFull unless `count` more sentences fit in the queue."""
    if self.waiting + count > self.settings.capacity:
      raise QueueFull(self._retry_after())

  def _retry_after(self):
    """Seconds until the queue has likely room: the waiting batches over the threads, at
    the mean time of a batch (1 at least)."""
    seconds = self._batch_seconds or 1.0
    batches = math.ceil(self.waiting / self.settings.max_batch_size)
    return max(1, math.ceil(seconds * batches / self.settings.num_batch_threads))

  async def _dispatch(self):
    while True:
      await self._threads.acquire()
      batch = await self._next_batch()
      self._busy += 1
      task = asyncio.ensure_future(self._decode_batch(batch))
      self._decoding.add(task)
      task.add_done_callback(self._decoding.discard)

  async def _next_batch(self):
    """The next batch to decode, once there is one (the module doc)."""
    settings = self.settings
    while True:
      self._changed.clear()
      self._drop_abandoned()
      partial_may_go = self._draining or not self._busy
      timeout = None
      if self._ready:
        batch = self._ready[0]
        if len(self._ready) == 1:  # Top the cut's last batch up with newer sentences.
          while self._pending and len(batch) < settings.max_batch_size:
            batch.append(self._pending.popleft())
        if len(batch) == settings.max_batch_size or partial_may_go:
          return self._ready.popleft()
      elif self._pending:
        deadline = self._pending[0].arrival + settings.batch_timeout_micros / 1e6
        timeout = deadline - time.monotonic() if partial_may_go else None
        if (len(self._pending) >= settings.max_batch_size or self._draining
            or (partial_may_go and timeout <= 0)):
          pending = list(self._pending)
          self._pending.clear()
          self._ready.extend([pending[k] for k in batch] for batch in batches_by_length(
              [item.length for item in pending], settings.max_batch_size))
          continue
      try:
        await asyncio.wait_for(self._changed.wait(), timeout)
      except asyncio.TimeoutError:
        pass

  def _drop_abandoned(self):
    """Forgets the waiting sentences of requests whose callers left (cut or not)."""
    if any(item.future.done() for item in self._pending):
      self._pending = collections.deque(item for item in self._pending
                                        if not item.future.done())
    if any(item.future.done() for batch in self._ready for item in batch):
      kept = ([item for item in batch if not item.future.done()] for batch in self._ready)
      self._ready = collections.deque(batch for batch in kept if batch)

  async def _decode_batch(self, batch):
    start = time.monotonic()
    loop = asyncio.get_running_loop()
    try:
      outputs = await loop.run_in_executor(self._executor, self._decode,
                                           [item.sentence for item in batch])
      if len(outputs) != len(batch):
        raise RuntimeError(f"{len(outputs)} outputs for {len(batch)} sentences")
    except Exception as error:  # pylint: disable=broad-except
      reason = " ".join(f"{type(error).__name__}: {error}".split())
      for item in batch:
        if not item.future.done():
          item.future.set_exception(BatchFailed(reason))
      self.metrics.batch_failed()
    else:
      for item, output in zip(batch, outputs):
        if not item.future.done():
          item.future.set_result(output)
    finally:
      seconds = time.monotonic() - start
      self._batch_seconds = (seconds if self._batch_seconds is None
                             else 0.8 * self._batch_seconds + 0.2 * seconds)
      self.metrics.batch_decoded(len(batch), seconds)
      self._busy -= 1
      self._changed.set()  # A batch that is not full may go now.
      self._threads.release()
