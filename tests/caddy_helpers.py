"""Caddy in front of a live quintet-serve, on loopback, with ``tls internal``."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import tiers

CADDY = "caddy"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def caddy_in_front(upstream: str, workdir: Path, prefix: str = "", timeout: float = 30.0) -> Iterator[str]:
    """Caddy serving ``upstream`` at https://localhost:PORT{prefix}/ (``tls internal``; the
    prefix stripped and sent as X-Forwarded-Prefix): yields that address."""
    tiers.require("server")
    port, http_port = _free_port(), _free_port()
    target = upstream.removeprefix("http://")
    site = (f"\thandle_path {prefix}/* {{\n\t\treverse_proxy {target} {{\n"
            f"\t\t\theader_up X-Forwarded-Prefix {prefix}\n\t\t}}\n\t}}\n\tredir {prefix} {prefix}/\n"
            if prefix else f"\treverse_proxy {target}\n")
    config = workdir / "Caddyfile"
    config.write_text(f"{{\n\tadmin off\n\tauto_https disable_redirects\n\tskip_install_trust\n"
                      f"\tstorage file_system {workdir / 'caddy-data'}\n\thttp_port {http_port}\n"
                      f"\thttps_port {port}\n}}\n"
                      f"https://localhost:{port} {{\n\tbind 127.0.0.1\n\ttls internal\n{site}}}\n")
    env = {**os.environ, "HOME": str(workdir), "XDG_DATA_HOME": str(workdir / "xdg-data"),
           "XDG_CONFIG_HOME": str(workdir / "xdg-config")}
    log = (workdir / "caddy.log").open("w")
    proc = subprocess.Popen([CADDY, "run", "--config", str(config), "--adapter", "caddyfile"], stdout=log,
                            stderr=subprocess.STDOUT, env=env)
    public = f"https://localhost:{port}{prefix}/"
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                if httpx.get(f"{public}api/health", verify=False, timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert proc.poll() is None, (workdir / "caddy.log").read_text()
            assert time.monotonic() < deadline, (workdir / "caddy.log").read_text()
            time.sleep(0.1)
        yield public
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()
