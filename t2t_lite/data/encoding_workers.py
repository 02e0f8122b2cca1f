"""The processes that encode records for t2t-datagen, supervised: one that dies ends the
command at once, in one line naming it.

    with EncodingWorkers(encoder, processes=4) as workers:
      for encoded in workers.encode_in_order(batches):
        ...  # encoder.encode(batch) of each batch, in the batches' order

Each process (spawned afresh: this process's TensorFlow threads are not forked) has a pipe
of its own each way. Batch i goes to process i mod N, at most `in_flight` a process at a
time, and the results are taken back in the same turn, so their order is the batches'. A
process reads its pipe on a thread of its own while it encodes, so that a batch sent never
waits on a result not yet taken.

Waiting for a result watches every process: one that ends (killed, out of memory) raises
a UserError at once, even in the middle of a result, since its pipe's other end is then
closed. (A shared queue, as concurrent.futures' pool has, can block for ever when a process
dies while holding it.) Leaving the `with` block ends the processes: closing their pipes
on success, terminating them on an error or an interrupt.

Ctrl-C is for this process alone, though a terminal sends it to the whole group: each
process is started with SIGINT ignored, which it keeps from its first instruction on (the
encoder, with its vocabularies, goes through its pipe once it has started, so that a start
takes milliseconds). A Ctrl-C in those milliseconds is lost; one later ends the processes
started. A process that cannot start (no memory, no process left) ends those started, in
one line.
"""

import collections
import contextlib
import multiprocessing
from multiprocessing import connection
import queue
import signal
import threading

from t2t_lite.cores import usable_cores
from t2t_lite.errors import UserError

STOP_SECONDS = 10  # How long a process is given to end before it is killed.
# Encoding processes a core may carry: encoding keeps a core busy, so more than one a core
# gains nothing, and each process holds its own interpreter and libraries in memory
# (1,000 of them would exhaust a machine's memory long before they sped anything up).
PROCESSES_PER_CORE = 4


def check_process_count(processes, cores=None):
  """UserError when `processes` encoding processes are more than PROCESSES_PER_CORE a core
  of this process's `cores` (default: `usable_cores()`)."""
  cores = cores or usable_cores()
  bound = PROCESSES_PER_CORE * cores
  if processes > bound:
    raise UserError(f"--num_concurrent_processes={processes}: more encoding processes than "
                    f"this machine's bound of {bound} ({PROCESSES_PER_CORE} a core, {cores} "
                    f"core(s)); pass --num_concurrent_processes={bound} or fewer (the "
                    f"default is one a core)")


