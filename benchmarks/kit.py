"""How long the whole print-and-play kit takes to build, A4 and Letter.

Run from the repository root: ``python -m benchmarks.kit [--repeat N]``.
Prints one line per paper: the best and median wall time of N builds, the
page count and the file size; then the same for the Pairs deck's card images
at 300 dpi (``leafpile print deck --format png``) and for each print-service
preset (``leafpile print deck --service NAME``; DriveThruCards only when
Ghostscript is installed).
"""

from __future__ import annotations

import argparse
import io
import statistics
import time

from pypdf import PdfReader

from printables import Options, build
from printables.images import card_images
from printables.services import SERVICES, service_files, unavailable_reason


def measure(paper: str, repeat: int) -> tuple[float, float, int, int]:
    times: list[float] = []
    pdf = b""
    for _ in range(repeat):
        start = time.perf_counter()
        pdf = build("kit", Options(paper=paper))
        times.append(time.perf_counter() - start)
    pages = len(PdfReader(io.BytesIO(pdf)).pages)
    return min(times), statistics.median(times), pages, len(pdf)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="builds per paper (default 3)")
    args = parser.parse_args()
    print("paper   best    median  pages  size")
    for paper in ("a4", "letter"):
        best, median, pages, size = measure(paper, args.repeat)
        print(f"{paper:<7} {best:5.2f} s {median:5.2f} s {pages:5d}  {size / 1024:,.0f} KB")
    times = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        archive = card_images("deck", Options(), 300)
        times.append(time.perf_counter() - start)
    print(
        f"images  {min(times):5.2f} s {statistics.median(times):5.2f} s "
        f"{57:5d}  {len(archive) / 1024:,.0f} KB  (Pairs deck PNGs, 300 dpi)"
    )
    for name, service in SERVICES.items():
        if unavailable_reason(service):
            print(f"{name}: skipped ({service.title} needs Ghostscript)")
            continue
        times = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            data, _, _ = service_files(name, "deck")
            times.append(time.perf_counter() - start)
        print(
            f"{name:<16} {min(times):5.2f} s {statistics.median(times):5.2f} s "
            f"{len(data) / 1024:,.0f} KB  (Pairs deck)"
        )


if __name__ == "__main__":
    main()
