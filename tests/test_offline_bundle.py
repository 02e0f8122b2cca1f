"""tools/offline_bundle/: parts of a given size, joined and checked; wheels trimmed.

Tiny fake wheels stand in for TensorFlow's: packing downloads nothing here, and the
install step (`pip install --no-index`) runs once, on a pure-Python fake (slow tier).
"""

import importlib.util
import json
import os
import sys
import zipfile

import pytest

from commands import run

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FOLDER = os.path.join(ROOT, "tools", "offline_bundle")
SCRIPT = os.path.join(FOLDER, "offline_bundle.py")


def load_bundle_module():
  """The program by its path, as a target machine runs it (standard library only): its
  sibling files on sys.path, as when it runs as a script."""
  if FOLDER not in sys.path:
    sys.path.insert(0, FOLDER)
  spec = importlib.util.spec_from_file_location("offline_bundle_under_test", SCRIPT)
  module = importlib.util.module_from_spec(spec)
  spec.loader.exec_module(module)
  return module


bundle = load_bundle_module()
installed_environment = importlib.import_module("bundle_environment").installed_environment


def fake_wheel(folder, distribution, version, files, requires=()):
  """A wheel of `files` ({member: bytes}) with METADATA, WHEEL and RECORD -> its path."""
  name = distribution.replace("-", "_")
  info = f"{name}-{version}.dist-info"
  members = dict(files)
  members[f"{info}/METADATA"] = (f"Metadata-Version: 2.1\nName: {distribution}\n"
                                 f"Version: {version}\n" +
                                 "".join(f"Requires-Dist: {r}\n" for r in requires)).encode()
  members[f"{info}/WHEEL"] = b"Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
  record = "".join(f"{member},,\n" for member in members) + f"{info}/RECORD,,\n"
  members[f"{info}/RECORD"] = record.encode()
  path = os.path.join(folder, f"{name}-{version}-py3-none-any.whl")
  with zipfile.ZipFile(path, "w") as wheel:
    for member, data in members.items():
      wheel.writestr(member, data)
  return path


@pytest.fixture
def wheels(tmp_path):
  folder = tmp_path / "wheels"
  folder.mkdir()
  return {
      "pure": fake_wheel(str(folder), "tiny-pure", "1.0",
                         {"tiny_pure/__init__.py": b"VALUE = 42\n"}),
      "cudnn": fake_wheel(str(folder), "nvidia-cudnn-cu12", "9.0",
                          {"nvidia/cudnn/lib/libcudnn.so.9": os.urandom(3000),
                           "nvidia/cudnn/lib/libcudnn_engines_precompiled.so.9":
                               os.urandom(5000)}),
      "nccl": fake_wheel(str(folder), "nvidia-nccl-cu12", "2.0",
                         {"nvidia/nccl/lib/libnccl.so.2": os.urandom(4000)}),
  }


def test_parts_join_back_into_the_same_files(tmp_path, wheels):
  files = {f"wheels/{os.path.basename(path)}": path for path in wheels.values()}
  manifest = bundle.write_bundle(files, str(tmp_path / "out"), 4096, {"python_version": "3.11"})
  total = sum(os.path.getsize(path) for path in wheels.values())
  # A tar stream of the files (plus headers), cut into 4 KiB parts; only the last is short.
  assert len(manifest["parts"]) >= total // 4096
  assert all(part["bytes"] == 4096 for part in manifest["parts"][:-1])
  assert sorted(os.listdir(tmp_path / "out")) == sorted(
      [part["name"] for part in manifest["parts"]] + ["manifest.json"])
  assert json.loads((tmp_path / "out" / "manifest.json").read_text()) == manifest

  bundle.extract_bundle(str(tmp_path / "out"), str(tmp_path / "joined"))
  for name, path in files.items():
    assert (tmp_path / "joined" / name).read_bytes() == open(path, "rb").read()


