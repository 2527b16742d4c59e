"""Dixit card decks: a folder of images plus optional captions.

A :class:`Deck` is a list of card ids (the image file stems, e.g. ``"card_000"``), the image
file of each card, and optionally a caption per card (``{card id: caption}``, the format of
DixitWorld's ``image_captions_dixit.json``). Images are read lazily, on first use, resized to
one fixed size (letterboxed: the aspect ratio is kept and the rest filled) and cached in
memory as ``uint8`` arrays of shape ``(H, W, 3)``: each a read-only row of one array per size
(every card's row in deck order, filled as cards are read), so a stack of cards
(:meth:`Deck.images`, a hand or the candidates of every Dixit observation) is one gather
from that array rather than a copy of each card into a new one.

Two sizes matter:

* ``deck.image(card_id)``: the full card (default 460x305, portrait, like DixitWorld's cards),
  for VLM agents and for rendering.
* ``deck.image(card_id, size=(96, 64))``: a small copy for observations. A hand of 4-6 full
  cards is ~2.5 MB per observation; RL observations should carry the small copies (a
  ``Box(0, 255, (n, 96, 64, 3), uint8)``), cached per size like the full images.

Every image is checked when a deck is loaded (:func:`check_card_image`): it must decode and
have at most :data:`MAX_CARD_PIXELS` pixels, read from the file header before any decoding, so
a broken file or a decompression bomb fails at env construction with a :class:`DeckError`
naming the file, not when the card is first dealt. Checks are cached per file (path, mtime,
size), so building many envs on the same deck checks each file once per process.

The shipped default deck (96 dreamlike cards composed from public-domain openclipart art by
``scripts/build_dixit_deck.py``, with captions) is :func:`load_default_deck`; a user deck, for
instance the DixitWorld images, is ``load_deck(folder, captions=...)``.

Numpy and Pillow only (and the record's row hash); nothing is read at import time.
"""

from __future__ import annotations

import functools
import json
import warnings
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Mapping

import numpy as np

from cluegym.envs.core.record import row_digest

#: Image file suffixes a deck folder may hold (case-insensitive).
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".webp")
#: Full card size (height, width): DixitWorld's cards are portrait, about 305x460 pixels.
DEFAULT_IMAGE_SIZE = (460, 305)
#: Observation thumbnail size (height, width) used by :meth:`Deck.image` callers by default.
THUMBNAIL_SIZE = (96, 64)
#: Background colour of the letterbox bars.
LETTERBOX_FILL = (0, 0, 0)
#: Most pixels (width x height) a card image may have: 40 megapixels, ~5x a 4K frame and far
#: above any card art. The size is read from the header, so larger files (decompression bombs
#: such as a 15000x15000 PNG of a few hundred bytes) are refused without being decoded.
MAX_CARD_PIXELS = 40_000_000


class DeckError(ValueError):
    """A deck folder or caption file that cannot be used; the message says why."""


