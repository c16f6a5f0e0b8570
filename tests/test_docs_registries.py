"""The docs that list the registries' entries are generated from them (scripts/gen_docs.py):
the figures table of docs/statistics.md from ``FIGURES`` and their notes, the guide's table of
judge specs and the README's providers from the provider ``REGISTRY``; ``judge -j``'s help is
built from the registry when the command is imported. A figure or a provider added to a
registry but not to the docs makes ``gen_docs.py --check`` fail."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from types import ModuleType

import pytest
import typer.main

from medjudge.cli import build_app
from medjudge.commands.judge_options import judge_spec_help
from medjudge.judging.llm import provider_registry
from medjudge.judging.llm.provider_registry import REGISTRY, ProviderEntry, entries
from medjudge.judging.stats import figure_notes, figures
from medjudge.judging.stats.figures import FIGURES, Figure

from .support.paths import REPO


@pytest.fixture(scope="module")
def gen_docs() -> Iterator[ModuleType]:
    sys.path.insert(0, str(REPO / "scripts"))
    try:
        import gen_docs
    finally:
        sys.path.remove(str(REPO / "scripts"))
    yield gen_docs


def _committed(gen_docs: ModuleType, path_name: str, start: str, end: str) -> str:
    text: str = getattr(gen_docs, path_name).read_text(encoding="utf-8")
    begin: str = getattr(gen_docs, start)
    stop: str = getattr(gen_docs, end)
    return text[text.index(begin) + len(begin) : text.index(stop)]


def test_every_figure_has_a_note_and_a_row(gen_docs: ModuleType) -> None:
    assert set(figure_notes.NOTES) == {(f.group, f.key) for f in FIGURES}
    table = _committed(gen_docs, "STATISTICS_MD", "FIGURES_START", "FIGURES_END")
    assert table == gen_docs.figures_table()
    rows = [line for line in table.splitlines() if line.startswith("| ") and "`" in line]
    assert len(rows) == len(FIGURES)
    for row, f in zip(rows, FIGURES, strict=True):
        assert row.startswith(f"| {f.label} | `{f.key}` |"), row


def test_a_new_figure_makes_the_table_stale(
    gen_docs: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    new = Figure("made_up_kappa", "Made-up κ", "two", "wilson", percent=True)
    monkeypatch.setattr(figures, "FIGURES", (*FIGURES, new))
    with pytest.raises(SystemExit, match="no note for two:made_up_kappa"):
        gen_docs.figures_table()
    monkeypatch.setitem(figure_notes.NOTES, ("two", "made_up_kappa"), ("its formula", "its n"))
    table = gen_docs.figures_table()
    assert "| Made-up κ | `made_up_kappa` | two raters |" in table
    assert table != _committed(gen_docs, "STATISTICS_MD", "FIGURES_START", "FIGURES_END")


def test_every_provider_describes_itself() -> None:
    for entry in entries():
        assert entry.title and entry.about, entry.name
        assert all(form.startswith(f"{entry.name}:") for form in entry.spec_forms), entry.name


def test_judge_help_names_every_provider() -> None:
    root = typer.main.get_command(build_app())
    ctx = root.context_class(root, info_name="medjudge", terminal_width=1000)
    judge = root.get_command(ctx, "judge")  # type: ignore[attr-defined]
    (option,) = [p for p in judge.params if "--judge" in p.opts]
    for entry in entries():
        for form in entry.spec_forms:
            assert form in option.help, form


def test_the_docs_list_every_provider(gen_docs: ModuleType) -> None:
    table = _committed(gen_docs, "GUIDE_MD", "PROVIDERS_START", "PROVIDERS_END")
    assert table == gen_docs.provider_table()
    names = _committed(gen_docs, "README_MD", "NAMES_START", "NAMES_END")
    assert names == gen_docs.provider_names()
    for entry in entries():
        assert all(f"`{form}`" in table for form in entry.spec_forms), entry.name
        assert entry.title in names


def test_a_new_provider_makes_the_docs_stale(
    gen_docs: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    acme = ProviderEntry(
        "acme",
        "openai",
        key_env="ACME_API_KEY",
        base_url="https://api.acme.invalid/v1",
        client=provider_registry.openai_client,
        batch=False,
        prices="unknown",
        title="Acme",
        about="Acme's OpenAI-compatible API (`ACME_API_KEY`)",
    )
    monkeypatch.setitem(REGISTRY, "acme", acme)
    assert "acme:MODEL" in judge_spec_help()
    table = gen_docs.provider_table()
    assert "| `acme:MODEL` | Acme's OpenAI-compatible API (`ACME_API_KEY`) |" in table
    assert table != _committed(gen_docs, "GUIDE_MD", "PROVIDERS_START", "PROVIDERS_END")
    assert gen_docs.provider_names().endswith(" or Acme")
