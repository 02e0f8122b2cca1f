"""Problems' machinery: vocabularies, TFRecords of ids, the tf.data pipeline."""