def test_a_missing_or_corrupt_part_is_named(tmp_path, wheels):
  files = {f"wheels/{os.path.basename(path)}": path for path in wheels.values()}
  out = tmp_path / "out"
  manifest = bundle.write_bundle(files, str(out), 4096, {"python_version": "3.11"})
  second = out / manifest["parts"][1]["name"]
  data = second.read_bytes()
  second.write_bytes(data[:100] + bytes([data[100] ^ 1]) + data[101:])
  with pytest.raises(bundle.BundleError, match=r"part bundle\.part001 .* is corrupt"):
    bundle.extract_bundle(str(out), str(tmp_path / "joined"))
  second.unlink()
  with pytest.raises(bundle.BundleError, match=r"part bundle\.part001 of \d+ is missing"):
    bundle.extract_bundle(str(out), str(tmp_path / "joined"))
  (out / "manifest.json").unlink()
  with pytest.raises(bundle.BundleError, match="manifest.json is missing"):
    bundle.extract_bundle(str(out), str(tmp_path / "joined"))


def test_dropped_pieces_leave_whole_wheels_and_members_out(tmp_path, wheels):
  work = tmp_path / "work"
  work.mkdir()
  kept, left_out = bundle.apply_drops(list(wheels.values()), str(work), keep=[])
  assert {bundle.distribution_of(path) for path in kept} == {"tiny-pure", "nvidia-cudnn-cu12"}
  assert {item["name"] for item in left_out} == {"nccl", "cudnn_engines_precompiled"}
  precompiled = next(item for item in left_out if item["name"] == "cudnn_engines_precompiled")
  assert precompiled["unpacked_bytes"] == 5000 and precompiled["why"]
  cudnn = next(path for path in kept if "cudnn" in path)
  with zipfile.ZipFile(cudnn) as wheel:
    names = wheel.namelist()
    record = wheel.read(next(name for name in names if name.endswith("RECORD"))).decode()
  assert "nvidia/cudnn/lib/libcudnn.so.9" in names
  assert not [name for name in names if "precompiled" in name]
  assert "precompiled" not in record and "libcudnn.so.9" in record

  kept, left_out = bundle.apply_drops(list(wheels.values()), str(work), keep=["nccl"])
  assert "nvidia-nccl-cu12" in {bundle.distribution_of(path) for path in kept}
  assert [item["name"] for item in left_out] == ["cudnn_engines_precompiled"]


def test_the_environment_names_the_site_and_cuda_compiler(tmp_path):
  site = tmp_path / "site"
  assert bundle.environment_lines(str(site))[0].startswith(f'export PYTHONPATH="{site}')
  (site / "nvidia" / "cuda_nvcc").mkdir(parents=True)
  lines = "\n".join(bundle.environment_lines(str(site)))
  assert f"{site}/nvidia/cuda_nvcc/bin" in lines
  assert f"--xla_gpu_cuda_data_dir={site}/nvidia/cuda_nvcc" in lines
  env = installed_environment(str(tmp_path), {"PATH": "/usr/bin", "XLA_FLAGS": "--a"})
  assert env["PYTHONPATH"] == str(site)
  assert env["PATH"] == f"{site}/nvidia/cuda_nvcc/bin:{site}/bin:/usr/bin"
  assert env["XLA_FLAGS"] == f"--xla_gpu_cuda_data_dir={site}/nvidia/cuda_nvcc --a"


