"""A bundle's parts: a tar stream cut into files of a given size, its manifest (sha256 per
part and per file), and the parts checked, joined and extracted again. Standard library only."""

import hashlib
import io
import json
import os
import tarfile

from bundle_error import BundleError

MANIFEST = "manifest.json"
PART_NAME = "bundle.part{:03d}"
MIB = 2 ** 20
CHUNK = 4 * MIB


def sha256_of(path):
  digest = hashlib.sha256()
  with open(path, "rb") as f:
    for chunk in iter(lambda: f.read(CHUNK), b""):
      digest.update(chunk)
  return digest.hexdigest()


class PartWriter(io.RawIOBase):
  """A write-only stream cut into files `out_dir/bundle.partNNN` of at most `part_bytes`."""

  def __init__(self, out_dir, part_bytes):
    super().__init__()
    self.out_dir, self.part_bytes = out_dir, part_bytes
    self.paths, self._file, self._left = [], None, 0

  def writable(self):
    return True

  def write(self, data):
    view = memoryview(data)
    while view:
      if self._left == 0:
        self._next_part()
      count = min(self._left, len(view))
      self._file.write(view[:count])
      self._left -= count
      view = view[count:]
    return len(data)

  def _next_part(self):
    if self._file:
      self._file.close()
    self.paths.append(os.path.join(self.out_dir, PART_NAME.format(len(self.paths))))
    self._file = open(self.paths[-1], "wb")
    self._left = self.part_bytes

  def close(self):
    if self._file:
      self._file.close()
      self._file = None
    super().close()


class PartReader(io.RawIOBase):
  """The parts `paths`, in order, read as one stream."""

  def __init__(self, paths):
    super().__init__()
    self._paths, self._file = list(paths), None

  def readable(self):
    return True

  def readinto(self, buffer):
    while True:
      if self._file is None:
        if not self._paths:
          return 0
        self._file = open(self._paths.pop(0), "rb")
      count = self._file.readinto(buffer)
      if count:
        return count
      self._file.close()
      self._file = None


def write_bundle(files, out_dir, part_bytes, info, compression=""):
  """Writes `files` ({name in the bundle: local file or folder}) as a tar stream (compressed
  with `compression`: "" or "xz") cut into parts, and out_dir/manifest.json: `info` plus
  "compression", "files" (each file's name, bytes, sha256; a folder's files are checked
  through its parts') and "parts" (names, bytes, sha256) -> manifest."""
  os.makedirs(out_dir, exist_ok=True)
  for name in os.listdir(out_dir):
    if name.startswith("bundle.part") or name == MANIFEST:
      os.remove(os.path.join(out_dir, name))
  listed = [{"name": name, "bytes": os.path.getsize(path), "sha256": sha256_of(path)}
            for name, path in sorted(files.items()) if os.path.isfile(path)]
  writer = PartWriter(out_dir, part_bytes)
  with io.BufferedWriter(writer, CHUNK) as stream:
    with tarfile.open(fileobj=stream, mode="w|" + compression) as tar:
      for name, path in sorted(files.items()):
        tar.add(path, arcname=name)
  parts = [{"name": os.path.basename(path), "bytes": os.path.getsize(path),
            "sha256": sha256_of(path)} for path in writer.paths]
  manifest = dict(info, compression=compression, files=listed, parts=parts,
                  total_bytes=sum(part["bytes"] for part in parts))
  with open(os.path.join(out_dir, MANIFEST), "w", encoding="utf-8") as f:
    json.dump(manifest, f, indent=1)
  return manifest


def read_manifest(bundle_dir):
  path = os.path.join(bundle_dir, MANIFEST)
  try:
    with open(path, encoding="utf-8") as f:
      return json.load(f)
  except FileNotFoundError:
    raise BundleError(f"{path} is missing: copy the bundle's manifest.json beside its parts")
  except ValueError as error:
    raise BundleError(f"{path} is not a bundle manifest ({error}): copy it again")


def check_parts(bundle_dir, manifest):
  """-> the parts' paths in order; a missing, cut or changed part is a BundleError."""
  paths = []
  for part in manifest["parts"]:
    path = os.path.join(bundle_dir, part["name"])
    if not os.path.exists(path):
      raise BundleError(f"part {part['name']} of {len(manifest['parts'])} is missing in "
                        f"{bundle_dir}: copy it there")
    size = os.path.getsize(path)
    if size != part["bytes"] or sha256_of(path) != part["sha256"]:
      raise BundleError(f"part {part['name']} in {bundle_dir} is corrupt ({size:,} bytes, "
                        f"sha256 differs from the manifest's): copy it again")
    paths.append(path)
  return paths


def extract_bundle(bundle_dir, dest):
  """Checks the parts, joins them and extracts the files into `dest`, checking each file
  against the manifest -> manifest."""
  manifest = read_manifest(bundle_dir)
  paths = check_parts(bundle_dir, manifest)
  os.makedirs(dest, exist_ok=True)
  with io.BufferedReader(PartReader(paths), CHUNK) as stream:
    with tarfile.open(fileobj=stream, mode="r|" + manifest.get("compression", "")) as tar:
      for member in tar:
        if not (member.isfile() or member.isdir()) or os.path.isabs(member.name) or \
            ".." in member.name.split("/"):
          raise BundleError(f"the bundle holds an unexpected entry {member.name!r}")
        tar.extract(member, dest, filter="data")
  for listed in manifest["files"]:
    path = os.path.join(dest, listed["name"])
    if not os.path.exists(path) or sha256_of(path) != listed["sha256"]:
      raise BundleError(f"{listed['name']} does not match the manifest after joining the "
                        f"parts: pack the bundle again")
  return manifest
