"""t2t-datagen's counts, each declared once with its range, in a module light enough for its
flags (no TensorFlow): the train split's files and the encoding processes. Its flags and
`datagen.generate` take them from here (`command_line.declared`, `check_declared`); the
vocabulary's size is a shared setting (`cli.shared_settings`).
"""

# name -> (default, help text, its range). None: chosen by datagen (the module doc there).
DATAGEN = {
    "num_shards": (None, "The train split's number of TFRecord files. Default: from its "
                   "size, a power of two with at most 100,000 pairs a file (at least the "
                   "problem's own count, 16 unless it says), so that N workers each read "
                   "whole files of their own. At most the train pairs, and the files the "
                   "command may open at once (it raises its soft limit, ulimit -n, up to the "
                   "hard one where needed).", dict(minimum=1)),
    "num_concurrent_processes": (None, "Processes that encode and serialize the records. "
                                 "Default: one per core this command may use; at most 4 a "
                                 "core. The records are the same whatever the number.",
                                 dict(minimum=1)),
}