@dataclass
class Deck:
    """Card ids, their image files and (optionally) their captions.

    Attributes:
        card_ids: sorted card ids (image file stems).
        paths: card id -> image file.
        captions: card id -> caption, or None when the deck has no captions. A caption file
            may cover only some cards; :meth:`caption` returns None for the others.
        image_size: (height, width) of :meth:`image` without ``size``.
        name: a label for messages and logs (the folder name by default).
    """

    card_ids: tuple[str, ...]
    paths: dict[str, Path]
    captions: dict[str, str] | None = None
    image_size: tuple[int, int] = DEFAULT_IMAGE_SIZE
    name: str = "deck"
    _cache: dict[tuple[str, tuple[int, int]], np.ndarray] = field(
        default_factory=dict, init=False, repr=False, compare=False)
    #: Per size, the images read so far as rows of one array (see :class:`_ImageTable`).
    _tables: dict[tuple[int, int], "_ImageTable"] = field(
        default_factory=dict, init=False, repr=False, compare=False)
    #: card id -> its position in :attr:`card_ids` (its row in every table).
    _rows: dict[str, int] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.card_ids = tuple(self.card_ids)
        self.image_size = _check_size(self.image_size, "image_size")
        missing = [c for c in self.card_ids if c not in self.paths]
        if missing:
            raise DeckError(f"deck {self.name!r}: no image file for cards {missing[:5]}")
        self._rows = {card_id: row for row, card_id in enumerate(self.card_ids)}

    def __getstate__(self) -> dict:
        # The tables are left out: each holds room for every card (mostly unread) and is
        # rebuilt on use; the cached images travel as arrays of their own.
        state = dict(self.__dict__)
        state["_tables"] = {}
        return state

    def __len__(self) -> int:
        return len(self.card_ids)

    def __contains__(self, card_id: object) -> bool:
        return card_id in self.paths

    def __iter__(self):
        return iter(self.card_ids)

    def index(self, card_id: str) -> int:
        """Position of a card id in :attr:`card_ids`."""
        row = self._rows.get(card_id) if isinstance(card_id, str) else None
        if row is None:
            raise KeyError(f"card {card_id!r} is not in deck {self.name!r}")
        return row

    def caption(self, card_id: str) -> str | None:
        """The caption of a card, or None when the deck has none for it."""
        self._check_card(card_id)
        return None if self.captions is None else self.captions.get(card_id)

    def image(self, card_id: str, size: tuple[int, int] | None = None) -> np.ndarray:
        """The card's image as a read-only ``uint8`` array of shape ``(height, width, 3)``.

        Args:
            card_id: a card of this deck.
            size: ``(height, width)``; None -> :attr:`image_size` (the full card). Pass a small
                size such as :data:`THUMBNAIL_SIZE` ``(96, 64)`` for observations: full cards
                are ~420 KB each, thumbnails ~18 KB. Every size is cached once per card.

        Raises:
            KeyError: for a card id that is not in the deck.
            DeckError: when the image file cannot be read (the message names the file).
        """
        self._check_card(card_id)
        size = self.image_size if size is None else _check_size(size, "size")
        key = (card_id, size)
        cached = self._cache.get(key)
        if cached is None:
            if size != self.image_size:
                # downscale from the cached full card: one file read per card
                full = _from_array(self.image(card_id))
                image = _letterbox(full, size)
            else:
                image = _letterbox(_open_rgb(self.paths[card_id]), size)
            cached = self._cache[key] = self._table(size).store(self._rows[card_id], image)
        return cached

    def images(self, card_ids, size: tuple[int, int] | None = None) -> np.ndarray:
        """Stacked images of several cards: a new ``uint8`` array ``(n, height, width, 3)``.

        Example:
            >>> deck = load_default_deck()
            >>> deck.images(["card_000", "card_007"], size=(144, 96)).shape
            (2, 144, 96, 3)
        """
        size = self.image_size if size is None else _check_size(size, "size")
        ids = list(card_ids)
        if not ids:
            return np.zeros((0, *size, 3), dtype=np.uint8)
        table = self._table(size)
        rows = [self._filled_row(table, card_id, size) for card_id in ids]
        # One gather into a new array: a stack of separate cards costs a copy per card and
        # numpy's stacking machinery, and these are every Dixit observation's hand and candidates.
        return table.array.take(rows, axis=0)

    def digests(self, card_ids, size: tuple[int, int] | None = None) -> list[bytes]:
        """Each card's image's :func:`~cluegym.envs.core.record.row_digest` (at ``size``), in
        order: computed once per card and size, so that a new stack of cards gets its record
        digest without hashing its pixels (see ``record.keep_stack_digest``)."""
        size = self.image_size if size is None else _check_size(size, "size")
        table = self._table(size)
        kept = table.digests
        digests = []
        for card_id in card_ids:
            value = kept.get(self._rows.get(card_id))
            if value is None:
                row = self._filled_row(table, card_id, size)
                value = kept[row] = row_digest(table.array[row])
            digests.append(value)
        return digests

    def _filled_row(self, table: "_ImageTable", card_id: str, size: tuple[int, int]) -> int:
        """The card's row of ``table`` (the deck's table of ``size``), its image written there
        first if it is not yet (KeyError for a card not in the deck)."""
        row = self._rows.get(card_id)
        if row is None or row not in table.filled:
            image = self.image(card_id, size)
            row = self._rows[card_id]
            if row not in table.filled:  # cached before the table was (an unpickled deck)
                table.store(row, image)
        return row

    def _table(self, size: tuple[int, int]) -> "_ImageTable":
        table = self._tables.get(size)
        if table is None:
            table = self._tables[size] = _ImageTable(len(self.card_ids), size)
        return table

    def preload(self, size: tuple[int, int] | None = None) -> "Deck":
        """Read every image now (e.g. to fail early on a broken file); returns the deck."""
        for card_id in self.card_ids:
            self.image(card_id, size)
        return self

    def clear_cache(self) -> None:
        """Forget the cached images (they are read again on next use)."""
        self._cache.clear()
        self._tables.clear()  # arrays handed out keep their own table alive, unchanged

    def _check_card(self, card_id: str) -> None:
        if card_id not in self.paths:
            raise KeyError(f"card {card_id!r} is not in deck {self.name!r}")


