#!/usr/bin/env python3
"""Summarizes bench/results/kernels.csv (written by the peer executables): prints, per thread count, a Markdown
table of GFLOP/s per library and size and one of the fraction of the measured peak (threads x the single-core
peak from peak_fma), lists the kernel each library picked, and draws GFLOP/s vs size per library to a PNG.

Usage: report.py CSV [--png PNG] [--md MD]
The plot needs matplotlib (Debian: python3-matplotlib, so run with /usr/bin/python3); without it only the
tables are written.
"""
import argparse
import csv
import statistics
import sys
from collections import OrderedDict

# Table order: the bar first (forced AVX-512 builds), then what users get, then baselines; kriek leads.
ORDER = ["kriek", "libxsmm", "onednn-packedB", "onednn", "openblas-forced", "openblas", "blis-forced", "blis",
         "eigen", "naive"]


def size_label(m, k, n):
    return str(m) if m == k == n else f"{m}x{k}x{n}"


def load(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def summarize(rows):
    """-> {threads: {library: {size: (gflops, pct, status)}}}, sizes in order of first appearance, kernels."""
    sizes = OrderedDict()
    cells = {}
    kernels = OrderedDict()
    peak = 0.0
    for r in rows:
        t = int(r["threads"])
        m, k, n = int(r["M"]), int(r["K"]), int(r["N"])
        label = size_label(m, k, n)
        sizes.setdefault(label, (m * k * n, m, k, n))
        lib = r["library"]
        peak = max(peak, float(r["peak_gflops_1core"] or 0))
        if r["kernel"]:
            kernels.setdefault(lib, set()).add(r["kernel"])
        # The same library can appear more than once (kriek runs in every peer process): take the median.
        cells.setdefault(t, {}).setdefault(lib, {}).setdefault(label, []).append(r)
    return sizes, cells, kernels, peak


def cell_text(entries, peak, threads, as_pct):
    ok = [e for e in entries if e["status"] == "ok"]
    if not ok:
        st = entries[0]["status"]
        return "WRONG" if st == "WRONG" else "–"
    g = statistics.median(float(e["gflops_median"]) for e in ok)
    # Starved (decided by the driver): other work held the cores while this was timed.
    mark = "*" if any(e.get("starved") == "1" for e in ok) else ""
    if as_pct:
        return (f"{100 * g / (peak * threads):.0f}%" if peak > 0 else "?") + mark
    return f"{g:.0f}{mark}"


def tables(sizes, cells, kernels, peak):
    out = []
    libs_seen = {lib for per in cells.values() for lib in per}
    libs = [l for l in ORDER if l in libs_seen] + sorted(libs_seen - set(ORDER))
    size_names = list(sizes)
    for threads in sorted(cells):
        per = cells[threads]
        for as_pct in (False, True):
            what = (f"% of measured peak ({threads} x {peak:.0f} GFLOP/s)" if as_pct else "GFLOP/s")
            out.append(f"\n{threads} thread(s), {what}\n")
            out.append("| library | " + " | ".join(size_names) + " |")
            out.append("|---" * (len(size_names) + 1) + "|")
            for lib in libs:
                if lib not in per:
                    continue
                row = [cell_text(per[lib][s], peak, threads, as_pct) if s in per[lib] else "" for s in size_names]
                out.append(f"| {lib} | " + " | ".join(row) + " |")
    out.append("\nKernels picked at run time: " +
               "; ".join(f"{lib}: {', '.join(sorted(k))}" for lib, k in kernels.items()))
    out.append("Timings exclude one-time set-up: oneDNN primitive creation and the reorder of B to its packed "
               "layout (onednn-packedB), libxsmm JIT code generation. '–' = not run (libxsmm needs K, N <= 257); "
               "square sizes are n = M = K = N, others M x K x N.")
    out.append("* = starved: other processes used >= 15% of the benchmark's cores while it was timed, even after 3 "
               "tries: that number measures the shared machine, not the library.")
    return "\n".join(out)


def median_ok(entries):
    ok = [e for e in entries if e["status"] == "ok"]
    return statistics.median(float(e["gflops_median"]) for e in ok) if ok else None


def plot(sizes, cells, peak, png):
    """Top row: square sizes, GFLOP/s vs n (evenly spaced), one line per library. Bottom row: the non-square shapes as bars."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("report: matplotlib not found (install python3-matplotlib; run /usr/bin/python3): no plot",
              file=sys.stderr)
        return False
    square = sorted((s for s in sizes if "x" not in s), key=int)
    other = [s for s in sizes if "x" in s]
    thread_counts = sorted(cells)
    rows = 1 + bool(other)
    fig, axes = plt.subplots(rows, len(thread_counts), figsize=(7 * len(thread_counts), 4.6 * rows), squeeze=False)
    for col, threads in enumerate(thread_counts):
        per = cells[threads]
        libs = [l for l in ORDER if l in per] + sorted(set(per) - set(ORDER))
        ax = axes[0][col]
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
        ax = axes[1][col]
        width = 0.8 / max(1, len(libs))
        for i, lib in enumerate(libs):
            ys = [median_ok(per[lib].get(s, [])) for s in other]
            xs = [j + i * width for j, y in enumerate(ys) if y is not None]
            ax.bar(xs, [y for y in ys if y is not None], width, label=lib)
        if peak > 0:
            ax.axhline(peak * threads, color="k", linestyle=":")
        ax.set_xticks([j + 0.4 - width / 2 for j in range(len(other))])
        ax.set_xticklabels([f"{s} (MxKxN)" for s in other])
        ax.set_ylabel("GFLOP/s (median)")
        ax.set_title(f"non-square, {threads} thread(s)")
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
    args = ap.parse_args()
    rows = load(args.csv)
    if not rows:
        sys.exit(f"report: {args.csv} has no results")
    sizes, cells, kernels, peak = summarize(rows)
    text = tables(sizes, cells, kernels, peak)
    print(text)
    if args.md:
        with open(args.md, "w") as f:
            f.write(text + "\n")
    if args.png and plot(sizes, cells, peak, args.png):
        print(f"\nplot: {args.png}")
    wrong = [r for r in rows if r["status"] == "WRONG"]
    if wrong:
        print(f"report: {len(wrong)} WRONG result(s): " +
              ", ".join(f"{r['library']} {size_label(r['M'], r['K'], r['N'])}" for r in wrong), file=sys.stderr)
        sys.exit(3)


if __name__ == "__main__":
    main()
