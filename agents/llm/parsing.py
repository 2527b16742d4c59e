"""Tolerant extraction of answers from LLM replies (pure functions, no model).

Models wrap answers in Markdown, escape quotes the way the prompt showed them, use single
quotes, forget a closing brace, think aloud in ``<think>`` blocks, or answer twice. These
helpers find the final answer anyway, and when they cannot they raise :class:`ParseError`
with a reason fit to send back to the model as a game-master message.

Example:
    >>> parse_code('I think... **ANSWER:** {\\'guess\\': "2 - 1 - 3"}', code_length=3, num_keywords=4)
    (2, 1, 3)
    >>> parse_hints('ANSWER: {"hints": ["cap", "flame", "solve"', count=3)
    ('cap', 'flame', 'solve')
    >>> parse_json_answer('```json\\n{"reasoning": "calm sea", "answer": "3"}\\n```')
    ('3', 'calm sea')
"""

from __future__ import annotations

import ast
import json
import re
from typing import Any, Sequence

_MARKER = re.compile(r"(?:final\s+)?answer\s*\**\s*[:=]", re.IGNORECASE)
_THINK = re.compile(r"<(think|thinking|reasoning)>.*?</\1>", re.IGNORECASE | re.DOTALL)
_QUOTES = {"\u201c": '"', "\u201d": '"', "\u201e": '"', "\u2018": "'", "\u2019": "'", "\u00ab": '"', "\u00bb": '"'}


class ParseError(ValueError):
    """The reply holds no readable answer; ``str(error)`` says what was expected."""


def clean_reply(text: str, unescape: bool = True) -> str:
    """Drop ``<think>`` blocks, fold curly quotes, and (``unescape``) turn ``\\"`` into ``"``,
    since the prompts show the answer format with escaped quotes and models copy them."""
    text = _THINK.sub(" ", text or "")
    text = "".join(_QUOTES.get(ch, ch) for ch in text)
    return text.replace('\\"', '"') if unescape else text


def after_marker(text: str) -> str | None:
    """The text after the last ``ANSWER:`` marker (any case, Markdown-bold allowed), or None."""
    matches = list(_MARKER.finditer(text))
    return text[matches[-1].end():] if matches else None


def balanced_objects(text: str, open_ch: str = "{", close_ch: str = "}") -> list[str]:
    """Every top-level ``{...}`` (or ``[...]``) substring, in order, respecting quoted strings.
    An object cut off at the end of the text is returned closed."""
    found: list[str] = []
    depth, start, quote, escape = 0, -1, "", False
    for i, ch in enumerate(text):
        if quote:
            if escape:
                escape = False
            elif ch == "\\":
                escape = True
            elif ch == quote:
                quote = ""
            continue
        if ch in "\"'" and depth > 0:
            # an apostrophe inside a word (it's) is not a quote
            if ch == "'" and i > 0 and text[i - 1].isalpha() and i + 1 < len(text) and text[i + 1].isalpha():
                continue
            quote = ch
        elif ch == open_ch:
            if depth == 0:
                start = i
            depth += 1
        elif ch == close_ch and depth > 0:
            depth -= 1
            if depth == 0:
                found.append(text[start:i + 1])
    if depth > 0 and start >= 0:
        tail = text[start:].rstrip().rstrip(",")
        if quote:
            tail += quote
        if tail.count("[") > tail.count("]"):
            tail += "]"
        found.append(tail + close_ch * depth)
    return found


def loads_lenient(text: str) -> Any:
    """Parse JSON-ish text: JSON, Python literals (single quotes, True/None), trailing commas,
    unquoted keys.

    Raises:
        ParseError: when none of these readings works.
    """
    candidates = [text, re.sub(r",\s*([}\]])", r"\1", text)]
    candidates.append(re.sub(r"([{,]\s*)([A-Za-z_][A-Za-z0-9_]*)\s*:", r'\1"\2":', candidates[-1]))
    for candidate in candidates:
        try:
            return json.loads(candidate)
        except (json.JSONDecodeError, ValueError):
            pass
        try:
            return ast.literal_eval(candidate)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            pass
    raise ParseError(f"could not read {text[:80]!r} as a dictionary")


def extract_dict(text: str, key: str | None = None) -> dict[str, Any]:
    """The answer dictionary of a reply: the last ``{...}`` after the last ``ANSWER:`` marker,
    else the last ``{...}`` anywhere that has ``key``.

    Raises:
        ParseError: no readable dictionary (with ``key``, when given).
    """
    versions = (clean_reply(text, unescape=False), clean_reply(text))
    tails = [t for t in (after_marker(v) for v in versions) if t is not None]
    for pool in [*tails, *versions]:  # after the last ANSWER: first, then anywhere
        for blob in reversed(balanced_objects(pool)):
            try:
                value = loads_lenient(blob)
            except ParseError:
                continue
            if isinstance(value, dict) and (key is None or any(str(k).lower() == key for k in value)):
                return {str(k).lower(): v for k, v in value.items()}
    what = f'dictionary with "{key}"' if key else "dictionary"
    raise ParseError(f"no {what} found in the reply")


def _digits_of(value: Any) -> list[int] | None:
    if isinstance(value, (list, tuple)):
        try:
            return [int(str(v).strip()) for v in value]
        except ValueError:
            return None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        value = str(int(value))
    if isinstance(value, str):
        groups = re.findall(r"\d+", value)
        if len(groups) == 1 and len(groups[0]) > 1:
            return [int(c) for c in groups[0]]  # "213"
        return [int(g) for g in groups] if groups else None
    return None


