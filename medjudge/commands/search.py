"""``medjudge search``: full-text search over the items' questions, answers and listed entries."""

from __future__ import annotations

import json
import re
import sys
from enum import Enum
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.text import Text

from medjudge.store.literal import json_escaped, printable
from medjudge.store.paths import login_name
from medjudge.store.search import BadQuery, Found, Match
from medjudge.store.search import search as run_search
from medjudge.store.visibility import sees_everything

from .common import UserError, console, is_tty, opened, out


class SearchFormat(str, Enum):
    """Output formats for ``search``."""

    text = "text"
    json = "json"


def search(
    study: Annotated[Path, typer.Argument(help="The study file (one SQLite file per study).")],
    text: Annotated[
        str,
        typer.Argument(
            help='What to look for: words (all must occur, any order, any ending), "a phrase", '
            'OR, NOT, prefix*. Put a word with - or : in double quotes ("covid-19").',
            show_default=False,
        ),
    ],
    limit: Annotated[
        int, typer.Option("--limit", "-n", min=1, help="Show at most this many items.", metavar="N")
    ] = 20,
    fmt: Annotated[
        SearchFormat, typer.Option("--format", "-f", help="text, or json (one document).")
    ] = SearchFormat.text,
) -> None:
    """Find items by the words of their question, answers and statements (criteria,
    sub-questions), best match first: the item's id, kind, where it matched and the words
    around the match.

    While the study is blind, a reviewer is not told which model wrote an answer: answers are
    named A / B as the review app shows them, without their source.

    \b
    Example:
      medjudge search trial.db antibiotics
      medjudge search trial.db '"chest pain" NOT child' --limit 5
      medjudge search trial.db 'infect*' -f json | jq '.items[].id'
    """
    with opened(study) as s:
        reveal = sees_everything(s, login_name())
        try:
            found = run_search(s, text, limit=limit, reveal_sources=reveal, reviewer=login_name())
        except BadQuery as exc:
            raise UserError(f"TEXT: {exc}") from None
    if fmt is SearchFormat.json:
        document = {
            "query": text,
            "total": found.total,
            "shown": len(found.hits),
            "items": [
                {
                    "id": h.ext_id,
                    "kind": h.kind,
                    "matches": [_match_json(m) for m in h.matches],
                }
                for h in found.hits
            ],
        }
        sys.stdout.write(json_escaped(json.dumps(document, indent=2, ensure_ascii=False)) + "\n")
        return
    _print_text(text, found, limit)


def _match_json(m: Match) -> dict[str, Any]:
    record: dict[str, Any] = {"in": m.where, "label": m.label, "snippet": m.snippet}
    if m.position is not None:  # a statement's 0-based position, an answer's letter or role
        record["position"] = int(m.position) if m.where == "statement" else m.position
    if m.frame is not None:
        record["frame"] = m.frame
    if m.source is not None:
        record["source"] = m.source
    record["marks"] = [list(span) for span in m.marks]
    return record


def _print_text(query: str, found: Found, limit: int) -> None:
    if not found.hits:
        out(f"no item matches {query!r}")
        return
    highlight = is_tty()
    for h in found.hits:
        out(f"{h.ext_id}  ({h.kind})")
        for m in h.matches:
            line = Text("  " + _where(m) + ": ")
            for piece, matched in m.parts:
                # Untrusted text: escapes made visible, one line; a Text is never read as markup.
                flat = re.sub(r"\s+", " ", printable(piece))
                line.append(flat, style="bold reverse" if matched and highlight else "")
            console.print(line)
    more = found.total - len(found.hits)
    tail = f"; {more} more (--limit {limit})" if more > 0 else ""
    out(f"{found.total} matching item{'s' if found.total != 1 else ''}{tail}")


def _where(m: Match) -> str:
    label = m.label
    if m.frame == "display":
        label += " (as shown in the review app)"
    if m.source is not None:
        label += f" [{printable(m.source)}]"
    return label