# ------------------------------------------------------------------------------------------
# Loading
# ------------------------------------------------------------------------------------------

def load_deck(folder: str | Path, captions: str | Path | Mapping[str, str] | None = None,
              image_size: tuple[int, int] = DEFAULT_IMAGE_SIZE, min_cards: int = 1,
              name: str | None = None, validate: bool = True) -> Deck:
    """A deck from a folder of images (png/jpg/jpeg/webp) and optional captions.

    Card ids are the image file stems, sorted. Every image is checked here (it decodes, at
    most :data:`MAX_CARD_PIXELS` pixels; cached per file, see :func:`check_card_image`), but
    its pixels load lazily on first use, see :meth:`Deck.image`.

    Args:
        folder: the folder holding the card images (not searched recursively).
        captions: a JSON file mapping card id -> caption (as DixitWorld's
            ``image_captions_dixit.json``), or such a mapping. None -> ``captions.json`` in
            the folder when present, else no captions. Keys may also be file names
            (``"card_000.jpg"``); they are matched by stem.
        image_size: (height, width) of the full images; default 460x305 portrait.
        min_cards: the fewest cards the caller can play with (e.g. players x hand size + the
            cards dealt in a game).
        name: a label for messages; default the folder name.
        validate: check every image now (default). False only lists the files; a broken
            image then fails when the card is first drawn.

    Raises:
        DeckError: the folder does not exist or is not a folder; it holds no images; two
            images share a stem; the captions file is missing, not JSON, not an object of
            strings, or names cards that are not in the folder (they are listed); the deck
            has fewer than ``min_cards`` cards; an image is empty, does not decode, or has
            more than :data:`MAX_CARD_PIXELS` pixels (the message names the file).
    """
    folder = Path(folder)
    name = name or folder.name or str(folder)
    if not folder.exists():
        raise DeckError(f"deck folder {str(folder)!r} does not exist")
    if not folder.is_dir():
        raise DeckError(f"deck folder {str(folder)!r} is not a folder")
    paths: dict[str, Path] = {}
    for path in sorted(folder.iterdir()):
        if not path.is_file() or path.suffix.lower() not in IMAGE_SUFFIXES:
            continue
        if path.stem in paths:
            raise DeckError(f"deck folder {str(folder)!r}: two images for card {path.stem!r} "
                            f"({paths[path.stem].name} and {path.name})")
        paths[path.stem] = path
    if not paths:
        raise DeckError(f"deck folder {str(folder)!r} holds no images "
                        f"(looked for {', '.join(IMAGE_SUFFIXES)} files)")
    if len(paths) < min_cards:
        raise DeckError(f"deck {name!r} has {len(paths)} cards but at least {min_cards} are "
                        f"needed")
    if captions is None and (folder / "captions.json").is_file():
        captions = folder / "captions.json"
    caption_map = None if captions is None else _read_captions(captions, paths)
    if validate:
        for path in paths.values():
            check_card_image(path)
    return Deck(card_ids=tuple(paths), paths=paths, captions=caption_map,
                image_size=image_size, name=name)


