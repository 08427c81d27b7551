"""nginx (Debian's, running deploy/nginx/portal.conf) follows gunicorn to a new address without
a restart, as when compose recreates the web container: the name in PORTAL_UPSTREAM is looked up
again through PORTAL_RESOLVER. A small DNS server on loopback plays Docker's embedded one; two
HTTP servers on the same port of 127.0.0.1 and 127.0.0.2 play the old and the new container."""

import os
import socket
import struct
import threading
import time
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from deploy import stack


class _Dns:
    """Answers every A question for ``name`` with the address it holds now (TTL 600 s, as
    Docker's DNS does); any other question gets no answer. Counts the A questions."""

    def __init__(self, name: str, address: str):
        self.name, self.address, self.asked = name, address, 0
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join(5)
        self.sock.close()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                query, client = self.sock.recvfrom(512)
            except TimeoutError:
                continue
            self.sock.sendto(self._answer(query), client)

    def _answer(self, query: bytes) -> bytes:
        ident, flags = struct.unpack("!HH", query[:4])
        labels, offset = [], 12
        while query[offset]:
            length = query[offset]
            labels.append(query[offset + 1 : offset + 1 + length].decode().lower())
            offset += 1 + length
        qtype = struct.unpack("!H", query[offset + 1 : offset + 3])[0]
        question = query[12 : offset + 5]
        found = ".".join(labels) == self.name and qtype == 1
        self.asked += found
        header = struct.pack(
            "!HHHHHH",
            ident,
            0x8180 | (flags & 0x0100),  # a response, recursion available, RD echoed
            1,
            1 if found else 0,
            0,
            0,
        )
        answer = b""
        if found:
            answer = struct.pack("!HHHIH", 0xC00C, 1, 1, 600, 4) + socket.inet_aton(self.address)
        return header + question + answer


def _backend(address: str, port: int, says: str) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            body = says.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer((address, port), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def _get(port: int) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz/", timeout=10) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, ""


def test_nginx_sends_to_the_new_address_of_a_recreated_web_without_a_restart(tmp_path):
    if stack.nginx_binary() is None:
        pytest.fail("nginx is not installed (scripts/lib.sh: ensure_nginx)")
    port = stack.free_port()
    old = _backend("127.0.0.1", port, "old web")
    new = _backend("127.0.0.2", port, "new web")  # the recreated container, same port
    proxy_port = stack.free_port()
    with _Dns("web", "127.0.0.1") as dns:
        conf = stack.render_nginx(
            tmp_path / "nginx",
            listen=proxy_port,
            upstream=f"web:{port}",
            static_root=tmp_path,
            resolver=f"127.0.0.1:{dns.port}",
        )
        text = (conf.parent / "portal.conf").read_text()
        assert f"resolver 127.0.0.1:{dns.port} valid=10s ipv6=off;" in text
        assert "${" not in text
        proxy = stack.nginx(conf, tmp_path / "nginx.log").start()
        try:
            stack.wait_for(lambda: _get(proxy_port) == (200, "old web"), timeout=30, what="nginx")
            master = proxy.process.pid
            assert dns.asked >= 1  # the name came from the resolver, not from /etc/hosts

            # Compose recreates web: the old container is gone, its name has a new address.
            old.shutdown()
            old.server_close()
            dns.address = "127.0.0.2"
            started = time.monotonic()
            stack.wait_for(
                lambda: _get(proxy_port) == (200, "new web"), timeout=30, what="the new web"
            )
            moved_after = time.monotonic() - started
            # Looked up again within valid= (10 s) of the last lookup, not the DNS TTL (600 s).
            assert moved_after < 15, moved_after
            assert all(_get(proxy_port) == (200, "new web") for _ in range(5))
            assert proxy.running and proxy.process.pid == master  # no restart, no reload
            os.kill(master, 0)
        finally:
            proxy.stop()
            new.shutdown()
            new.server_close()
