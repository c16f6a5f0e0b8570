"""The study handle: one open SQLite file with its settings.

A :class:`Study` owns one connection. Functions in the other ``store`` modules take a Study
and do their own transactions through :meth:`Study.tx`. The settings document is cached and
re-read when another process changed it (``data_version`` tells).
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from pydantic import ValidationError

from .db import StudyConnection, StudyError, check_pages, connect, transaction
from .json_types import JsonObject
from .migrations import check_schema, migrate
from .people import person_name
from .settings import StudySettings


def utcnow() -> str:
    """The current UTC time as an ISO-8601 string with microseconds and a ``Z``."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def dumps(value: object) -> str:
    """Compact, stable JSON for storage: every JSON text a study holds is written here.

    Only real JSON: ``NaN`` and ``Infinity`` raise ValueError instead of being written as
    Python spells them, which SQLite's JSON functions reject (what comes from outside is
    refused before it gets here, e.g. an import row, with its file, line and field).
    """
    return json.dumps(
        value, ensure_ascii=False, sort_keys=True, separators=(",", ":"), allow_nan=False
    )


class Study:
    """An open study file."""

    def __init__(self, path: Path, conn: sqlite3.Connection) -> None:
        """Wrap an open connection; use :meth:`open` or :meth:`create` instead."""
        self.path = path
        self.conn = conn
        self._old_conns: list[sqlite3.Connection] = []
        """Connections :meth:`refresh` replaced (an item's paged lists may still read through
        one); closed with the study."""
        self._reopened = 0
        self._settings: StudySettings | None = None
        self._settings_text: str | None = None
        """The settings document as stored when last read or written (compared on a poll)."""
        self._rater_ids: dict[str, int] = {}

    @classmethod
    def create(
        cls,
        path: str | os.PathLike[str],
        settings: StudySettings | None = None,
        *,
        actor: str = "system",
    ) -> Study:
        """Create a new study file.

        Raises:
            StudyError: the file exists already.
        """
        p = Path(path)
        if p.exists():
            raise StudyError(f"{p}: a file exists there already")
        conn = connect(p, create=True)
        try:
            migrate(conn, p)
            study = cls(p, conn)
            study.save_settings(settings or StudySettings(name=p.stem), actor=actor)
        except BaseException:
            conn.close()
            for suffix in ("", "-wal", "-shm"):
                Path(str(p) + suffix).unlink(missing_ok=True)
            raise
        return study

    @classmethod
    def open(cls, path: str | os.PathLike[str], *, check: bool = False) -> Study:
        """Open an existing study, migrating an older schema.

        With ``check``, every page is checked first (:func:`~medjudge.store.db.check_pages`):
        what commands that write do, so a damaged file is never written to.

        Raises:
            StudyError: missing, not a study, damaged, or from a newer medjudge.
        """
        p = Path(path)
        if p.is_dir():
            raise StudyError(f"{p}: is a folder, not a study file")
        conn = connect(p)
        try:
            if check:
                check_pages(conn, p)
            migrate(conn, p)
            check_schema(conn, p)
            study = cls(p, conn)
            study.settings  # noqa: B018 - validate now, not in the middle of a review
        except sqlite3.DatabaseError as exc:
            conn.close()
            raise StudyError(f"{p}: not a medjudge study or damaged ({exc})") from None
        except BaseException:
            conn.close()
            raise
        return study

    @classmethod
    def create_complete(
        cls,
        path: str | os.PathLike[str],
        settings: StudySettings | None = None,
        *,
        actor: str = "system",
        fill: Callable[[Study], object] | None = None,
    ) -> Study | None:
        """Create a study at ``path`` that nobody sees half made: it is built in a temporary
        file beside ``path`` (its schema, settings and whatever ``fill`` adds: a first import,
        the lead's role), then put in place in one step, a hard link that fails when a file is
        already there.

        Returns:
            The study, open at ``path``; None when another process put a study there first
            (nothing of this one is kept: open that one).

        Raises:
            StudyError: as :meth:`create`; whatever ``fill`` raises, with nothing left at
                ``path`` or beside it.
        """
        p = Path(path)
        if p.exists():
            return None
        tmp = p.with_name(f".{p.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.new")
        settings = settings or StudySettings(name=p.stem)
        try:
            try:
                study = cls.create(tmp, settings, actor=actor)
            except StudyError as exc:  # named for the path asked for, not the temporary one
                raise StudyError(str(exc).replace(str(tmp), str(p))) from None
            try:
                if fill is not None:
                    fill(study)
                study.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # all in the main file
            finally:
                study.close()
            try:
                os.link(tmp, p)
            except FileExistsError:
                return None
            except OSError:  # a file system without hard links: exclusive creation instead
                if p.exists():
                    return None
                os.replace(tmp, p)
        finally:
            for suffix in ("", "-wal", "-shm", "-journal"):
                with contextlib.suppress(OSError):  # a read-only file system refuses even that
                    Path(str(tmp) + suffix).unlink(missing_ok=True)
        return cls.open(p)

    def close(self) -> None:
        """Close the connection (the WAL is checkpointed by SQLite when the last one closes)."""
        for old in self._old_conns:
            old.close()
        self.conn.close()

    @property
    def read_only(self) -> str | None:
        """Why this login cannot write the study (None: it can): decided when it was opened
        (:func:`~medjudge.store.access.unwritable`); every write is refused with it."""
        return self.conn.read_only if isinstance(self.conn, StudyConnection) else None

    def refresh(self) -> bool:
        """Reopen a study that was read as it is (``immutable``: it had no ``-wal``) once a
        writer has opened it (its ``-wal`` appeared), reading through the writer's files from
        then on: an immutable connection would never see the writer's changes. True when it
        reopened. Cheap (one ``stat``) otherwise."""
        conn = self.conn
        if not (isinstance(conn, StudyConnection) and conn.immutable):
            return False
        if not os.path.exists(f"{self.path}-wal"):
            return False
        try:
            new = connect(self.path)
        except StudyError:
            return False  # caught between the writer's -wal and -shm: the next call sees both
        if new.immutable:  # the same (an empty -wal left without its -shm)
            new.close()
            return False
        self.conn = new
        self._old_conns.append(conn)
        self._reopened += 1
        self._settings = None
        return True

    def __enter__(self) -> Study:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def tx(self) -> Iterator[sqlite3.Connection]:
        """One write transaction (``BEGIN IMMEDIATE``); rolled back on any error."""
        try:
            with transaction(self.conn, self.path):
                yield self.conn
        except BaseException:
            self._rater_ids.clear()  # a rater created in the rolled-back transaction is gone
            raise

    # -- settings ---------------------------------------------------------------------------
    @property
    def settings(self) -> StudySettings:
        """The study's settings (validated)."""
        if self._settings is None:
            text = self._stored_settings()
            if text is None:
                raise StudyError(f"{self.path}: the study has no settings (damaged file?)")
            try:
                self._settings = StudySettings.model_validate_json(text)
            except ValidationError as exc:
                raise StudyError(f"{self.path}: the study's settings are invalid: {exc}") from None
            self._settings_text = text
        return self._settings

    def _stored_settings(self) -> str | None:
        row = self.conn.execute(
            "SELECT value FROM study_settings WHERE key = 'settings'"
        ).fetchone()
        return None if row is None else str(row[0])

    def reload(self) -> None:
        """Forget cached settings so the next access reads the file again."""
        self._settings = None

    def settings_changed(self) -> bool:
        """Whether another process changed the settings (guidelines too) since they were read;
        if so the next access reads them again. One indexed row compared as text, nothing
        parsed: cheap on every poll (a judge run commits several times a second)."""
        if self._settings is None:
            return False
        text = self._stored_settings()
        if text is None or text == self._settings_text:
            return False
        self._settings = None
        return True

    def save_settings(self, settings: StudySettings, *, actor: str) -> None:
        """Replace the settings document, recording old and new in the audit trail."""
        new = settings.model_dump_json()
        with self.tx() as conn:
            row = conn.execute("SELECT value FROM study_settings WHERE key = 'settings'").fetchone()
            conn.execute(
                "INSERT INTO study_settings (key, value) VALUES ('settings', ?) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (new,),
            )
            audit(conn, actor, "settings", "study", row[0] if row else None, new)
        self._settings, self._settings_text = settings, new

    # -- raters -----------------------------------------------------------------------------
    def rater_id(
        self,
        name: str,
        kind: str = "human",
        config: JsonObject | None = None,
        *,
        conn: sqlite3.Connection | None = None,
    ) -> int:
        """The id of a rater, creating the rater row on first use.

        Pass ``conn`` when already inside a transaction. The name is normalised
        (:func:`~medjudge.store.people.person_name`).
        """
        name = person_name(name, "rater name")
        if name in self._rater_ids:
            return self._rater_ids[name]
        c = conn or self.conn
        row = c.execute("SELECT id, kind FROM raters WHERE name = ?", (name,)).fetchone()
        if row is None:
            if conn is None:
                with self.tx() as tc:
                    return self.rater_id(name, kind, config, conn=tc)
            c.execute(
                "INSERT OR IGNORE INTO raters (name, kind, config, created_at) VALUES (?, ?, ?, ?)",
                (name, kind, dumps(config or {}), utcnow()),
            )
            row = c.execute("SELECT id, kind FROM raters WHERE name = ?", (name,)).fetchone()
        if row["kind"] != kind:
            raise StudyError(f"rater {name!r} is a {row['kind']}, not a {kind}")
        self._rater_ids[name] = int(row["id"])
        return int(row["id"])

    def raters(self, kind: str | None = None) -> list[sqlite3.Row]:
        """All raters (optionally of one kind), by name."""
        if kind is None:
            return list(self.conn.execute("SELECT * FROM raters ORDER BY name"))
        return list(self.conn.execute("SELECT * FROM raters WHERE kind = ? ORDER BY name", (kind,)))

    def data_version(self) -> int:
        """SQLite's ``data_version``: changes when another connection committed a write (or
        when :meth:`refresh` reopened the study: a writer appeared)."""
        self.refresh()
        version = int(self.conn.execute("PRAGMA data_version").fetchone()[0])
        return (self._reopened << 32) + version


def audit(
    conn: sqlite3.Connection, actor: str, action: str, entity: str, old: str | None, new: str | None
) -> None:
    """Append one row to the audit trail (call inside a transaction)."""
    conn.execute(
        "INSERT INTO audit (at, actor, action, entity, old, new) VALUES (?, ?, ?, ?, ?, ?)",
        (utcnow(), actor, action, entity, old, new),
    )