def default_deck_folder() -> Path:
    """The folder of the shipped default deck (``cluegym/envs/dixit/data/deck``)."""
    ref = resources.files("cluegym.envs.dixit") / "data" / "deck"
    return Path(str(ref))


def load_default_deck(image_size: tuple[int, int] = DEFAULT_IMAGE_SIZE, min_cards: int = 1) -> Deck:
    """The shipped default deck: 96 dreamlike cards with captions (public domain art).

    Built by ``scripts/build_dixit_deck.py`` from openclipart; see ``data/deck/LICENSE.txt``
    and ``data/deck/sources.json``. A new :class:`Deck` (with its own image cache) per call.
    """
    return load_deck(default_deck_folder(), image_size=image_size, min_cards=min_cards,
                     name="default")


def _read_captions(captions: str | Path | Mapping[str, str], paths: dict[str, Path]) -> dict[str, str]:
    if isinstance(captions, Mapping):
        raw, source = dict(captions), "the captions"
    else:
        file = Path(captions)
        source = f"captions file {str(file)!r}"
        if not file.is_file():
            raise DeckError(f"{source} does not exist")
        try:
            raw = json.loads(file.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise DeckError(f"{source} is not valid JSON: {exc}") from None
    if not isinstance(raw, dict):
        raise DeckError(f"{source} must be a JSON object mapping card id -> caption, "
                        f"not {type(raw).__name__}")
    out: dict[str, str] = {}
    unknown: list[str] = []
    for key, value in raw.items():
        if not isinstance(value, str):
            raise DeckError(f"{source}: the caption of {key!r} is not a string")
        card_id = str(key)
        if card_id not in paths:
            stem = Path(card_id).stem
            if Path(card_id).suffix.lower() in IMAGE_SUFFIXES and stem in paths:
                card_id = stem
            else:
                unknown.append(str(key))
                continue
        out[card_id] = value.strip()
    if unknown:
        shown = ", ".join(repr(u) for u in sorted(unknown)[:10])
        more = f" and {len(unknown) - 10} more" if len(unknown) > 10 else ""
        raise DeckError(f"{source} names {len(unknown)} cards that are not in the deck folder: "
                        f"{shown}{more}")
    return {card_id: out[card_id] for card_id in paths if card_id in out}


# ------------------------------------------------------------------------------------------
# Images
# ------------------------------------------------------------------------------------------

def _check_size(size, what: str) -> tuple[int, int]:
    try:
        h, w = (int(v) for v in size)
    except (TypeError, ValueError):
        raise DeckError(f"{what} must be (height, width), got {size!r}") from None
    if h < 1 or w < 1:
        raise DeckError(f"{what} must be positive, got {size!r}")
    return h, w


def check_card_image(path: str | Path) -> None:
    """Check that ``path`` is a usable card image: a non-empty file that decodes fully (Pillow
    ``verify`` and ``load``) with at most :data:`MAX_CARD_PIXELS` pixels.

    The pixel count is read from the header first, so a decompression bomb is refused in
    milliseconds. A file that passed is remembered (keyed by path, mtime and size), so
    checking the same deck again costs one ``stat`` per file.

    Raises:
        DeckError: one line naming the file and the reason.

    Example:
        >>> check_card_image(default_deck_folder() / "card_000.jpg")
    """
    path = Path(path)
    try:
        stat = path.stat()
    except OSError as exc:
        raise DeckError(f"cannot read card image {str(path)!r}: {_one_line(exc)}") from None
    _check_card_image_cached(str(path.resolve()), stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=8192)
def _check_card_image_cached(path: str, mtime_ns: int, size: int) -> None:
    # lru_cache keeps only successes (a raise is not cached): a fixed file is checked again.
    from PIL import Image, UnidentifiedImageError  # deferred: Pillow loads only when a deck is read

    if size == 0:
        raise DeckError(f"card image {path!r} is empty (0 bytes)")
    try:
        with warnings.catch_warnings():
            # Pillow warns (and past twice its own limit raises) on huge images: refuse both.
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with open(path, "rb") as fh, Image.open(fh) as im:
                width, height = im.size
                if width < 1 or height < 1:
                    raise DeckError(f"card image {path!r} has no pixels ({width}x{height})")
                if width * height > MAX_CARD_PIXELS:
                    raise DeckError(f"card image {path!r} is {width}x{height} pixels, more than the "
                                    f"{MAX_CARD_PIXELS:,} allowed (MAX_CARD_PIXELS)")
                im.verify()
            with open(path, "rb") as fh, Image.open(fh) as im:  # verify() leaves the image unusable
                im.load()
    except DeckError:
        raise
    except UnidentifiedImageError:
        raise DeckError(f"card image {path!r} is not an image Pillow can read") from None
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        raise DeckError(f"card image {path!r} is too large: {_one_line(exc)}") from None
    except Exception as exc:  # noqa: BLE001 - Pillow raises many types on malformed files
        raise DeckError(f"card image {path!r} does not decode: {type(exc).__name__}: {_one_line(exc)}") from None


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


def _open_rgb(path: Path):
    from PIL import Image, UnidentifiedImageError

    check_card_image(path)  # cached: a bomb is refused before Pillow decodes it
    try:
        with Image.open(path) as im:
            im.load()
            if im.mode in ("RGBA", "LA", "P", "PA"):
                rgba = im.convert("RGBA")
                background = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
                return Image.alpha_composite(background, rgba).convert("RGB")
            return im.convert("RGB")
    except (OSError, UnidentifiedImageError, ValueError, SyntaxError) as exc:
        raise DeckError(f"cannot read card image {str(path)!r}: {exc}") from None


class _ImageTable:
    """Every card's image of one size in one array, row ``i`` for ``card_ids[i]``, filled as
    cards are read (np.empty: the rows of cards never read take no memory).

    A row is written once, then handed out as a read-only view (:meth:`Deck.image`) and
    gathered from (:meth:`Deck.images`); it is never written again, so what was handed out
    never changes (``clear_cache`` starts new tables).
    """

    __slots__ = ("array", "filled", "digests")

    def __init__(self, num_cards: int, size: tuple[int, int]) -> None:
        self.array = np.empty((num_cards, *size, 3), dtype=np.uint8)
        self.filled: set[int] = set()
        #: Per filled row, its bytes' ``record.row_digest`` (computed when first asked).
        self.digests: dict[int, bytes] = {}

    def store(self, row: int, image: np.ndarray) -> np.ndarray:
        """Write ``image`` into ``row`` (once) and return the row as a read-only view."""
        if row not in self.filled:
            self.array[row] = image
            self.filled.add(row)
        view = self.array[row]
        view.setflags(write=False)
        return view


def _from_array(array: np.ndarray):
    from PIL import Image

    return Image.fromarray(np.asarray(array, dtype=np.uint8), "RGB")


def _letterbox(im, size: tuple[int, int]) -> np.ndarray:
    """Resize keeping the aspect ratio, centred on a :data:`LETTERBOX_FILL` canvas."""
    from PIL import Image

    h, w = size
    if im.size == (w, h):
        return np.array(im, dtype=np.uint8)
    scale = min(w / im.width, h / im.height)
    new = (max(1, round(im.width * scale)), max(1, round(im.height * scale)))
    resized = im.resize(new, Image.LANCZOS, reducing_gap=3.0 if scale < 0.5 else None)
    canvas = Image.new("RGB", (w, h), LETTERBOX_FILL)
    canvas.paste(resized, ((w - new[0]) // 2, (h - new[1]) // 2))
    return np.array(canvas, dtype=np.uint8)


__all__ = ["Deck", "DeckError", "DEFAULT_IMAGE_SIZE", "THUMBNAIL_SIZE", "IMAGE_SUFFIXES", "MAX_CARD_PIXELS",
           "check_card_image", "load_deck", "load_default_deck", "default_deck_folder"]