class EncodingWorkers:
  """`processes` encoding processes for `encoder` (a picklable `PairEncoder`)."""

  def __init__(self, encoder, processes, in_flight=2):
    self.in_flight = in_flight
    self._processes, self._to, self._from = [], [], []
    try:
      for index in range(processes):
        self._start(index, processes)
      for index in range(processes):  # Their first message, once they have all started.
        self._send(index, encoder)
    except BaseException:
      self._stop(at_once=True)
      raise

  def _start(self, index, count):
    """Starts process `index` (of `count`); UserError when it cannot. The ends of its pipes
    that are its own are closed here either way: once it dies, nothing holds them open."""
    context = multiprocessing.get_context("spawn")
    with contextlib.ExitStack() as theirs:
      batches_in, batches_out = context.Pipe(duplex=False)
      theirs.callback(batches_in.close)
      self._to.append(batches_out)  # Closed by `_stop`, whatever happens next.
      results_in, results_out = context.Pipe(duplex=False)
      theirs.callback(results_out.close)
      self._from.append(results_in)
      process = context.Process(target=_work, args=(batches_in, results_out),
                                name=f"encoding process {index + 1}", daemon=True)
      with _sigint_ignored():  # Inherited: it ignores SIGINT from its start.
        try:
          process.start()
        except OSError as error:  # No memory, no process, no file descriptor left...
          why = error.strerror or error
          raise UserError(f"{process.name} of {count} could not start ({why}); run t2t-datagen "
                          f"again, with --num_concurrent_processes=1 to encode in one process"
                          ) from None
        self._processes.append(process)

  def __enter__(self):
    return self

  def __exit__(self, kind, error, traceback):
    self._stop(at_once=kind is not None)
    return False

  def encode_in_order(self, batches):
    """Yields `encoder.encode(batch)` for each of `batches`, in order."""
    pending = collections.deque()  # The process of each batch sent, oldest first.
    for index, batch in enumerate(batches):
      worker = index % len(self._processes)
      self._send(worker, batch)
      pending.append(worker)
      if len(pending) >= self.in_flight * len(self._processes):
        yield self._receive(pending.popleft())
    while pending:
      yield self._receive(pending.popleft())

  def _send(self, worker, batch):
    try:
      self._to[worker].send(batch)
    except OSError:  # Its pipe's other end is closed: it died.
      raise self._ended(worker) from None

  def _receive(self, worker):
    """The next result of process `worker`; UserError as soon as any process ends."""
    sentinels = {process.sentinel: index for index, process in enumerate(self._processes)}
    results = self._from[worker]
    while True:
      ready = connection.wait([results, *sentinels])
      if results in ready:
        try:
          kind, value = results.recv()
        except (EOFError, OSError):  # It died, part of the way through sending.
          raise self._ended(worker) from None
        if kind == "error":
          raise value  # Raised by `encode` itself: what it raised, as it would be here.
        return value
      raise self._ended(sentinels[ready[0]])

  def _ended(self, worker):
    """The UserError for process `worker`, which ended."""
    process = self._processes[worker]
    process.join(STOP_SECONDS)
    return UserError(f"{process.name} of {len(self._processes)} (pid {process.pid}) ended "
                     f"unexpectedly ({ending(process.exitcode)}); run t2t-datagen again, with "
                     f"--num_concurrent_processes=1 to encode in one process")

  def _stop(self, at_once):
    """Ends the processes: closing their pipes (they finish and exit), or at once."""
    for pipe in self._to + self._from:
      pipe.close()
    for process in self._processes:
      if at_once and process.is_alive():
        process.terminate()
    for process in self._processes:
      process.join(STOP_SECONDS)
      if process.is_alive():
        process.kill()
        process.join()


def ending(exitcode):
  """How a process ended, from its exit code: 'killed by SIGKILL, out of memory?', ..."""
  if exitcode is None:
    return "still running"
  if exitcode < 0:
    try:
      name = signal.Signals(-exitcode).name
    except ValueError:
      name = f"signal {-exitcode}"
    return f"killed by {name}" + (", out of memory?" if name == "SIGKILL" else "")
  return f"exit status {exitcode}"


@contextlib.contextmanager
def _sigint_ignored():
  """Inside, SIGINT is ignored, as are processes started inside from their first
  instruction on (an ignored signal stays ignored across exec). Off the main thread, or
  under a handler not set from Python, nothing changes."""
  previous = signal.getsignal(signal.SIGINT)
  if previous is None or threading.current_thread() is not threading.main_thread():
    yield
    return
  signal.signal(signal.SIGINT, signal.SIG_IGN)
  try:
    yield
  finally:
    signal.signal(signal.SIGINT, previous)


def _work(batches_in, results_out):
  """An encoding process: takes its encoder, the first thing its pipe brings, then encodes
  each batch the pipe brings until it closes. Ctrl-C is for the parent, which ends it."""
  signal.signal(signal.SIGINT, signal.SIG_IGN)  # Where it was not ignored from the start.
  try:
    encoder = batches_in.recv()
  except (EOFError, OSError):  # The parent is gone, or ended it first.
    return
  batches = queue.Queue()
  threading.Thread(target=_read, args=(batches_in, batches), daemon=True).start()
  while (batch := batches.get()) is not None:
    try:
      result = ("done", encoder.encode(batch))
    except Exception as error:  # Raised again in the parent.
      result = ("error", error)
    try:
      results_out.send(result)
    except OSError:  # The parent is gone.
      return


def _read(pipe, batches):
  """Puts each batch from `pipe` on `batches`, then None when the pipe closes."""
  try:
    while True:
      batches.put(pipe.recv())
  except (EOFError, OSError):
    batches.put(None)
