"""The web inspector: a static page at ``/ui/`` that reads and curates memories through the
same JSON API as every other client, with the key the person signs in with (kept in the
tab's sessionStorage, sent as a bearer token; never in a URL or a cookie). The page holds no
access rule: it hides what the caller's tier cannot do, and the server refuses it anyway.

Every response under ``/ui`` carries a strict Content-Security-Policy: scripts, styles and
connections from this origin only, no inline script, no frames.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import RedirectResponse
from starlette.responses import Response
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

STATIC = Path(__file__).parent / "ui_static"
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'none'; "
    "frame-ancestors 'none'"
)
HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cache-Control": "no-cache",
}


class InspectorFiles(StaticFiles):
    """The page's files, each with the inspector's security headers."""

    async def get_response(self, path: str, scope: Scope) -> Response:
        response = await super().get_response(path, scope)
        response.headers.update(HEADERS)
        return response


def mount(app: FastAPI) -> None:
    """Serve the inspector at ``/ui/`` (``/ui`` redirects there)."""

    @app.get("/ui", include_in_schema=False)
    def to_inspector() -> RedirectResponse:
        return RedirectResponse("/ui/", status_code=307, headers=HEADERS)

    app.mount("/ui/", InspectorFiles(directory=STATIC, html=True), name="ui")
