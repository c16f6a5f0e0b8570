"""Panels of judge versions (docs/design.md §3 rule 5), kept in step with their members.

A panel is a judge version of its own (members' versions + rule, see :mod:`.versions`). Its
verdicts are derived from its members' *current stored* verdicts, so whenever a run writes
verdicts of a version, every stored panel that counts that version among its members is
recomputed over the run's items too: a panel never stays stale after one member is re-run
(e.g. ``--retry-failed`` filled a missing verdict). Unchanged verdicts add no rows.
"""

from __future__ import annotations

from collections.abc import Sequence

from medjudge import kinds
from medjudge.judging.protocol.plan import JudgeConfig
from medjudge.judging.protocol.versions import panel_version
from medjudge.kinds import votes
from medjudge.store.items import Item
from medjudge.store.judge_versions import list_versions, register_version
from medjudge.store.judgments import NewVerdict, latest_verdicts, write_verdicts
from medjudge.store.study import Study


def panel_verdicts(
    study: Study, items: Sequence[Item], members: Sequence[str], rule: str
) -> list[NewVerdict]:
    """A panel's verdicts on the units of some items, from its members' current verdicts.

    Units where a member has no verdict yet are left out, and items of a kind without panels
    (rating). A split settles as the kind says (:meth:`kinds.base.Kind.panel_null`).
    """
    current = {m: latest_verdicts(study, m) for m in members}
    out: list[NewVerdict] = []
    for it in items:
        kind = kinds.get(it.kind)
        if kind.judge is None or not kind.judge.panel:
            continue
        for unit in it.units:
            if any(unit.id not in current[m] for m in members):
                continue
            values = [current[m][unit.id] for m in members]
            given = [v for v in values if v is not None]
            criterion = study.settings.criterion(unit.criterion)
            null = kind.panel_null(it, unit, criterion, given) if given else ""
            result = votes.panel(values, null, rule)
            trail = {
                "protocol": f"panel ({rule})",
                "members": dict(zip(members, values, strict=True)),
                "verdict": result.verdict,
                "rule": result.rule,
                "judges_disagreed": result.disagreed,
            }
            out.append(NewVerdict(unit.id, result.verdict, "", trail))
    return out


def update_panels(
    study: Study,
    judges: Sequence[JudgeConfig],
    items: Sequence[Item],
    rule: str,
    *,
    run_id: int | None,
    actor: str,
) -> tuple[list[str], int]:
    """Form this run's panel (two or more judges) and recompute every stored panel with a
    member among ``judges``, over ``items``.

    Returns:
        The names of the panels written and the number of verdict rows added.
    """
    panels: dict[str, tuple[tuple[str, ...], str]] = {}
    if len(judges) >= 2:
        names = [j.rater for j in judges]
        version = panel_version(names, [j.version_key() for j in judges], rule)
        name = register_version(study, version, actor=actor)
        panels[name] = (tuple(names), rule)
    ran = {j.rater for j in judges}
    for v in list_versions(study):
        if v.is_panel and v.name not in panels and ran & set(v.members):
            panels[v.name] = (v.members, str(v.params.get("rule", "conservative")))
    added = 0
    for name, (members, panel_rule) in panels.items():
        out = panel_verdicts(study, items, members, panel_rule)
        added += write_verdicts(study, name, {}, out, run_id=run_id, actor=actor)
    return list(panels), added
