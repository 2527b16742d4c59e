"""The Dixit card deck: the shipped default deck, user decks, their errors, the deck builder."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from cluegym.envs.dixit.deck import (
    DEFAULT_IMAGE_SIZE,
    THUMBNAIL_SIZE,
    Deck,
    DeckError,
    default_deck_folder,
    load_deck,
    load_default_deck,
)

ROOT = Path(__file__).resolve().parents[2]
BUILD_SCRIPT = ROOT / "scripts" / "build_dixit_deck.py"
CLIPART = Path("/usr/share/openclipart/png")


# -- the shipped default deck ---------------------------------------------------------------

@pytest.fixture(scope="module")
def default_deck() -> Deck:
    return load_default_deck()


def test_default_deck_has_enough_cards(default_deck):
    assert len(default_deck) >= 84
    assert default_deck.card_ids == tuple(sorted(default_deck.card_ids))
    assert all(c.startswith("card_") for c in default_deck.card_ids)


def test_default_deck_images_load_with_fixed_shape(default_deck):
    for card_id in default_deck.card_ids:
        image = default_deck.image(card_id)
        assert image.shape == (*DEFAULT_IMAGE_SIZE, 3)
        assert image.dtype == np.uint8
        assert not image.flags.writeable
        assert image.std() > 10  # a picture, not a blank
    first = default_deck.image(default_deck.card_ids[0])
    assert default_deck.image(default_deck.card_ids[0]) is first  # cached


def test_default_deck_thumbnails(default_deck):
    ids = default_deck.card_ids[:4]
    thumbs = default_deck.images(ids, size=THUMBNAIL_SIZE)
    assert thumbs.shape == (4, *THUMBNAIL_SIZE, 3) and thumbs.dtype == np.uint8
    assert not np.array_equal(thumbs[0], thumbs[1])
    assert default_deck.images([], size=THUMBNAIL_SIZE).shape == (0, *THUMBNAIL_SIZE, 3)


def test_stacks_are_new_arrays_of_the_cards_images():
    """A stack is gathered from the deck's table of its size: the cards' images in order
    (a card twice too), in an array of its own that a caller may write to."""
    deck = load_default_deck()
    ids = [deck.card_ids[7], deck.card_ids[2], deck.card_ids[7], deck.card_ids[40]]
    stack = deck.images(ids, size=THUMBNAIL_SIZE)
    assert stack.shape == (4, *THUMBNAIL_SIZE, 3) and stack.dtype == np.uint8 and stack.flags.writeable
    for row, card_id in zip(stack, ids):
        image = deck.image(card_id, THUMBNAIL_SIZE)
        assert np.array_equal(row, image) and not image.flags.writeable
        assert not np.shares_memory(stack, image)
    before = deck.image(ids[0], THUMBNAIL_SIZE).copy()
    stack[:] = 0  # the caller's array: the deck's images stay as they were
    assert np.array_equal(deck.image(ids[0], THUMBNAIL_SIZE), before)
    assert np.array_equal(deck.images(ids[:1], size=THUMBNAIL_SIZE)[0], before)
    with pytest.raises(KeyError, match="card_999x"):
        deck.images([ids[0], "card_999x"], size=THUMBNAIL_SIZE)
    assert deck.index(ids[3]) == 40
    with pytest.raises(KeyError, match="card_999x"):
        deck.index("card_999x")


def test_images_handed_out_never_change():
    """A card's image is a row of its size's table, written once: an image or stack handed
    out keeps its pixels through later reads of other cards and through clear_cache."""
    deck = load_default_deck()
    first = deck.image(deck.card_ids[0], THUMBNAIL_SIZE)
    kept = first.copy()
    stack = deck.images(deck.card_ids[:10], size=THUMBNAIL_SIZE)
    assert np.array_equal(first, kept) and np.array_equal(stack[0], kept)
    deck.clear_cache()
    again = deck.image(deck.card_ids[0], THUMBNAIL_SIZE)
    assert again is not first and np.array_equal(again, kept)
    deck.images(deck.card_ids[:20], size=THUMBNAIL_SIZE)
    assert np.array_equal(first, kept)


def test_a_pickled_deck_carries_its_images_not_its_tables():
    """Pickles (a deck copied to a worker) hold the cached images, not the tables (room for
    every card of a size, mostly unread); the copy stacks the same images."""
    import pickle  # noqa: PLC0415

    deck = load_default_deck()
    ids = deck.card_ids[:3]
    stack = deck.images(ids, size=THUMBNAIL_SIZE)
    data = pickle.dumps(deck)
    # The three cards at both sizes (a thumbnail is made from the full card, cached too) and
    # the paths: not the tables' 96 rows of each size (over 40 MB at the full size).
    full, thumbnail = (h * w * 3 for h, w in (DEFAULT_IMAGE_SIZE, THUMBNAIL_SIZE))
    assert len(data) < 4 * (full + thumbnail)
    copy = pickle.loads(data)
    assert np.array_equal(copy.images(ids, size=THUMBNAIL_SIZE), stack)
    assert np.array_equal(copy.images(ids[::-1], size=THUMBNAIL_SIZE), stack[::-1])


def test_default_deck_captions_cover_every_card_and_are_distinct(default_deck):
    captions = default_deck.captions
    assert captions is not None
    assert set(captions) == set(default_deck.card_ids)
    values = list(captions.values())
    assert len(set(values)) == len(values)
    for card_id, caption in captions.items():
        assert caption.isascii(), card_id
        assert 6 <= len(caption.split()) <= 16, (card_id, caption)
        assert default_deck.caption(card_id) == caption


def test_default_deck_ships_license_and_sources():
    folder = default_deck_folder()
    assert "public domain" in (folder / "LICENSE.txt").read_text(encoding="utf-8").lower()
    sources = json.loads((folder / "sources.json").read_text(encoding="utf-8"))
    deck = load_default_deck()
    assert set(sources) == set(deck.card_ids)
    assert all(2 <= len(files) <= 3 and all(f.endswith(".png") for f in files)
               for files in sources.values())
    size = sum(p.stat().st_size for p in folder.iterdir())
    assert size < 6_000_000


def test_each_load_has_its_own_cache():
    a, b = load_default_deck(), load_default_deck()
    card = a.card_ids[0]
    assert a.image(card) is not b.image(card)
    a.clear_cache()
    assert np.array_equal(a.image(card), b.image(card))


def test_unknown_card_is_a_key_error(default_deck):
    with pytest.raises(KeyError, match="card_999x"):
        default_deck.image("card_999x")
    with pytest.raises(KeyError):
        default_deck.caption("nope")


# -- user decks ------------------------------------------------------------------------------

def _write_image(path: Path, size=(40, 60), colour=(200, 30, 30), mode="RGB") -> None:
    Image.new(mode, size, colour if mode == "RGB" else (*colour, 128)).save(path)


@pytest.fixture()
def tmp_deck(tmp_path: Path) -> Path:
    _write_image(tmp_path / "alpha.png", size=(40, 60), colour=(200, 30, 30))
    _write_image(tmp_path / "beta.jpg", size=(120, 80), colour=(20, 40, 220))  # landscape
    _write_image(tmp_path / "gamma.webp", size=(30, 45), colour=(10, 160, 40))
    _write_image(tmp_path / "delta.png", size=(50, 50), colour=(250, 250, 0), mode="RGBA")
    (tmp_path / "notes.txt").write_text("not a card")
    return tmp_path


def test_load_deck_from_folder(tmp_deck: Path):
    deck = load_deck(tmp_deck, image_size=(90, 60))
    assert deck.card_ids == ("alpha", "beta", "delta", "gamma")
    assert deck.captions is None and deck.caption("alpha") is None
    for card_id in deck:
        image = deck.image(card_id)
        assert image.shape == (90, 60, 3) and image.dtype == np.uint8
    # same aspect: fills the frame; landscape: letterboxed with black bars top and bottom
    assert tuple(deck.image("alpha")[45, 30]) == pytest.approx((200, 30, 30), abs=3)
    beta = deck.image("beta")
    assert beta[0].max() == 0 and beta[-1].max() == 0
    assert beta[45, 30, 2] > 180
    # transparent pictures are composited on white
    assert deck.image("delta")[45, 30].min() > 100
    assert deck.image("alpha", size=(12, 8)).shape == (12, 8, 3)


def test_load_deck_with_captions_file(tmp_deck: Path, tmp_path_factory):
    captions = tmp_path_factory.mktemp("caps") / "image_captions_dixit.json"
    captions.write_text(json.dumps({"alpha": "a red field", "beta.jpg": "a blue sea"}))
    deck = load_deck(tmp_deck, captions=captions)
    assert deck.captions == {"alpha": "a red field", "beta": "a blue sea"}
    assert deck.caption("gamma") is None


def test_load_deck_uses_captions_json_in_folder(tmp_deck: Path):
    (tmp_deck / "captions.json").write_text(json.dumps({"gamma": "green"}))
    assert load_deck(tmp_deck).captions == {"gamma": "green"}
    assert load_deck(tmp_deck, captions={"alpha": "red"}).captions == {"alpha": "red"}


# -- errors ----------------------------------------------------------------------------------

def test_missing_folder(tmp_path: Path):
    with pytest.raises(DeckError, match="does not exist"):
        load_deck(tmp_path / "nowhere")
    (tmp_path / "file.png").write_bytes(b"x")
    with pytest.raises(DeckError, match="is not a folder"):
        load_deck(tmp_path / "file.png")


def test_folder_without_images(tmp_path: Path):
    (tmp_path / "readme.txt").write_text("hello")
    with pytest.raises(DeckError, match="holds no images"):
        load_deck(tmp_path)


def test_unreadable_image_names_the_file(tmp_deck: Path):
    (tmp_deck / "broken.png").write_bytes(b"this is not a png")
    with pytest.raises(DeckError, match=r"broken\.png"):
        load_deck(tmp_deck)  # checked when the deck is loaded
    deck = load_deck(tmp_deck, validate=False)  # lazy: listing works, the card fails when drawn
    with pytest.raises(DeckError, match=r"broken\.png"):
        deck.image("broken")
    with pytest.raises(DeckError, match=r"broken\.png"):
        deck.preload()
    assert deck.image("alpha").shape == (*DEFAULT_IMAGE_SIZE, 3)


def test_captions_naming_unknown_cards(tmp_deck: Path):
    with pytest.raises(DeckError, match=r"2 cards that are not in the deck.*'omega'.*'zeta'"):
        load_deck(tmp_deck, captions={"alpha": "ok", "zeta": "?", "omega": "?"})


def test_bad_captions_files(tmp_deck: Path, tmp_path_factory):
    folder = tmp_path_factory.mktemp("bad")
    with pytest.raises(DeckError, match="does not exist"):
        load_deck(tmp_deck, captions=folder / "missing.json")
    (folder / "broken.json").write_text("{not json")
    with pytest.raises(DeckError, match="not valid JSON"):
        load_deck(tmp_deck, captions=folder / "broken.json")
    (folder / "list.json").write_text('["a", "b"]')
    with pytest.raises(DeckError, match="JSON object"):
        load_deck(tmp_deck, captions=folder / "list.json")
    with pytest.raises(DeckError, match="not a string"):
        load_deck(tmp_deck, captions={"alpha": 3})


def test_too_few_cards(tmp_deck: Path):
    with pytest.raises(DeckError, match="has 4 cards but at least 24 are needed"):
        load_deck(tmp_deck, min_cards=24)
    assert len(load_deck(tmp_deck, min_cards=4)) == 4
    with pytest.raises(DeckError, match="at least 500"):
        load_default_deck(min_cards=500)


def test_duplicate_stems_and_bad_sizes(tmp_deck: Path):
    _write_image(tmp_deck / "alpha.jpg")
    with pytest.raises(DeckError, match="two images for card 'alpha'"):
        load_deck(tmp_deck)
    (tmp_deck / "alpha.jpg").unlink()
    with pytest.raises(DeckError, match="image_size"):
        load_deck(tmp_deck, image_size=(0, 10))
    with pytest.raises(DeckError, match="size"):
        load_deck(tmp_deck).image("alpha", size=(10,))


def test_deck_errors_are_value_errors():
    assert issubclass(DeckError, ValueError)


# -- the builder -----------------------------------------------------------------------------

@pytest.mark.skipif(not CLIPART.is_dir(), reason="Debian package openclipart-png not installed")
def test_build_script_is_deterministic(tmp_path: Path):
    outs = [tmp_path / "a", tmp_path / "b"]
    for out in outs:
        subprocess.run([sys.executable, str(BUILD_SCRIPT), "--cards", "4", "--seed", "7",
                        "--out", str(out), "--quiet"], check=True, capture_output=True, timeout=120)
    files = sorted(p.name for p in outs[0].iterdir())
    assert files == sorted(p.name for p in outs[1].iterdir())
    assert [f"card_{i:03d}.jpg" for i in range(4)] == [f for f in files if f.endswith(".jpg")]
    for name in files:
        assert (outs[0] / name).read_bytes() == (outs[1] / name).read_bytes(), name
    deck = load_deck(outs[0], min_cards=4)
    assert len(deck.captions) == 4 and len(set(deck.captions.values())) == 4
    with Image.open(outs[0] / "card_000.jpg") as im:
        assert im.size == (305, 460)
