"""A public server as ``docs/public-server.md`` runs it (issue 30): quintet-serve behind Debian's
Caddy with ``tls internal`` on loopback — the docs' own Caddyfiles, at the root and under
``/quintet/`` — checked over HTTPS: the page and its files, the links the server makes (a
seat's, an invitation's, a joined friend's), a table's event stream through the proxy, and
forwarded headers read from a trusted proxy only.  The docs' nginx example is checked by
nginx itself, in front of the server."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import time
from pathlib import Path

import httpx
import pytest
from caddy_helpers import ROOT, Site, free_port, public_server, requires_caddy
from serve_helpers import live_server

pytestmark = [pytest.mark.server, requires_caddy]

LINK = r"[\w-]+"


def play(site: Site, client: httpx.Client, page: bool = True) -> dict:
    """Open a friend's table through the proxy and join it by its invitation, as the page does
    (with its ``Origin``; ``page`` False: as a script); what came back."""
    origin = {"Origin": site.origin} if page else {}
    created = client.post(f"{site.base}/api/tables", json={"opponent": "friend"}, headers=origin)
    assert created.status_code == 201, created.text
    data = created.json()
    table, code = re.fullmatch(rf"(.*)/#join/({LINK})/({LINK})", data["invitation"]["link"]).group(2, 3)
    joined = client.post(f"{site.base}/api/tables/{table}/join", json={"invitation": code}, headers=origin)
    assert joined.status_code == 201, joined.text
    return {"created": data, "joined": joined.json(), "table": table}


@pytest.mark.parametrize("prefix", ["/", "/quintet/"])
def test_links_through_caddy_at_the_root_and_under_a_path(tmp_path, prefix):
    with public_server(tmp_path, prefix) as site, site.client() as client:
        page = client.get(f"{site.base}/")
        assert page.status_code == 200 and "Quintet advisor" in page.text
        assert "frame-ancestors 'none'" in page.headers["content-security-policy"]
        for asset in re.findall(r'(?:src|href)="([^"#]+)"', page.text):
            assert not asset.startswith("/")  # relative: under the prefix as at the root
            assert client.get(f"{site.base}/{asset}").status_code == 200, asset
        if prefix != "/":  # the path without its slash leads to the page
            assert client.get(site.base, follow_redirects=False).headers["location"].endswith("/quintet/")
        got = play(site, client)
        created, joined, table = got["created"], got["joined"], got["table"]
        # every link is the public one: https, Caddy's port, the prefix — not the server's own address
        assert created["link"] == f"{site.base}/#play/{table}/1/{created['token']}"
        assert created["invitation"]["link"].startswith(f"{site.base}/#join/{table}/")
        assert joined["link"] == f"{site.base}/#play/{table}/2/{joined['token']}"
        assert site.upstream not in json.dumps(got)
        assert "localhost is this machine's own address" in created["warning"]  # a loopback site: said so
        # a seat's view and its event stream through the proxy, not buffered
        seat = {"Authorization": f"Bearer {created['token']}"}
        assert client.get(f"{site.base}/api/tables/{table}", headers=seat).json()["presence"]["joined"]
        with client.stream("GET", f"{site.base}/api/tables/{table}/events", headers=seat) as stream:
            lines = stream.iter_lines()
            assert next(lines) == "event: view"
            assert json.loads(next(lines)[6:])["view"]["seat"] == 1
        # the page's own origin passes the cross-site check through the proxy; another site's does not
        other = client.post(f"{site.base}/api/tables", json={"opponent": "friend"},
                            headers={"Origin": "https://evil.example"})
        assert other.status_code == 403


def test_a_public_url_is_every_links_start(tmp_path):
    public = "https://quintet.example.org/quintet"
    with public_server(tmp_path, "/quintet/", "--public-url", public) as site, site.client() as client:
        got = play(site, client)
        assert got["created"]["link"].startswith(f"{public}/#play/") and got["created"]["warning"] is None
        assert got["joined"]["link"].startswith(f"{public}/#play/")


def test_a_proxy_that_keeps_the_prefix_with_root_path(tmp_path):
    caddyfile = "quintet.example.org {\n\thandle /quintet/* {\n\t\treverse_proxy 127.0.0.1:8000\n\t}\n}\n"
    with public_server(tmp_path, "/quintet/", "--root-path", "/quintet", caddyfile=caddyfile) as site, \
            site.client() as client:
        assert client.get(f"{site.base}/").status_code == 200
        assert client.get(f"{site.base}/static/app.js").status_code == 200
        assert play(site, client)["created"]["link"].startswith(f"{site.base}/#play/")


def test_forwarded_headers_are_read_from_trusted_proxies_only(tmp_path):
    # Caddy (on loopback) is trusted by default: what a client forges is replaced or not read
    with public_server(tmp_path, "/") as site, site.client() as client:
        forged = {"X-Forwarded-Host": "evil.example", "X-Forwarded-Proto": "http", "X-Forwarded-For": "6.6.6.6",
                  "X-Forwarded-Prefix": "/evil", "Forwarded": "for=6.6.6.6;host=evil.example;proto=http"}
        r = client.post(f"{site.base}/api/tables", json={"opponent": "friend"}, headers=forged)
        assert r.status_code == 201 and r.json()["link"].startswith(f"{site.base}/#play/")
        # the same headers sent to the server directly, from loopback (trusted), are read — and checked
        direct = httpx.post(f"{site.upstream}/api/tables", json={"opponent": "friend"},
                            headers={"X-Forwarded-Host": "192.0.2.1:8443", "X-Forwarded-Proto": "https",
                                     "X-Forwarded-For": "203.0.113.5"})
        assert direct.json()["link"].startswith("https://192.0.2.1:8443/#play/")
        refused = httpx.post(f"{site.upstream}/api/tables", json={"opponent": "friend"},
                             headers={"X-Forwarded-Host": "evil.example"})
        assert refused.status_code == 400 and "evil.example" in refused.json()["error"]
    # a server that trusts no proxy reads none of Caddy's headers: its links follow the connection
    with public_server(tmp_path / "untrusting", "/quintet/", "--trusted-proxies", "none") as site, \
            site.client() as client:
        port = site.base.split(":")[2].split("/")[0]
        link = play(site, client, page=False)["created"]["link"]
        assert link.startswith(f"http://localhost:{port}/#play/")  # not https, no /quintet: headers ignored
        # and the page itself (https) is not the origin the server believes it has: said so
        refused = client.post(f"{site.base}/api/tables", json={"opponent": "friend"}, headers={"Origin": site.origin})
        assert refused.status_code == 403 and "--public-url" in refused.json()["error"]


NGINX = Path("/usr/sbin/nginx")


@pytest.mark.skipif(not NGINX.exists() or shutil.which("openssl") is None, reason="nginx or openssl not installed")
def test_the_nginx_example_in_front_of_the_server(tmp_path):
    """The docs' nginx server block, on a loopback port with a self-signed certificate."""
    doc = (ROOT / "docs" / "public-server.md").read_text(encoding="utf-8")
    block = re.search(r"```nginx\n# nginx: the page at the root.*?\n(server \{.*?\n\})\n```", doc, re.S).group(1)
    key, cert = tmp_path / "key.pem", tmp_path / "cert.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(cert),
                    "-days", "1", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost"],
                   check=True, capture_output=True)
    port = free_port()
    with live_server("--workers", "1", "--store", str(tmp_path / "s.sqlite")) as (upstream, _):
        server = (block.replace("listen 443 ssl;", f"listen 127.0.0.1:{port} ssl;")
                  .replace("server_name quintet.example.org;", "server_name localhost;")
                  .replace("/etc/letsencrypt/live/quintet.example.org/fullchain.pem", str(cert))
                  .replace("/etc/letsencrypt/live/quintet.example.org/privkey.pem", str(key))
                  .replace("http://127.0.0.1:8000", upstream))
        conf = tmp_path / "nginx.conf"
        conf.write_text(f"daemon off;\npid {tmp_path}/nginx.pid;\nerror_log {tmp_path}/error.log;\n"
                        f"events {{}}\nhttp {{\naccess_log off;\nclient_body_temp_path {tmp_path};\n"
                        f"proxy_temp_path {tmp_path};\n{server}\n}}\n")
        check = subprocess.run([str(NGINX), "-t", "-c", str(conf), "-p", str(tmp_path)], capture_output=True, text=True)
        assert check.returncode == 0, check.stderr
        proc = subprocess.Popen([str(NGINX), "-c", str(conf), "-p", str(tmp_path)], stderr=subprocess.PIPE)
        try:
            base = f"https://localhost:{port}"
            site = Site(base, cert, upstream)
            client = site.client()
            for _ in range(100):
                try:
                    client.get(f"{base}/api/health")
                    break
                except httpx.ConnectError:
                    time.sleep(0.1)
            got = play(site, client)
            assert got["created"]["link"].startswith(f"{base}/#play/")
            seat = {"Authorization": f"Bearer {got['created']['token']}"}
            with client.stream("GET", f"{base}/api/tables/{got['table']}/events", headers=seat) as stream:
                assert next(stream.iter_lines()) == "event: view"  # not held back by a buffer
            forged = client.post(f"{base}/api/tables", json={"opponent": "friend"},
                                 headers={"X-Forwarded-For": "6.6.6.6", "X-Forwarded-Prefix": "/evil",
                                          "Forwarded": "host=evil.example"})
            assert forged.json()["link"].startswith(f"{base}/#play/")
        finally:
            proc.terminate()
            proc.wait(10)