@pytest.mark.slow
def test_unpack_installs_without_network_and_the_package_imports(tmp_path, wheels):
  version = "{}.{}".format(*sys.version_info[:2])
  files = {f"wheels/{os.path.basename(wheels['pure'])}": wheels["pure"]}
  bundle.write_bundle(files, str(tmp_path / "out"), 1024, {"python_version": version})
  target = tmp_path / "installed"
  done = run([sys.executable, SCRIPT, "unpack", f"--bundle={tmp_path / 'out'}",
              f"--target={target}"])
  assert done.returncode == 0, done.stderr
  assert "env.sh" in done.stdout
  imported = run(["bash", "-c", f"source {target}/env.sh && {sys.executable} -S -c "
                  f"'import sys, tiny_pure; print(tiny_pure.VALUE)'"])
  assert imported.stdout.strip() == "42", imported.stderr

  (tmp_path / "out" / "bundle.part000").write_bytes(b"not the part")
  done = run([sys.executable, SCRIPT, "unpack", f"--bundle={tmp_path / 'out'}",
              f"--target={tmp_path / 'again'}"])
  assert done.returncode == 2
  assert done.stderr.strip().splitlines() == [
      f"t2t-offline-bundle: error: part bundle.part000 in {tmp_path / 'out'} is corrupt "
      f"(12 bytes, sha256 differs from the manifest's): copy it again"]


@pytest.mark.slow
def test_a_left_out_dependency_is_found_when_packing(tmp_path, wheels):
  # As cuBLAS's wheel requires NVRTC's: leaving NCCL out must not break what needs it.
  needy = fake_wheel(str(tmp_path), "needs-nccl", "1.0", {"needs_nccl.py": b""},
                     requires=["nvidia-nccl-cu12"])
  version = "{}.{}".format(*sys.version_info[:2])
  work = tmp_path / "work"
  work.mkdir()
  kept, _ = bundle.apply_drops([needy] + list(wheels.values()), str(work), keep=["nccl"])
  bundle.check_installable(kept, str(work), version, bundle.PLATFORMS)
  kept, _ = bundle.apply_drops([needy] + list(wheels.values()), str(tmp_path), keep=[])
  with pytest.raises(bundle.BundleError, match="No matching distribution found for "
                     "nvidia-nccl-cu12"):
    bundle.check_installable(kept, str(tmp_path / "again"), version, bundle.PLATFORMS)


def test_extras_are_packed_with_what_they_need(tmp_path, monkeypatch):
  """--extras=serve,ctranslate2 asks pip for t2t_lite's wheel with those extras (pip reads
  `wheel.whl[extra,...]` as the wheel and its extras' requirements)."""
  asked = []

  def stop_at_download(requirements, *unused):
    asked.extend(requirements)
    raise bundle.BundleError("downloads nothing here")
  monkeypatch.setattr(bundle, "build_own_wheel",
                      lambda source, work: "/w/t2t_lite-1-py3-none-any.whl")
  monkeypatch.setattr(bundle, "download", stop_at_download)
  with pytest.raises(bundle.BundleError):
    bundle.pack(bundle.parse_args(["pack", f"--out={tmp_path}", "--no_cuda",
                                   "--extras=serve,ctranslate2"]))
  assert asked == ["/w/t2t_lite-1-py3-none-any.whl[serve,ctranslate2]"]


# --- --site and --host_cuda (tools/offline_bundle/offline_site.py) --------------------------

site_module = bundle.offline_site
HOST_CUDA_13 = ("libcublas.so.13", "libcublasLt.so.13", "libcufft.so.12", "libcusolver.so.12",
                "libcusparse.so.12", "libcudnn.so.9")


def fake_toolkit(folder):
  """A folder shaped like a CUDA toolkit as XLA needs it: bin/ptxas, nvvm/libdevice."""
  (folder / "bin").mkdir(parents=True)
  (folder / "bin" / "ptxas").write_text("#!/bin/sh\n")
  (folder / "bin" / "ptxas").chmod(0o755)
  (folder / "nvvm" / "libdevice").mkdir(parents=True)
  (folder / "nvvm" / "libdevice" / "libdevice.10.bc").write_bytes(b"")
  return folder


def fake_libraries(folder, names):
  folder.mkdir(parents=True, exist_ok=True)
  for name in names:
    (folder / name).write_bytes(b"\x7fELF")
  return folder


