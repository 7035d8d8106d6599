#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""fabric_results.py [OPTIONS] BENCH_DIR OUT_MD [PLOT_DIR]

Writes the fabric results page (Documentation/results/fabric.md; scripts/bench
calls this after `make bench`) from the prose in TEMPLATE and what each
fabric part of the run left in BENCH_DIR/PART (scripts/lib/bench-lib.sh):
its parameters in meta, its report's output in report.txt, its SVG plots.

Per part, in the template's order: the title, the setup and the paper's
claims (the template's, free of this run's numbers), the scale against the
paper's (computed from meta: the hosts' links and the hosts), the run's
end, commit, kernel and knobs, the report's output verbatim in a code
block (less its "plot: PATH" lines), links to the plots (copied to
PLOT_DIR/PART, PLOT_DIR OUT_MD's directory by default, whose old SVGs go
first), then where we differ and why: the report's verdict lines that
say "NOT met", "not reproduced" or "not measured", each with the
template's reason for it, and the template's other reasons; last, the
verdicts that say "met" or "reproduced".  A part whose meta is missing or
has no report_status 0 says that it was not run in this bench, and shows
nothing computed.

Options:
  --template FILE  the prose (default Documentation/results/fabric.md.in,
                   whose first lines describe its format)
  --date D, --commit C, --kernel K
                   the run's, from scripts/bench; a part's meta (ended,
                   commit, kernel) overrides them for its section
  --only-complete  write nothing unless every part of the template ran:
                   name those that did not on stderr and exit 2

