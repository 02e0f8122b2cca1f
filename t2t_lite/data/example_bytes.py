"""A record of ids serialized without TensorFlow: the bytes of the `tf.train.Example`
{"inputs": Int64List, "targets": Int64List} as protobuf's deterministic serialization
writes them (map keys sorted), so that encoding processes need not load TensorFlow
(tests/test_datagen.py checks the bytes against `tf.train.Example`'s).

    varints = varint_table(vocab_size)           # each id's varint, for a vocabulary
    record = serialize([5, 9, 1], [7, 1], varints)

The wire format: Example{features = 1: Features{feature = 1: map entries {key = 1,
value = 2: Feature{int64_list = 3: Int64List{value = 1, packed varints}}}}}.
"""

_LENGTH_DELIMITED = 2  # Protobuf's wire type of messages, strings and packed fields.


def varint(value):
  """Protobuf's base-128 varint of a non-negative int."""
  out = bytearray()
  while value > 0x7F:
    out.append(value & 0x7F | 0x80)
    value >>= 7
  out.append(value)
  return bytes(out)


def varint_table(size):
  """[varint(i) for i in range(size)]: the ids of a vocabulary of `size`, looked up."""
  return [varint(i) for i in range(size)]


def _field(number, payload):
  """A length-delimited field: its tag, its length, its bytes."""
  return varint(number << 3 | _LENGTH_DELIMITED) + varint(len(payload)) + payload


def _feature_entry(key, ids, varints):
  packed = b"".join(map(varints.__getitem__, ids) if varints else map(varint, ids))
  int64_list = _field(1, packed) if packed else b""
  return _field(1, _field(1, key) + _field(2, _field(3, int64_list)))


def serialize(inputs, targets, varints=None):
  """Two sequences of non-negative int ids -> the serialized tf.train.Example (module doc).
  varints: `varint_table` of a vocabulary holding every id (faster), or None."""
  features = (_feature_entry(b"inputs", inputs, varints)
              + _feature_entry(b"targets", targets, varints))
  return _field(1, features)
