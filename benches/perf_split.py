#!/usr/bin/env python3
"""Splits a `perf` profile of `textsift extract` by pipeline stage.

    perf record -F 1999 --call-graph dwarf,16384 -o perf.data -- \
        ./target/release/textsift extract --threads 1 ../shared/data/wcxb/dev/html > /dev/null
    perf script -i perf.data -F comm,ip,sym | python3 benches/perf_split.py

Fat LTO inlines most of the pipeline into a few functions, so a flat profile names the wrong
stage; with DWARF call graphs `perf script` lists inlined frames too. A sample goes to the
allocator, to memory copies or to the kernel by the function it was taken in; any other
sample goes to the first stage below (in this order) that has a frame on its stack, so that
library code is counted with the stage that called it.
"""

import collections
import re
import sys

# Order matters: the HTML parser calls back into textsift's tree sink (a frame of
# `textsift::blocks`), and those samples belong to parsing.
STAGES = [
    ("gunzip", re.compile(r"deflate|crc32|flate2|miniz")),
    ("slimming", re.compile(r"textsift::blocks::parse::slim")),
    ("HTML tokenizer, tree builder and tree nodes", re.compile(r"html5ever|markup5ever|tendril|string_cache|kuchikiki")),
    ("segmentation", re.compile(r"textsift::blocks")),
    ("features (class/id lexicon included)", re.compile(r"textsift::features|textsift::classes|textsift::context|aho_corasick|regex")),
    ("model", re.compile(r"textsift::boost|textsift::model")),
    ("decoder", re.compile(r"textsift::decode")),
    ("output", re.compile(r"textsift::output|serde_json")),
    ("character decoding", re.compile(r"encoding_rs|analyze_declared|textsift::html|simdutf8")),
    ("input", re.compile(r"textsift::input|textsift::batch")),
]
ALLOCATOR = re.compile(r"^(_?mi_|malloc|free|realloc|calloc)")
COPIES = re.compile(r"memmove|memcpy|memset")
LOADER = re.compile(r"_dl_|dl_main")


def samples(lines):
    """Yields each sample's frames, innermost first, as (address, symbol) pairs."""
    frames = None
    for line in lines:
        if not line.strip():
            if frames:
                yield frames
            frames = None
        elif not line[0].isspace():
            frames = []
        elif frames is not None:
            parts = line.split(None, 1)
            frames.append((parts[0], parts[1].strip() if len(parts) > 1 else ""))
    if frames:
        yield frames


def stage(frames):
    """The stage a sample's time is counted in."""
    address, symbol = frames[0]
    if address.startswith("ffffffff"):
        return "kernel"
    if ALLOCATOR.search(symbol):
        return "allocator"
    if COPIES.search(symbol):
        return "copies"
    if any(LOADER.search(s) for _, s in frames):
        return "program loading"
    for name, pattern in STAGES:
        if any(pattern.search(s) for _, s in frames):
            return name
    return "other"


def main():
    counts = collections.Counter(stage(f) for f in samples(sys.stdin))
    total = sum(counts.values())
    if not total:
        sys.exit("perf_split: no samples on standard input (run `perf script -F comm,ip,sym`)")
    for name, n in counts.most_common():
        print(f"{name:45s} {100 * n / total:5.1f}%")
    print(f"{total} samples")


if __name__ == "__main__":
    main()
