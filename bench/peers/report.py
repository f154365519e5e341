#!/usr/bin/env python3
"""Summarizes a benchmark CSV written by the peer executables (bench/results/kernels.csv or conv.csv): prints, per
thread count, Markdown tables of GFLOP/s per library and problem, of the fraction of the measured peak (threads x
the single-core peak from peak_fma) and of each library's ratio to oneDNN (the better of its variants, geometric
mean in the last column), the 2-thread / 1-thread speed-ups (and kriek's timed within one process when given the
driver's --speedup-csv), kriek's paired ratio to the fastest peer per problem when given the driver's --ratio-csv
(both timed in one process, alternating rounds), kriek's search time and peak RSS per problem when
given the search CSV of scripts/kriek_library.sh, lists the kernel each library picked, and draws GFLOP/s per
library to a PNG (square matmuls as lines, every other problem as bars).

Usage: report.py CSV [--png PNG] [--md MD] [--search SEARCH_CSV] [--speedup SPEEDUP_CSV] [--ratios RATIO_CSV]
The plot needs matplotlib (Debian: python3-matplotlib, so run with /usr/bin/python3); without it only the
tables are written.
"""
import argparse
import csv
import math
import statistics
import sys
from collections import OrderedDict

# Table order: the bar first (forced AVX-512 builds), then what users get, then baselines; kriek leads.
ORDER = ["kriek", "kriek-packed", "libxsmm", "onednn-packedB", "onednn-packedW", "onednn", "openblas-forced", "openblas",
         "blis-forced", "blis", "eigen", "naive"]
ONEDNN = ("onednn", "onednn-packedB", "onednn-packedW")


def label(r):
    """The problem's label: its name (a conv layer), else its text; old CSVs have only M, K, N."""
    if r.get("name"):
        return r["name"]
    if r.get("problem"):
        return r["problem"]
    m, k, n = r["M"], r["K"], r["N"]
    return m if m == k == n else f"{m}x{k}x{n}"


