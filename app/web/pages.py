"""The HTML pages: home (``/``), the table (``/g/{game_id}``), rules (``/rules/{variant}``).

Pages are rendered in the player's language (see ``app.web.i18n``) and carry, as embedded JSON,
what their script needs: the catalog of the language and, on the home page, the options each
variant accepts (read from the engine's registry, so the form never drifts from the rules).
The table itself is drawn in the browser from the views the WebSocket sends (docs/protocol.md).
"""

from __future__ import annotations

import json
from typing import Any

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import HTMLResponse, Response
from starlette.middleware.gzip import GZipMiddleware

from app import __version__
from app.engine import VARIANTS, get_rules
from app.web.api import page_access
from app.web.deps import templates_of
from app.web.i18n import LANGUAGE_COOKIE, LANGUAGES, catalog, negotiate, translate
from app.web.security import SecurityHeadersMiddleware

router = APIRouter(include_in_schema=False)

VARIANT_IDS = tuple(VARIANTS)

# An option is shown only while these other options have these values (RULES.md §11).
OPTION_CONDITIONS: dict[str, dict[str, dict[str, Any]]] = {
    "classic": {"allow_sa_ta": {"bidding_mode": "free"}, "auto_declare": {"declarations": True}},
    "coinche": {"auto_declare": {"declarations": True}},
    "bulgarian": {"auto_declare": {"declarations": True}},
    "bela": {
        "auto_declare": {"declarations": True},
        "eight_card_belot": {"declarations": True},
    },
}
# Options that mean something only for some player counts.
OPTION_PLAYERS: dict[str, tuple[int, ...]] = {"seven_exchange": (2,)}
CHOICES: dict[str, tuple[str, ...]] = {
    "bidding_mode": ("turn_up", "free"),
    "tie_rule": ("fall", "hang"),
}
# The order options are listed in on the form.
OPTION_ORDER = (
    "target",
    "bidding_mode",
    "allow_sa_ta",
    "declarations",
    "auto_declare",
    "auto_belote",
    "undertrump_required",
    "tie_rule",
    "eight_card_belot",
    "seven_exchange",
    "valat_can_end_without_bonus",
)


def option_schema() -> dict[str, Any]:
    """Per variant and player count: the options a player may change, with their defaults.

    ``{"classic": {"players": [4], "by_players": {"4": [option, ...]}}, ...}`` where an option
    is ``{"name", "type": "bool"|"choice", "default", "choices"?, "when"?}``. Options a variant
    fixes are left out, and so is a target with a single possible value.
    """
    schema: dict[str, Any] = {}
    for variant, cls in VARIANTS.items():
        by_players: dict[str, list[dict[str, Any]]] = {}
        for players in cls.player_counts:
            rules = get_rules(variant, players)
            defaults = rules.default_options()
            options = []
            for name in OPTION_ORDER:
                if name not in defaults or name in rules.fixed:
                    continue
                if players not in OPTION_PLAYERS.get(name, (players,)):
                    continue
                option: dict[str, Any] = {"name": name, "default": defaults[name]}
                if name == "target":
                    if len(rules.targets) < 2:
                        continue
                    option.update(type="choice", choices=list(rules.targets))
                elif name in CHOICES:
                    option.update(type="choice", choices=list(CHOICES[name]))
                else:
                    option["type"] = "bool"
                when = OPTION_CONDITIONS.get(variant, {}).get(name)
                if when:
                    option["when"] = when
                options.append(option)
            by_players[str(players)] = options
        schema[variant] = {"players": list(cls.player_counts), "by_players": by_players}
    return schema


def language_of(request: Request) -> str:
    return negotiate(request.cookies.get(LANGUAGE_COOKIE), request.headers.get("accept-language"))


def client_catalog(language: str) -> dict[str, str]:
    """The strings the scripts use: everything except the long rules texts."""
    return {k: v for k, v in catalog(language).items() if not k.startswith("rules.")}


def render(
    request: Request, template: str, context: dict[str, Any] | None = None, status: int = 200
) -> HTMLResponse:
    """Render ``template`` with the language helpers every page uses."""
    language = language_of(request)

    def t(key: str, **params: Any) -> str:
        return translate(language, key, **params)

    base: dict[str, Any] = {
        "lang": language,
        "languages": LANGUAGES,
        "t": t,
        "version": __version__,
        "variants": VARIANT_IDS,
        "i18n_json": script_json(client_catalog(language)),
    }
    base.update(context or {})
    templates = templates_of(request)
    response: HTMLResponse = templates.TemplateResponse(request, template, base, status_code=status)
    response.headers["Content-Language"] = language
    response.headers.setdefault("Vary", "Accept-Language, Cookie")
    return response


def script_json(data: Any) -> str:
    """JSON safe to put inside <script type="application/json">."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("</", "<\\/")


@router.get("/", response_class=HTMLResponse)
async def home(request: Request) -> Response:
    return render(request, "home.html", {"schema_json": script_json(option_schema())})


@router.get("/rules/{variant}", response_class=HTMLResponse)
async def rules_page(request: Request, variant: str) -> Response:
    if variant not in VARIANTS:
        return render(request, "not_found.html", status=404)
    return render(request, "rules.html", {"variant": variant})


@router.get("/g/{game_id}", response_class=HTMLResponse)
async def table_page(request: Request, game_id: str) -> Response:
    access = await _table_access(request, game_id)
    if access == "missing":
        return render(request, "not_found.html", status=404)
    if access == "full":
        return render(request, "full.html", {"game_id": game_id})
    return render(request, "table.html", {"game_id": game_id, "traits_json": _TRAITS_JSON})


# Each variant's traits with its default players and options (``Rules.traits``): what the
# table's help reads before the first view (which carries the game's own) has come.
_TRAITS_JSON = script_json({variant: get_rules(variant).traits() for variant in VARIANTS})


async def _table_access(request: Request, game_id: str) -> str:
    """``"ok"`` (a seat or a spectator place), ``"full"`` or ``"missing"``: the page joins or
    reclaims a seat as ``POST /api/games/{id}/join`` does."""
    if len(game_id) > 64 or not game_id.replace("-", "").replace("_", "").isalnum():
        return "missing"
    return await page_access(request, game_id)


def install(app: FastAPI) -> None:
    """Add the pages, gzip compression (first load must stay under 200 KB) and the security
    headers (app/web/security.py) to ``app``."""
    app.add_middleware(GZipMiddleware, minimum_size=600)
    app.add_middleware(SecurityHeadersMiddleware, settings=app.state.settings)
    app.include_router(router)
    from app.web.pwa import router as pwa_router

    app.include_router(pwa_router)
