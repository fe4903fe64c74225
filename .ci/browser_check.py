"""Open pages in headless Chromium and check what a reader would see (called by .ci/browser-check).

    python .ci/browser_check.py --browser chromium --index figures/quick/index.html --notebooks 2 \
        --items frontier frontier-k3 which-to-use --out DIR

For the first page, the first N notebooks it links to and the notebooks of the --items it names (each must be
linked): Chromium's DOM after load (--dump-dom) must show
the page's <h1> title, every <img src> must be a file (or data: URI) that decodes as an image, every local
<a href> must resolve to an existing file (and its #anchor to an id in that page), and a screenshot of the
window (1280 x 1600) is kept in DIR, with its top rows not blank (the title is drawn there). Exit 1 on any problem.
"""

from __future__ import annotations

import argparse
import base64
import io
import re
import subprocess
import sys
import tempfile
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

from PIL import Image

WINDOW = (1280, 1600)


class Links(HTMLParser):
    """The <img src>, <a href>, ids and the first <h1>'s text of one page."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.images, self.links, self.ids, self.h1, self._in_h1 = [], [], set(), None, False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if a.get("id"):
            self.ids.add(a["id"])
        if a.get("name") and tag == "a":
            self.ids.add(a["name"])
        if tag == "img" and "src" in a:
            self.images.append(a["src"] or "")
        elif tag == "a" and a.get("href"):
            self.links.append(a["href"])
        elif tag == "h1" and self.h1 is None:
            self._in_h1, self.h1 = True, ""

    def handle_endtag(self, tag):
        if tag == "h1":
            self._in_h1 = False

    def handle_data(self, data):
        if self._in_h1:
            self.h1 += data


def chromium(browser: str, *args: str) -> subprocess.CompletedProcess:
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
             "--disable-dev-shm-usage", "--virtual-time-budget=5000"]
    with tempfile.TemporaryDirectory() as profile:
        return subprocess.run([browser, *flags, f"--user-data-dir={profile}", *args], capture_output=True, text=True,
                              timeout=180, check=False)


def local_target(page: Path, ref: str) -> tuple[Path | None, str]:
    """The file and fragment a relative reference of ``page`` points to (None for the page itself or a URL)."""
    parts = urlsplit(ref)
    if parts.scheme or parts.netloc:
        return (Path(unquote(parts.path)) if parts.scheme == "file" else None), parts.fragment
    if not parts.path:
        return page, parts.fragment
    return (page.parent / unquote(parts.path)).resolve(), parts.fragment


def ids_of(path: Path) -> set[str]:
    p = Links()
    p.feed(path.read_text(encoding="utf-8", errors="replace"))
    return p.ids


def decodes(data: bytes) -> str | None:
    try:
        with Image.open(io.BytesIO(data)) as im:
            im.load()
            if im.width < 2 or im.height < 2:
                return f"a {im.width}x{im.height} image"
    except Exception as exc:  # noqa: BLE001 - any decoding failure is the finding
        return f"does not decode ({type(exc).__name__})"
    return None


def check_page(browser: str, page: Path, shot: Path) -> tuple[list[str], Links]:
    problems = []
    run = chromium(browser, "--dump-dom", page.resolve().as_uri())
    if run.returncode != 0 or "<html" not in run.stdout:
        return [f"{page}: chromium --dump-dom failed (exit {run.returncode}): {run.stderr.strip()[-300:]}"], Links()
    dom = Links()
    dom.feed(run.stdout)
    if not (dom.h1 or "").strip():
        problems.append(f"{page}: no <h1> title in the loaded page")
    for src in dom.images:
        if src.startswith("data:"):
            m = re.match(r"data:image/[\w.+-]+;base64,(.*)", src, re.S)
            err = decodes(base64.b64decode(m.group(1))) if m else None
            if m is None and not src.startswith("data:image/svg"):
                err = "is not a base64 image"
            if err:
                problems.append(f"{page}: an inline image {err}")
            continue
        target, _ = local_target(page, src)
        if target is None:
            problems.append(f"{page}: image {src} is not a local file")
        elif not target.is_file():
            problems.append(f"{page}: image {src} does not exist")
        else:
            err = decodes(target.read_bytes())
            if err:
                problems.append(f"{page}: image {src} {err}")
    for href in dom.links:
        if href.startswith(("mailto:", "javascript:")):
            continue
        target, frag = local_target(page, href)
        if target is None:
            continue  # a web address: not checked offline
        if not target.is_file():
            problems.append(f"{page}: link {href} does not exist")
        elif frag and target.suffix == ".html" and frag not in (dom.ids if target == page.resolve() else ids_of(target)):
            problems.append(f"{page}: link {href}: no id {frag!r} in {target.name}")
    shot.parent.mkdir(parents=True, exist_ok=True)
    run = chromium(browser, f"--screenshot={shot.resolve()}", f"--window-size={WINDOW[0]},{WINDOW[1]}",
                   page.resolve().as_uri())
    if not shot.is_file():
        problems.append(f"{page}: no screenshot ({run.stderr.strip()[-300:]})")
    else:
        with Image.open(shot) as im:
            top = im.convert("L").crop((0, 0, im.width, 200))
            if top.getextrema()[0] > 200:  # nothing darker than light grey in the top 200 rows
                problems.append(f"{page}: the top of the page is blank in {shot}")
    return problems, dom


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--browser", default="chromium")
    ap.add_argument("--index", default="figures/quick/index.html")
    ap.add_argument("--notebooks", type=int, default=2, help="how many of the notebooks the first page links to")
    ap.add_argument("--items", nargs="*", default=[],
                    help="items whose rendered notebooks are checked too (each must be linked from the first page)")
    ap.add_argument("--out", default="ci-artifacts/screenshots")
    args = ap.parse_args()
    index, out = Path(args.index), Path(args.out)
    if not index.is_file():
        print(f"browser check: FAILED\n  {index} does not exist (run the quick pipeline first)", file=sys.stderr)
        return 1
    problems, dom = check_page(args.browser, index, out / "index.png")
    notebooks = [t for t, _ in (local_target(index, h) for h in dom.links) if t is not None and t.is_file()
                 and t.suffix == ".html" and t.parent.name == "notebooks"]
    linked = list(dict.fromkeys(notebooks))
    notebooks = linked[:args.notebooks]
    if len(notebooks) < args.notebooks:
        problems.append(f"{index}: links {len(notebooks)} notebooks, {args.notebooks} wanted")
    for item in args.items:  # the figure pages named on the command line, wherever they are in the list
        page = next((t for t in linked if t.stem == item), None)
        if page is None:
            problems.append(f"{index}: links no notebook of item {item!r}")
        elif page not in notebooks:
            notebooks.append(page)
    for nb in notebooks:
        p, _ = check_page(args.browser, nb, out / f"notebook-{nb.stem}.png")
        problems += p
    pages = [index, *notebooks]
    if problems:
        print("browser check: FAILED\n  " + "\n  ".join(problems), file=sys.stderr)
        return 1
    print(f"browser check: {len(pages)} pages ({', '.join(p.name for p in pages)}) load with every image and link "
          f"working and their title at the top; screenshots in {out}/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
