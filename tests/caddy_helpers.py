"""quintet-serve behind a real proxy: Debian's Caddy with ``tls internal`` on loopback, configured
by the Caddyfiles of ``docs/public-server.md`` (so the page's examples are what is tested).

    with public_server(tmp_path, "/quintet/") as site:   # quintet-serve behind Caddy, under /quintet/
        site.base          # https://localhost:PORT/quintet (where the page is)
        site.client()      # an httpx.Client that trusts Caddy's local CA
        site.ca            # the CA's certificate (PEM), for other clients
        site.upstream      # quintet-serve's own http://127.0.0.1:PORT

Tests that use these need the ``server`` marker, and skip (with a reason) where ``/usr/bin/caddy``
is missing: ``requires_caddy``.  A browser context opens ``site.base`` with ``ignore_https_errors``
(Caddy's local CA is not in the browser's store).
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import socket
import ssl
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
import tiers
from serve_helpers import ROOT, live_server

__all__ = ["CADDY", "requires_caddy", "doc_caddyfile", "doc_global_options", "caddy_in_front", "public_server", "Site",
           "free_port"]

CADDY = Path("/usr/bin/caddy")
DOC = ROOT / "docs" / "public-server.md"
requires_caddy = pytest.mark.skipif(not CADDY.exists(), reason="Debian's caddy is not installed (/usr/bin/caddy; "
                                                                 ".ci/run installs it with apt)")
PREFIXES = {"/": "the page at the root", "/quintet/": "the page under /quintet/"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def doc_caddyfile(prefix: str) -> str:
    """The Caddyfile of ``docs/public-server.md`` for the page at ``prefix`` ("/" or "/quintet/")."""
    return _doc_block(PREFIXES[prefix])


def doc_global_options() -> str:
    """What the global options of ``docs/public-server.md`` hold (inside their braces): the
    reverse proxy's lines in a log of their own, ``/var/log/caddy/proxy.log``."""
    block = _doc_block("global options")
    return block[block.index("{\n") + 2:block.rindex("}")]


def _doc_block(title: str) -> str:
    for block in re.findall(r"```caddy\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S):
        if block.startswith(f"# Caddyfile: {title}\n"):
            return block
    raise AssertionError(f"no Caddyfile '{title}' in {DOC}")


@dataclass
class Site:
    """quintet-serve behind Caddy: ``base`` where the page is (https, no trailing slash), ``ca``
    Caddy's root certificate, ``upstream`` the server's own address, ``args`` its options."""

    base: str
    ca: Path
    upstream: str
    args: tuple[str, ...] = ()

    @property
    def origin(self) -> str:
        return "/".join(self.base.split("/")[:3])

    def context(self) -> ssl.SSLContext:
        """A TLS context that trusts Caddy's local CA (or the test's certificate)."""
        return ssl.create_default_context(cafile=str(self.ca))

    def client(self, **kwargs: object) -> httpx.Client:
        return httpx.Client(verify=self.context(), timeout=60, **kwargs)  # type: ignore[arg-type]


@contextlib.contextmanager
def caddy_in_front(upstream: str, prefix: str, workdir: Path, caddyfile: str | None = None) -> Iterator[Site]:
    """Caddy on a free loopback port with ``tls internal``, proxying to ``upstream``
    (``http://127.0.0.1:PORT``) by the docs' Caddyfile for ``prefix`` (or ``caddyfile``, with
    ``quintet.example.org`` and ``127.0.0.1:8000`` in it as in the docs) and the docs' global
    options.  Caddy's log is ``workdir/caddy.log``, its reverse proxy's ``workdir/proxy.log``.
    Stopped at the end."""
    tiers.require("server")
    https, http = free_port(), free_port()
    port = upstream.rsplit(":", 1)[1]
    site = (caddyfile or doc_caddyfile(prefix)).replace("quintet.example.org {",
                                                          f"localhost:{https} {{\n\ttls internal")
    site = site.replace("127.0.0.1:8000", f"127.0.0.1:{port}")
    data = workdir / "caddy"
    data.mkdir(parents=True, exist_ok=True)
    config = workdir / "Caddyfile"
    options = doc_global_options().replace("/var/log/caddy/proxy.log", str(workdir / "proxy.log"))
    config.write_text("{\n\tadmin off\n\tauto_https disable_redirects\n\tskip_install_trust\n"
                      f"\thttp_port {http}\n\thttps_port {https}\n"
                      f"\tstorage file_system {{\n\t\troot {data}\n\t}}\n{options}}}\n\n{site}")
    env = dict(os.environ, HOME=str(workdir), XDG_DATA_HOME=str(workdir / "xdg-data"),
               XDG_CONFIG_HOME=str(workdir / "xdg-config"))
    log = (workdir / "caddy.log").open("w")
    proc = subprocess.Popen([str(CADDY), "run", "--config", str(config), "--adapter", "caddyfile"], env=env,
                            stdout=log, stderr=subprocess.STDOUT, cwd=workdir)
    try:
        ca = data / "pki" / "authorities" / "local" / "root.crt"
        base = f"https://localhost:{https}{prefix.rstrip('/')}"
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, (workdir / "caddy.log").read_text()
            if ca.exists():
                try:
                    trust = ssl.create_default_context(cafile=str(ca))
                    if httpx.get(f"{base}/api/health", verify=trust, timeout=5).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
            assert time.monotonic() < deadline, (workdir / "caddy.log").read_text()
            time.sleep(0.2)
        yield Site(base, ca, upstream)
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()
        shutil.rmtree(data, ignore_errors=True)


@contextlib.contextmanager
def public_server(workdir: Path, prefix: str = "/", *serve_args: str, caddyfile: str | None = None) -> Iterator[Site]:
    """quintet-serve (``live_server``, one worker, its store in ``workdir``, ``serve_args``)
    behind Caddy at ``prefix``: the fixture of the public-server tests, and of a browser game
    through a proxy."""
    workdir.mkdir(parents=True, exist_ok=True)  # the store's directory: the server makes none
    args = ("--workers", "1", "--store", str(workdir / "solutions.sqlite"), *serve_args)
    with live_server(*args) as (upstream, _), caddy_in_front(upstream, prefix, workdir, caddyfile) as site:
        site.args = args
        yield site
