"""The cluegym wrappers: candidate actions, featurizers, self-play, reward shaping."""
