"""Tolerant extraction of answers from LLM replies (pure functions, no model).

Models wrap answers in Markdown, escape quotes the way the prompt showed them, use single
quotes, forget a closing brace, think aloud in ``<think>`` blocks, or answer twice. These
helpers find the final answer anyway, and when they cannot they raise :class:`ParseError`
with a reason fit to send back to the model as a game-master message.

They are also safe on hostile text: whatever the reply holds (``NaN``, ``Infinity``,
``1e400``, JSON nested thousands deep, a 5,000-digit number, a wrong type where a string or a
number belongs, megabytes of text), the only exception they raise is :class:`ParseError`.
Only the last :data:`MAX_PARSE_CHARS` characters of a reply are read (answers come last),
parsed values nested deeper than :data:`MAX_DEPTH` are refused, and numbers are range-checked.

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
import bisect
import json
import math
import re
from typing import Any, Callable, Sequence

#: Characters of a reply that are read (its end: the answer comes last). Real replies under
#: a ``max_tokens`` cap are far shorter; the cap keeps parsing fast on a runaway reply.
MAX_PARSE_CHARS = 65_536
#: Deepest nesting accepted in a parsed answer (answers are at most a few levels deep).
MAX_DEPTH = 16
#: Objects tried per reading of a reply (the last ones: the answer comes last).
MAX_CANDIDATES = 64
#: Longest digit run read as a number (larger numbers are out of every range anyway).
MAX_DIGITS = 9

_MARKER = re.compile(r"answer\s*(?:\*+\s*)?[:=]", re.IGNORECASE)
_THINK_TAG = re.compile(r"<(/?)(think|thinking|reasoning)>", re.IGNORECASE)
_QUOTES = str.maketrans({"\u201c": '"', "\u201d": '"', "\u201e": '"', "\u2018": "'", "\u2019": "'", "\u00ab": '"', "\u00bb": '"'})
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")


class ParseError(ValueError):
    """The reply holds no readable answer; ``str(error)`` says what was expected."""


def shown(value: Any, limit: int = 40) -> str:
    """A short printable form of ``value`` for an error message (never raises: huge ints,
    deep lists and odd objects are summarized)."""
    if isinstance(value, bool) or value is None:
        return repr(value)
    if isinstance(value, int):
        if value.bit_length() > 64:
            return f"a number with about {int(value.bit_length() * math.log10(2)) + 1} digits"
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        return repr(value) if math.isfinite(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, str):
        return repr(value if len(value) <= limit else value[:limit] + "...")
    return f"a {type(value).__name__}"


def _drop_think_blocks(text: str) -> str:
    """Remove ``<think>...</think>`` blocks (also ``thinking``/``reasoning``): each opening tag
    up to the nearest closing tag of the same name; an unclosed opening stays as text.
    O(tags log tags), so thousands of unclosed tags cost nothing."""
    tags = [(m.start(), m.end(), m.group(1) == "/", m.group(2).lower()) for m in _THINK_TAG.finditer(text)]
    if not tags:
        return text
    closings: dict[str, list[tuple[int, int]]] = {}
    for start, end, closing, name in tags:
        if closing:
            closings.setdefault(name, []).append((start, end))
    out: list[str] = []
    kept_from = 0
    for start, end, closing, name in tags:
        if closing or start < kept_from:
            continue
        ends = closings.get(name, [])
        i = bisect.bisect_left(ends, (end, -1))
        if i == len(ends):
            continue  # unclosed: plain text
        out.append(text[kept_from:start] + " ")
        kept_from = ends[i][1]
    out.append(text[kept_from:])
    return "".join(out)


def clean_reply(text: str, unescape: bool = True) -> str:
    """The end of a reply (:data:`MAX_PARSE_CHARS`) without ``<think>`` blocks, with curly
    quotes folded and (``unescape``) ``\\"`` turned into ``"``, since the prompts show the
    answer format with escaped quotes and models copy them."""
    text = text if isinstance(text, str) else ""
    text = _drop_think_blocks(text[-MAX_PARSE_CHARS:]).translate(_QUOTES)
    return text.replace('\\"', '"') if unescape else text


def after_marker(text: str) -> str | None:
    """The text after the last ``ANSWER:`` marker (any case, Markdown-bold allowed), or None."""
    last = None
    for last in _MARKER.finditer(text):
        pass
    return text[last.end():] if last is not None else None



def last_json_array(cleaned: str, accept: Callable[[list[Any]], bool]) -> list[Any] | None:
    """The last JSON array in a cleaned reply that ``accept`` takes: after the ANSWER marker
    first, then anywhere (at most :data:`MAX_CANDIDATES` arrays are tried per pool)."""
    tail = after_marker(cleaned)
    for pool in ([tail] if tail is not None else []) + [cleaned]:
        for blob in reversed(balanced_objects(pool, "[", "]")[-MAX_CANDIDATES:]):
            try:
                value = loads_lenient(blob)
            except ParseError:
                continue
            if isinstance(value, list) and accept(value):
                return value
    return None

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
    if depth > 0 and start >= 0 and depth <= MAX_DEPTH:
        tail = text[start:].rstrip().rstrip(",")
        if quote:
            tail += quote
        if tail.count("[") > tail.count("]"):
            tail += "]"
        found.append(tail + close_ch * depth)
    return found


def nesting_depth(value: Any, limit: int = MAX_DEPTH) -> int:
    """How deeply ``value``'s lists/tuples/dicts nest (iterative: safe on any depth); stops
    counting past ``limit``."""
    deepest, stack = 0, [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (list, tuple, dict)):
            depth += 1
            deepest = max(deepest, depth)
            if depth > limit:
                return depth
            stack.extend((v, depth) for v in (item.values() if isinstance(item, dict) else item))
    return deepest


def loads_lenient(text: str) -> Any:
    """Parse JSON-ish text: JSON, Python literals (single quotes, True/None), trailing commas,
    unquoted keys. Values nested deeper than :data:`MAX_DEPTH` are refused.

    Raises:
        ParseError: when none of these readings works.
    """
    candidates = [text, re.sub(r",\s*([}\]])", r"\1", text)]
    candidates.append(re.sub(r"([{,]\s*)([A-Za-z_][A-Za-z0-9_]*)\s*:", r'\1"\2":', candidates[-1]))
    for candidate in candidates:
        for reader in (json.loads, ast.literal_eval):
            try:
                value = reader(candidate)
            except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError, OverflowError):
                continue
            if nesting_depth(value) > MAX_DEPTH:
                raise ParseError(f"your answer is nested more than {MAX_DEPTH} levels deep")
            return value
    raise ParseError(f"could not read {shown(text)} as a dictionary")


def extract_dict(text: str, key: str | None = None) -> dict[str, Any]:
    """The answer dictionary of a reply: the last ``{...}`` after the last ``ANSWER:`` marker,
    else the last ``{...}`` anywhere that has ``key``. Keys are lower-cased strings.

    Raises:
        ParseError: no readable dictionary (with ``key``, when given).
    """
    versions = (clean_reply(text, unescape=False), clean_reply(text))
    tails = [t for t in (after_marker(v) for v in versions) if t is not None]
    deep = False
    for pool in [*tails, *versions]:  # after the last ANSWER: first, then anywhere
        for blob in reversed(balanced_objects(pool)[-MAX_CANDIDATES:]):
            try:
                value = loads_lenient(blob)
            except ParseError as exc:
                deep = deep or "nested" in str(exc)
                continue
            if isinstance(value, dict) and (key is None or any(str(k).lower() == key for k in value)):
                return {str(k).lower(): v for k, v in value.items()}
    if deep:
        raise ParseError(f"your answer is nested more than {MAX_DEPTH} levels deep; give a flat dictionary")
    what = f'dictionary with "{key}"' if key else "dictionary"
    raise ParseError(f"no {what} found in the reply")


def small_int(value: Any) -> int | None:
    """``value`` as an int when it plainly is one: an int, an integral finite float, or a
    string of at most :data:`MAX_DIGITS` digits (optionally signed); else None. Never raises."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if value.bit_length() <= 64 else None
    if isinstance(value, float):
        return int(value) if math.isfinite(value) and value.is_integer() and abs(value) < 2**63 else None
    if isinstance(value, str):
        stripped = value.strip()
        if re.fullmatch(r"[-+]?\d{1,%d}" % MAX_DIGITS, stripped):
            return int(stripped)
    return None


