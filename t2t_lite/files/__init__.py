"""Files read and written safely: whole or not at all, never through a link t2t_lite did not
make, one writer per directory, and every failure as one line naming the path. Imports nothing
of data/, run/, training/ or decoding/: every layer uses it.

  atomic_files.py   files and directories written whole or not at all: a temporary name, a rename.
  file_reading.py   every file a command reads: checked before it is opened, bounded, decoded.
  json_files.py     the project's own JSON files: a damaged one is a one-line error naming it.
  file_errors.py    file-system failures as one line naming the path and the cause.
  no_follow.py      opening files to write without following a symbolic link t2t_lite did not make.
  step_files.py     files numbered by training step, taken in step order as they appear.
  writer_lock.py    one writer per directory: a lock the operating system lets go of at exit.
"""
