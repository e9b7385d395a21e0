#!/usr/bin/env python3
"""Whether a few annotated pages of one's own site are worth training on, alone or beside
WCXB's pages: for every site with at least 6 pages in a WCXB folder, half of its pages (every
second one by id) are "its own annotations" and the other half the test pages, and three models
are scored on the test pages with WCXB's word F1 (`textsift eval`):

- other sites: trained on every page of the other sites, none of this one;
- own pages: trained on the site's own half alone;
- both: trained on the other sites' pages and the site's own half (`--data` twice).

    python3 training/own_site.py ../shared/data/wcxb/dev /tmp/own \
        [--min-pages 6] [--textsift target/release/textsift]

Models are trained with `training/recipe.toml` and no cross-validation (`--folds 0`). A site
here is a host (`developer.mozilla.org`), whose pages share their templates, as the pages of
one's own site do; the learning curve's sites are registrable domains.
"""
import argparse
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from learning_curve import evaluate, host, load, train, word_f1, write  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("data", type=pathlib.Path)
    ap.add_argument("work", type=pathlib.Path)
    ap.add_argument("--min-pages", type=int, default=6)
    ap.add_argument("--textsift", default="target/release/textsift")
    ap.add_argument("--recipe", default="training/recipe.toml")
    args = ap.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    pages = load(args.data)
    for p in pages:
        p["group"] = host(p["url"]) or p["id"]
    by_site = {}
    for p in pages:
        by_site.setdefault(p["group"], []).append(p)
    sites = sorted(s for s, ps in by_site.items() if len(ps) >= args.min_pages)

    def model(name, files):
        path = args.work / f"{name}.tsm"
        train(args.textsift, args.recipe, files, 0, path)
        return path

    def score(path, test):
        return word_f1(evaluate(args.textsift, path, test))

    print("| site | own pages | test pages | other sites | own pages | both |")
    print("|---|---:|---:|---:|---:|---:|")
    totals = [0.0, 0.0, 0.0]
    for i, site in enumerate(sites):
        mine = sorted(by_site[site], key=lambda p: p["id"])
        own, test = mine[0::2], mine[1::2]
        files = {}
        for name, part in [("others", [p for p in pages if p["group"] != site]),
                           ("own", own), ("test", test)]:
            files[name] = args.work / f"{name}{i}.jsonl"
            write(files[name], part)
        scores = [
            score(model(f"others{i}", [files["others"]]), files["test"]),
            score(model(f"own{i}", [files["own"]]), files["test"]),
            score(model(f"both{i}", [files["others"], files["own"]]), files["test"]),
        ]
        totals = [t + s for t, s in zip(totals, scores)]
        print(f"| {site} | {len(own)} | {len(test)} | "
              + " | ".join(f"{s:.4f}" for s in scores) + " |", flush=True)
    n = len(sites)
    print(f"| mean of {n} sites | | | " + " | ".join(f"{t / n:.4f}" for t in totals) + " |")


if __name__ == "__main__":
    sys.exit(main())
