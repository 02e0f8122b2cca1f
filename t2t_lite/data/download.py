"""Fetching a problem's raw files: downloaded once into tmp_dir, checked, then unpacked.

    path = raw_text_file(tmp_dir, "train.de", url=".../train.de.gz", expected_lines=29000,
                         published=(PUBLISHED_SHA256, "Multi30k"))

A file already in tmp_dir (unpacked, or its .gz) is used as it is, so a machine
without internet works from a tmp_dir filled elsewhere. A download goes to a
temporary name and is renamed only once complete and checked: an interrupted
or truncated download never passes for the file.
"""

import gzip
import os
import shutil
import urllib.error
import urllib.request
import zlib

from t2t_lite.data.published_files import check_published
from t2t_lite.data.text_files import count_lines
from t2t_lite.errors import UserError
from t2t_lite.files.atomic_files import atomic_write_path
from t2t_lite.progress_line import ProgressLine

CHUNK_BYTES = 1 << 16
TIMEOUT_S = 60


def raw_text_file(tmp_dir, name, *, url, expected_lines=None, published=None, progress=True):
  """The path of the unpacked text file `name` in tmp_dir, fetching `url` (a .gz) if needed.

  Order: `<tmp_dir>/<name>` as is; else `<tmp_dir>/<name>.gz`, unpacked beside it;
  else `url` downloaded to `<tmp_dir>/<name>.gz` first. Each must have `expected_lines`
  lines (when given) and, when `published` is ({name: SHA-256}, the dataset's name) and
  names it, the published file's digest (`published_files.check_published`): a file given
  unpacked is refused (and left alone), one unpacked here is removed.
  Raises UserError (one line: what failed and what to do) on a failed download,
  a corrupt archive or a wrong line count.
  """
  path = os.path.join(tmp_dir, name)
  archive = path + ".gz"
  for given in (path, archive):
    if os.path.isdir(given):
      raise UserError(f"{given} is a directory, not the file {os.path.basename(given)}; move "
                      f"it away (t2t-datagen reads or downloads the file of that name there)")
  if os.path.isfile(path):
    _check_line_count(path, expected_lines, f"or delete it to download {url}")
    _check_published(path, published, f"replace it with the published file, or delete it to "
                     f"download {url}")
    return path
  if not os.path.isfile(archive):
    download(url, archive, progress=progress)
  _gunzip(archive, path)
  if expected_lines is not None:
    found = count_lines(path)
    if found != expected_lines:
      os.remove(path)
      raise UserError(f"{archive} unpacks to {found} lines, not the expected {expected_lines}: "
                      f"the file is not the published one; delete it and run again to "
                      f"download {url}")
  try:
    _check_published(path, published, f"{archive} is not the published file: delete it and "
                     f"run again to download {url}")
  except UserError:
    os.remove(path)
    raise
  return path


def _check_published(path, published, todo):
  if published:
    digests, dataset = published
    check_published(path, digests, dataset, todo)


def _check_line_count(path, expected_lines, alternative):
  """UserError when the text file at `path` (given, not made here) has other than
  `expected_lines` lines (None: any count)."""
  if expected_lines is None:
    return
  found = count_lines(path)
  if found != expected_lines:
    raise UserError(f"{path} has {found:,} lines, not the {expected_lines:,} of the published "
                    f"file: it is not the published one (cut, or another split?); replace it "
                    f"with the published file, {alternative}")


def download(url, path, *, progress=True):
  """Writes the body of `url` to `path` (atomically), with a progress line on stderr."""
  os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
  todo = (f"check the network (or proxy settings), or download {url} elsewhere and put it "
          f"at {path}")
  line = ProgressLine(enabled=progress)
  try:
    with urllib.request.urlopen(url, timeout=TIMEOUT_S) as response, \
        atomic_write_path(path) as partial, open(partial, "wb") as out:
      total = int(response.headers.get("Content-Length") or 0)
      done = 0
      for chunk in iter(lambda: _read(response, url, todo), b""):
        out.write(chunk)
        done += len(chunk)
        of_total = f" of {total / 1e6:.1f} MB" if total else " MB"
        line.show(f"downloading {os.path.basename(path)}: {done / 1e6:.1f}{of_total}")
      if total and done != total:
        raise UserError(f"downloading {url} stopped after {done:,} of {total:,} bytes; {todo}")
  except urllib.error.HTTPError as error:
    raise UserError(f"downloading {url} failed: HTTP {error.code} {error.reason}; "
                    f"{todo}") from None
  except urllib.error.URLError as error:
    raise UserError(f"downloading {url} failed ({error.reason}); {todo}") from None
  # Other OSErrors are this machine's (a full disk, no permission): file_errors words them.
  finally:
    line.close()


def _read(response, url, todo):
  """The next chunk of a download; a connection lost midway is the network's fault."""
  try:
    return response.read(CHUNK_BYTES)
  except OSError as error:
    raise UserError(f"downloading {url} failed midway ({error}); {todo}") from None


def _gunzip(archive, path):
  try:
    with gzip.open(archive, "rb") as packed, atomic_write_path(path) as partial, \
        open(partial, "wb") as out:
      shutil.copyfileobj(packed, out, CHUNK_BYTES)
  except (OSError, EOFError, zlib.error) as error:
    raise UserError(f"{archive} is not a complete gzip file ({error}); delete it and run "
                    f"again to download it anew") from None
