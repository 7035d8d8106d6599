# SPDX-License-Identifier: GPL-2.0
"""A small SVG line chart for the benchmark reports: no plotting library
needed on the machine, and the files diff as text.

    plot("fct.svg", "FCT p99 of short flows", "load (%)", "p99 (ms)",
         {"afq": [(30, 1.2), (50, 2.0)], "pfifo": [(30, 3.1), (50, 9.0)]},
         logy=True)
"""
import math

COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
          "#e377c2", "#7f7f7f"]
W, H = 640, 400
LEFT, RIGHT, TOP, BOTTOM = 70, 150, 40, 50


def _ticks(lo, hi, log):
    if log:
        a, b = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
        return [10 ** e for e in range(a, b + 1)]
    step = 10 ** math.floor(math.log10((hi - lo) or 1))
    while (hi - lo) / step > 8:
        step *= 2
    t = math.floor(lo / step) * step
    out = []
    while t <= hi + step / 2:
        out.append(t)
        t += step
    return out


def _fmt(v):
    return ("%g" % v) if abs(v) < 1e5 else ("%.0e" % v)


def plot(path, title, xlabel, ylabel, series, logx=False, logy=False):
    """Write an SVG line chart of @series (name -> [(x, y), ...]) to @path"""
    pts = [(x, y) for s in series.values() for x, y in s
           if (not logx or x > 0) and (not logy or y > 0)]
    if not pts:
        return
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    xt = _ticks(min(xs), max(xs), logx)
    yt = _ticks(min(ys) if logy else min(0, min(ys)), max(ys), logy)
    x0, x1, y0, y1 = xt[0], xt[-1], yt[0], yt[-1]

    def sx(x):
        f = (math.log10(x) - math.log10(x0)) / ((math.log10(x1) - math.log10(x0)) or 1) \
            if logx else (x - x0) / ((x1 - x0) or 1)
        return LEFT + f * (W - LEFT - RIGHT)

    def sy(y):
        f = (math.log10(y) - math.log10(y0)) / ((math.log10(y1) - math.log10(y0)) or 1) \
            if logy else (y - y0) / ((y1 - y0) or 1)
        return H - BOTTOM - f * (H - TOP - BOTTOM)

    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'font-family="sans-serif" font-size="12">' % (W, H),
           '<rect width="100%" height="100%" fill="white"/>',
           '<text x="%d" y="22" font-size="14">%s</text>' % (LEFT, title)]
    for t in xt:
        out.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ddd"/>'
                   % (sx(t), TOP, sx(t), H - BOTTOM))
        out.append('<text x="%.1f" y="%d" text-anchor="middle">%s</text>'
                   % (sx(t), H - BOTTOM + 16, _fmt(t)))
    for t in yt:
        out.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/>'
                   % (LEFT, sy(t), W - RIGHT, sy(t)))
        out.append('<text x="%d" y="%.1f" text-anchor="end">%s</text>'
                   % (LEFT - 6, sy(t) + 4, _fmt(t)))
    out.append('<text x="%d" y="%d" text-anchor="middle">%s</text>'
               % ((LEFT + W - RIGHT) // 2, H - 12, xlabel))
    out.append('<text x="16" y="%d" text-anchor="middle" transform="rotate(-90 16 %d)">%s</text>'
               % ((TOP + H - BOTTOM) // 2, (TOP + H - BOTTOM) // 2, ylabel))
    for i, (name, s) in enumerate(series.items()):
        c = COLORS[i % len(COLORS)]
        p = [(sx(x), sy(y)) for x, y in sorted(s)
             if (not logx or x > 0) and (not logy or y > 0)]
        if p:
            out.append('<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>'
                       % (c, " ".join("%.1f,%.1f" % q for q in p)))
            out.extend('<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>' % (q[0], q[1], c)
                       for q in p)
        out.append('<text x="%d" y="%d" fill="%s">%s</text>'
                   % (W - RIGHT + 12, TOP + 16 + 18 * i, c, name))
    out.append('</svg>')
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")