def parse_code(text: str, code_length: int = 3, num_keywords: int = 4, key: str = "guess") -> tuple[int, ...]:
    """A Decrypto code from a reply: ``ANSWER: {"guess": "2-1-3"}`` and its many variants
    (lists, ``"2, 1, 3"``, ``"213"``, a bare ``ANSWER: 2-1-3``, single quotes ...).

    Raises:
        ParseError: no code, or one that is not ``code_length`` distinct digits in 1..num_keywords.
    """
    example = "-".join(str(i) for i in range(code_length, 0, -1))
    expected = f'{code_length} distinct digits from 1 to {num_keywords}, like ANSWER: {{"{key}": "{example}"}}'
    digits: list[int] | None = None
    try:
        digits = _digits_of(extract_dict(text, key)[key])
    except ParseError:
        cleaned = clean_reply(text)
        pattern = re.compile(r"(?<!\d)\d(?:\s*[-,/ ]\s*\d){%d}(?!\d)" % (code_length - 1))
        tail = after_marker(cleaned)
        for pool in ([tail] if tail is not None else []) + [cleaned]:
            found = pattern.findall(pool)
            if found:
                digits = [int(c) for c in re.findall(r"\d", found[0 if pool is tail else -1])]
                break
    if digits is None:
        raise ParseError(f"no code found in your answer; give {expected}")
    if len(digits) != code_length or len(set(digits)) != code_length or not all(1 <= d <= num_keywords for d in digits):
        shown = "-".join(str(d) for d in digits)
        raise ParseError(f"{shown!r} is not a valid code; give {expected}")
    return tuple(digits)


def parse_hints(text: str, count: int = 3, key: str = "hints") -> tuple[str, ...]:
    """Decrypto hints from ``ANSWER: {"hints": ["a", "b", "c"]}`` and variants (a bare list,
    a comma-separated string, a cut-off reply).

    Raises:
        ParseError: no hints, or not exactly ``count`` non-empty ones.
    """
    names = ", ".join(f'"hint_{i + 1}"' for i in range(count))
    expected = f'exactly {count} hints, like ANSWER: {{"{key}": [{names}]}}'
    hints: list[str] | None = None
    try:
        value = extract_dict(text, key)[key]
        if isinstance(value, str):
            value = [h for h in re.split(r"[,;\n]", value)]
        if isinstance(value, (list, tuple)):
            hints = [str(h) for h in value]
    except ParseError:
        cleaned = clean_reply(text)
        tail = after_marker(cleaned)
        for pool in ([tail] if tail is not None else []) + [cleaned]:
            for blob in reversed(balanced_objects(pool, "[", "]")):
                try:
                    value = loads_lenient(blob)
                except ParseError:
                    continue
                if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
                    hints = list(value)
                    break
            if hints is not None:
                break
    if hints is None:
        raise ParseError(f"no hints found in your answer; give {expected}")
    hints = [" ".join(h.strip().strip(".").split()) for h in hints]
    if len(hints) != count or not all(hints):
        raise ParseError(f"you gave {len([h for h in hints if h])} hints; give {expected}")
    return tuple(hints)


def parse_json_answer(text: str) -> tuple[Any, str]:
    """``(answer, reasoning)`` from a JSON reply ``{"reasoning": ..., "answer": ...}``
    (DixitWorld's format), tolerant of fences and surrounding prose.

    Raises:
        ParseError: no dictionary with an ``"answer"``.
    """
    data = extract_dict(text, "answer")
    return data["answer"], str(data.get("reasoning", ""))


def parse_int(value: Any, low: int, high: int, what: str = "number") -> int:
    """An integer in ``low..high`` from an answer such as ``3``, ``"3"``, ``"Card 3"``, ``"3/4"``.

    Raises:
        ParseError: no integer, or one out of range.
    """
    if isinstance(value, bool):
        raise ParseError(f"the answer must be a {what} from {low} to {high}, got {value!r}")
    if isinstance(value, (int, float)):
        number = int(value)
    else:
        found = re.findall(r"-?\d+(?:\.\d+)?", str(value))
        if not found:
            raise ParseError(f"the answer must be a {what} from {low} to {high}, got {str(value)[:40]!r}")
        number = int(float(found[0]))
    if not low <= number <= high:
        raise ParseError(f"the answer must be a {what} from {low} to {high}, got {number}")
    return number


def parse_tags(text: str, tags: Sequence[str], required: Sequence[str] = ()) -> dict[str, str]:
    """Contents of XML-like tags (``<DIALOGUE>...</DIALOGUE>``, any case; an unclosed last tag
    runs to the end or the next tag). Missing optional tags are absent from the result.

    Raises:
        ParseError: a ``required`` tag is missing or empty.
    """
    text = clean_reply(text)
    out: dict[str, str] = {}
    for tag in tags:
        match = re.search(rf"<\s*{tag}\s*>(.*?)(?:<\s*/\s*{tag}\s*>|(?=<\s*/?\s*[A-Z]+\s*>)|$)", text, re.IGNORECASE | re.DOTALL)
        if match and match.group(1).strip():
            out[tag.lower()] = match.group(1).strip()
    missing = [t for t in required if t.lower() not in out]
    if missing:
        raise ParseError(f"your reply lacks the <{missing[0]}>...</{missing[0]}> part; follow the output format")
    return out


def parse_labeled(text: str, labels: Sequence[str]) -> dict[str, str]:
    """``LABEL: value`` lines (``Speech: ...``, ``Vote: 3``), last occurrence wins; any case,
    Markdown bold allowed. Returns only the labels found."""
    text = clean_reply(text)
    out: dict[str, str] = {}
    for label in labels:
        found = re.findall(rf"^[\s>*#-]*\**{re.escape(label)}\**\s*[:=]\s*\**\s*(.+?)\s*$", text, re.IGNORECASE | re.MULTILINE)
        if found:
            out[label.lower()] = found[-1].strip().strip("*").strip()
    return out
