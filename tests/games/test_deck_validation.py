"""Dixit deck images are checked when the env is built: broken, empty and oversized files
(decompression bombs) fail at construction with one line naming the file."""

from __future__ import annotations

import struct
import time
import warnings
import zlib
from pathlib import Path

import pytest
from PIL import Image

import cluegym
from cluegym.envs.dixit.deck import MAX_CARD_PIXELS, DeckError, check_card_image, load_deck

CARDS_FOR_DEFAULT_RULES = 16  # 4 hands of 4


def _png_header_only(width: int, height: int) -> bytes:
    """A valid PNG signature and IHDR claiming ``width x height``, with a few bytes of data:
    what a decompression bomb looks like before anyone decodes it."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8-bit RGB
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"\0" * 64))
            + chunk(b"IEND", b""))


def _deck_folder(folder: Path, cards: int = CARDS_FOR_DEFAULT_RULES) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(cards):
        Image.new("RGB", (30, 45), (i * 12, 60, 200 - i * 8)).save(folder / f"card{i:02d}.png")
    return folder


BAD_FILES = {
    "not_an_image.png": (b"just some text, not a picture", "is not an image Pillow can read"),
    "empty.png": (b"", r"is empty \(0 bytes\)"),
    "bomb.png": (_png_header_only(15000, 15000), "is too large"),  # past Pillow's own error limit
    "warned.png": (_png_header_only(10000, 10000), "is too large"),  # Pillow only warns here
    "big.png": (_png_header_only(7000, 7000), r"is 7000x7000 pixels, more than the 40,000,000 allowed"),
    "truncated.png": (_png_header_only(100, 100), "does not decode"),
}


@pytest.mark.parametrize("file_name", sorted(BAD_FILES))
def test_a_bad_card_fails_at_env_construction_naming_the_file(tmp_path: Path, file_name: str):
    data, reason = BAD_FILES[file_name]
    folder = _deck_folder(tmp_path / "deck")
    (folder / file_name).write_bytes(data)
    started = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no Pillow DecompressionBombWarning leaks out
        with pytest.raises(DeckError, match=f"{file_name}' {reason}") as exc:
            cluegym.make("dixit", deck=str(folder))
    assert time.perf_counter() - started < 2.0  # refused from the header, never decoded
    assert "\n" not in str(exc.value) and isinstance(exc.value, ValueError)
    with pytest.raises(DeckError, match=file_name):
        load_deck(folder)


def test_the_bomb_is_refused_from_its_header(tmp_path: Path, monkeypatch):
    bomb = tmp_path / "bomb.png"
    bomb.write_bytes(_png_header_only(7000, 7000))
    monkeypatch.setattr(Image.Image, "load", lambda self: pytest.fail("decoded a bomb"))
    monkeypatch.setattr(Image.Image, "verify", lambda self: pytest.fail("decoded a bomb"), raising=False)
    with pytest.raises(DeckError, match=f"more than the {MAX_CARD_PIXELS:,} allowed"):
        check_card_image(bomb)


def test_a_good_custom_deck_builds_and_plays(tmp_path: Path):
    folder = _deck_folder(tmp_path / "deck", cards=20)
    Image.new("RGBA", (64, 64), (0, 0, 255, 100)).save(folder / "zz_transparent.webp")
    env = cluegym.make("dixit", deck=str(folder), num_rounds=2)
    env.reset(seed=0)
    obs, *_ = env.last()
    assert obs["hand"].shape[0] == 4 and obs["hand"].any()
    assert len(env.unwrapped.deck) == 21


def test_checks_are_cached_per_file_and_redone_when_it_changes(tmp_path: Path, monkeypatch):
    card = tmp_path / "card.png"
    Image.new("RGB", (20, 30), (1, 2, 3)).save(card)
    check_card_image(card)
    opened: list[object] = []
    real_open = Image.open
    monkeypatch.setattr(Image, "open", lambda fp, *a, **k: opened.append(fp) or real_open(fp, *a, **k))
    check_card_image(card)
    assert opened == []  # same path, mtime and size: not read again
    card.write_bytes(b"")  # the file changes: checked again, and a failure is not cached
    with pytest.raises(DeckError, match="empty"):
        check_card_image(card)
    Image.new("RGB", (20, 30), (1, 2, 3)).save(card)
    check_card_image(card)
    assert opened  # re-read after the change


def test_missing_card_file_is_a_deck_error(tmp_path: Path):
    with pytest.raises(DeckError, match="cannot read card image .*gone.png"):
        check_card_image(tmp_path / "gone.png")
