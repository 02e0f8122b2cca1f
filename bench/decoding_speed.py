"""Decoding speed on real sentences: greedy and beam 4, batch 1 and batch 32, against peers.

The model is small and untrained (sizes in the table's notes; the SentencePiece
vocabulary is trained now on Europarl: sentences.py). EOS is not allowed before
each sentence's limit (its input length + 50, where `decode_ids` forces EOS), so
every implementation emits the same number of tokens: the rows compare equal work.
  ours, XLA on / off:  `decode_ids` (t2t_lite.decoding: cached incremental decoding,
                       t2t's beam search) in one `tf.function`, with and without XLA;
  ours, no cache:      the same search, each step re-running the decoder over the prefix;
  PyTorch, cached:     the same weights in nn.Transformer, a plain Python greedy/beam
                       loop over a fixed-size key/value cache (bench/peers/torch_transformer.py);
  PyTorch, no cache:   the same loop re-running nn.TransformerDecoder over the prefix.
Every implementation's ids are compared with ours (XLA) as a check.

    python -m bench.decoding_speed [--repeats=3] [--sentences_batch1=4] [--sentences_batch32=32]
"""

import argparse

import numpy as np

from bench import configs, ours, peers, report, sentences, timing

OURS_XLA, OURS_GRAPH = "ours, XLA on", "ours, XLA off"
OURS_UNCACHED = "ours, no cache (XLA off)"
TORCH_CACHED, TORCH_UNCACHED = "PyTorch, cached", "PyTorch, no cache"


def models(vocab_size):
  """(our untrained Transformer, the PyTorch peer with its weights or None)."""
  model = ours.build_model(configs.DECODE_HPARAMS, vocab_size)
  if peers.missing("torch"):
    return model, None
  from bench.peers.torch_transformer import TorchTransformer
  peer = TorchTransformer(configs.DECODE_HPARAMS, vocab_size)
  peer.copy_weights_from(model)
  return model, peer.eval()


def decoders(model, peer, beam_size, uncached, extra_length=configs.DECODE_EXTRA):
  """{implementation: fn(inputs [batch, width] int32) -> best ids [batch, length]}."""
  runs = {name: ours.decoder(ours.ForcedLength(model), beam_size, configs.BEAM_ALPHA,
                             extra_length, jit_compile)
          for name, jit_compile in ((OURS_XLA, True), (OURS_GRAPH, False))}
  if uncached:
    runs[OURS_UNCACHED] = ours.decoder(ours.Uncached(model), beam_size, configs.BEAM_ALPHA,
                                       extra_length, False)
  if peer is not None:
    from bench.peers import torch_transformer as tt
    runs[TORCH_CACHED] = lambda inputs: tt.decode(peer, tt.CachedSteps(peer), inputs, beam_size,
                                                  extra_length)
    if uncached:
      runs[TORCH_UNCACHED] = lambda inputs: tt.decode(peer, tt.UncachedSteps(peer), inputs,
                                                      beam_size, extra_length)
  return runs


def limits(batches, extra_length=configs.DECODE_EXTRA):
  """The tokens each sentence emits: its input length + extra_length (EOS included)."""
  return [np.count_nonzero(batch, axis=1) + extra_length for batch in batches]


def measure(runs, batches, repeats, extra_length=configs.DECODE_EXTRA):
  """Decodes every batch with every implementation.

  Returns ({implementation: median seconds for all batches}, {implementation:
  fraction of tokens equal to the first implementation's}). Raises when an
  implementation of ours emits other lengths than the rule says.
  """
  expected = limits(batches, extra_length)
  # The first pass traces, compiles and warms up; its ids are the check.
  outputs = {name: [fn(batch) for batch in batches] for name, fn in runs.items()}
  first = next(iter(outputs.values()))
  agreement = {}
  for name, ids in outputs.items():
    if name.startswith("ours"):
      emitted = np.concatenate([ours.emitted_tokens(batch_ids) for batch_ids in ids])
      if not np.array_equal(emitted, np.concatenate(expected)):
        raise RuntimeError(f"{name} emitted {emitted.sum()} tokens, expected "
                           f"{np.concatenate(expected).sum()}")
    same = total = 0
    for batch_ids, reference, lengths in zip(ids, first, expected):
      for row, length in enumerate(lengths):
        same += np.sum(batch_ids[row, :length] == reference[row, :length])
        total += length
    agreement[name] = same / total
  seconds = timing.interleaved_medians(
      {name: (lambda fn=fn: [fn(batch) for batch in batches]) for name, fn in runs.items()},
      repeats, warmup=0)
  return seconds, agreement


