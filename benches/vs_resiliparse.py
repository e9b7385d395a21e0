"""Whole-command speed of `textsift extract` beside resiliparse, one thread each.

    pip install resiliparse
    cargo build --release
    python3 benches/vs_resiliparse.py ../shared/data/wcxb/dev/html [ROUNDS]

Each round runs textsift (read, gunzip, extract, write JSON Lines) and then resiliparse over the
same sorted files (read, gunzip, decode, `extract_plain_text(html, main_content=True)`, one JSON
line written per page), so that a slower spell of the machine falls on both alike. Prints every
round with its ratio, the ratio of the best times and the median of the rounds' ratios.
"""

import glob
import gzip
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

from resiliparse.extract.html2text import extract_plain_text
from resiliparse.parse.encoding import bytes_to_str, detect_encoding


def resiliparse_run(files, out_path):
    with open(out_path, "w") as out:
        for f in files:
            with open(f, "rb") as fh:
                data = fh.read()
            if data[:2] == b"\x1f\x8b":
                data = gzip.decompress(data)
            html = bytes_to_str(data, detect_encoding(data))
            text = extract_plain_text(html, main_content=True)
            out.write(json.dumps({"source": f, "text": text}) + "\n")


def textsift_run(binary, folder, out_path):
    with open(out_path, "w") as out:
        subprocess.run(
            [binary, "extract", "--threads", "1", "--format", "jsonl", folder],
            stdout=out,
            check=True,
        )


def main():
    folder = sys.argv[1]
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    binary = os.path.join(os.path.dirname(__file__), "..", "target", "release", "textsift")
    files = sorted(glob.glob(os.path.join(folder, "*")))
    best = {"textsift": float("inf"), "resiliparse": float("inf")}
    ratios = []
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out.jsonl")
        for r in range(rounds):
            took = {}
            for name in ("textsift", "resiliparse"):
                t = time.perf_counter()
                if name == "textsift":
                    textsift_run(binary, folder, out)
                else:
                    resiliparse_run(files, out)
                dt = time.perf_counter() - t
                took[name] = dt
                best[name] = min(best[name], dt)
                print(f"round {r + 1} {name:<12} {dt:7.2f} s  {len(files) / dt:7.1f} pages/s")
            ratios.append(took["resiliparse"] / took["textsift"])
            print(f"round {r + 1} ratio {ratios[-1]:.2f}x")
    ratio = best["resiliparse"] / best["textsift"]
    print(
        f"best: textsift {len(files) / best['textsift']:.1f} pages/s, "
        f"resiliparse {len(files) / best['resiliparse']:.1f} pages/s: textsift {ratio:.2f}x; "
        f"median of the rounds' ratios {statistics.median(ratios):.2f}x"
    )


if __name__ == "__main__":
    main()
