"""Where ``quintet-serve`` is reached from: the address of the links it makes, the proxies it
trusts, the client a request comes from, the host names it answers to.

* **Links** — with ``--public-url https://host[:port][/path]`` (or ``$QUINTET_PUBLIC_URL``)
  every link the server makes starts with it.  Without it a link follows the request: its
  scheme and ``Host``, or — from a proxy the server trusts (``--trusted-proxies``, loopback by
  default) — the proxy's ``X-Forwarded-Proto``, ``-Host``, ``-Port`` and ``-Prefix``, or when it
  sends none of ``X-Forwarded-For``, ``-Proto``, ``-Host`` its ``Forwarded`` (RFC 7239; Caddy and
  nginx keep the X-Forwarded headers and pass a client's ``Forwarded`` on unchanged, so that
  one is read only from a proxy that keeps it); under ``--root-path`` (or
  ``X-Forwarded-Prefix``) the page's path.
  A link to a loopback or unspecified address (``127.0.0.1``, ``localhost``, ``0.0.0.0``)
  reaches no other machine: it comes with a warning that says how to publish the server.
* **The client's address** — the connection's peer, or behind trusted proxies the nearest
  address in ``Forwarded: for=`` / ``X-Forwarded-For`` that is not one of them (the per-client
  limits count by it).
* **Host names** — a request whose host (after a trusted proxy's) is not one the server
  answers to is refused (a DNS-rebinding page cannot reach a server on this machine through a
  name of its own): ``localhost``, any IP address, the public URL's host, the machine's own
  names when it listens beyond loopback, and ``--allowed-hosts``.

Forwarded headers from any other peer are ignored: a client cannot choose the links the
server makes for it, nor the address it is counted as.
"""

from __future__ import annotations

import ipaddress
import re
import socket
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from quintet.faults import InputError

__all__ = ["Public", "Origin", "PublicError", "parse_public_url", "parse_proxies", "parse_hosts", "parse_origins",
           "parse_root_path", "request_origin", "client_address", "public_base", "link_warning", "LOOPBACK_PROXIES",
           "is_loopback_bind", "machine_names"]

IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network
LOOPBACK_PROXIES: tuple[IPNetwork, ...] = (ipaddress.ip_network("127.0.0.0/8"), ipaddress.ip_network("::1/128"))
MAX_HOST = 255
_HOST = re.compile(r"(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]{0,253}[A-Za-z0-9.])?)(?::[0-9]{1,5})?")
_NAME = re.compile(r"(?:\*\.)?[A-Za-z0-9](?:[A-Za-z0-9.-]{0,253}[A-Za-z0-9])?\.?")
_PREFIX = re.compile(r"(?:/[A-Za-z0-9._~!$&'()*+,;=:@%-]+)*")
_FORWARDED_PAIR = re.compile(r'\s*([A-Za-z]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^;,\s]*)\s*')


class PublicError(InputError):
    """An option of the server's address that cannot be used (one line)."""


@dataclass(frozen=True)
class Public:
    """The server's address as the world sees it.  ``public_url``: every link's start
    (``https://host[:port][/path]``, no trailing slash; None: follow the request);
    ``root_path``: the path the page is served under behind a proxy (``/quintet``; "" at the
    root); ``trusted_proxies``: the peers whose forwarded headers are read; ``allowed_hosts``:
    host names beyond the defaults (``*``: any, ``*.example.org``: its subdomains);
    ``cors_origins``: origins whose pages may call the API (none: no CORS);
    ``machine_names``: the machine's own names, allowed when it listens beyond loopback."""

    public_url: str | None = None
    root_path: str = ""
    trusted_proxies: tuple[IPNetwork, ...] = LOOPBACK_PROXIES
    allowed_hosts: tuple[str, ...] = ()
    cors_origins: tuple[str, ...] = ()
    machine_names: tuple[str, ...] = field(default=())

    @property
    def public_host(self) -> str | None:
        return None if self.public_url is None else (urlsplit(self.public_url).hostname or None)

    @property
    def public_origin(self) -> str | None:
        """The public URL's web origin (scheme://host[:port])."""
        if self.public_url is None:
            return None
        parts = urlsplit(self.public_url)
        return Origin(parts.scheme, parts.netloc).origin

    def trusts(self, address: str | None) -> bool:
        ip = _ip(address)
        return ip is not None and any(ip in net for net in self.trusted_proxies)

    def host_allowed(self, host: str) -> bool:
        """Whether the server answers to ``host`` (``name[:port]``, as a Host header)."""
        name = _hostname(host)
        if name is None:
            return False
        if name == "localhost" or _ip(name) is not None or "*" in self.allowed_hosts:
            return True
        names = {self.public_host, *self.machine_names, *self.allowed_hosts}
        return name in names or any(n.startswith("*.") and name.endswith(n[1:]) for n in names if n)


