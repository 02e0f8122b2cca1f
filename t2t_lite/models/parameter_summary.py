"""Parameter counts of a Transformer, part by part, without any data: t2t-trainer --summary."""

from t2t_lite.cli.command_line import check_declared
from t2t_lite.cli.shared_settings import SHARED
from t2t_lite.errors import UserError
from t2t_lite.models.building import build, built_model
from t2t_lite.registry import PROBLEMS


def parameter_counts(model):
  """[(part name, number of parameters)] in model order; the parts sum to the total."""
  build(model)
  parts = [(_embedding_part(model, model.target_embedding), model.target_embedding)]
  if model.input_embedding is not model.target_embedding:
    parts.append(("input_embedding", model.input_embedding))
  parts += [("input_positions", model.input_positions),
            ("target_positions", model.target_positions)]
  for stack in (model.encoder, model.decoder):
    parts += [(f"{stack.name}/{layer.name}", layer) for layer in stack.blocks]
    if stack.final_norm is not None:
      parts.append((f"{stack.name}/final_norm", stack.final_norm))
  if model.softmax is not None:
    parts.append(("softmax", model.softmax))
  return [(name, layer.count_params()) for name, layer in parts if layer.weights]


def _embedding_part(model, embedding):
  shared = ["targets"]
  if model.input_embedding is embedding:
    shared.insert(0, "inputs")
  if model.softmax is None:
    shared.append("softmax")
  return f"{embedding.name} (shared: {', '.join(shared)})" if len(shared) > 1 else embedding.name


def format_summary(model):
  """The text `t2t-trainer --summary` prints; the last line is `total_params=N`."""
  counts = parameter_counts(model)
  width = max(len(name) for name, _ in counts)
  lines = [f"{name:<{width}}  {count:>13,}" for name, count in counts]
  total = sum(count for _, count in counts)
  assert total == model.count_params(), "every weight belongs to exactly one part"
  lines.append(f"total_params={total}")
  return "\n".join(lines)


def summary_for(model_name, hparams, vocab_size=None, problem=None, data_dir=None):
  """`format_summary` of a registered model for `vocab_size`, or else for the vocabularies
  of `problem` (a name) generated in data_dir; UserError when neither is given."""
  if vocab_size is not None:
    check_declared(SHARED, "vocab_size", vocab_size)  # As t2t-trainer checks --vocab_size.
    sizes = vocab_size, vocab_size
  elif problem:
    if not data_dir:
      raise UserError("--summary with --problem needs --data_dir (where t2t-datagen "
                      "wrote the vocabulary), or pass --vocab_size")
    sizes = PROBLEMS[problem]().vocab_sizes(data_dir)
  else:
    raise UserError("--summary needs --vocab_size=N or --problem with --data_dir")
  return format_summary(built_model(model_name, hparams, *sizes))
