"""What every answer of the service carries and checks before it is exposed on a network.

One ASGI middleware, :class:`SecurityMiddleware`, in front of every route:

- **allowed hosts**: a request whose ``Host`` is not in ``allowed_hosts``
  (``BUFSIZE_ALLOWED_HOSTS``, ``127.0.0.1,localhost`` by default) gets 400, so a DNS-rebinding
  page cannot reach a service listening on loopback;
- **origin check**: a state-changing request (POST, PUT, PATCH, DELETE) that a browser marks with
  an ``Origin`` other than the service's own gets 403 (a web page cannot post a form, a trace
  upload say, to the service in its visitor's name; clients that are not browsers send no Origin);
- **no host taken from the request in a redirect**: a ``Location`` pointing at the request's own
  host (the trailing-slash redirects, the 202 answers' job address) is rewritten to the path;
- **Retry-After on every 429**;
- **security headers**: ``X-Content-Type-Options: nosniff``, ``Referrer-Policy: no-referrer``,
  ``X-Frame-Options: DENY`` and a ``Content-Security-Policy`` on every answer: on HTML pages,
  scripts only from the service itself or inline scripts whose SHA-256 is listed (computed from
  the page served, so the docs pages' and notebooks' own inline scripts run and nothing injected
  does), no plugins, no framing; on everything else, nothing at all.
"""

from __future__ import annotations

import base64
import hashlib
import re
from urllib.parse import urlsplit

from starlette.datastructures import Headers, MutableHeaders
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.settings import Settings, settings_of

#: Methods that change state: refused from a foreign Origin.
UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})

#: Headers on every answer.
COMMON_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cross-Origin-Opener-Policy": "same-origin",
}
#: The policy of anything that is not an HTML page (JSON, CSV, scripts, images).
NON_HTML_POLICY = "default-src 'none'; frame-ancestors 'none'"
#: The policy of HTML pages; ``{scripts}`` becomes the hashes of the page's inline scripts.
HTML_POLICY = (
    "default-src 'self'; script-src 'self'{scripts}; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data: blob:; font-src 'self' data:; worker-src 'self' blob:; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'"
)
# An inline script: a <script> without src whose type runs (no type, or a JavaScript one).
_SCRIPT = re.compile(rb"<script(?P<attrs>[^>]*)>(?P<body>.*?)</script\s*>", re.S | re.I)
_SRC = re.compile(rb"\bsrc\s*=", re.I)
_TYPE = re.compile(rb"""\btype\s*=\s*["']?([^"'\s>]+)""", re.I)
_RUNNABLE_TYPES = {b"text/javascript", b"application/javascript", b"module"}


def inline_script_hashes(html: bytes) -> list[str]:
    """CSP source expressions (``'sha256-…'``) of the inline scripts of ``html`` that run."""
    hashes = []
    for match in _SCRIPT.finditer(html):
        attrs = match["attrs"]
        if _SRC.search(attrs):
            continue
        kind = _TYPE.search(attrs)
        if kind is not None and kind.group(1).lower() not in _RUNNABLE_TYPES:
            continue  # data blocks (application/json) are not run
        digest = base64.b64encode(hashlib.sha256(match["body"]).digest()).decode()
        source = f"'sha256-{digest}'"
        if source not in hashes:
            hashes.append(source)
    return hashes


def html_policy(html: bytes) -> str:
    hashes = inline_script_hashes(html)
    return HTML_POLICY.format(scripts="".join(" " + h for h in hashes))


def split_host(host: str) -> str:
    """The name of a ``Host`` header value, without its port (IPv6 brackets kept)."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[: host.find("]") + 1] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def host_allowed(host: str, allowed: tuple[str, ...]) -> bool:
    """Whether ``host`` (no port) matches an entry: a name, ``*.domain`` or ``*`` (any)."""
    for entry in allowed:
        if entry == "*" or host == entry:
            return True
        if entry.startswith("*.") and host.endswith(entry[1:]):
            return True
    return False


class SecurityMiddleware:
    """Allowed hosts, origin check, relative redirects, Retry-After, security headers."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        settings = settings_of(scope.get("app"))
        headers = Headers(scope=scope)
        host_header = headers.get("host", "")
        host = split_host(host_header)
        if not host_allowed(host, settings.allowed_hosts):
            await self._refuse(
                scope,
                receive,
                send,
                400,
                f"host {host!r} is not served here; the allowed hosts are "
                f"{', '.join(settings.allowed_hosts)} (BUFSIZE_ALLOWED_HOSTS)",
            )
            return
        origin = headers.get("origin")
        if scope["method"] in UNSAFE_METHODS and origin is not None:
            if urlsplit(origin).netloc.lower() != host_header.strip().lower():
                await self._refuse(
                    scope,
                    receive,
                    send,
                    403,
                    f"a {scope['method']} from the web page of another origin ({origin}) is "
                    "refused; send it from this service's own pages or without an Origin",
                )
                return
        await self.app(scope, receive, _Answer(send, host_header, settings).send)

    @staticmethod
    async def _refuse(scope: Scope, receive: Receive, send: Send, status: int, why: str) -> None:
        response = JSONResponse({"detail": why}, status_code=status)
        response.headers.update(COMMON_HEADERS)
        response.headers["Content-Security-Policy"] = NON_HTML_POLICY
        await response(scope, receive, send)


class _Answer:
    """Wraps ``send``: adds the headers; holds an HTML body back until it can hash its scripts."""

    def __init__(self, send: Send, host: str, settings: Settings) -> None:
        self._send = send
        self._host = host.strip().lower()
        self._retry_after = str(settings.retry_after_s)
        self._start: Message | None = None
        self._body: list[bytes] = []

    async def send(self, message: Message) -> None:
        if message["type"] == "http.response.start":
            headers = MutableHeaders(scope=message)
            for name, value in COMMON_HEADERS.items():
                headers.setdefault(name, value)
            if message["status"] == 429:
                headers.setdefault("Retry-After", self._retry_after)
            location = headers.get("location")
            if location is not None:
                parts = urlsplit(location)
                if parts.netloc and parts.netloc.lower() == self._host:
                    headers["Location"] = parts.path + (f"?{parts.query}" if parts.query else "")
            if headers.get("content-type", "").startswith("text/html"):
                self._start = message  # the policy waits for the body's scripts
                return
            headers.setdefault("Content-Security-Policy", NON_HTML_POLICY)
            await self._send(message)
            return
        if message["type"] == "http.response.body" and self._start is not None:
            self._body.append(message.get("body", b""))
            if message.get("more_body", False):
                return
            body = b"".join(self._body)
            headers = MutableHeaders(scope=self._start)
            headers["Content-Security-Policy"] = html_policy(body)
            if "content-length" in headers:
                headers["Content-Length"] = str(len(body))
            await self._send(self._start)
            await self._send({"type": "http.response.body", "body": body})
            return
        await self._send(message)