def test_only_tensorflows_own_libraries_are_stripped(tmp_path):
  for path in ("tensorflow/libtensorflow_cc.so.2", "tensorflow/python/_pywrap.so",
               "tensorflow_text/python/ops/_ops.so", "tensorflow/x.libs/libopenblas.so",
               "numpy/_core/_multiarray_umath.so", "tensorflow/python/ops.py"):
    (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / path).write_bytes(b"")
  assert [os.path.relpath(path, tmp_path) for path in
          site_module.strippable_libraries(str(tmp_path))] == [
              "tensorflow/libtensorflow_cc.so.2", "tensorflow/python/_pywrap.so",
              "tensorflow_text/python/ops/_ops.so"]


def test_scripts_get_the_targets_python(tmp_path):
  (tmp_path / "bin").mkdir()
  script = tmp_path / "bin" / "t2t-trainer"
  script.write_text("#!/home/packer/.venv/bin/python\nimport sys\n")
  (tmp_path / "bin" / "notes.txt").write_text("not a script\n")
  site_module.point_scripts_at(str(tmp_path), "/opt/python3.12")
  assert script.read_text() == "#!/opt/python3.12\nimport sys\n"
  assert (tmp_path / "bin" / "notes.txt").read_text() == "not a script\n"


def test_the_machines_cuda_and_nccl_are_linked_under_tensorflows_names(tmp_path):
  cuda13 = fake_libraries(tmp_path / "cu13", HOST_CUDA_13)
  cuda12 = fake_libraries(tmp_path / "cu12", ["libcublas.so.12"])
  runtime = fake_libraries(tmp_path / "runtime", ["libcudart.so.12"]) / "libcudart.so.12"
  toolkit = fake_toolkit(tmp_path / "cuda")
  target = tmp_path / "target"
  info = site_module.link_host_cuda(str(target), str(runtime), [str(cuda13), str(cuda12)],
                                    str(toolkit))
  links = target / "cuda_links"
  assert (links / "libcudart.so.12").read_bytes() == b"\x7fELF"
  # A CUDA 12 name wherever it is, before a CUDA 13 one.
  assert os.readlink(links / "libcublas.so.12") == str(cuda12 / "libcublas.so.12")
  assert os.readlink(links / "libcufft.so.11") == str(cuda13 / "libcufft.so.12")
  assert info["library_path"] == [str(links), str(cuda12), str(cuda13)]
  env = installed_environment(str(target), {"LD_LIBRARY_PATH": "/lib", "PATH": "/bin"})
  assert env["LD_LIBRARY_PATH"] == f"{links}:{cuda12}:{cuda13}:/lib"
  assert env["PATH"] == f"{toolkit}/bin:{target}/site/bin:/bin"
  assert env["XLA_FLAGS"] == f"--xla_gpu_cuda_data_dir={toolkit}"
  # No NCCL here: linked without it, and unpack says what that leaves out.
  assert info["missing"] == ["libnccl.so.2"] and not (links / "libnccl.so.2").exists()
  assert "no libnccl.so.2 on this machine: one GPU trains, several physical GPUs cannot " \
      "all-reduce" in site_module.host_cuda_summary(info)

  # NCCL from its own wheel's folder (nvidia/nccl/lib), linked and on the library path.
  nccl = fake_libraries(tmp_path / "nccl", ["libnccl.so.2"])
  info = site_module.link_host_cuda(str(target), str(runtime), [str(cuda13), str(nccl)],
                                    str(toolkit))
  assert os.readlink(links / "libnccl.so.2") == str(nccl / "libnccl.so.2")
  assert info["missing"] == [] and info["library_path"] == [str(links), str(cuda13), str(nccl)]
  assert f"libnccl.so.2 -> {nccl}/libnccl.so.2" in site_module.host_cuda_summary(info)
  assert "no libnccl" not in site_module.host_cuda_summary(info)

  (cuda13 / "libcudnn.so.9").unlink()
  with pytest.raises(site_module.SiteError, match=r"^no libcudnn.so.9 on this machine "
                     r"\(TensorFlow opens libcudnn.so.9\)"):
    site_module.link_host_cuda(str(target), str(runtime), [str(cuda13)], str(toolkit))