def run(repeats, sentences_batch1, sentences_batch32, uncached_everywhere=False):
  processor = sentences.europarl_vocabulary()
  model, peer = models(processor.get_piece_size())
  texts = sentences.newstest_ids(processor, max(sentences_batch1, sentences_batch32))
  notes = [f"Model: untrained, {configs.model_label(configs.DECODE_HPARAMS)}, vocabulary "
           f"{processor.get_piece_size():,} (SentencePiece BPE trained on Europarl en+de now); "
           f"newstest2014 English sentences, batches padded to a multiple of "
           f"{configs.WIDTH_BUCKET} tokens; each sentence emits its input length + "
           f"{configs.DECODE_EXTRA} tokens (EOS not allowed before); beam alpha "
           f"{configs.BEAM_ALPHA}; medians of {repeats} interleaved runs after warm-up."]
  if peer is None:
    notes.append(peers.missing("torch"))
  rows, disagreements, xla_rows = [], [], []
  for beam_size in (1, 4):
    for batch_size, count in ((1, sentences_batch1), (32, sentences_batch32)):
      uncached = (batch_size == 1 and beam_size == 1) or uncached_everywhere
      batches = sentences.padded_batches(texts[:count], batch_size)
      tokens = int(sum(lengths.sum() for lengths in limits(batches)))
      runs = decoders(model, peer, beam_size, uncached)
      seconds, agreement = measure(runs, batches, repeats)
      search = "greedy" if beam_size == 1 else f"beam {beam_size}"
      xla_rows.append([search, str(batch_size), f"{tokens / seconds[OURS_GRAPH]:,.0f}",
                       f"{tokens / seconds[OURS_XLA]:,.0f}",
                       f"{seconds[OURS_GRAPH] / seconds[OURS_XLA]:.2f}x"])
      for name, value in seconds.items():
        rows.append([search, str(batch_size), name, f"{count / value:,.2f}",
                     f"{tokens / value:,.0f}", report.ratio(seconds[OURS_XLA], value),
                     report.ratio(seconds[OURS_GRAPH], value)])
        if agreement[name] < 1.0:
          disagreements.append(f"{name} ({search}, batch {batch_size}): "
                               f"{agreement[name]:.1%}")
  if not uncached_everywhere:
    notes.append("The decoders without a cache are timed greedy at batch 1 only (elsewhere "
                 "they take minutes); bench/scaling.py shows how their cost grows with length.")
  notes.append("Every implementation emitted the same ids as ours (XLA on)." if not disagreements
               else "Ids equal to ours (XLA on): " + "; ".join(disagreements) +
               " (float rounding between implementations can flip near-ties).")
  return [report.Table(
      f"Decoding newstest2014 ({sentences_batch1} sentences at batch 1, "
      f"{sentences_batch32} at batch 32)",
      ["search", "batch", "implementation", "sentences/s", "tokens/s", "ours XLA on / this",
       "ours XLA off / this"], rows, notes),
          report.Table("XLA on vs off: decoding with t2t_lite (from the decoding table)",
                       ["search", "batch", "tokens/s, XLA off", "tokens/s, XLA on",
                        "speed-up from XLA"], xla_rows, section="XLA on vs off")]


def main():
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--repeats", type=int, default=3)
  parser.add_argument("--sentences_batch1", type=int, default=4)
  parser.add_argument("--sentences_batch32", type=int, default=32)
  parser.add_argument("--uncached_everywhere", action="store_true",
                      help="Time the decoders without a cache in every case (slow).")
  parser.add_argument("--json", help="Also save the tables here (for python -m bench).")
  args = parser.parse_args()
  peers.use_all_cores()
  report.emit(run(args.repeats, args.sentences_batch1, args.sentences_batch32,
                  args.uncached_everywhere), args.json)


if __name__ == "__main__":
  main()