def _digits_of(value: Any) -> list[int] | None:
    if isinstance(value, (list, tuple)):
        digits = [small_int(v) for v in value]
        return None if any(d is None for d in digits) else digits  # type: ignore[misc]
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        number = small_int(value)
        if number is None or number < 0:
            return None
        value = str(number)
    if isinstance(value, str):
        groups = re.findall(r"\d+", value[:200])
        if len(groups) == 1 and len(groups[0]) > 1:
            return [int(c) for c in groups[0][:MAX_DIGITS]]  # "213"
        # a run longer than MAX_DIGITS is out of range anyway: keep its first digits
        return [int(g[:MAX_DIGITS]) for g in groups] if groups else None
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
        # bounded gaps: unbounded \s* around the separator backtracks quadratically on long blanks
        pattern = re.compile(r"(?<!\d)\d(?:\s{0,3}[-,/ ]\s{0,3}\d){%d}(?!\d)" % (code_length - 1))
        tail = after_marker(cleaned)
        for pool in ([tail] if tail is not None else []) + [cleaned]:
            found = pattern.findall(pool)
            if found:
                digits = [int(c) for c in re.findall(r"\d", found[0 if pool is tail else -1])]
                break
    if digits is None:
        raise ParseError(f"no code found in your answer; give {expected}")
    if len(digits) != code_length or len(set(digits)) != code_length or not all(1 <= d <= num_keywords for d in digits):
        code = "-".join(str(d) for d in digits[:8]) + ("-..." if len(digits) > 8 else "")
        raise ParseError(f"{code!r} is not a valid code; give {expected}")
    return tuple(digits)


