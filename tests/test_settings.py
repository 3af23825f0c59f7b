import pytest
from pydantic import ValidationError

from app.settings import Settings, get_settings


def clear_atout_env(monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    for name in list(os.environ):
        if name.startswith("ATOUT_"):
            monkeypatch.delenv(name)


def test_defaults_need_no_configuration(monkeypatch: pytest.MonkeyPatch) -> None:
    clear_atout_env(monkeypatch)
    settings = Settings(_env_file=None)
    assert settings.database_url == "sqlite+aiosqlite:///./data/atout.db"
    assert settings.host == "127.0.0.1"
    assert settings.port == 8000
    assert settings.allowed_origins == []
    assert settings.public_base_url == ""  # links follow each request's own address
    assert settings.log_level == "INFO"
    assert settings.bot_delay_ms == 600
    assert settings.idle_room_seconds == 900
    assert settings.spectators_default is True


def test_every_setting_is_read_from_its_atout_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    clear_atout_env(monkeypatch)
    monkeypatch.setenv("ATOUT_DATABASE_URL", "postgresql+asyncpg://a:b@db:5432/atout")
    monkeypatch.setenv("ATOUT_HOST", "0.0.0.0")
    monkeypatch.setenv("ATOUT_PORT", "9000")
    monkeypatch.setenv("ATOUT_ALLOWED_ORIGINS", "https://a.example, https://b.example/")
    monkeypatch.setenv("ATOUT_PUBLIC_BASE_URL", "https://belote.example/")
    monkeypatch.setenv("ATOUT_LOG_LEVEL", "debug")
    monkeypatch.setenv("ATOUT_BOT_DELAY_MS", "0")
    monkeypatch.setenv("ATOUT_IDLE_ROOM_SECONDS", "60")
    monkeypatch.setenv("ATOUT_SPECTATORS_DEFAULT", "false")

    settings = get_settings()

    assert settings.database_url == "postgresql+asyncpg://a:b@db:5432/atout"
    assert settings.host == "0.0.0.0"
    assert settings.port == 9000
    assert settings.allowed_origins == ["https://a.example", "https://b.example"]
    assert settings.public_base_url == "https://belote.example"
    assert settings.log_level == "DEBUG"
    assert settings.bot_delay_ms == 0
    assert settings.idle_room_seconds == 60
    assert settings.spectators_default is False


def test_allowed_origins_also_accepts_a_json_list(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ATOUT_ALLOWED_ORIGINS", '["https://a.example"]')
    assert get_settings().allowed_origins == ["https://a.example"]


def test_get_settings_is_cached() -> None:
    assert get_settings() is get_settings()


@pytest.mark.parametrize(
    ("name", "value"),
    [("ATOUT_PORT", "eighty"), ("ATOUT_PORT", "70000"), ("ATOUT_LOG_LEVEL", "LOUD")],
)
def test_bad_values_are_refused(monkeypatch: pytest.MonkeyPatch, name: str, value: str) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(ValidationError):
        Settings(_env_file=None)


def test_unset_public_base_url_links_follow_the_request(monkeypatch: pytest.MonkeyPatch) -> None:
    clear_atout_env(monkeypatch)
    monkeypatch.setenv("ATOUT_PORT", "8741")
    settings = Settings(_env_file=None)
    assert settings.base_url("http://127.0.0.1:8741/") == "http://127.0.0.1:8741"
    assert settings.game_url("abc", "http://belote.lan:8741/") == "http://belote.lan:8741/g/abc"
    monkeypatch.setenv("ATOUT_PUBLIC_BASE_URL", "  ")  # blank is unset too
    assert Settings(_env_file=None).base_url("https://x.example/") == "https://x.example"


def test_a_set_public_base_url_wins_over_the_request(monkeypatch: pytest.MonkeyPatch) -> None:
    clear_atout_env(monkeypatch)
    monkeypatch.setenv("ATOUT_PUBLIC_BASE_URL", "https://belote.example.org/")
    settings = Settings(_env_file=None)
    assert settings.base_url("http://127.0.0.1:8741/") == "https://belote.example.org"
    assert settings.game_url("abc", "http://127.0.0.1:8741/") == "https://belote.example.org/g/abc"
