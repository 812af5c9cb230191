"""Line charts drawn on the server as plain SVG (no script: the page's CSP allows none).

:func:`line_chart` turns series of numbers into coordinates; the template
``end/_chart.html`` draws them. Colours and dash patterns come from classes
in ``static/end.css`` (``chart-s0`` … ``chart-s7``), never inline styles
(the CSP blocks those), so light and dark mode are the stylesheet's job.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

# The chart fills the phone's width (about 330 px of a 390 px screen), so a
# user unit is close to a pixel: labels of LABEL_SIZE units read at 13 px or
# more (end.css sets the same size).
WIDTH = 340
HEIGHT = 230
LABEL_SIZE = 14
LEFT = 46  # room for the y labels ("−100")
RIGHT = 14
TOP = 12
BOTTOM = 46  # room for the x labels and the x title
X_LABEL_DROP = 18  # the x labels' baseline below the axis: clear of the lowest y label
SERIES_STYLES = 8
MINUS = "\u2212"


@dataclass(frozen=True)
class Line:
    name: str
    style: int  # 0..7: colour and dash pattern class
    points: str  # "x,y x,y ..." for <polyline>
    dots: tuple[tuple[float, float], ...]
    last: int  # the last value, for the legend
    values: tuple[int, ...]


@dataclass(frozen=True)
class Tick:
    position: float
    label: str
    anchor: str = "middle"  # SVG text-anchor: the end ticks stay inside the chart


@dataclass(frozen=True)
class Chart:
    width: int
    height: int
    left: int
    right: float
    top: int
    bottom: float
    lines: tuple[Line, ...]
    y_ticks: tuple[Tick, ...]
    x_ticks: tuple[Tick, ...]
    x_title: str
    zero: float | None  # y of the zero line when the values cross it
    label_size: int = LABEL_SIZE
    x_label_drop: int = X_LABEL_DROP


def _anchor(i: int, count: int) -> str:
    if count > 1 and i == 0:
        return "start"
    if count > 1 and i == count - 1:
        return "end"
    return "middle"


def number(value: int) -> str:
    """A tick label: negative numbers with a real minus sign ("−20")."""
    return f"{MINUS}{-value}" if value < 0 else str(value)


def nice_step(span: float, steps: int = 4) -> int:
    """A round step (1, 2, 5, 10, 20, 50 …) giving about ``steps`` gridlines."""
    if span <= 0:
        return 1
    raw = span / steps
    magnitude = 10 ** math.floor(math.log10(raw))
    for factor in (1, 2, 5, 10):
        if raw <= factor * magnitude:
            return max(1, int(factor * magnitude))
    return max(1, int(10 * magnitude))


def line_chart(
    series: Sequence[tuple[str, Sequence[int]]], x_labels: Sequence[str], x_title: str
) -> Chart:
    """Coordinates for one polyline per series over the same x steps."""
    count = max((len(values) for _, values in series), default=0)
    all_values = [v for _, values in series for v in values] or [0]
    low, high = min(0, *all_values), max(0, *all_values)
    step = nice_step(high - low)
    low = math.floor(low / step) * step
    high = max(math.ceil(high / step) * step, low + step)
    right = WIDTH - RIGHT
    bottom = HEIGHT - BOTTOM

    def x(i: int) -> float:
        return round(LEFT + (right - LEFT) * (i / max(1, count - 1)), 1)

    def y(v: float) -> float:
        return round(bottom - (bottom - TOP) * ((v - low) / (high - low)), 1)

    lines = []
    for n, (name, values) in enumerate(series):
        dots = tuple((x(i), y(v)) for i, v in enumerate(values))
        lines.append(
            Line(
                name=name,
                style=n % SERIES_STYLES,
                points=" ".join(f"{px},{py}" for px, py in dots),
                dots=dots,
                last=values[-1] if values else 0,
                values=tuple(values),
            )
        )
    y_ticks = tuple(Tick(y(v), number(v), "end") for v in range(int(low), int(high) + 1, step))
    # At phone width about 6 x labels of 14 units fit; show every k-th and always the
    # last. The first starts at the y axis and the last ends at the right edge, so
    # "Start" never runs under the y labels.
    every = max(1, math.ceil(count / 6))
    shown = [i for i in range(count) if i % every == 0 or i == count - 1]
    if len(shown) > 1 and shown[-1] - shown[-2] < every:
        del shown[-2]  # the last two would touch
    x_ticks = tuple(
        Tick(
            x(i),
            str(x_labels[i]) if i < len(x_labels) else str(i),
            _anchor(i, count),
        )
        for i in shown
    )
    return Chart(
        width=WIDTH,
        height=HEIGHT,
        left=LEFT,
        right=right,
        top=TOP,
        bottom=bottom,
        lines=tuple(lines),
        y_ticks=y_ticks,
        x_ticks=x_ticks,
        x_title=x_title,
        zero=y(0) if low < 0 < high else None,
    )
