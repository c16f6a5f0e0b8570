"""API keys never reach the study file, an export, a report, a log or the terminal.

Planted keys (environment and settings.toml, OpenAI- and Anthropic-shaped) go through judge
runs against the fake server (the environment's named for it with ``--key-env``; settings.toml's
are for the providers' own APIs and must not reach it) that fail in every way a provider fails — a 401 that echoes the
key, 500s and 429s that echo it, timeouts — then a SIGKILL, a SIGINT and an unexpected
exception mid-run. Afterwards every byte medjudge wrote or printed is searched for the keys:
the study file with its -wal, every table exported as JSONL and CSV, the report in every
format, status, the adjudication queue, and the stdout/stderr of every command.
"""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from typer.testing import CliRunner

from medjudge.cli import app
from medjudge.store.adjudications import adjudicate
from medjudge.store.importing.run import import_file
from medjudge.store.paths import login_name
from medjudge.store.roles import grant
from medjudge.store.study import Study

from .support.fakellm import FakeLLMServer, FakeRequest, Reply
from .support.judges import pairwise_responder, prefer_marked, routing
from .support.kind_rows import pairwise_row, write_jsonl

ENV_OPENAI = "sk-test-PLANTED-7f3a9c"
ENV_ANTHROPIC = "sk-ant-PLANTED-4b1e2d"
TOML_OPENAI = "sk-test-PLANTED-toml-91ab"
TOML_ANTHROPIC = "sk-ant-PLANTED-toml-c3d4"
KEYS = (ENV_OPENAI, ENV_ANTHROPIC, TOML_OPENAI, TOML_ANTHROPIC)
MARK = b"PLANTED"  # any fragment of a planted key is a leak, redacted or not
PROCS = Path(__file__).resolve().parent / "procs"
cli = CliRunner()


def leaks(data: bytes | str) -> list[str]:
    raw = data.encode("utf-8", "surrogateescape") if isinstance(data, str) else data
    found = [k for k in KEYS if k.encode() in raw]
    if MARK in raw and not found:
        found.append("a fragment containing PLANTED")
    return found


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class ProviderFromHell:
    """Every call of item i fails its first attempt according to i % 6, then answers:
    0 fine, 1 a 401 echoing the key (final), 2 a 500 echoing it, 3 a 429 echoing it,
    4 a reply slower than the timeout, 5 an unparseable reply (no retry fixes it)."""

    def __init__(self) -> None:
        self.good = routing(pairwise_responder(prefer_marked("GOOD")))
        self.lock = threading.Lock()
        self.seen: set[str] = set()
        self.keys: set[str] = set()
        self.auth_errors = True
        """401s stop a run at once (fast fail); the crash runs turn them off so the signal
        arrives mid-flight."""
        self.calls = 0
        self.hold_after: int | None = None
        """Calls past this many wait for :attr:`released`: a run cannot finish before the
        signal meant for it mid-flight is sent, however loaded the machine is."""
        self.held = threading.Event()
        """Set once a call is waiting."""
        self.released = threading.Event()

    def __call__(self, req: FakeRequest) -> Reply:
        key = req.headers.get("authorization", "").removeprefix("Bearer ") or req.headers.get(
            "x-api-key", ""
        )
        text = req.prompt_text
        item = int(text.split("Question ")[1].split("?")[0])
        ident = json.dumps([req.path, req.json.get("messages"), req.json.get("seed"), item])
        with self.lock:
            self.keys.add(key)
            first = ident not in self.seen
            self.seen.add(ident)
            self.calls += 1
            hold = self.hold_after is not None and self.calls > self.hold_after
        if hold:
            self.held.set()
            self.released.wait(60)
        kind = item % 6
        if kind == 1 and self.auth_errors:
            return Reply.error(
                401,
                f"Incorrect API key provided: {key}. You can find your API "
                f"key at https://example.invalid (key={key})",
            )
        if first and kind == 2:
            return Reply.server_error(500, f"upstream failed for key {key}")
        if first and kind == 3:
            return Reply.error(429, f"rate limit for {key}", headers={"Retry-After": "0.05"})
        if first and kind == 4:
            return Reply(self.good(req).text, delay=1.6)
        if kind == 5:
            return Reply(f"I cannot answer that. (request authorised by {'*' * 8})")
        return self.good(req)


