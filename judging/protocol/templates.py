"""Prompt templates: versioned files in ``prompts/``, rendered with ``$placeholders``.

A template file has comment lines (``#``), then ``=== system`` and ``=== user`` sections.
Substitution is single-pass (:class:`string.Template`), so text from the data that happens to
contain ``$name`` is never expanded. The template's hash (SHA-256 of the file) is part of
every cache key, so editing a template never reuses calls made with the old wording.
"""

from __future__ import annotations

import hashlib
import importlib.resources
import string
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from medjudge import kinds
from medjudge.store.bounded import MAX_TEMPLATE_BYTES, TooLarge, read_at_most

_PROMPTS = {
    p.task: p for kind in kinds.KINDS.values() if kind.judge is not None for p in kind.judge.prompts
}
TEMPLATES = {task: p.file for task, p in _PROMPTS.items()}
"""Task → the template file (without ``.txt``) this version of medjudge uses (from the
kinds' judge plans)."""

PLACEHOLDERS: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    task: (p.needs, p.may) for task, p in _PROMPTS.items()
}
"""Task → (placeholders a template for it must carry, placeholders it may carry). A judge
cannot answer without the item's text and the reply keys its parser reads; context passages
and the correct option are optional."""


class TemplateError(Exception):
    """A template file is malformed."""


@dataclass(frozen=True)
class Template:
    """A loaded prompt template."""

    name: str
    text: str
    system: str
    user: str

    @property
    def hash(self) -> str:
        """SHA-256 of the template file (first 16 hex digits are plenty to tell versions apart)."""
        return hashlib.sha256(self.text.encode()).hexdigest()[:16]

    def render(self, **values: str) -> tuple[str, str]:
        """The system and user messages with every placeholder filled.

        Raises:
            TemplateError: a placeholder was left without a value.
        """
        try:
            system = string.Template(self.system).substitute(values)
            user = string.Template(self.user).substitute(values)
        except (KeyError, ValueError) as exc:
            raise TemplateError(f"template {self.name}: no value for placeholder {exc}") from None
        return system, user


def parse_template(name: str, text: str) -> Template:
    """Split a template file into its system and user parts."""
    sections: dict[str, list[str]] = {}
    current: str | None = None
    for line in text.splitlines():
        if line.startswith("=== "):
            current = line[4:].strip()
            sections[current] = []
        elif current is None:
            if line.strip() and not line.startswith("#"):
                raise TemplateError(f"template {name}: text before the first '=== section'")
        else:
            sections[current].append(line)
    if set(sections) != {"system", "user"}:
        raise TemplateError(f"template {name}: needs exactly '=== system' and '=== user' sections")
    return Template(
        name, text, "\n".join(sections["system"]).strip(), "\n".join(sections["user"]).strip()
    )


@cache
def load(task: str) -> Template:
    """The template this version uses for a task (``pairwise``, ``nli``, …)."""
    name = TEMPLATES[task]
    text = (importlib.resources.files("medjudge.prompts") / f"{name}.txt").read_text(
        encoding="utf-8"
    )
    return parse_template(name, text)


def check_placeholders(template: Template, task: str, where: str) -> None:
    """Refuse a template that lacks a placeholder its task needs or has one it cannot fill.

    Raises:
        TemplateError: naming ``where`` (the file) and the first problem found.
    """
    required, optional = PLACEHOLDERS[task]
    found: set[str] = set()
    for part, text in (("system", template.system), ("user", template.user)):
        t = string.Template(text)
        if not t.is_valid():
            raise TemplateError(
                f"{where}: the {part} section has a '$' that is not a placeholder "
                "(write $$ for a dollar sign, $name or ${name} for a placeholder)"
            )
        found.update(t.get_identifiers())
    missing = sorted(required - found)
    if missing:
        raise TemplateError(
            f"{where}: a template for {task} needs the placeholder ${missing[0]}"
            + (f" (also missing: {', '.join('$' + m for m in missing[1:])})" if missing[1:] else "")
        )
    unknown = sorted(found - required - optional)
    if unknown:
        known = ", ".join("$" + n for n in sorted(required | optional))
        raise TemplateError(
            f"{where}: a template for {task} has no value for ${unknown[0]} (placeholders: {known})"
        )


def read_template(path: Path, task: str) -> Template:
    """A custom template file (``judge --prompt``) for one task, checked.

    Its name is the file's stem; its hash covers the file's text, so it is its own judge
    version.

    Raises:
        TemplateError: unreadable, malformed, or missing a placeholder; the message names
            the file.
    """
    if task not in PLACEHOLDERS:
        raise TemplateError(f"{path}: unknown task {task!r} (use one of {', '.join(PLACEHOLDERS)})")
    try:
        text = read_at_most(path, MAX_TEMPLATE_BYTES).decode("utf-8")
    except UnicodeDecodeError:
        raise TemplateError(f"{path}: not UTF-8 text") from None
    except TooLarge as exc:
        raise TemplateError(f"{path}: {exc}") from None
    except OSError as exc:
        raise TemplateError(f"{path}: cannot read the template ({exc.strerror})") from None
    try:
        template = parse_template(path.stem, text)
    except TemplateError as exc:
        raise TemplateError(f"{path}: {str(exc).split(': ', 1)[-1]}") from None
    check_placeholders(template, task, str(path))
    return template
