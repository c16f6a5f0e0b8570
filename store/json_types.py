"""Names for JSON documents that medjudge stores or sends as they are.

A judge's configuration, a call's parameters, a provider request body, a JSON schema, a
verdict's trail, an item's metadata, an exported row: each is a JSON object whose shape is set
by its producer (and by the provider, for what comes back), kept as plain ``dict``s so they
round-trip byte for byte. Records medjudge itself reasons about are typed (dataclasses,
``TypedDict``s, pydantic models); these are the documents they carry.
"""

from __future__ import annotations

from typing import Any, TypeAlias

JsonObject: TypeAlias = dict[str, Any]
"""A JSON object as stored or sent (keys are strings; values any JSON value)."""