def test_the_toolkit_and_library_folders_are_found(tmp_path):
  toolkit = fake_toolkit(tmp_path / "cuda-13.0")
  env = {"CUDA_HOME": str(toolkit), "PATH": "/nowhere",
         "LD_LIBRARY_PATH": f"{tmp_path}:{tmp_path / 'missing'}"}
  assert site_module.cuda_toolkit(env) == str(toolkit)
  assert site_module.library_folders(env)[0] == str(tmp_path)
  assert str(tmp_path / "missing") not in site_module.library_folders(env)
  (toolkit / "nvvm" / "libdevice" / "libdevice.10.bc").unlink()
  assert site_module.cuda_toolkit(env) in (None, "/usr/local/cuda")


def test_host_cuda_needs_a_site_bundle(tmp_path, capsys):
  with pytest.raises(SystemExit) as stopped:
    bundle.run(["pack", f"--out={tmp_path}", "--host_cuda"])
  assert stopped.value.code == 2
  assert capsys.readouterr().err.strip() == (
      "t2t-offline-bundle: error: --host_cuda needs --site and no --no_cuda")


@pytest.mark.slow
def test_a_site_bundle_unpacks_with_the_machines_cuda(tmp_path):
  site = tmp_path / "site"
  (site / "tiny_site").mkdir(parents=True)
  (site / "tiny_site" / "__init__.py").write_text("VALUE = 7\n")
  (site / "tiny_site" / "data.bin").write_bytes(os.urandom(3000))  # more than one part
  (site / "bin").mkdir()
  (site / "bin" / "tiny-tool").write_text("#!/packing/python\nimport tiny_site\n"
                                          "print(tiny_site.VALUE)\n")
  (site / "bin" / "tiny-tool").chmod(0o755)
  runtime = fake_libraries(tmp_path / "runtime", ["libcudart.so.12"]) / "libcudart.so.12"
  version = "{}.{}".format(*sys.version_info[:2])
  manifest = bundle.write_bundle({"site": str(site), "libcudart.so.12": str(runtime)},
                                 str(tmp_path / "out"), 512,
                                 {"format": 2, "python_version": version, "host_cuda": True},
                                 compression="xz")
  assert len(manifest["parts"]) > 1
  assert [item["name"] for item in manifest["files"]] == ["libcudart.so.12"]
  cuda13 = fake_libraries(tmp_path / "cu13", HOST_CUDA_13)
  toolkit = fake_toolkit(tmp_path / "cuda")
  target = tmp_path / "installed"
  unpack = [sys.executable, SCRIPT, "unpack", f"--bundle={tmp_path / 'out'}",
            f"--target={target}"]
  machine = dict(os.environ, LD_LIBRARY_PATH=str(cuda13), CUDA_HOME=str(toolkit))
  done = run(unpack, env=machine)
  assert done.returncode == 0, done.stderr
  assert f"libcufft.so.11 -> {cuda13}/libcufft.so.12" in done.stdout
  used = run(["bash", "-c", f"source {target}/env.sh && tiny-tool && echo $LD_LIBRARY_PATH"])
  value, library_path = used.stdout.split()
  assert value == "7", used.stderr
  assert library_path.startswith(f"{target}/cuda_links:{cuda13}")

  (cuda13 / "libcublasLt.so.13").unlink()
  done = run(unpack, env=dict(machine, LD_LIBRARY_PATH=str(cuda13)))
  assert done.returncode == 2
  assert done.stderr.startswith("t2t-offline-bundle: error: no libcublasLt.so.12 or "
                                "libcublasLt.so.13 on this machine")
