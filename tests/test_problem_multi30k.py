"""Multi30k problems on slices of the real files: datagen -> records -> pipeline -> text,
and the download path against a file server on this machine (never the network)."""

import functools
import gzip
import http.server
import os
import threading

import pytest

from commands import one_line_error
from t2t_lite.data.problem import DecodeDefaults, Sources
from t2t_lite.models.hyperparameters import HParams
from t2t_lite.problems import translate_multi30k
from t2t_lite.registry import PROBLEMS

SLICE = {"train": 400, "dev": 60, "test": 50}   # Lines taken from each real file.
LANGUAGES = ("en", "de", "fr")


def real_lines(shared_data, split, language, count):
  stem, _ = translate_multi30k.SPLIT_FILES[split]
  with open(os.path.join(shared_data, "multi30k", f"{stem}.{language}"), encoding="utf-8") as f:
    return [next(f) for _ in range(count)]


@pytest.fixture
def sliced(shared_data, monkeypatch):
  """The dataset's file layout with the first SLICE lines of each real file; line counts
  expected of downloads shrink to match, digests are not checked. -> {file name: text}"""
  monkeypatch.setattr(translate_multi30k, "SPLIT_FILES", {
      split: (stem, SLICE[split]) for split, (stem, _) in translate_multi30k.SPLIT_FILES.items()})
  monkeypatch.setattr(translate_multi30k, "PUBLISHED_SHA256", {})  # Slices: not the files.
  return {f"{translate_multi30k.SPLIT_FILES[split][0]}.{language}":
          "".join(real_lines(shared_data, split, language, count))
          for split, count in SLICE.items() for language in LANGUAGES}


def test_names_and_settings():
  for name, pair in (("translate_ende_multi30k", ("en", "de")),
                     ("translate_deen_multi30k", ("de", "en")),
                     ("translate_enfr_multi30k", ("en", "fr")),
                     ("translate_fren_multi30k", ("fr", "en"))):
    problem = PROBLEMS[name]()
    assert problem.name == name
    assert (problem.source_language, problem.target_language) == pair
    assert problem.vocab_size == 8192 and problem.shared_vocab
    assert problem.decode_defaults == DecodeDefaults(beam_size=4, alpha=0.6, extra_length=50)
    assert not problem.lowercase


@pytest.mark.parametrize("pair", ["ende", "enfr"])
def test_the_lowercased_problems_differ_from_the_cased_only_in_case(pair):
  cased = PROBLEMS[f"translate_{pair}_multi30k"]()
  lowercased = PROBLEMS[f"translate_{pair}_multi30k_lc"]()
  assert lowercased.name == f"translate_{pair}_multi30k_lc" and lowercased.lowercase
  for setting in ("source_language", "target_language", "vocab_size", "decode_defaults"):
    assert getattr(lowercased, setting) == getattr(cased, setting)


@pytest.mark.parametrize("name, case", [("translate_enfr_multi30k", str),
                                        ("translate_enfr_multi30k_lc", str.lower)])
def test_unpacked_files_round_trip_through_records_and_pipeline(sliced, tmp_path, name, case):
  tmp_dir = tmp_path / "raw"
  tmp_dir.mkdir()
  for file_name, text in sliced.items():
    (tmp_dir / file_name).write_text(text, encoding="utf-8")
  problem = PROBLEMS[name]()
  data_dir = str(tmp_path / "data")
  summary = problem.generate_data(data_dir, Sources(tmp_dir=str(tmp_dir)), vocab_size=600,
                                  progress=False)
  assert [s.examples for s in summary.splits] == [SLICE["train"], SLICE["dev"], SLICE["test"]]
  assert sorted(os.listdir(tmp_dir)) == sorted(sliced)  # Nothing written into tmp_dir.
  input_vocab, target_vocab = problem.vocabularies(data_dir)
  pairs = []
  for batch in problem.dataset("test", data_dir, HParams(batch_size=2048), training=False):
    pairs += zip((s.decode("utf-8") for s in input_vocab.decode(batch["inputs"]).numpy()),
                 (t.decode("utf-8") for t in target_vocab.decode(batch["targets"]).numpy()))
  expected = list(zip(case(sliced["test_2016_flickr.en"]).splitlines(),
                      case(sliced["test_2016_flickr.fr"]).splitlines()))
  assert sorted(pairs) == sorted(expected)
  assert any("é" in target for _, target in pairs)


