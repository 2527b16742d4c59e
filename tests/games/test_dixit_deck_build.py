"""The Dixit deck builder (scripts/build_dixit_deck.py, scripts/dixit_deck/) and its vocabulary
file (scripts/data/dixit_deck_vocabulary.json): the file is checked when read, file names parse
into the expected subjects, and a full rebuild reproduces the shipped deck byte for byte."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from cluegym.envs.dixit.deck import default_deck_folder

ROOT = Path(__file__).resolve().parents[2]
BUILD_SCRIPT = ROOT / "scripts" / "build_dixit_deck.py"
CLIPART = Path("/usr/share/openclipart/png")


@pytest.fixture(scope="module")
def builder() -> SimpleNamespace:
    """The builder's modules (``scripts/dixit_deck``, not part of the package), as one namespace."""
    sys.path.insert(0, str(BUILD_SCRIPT.parent))
    try:
        vocabulary = importlib.import_module("dixit_deck.vocabulary")
        subjects = importlib.import_module("dixit_deck.subjects")
    finally:
        sys.path.remove(str(BUILD_SCRIPT.parent))
    return SimpleNamespace(**{**vars(vocabulary), **vars(subjects)})


def test_vocabulary_file_has_every_section(builder):
    vocabulary = json.loads(builder.VOCABULARY_PATH.read_text(encoding="utf-8"))
    assert set(builder.VOCABULARY_SECTIONS) <= set(vocabulary)
    assert set(vocabulary["nouns"]) == {"animal", "person", "building", "sky", "food", "plant", "body", "thing"}
    assert all(len(v) == 2 and v[1] in vocabulary["nouns"] for v in vocabulary["phrases"].values())
    assert builder.NOUNS["lighthouse"] == "building" and builder.PHRASES[("alarm", "clock")] == ("alarm clock", "thing")


@pytest.mark.parametrize("edit, message", [
    (lambda v: v.pop("phrases"), "lacks phrases"),
    (lambda v: v["nouns"]["thing"].append("cat"), "lists the noun 'cat' as animal and thing"),
])
def test_a_broken_vocabulary_file_is_refused(builder, tmp_path, edit, message):
    vocabulary = json.loads(builder.VOCABULARY_PATH.read_text(encoding="utf-8"))
    edit(vocabulary)
    path = tmp_path / "vocabulary.json"
    path.write_text(json.dumps(vocabulary), encoding="utf-8")
    with pytest.raises(SystemExit, match=message):
        builder.load_vocabulary(path)
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(SystemExit, match="cannot read the deck vocabulary"):
        builder.load_vocabulary(path)


@pytest.mark.parametrize("stem, subject", [
    ("bat_orlando_karam_", ("bat", "animal", False)),
    ("gatto_cat", ("cat", "animal", False)),  # translated, then the repeat dropped
    ("orologio", ("clock", "thing", False)),
    ("teddy_bear_johnny", ("teddy bear", "thing", False)),  # a phrase before its nouns
    ("apple_with_worm_x", ("apple with a worm", "food", False)),
    ("sleeping_bear_under_tree", ("sleeping bear", "animal", False)),
    ("french_fries_x", ("french fries", "food", True)),
    ("dog_symbol", None),  # stop word after the noun: not a whole object
    ("orlando_karam_bat", None),  # an author's name first
])
def test_file_names_parse_into_subjects(builder, stem, subject):
    parsed = builder.parse_subject(stem)
    assert (None if parsed is None else (parsed.name, parsed.kind, parsed.plural)) == subject


def test_irregular_plurals(builder):
    assert [builder.pluralize(p) for p in ("mouse", "teddy bear", "red fox", "cherry")] == \
        ["mice", "teddy bears", "red foxes", "cherries"]


@pytest.mark.slow
@pytest.mark.skipif(not CLIPART.is_dir(), reason="Debian package openclipart-png not installed")
def test_rebuild_reproduces_the_shipped_deck(tmp_path: Path):
    shipped = default_deck_folder()
    license_head = (shipped / "LICENSE.txt").read_text(encoding="utf-8").splitlines()[0]
    assert license_head == "cluegym default Dixit deck (96 cards, built with seed 0)"
    out = tmp_path / "deck"
    subprocess.run([sys.executable, str(BUILD_SCRIPT), "--cards", "96", "--seed", "0", "--out", str(out), "--quiet"],
                   check=True, capture_output=True, timeout=300)
    files = sorted(p.name for p in shipped.iterdir() if p.is_file())
    assert files == sorted(p.name for p in out.iterdir())
    for name in files:
        assert (out / name).read_bytes() == (shipped / name).read_bytes(), name