Exit status 0 when written, 2 as above, 1 on a bad template or arguments.
"""
import argparse
import glob
import os
import re
import shlex
import shutil
import sys

TREE = os.path.realpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
TEMPLATE = os.path.join(TREE, "Documentation", "results", "fabric.md.in")

# the template's directives: a one-line value, or a block to the next one
LINE = ("part", "title", "scale")
BLOCK = ("page", "setup", "paper", "differ", "why")
# a report's verdict line: "WHAT: STATUS REST", STATUS one of these
DIFFER = ("NOT met", "not reproduced", "not measured")
AGREE = ("met", "reproduced")
VERDICT = re.compile(r"^\s*(?P<what>\S.*?):\s(?P<status>%s)\b(?P<rest>.*)$" %
                     "|".join(re.escape(s) for s in DIFFER + AGREE))
# the bookkeeping of meta, not the part's parameters
BOOKKEEPING = ("part", "kernel", "commit", "ended", "elapsed_s", "report_status")


class TemplateError(Exception):
    pass


def parse_template(path):
    """(the page's own prose, [part dict]) from the template at path.
    An HTML comment that opens it, and anything else before the first
    directive, is for its editors."""
    page, parts, cur, block = None, [], None, None
    with open(path) as f:
        lines = f.read().splitlines()
    first = 0
    if lines and lines[0].startswith("<!--"):
        first = next((i + 1 for i, x in enumerate(lines) if "-->" in x), len(lines))
    for n, line in enumerate(lines[first:], first + 1):
        m = re.match(r"^@(\w+)(?:\s+(.*))?$", line)
        if not m:
            if block is not None:
                block.append(line)
            continue
        key, arg = m.group(1), (m.group(2) or "").strip()
        where = "%s:%d" % (path, n)
        if key not in LINE + BLOCK:
            raise TemplateError("%s: unknown directive @%s" % (where, key))
        if key == "page":
            page = block = []
            continue
        if key == "part":
            if not re.match(r"^[\w-]+$", arg):
                raise TemplateError("%s: @part needs a directory name" % where)
            cur = {"id": arg, "title": arg, "scale": [], "setup": [], "paper": [],
                   "differ": [], "why": []}
            parts.append(cur)
            block = None
            continue
        if cur is None:
            raise TemplateError("%s: @%s before any @part" % (where, key))
        if key == "title":
            cur["title"], block = arg, None
        elif key == "scale":
            f = [x.strip() for x in arg.split("|")]
            if len(f) not in (3, 4) or parse_rate(f[1]) is None:
                raise TemplateError("%s: @scale LABEL | PAPER'S LINK RATE | PAPER'S HOSTS "
                                    "[| META KEY OF OURS]" % where)
            cur["scale"].append((f[0], f[1], f[2], f[3] if len(f) == 4 else "hosts"))
            block = None
        elif key == "why":
            if not arg:
                raise TemplateError("%s: @why needs the text of the verdicts it explains"
                                    % where)
            block = []
            cur["why"].append((arg, block))
        else:
            block = cur[key]
    if page is None or not parts:
        raise TemplateError("%s: no @page or no @part" % path)
    ids = [p["id"] for p in parts]
    if len(set(ids)) != len(ids):
        raise TemplateError("%s: a part twice" % path)
    for p in parts:
        for k in ("setup", "paper", "differ"):
            p[k] = text(p[k])
        p["why"] = [(k, text(v)) for k, v in p["why"]]
    return text(page), parts


def text(lines):
    """a block's lines as text, without the blank lines around it"""
    return "\n".join(lines).strip("\n")


def parse_rate(s):
    """Mbit/s of "25 Gbit/s", "10 Mbit/s"; None if not a rate"""
    m = re.match(r"^([\d.]+)\s*([MG])bit/s$", s.strip())
    if not m:
        return None
    return float(m.group(1)) * (1000 if m.group(2) == "G" else 1)


def rate(mbit):
    return "%g Gbit/s" % (mbit / 1000) if mbit >= 1000 else "%g Mbit/s" % mbit


def read_meta(d):
    """the KEY=VALUE lines of d/meta (the last of a key wins), None if none"""
    try:
        with open(os.path.join(d, "meta")) as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    meta = {}
    for line in lines:
        k, sep, v = line.partition("=")
        if sep and k.strip():
            meta[k.strip()] = v.strip()
    return meta


def part_state(d):
    """(meta, None) for a part that ran to its end, else (meta, why not)"""
    meta = read_meta(d)
    if meta is None:
        return None, "no %s" % show_path(os.path.join(d, "meta"))
    st = meta.get("report_status")
    if st is None:
        return meta, "it started but did not finish (%s has no report_status)" % \
            show_path(os.path.join(d, "meta"))
    if st != "0":
        return meta, "its report failed (exit status %s; its output is in %s)" % (
            st, show_path(os.path.join(d, "report.txt")))
    if not os.path.exists(os.path.join(d, "report.txt")):
        return meta, "no %s" % show_path(os.path.join(d, "report.txt"))
    return meta, None


def show_path(p):
    """p relative to the current directory when under it"""
    r = os.path.relpath(p)
    return p if r.startswith("..") else r


def escape(s):
    """s as Markdown text, not markup"""
    return re.sub(r"([\\*_<`\[\]])", r"\\\1", s)


def code_block(body):
    fence = "```"
    while fence in body:
        fence += "`"
    return "%s\n%s\n%s" % (fence, body, fence)


def report_body(path):
    """the report's output, less its "plot: PATH" lines (the plots are
    linked below it) and the blank lines around it"""
    with open(path) as f:
        lines = [x.rstrip() for x in f.read().splitlines() if not x.startswith("plot: ")]
    return text(lines)


def verdicts(body):
    """[(status, line, the line in Markdown with its status in bold)] of a
    report's output"""
    out = []
    for line in body.splitlines():
        m = VERDICT.match(line)
        if m:
            out.append((m.group("status"), line.strip(), "%s: **%s**%s" % (
                escape(m.group("what")), m.group("status"), escape(m.group("rest")))))
    return out


def scale_lines(part, meta):
    out = []
    try:
        ours = float(meta["host_mbit"])
    except (KeyError, ValueError):
        return ["The scale is unknown: the part's meta has no host_mbit."]
    for label, paper_rate, paper_hosts, key in part["scale"]:
        theirs = parse_rate(paper_rate)
        s = "%s: the hosts' links at %s against %s, %s slower" % (
            label[:1].upper() + label[1:], rate(ours), rate(theirs),
            "%.0fx" % (theirs / ours) if ours else "?")
        hosts = meta.get(key)
        if paper_hosts and hosts:
            s += "; %s hosts against %s" % (hosts, paper_hosts)
            try:
                h, ph = float(hosts), float(paper_hosts)
                if 0 < h < ph:
                    s += ", %.0fx fewer" % (ph / h)
            except ValueError:
                pass
        out.append(s + ".")
    return out


def run_line(part, meta, args):
    elapsed = meta.get("elapsed_s", "")
    bits = ["`scripts/guest/bench-%s.sh`" % part["id"]]
    when = meta.get("ended") or args.date
    if when:
        bits.append("ended %s" % when)
    bits.append("commit %s" % (meta.get("commit") or args.commit or "unknown"))
    bits.append("kernel %s" % (meta.get("kernel") or args.kernel or "unknown"))
    if elapsed.isdigit():
        sec = int(elapsed)
        bits.append("%d minutes" % round(sec / 60) if sec >= 90 else "%d s" % sec)
    knobs = [(k, v) for k, v in meta.items() if k.startswith("BENCH_")]
    s = "**This run.** " + ", ".join(bits)
    if knobs:
        s += "; its knobs: `%s`" % " ".join("%s=%s" % (k, shlex.quote(v)) for k, v in knobs)
    return s + "."


def plots(part_dir, plot_dir, out_dir, ran=True):
    """copy part_dir's SVGs (none if the part did not run) to plot_dir,
    whose old SVGs go first, and return the Markdown links to them from
    out_dir"""
    srcs = sorted(glob.glob(os.path.join(part_dir, "*.svg"))) if ran else []
    same = os.path.realpath(plot_dir) == os.path.realpath(part_dir)
    if same:
        return ["[%s](%s)" % (os.path.basename(p), os.path.relpath(p, out_dir)) for p in srcs]
    for old in glob.glob(os.path.join(plot_dir, "*.svg")):
        os.remove(old)
    if srcs:
        os.makedirs(plot_dir, exist_ok=True)
    links = []
    for src in srcs:
        dst = os.path.join(plot_dir, os.path.basename(src))
        shutil.copyfile(src, dst)
        links.append("[%s](%s)" % (os.path.basename(src), os.path.relpath(dst, out_dir)))
    return links


def section(part, bench_dir, plot_root, out_dir, args):
    d = os.path.join(bench_dir, part["id"])
    meta, why_not = part_state(d)
    out = ["## " + part["title"], ""]
    if part["setup"]:
        out += [part["setup"], ""]
    if part["paper"]:
        out += ["**The paper.** " + part["paper"], ""]
    if why_not:
        # nothing of an earlier run: neither its numbers nor its plots
        plots(d, os.path.join(plot_root, part["id"]), out_dir, ran=False)
        out += ["**This run.** Not run in this bench: %s." % why_not, ""]
        if part["differ"]:
            out += ["**Where we differ, and why.**", "", part["differ"], ""]
        return out, False
    out += ["**Scale.** " + " ".join(scale_lines(part, meta)), ""]
    out += [run_line(part, meta, args), ""]
    body = report_body(os.path.join(d, "report.txt"))
    out += [code_block(body), ""]
    links = plots(d, os.path.join(plot_root, part["id"]), out_dir)
    if links:
        out += ["Plots: " + ", ".join(links) + ".", ""]
    v = verdicts(body)
    differ = [(raw, md) for s, raw, md in v if s in DIFFER]
    agree = [md for s, raw, md in v if s in AGREE]
    if differ or part["differ"]:
        out += ["**Where we differ, and why.**", ""]
        # the verdicts a reason explains together, the reason after them
        groups = []
        for raw, md in differ:
            why = next((r for k, r in part["why"] if k in raw), None)
            g = next((g for g in groups if why is not None and g[0] is why), None)
            if g:
                g[1].append(md)
            else:
                groups.append((why, [md]))
        for why, mds in groups:
            out += ["- " + md for md in mds]
            if why:
                out += [""] + ["  " + x if x else "" for x in why.splitlines()]
            out.append("")
        if part["differ"]:
            out += [part["differ"], ""]
    if agree:
        out += ["**Where we agree.**", ""]
        out += ["- " + md for md in agree]
        out.append("")
    return out, True


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--template", default=TEMPLATE)
    ap.add_argument("--date", default="")
    ap.add_argument("--commit", default="")
    ap.add_argument("--kernel", default="")
    ap.add_argument("--only-complete", action="store_true")
    ap.add_argument("bench_dir")
    ap.add_argument("out_md")
    ap.add_argument("plot_dir", nargs="?")
    args = ap.parse_args()
    try:
        page, parts = parse_template(args.template)
    except (OSError, TemplateError) as e:
        print("fabric_results: %s" % e, file=sys.stderr)
        return 1
    missing = [p["id"] for p in parts
               if part_state(os.path.join(args.bench_dir, p["id"]))[1]]
    if missing and args.only_complete:
        print("fabric_results: %s left alone: not run in this bench: %s" %
              (args.out_md, ", ".join(missing)), file=sys.stderr)
        return 2
    out_dir = os.path.dirname(os.path.abspath(args.out_md))
    plot_root = args.plot_dir or out_dir
    tmpl = os.path.relpath(os.path.realpath(args.template), TREE)
    head = ["_Generated by `make bench` (`scripts/lib/fabric_results.py`) from `%s` and "
            "the fabric parts' reports in `%s`: edit `%s`, not this page._" %
            (tmpl, show_path(args.bench_dir), tmpl), "", page, ""]
    run = ", ".join(x for x in (args.date, args.commit and "commit " + args.commit,
                                args.kernel and "kernel " + args.kernel) if x)
    if run:
        head += ["This page: the `make bench` run of %s." % run, ""]
    if missing:
        head += ["Not run in this bench: %s." % ", ".join(missing), ""]
    body = []
    for p in parts:
        lines, _ = section(p, args.bench_dir, plot_root, out_dir, args)
        body += lines
    os.makedirs(out_dir, exist_ok=True)
    tmp = args.out_md + ".tmp"
    with open(tmp, "w") as f:
        f.write("\n".join(head + body).rstrip("\n") + "\n")
    os.replace(tmp, args.out_md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
