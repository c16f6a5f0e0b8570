"""Full-text search over the items' questions, answers and listed entries.

The index is SQLite's FTS5, one table per searched table (``items_fts``, ``answers_fts``,
``statements_fts``), built by migration ``013_search``; each import adds its rows to it in its
own transaction (:func:`index_new_rows`), so an import is searchable as soon as it is
committed. A query is FTS5's syntax: words (all of them
must occur, in any order and matched by their stem), ``"a phrase"``, ``OR``, ``NOT``,
``prefix*``. Items are ranked by their best match (BM25).

What a match says is chosen by who asks: with ``reveal_sources`` an answer match names its
answer in the file frame (``A`` is the import's ``answer_a``) and its source model; without
it (a reviewer of a blind study, the review app) it names the answer as the reviewer sees it
(``A``: shown first) and never its source, which the file frame could give away too.
"""

from __future__ import annotations

import re
import secrets
import sqlite3
from collections.abc import Collection, Iterable
from dataclasses import dataclass

from medjudge import kinds

from .frames import to_display
from .items import order_for
from .migration_steps import SEARCHED
from .study import Study

SNIPPET_TOKENS = 16
"""Words around the match in a snippet (FTS5 allows up to 64)."""


def index_marks(conn: sqlite3.Connection) -> tuple[int, ...] | None:
    """The highest row id of each searched table (``SEARCHED``), before an import adds rows;
    None for a file without the index (a schema before ``013_search``, as tests build: the
    migration indexes every row when it comes)."""
    if not conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'items_fts'").fetchone():
        return None
    return tuple(
        int(conn.execute(f"SELECT coalesce(max(id), 0) FROM {table}").fetchone()[0])
        for table, _ in SEARCHED
    )


def index_new_rows(conn: sqlite3.Connection, marks: tuple[int, ...] | None) -> None:
    """Add the rows above ``marks`` (:func:`index_marks`) to the search index: one statement
    per table, in the caller's (the import's) transaction. Rows of these tables are only ever
    added, by imports, so this keeps the index complete."""
    if marks is None:
        return
    for (table, column), mark in zip(SEARCHED, marks, strict=True):
        conn.execute(
            f"INSERT INTO {table}_fts (rowid, {column}) "
            f"SELECT id, {column} FROM {table} WHERE id > ? ORDER BY id",
            (mark,),
        )


class BadQuery(ValueError):
    """The search text is not a query FTS5 can read (the message says why and what to do)."""


MAX_TERMS = 16
"""The most words, prefixes and phrases one query may hold. FTS5's work grows faster than the
number of terms (each prefix term is looked up and intersected with every other: 200 times
``a*`` took 34 s of CPU on 3,000 items), so a query is bounded here, after repeated terms of
a plain query (no operator) are dropped — all must occur, so a repeat adds nothing."""

_TOKEN = re.compile(r'"(?:[^"]|"")*"?|[()]|[^\s()"]+')
_OPERATORS = {"AND", "OR", "NOT", "NEAR"}


def bounded_query(query: str) -> str:
    """``query`` with repeated terms of a plain query dropped (first kept), refused beyond
    :data:`MAX_TERMS` terms.

    Raises:
        BadQuery: more than :data:`MAX_TERMS` terms.
    """
    tokens = _TOKEN.findall(query)
    plain = all(t not in _OPERATORS and t not in "()" and not t.startswith("NEAR(") for t in tokens)
    terms = [t for t in tokens if t not in _OPERATORS and t not in ("(", ")")]
    if plain:
        seen: set[str] = set()
        kept = []
        for t in terms:
            key = t.casefold()
            if key not in seen:
                seen.add(key)
                kept.append(t)
        terms = kept
        query = " ".join(kept)
    if len(terms) > MAX_TERMS:
        raise BadQuery(
            f"the search has {len(terms):,} terms; at most {MAX_TERMS} words, prefixes and "
            "phrases in one search (a longer one takes FTS5 minutes): search for fewer"
        )
    return query


