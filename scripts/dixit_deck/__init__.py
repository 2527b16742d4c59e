"""The pieces of ``scripts/build_dixit_deck.py``, which composes cluegym's default Dixit deck.

* :mod:`dixit_deck.vocabulary`: the curated word lists, read from
  ``scripts/data/dixit_deck_vocabulary.json``.
* :mod:`dixit_deck.subjects`: clip-art file names -> caption subjects (``bat_orlando_karam_.png``
  -> "bat"), articles and plurals.
* :mod:`dixit_deck.drawing`: loading clip art, painted backgrounds, tints, placing pictures, the card frame.
* :mod:`dixit_deck.layouts`: :class:`~dixit_deck.layouts.CardMaker`, one card and its caption per layout.

Build-time helpers, not part of the installed package: the script puts ``scripts/`` on
``sys.path`` and imports them as ``dixit_deck.*``.
"""