@pytest.fixture
def file_server(tmp_path):
  """A local HTTP server of `tmp_path/served`: -> (folder, base URL). Stopped afterwards."""
  served = tmp_path / "served"
  served.mkdir()
  handler = functools.partial(QuietHandler, directory=str(served))
  server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
  thread = threading.Thread(target=server.serve_forever, daemon=True)
  thread.start()
  yield served, f"http://127.0.0.1:{server.server_port}"
  server.shutdown()
  server.server_close()


class QuietHandler(http.server.SimpleHTTPRequestHandler):
  def log_message(self, *args):
    pass


def serve_gzipped(served, files):
  for name, text in files.items():
    (served / f"{name}.gz").write_bytes(gzip.compress(text.encode("utf-8")))


def test_missing_files_are_downloaded_checked_and_unpacked(sliced, file_server, tmp_path,
                                                           monkeypatch, capfd):
  served, base = file_server
  serve_gzipped(served, sliced)
  monkeypatch.setattr(translate_multi30k, "RAW_URL", base + "/{name}.gz")
  tmp_dir = tmp_path / "tmp"
  problem = PROBLEMS["translate_ende_multi30k"]()
  pairs = list(problem.text_pairs("dev", Sources(tmp_dir=str(tmp_dir))))
  assert pairs == [(s, t) for s, t in zip(sliced["val.en"].splitlines(),
                                          sliced["val.de"].splitlines())]
  assert sorted(os.listdir(tmp_dir)) == ["val.de", "val.de.gz", "val.en", "val.en.gz"]
  # A second run reads what the first fetched: the server is not asked again.
  for name in ("val.en.gz", "val.de.gz"):
    os.remove(served / name)
  assert list(problem.text_pairs("dev", Sources(tmp_dir=str(tmp_dir)))) == pairs


def test_a_missing_remote_file_is_a_one_line_error(sliced, file_server, tmp_path, monkeypatch):
  _, base = file_server   # Serves nothing.
  monkeypatch.setattr(translate_multi30k, "RAW_URL", base + "/{name}.gz")
  problem = PROBLEMS["translate_ende_multi30k"]()
  tmp_dir = tmp_path / "tmp"
  message = one_line_error(lambda: list(problem.text_pairs("test", Sources(str(tmp_dir)))))
  assert "HTTP 404" in message and "test_2016_flickr.en.gz" in message
  assert not list(tmp_dir.iterdir())  # Nothing half-written.


def test_a_truncated_archive_is_refused_and_not_unpacked(sliced, file_server, tmp_path,
                                                         monkeypatch):
  served, base = file_server
  serve_gzipped(served, sliced)
  whole = (served / "val.en.gz").read_bytes()
  (served / "val.en.gz").write_bytes(whole[:len(whole) // 2])
  monkeypatch.setattr(translate_multi30k, "RAW_URL", base + "/{name}.gz")
  problem = PROBLEMS["translate_ende_multi30k"]()
  tmp_dir = tmp_path / "tmp"
  message = one_line_error(lambda: list(problem.text_pairs("dev", Sources(str(tmp_dir)))))
  assert "val.en.gz is not a complete gzip file" in message and "delete it" in message
  assert not (tmp_dir / "val.en").exists()


def test_a_file_with_the_wrong_line_count_is_refused(sliced, file_server, tmp_path,
                                                     monkeypatch):
  served, base = file_server
  serve_gzipped(served, {**sliced, "val.de": sliced["val.de"] + "Ein Satz zu viel.\n"})
  monkeypatch.setattr(translate_multi30k, "RAW_URL", base + "/{name}.gz")
  problem = PROBLEMS["translate_ende_multi30k"]()
  tmp_dir = tmp_path / "tmp"
  message = one_line_error(lambda: list(problem.text_pairs("dev", Sources(str(tmp_dir)))))
  assert f"{SLICE['dev'] + 1} lines, not the expected {SLICE['dev']}" in message
  assert not (tmp_dir / "val.de").exists()


def test_local_file_flags_are_refused(tmp_path):
  problem = PROBLEMS["translate_ende_multi30k"]()
  sources = Sources(tmp_dir=str(tmp_path), files={"train": ("a.en", "a.de")})
  assert "translate_from_files" in one_line_error(
      lambda: list(problem.text_pairs("train", sources)))