@pytest.mark.browser
@pytest.mark.parametrize("prefix", ["/", "/quintet/"])
def test_the_page_through_caddy_under_its_csp(tmp_path, prefix):
    """The page in Debian's chromium through Caddy, its Content-Security-Policy enforced (no
    bypass): it loads its files, deals, starts a friend's match, and the friend's browser joins by
    the invitation's link — with no error and no CSP violation."""
    import tiers

    playwright_api = pytest.importorskip("playwright.sync_api", reason="the Playwright package is not installed")
    from browser_helpers import CHROMIUM, CHROMIUM_ARGS, DESKTOP, TIMEOUT_MS

    with public_server(tmp_path, prefix) as site, playwright_api.sync_playwright() as p:
        tiers.require("browser")
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        errors: list[str] = []
        try:
            pages = []
            for _ in range(2):
                context = browser.new_context(viewport=DESKTOP, ignore_https_errors=True)  # Caddy's local CA
                pg = context.new_page()
                pg.set_default_timeout(TIMEOUT_MS)
                pg.on("pageerror", lambda exc: errors.append(str(exc)))
                pg.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
                pg.add_init_script("document.addEventListener('securitypolicyviolation', "
                                   "e => console.error('CSP violation: ' + e.violatedDirective + ' ' + e.blockedURI))")
                pages.append(pg)
            host, friend = pages
            host.goto(f"{site.base}/")
            host.wait_for_selector("body[data-ready='true']")
            host.click("#random-deal")
            host.wait_for_selector("#exposed-count:text-matches('^7 of 7$')")  # a selector: eval is forbidden
            host.click("#tab-play")
            host.select_option("#play-opponent", "friend")
            host.click("#play-start")
            host.wait_for_selector("#panel-play[data-status]")
            link = host.input_value("#play-share-link")
            assert link.startswith(f"{site.base}/#join/"), link
            friend.goto(link)
            friend.wait_for_selector("#play-accept[aria-disabled='false']")
            friend.click("#play-accept")
            friend.wait_for_selector("#panel-play[data-status='placing']")
            assert "#join" not in friend.url  # the invitation is spent and gone from the address bar
        finally:
            browser.close()
        assert errors == [], errors
