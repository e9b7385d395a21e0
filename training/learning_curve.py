#!/usr/bin/env python3
"""How the score grows with the number of annotated pages: train on nested subsets of a WCXB
folder's pages and score each model on pages of other sites.

    python3 training/learning_curve.py ../shared/data/wcxb/dev /tmp/curve \
        [--sizes 50,100,200,400,800,0] [--splits 0,1,2] [--folds 0] \
        [--textsift target/release/textsift]

The sites are cut into 5 parts by a hash of their name; for each split named, one
part is the test set and the pages of the other four are the pool. Sites are taken from the
pool in a seeded order, all the pages of a site at a time, until a subset holds the size asked
for (0: the whole pool), so each subset holds the smaller ones and no site is in both a subset
and the test set. Each subset trains a model with `training/recipe.toml` and no
cross-validation (`textsift train --folds 0`; `--folds N` cross-validates the subset first,
which then picks the decoder), and `textsift eval` scores it on the test
pages with WCXB's word F1. The manifests, models and outputs stay in the work folder; the
pages are read where they are.

A site is a registrable domain, as `textsift train` groups pages (`uk.shop.example.com` and
`example.com` are one site). Python has no public suffix list of its own, so it is taken as the
host's last two labels, or three under a country's second level (`example.co.uk`,
`example.com.au`): coarser than the list's where it names a suffix of its own
(`alice.github.io` is a site of `github.io` here), so that the hosts of one site stay in one
part.
"""
import argparse
import hashlib
import json
import pathlib
import random
import re
import subprocess
import sys
import time
from urllib.parse import urlparse

PARTS = 5


# Second-level labels under which a country's domains register (`example.co.uk`).
SECOND_LEVELS = {"ac", "co", "com", "edu", "gov", "go", "ne", "net", "or", "org"}


def host(url):
    """The URL's host, without `www.`."""
    name = (urlparse(url).hostname or "").lower().rstrip(".")
    return name[4:] if name.startswith("www.") else name


def domain(url):
    """The URL's site: its registrable domain, as near as the module's rules come to it."""
    name = (urlparse(url).hostname or "").lower().rstrip(".")
    labels = name.split(".")
    # An address (IPv4, or IPv6 without dots) is a site of its own.
    if len(labels) < 3 or all(l.isdigit() for l in labels) or ":" in name:
        return name
    keep = 3 if len(labels[-1]) == 2 and labels[-2] in SECOND_LEVELS else 2
    return ".".join(labels[-keep:])


def part_of(site):
    return int(hashlib.md5(site.encode()).hexdigest(), 16) % PARTS


def load(data):
    # Each page's file by id (`ID.html` or `ID.html.gz`), listed once.
    files = {p.name.split(".")[0]: p for p in (data / "html").iterdir()}
    pages = []
    for truth in sorted((data / "ground-truth").glob("*.json")):
        doc = json.loads(truth.read_text(encoding="utf-8"))
        gt = doc["ground_truth"]
        stem = truth.stem
        html = files.get(stem)
        if html is None:
            continue
        kind = ((doc.get("_internal") or {}).get("page_type") or {}).get("primary")
        pages.append(
            {
                "id": stem,
                "html_path": str(html.resolve()),
                "text": gt.get("main_content") or "",
                "url": doc.get("url", ""),
                "group": domain(doc.get("url", "")) or stem,
                "page_type": kind,
            }
        )
    return pages


def write(path, pages):
    with path.open("w", encoding="utf-8") as f:
        for p in pages:
            f.write(json.dumps(p) + "\n")


def word_f1(output):
    # The first row of `eval`'s table that scores all pages: | all | n | P | R | F1 |.
    for line in output.splitlines():
        cells = [c.strip(" *") for c in line.split("|")]
        if len(cells) > 5 and cells[1] == "all":
            return float(cells[5])
    raise SystemExit("no word F1 in the output of eval:\n" + output)


def train(textsift, recipe, files, folds, model):
    """Trains `model` on the JSON Lines `files` with `recipe`; `folds` as `textsift train`'s."""
    cmd = [textsift, "train", "--recipe", recipe, "--folds", str(folds), "--out", str(model)]
    for f in files:
        cmd += ["--data", str(f)]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def evaluate(textsift, model, test):
    """`textsift eval`'s output for `model` on the pages of `test`."""
    return subprocess.run(
        [textsift, "eval", "--data", str(test), "--model", str(model)],
        check=True, capture_output=True, text=True,
    ).stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("data", type=pathlib.Path)
    ap.add_argument("work", type=pathlib.Path)
    ap.add_argument("--sizes", default="50,100,200,400,800,0")
    ap.add_argument("--splits", default="0,1,2")
    ap.add_argument("--textsift", default="target/release/textsift")
    ap.add_argument("--recipe", default="training/recipe.toml")
    ap.add_argument("--folds", default="0")
    args = ap.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    pages = load(args.data)
    sizes = [int(s) for s in args.sizes.split(",")]
    print("| split | pages | sites | word F1 on the test sites | training (s, wall) |")
    print("|---|---:|---:|---:|---:|")
    for split in (int(s) for s in args.splits.split(",")):
        test = [p for p in pages if part_of(p["group"]) == split]
        pool = [p for p in pages if part_of(p["group"]) != split]
        sites = sorted({p["group"] for p in pool})
        random.Random(split).shuffle(sites)
        by_site = {}
        for p in pool:
            by_site.setdefault(p["group"], []).append(p)
        test_file = args.work / f"test{split}.jsonl"
        write(test_file, test)
        for size in sizes:
            subset = []
            for s in sites:
                if size and len(subset) >= size:
                    break
                subset.extend(by_site[s])
            n_sites = len({p["group"] for p in subset})
            train_file = args.work / f"train{split}_{size}.jsonl"
            model = args.work / f"model{split}_{size}.tsm"
            write(train_file, subset)
            start = time.monotonic()
            train(args.textsift, args.recipe, [train_file], args.folds, model)
            took = time.monotonic() - start
            out = evaluate(args.textsift, model, test_file)
            (args.work / f"eval{split}_{size}.txt").write_text(out)
            print(f"| {split} ({len(test)} test pages) | {len(subset)} | {n_sites} | "
                  f"{word_f1(out):.4f} | {took:.0f} |", flush=True)


if __name__ == "__main__":
    sys.exit(main())