@dataclass(frozen=True)
class Origin:
    """Where a request was sent, as its client saw it: ``scheme``, ``host`` (``name[:port]``)
    and ``prefix`` (the path the page is under, "" at the root)."""

    scheme: str
    host: str
    prefix: str = ""

    @property
    def base(self) -> str:
        """``scheme://host/prefix``, no trailing slash: where links start."""
        return f"{self.scheme}://{self.host}{self.prefix}"

    @property
    def origin(self) -> str:
        """The web origin (``Origin`` header's form): scheme://host[:port], the default port left out."""
        name = self.host
        default = {"http": ":80", "https": ":443"}.get(self.scheme)
        if default and name.endswith(default):
            name = name[: -len(default)]
        return f"{self.scheme}://{name.lower()}"


# ---------------------------------------------------------------------- parsing the options


def parse_public_url(text: str, what: str = "--public-url") -> str:
    """``https://host[:port][/path]`` checked and normalised (no trailing slash)."""
    try:
        parts = urlsplit(text.strip())
        port = parts.port
    except ValueError as exc:
        raise PublicError(f"{what}: {exc} in {text!r}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise PublicError(f"{what}: expected http(s)://HOST[:PORT][/PATH], got {text!r}")
    if parts.query or parts.fragment or parts.username or parts.password:
        raise PublicError(f"{what}: no query, fragment or user name, got {text!r}")
    path = parts.path.rstrip("/")
    if not _PREFIX.fullmatch(path):
        raise PublicError(f"{what}: a path of plain segments, got {parts.path!r}")
    host = parts.hostname if ":" not in parts.hostname else f"[{parts.hostname}]"
    return f"{parts.scheme}://{host.lower()}{'' if port is None else f':{port}'}{path}"


def parse_root_path(text: str) -> str:
    """``/quintet`` (no trailing slash; "" or "/": the root)."""
    path = "/" + text.strip().strip("/") if text.strip().strip("/") else ""
    if not _PREFIX.fullmatch(path):
        raise PublicError(f"--root-path: a path such as /quintet, got {text!r}")
    return path


def parse_proxies(items: Iterable[str]) -> tuple[IPNetwork, ...]:
    """Addresses and networks (``127.0.0.1``, ``10.0.0.0/8``, ``::1``), comma-separated or
    repeated; ``none``: trust no proxy."""
    out: list[IPNetwork] = []
    for item in items:
        for word in (w.strip() for w in item.split(",")):
            if not word or word == "none":
                continue
            try:
                out.append(ipaddress.ip_network(word, strict=False))
            except ValueError:
                raise PublicError(f"--trusted-proxies: not an address or network: {word!r}") from None
    return tuple(out)


def parse_hosts(items: Iterable[str]) -> tuple[str, ...]:
    """Host names (``quintet.example.org``, ``*.example.org``, ``*``), comma-separated or repeated."""
    out = []
    for item in items:
        for word in (w.strip().lower() for w in item.split(",")):
            if word == "*" or (word and _NAME.fullmatch(word)):
                out.append(word.rstrip("."))
            elif word:
                raise PublicError(f"--allowed-hosts: not a host name: {word!r}")
    return tuple(out)


def parse_origins(items: Iterable[str]) -> tuple[str, ...]:
    """Web origins (``https://app.example.org``) allowed to call the API from their pages."""
    out = []
    for item in items:
        for word in (w.strip() for w in item.split(",")):
            if not word:
                continue
            url = parse_public_url(word, "--cors-origin")
            if urlsplit(url).path:
                raise PublicError(f"--cors-origin: an origin has no path, got {word!r}")
            out.append(Origin(urlsplit(url).scheme, urlsplit(url).netloc).origin)
    return tuple(out)


def is_loopback_bind(host: str) -> bool:
    """Whether listening on ``host`` reaches this machine only."""
    ip = _ip(host)
    return host == "localhost" or (ip is not None and ip.is_loopback)


def machine_names() -> tuple[str, ...]:
    """This machine's own names (as a LAN client would type them)."""
    names = {socket.gethostname().lower()}
    try:
        names.add(socket.getfqdn().lower())
    except OSError:
        pass
    return tuple(sorted(n for n in names if n and _NAME.fullmatch(n)))


# ---------------------------------------------------------------------- a request


def _ip(text: str | None) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    if not text:
        return None
    try:
        return ipaddress.ip_address(text.strip("[]"))
    except ValueError:
        return None


def _hostname(host: str) -> str | None:
    """The name of a ``name[:port]`` (lower case, no trailing dot); None if it is not one."""
    if len(host) > MAX_HOST or not _HOST.fullmatch(host):
        return None
    if host.startswith("["):
        return host[1: host.index("]")].lower()
    return host.rsplit(":", 1)[0].lower().rstrip(".") if ":" in host else host.lower().rstrip(".")


def _forwarded(value: str) -> list[dict[str, str]]:
    """RFC 7239 ``Forwarded``: its elements, each its parameters (names lower-cased, quotes removed)."""
    elements = []
    for element in re.split(r',(?=(?:[^"]*"[^"]*")*[^"]*$)', value):
        params = {}
        for pair in element.split(";"):
            m = _FORWARDED_PAIR.fullmatch(pair)
            if m:
                v = m.group(2)
                params[m.group(1).lower()] = v[1:-1].replace('\\"', '"') if v.startswith('"') else v
        elements.append(params)
    return elements


def _node(value: str | None) -> str | None:
    """The address of a ``for=`` node (``1.2.3.4:5``, ``"[::1]:5"``); None if obfuscated or unknown."""
    if not value:
        return None
    if value.startswith("["):
        return value[1:value.index("]")] if "]" in value else None
    return value.rsplit(":", 1)[0] if value.count(":") == 1 else value


def _headers(scope: Mapping[str, Any]) -> dict[str, str]:
    out: dict[str, str] = {}
    for name, value in scope.get("headers", ()):
        key = name.decode("latin-1").lower()
        text = value.decode("latin-1")
        out[key] = f"{out[key]},{text}" if key in out else text
    return out


def _last(value: str | None) -> str | None:
    """The nearest proxy's value of a list header (the last one)."""
    if value is None:
        return None
    return value.rsplit(",", 1)[-1].strip() or None


def _hops(public: Public, peer: str | None, headers: Mapping[str, str]) -> tuple[str | None, dict[str, str]]:
    """From a trusted peer: the client's address (the nearest untrusted hop) and what its
    proxies said of the request (proto, host, port, prefix); else the peer and nothing."""
    if not public.trusts(peer):
        return peer, {}
    said: dict[str, str] = {}
    client = peer
    if any(h in headers for h in ("x-forwarded-for", "x-forwarded-proto", "x-forwarded-host", "x-forwarded-port")):
        for hop in reversed(headers.get("x-forwarded-for", "").split(",")):
            address = _node(hop.strip())
            if address is None:
                continue
            client = address
            if not public.trusts(client):
                break
        for key in ("proto", "host", "port"):
            value = _last(headers.get(f"x-forwarded-{key}"))
            if value:
                said[key] = value
    elif "forwarded" in headers:  # RFC 7239, from a proxy that sends no X-Forwarded-*
        elements = _forwarded(headers["forwarded"])
        chosen: dict[str, str] = {}
        for element in reversed(elements):  # the nearest proxy's element is the last
            chosen = element
            client = _node(element.get("for")) or client
            if not public.trusts(client):
                break
        said = {k: chosen[k] for k in ("proto", "host") if chosen.get(k)}
    prefix = _last(headers.get("x-forwarded-prefix"))
    if prefix is not None:
        said["prefix"] = prefix
    return client, said


def client_address(public: Public, scope: Mapping[str, Any]) -> str:
    """The client's address: the peer, or behind trusted proxies the nearest untrusted hop."""
    peer = (scope.get("client") or (None, None))[0]
    client, _ = _hops(public, peer, _headers(scope))
    return client or "unknown"


def request_origin(public: Public, scope: Mapping[str, Any]) -> Origin:
    """Where the request was sent, as its client saw it (``PublicError``: a forwarded or Host
    value that is not a host, a scheme that is not http or https, a prefix that is not a path)."""
    headers = _headers(scope)
    peer = (scope.get("client") or (None, None))[0]
    _, said = _hops(public, peer, headers)
    scheme = said.get("proto", scope.get("scheme", "http")).lower()
    if scheme not in ("http", "https"):
        raise PublicError(f"a forwarded protocol of {scheme[:20]!r}: expected http or https")
    host = said.get("host") or headers.get("host")
    if host is None:
        server = scope.get("server") or ("localhost", None)
        host = server[0] if ":" not in str(server[0]) else f"[{server[0]}]"
        if server[1] is not None:
            host += f":{server[1]}"
    if _hostname(host) is None:
        raise PublicError(f"Host {host[:40]!r}{'…' if len(host) > 40 else ''} is not a host name")
    if "port" in said:
        if not said["port"].isdigit() or not 0 < int(said["port"]) < 65536:
            raise PublicError(f"a forwarded port of {said['port'][:20]!r}: expected 1 to 65535")
        name = host.rsplit(":", 1)[0] if not host.endswith("]") else host
        host = f"{name}:{said['port']}"
    default = {"http": ":80", "https": ":443"}[scheme]
    if host.endswith(default):  # the scheme's own port is left out of links
        host = host[: -len(default)]
    prefix = said.get("prefix", public.root_path)
    try:
        prefix = parse_root_path(prefix)
    except PublicError:
        raise PublicError(f"a forwarded prefix of {prefix[:40]!r}: expected a path such as /quintet") from None
    return Origin(scheme, host, prefix)


def public_base(public: Public, scope: Mapping[str, Any]) -> str:
    """Where every link of this request starts: ``--public-url``, or the request's origin."""
    return public.public_url or request_origin(public, scope).base


def link_warning(base: str) -> str | None:
    """Why a link starting with ``base`` reaches no other machine, and how to publish the
    server; None when it may (a name or an address other than loopback and unspecified)."""
    name = urlsplit(base).hostname or ""
    ip = _ip(name)
    if name == "localhost" or name.endswith(".localhost") or (ip is not None and ip.is_loopback):
        where = f"{name} is this machine's own address"
    elif ip is not None and ip.is_unspecified:
        where = f"{name} is no machine's address (it means every address of the server)"
    else:
        return None
    return (f"This link reaches only the machine the server runs on: {where}, so a friend on another "
            "machine cannot open it. To publish the server, start it with --public-url https://YOUR-HOST (behind "
            "a proxy with TLS, see 'Running a public server'), or with --host 0.0.0.0 and open the page by an "
            "address your friend can reach.")
