"""quintet-serve behind a real proxy: Debian's Caddy with ``tls internal`` on loopback.

    with caddy_in_front(upstream, "/quintet/", tmp_path) as site:
        site.base          # https://localhost:PORT/quintet (where the page is)
        site.client()      # an httpx.Client that trusts Caddy's local CA
        site.ca            # the CA's certificate (PEM), for other clients

Tests that use these need the ``server`` marker, and skip (with a reason) where ``/usr/bin/caddy``
is missing: ``requires_caddy``.  A browser context opens ``site.base`` with ``ignore_https_errors``
(Caddy's local CA is not in the browser's store).
"""

from __future__ import annotations

import contextlib
import os
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

__all__ = ["CADDY", "requires_caddy", "caddy_in_front", "Site", "free_port"]

CADDY = Path("/usr/bin/caddy")
requires_caddy = pytest.mark.skipif(not CADDY.exists(), reason="Debian's caddy is not installed (/usr/bin/caddy; "
                                                                 ".ci/run installs it with apt)")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Site:
    """quintet-serve behind Caddy: ``base`` where the page is (https, no trailing slash), ``ca``
    Caddy's root certificate, ``upstream`` the server's own address."""

    base: str
    ca: Path
    upstream: str

    @property
    def origin(self) -> str:
        return "/".join(self.base.split("/")[:3])

    def client(self, **kwargs: object) -> httpx.Client:
        return httpx.Client(verify=ssl.create_default_context(cafile=str(self.ca)), timeout=60,
                            **kwargs)  # type: ignore[arg-type]


def _site(prefix: str, upstream: str) -> str:
    """The Caddyfile's site body: the page at ``prefix`` ("/" or "/quintet/"), the prefix
    stripped before the server and told it in X-Forwarded-Prefix."""
    target = upstream.removeprefix("http://")
    if prefix == "/":
        return f"\treverse_proxy {target}\n"
    path = prefix.rstrip("/")
    return (f"\tredir {path} {path}/\n\thandle_path {path}/* {{\n\t\treverse_proxy {target} {{\n"
            f"\t\t\theader_up X-Forwarded-Prefix {path}\n\t\t}}\n\t}}\n")


@contextlib.contextmanager
def caddy_in_front(upstream: str, prefix: str, workdir: Path) -> Iterator[Site]:
    """Caddy on a free loopback port with ``tls internal``, proxying to ``upstream``
    (``http://127.0.0.1:PORT``) with the page at ``prefix``.  Stopped at the end."""
    tiers.require("server")
    https, http = free_port(), free_port()
    data = workdir / "caddy"
    data.mkdir(parents=True, exist_ok=True)
    config = workdir / "Caddyfile"
    config.write_text("{\n\tadmin off\n\tauto_https disable_redirects\n\tskip_install_trust\n"
                      f"\thttp_port {http}\n\thttps_port {https}\n"
                      f"\tstorage file_system {{\n\t\troot {data}\n\t}}\n}}\n\n"
                      f"localhost:{https} {{\n\tbind 127.0.0.1\n\ttls internal\n{_site(prefix, upstream)}}}\n")
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
