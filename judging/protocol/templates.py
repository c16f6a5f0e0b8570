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

TEMPLATES = {
    "pairwise": "pairwise_v1",
    "nli": "nli_v1",
    "kqa_entails": "kqa_entails_v1",
    "kqa_contradicts": "kqa_contradicts_v1",
    "rating": "rating_v1",
}
"""Task → the template file (without ``.txt``) this version of medjudge uses."""


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
