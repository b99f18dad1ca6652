#!/usr/bin/env python3
"""Serves a folder on 127.0.0.1 as a static host set up for shardlens's page would (docs/web.md, "Publishing").

The page is served cross-origin isolated: `Cross-Origin-Opener-Policy: same-origin` and
`Cross-Origin-Embedder-Policy: require-corp`, which browsers ask of a page before its Web Workers may share
its memory (src/app/workers.rs). `--plain` leaves them out: the page then runs its work between frames, as on
a host that sends no headers and has no service worker (tests/web.sh uses both).

    scripts/serve.py [--directory DIR] [--plain] [PORT]
"""

import argparse
import functools
import http.server


class Handler(http.server.SimpleHTTPRequestHandler):
    isolated = True

    extensions_map = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".wasm": "application/wasm",
        ".js": "text/javascript",
        ".mjs": "text/javascript",
        ".webmanifest": "application/manifest+json",
    }

    def end_headers(self):
        if self.isolated:
            self.send_header("Cross-Origin-Opener-Policy", "same-origin")
            self.send_header("Cross-Origin-Embedder-Policy", "require-corp")
        # A rebuilt page is read again, never an old .wasm with a new .js.
        self.send_header("Cache-Control", "no-cache")
        super().end_headers()

    def log_message(self, format, *args):  # noqa: A002 (the base class's name)
        pass


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--directory", default=".")
    parser.add_argument("--plain", action="store_true", help="without the cross-origin isolation headers")
    parser.add_argument("port", type=int, nargs="?", default=8080)
    args = parser.parse_args()
    handler = type("PageHandler", (Handler,), {"isolated": not args.plain})
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", args.port), functools.partial(handler, directory=args.directory)
    )
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
