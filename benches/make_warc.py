#!/usr/bin/env python3
"""Build a WARC file from a folder of pages, laid out as a crawl's: every page a gzip member
holding its request, response and metadata records, with a redirect, an error page and an
image among them. For timing and memory checks of the WARC input on real pages.

    python3 benches/make_warc.py ../shared/data/wcxb/dev/html /tmp/dev.warc.gz [COPIES]

COPIES (default 1) repeats the folder under other addresses, for a long stream.
"""
import gzip
import pathlib
import sys
import uuid


def record(kind, uri, block, content_type):
    head = (
        f"WARC/1.0\r\nWARC-Type: {kind}\r\nWARC-Target-URI: {uri}\r\n"
        f"WARC-Date: 2026-01-01T00:00:00Z\r\nWARC-Record-ID: <urn:uuid:{uuid.uuid4()}>\r\n"
        f"Content-Type: {content_type}\r\nContent-Length: {len(block)}\r\n\r\n"
    ).encode()
    return gzip.compress(head + block + b"\r\n\r\n", compresslevel=6)


def response(uri, status, content_type, body):
    http = f"HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\n\r\n".encode() + body
    return record("response", uri, http, "application/http; msgtype=response")


def main():
    src, out = pathlib.Path(sys.argv[1]), sys.argv[2]
    copies = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    pages = sorted(p for p in src.iterdir() if p.is_file())
    n = 0
    with open(out, "wb") as w:
        for c in range(copies):
            for i, p in enumerate(pages):
                data = p.read_bytes()
                if data[:2] == b"\x1f\x8b":
                    data = gzip.decompress(data)
                uri = f"https://site{i % 97}.example/{c}/{p.name.split('.')[0]}"
                get = f"GET {uri} HTTP/1.1\r\nHost: x\r\n\r\n".encode()
                w.write(record("request", uri, get, "application/http; msgtype=request"))
                w.write(response(uri, "200 OK", "text/html; charset=utf-8", data))
                w.write(record("metadata", uri, b"fetchTimeMs: 100\r\n", "application/warc-fields"))
                n += 1
                if i % 10 == 0:
                    w.write(response(uri + "/old", "301 Moved Permanently", "text/html", b""))
                    w.write(response(uri + "/gone", "404 Not Found", "text/html", b"<p>Not found</p>"))
                    w.write(response(uri + ".png", "200 OK", "image/png", b"\x89PNG\r\n" + bytes(2000)))
    print(f"{out}: {n} pages", file=sys.stderr)


if __name__ == "__main__":
    main()