@dataclass(frozen=True)
class Match:
    """One place of an item the query matched."""

    where: str
    """``question``, ``answer`` or ``statement``."""
    position: str | None
    """An answer's letter or role (``A``, ``B``, ``answer``, ``explanation``), a statement's
    0-based position as text; None for the question."""
    frame: str | None
    """For ``A``/``B``: ``file`` (the import's letters) or ``display`` (as the reviewer sees
    them); None otherwise."""
    parts: tuple[tuple[str, bool], ...]
    """The snippet as (text, matched) pieces, verbatim from the study: untrusted text."""
    source: str | None = None
    """The answer's source model, only when the asker may know it."""
    entry: int | None = None
    """A listed entry's number on its item (from 1, as the review app numbers them)."""
    entry_name: str = "statement"
    """What the item's kind calls a listed entry (``statement``, ``sub-question``)."""

    @property
    def snippet(self) -> str:
        """The snippet's text."""
        return "".join(text for text, _ in self.parts)

    @property
    def marks(self) -> list[tuple[int, int]]:
        """Where the matched words are in :attr:`snippet` (start, end), in characters."""
        found, at = [], 0
        for text, matched in self.parts:
            if matched:
                found.append((at, at + len(text)))
            at += len(text)
        return found

    @property
    def label(self) -> str:
        """Where it matched, for people: ``question``, ``answer A``, ``statement 3`` (1-based)."""
        if self.where == "question":
            return "question"
        if self.where == "statement":
            return f"{self.entry_name} {self.entry if self.entry is not None else '?'}"
        if self.position is not None and len(self.position) == 1:
            return f"answer {self.position}"
        return self.position or self.where


@dataclass(frozen=True)
class Hit:
    """An item that matched, with every place it matched (best first)."""

    item_id: int
    ext_id: str
    kind: str
    matches: tuple[Match, ...]


@dataclass(frozen=True)
class Found:
    """The items shown (at most the limit, best first) and how many matched in all."""

    hits: list[Hit]
    total: int


_RANKED = """
WITH m(item_id, rank) AS (
    SELECT rowid, bm25(items_fts) FROM items_fts WHERE items_fts MATCH :q
    UNION ALL
    SELECT a.item_id, bm25(answers_fts) FROM answers_fts JOIN answers a ON a.id = answers_fts.rowid
    WHERE answers_fts MATCH :q
    UNION ALL
    SELECT s.item_id, bm25(statements_fts) FROM statements_fts
    JOIN statements s ON s.id = statements_fts.rowid WHERE statements_fts MATCH :q
)
SELECT item_id, min(rank) AS best, count(*) OVER () AS total FROM m
WHERE :within IS NULL OR item_id IN (SELECT value FROM json_each(:within))
GROUP BY item_id ORDER BY best, item_id LIMIT :limit
"""

_PLACES = """
SELECT i.id AS item_id, 'question' AS place, NULL AS position, NULL AS source,
       snippet(items_fts, 0, :open, :close, '…', :tokens) AS snippet, bm25(items_fts) AS rank,
       NULL AS entry
FROM items_fts JOIN items i ON i.id = items_fts.rowid
WHERE items_fts MATCH :q AND i.id IN (SELECT value FROM json_each(:ids))
UNION ALL
SELECT a.item_id, 'answer', a.position, a.source,
       snippet(answers_fts, 0, :open, :close, '…', :tokens), bm25(answers_fts), NULL
FROM answers_fts JOIN answers a ON a.id = answers_fts.rowid
WHERE answers_fts MATCH :q AND a.item_id IN (SELECT value FROM json_each(:ids))
UNION ALL
SELECT s.item_id, 'statement', s.position, NULL,
       snippet(statements_fts, 0, :open, :close, '…', :tokens), bm25(statements_fts),
       1 + (SELECT count(*) FROM statements t WHERE t.item_id = s.item_id
            AND t.position < s.position)
FROM statements_fts JOIN statements s ON s.id = statements_fts.rowid
WHERE statements_fts MATCH :q AND s.item_id IN (SELECT value FROM json_each(:ids))
ORDER BY rank
"""


