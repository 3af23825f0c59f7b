"""Where the web layer's files are: ``templates/`` and ``static/`` beside ``app/`` in the
repository root (``create_app`` mounts them; the service worker and the static version read
them)."""

from __future__ import annotations

from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[2]
TEMPLATES_DIR = PROJECT_ROOT / "templates"
STATIC_DIR = PROJECT_ROOT / "static"
