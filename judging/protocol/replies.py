"""Reading judge replies: lenient JSON extraction, strict validation.

Lenient about the wrapping (code fences, prose around the object), strict about the content:
a reply whose JSON lacks a criterion, has an unknown verdict or wrong types is a parse error,
and the runner records it as a failed sample — never as a vote.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from medjudge import kinds
from medjudge.kinds.pairwise import SPELLINGS as PAIRWISE_SPELLINGS
from medjudge.kinds.statements import NLI_REPLY, YES_NO_REPLY
from medjudge.store.json_types import JsonObject


class ReplyError(ValueError):
    """A reply that does not carry a valid answer; the message says what was wrong."""


def extract_json(text: str) -> JsonObject:
    """The first JSON object in a reply, tolerating fences and prose around it.

    Raises:
        ReplyError: no JSON object could be read.
    """
    if not text or not text.strip():
        raise ReplyError("empty reply")
    stripped = text.strip()
    # ValueError covers JSONDecodeError and integers of more than 4300 digits; a reply nested
    # thousands deep raises RecursionError. Either is a bad reply, never a crash of the run.
    try:
        value = json.loads(stripped)
        if isinstance(value, dict):
            return value
    except (ValueError, RecursionError):
        pass
    decoder = json.JSONDecoder()
    start = stripped.find("{")
    # At most MAX_TRIES candidate starts: each failed try costs time linear in where it failed
    # (the error's line and column are counted from the start), so a hostile reply of a
    # million "{" was quadratic (minutes, deaf to Ctrl-C); a real reply's object is among the
    # first few braces.
    for _ in range(MAX_TRIES):
        if start == -1:
            break
        try:
            value, _ = decoder.raw_decode(stripped, start)
        except (ValueError, RecursionError):
            start = stripped.find("{", start + 1)
            continue
        if isinstance(value, dict):
            return value
        start = stripped.find("{", start + 1)
    else:
        if start != -1:
            raise ReplyError(f"no JSON object at the first {MAX_TRIES} braces of the reply")
    raise ReplyError("no JSON object in the reply")


MAX_TRIES = 64
"""Candidate ``{`` positions tried before a reply is called unreadable."""


_PAIRWISE = {**PAIRWISE_SPELLINGS, "response a": "A", "response b": "B"}


def _entry(obj: dict[str, Any], key: str) -> Any:
    for k, v in obj.items():
        if k.strip().lower() == key:
            return v
    raise ReplyError(f"no entry for {key!r}")


def _reason(entry: Any) -> str:
    if isinstance(entry, dict):
        r = entry.get("reason", "")
        return r if isinstance(r, str) else json.dumps(r)
    return ""


def parse_pairwise(text: str, criteria: list[str]) -> dict[str, dict[str, str]]:
    """criterion → {"verdict": A|B|tie|neither, "reason": str} in the reply's own A/B terms.

    Raises:
        ReplyError: not JSON, a criterion missing, or a verdict outside A/B/tie/neither.
    """
    obj = extract_json(text)
    out: dict[str, dict[str, str]] = {}
    for c in criteria:
        entry = _entry(obj, c)
        raw = entry.get("verdict") if isinstance(entry, dict) else entry
        if not isinstance(raw, str) or raw.strip().lower() not in _PAIRWISE:
            raise ReplyError(f"{c}: verdict {raw!r} is not A, B, tie or neither")
        out[c] = {"verdict": _PAIRWISE[raw.strip().lower()], "reason": _reason(entry)}
    return out


def parse_label(
    text: str, key: str, spellings: Mapping[str, str], words: str, reason: str = "reason"
) -> dict[str, str]:
    """{key: the canonical label, "reason": str} from a reply holding one label (a JSON
    boolean reads as ``true`` / ``false``) and its reason under ``reason``.

    Raises:
        ReplyError: not JSON, or a label none of ``spellings`` spells.
    """
    obj = extract_json(text)
    raw = _entry(obj, key)
    if isinstance(raw, bool):
        raw = "true" if raw else "false"
    if not isinstance(raw, str) or raw.strip().lower() not in spellings:
        raise ReplyError(f"{key} {raw!r} is not {words}")
    said = obj.get(reason, "")
    return {
        key: spellings[raw.strip().lower()],
        "reason": said if isinstance(said, str) else json.dumps(said),
    }


def parse_nli(text: str) -> dict[str, str]:
    """{"label": entailed|neutral|contradicted, "reason": str}."""
    return _read_label(text, NLI_REPLY)


def parse_yes_no(text: str) -> dict[str, str]:
    """{"answer": yes|no, "reason": str} for the K-QA questions."""
    return _read_label(text, YES_NO_REPLY)


def _read_label(text: str, reply: Mapping[str, Any]) -> dict[str, str]:
    return parse_label(
        text, reply["key"], reply["spellings"], reply["words"], reply.get("reason", "reason")
    )


MATCH_VALUES = {1: "1", 0.5: "0.5", 0: "0"}


def parse_match(text: str) -> dict[str, str]:
    """{"score": "1" | "0.5" | "0", "reason": str} (MedRGB's rubric).

    Raises:
        ReplyError: not JSON or a score other than 1, 0.5 or 0.
    """
    obj = extract_json(text)
    raw = _entry(obj, "score")
    if isinstance(raw, str):
        try:
            raw = float(raw.strip())
        except ValueError:
            pass  # reported below
    if isinstance(raw, bool) or not isinstance(raw, (int, float)) or raw not in MATCH_VALUES:
        raise ReplyError(f"score {raw!r} is not 1, 0.5 or 0")
    return {"score": MATCH_VALUES[raw], "reason": _reason(obj)}


def parse_rating(
    text: str, scales: dict[str, tuple[int, int] | None], options: list[str]
) -> dict[str, JsonObject]:
    """criterion → {"value": int or sorted letters, "reason": str}.

    ``scales`` maps each criterion to its (low, high) scale, or None for an options criterion.

    Raises:
        ReplyError: a criterion missing, a number off its scale, or an unknown option letter.
    """
    obj = extract_json(text)
    out: dict[str, dict[str, Any]] = {}
    for c, scale in scales.items():
        entry = _entry(obj, c)
        raw = entry.get("value") if isinstance(entry, dict) else entry
        if scale is None:
            if isinstance(raw, str):
                raw = [p for p in raw.replace(" ", ",").split(",") if p]
            if not isinstance(raw, list) or not all(isinstance(x, str) for x in raw):
                raise ReplyError(f"{c}: expected a list of option letters, got {raw!r}")
            letters = sorted({x.strip().upper() for x in raw})
            unknown = [x for x in letters if x not in options]
            if unknown:
                raise ReplyError(f"{c}: unknown option(s) {', '.join(unknown)}")
            out[c] = {"value": letters, "reason": _reason(entry)}
        else:
            if isinstance(raw, str):
                try:  # not str.isdigit(): "²" is a digit to it, but int("²") raises
                    raw = int(raw.strip())
                except ValueError:
                    pass  # reported below as not a whole number
            if isinstance(raw, float) and raw.is_integer():
                raw = int(raw)
            if isinstance(raw, bool) or not isinstance(raw, int) or not scale[0] <= raw <= scale[1]:
                raise ReplyError(
                    f"{c}: {raw!r} is not a whole number from {scale[0]} to {scale[1]}"
                )
            out[c] = {"value": raw, "reason": _reason(entry)}
    return out


def _read_by_kind(text: str, reply: Mapping[str, Any]) -> Any:
    """A reply the kind reads itself (``{"form": "kind", "kind": NAME, …}``:
    :meth:`medjudge.kinds.base.Kind.read_reply`)."""
    obj = extract_json(text)
    try:
        return kinds.get(str(reply["kind"])).read_reply(obj, reply)
    except ValueError as exc:  # the kind's own message: what the reply got wrong
        raise ReplyError(str(exc)) from None


FORMS: dict[str, Callable[[str, Mapping[str, Any]], Any]] = {
    "verdicts": lambda text, r: parse_pairwise(text, r["criteria"]),
    "label": _read_label,
    "score": lambda text, r: parse_match(text),
    "ratings": lambda text, r: parse_rating(text, r["scales"], r["options"]),
    "kind": _read_by_kind,
}
"""How a reply is read (a kind's ``Ask.reply["form"]``) → its reader."""

_BEFORE_FORMS: dict[str, Mapping[str, Any]] = {
    p.task: p.reply_before_forms
    for kind in kinds.KINDS.values()
    if kind.judge is not None
    for p in kind.judge.prompts
    if p.reply_before_forms is not None
}
"""The reply form of each task of a batch submitted before replies named their form (each
kind's prompts say theirs: :attr:`medjudge.kinds.judged.Prompt.reply_before_forms`)."""


def parse_reply_text(task: str, reply: Mapping[str, Any], text: str) -> JsonObject:
    """Read a reply to a call of prompt task ``task`` the way ``reply`` says.

    Raises:
        ReplyError: the reply does not carry a valid answer.
    """
    if "form" not in reply:
        reply = {**_BEFORE_FORMS[task], **reply}
    parsed: JsonObject = FORMS[reply["form"]](text, reply)
    return parsed
