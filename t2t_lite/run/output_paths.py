"""The guard of every path a command writes, checked before the work whose result goes
there: one line naming the path and why, and nothing written.

    check_output_file(args.decode_to_file, "--decode_to_file", inputs=[args.decode_from_file])
    check_output_directory(export_dir, "--export_dir", command="t2t-exporter")

Refused:
  - a symbolic link as the file to write (written through, it would change the file it
    points to);
  - one of the command's inputs;
  - a file or folder of a run directory or a data directory that another command writes
    (by name: `t2t_lite.run.run_layout.run_entry`, `t2t_lite.data.layout.data_entry`), e.g.
    RUN/hparams.json, RUN/ckpt-60.index, DATA/vocab.*.model, or a path inside one; a new
    file of the user's beside them (RUN/test.out.de) is fine;
  - a path inside a run's best/, which its training replaces whole at the next better
    evaluation, deleting what lies there with it (an export or an average is replaced only
    when its own command is run into it again);
  - as a directory to write into: a directory that a command replaces whole (best/, an
    export, an average: `run_layout.REPLACED_WHOLE`), unless the command itself made it.

The files themselves are written without following links: temporary files
(`t2t_lite.files.atomic_files`), lock files (`t2t_lite.files.writer_lock`), the probe below
(`t2t_lite.files.no_follow`).
"""

import os

from t2t_lite.data.layout import data_entry, is_data_directory
from t2t_lite.errors import UserError
from t2t_lite.files.atomic_files import TEMP_SUFFIX
from t2t_lite.files.no_follow import linked, new_file
from t2t_lite.run.run_layout import BEST_RECORD, REPLACED_WHOLE, is_run_directory, run_entry


def check_output_file(path, flag, inputs=()):
  """UserError unless a file can be written at `path` without replacing an input or
  anything of a run or data directory (the module doc).

  flag: the option that named `path`, for the message. inputs: files the command
  reads. The check writes and removes `path` + TEMP_SUFFIX, so that a read-only or
  full disk shows before the work instead of after it.
  """
  if os.path.isdir(path):
    raise UserError(f"{flag}={path} is a directory; name a file")
  parent = os.path.dirname(os.path.abspath(path))
  if not os.path.isdir(parent):
    raise UserError(f"{flag}={path}: the directory {parent} does not exist; create it first")
  if os.path.islink(path):
    raise UserError(f"{flag}={path}: {linked(path)}")
  for source in inputs:
    if source and os.path.exists(path) and os.path.samefile(path, source):
      raise UserError(f"{flag}={path} is the input file {source}; writing would replace it, "
                      f"so name another file")
  check_not_owned(path, flag)
  probe = path + TEMP_SUFFIX
  try:
    os.close(new_file(probe))
    os.remove(probe)
  except OSError as error:
    raise UserError(f"{flag}={path} cannot be written: {error.strerror or error}; choose "
                    f"another place") from None


def check_output_directory(path, flag, command=None, marker=None):
  """UserError when `path` exists but is not a directory, or is (or lies inside) what
  another command writes (the module doc).

  command: the command writing it ("t2t-exporter"), which may write its own entries of a
  run directory (RUN/export); marker: the marker of the directories it replaces whole
  itself (`path` may be one).
  """
  if os.path.exists(path) and not os.path.isdir(path):
    raise UserError(f"{flag}={path} is a file, not a directory; pass a directory")
  own = marker and os.path.lexists(os.path.join(path, marker))
  for name, (what, when) in REPLACED_WHOLE.items():
    if name != marker and os.path.lexists(os.path.join(path, name)) and not own:
      raise UserError(f"{flag}={path} is {what}, replaced whole {when}, which would delete "
                      f"what this command writes there; pass another directory")
  check_not_owned(path, flag, command)


def check_not_owned(path, flag, command=None):
  """UserError when `path` is, or lies inside, a file or folder that a run directory or a
  data directory holding it owns (other than `command`'s own), or lies inside a directory
  replaced whole by training (a run's best/)."""
  path = os.path.abspath(path)
  real = os.path.realpath(path)  # A link to a directory: where it leads (files: no links).
  child, ancestor = real, os.path.dirname(real)
  while True:
    if child != real:
      _check_not_replaced_whole(path, flag, child)
    entry = os.path.basename(child)
    owned = run_entry(entry)
    if owned and owned[1] != command and is_run_directory(ancestor):
      what, writer = owned
      raise UserError(f"{flag}={path} {'is' if child == real else 'lies inside'} the "
                      f"{what} of the run in {ancestor}, which only {writer} writes: writing "
                      f"there would destroy it; name a path outside the run's own files")
    owned = data_entry(entry)
    if owned and command != "t2t-datagen" and is_data_directory(ancestor):
      raise UserError(f"{flag}={path} {'is' if child == real else 'lies inside'} a {owned} "
                      f"of the data in {ancestor}, which only t2t-datagen writes: writing "
                      f"there would destroy it; name a path outside the data's own files")
    if ancestor == child:  # The root.
      return
    child, ancestor = ancestor, os.path.dirname(ancestor)


def _check_not_replaced_whole(path, flag, directory):
  """UserError when `directory`, holding `path`, is a run's best/ (the module doc)."""
  if os.path.lexists(os.path.join(directory, BEST_RECORD)):
    what, when = REPLACED_WHOLE[BEST_RECORD]
    raise UserError(f"{flag}={path} lies inside {directory}, {what}, which is replaced "
                    f"whole {when}: that would delete what this command writes; pass a "
                    f"path outside it")


def check_data_directory(data_dir, flag, inputs=()):
  """`check_output_directory` for t2t-datagen's `data_dir`, and UserError when it is a run
  directory (the run's vocabulary copies have the names of the data's) or when one of
  `inputs` is a file there that t2t-datagen replaces (a vocabulary, a shard, a marker)."""
  check_output_directory(data_dir, flag, "t2t-datagen")
  if is_run_directory(data_dir):
    raise UserError(f"{flag}={data_dir} is a run directory (it holds a run's description): "
                    f"t2t-datagen would write its vocabulary over the run's copy; pass another "
                    f"{flag}")
  for path in inputs:
    what = data_entry(os.path.basename(path))
    if what and os.path.realpath(os.path.dirname(path)) == os.path.realpath(data_dir):
      raise UserError(f"{path} is an input, but also a {what} in {flag}={data_dir}, which "
                      f"t2t-datagen replaces: move it out of {data_dir} first")
