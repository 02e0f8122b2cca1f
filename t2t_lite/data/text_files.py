"""Reading text files line by line, with one-line errors for bad files.

Every reader of text in t2t_lite goes through `read_lines`, so line i of two
files is sentence i of each: only "\n" ends a line ("\r\n" too), never the
other characters `str.splitlines` splits at (\x1c, \x85, \u2028, ...).
Parallel corpora come in two layouts: line-aligned files (line i of the source
translates line i of the target), and TSV (`source<TAB>target` per line).
Lines come back without their line ending; empty lines are not errors here
(the Problem drops and counts them). Text must be UTF-8; an error names the
file and 1-based line.
"""

from t2t_lite.errors import UserError
from t2t_lite.files.file_errors import require_file
from t2t_lite.files.file_reading import open_regular


def read_lines(path, what=None):
  """Yields each line of a UTF-8 text file without its line ending ("\\n" or "\\r\\n").

  A file that cannot be read (missing, a directory, a FIFO...) is a UserError as soon as
  the generator starts: "PATH: no such file; check the path", or, given `what` (e.g.
  "gold file"), "gold file PATH: no such file; check the path".
  """
  with open_regular(path, what or "") as f:
    for number, raw in enumerate(f, start=1):  # Binary lines end at b"\n" only.
      yield decode_line(raw, path, number)


def decode_line(raw, path, number):
  """Bytes of line `number` of `path` -> text without its line ending; UserError naming
  FILE:LINE when they are not UTF-8."""
  try:
    line = raw.decode("utf-8")
  except UnicodeDecodeError as error:
    raise UserError(f"{path}:{number}: invalid UTF-8 (byte {error.start + 1} of the line); "
                    f"convert the file to UTF-8, e.g. with iconv") from None
  return line.rstrip("\r\n")


def count_lines(path):
  """The number of lines of a file (a last line without "\\n" counts)."""
  count, last = 0, b"\n"
  with open_regular(path) as f:
    for block in iter(lambda: f.read(1 << 20), b""):
      count += block.count(b"\n")
      last = block[-1:]
  return count + (last != b"\n")


def read_parallel_files(source_path, target_path):
  """Yields (source_line, target_line) from two line-aligned UTF-8 files.

  Both files are checked to exist and to have the same number of lines before
  the first pair is yielded.
  """
  for path in (source_path, target_path):
    require_file(path)
  source_count, target_count = count_lines(source_path), count_lines(target_path)
  if source_count != target_count:
    raise UserError(f"line counts differ: {source_path} has {source_count} lines but "
                    f"{target_path} has {target_count}; the files must be line-aligned")
  yield from zip(read_lines(source_path), read_lines(target_path))


def read_tsv(path):
  """Yields (source, target) from a UTF-8 file of `source<TAB>target` lines.

  A non-empty line without exactly one tab is an error naming file and line;
  an empty line gives ("", "").
  """
  for number, line in enumerate(read_lines(path), start=1):
    if not line.strip():
      yield "", ""
      continue
    fields = line.split("\t")
    if len(fields) != 2:
      raise UserError(f"{path}:{number}: expected source<TAB>target (one tab), found "
                      f"{len(fields) - 1} tabs; fix or remove the line")
    yield fields[0], fields[1]
