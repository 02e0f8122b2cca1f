"""`python -m bench` rewrites docs/benchmarks.md but keeps the sections other programs wrote."""

from bench import ctranslate2_decoding
from bench.__main__ import with_kept_sections
from bench.gpu import document as gpu_document

NEW = "# Benchmarks\n\n## Decoding\n\nnew CPU tables\n"


def test_the_gpu_and_serving_sections_survive_a_new_cpu_run(tmp_path):
  path = tmp_path / "benchmarks.md"
  gpu = "## GPU\n\n<!-- gpu:begin -->\nH100 numbers\n<!-- gpu:end -->\n\nnotes by hand\n"
  serving = ("## Serving a trained model on the CPU\n\n<!-- serving:begin -->\nCTranslate2 "
             "numbers\n<!-- serving:end -->\n")
  path.write_text("# Benchmarks\n\n## Decoding\n\nold CPU tables\n\n" + gpu + "\n" + serving)
  text = with_kept_sections(NEW, str(path))
  assert text == NEW + "\n" + gpu + "\n" + serving
  assert "old CPU tables" not in text


def test_sections_never_written_get_their_placeholders(tmp_path):
  text = with_kept_sections(NEW, str(tmp_path / "absent.md"))
  assert text.startswith(NEW)
  for section in (gpu_document.SECTION, ctranslate2_decoding.SECTION):
    begin, end = section.markers
    assert f"{section.heading}\n\n{begin}\n{section.placeholder}\n{end}" in text


def test_the_serving_program_writes_only_its_own_section(tmp_path):
  path = tmp_path / "benchmarks.md"
  path.write_text(NEW + "\n## GPU\n\nkept\n")
  ctranslate2_decoding.SECTION.write(str(path), "measured")
  text = path.read_text()
  assert text.startswith(NEW + "\n## GPU\n\nkept\n")
  assert text.endswith("<!-- serving:begin -->\nmeasured\n<!-- serving:end -->\n")


def test_program_descriptions_leave_out_their_usage_lines_continued_ones_too():
  from bench import report
  for program, usage in (("training_throughput", "[--mixed_precision=bfloat16]"),
                         ("ctranslate2_decoding", "[--sentences=200]"),
                         ("real_batches", "[--hparams=length_bucket_step=1.65]"),
                         ("memory", "--case=NAME")):
    text = report.description(program)
    assert text and usage not in text, (program, text[:300])
