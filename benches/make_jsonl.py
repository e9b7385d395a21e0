#!/usr/bin/env python3
"""Build a JSON Lines file of {"id", "url", "html"} records from a folder of pages (gzipped or
not), as corpus tools write them. For timing and memory checks of the JSON Lines input on real
pages.

    python3 benches/make_jsonl.py ../shared/data/wcxb/dev/html /tmp/dev4.jsonl [COPIES]

COPIES (default 1) repeats the folder under other ids, for a long stream.
"""
import gzip
import json
import pathlib
import sys


def main():
    folder, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    copies = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    pages = sorted(p for p in folder.iterdir() if p.is_file())
    with out.open("w", encoding="utf-8") as f:
        for copy in range(copies):
            for page in pages:
                raw = page.read_bytes()
                if raw[:2] == b"\x1f\x8b":
                    raw = gzip.decompress(raw)
                name = page.name.split(".")[0]
                record = {
                    "id": f"{copy}-{name}",
                    "url": f"https://copy{copy}.example/{name}",
                    "html": raw.decode("utf-8", "replace"),
                }
                f.write(json.dumps(record) + "\n")


if __name__ == "__main__":
    main()