def load(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def summarize(rows):
    """-> problems in order of first appearance, {threads: {library: {problem: [rows]}}}, kernels, peak."""
    problems = OrderedDict()
    cells = {}
    kernels = OrderedDict()
    peak = 0.0
    for r in rows:
        name = label(r)
        problems.setdefault(name, r.get("problem", name))
        lib = r["library"]
        peak = max(peak, float(r["peak_gflops_1core"] or 0))
        if r["kernel"]:
            kernels.setdefault(lib, set()).add(r["kernel"])
        # The same library can appear more than once (kriek runs in every peer process): take the median.
        cells.setdefault(int(r["threads"]), {}).setdefault(lib, {}).setdefault(name, []).append(r)
    return problems, cells, kernels, peak


def median_ok(entries):
    ok = [e for e in entries if e["status"] == "ok"]
    return statistics.median(float(e["gflops_median"]) for e in ok) if ok else None


def cell_text(entries, peak, threads, as_pct):
    g = median_ok(entries)
    if g is None:
        return "WRONG" if entries[0]["status"] == "WRONG" else "–"
    # Starved (decided by the driver): other work held the cores while this was timed.
    mark = "*" if any(e.get("starved") == "1" for e in entries if e["status"] == "ok") else ""
    if as_pct:
        return (f"{100 * g / (peak * threads):.0f}%" if peak > 0 else "?") + mark
    return f"{g:.0f}{mark}"


def ordered(libs):
    return [l for l in ORDER if l in libs] + sorted(set(libs) - set(ORDER))


def table(header, names, rows):
    out = ["| " + header + " | " + " | ".join(names) + " |", "|---" * (len(names) + 1) + "|"]
    out += [f"| {first} | " + " | ".join(cells) + " |" for first, cells in rows]
    return out


def ratio_rows(per, names):
    """Each library's GFLOP/s over the better oneDNN variant's, per problem, and their geometric mean."""
    best = {}
    for s in names:
        gs = [median_ok(per[l][s]) for l in ONEDNN if l in per and s in per[l]]
        gs = [g for g in gs if g]
        if gs:
            best[s] = max(gs)
    rows = []
    for lib in ordered(per):
        ratios = [(median_ok(per[lib].get(s, [])) or 0) / best[s] if s in best else 0 for s in names]
        cells = [f"{r:.2f}" if r > 0 else "" for r in ratios]
        got = [r for r in ratios if r > 0]
        rows.append((lib, cells + [f"{geomean(got):.2f}" if got else ""]))
    return rows


def load_optional(path):
    """The rows of the CSV at `path`, none when it cannot be read (a benchmark that wrote no such file)."""
    try:
        return load(path)
    except OSError:
        return []


def search_table(path, names):
    """kriek's search per problem: the parallel kernel's and the serial (_t1) one's time and peak RSS."""
    rows = load_optional(path)
    if not rows:
        return [f"\nkriek's searches: no record in {path}"]
    by = OrderedDict()
    for r in rows:
        by.setdefault(r["problem"], []).append(r)
    out = [f"\nkriek's searches (time limit {rows[0]['time_limit_s']} s, {rows[0]['mem_limit_gib']} GiB; DP table: "
           f"{rows[0]['table']}): status, seconds, peak RSS, Specs solved; parallel kernel / serial kernel\n"]
    body = []
    for s in [n for n in names if n in by] + [n for n in by if n not in names]:
        def fmt(r):
            if r["status"] != "ok":
                return f"{r['status']} ({r['search_s']} s, {r['peak_rss_mib']} MiB)"
            return f"{float(r['search_s']):.1f} s, {r['peak_rss_mib']} MiB, {r['specs_solved'] or '?'} Specs"
        # Per problem: the kernel for B as given, then the one for B pre-packed (_pk), each parallel then serial.
        plain = [r for r in by[s] if not r["symbol"].split("_t1")[0].endswith("_pk")]
        packed = [r for r in by[s] if r["symbol"].split("_t1")[0].endswith("_pk")]
        cells = []
        for group in (plain, packed):
            cells += [fmt(r) for r in group[:2]] + ["–"] * (2 - len(group[:2]))
        body.append((s, cells))
    out += table("problem", ["parallel", "serial (_t1)", "B packed, parallel", "B packed, serial"], body)
    notes = [r["note"] for r in rows if r["note"] and r["status"] == "unsupported"]
    if notes:
        out.append(f"\nunsupported = kriek cannot state the problem yet ({len(notes)}; the first said: {notes[0]})")
    out.append("timeout = no kernel within the limit; '–' = the serial kernel is not searched when the parallel one "
               "failed")
    return out


def paired_table(path, names):
    """kriek's speed-up over its serial kernel timed within each process (driver --speedup-csv: the parallel and
    the _t1 kernel alternating round by round), the median over processes."""
    rows = load_optional(path)
    if not rows:
        return []
    by = OrderedDict()
    for r in rows:
        by.setdefault(r["library"], {}).setdefault(label(r), []).append(r)
    threads = rows[0]["threads"]
    out = [f"\nspeed-up, {threads} threads / 1 thread, within one process (kriek's parallel and serial kernels "
           "alternating round by round, on the same buffers; median of the rounds, then of the processes)\n"]
    out += table("library", names, [(lib, [f"{statistics.median(float(r['speedup_median']) for r in got[s]):.2f}"
                                           + paired_mark(got[s]) if s in got else "" for s in names])
                                    for lib, got in by.items()])
    if any(paired_mark(rs) for got in by.values() for rs in got.values()):
        out.append(PAIRED_LEGEND)
    return out


def geomean(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else 0


PAIRED_LEGEND = ("* = starved (others used >= 15% of the cores during the rounds, even after 3 tries); ~ = some turns "
                 "began before the other side's threads were idle (the wait for them timed out)")


def paired_mark(rows):
    """'*' when a paired ratio's rounds were starved, '~' when a turn began with the other side's threads busy."""
    mark = "*" if any(r.get("starved") == "1" for r in rows) else ""
    return mark + ("~" if any(r.get("unquiet_turns", "0") not in ("", "0") for r in rows) else "")


def best_peer_table(path, cells, names):
    """Per thread count, each kriek variant's paired ratio (driver --ratio-csv: peer time / kriek time per round of
    one process, the median of the rounds; > 1 = kriek faster) against the peer with the highest median GFLOP/s on
    that problem in the main CSV, the peer named in the first row; geometric mean in the last column. A pair timed
    in several processes (reruns appended to one CSV) takes the median of their medians."""
    rows = load_optional(path)
    if not rows:
        return [f"\nkriek / best peer, paired: no record in {path}"]
    got = {}
    for r in rows:
        got.setdefault((int(r["threads"]), r["library"], r["peer"], label(r)), []).append(r)
    out = []
    for threads in sorted(cells):
        per = cells[threads]
        best = {}
        for s in names:
            peers = [(median_ok(per[lib][s]), lib) for lib in per if not lib.startswith("kriek") and s in per[lib]]
            peers = [(g, lib) for g, lib in peers if g]
            if peers:
                best[s] = max(peers)[1]
        variants = ordered({lib for (t, lib, _, _) in got if t == threads})
        if not variants:
            continue
        body = [("fastest peer (median GFLOP/s)", [best.get(s, "") for s in names] + [""])]
        for v in variants:
            pairs = [got.get((threads, v, best.get(s), s), []) for s in names]
            ratios = [statistics.median(float(r["ratio_median"]) for r in rs) if rs else None for rs in pairs]
            row = [f"{x:.2f}" + paired_mark(rs) if x else "" for x, rs in zip(ratios, pairs)]
            kept = [x for x in ratios if x]
            body.append((v, row + [f"{geomean(kept):.2f}" if kept else ""]))
        out.append(f"\n{threads} thread(s), kriek / best peer, paired (same process, alternating rounds; > 1 = kriek "
                   "faster)\n")
        out += table("library", names + ["geomean"], body)
    if any(paired_mark(rs) for rs in got.values()):
        out.append(PAIRED_LEGEND)
    return out


def tables(problems, cells, kernels, peak, search, paired=None, ratios=None):
    out = []
    names = list(problems)
    for threads in sorted(cells):
        per = cells[threads]
        for as_pct in (False, True):
            what = f"% of measured peak ({threads} x {peak:.0f} GFLOP/s)" if as_pct else "GFLOP/s"
            out.append(f"\n{threads} thread(s), {what}\n")
            out += table("library", names, [(lib, [cell_text(per[lib][s], peak, threads, as_pct)
                                                  if s in per[lib] else "" for s in names]) for lib in ordered(per)])
        if any(l in per for l in ONEDNN):
            out.append(f"\n{threads} thread(s), ratio to oneDNN (the better of its variants per problem)\n")
            out += table("library", names + ["geomean"], ratio_rows(per, names))
    if len(cells) > 1:
        lo, hi = min(cells), max(cells)
        out.append(f"\nspeed-up, {hi} threads / {lo} thread(s)\n")
        rows = []
        for lib in ordered(set(cells[lo]) & set(cells[hi])):
            a, b = cells[lo][lib], cells[hi][lib]
            rows.append((lib, [f"{median_ok(b[s]) / median_ok(a[s]):.2f}" if s in a and s in b and median_ok(a[s])
                               and median_ok(b[s]) else "" for s in names]))
        out += table("library", names, rows)
    if paired:
        out += paired_table(paired, names)
    if ratios:
        out += best_peer_table(ratios, cells, names)
    if search:
        out += search_table(search, names)
    named = [(n, t) for n, t in problems.items() if n != t]
    if named:
        out.append("\nProblems: " + "; ".join(f"{n} = {t}" for n, t in named) +
                   " (NxHxWxC image : FHxFWxF filters : stride : zero padding)")
    out.append("\nKernels picked at run time: " +
               "; ".join(f"{lib}: {', '.join(sorted(k))}" for lib, k in kernels.items()))
    out.append("Timings exclude one-time set-up: oneDNN primitive creation and the reorder of the weights to its "
               "packed layout (onednn-packedB, onednn-packedW), libxsmm JIT code generation. '–' = not run "
               "(libxsmm needs K, N <= 257); square sizes are n = M = K = N, others M x K x N or B x M x K x N.")
    out.append("* = starved: other processes used >= 15% of the benchmark's cores while it was timed, even after 3 "
               "tries: that number measures the shared machine, not the library.")
    return "\n".join(out)


def plot(problems, cells, peak, png):
    """Top row: square matmuls, GFLOP/s vs n (evenly spaced), one line per library. Bottom row: every other
    problem as bars."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("report: matplotlib not found (install python3-matplotlib; run /usr/bin/python3): no plot",
              file=sys.stderr)
        return False
    square = sorted((s for s in problems if s.isdigit()), key=int)
    other = [s for s in problems if not s.isdigit()]
    thread_counts = sorted(cells)
    panels = [p for p in (square, other) if p]
    fig, axes = plt.subplots(len(panels), len(thread_counts),
                             figsize=(max(7, 0.9 * len(other)) * len(thread_counts), 4.6 * len(panels)),
                             squeeze=False)
    for col, threads in enumerate(thread_counts):
        per = cells[threads]
        libs = ordered(per)
        row = 0
        if square:
            ax = axes[row][col]
            row += 1
            for lib in libs:
                # Evenly spaced categories: 256 and 257 (a remainder case) must not collide.
                pts = [(i, median_ok(per[lib].get(s, []))) for i, s in enumerate(square)]
                pts = [(x, y) for x, y in pts if y is not None]
                if pts:
                    style = "--" if lib in ("openblas", "blis") else "-"
                    ax.plot(*zip(*pts), style, marker="o", label=lib, linewidth=2.5 if lib == "kriek" else 1.3)
            if peak > 0:
                ax.axhline(peak * threads, color="k", linestyle=":", label=f"measured peak ({peak * threads:.0f})")
            ax.set_xticks(range(len(square)))
            ax.set_xticklabels(square)
            ax.set_xlabel("n (M = K = N)")
            ax.set_ylabel("GFLOP/s (median)")
            ax.set_title(f"FP32 row-major C = A·B, square, {threads} thread(s)")
            ax.set_ylim(bottom=0)
            ax.grid(alpha=0.3)
            ax.legend(fontsize=7, loc="lower right")
        if not other:
            continue
        ax = axes[row][col]
        width = 0.8 / max(1, len(libs))
        for i, lib in enumerate(libs):
            ys = [median_ok(per[lib].get(s, [])) for s in other]
            xs = [j + i * width for j, y in enumerate(ys) if y is not None]
            ax.bar(xs, [y for y in ys if y is not None], width, label=lib)
        if peak > 0:
            ax.axhline(peak * threads, color="k", linestyle=":")
        ax.set_xticks([j + 0.4 - width / 2 for j in range(len(other))])
        ax.set_xticklabels(other, rotation=30, ha="right", fontsize=8)
        ax.set_ylabel("GFLOP/s (median)")
        convs = all(":" in problems[s] for s in other)
        what = "NHWC f32 conv layers" if convs else "non-square and batched matmuls" if square else "matmuls"
        ax.set_title(f"{what}, {threads} thread(s)")
        ax.grid(alpha=0.3, axis="y")
        ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(png, dpi=100)
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("csv")
    ap.add_argument("--png")
    ap.add_argument("--md")
    ap.add_argument("--search", help="kriek's search CSV (scripts/kriek_library.sh --search-csv)")
    ap.add_argument("--speedup", help="kriek's same-process speed-ups (the peer driver's --speedup-csv)")
    ap.add_argument("--ratios", help="kriek's paired ratios to each peer (the peer driver's --ratio-csv)")
    args = ap.parse_args()
    rows = load(args.csv)
    if not rows:
        sys.exit(f"report: {args.csv} has no results")
    problems, cells, kernels, peak = summarize(rows)
    text = tables(problems, cells, kernels, peak, args.search, args.speedup, args.ratios)
    print(text)
    if args.md:
        with open(args.md, "w") as f:
            f.write(text + "\n")
    if args.png and plot(problems, cells, peak, args.png):
        print(f"\nplot: {args.png}")
    wrong = [r for r in rows if r["status"] == "WRONG"]
    if wrong:
        print(f"report: {len(wrong)} WRONG result(s): " + ", ".join(f"{r['library']} {label(r)}" for r in wrong),
              file=sys.stderr)
        sys.exit(3)


if __name__ == "__main__":
    main()