def parse_hints(text: str, count: int = 3, key: str = "hints") -> tuple[str, ...]:
    """Decrypto hints from ``ANSWER: {"hints": ["a", "b", "c"]}`` and variants (a bare list,
    a comma-separated string, a cut-off reply).

    Raises:
        ParseError: no hints, hints that are not strings, or not exactly ``count`` non-empty ones.
    """
    names = ", ".join(f'"hint_{i + 1}"' for i in range(count))
    expected = f'exactly {count} hints, like ANSWER: {{"{key}": [{names}]}}'
    hints: list[str] | None = None
    try:
        value = extract_dict(text, key)[key]
        if isinstance(value, str):
            value = [h for h in re.split(r"[,;\n]", value)]
        if isinstance(value, (list, tuple)):
            if not all(isinstance(h, str) for h in value):
                raise ParseError(f"each hint must be a word in quotes; give {expected}") from None
            hints = list(value)
    except ParseError as exc:
        if "each hint" in str(exc):
            raise
        hints = last_json_array(clean_reply(text), lambda v: bool(v) and all(isinstance(h, str) for h in v))
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
    reasoning = data.get("reasoning", "")
    return data["answer"], reasoning if isinstance(reasoning, str) else ""


def parse_int(value: Any, low: int, high: int, what: str = "number", *, allow_fraction: bool = False) -> int:
    """An integer in ``low..high`` from an answer such as ``3``, ``3.0``, ``"3"``, ``"Card 3"``,
    ``"3/4"``. NaN, infinities, huge numbers and non-numbers are refused; so is a fraction
    such as ``2.5`` unless ``allow_fraction`` (then it is rounded down: a 0-100 rating).

    Raises:
        ParseError: no integer, or one out of range.
    """
    expected = f"the answer must be a {what} from {low} to {high}"
    number: float | int
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise ParseError(f"{expected}, got {shown(value)}")
    if isinstance(value, str):
        found = _NUMBER.search(value[:200])
        if not found:
            raise ParseError(f"{expected}, got {shown(value)}")
        text = found.group()
        number = int(text) if re.fullmatch(r"-?\d{1,%d}" % MAX_DIGITS, text) else float(text)  # float: never raises
    else:
        number = value
    if isinstance(number, float):
        if not math.isfinite(number):
            raise ParseError(f"{expected}, got {shown(number)}")
        if not number.is_integer() and not allow_fraction:
            raise ParseError(f"{expected} (a whole number), got {shown(number)}")
        if abs(number) >= 2**63:
            raise ParseError(f"{expected}, got {shown(number)}")
        number = math.floor(number)
    if not low <= number <= high:
        raise ParseError(f"{expected}, got {shown(number)}")
    return int(number)


def parse_tags(text: str, tags: Sequence[str], required: Sequence[str] = ()) -> dict[str, str]:
    """Contents of XML-like tags (``<DIALOGUE>...</DIALOGUE>``, any case; an unclosed last tag
    runs to the end or the next tag). Missing optional tags are absent from the result.

    Raises:
        ParseError: a ``required`` tag is missing or empty.
    """
    text = clean_reply(text)
    out: dict[str, str] = {}
    for tag in tags:
        name = re.escape(tag)
        # (?:/\s*)? rather than /?\s*: two adjacent \s* backtrack quadratically on long blanks
        match = re.search(rf"<\s*{name}\s*>(.*?)(?:<\s*/\s*{name}\s*>|(?=<\s*(?:/\s*)?[A-Z]+\s*>)|$)", text,
                          re.IGNORECASE | re.DOTALL)
        if match and match.group(1).strip():
            out[tag.lower()] = match.group(1).strip()
    missing = [t for t in required if t.lower() not in out]
    if missing:
        raise ParseError(f"your reply lacks the <{missing[0]}>...</{missing[0]}> part; follow the output format")
    return out


def parse_labeled(text: str, labels: Sequence[str]) -> dict[str, str]:
    """``LABEL: value`` lines (``Speech: ...``, ``Vote: 3``), last occurrence wins; any case,
    Markdown bold allowed. Returns only the labels found."""
    wanted = {label.lower(): label for label in labels}
    out: dict[str, str] = {}
    for line in clean_reply(text).splitlines():  # line by line: no regex backtracking on long lines
        body = line.lstrip(" \t>*#-").lstrip("*")
        for key in wanted:
            if body[:len(key)].lower() != key:
                continue
            rest = body[len(key):].lstrip("*").lstrip()
            if rest[:1] in (":", "=") and rest[1:].strip().strip("*").strip():
                out[key] = rest[1:].strip().strip("*").strip()
    return out
