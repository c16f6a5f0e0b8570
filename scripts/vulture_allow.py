"""Names vulture (``make vulture``, ``tests/test_dead_code.py``) would call unused that are used
where it cannot see: by a library (Textual, pydantic, sqlite3, http.server, xllamacpp), by the
report's Jinja2 templates or its JSON, by typer through ``medjudge.cli.COMMANDS``, as the keys
of a TypedDict or the fields of a row. Vulture matches names, not places: each line below makes
its name count as used everywhere, so a line is added only with its reason.

The patterns (Textual's ``compose``, ``on_*``, ``action_*`` and ``watch_*``, pytest's hooks) and
the decorators (Textual's ``@on`` and ``@work``, fixtures, pydantic's validators) are in
pyproject.toml's ``[tool.vulture]``. This file is read by vulture only, never imported.
"""

from __future__ import annotations


class _Used:
    """Any attribute of it: a name vulture counts as used."""

    def __getattr__(self, name: str) -> _Used:
        return self


_ = _Used()

# Python calls a module's __getattr__ (medjudge.__version__, medjudge.cli.app, the providers)
_.__getattr__

# Textual reads these class attributes and calls these methods of its apps, screens, widgets
_.CSS
_.CSS_PATH
_.DEFAULT_CSS
_.TITLE
_.ENABLE_COMMAND_PALETTE
_.AUTO_FOCUS
_.HORIZONTAL_BREAKPOINTS
_.VERTICAL_BREAKPOINTS
_.ALLOW_MAXIMIZE
_.can_focus
_.cursor_blink
_.animation_level
_.highlighted
_._disabled  # what Textual's click on a footer key checks (tui/textual_private.py)
_.bell  # tests/test_textual_private.py: Textual rings it on a click on a disabled footer key
_._on_key  # tests/test_textual_private.py: a handler the private-API check must refuse
_.get_default_screen
_.get_selection
_.selection_updated
_.container  # the parameters of Widget.get_content_height, which Textual passes
_.viewport
_.revision  # a reactive the review screen only sets: Textual then calls its watch_revision

# typer: the commands, registered by name from medjudge.cli.COMMANDS (one module per command)
_.init
_.import_
_.doctor
_.requeue
# typer: --version is handled by its callback; the parameter only declares the option
_.show_version
# typer: values of a command's enum option (chosen by their value on the command line)
_.assignments  # export TABLE
_.plurality  # judge --panel-rule
# click calls this override when it writes a command's help (medjudge/commands/help_names.py)
_.format_options

# textual-serve's AppService calls this override (medjudge/serve/sessions.py)
_._open_app_process

# pydantic reads a model's configuration
_.model_config

# the report's Jinja2 templates (judging/report/templates/) call these helpers and read these
# notes, and the report's JSON holds these fields of its models
_.criterion_lines
_.criterion_title
_.exclusions_line
_.retired_line
_.consensus_line
_.per_item_note
_.consensus_accuracy
_.per_item_reviewers
_.per_item_judges
_.rubric_graders
_.rubric_coverage
_.medrgb_abstentions
_.alt_test_physicians
_.alt_test_lines
_.ALT_TEST_NOTE
_.ALT_TEST_PLAN_NOTE
_.RUBRIC_NOTE
_.MEDRGB_NOTE
_.ANCHORING_NOTE
_.GOLD_NOTE
_.CONSENSUS_NOTE
_.rotate  # the SVG chart shapes' attributes, written out by the chart templates
_.middle
_.stroke
_.stroke_width
_.opacity
_.y2
_.methods
_.voting_rules
_.blind_review
_.categories_extra
_.definition
_.definitions
_.adjudicated_total
_.benefit
_.generated_at
_.medjudge_version
_.slice_by
_.slice_value
_.reference_outside_sample
_.questions_all
_.must_have
_.predictions
_.same_source_skipped
_.projected_range_s

# keys of TypedDicts, read by their string (a judge call's row, a disagreement's judge)
_.error_kind
_.error_status
_.failed_raw
_.rationale_frame
# fields of records built from a whole database row (Batch(**row), Lease(*row))
_.submitted_at
_.ended_at
_.collected_at
_.judge_key
# the judge run's summary: `judge --json` prints every field of it
_.collect_s

# sqlite3 reads a cursor's or connection's row_factory
_.row_factory
# io reads these of a file object (store/bounded.py's reader)
_.readable
_.seekable
_.tell
# the SDK's client: organization and project are sent as headers unless cleared
_.organization
# xllamacpp reads the local server's parameters
_.model_alias
_.ui
_.endpoint_slots

# tests: http.server and socketserver read these of the fake servers and call these methods
_.close_connection
_.daemon_threads
_.block_on_close
_.allow_reuse_address
_.request_queue_size
_.protocol_version
_.disable_nagle_algorithm
_.handle_error
_.log_message
_.do_GET
_.do_POST
_.client_address  # a parameter of handle_error
# tests: the signatures the callers pass by position or name (pytest's hook, __exit__,
# krippendorff's distance callable) and a module made to look like a script run by path
_.nextitem
_.exc_type
_.v1
_.v2
_.n_v
_.__spec__

# Dead, in modules others are changing now (kinds/, judging/llm/, judging/analysis/,
# judging/report/): remove the code there, then its line here
_.AnswerLike  # kinds/judged.py: a Protocol nothing uses
_.StatementLike  # kinds/judged.py: a Protocol nothing uses
_.provider_label  # judging/llm/providers_*.py, retrying.py: a class attribute nothing reads
_.is_local  # judging/llm/specs.py: JudgeSpec.is_local, never asked
_.VIEW_TITLES  # judging/analysis/views.py: never read
_.UNSTABLE_NOTE  # judging/report/text.py: never read
_.judge_view  # judging/report/text.py: Headline.judge_view, set and never read

# the report's templates call these to draw a kind's own sections (report.html.j2)
_.by_anchor
_.is_kind_section
_.folded  # a kind section's folded tables (report.html.j2)