@pytest.fixture
def home(_isolated_home: Path) -> Path:
    """MEDJUDGE_HOME with a settings.toml holding the planted keys (mode 600)."""
    _isolated_home.mkdir(parents=True, exist_ok=True)
    toml = _isolated_home / "settings.toml"
    toml.write_text(
        f'openai_api_key = "{TOML_OPENAI}"\nanthropic_api_key = "{TOML_ANTHROPIC}"\n'
        "timeout_s = 1.0\n"
    )
    toml.chmod(0o600)
    return _isolated_home


def make_study(path: Path, n: int = 12) -> Path:
    rows = [pairwise_row(i, answer_a=f"GOOD answer {i}") for i in range(n)]
    with Study.create(path, actor="lead") as s:
        import_file(s, write_jsonl(path.with_suffix(".jsonl"), rows), "pairwise", actor="lead")
    return path


def cli_env(home: Path, with_env_keys: bool) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY")}
    env.update(MEDJUDGE_HOME=str(home), PYTHONUNBUFFERED="1")
    if with_env_keys:
        env.update(OPENAI_API_KEY=ENV_OPENAI, ANTHROPIC_API_KEY=ENV_ANTHROPIC)
    return env


def test_planted_keys_never_leave_the_process(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    outputs: list[tuple[str, str]] = []  # (what, text) of every command's stdout and stderr
    study = make_study(tmp_path / "secrets.db")
    toml_study = make_study(tmp_path / "toml.db", n=6)
    crashed = make_study(tmp_path / "crashed.db", n=24)
    hell = ProviderFromHell()
    with FakeLLMServer(hell) as server:
        judges = [
            "-j",
            f"openai:fake@{server.openai_url}",
            "-j",
            f"anthropic:fake@{server.anthropic_url}",
        ]
        base = [sys.executable, "-m", "medjudge", "judge"]
        openai_key = ["--key-env", "OPENAI_API_KEY"]
        anthropic_key = ["--key-env", "ANTHROPIC_API_KEY"]
        # 1. Keys from the environment, named for the @URL servers with --key-env (a
        # provider's own key goes to its own API only); then 2. settings.toml's keys, which
        # are for the providers' own APIs: the servers are called without them.
        # One judge per run: a 401 stops the run it happens in (fast fail), and each
        # provider must still be exercised with each key.
        for path, with_env, judge in (
            (study, True, judges[:2] + openai_key),
            (study, True, judges[2:] + anthropic_key),
            (toml_study, False, judges[:2]),
            (toml_study, False, judges[2:]),
        ):
            r = subprocess.run(
                base + [str(path), *judge, "--samples", "1", "--timeout", "1"],
                capture_output=True,
                text=True,
                env=cli_env(home, with_env),
                timeout=120,
            )
            outputs += [
                (f"judge {path.name} stdout", r.stdout),
                (f"judge {path.name} stderr", r.stderr),
            ]
            # A 401 stops the run at once (exit 1, the cause said, redacted); the rest of the
            # provider's abuse (echoed keys in bodies and headers) is recorded as errors.
            assert r.returncode in (0, 1) and "Traceback" not in r.stderr, r.stderr
            assert "errors" in r.stdout
            if r.returncode == 1:
                assert "the judge run failed" in r.stderr, r.stderr
        # A second run retries the 'error' rows (the 401s again) and pays nothing else.
        r = subprocess.run(
            base + [str(study), *judges, *openai_key, "--samples", "1", "--timeout", "1", "--json"],
            capture_output=True,
            text=True,
            env=cli_env(home, True),
            timeout=120,
        )
        outputs += [("rerun stdout", r.stdout), ("rerun stderr", r.stderr)]
        assert r.returncode in (0, 1) and "Traceback" not in r.stderr, r.stderr
        assert json.loads(r.stdout)["errors"] > 0, r.stdout  # --json prints nothing but JSON
        # 3. Crashes: SIGKILL mid-flight, SIGINT mid-flight, an unexpected exception.
        server.latency = 0.2
        hell.auth_errors = False
        for sig in (signal.SIGKILL, signal.SIGINT):
            proc = subprocess.Popen(
                base + [str(crashed), *judges, *anthropic_key, "--samples", "2"],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                env=cli_env(home, True),
                # SIGINT as a terminal delivers it, even when pytest itself was started as a
                # background job (which ignores SIGINT, and a child inherits that)
                preexec_fn=_default_sigint,
            )
            with hell.lock:
                hell.hold_after = hell.calls + 10
                hell.held.clear()
                hell.released.clear()
            assert hell.held.wait(60), "the judge run never got 10 calls in"
            proc.send_signal(sig)
            out, err = proc.communicate(timeout=60)
            with hell.lock:
                hell.hold_after = None
                hell.released.set()
            outputs += [(f"{sig.name} stdout", out), (f"{sig.name} stderr", err)]
            if sig == signal.SIGINT:
                assert proc.returncode == 130 and "interrupted" in err, (proc.returncode, err)
            # The file as the crash left it, -wal included, before anything checkpoints it.
            for suffix in ("", "-wal"):
                f = Path(str(crashed) + suffix)
                if f.exists():
                    assert not leaks(f.read_bytes()), f"{f.name} after {sig.name}"
        server.latency = 0.0
        r = subprocess.run(
            [
                sys.executable,
                str(PROCS / "judge_crash.py"),
                str(crashed),
                *judges,
                *openai_key,
                "--samples",
                "3",
            ],
            capture_output=True,
            text=True,
            env=cli_env(home, True),
            timeout=120,
        )
        outputs += [("crash stdout", r.stdout), ("crash stderr", r.stderr)]
        assert r.returncode != 0 and "forced crash" in r.stderr and "Traceback" in r.stderr, (
            r.stderr
        )
    # The named keys were really in use: the fake server saw them; settings.toml's keys (for
    # api.openai.com and api.anthropic.com) never reached it.
    assert {ENV_OPENAI, ENV_ANTHROPIC} <= hell.keys
    assert not {TOML_OPENAI, TOML_ANTHROPIC} & hell.keys

    # Adjudications and labels, so that every export table has rows.
    with Study.open(study) as s:
        grant(s, "lead", "lead", by="lead")
        grant(s, "lead", "adjudicator", by="lead")
        grant(s, login_name(), "adjudicator", by="lead")  # sees verdicts of the blind study
        unit = s.conn.execute("SELECT min(id) FROM units").fetchone()[0]
        adjudicate(s, unit, "A", "answer A is right", actor="lead")
    monkeypatch.setenv("OPENAI_API_KEY", ENV_OPENAI)
    monkeypatch.setenv("ANTHROPIC_API_KEY", ENV_ANTHROPIC)
    exports = tmp_path / "exports"
    exports.mkdir()
    runs: list[list[str]] = []
    for path in (study, toml_study, crashed):
        for table in ("labels", "verdicts", "calls", "history", "adjudications"):
            for fmt in ("jsonl", "csv"):
                runs.append(["export", str(path), table, "-f", fmt])
                runs.append(
                    [
                        "export",
                        str(path),
                        table,
                        "-f",
                        fmt,
                        "-o",
                        str(exports / f"{path.stem}-{table}.{fmt}"),
                    ]
                )
        runs += [
            ["status", str(path)],
            ["status", str(path), "--json"],
            ["adjudicate", str(path), "--list"],
            ["adjudicate", str(path), "--json"],
        ]
        try:
            import medjudge.judging.report.build  # noqa: F401
        except ImportError:
            continue
        for fmt in ("md", "html", "json", "csv"):
            runs.append(["report", str(path), "-f", fmt, "--n-boot", "100"])
            runs.append(
                [
                    "report",
                    str(path),
                    "-f",
                    fmt,
                    "--n-boot",
                    "100",
                    "-o",
                    str(exports / f"{path.stem}-report.{fmt}"),
                ]
            )
    for args in runs:
        res = cli.invoke(app, args)
        assert res.exit_code == 0, (args, res.output)
        outputs += [
            (" ".join(args[:1] + args[2:]), r.stdout),
            (" ".join(args) + " (stderr)", r.stderr),
        ]
    calls_csv = (exports / "secrets-calls.csv").read_text()
    assert "HTTP 401" in calls_csv and "***" in calls_csv  # the echoed keys were there, redacted

    found = {what: leaks(text) for what, text in outputs if leaks(text)}
    assert not found, f"planted keys printed: {found}"
    files = [p for p in tmp_path.rglob("*") if p.is_file() and p != home / "settings.toml"]
    assert any(p.suffix == ".html" for p in files) or not any("report" in a[0] for a in runs)
    found = {
        str(p.relative_to(tmp_path)): leaks(p.read_bytes()) for p in files if leaks(p.read_bytes())
    }
    assert not found, f"planted keys written to files: {found}"


def test_settings_file_readable_by_others_is_refused(home: Path, tmp_path: Path) -> None:
    toml = home / "settings.toml"
    study = make_study(tmp_path / "s.db", n=1)
    for mode in (0o644, 0o640, 0o604):
        toml.chmod(mode)
        r = cli.invoke(app, ["judge", str(study), "-j", "openai:gpt-4o", "--dry-run"])
        assert r.exit_code == 1 and "Traceback" not in r.output, r.output
        assert "others can read it" in r.stderr and "chmod 600" in r.stderr, r.stderr
        assert not leaks(r.output)
    toml.chmod(0o600)
    r = cli.invoke(app, ["judge", str(study), "-j", "openai:gpt-4o", "--dry-run"])
    assert r.exit_code == 0, r.output
    assert stat.S_IMODE(toml.stat().st_mode) == 0o600


def test_a_settings_file_that_names_only_variables_may_be_shared(
    home: Path, tmp_path: Path
) -> None:
    """A settings.toml with defaults and endpoints naming variables holds no secret: readable by
    others it is read (it was refused as if it held keys); one holding a key still is not."""
    toml = home / "settings.toml"
    toml.write_text(
        'concurrency = 4\n[endpoints."https://gateway.example/v1"]\nkey_env = "GW_KEY"\n'
    )
    toml.chmod(0o644)
    study = make_study(tmp_path / "s.db", n=1)
    r = cli.invoke(app, ["judge", str(study), "-j", "openai:gpt-4o", "--dry-run"])
    assert r.exit_code == 0, r.output
    toml.write_text(f'concurrency = 4\nopenai_api_key = "{TOML_OPENAI}"\n')
    toml.chmod(0o644)
    r = cli.invoke(app, ["judge", str(study), "-j", "openai:gpt-4o", "--dry-run"])
    assert r.exit_code == 1 and "others can read it" in r.stderr and not leaks(r.output)


@pytest.mark.parametrize(
    "body",
    [
        f'openai_api_key = "{TOML_OPENAI}\n',  # unterminated string
        f"openai_api_key = {TOML_OPENAI}\n",  # not quoted
        f'openai_api_kee = "{TOML_OPENAI}"\n',  # unknown setting
        f'concurrency = "{TOML_OPENAI}"\n',  # a key in the wrong place
    ],
)
def test_broken_settings_file_errors_never_quote_the_key(
    body: str, home: Path, tmp_path: Path
) -> None:
    toml = home / "settings.toml"
    toml.write_text(body)
    toml.chmod(0o600)
    study = make_study(tmp_path / "s.db", n=1)
    r = cli.invoke(app, ["judge", str(study), "-j", "openai:gpt-4o", "--dry-run"])
    assert r.exit_code == 1 and "Traceback" not in r.output, r.output
    assert "settings.toml" in r.stderr
    assert not leaks(r.output), r.output
