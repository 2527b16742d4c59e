"""Shared machinery for every cluegym game: the AEC adapter, spaces, text checks, records.

Text from other seats: every free-text action is cleaned by the adapter before the game sees
it (controls and line breaks removed, whitespace collapsed, :func:`.text.clean_text`),
rejected when longer than its ``Text`` space allows, and shown in any other seat's prompt
only through :func:`.text.quote_text` (one escaped, double-quoted string), so it can never
pose as game-master text. See :mod:`.text` for the rule and :mod:`.record` for strict-JSON,
replayable records; :meth:`.base.ClueGameEnv.forfeit` gives up a seat's decision.

Names load lazily so that a game's pure ``rules.py`` can import :mod:`.text` without
pulling in gymnasium or PettingZoo.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "ClueGameEnv": "base", "wrap": "base",
    "ReplayMismatch": "record", "digest": "record", "replay": "record", "replay_env": "record",
    "to_jsonable": "record", "transcript": "record", "encode_action": "record", "decode_action": "record",
    "clean_action_text": "spaces", "clean_text": "text", "quote_text": "text", "describe": "text",
    "int_box": "spaces", "mask_space": "spaces", "pad_texts": "spaces", "text_space": "spaces",
    "text_tuple": "spaces", "read_only": "spaces",
    "read_text_file": "data", "read_word_list": "data", "require_file": "data", "shipped_word_list": "data",
    "word_list_option": "data",
    "CHARSET": "text", "first_mention": "matching", "mentions_word": "matching", "says_word": "matching",
    "to_charset": "text", "tokens": "text",
    "WordNetMissingError": "matching", "require_wordnet": "matching", "wordnet_lemmas": "matching",
    "wordnet_lexicon": "matching", "seat_name": "seats", "UnknownSeatError": "seats",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(importlib.import_module(f"{__name__}.{_EXPORTS[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
