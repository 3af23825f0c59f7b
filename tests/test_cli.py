import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from app import cli

PROJECT_ROOT = Path(__file__).resolve().parent.parent


def run_serve(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("ATOUT_")}
    full_env.update({"ATOUT_PORT": "1", **env})  # never reached: the check fails first
    return subprocess.run(
        [sys.executable, "-m", "app", "serve"],
        cwd=tmp_path,
        env={**full_env, "PYTHONPATH": str(PROJECT_ROOT)},
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize(
    "url",
    [
        "nosuchdriver://x",
        "not a url at all",
        "sqlite:///plain-sqlite-is-not-async.db",
        "sqlite+aiosqlite:////proc/nope/atout.db",  # parent cannot be created
        "sqlite+aiosqlite:////proc/atout.db",  # folder exists, not writable
        "postgresql+asyncpg://atout:s3cret@127.0.0.1:1/atout",  # nothing listens on port 1
    ],
)
def test_serve_with_a_bad_database_url_exits_1_with_one_line(tmp_path: Path, url: str) -> None:
    result = run_serve(tmp_path, ATOUT_DATABASE_URL=url)
    assert result.returncode == 1, result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("atout: cannot open database ")
    assert "Traceback" not in result.stderr + result.stdout
    assert "s3cret" not in result.stderr  # passwords are masked


def test_serve_with_an_invalid_setting_exits_1_with_one_line(tmp_path: Path) -> None:
    result = run_serve(tmp_path, ATOUT_PORT="eighty")
    assert result.returncode == 1
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("atout: invalid configuration: ATOUT_PORT")
    assert "Traceback" not in result.stderr


def test_serve_is_registered_and_main_without_command_shows_help(capsys) -> None:
    parser = cli.build_parser()
    args = parser.parse_args(["serve", "--host", "0.0.0.0", "--port", "9999"])
    assert args.func is cli.cmd_serve
    assert (args.host, args.port) == ("0.0.0.0", 9999)
    assert cli.main([]) == 2
    assert "serve" in capsys.readouterr().err


def test_plugin_modules_add_subcommands(monkeypatch: pytest.MonkeyPatch) -> None:
    import types

    plugin = types.ModuleType("fake_atout_plugin")

    def register(subparsers):
        sub = subparsers.add_parser("hello")
        sub.set_defaults(func=lambda args: 7)

    plugin.register = register
    monkeypatch.setitem(sys.modules, "fake_atout_plugin", plugin)
    monkeypatch.setattr(cli, "PLUGIN_MODULES", ("fake_atout_plugin", "app.no_such_package.cli"))
    assert cli.main(["hello"]) == 7


def test_a_missing_plugin_is_skipped_but_a_broken_one_raises(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(cli, "PLUGIN_MODULES", ("app.no_such_package.cli",))
    cli.build_parser()  # not there yet: skipped

    def failing_import(name: str) -> None:
        raise ModuleNotFoundError("No module named 'some_dependency'", name="some_dependency")

    monkeypatch.setattr(cli.importlib, "import_module", failing_import)
    with pytest.raises(ModuleNotFoundError):
        cli.build_parser()  # the plugin exists but its own import fails: not hidden


def test_a_reader_that_goes_away_gets_no_traceback() -> None:
    """`atout bench engine | head -1`: the pipe closes early; the command stops quietly."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "app", "bench", "engine", "--seconds", "0.05"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    first = proc.stdout.readline()
    proc.stdout.close()  # the reader goes away before the rest is printed
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 141
    assert first.startswith(b"classic") and "Traceback" not in err, err


def test_bench_publish_reports_the_cost_of_sending_a_version(capsys) -> None:
    assert cli.main(["bench", "publish", "--versions", "60", "--rounds", "2"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    result = json.loads(lines[-1])
    assert result["variant"] == "classic" and result["players"] == 4
    assert result["versions"] == 60 and result["rounds"] == 2
    assert result["us_per_version_best"] > 0 and result["bytes_per_version"] > 0
    assert (
        cli.main(["bench", "publish", "--variant", "bela", "--players", "3", "--versions", "60"])
        == 0
    )
    assert json.loads(capsys.readouterr().out.strip().splitlines()[-1])["players"] == 3


def test_bench_publish_refuses_an_unknown_variant_in_one_line(capsys) -> None:
    assert cli.main(["bench", "publish", "--variant", "nope"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("atout: unknown variant") and len(err.strip().splitlines()) == 1


def test_bench_publish_fails_when_the_room_closes_a_listener(monkeypatch, capsys) -> None:
    from app.rooms.room import Room

    def closing_publish(self, state, events):  # type: ignore[no-untyped-def]
        for listener in self.listeners:
            listener.close(1013, "too far behind")

    monkeypatch.setattr(Room, "publish", closing_publish)
    assert cli.main(["bench", "publish", "--versions", "10", "--rounds", "1"]) == 2
    assert "closed a listener" in capsys.readouterr().err


def test_the_server_never_imports_the_tools() -> None:
    """``atout serve``'s parser and the app it serves leave ``bench`` (the tools beside app/)
    unimported: it is loaded by name only for ``atout bench`` and ``atout arena``."""
    code = (
        "import sys\n"
        "from app.cli import build_parser, command_of\n"
        "from app.main import create_app\n"
        "build_parser(command_of(['serve', '--port', '1']))\n"
        "build_parser(command_of(['--help']))\n"
        "create_app()\n"
        "assert not [m for m in sys.modules if m.split('.')[0] == 'bench'], sorted(sys.modules)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr


def test_the_tools_are_found_beside_app_when_not_on_the_path(tmp_path: Path) -> None:
    """An install whose ``app`` is a checkout's (an editable install run from another folder):
    ``bench`` is not importable until ``atout arena``/``atout bench`` puts the checkout on the
    path."""
    (tmp_path / "app").symlink_to(PROJECT_ROOT / "app")
    env = {k: v for k, v in os.environ.items() if not k.startswith("ATOUT_")}
    env["PYTHONPATH"] = str(tmp_path)
    check = "import importlib.util, sys; sys.exit(importlib.util.find_spec('bench') is not None)"
    run = [sys.executable, "-c", check]
    assert subprocess.run(run, cwd=tmp_path, env=env, timeout=60).returncode == 0
    for argv in (["arena", "--help"], ["bench", "engine", "--help"]):
        result = subprocess.run(
            [sys.executable, "-m", "app", *argv],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert result.returncode == 0, result.stderr
        assert result.stdout.startswith(f"usage: atout {' '.join(argv[:-1])}"), result.stdout


def test_without_a_checkout_the_tools_exit_2_with_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    real_import = cli.importlib.import_module

    def no_bench(name: str) -> object:
        if name.split(".")[0] == "bench":
            raise ModuleNotFoundError("No module named 'bench'", name="bench")
        return real_import(name)

    monkeypatch.setattr(cli.importlib, "import_module", no_bench)
    monkeypatch.setattr(cli, "checkout_root", lambda: None)
    for argv in (["bench", "engine", "--seconds", "1"], ["arena", "--help"], ["bench"]):
        assert cli.main(argv) == 2
        err = capsys.readouterr().err
        assert err.splitlines() == [f"atout: {cli.NO_TOOLS}"], err
    listed = cli.build_parser().format_help()  # still listed, with where they come from
    assert "benchmarks and developer tools (in a checkout)" in listed and "arena" in listed