def search(
    study: Study,
    query: str,
    *,
    limit: int = 20,
    within: Collection[int] | None = None,
    reveal_sources: bool = False,
    reviewer: str | None = None,
) -> Found:
    """The items whose question, answers or listed entries match ``query``, best first.

    Args:
        query: FTS5 query text.
        limit: at most this many items (at least 1).
        within: only these item ids (a reviewer's queue); None: every item.
        reveal_sources: name answers in the file frame with their source (leads, adjudicators,
            a study that is not blind); otherwise in the display frame, without source.
        reviewer: whose display frame (``settings --order per-reviewer``: each reviewer's own
            order); None: the item's own order.

    Raises:
        BadQuery: the text is empty or not a valid FTS5 query.
        ValueError: ``limit`` below 1.
    """
    if limit < 1:
        raise ValueError(f"limit must be at least 1, not {limit}")
    if not query.strip():
        raise BadQuery("the search text is empty: give a word to look for")
    query = bounded_query(query)
    conn = study.conn
    within_json = None if within is None else "[" + ",".join(str(int(i)) for i in within) + "]"
    try:
        ranked = conn.execute(
            _RANKED, {"q": query, "within": within_json, "limit": limit}
        ).fetchall()
        if not ranked:
            return Found([], 0)
        ids = [int(r["item_id"]) for r in ranked]
        # Markers no study text contains: a fresh random token per search.
        token = secrets.token_hex(8)
        open_, close = f"\ue000{token}\ue001", f"\ue002{token}\ue003"
        places = conn.execute(
            _PLACES,
            {
                "q": query,
                "ids": "[" + ",".join(map(str, ids)) + "]",
                "open": open_,
                "close": close,
                "tokens": SNIPPET_TOKENS,
            },
        ).fetchall()
        items = {
            int(r["id"]): r
            for r in conn.execute(
                "SELECT id, ext_id, kind, shown_order FROM items "
                "WHERE id IN (SELECT value FROM json_each(?))",
                ("[" + ",".join(map(str, ids)) + "]",),
            )
        }
    except sqlite3.OperationalError as exc:
        raise _bad_query(query, exc) from None
    by_item: dict[int, list[Match]] = {i: [] for i in ids}
    for r in places:
        item = items[int(r["item_id"])]
        by_item[int(r["item_id"])].append(
            _match(
                r,
                item["kind"],
                order_for(
                    study.settings, reviewer, item["kind"], item["ext_id"], item["shown_order"]
                ),
                open_,
                close,
                reveal_sources,
            )
        )
    hits = [
        Hit(i, items[i]["ext_id"], items[i]["kind"], tuple(by_item[i])) for i in ids if i in items
    ]
    return Found(hits, int(ranked[0]["total"]))


def _match(
    row: sqlite3.Row, kind: str, order: str | None, open_: str, close: str, reveal_sources: bool
) -> Match:
    position = row["position"]
    frame = None
    if row["place"] == "answer" and position is not None and len(position) == 1:
        frame = "file"
        if not reveal_sources:
            frame = "display"
            # the reader's display order (store.items.order_for)
            position = to_display(position, order)
    return Match(
        where=row["place"],
        position=None if position is None else str(position),
        frame=frame,
        parts=tuple(_pieces(row["snippet"] or "", open_, close)),
        source=row["source"] if reveal_sources else None,
        entry=row["entry"],
        entry_name=kinds.get(kind).listed_name,
    )


def _pieces(snippet: str, open_: str, close: str) -> Iterable[tuple[str, bool]]:
    """Split FTS5's snippet at the markers into (text, matched) pieces."""
    for n, chunk in enumerate(snippet.split(open_)):
        if n == 0:
            if chunk:
                yield chunk, False
            continue
        inside, _, after = chunk.partition(close)
        if inside:
            yield inside, True
        if after:
            yield after, False


def _bad_query(query: str, exc: sqlite3.OperationalError) -> Exception:
    text = str(exc)
    if text.startswith("unknown special query"):  # FTS5's "*" or "*x": a prefix of nothing
        return BadQuery(
            f"search text {query!r} is not a query medjudge can read: a * ends a word's "
            "beginning, as in antibiot*; it cannot stand alone or begin a word"
        )
    if text.startswith("fts5:") or "unterminated string" in text or "no such column" in text:
        return BadQuery(
            f"search text {query!r} is not a query medjudge can read ({text}): give words "
            '(all must occur), "a phrase" in double quotes, OR, NOT, or a prefix* — and put a '
            'word with - : or other punctuation in double quotes, e.g. "covid-19"'
        )
    return exc
