"""Judge versions: from a run's judge configurations to the study's version raters.

A version is provider + model + endpoint + the templates' hashes + the parameters (samples,
temperature, max tokens, statements protocol); a panel is its members' versions + its rule.
Storage and naming rules: :mod:`medjudge.store.judge_versions`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from medjudge.judging.protocol.plan import JudgeConfig, identity_key
from medjudge.store.judge_versions import VersionError, VersionSpec, register_version, version_name
from medjudge.store.study import Study

__all__ = ["VersionError", "judge_version", "name_versions", "panel_version", "register_judges"]


def judge_version(judge: JudgeConfig) -> VersionSpec:
    """The stored identity of one judge configuration."""
    return VersionSpec(
        key=judge.version_key(),
        spec=judge.spec_name,
        templates=judge.templates(),
        params=judge.params(),
        config=judge.describe(),
    )


def panel_version(members: Sequence[str], member_keys: Sequence[str], rule: str) -> VersionSpec:
    """The stored identity of a panel of judge versions under a rule."""
    return VersionSpec(
        key=identity_key({"panel": list(member_keys), "rule": rule}),
        spec="panel",
        params={"rule": rule},
        members=tuple(members),
        config={"panel": list(members), "rule": rule},
    )


def name_versions(study: Study, judges: Sequence[JudgeConfig]) -> list[JudgeConfig]:
    """The judges with the names their versions have or would get (read only: dry runs).

    Raises:
        VersionError: a ``--name`` that cannot be used (see the store).
    """
    return [
        dataclasses.replace(j, name=version_name(study, judge_version(j), j.name)) for j in judges
    ]


def register_judges(
    study: Study, judges: Sequence[JudgeConfig], *, actor: str
) -> list[JudgeConfig]:
    """Register every judge's version in the study; returns the judges with their names.

    Two configurations of one version in a run count once.

    Raises:
        VersionError: a ``--name`` that cannot be used (see the store).
    """
    out: dict[str, JudgeConfig] = {}
    for j in judges:
        key = j.version_key()
        if key in out:
            continue
        name = register_version(study, judge_version(j), j.name, actor=actor)
        out[key] = dataclasses.replace(j, name=name)
    return list(out.values())
