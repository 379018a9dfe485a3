# SPDX-License-Identifier: Apache-2.0
"""The results of a `make bench` run: for each row, one current file `<row>.md` (a line per
build, with the command that repeats the row, and the raw figures) and its PNG chart, which the
row's next run overwrites."""

import json
import os
import platform
from pathlib import Path


def _n(value, digits=0):
    if value is None:
        return "-"
    if isinstance(value, list):
        return " / ".join(_n(v, digits) for v in value)
    return f"{value:,.{digits}f}"


def _kinds(r):
    """Where a throughput row's CPU went, when measured (the bare SDK ceiling's is not split)."""
    k = r.get("cpu_by_kind")
    if not k:
        return ""
    sdk = f", SDK event loops {_n(k['sdk'], 1)}" if k.get("sdk", 0) >= 0.05 else ""
    exited = f", threads that exited {_n(k['exited'], 1)}" if k.get("exited", 0) >= 0.05 else ""
    return (
        f"tasks {_n(k['tasks'], 1)}, GC {_n(k['gc'], 1)}, JIT {_n(k['jit'], 1)}, "
        f"other {_n(k['other'], 1)}{sdk}{exited} CPU-s"
    )


def _throughput(r):
    if "records" not in r:  # Spark alone: its CPU in the same window, whatever the source
        return (
            f"**{_n(r['cpu_seconds'], 1)} CPU-s** in {_n(r['seconds'])} s at {_n(r['rows_per_s'])} rows/s, "
            f"{_n(r['batches_per_s'] * r['seconds'])} batches ({_kinds(r)})"
        )
    if "records_per_s" not in r:  # a cold row's floor: a sum of two measurements, not one
        return f"**{_n(r['records_per_cpu_s'])} records/CPU-s**, {_n(r['cpu_seconds'], 1)} CPU-s for {_n(r['records'])}"
    ceiling = f" ({_n(r['of_ceiling'] * 100)}% of ceiling)" if "of_ceiling" in r else ""
    ceiling += f" ({_n(r['of_floor'] * 100)}% of floor)" if "of_floor" in r else ""
    figures = (
        f"{_n(r['records_per_s'])} records/s, {_n(r['mb_per_s'], 1)} MB/s, "
        f"**{_n(r['records_per_cpu_s'])} records/CPU-s**{ceiling}, "
        f"{_n(r['cpu_seconds'], 1)} CPU-s for {_n(r['records'])}"
    )
    if r.get("prefetch_rounds") is not None:
        figures += f" in {_n(r['batches'])} batches and {_n(r['prefetch_rounds'])} prefetch rounds"
    if not r.get("cpu_by_kind"):
        return figures
    # The JIT's share is warm-up that a long-running query stops paying (code run a few hundred
    # times per run, such as per-call SDK code, is still compiled within the window).
    without_jit = r["records"] / max(r["cpu_seconds"] - r["cpu_by_kind"]["jit"], 1e-9)
    besides = (
        f"; {_n(r['records_per_cpu_s_besides_spark'])} besides the JIT and Spark alone's other CPU"
        if "records_per_cpu_s_besides_spark" in r
        else ""
    )
    return f"{figures} ({_kinds(r)}; {_n(without_jit)} records/CPU-s besides the JIT{besides})"


def _core_kinds(r):
    """Where a steady row's cores went: Spark's tasks, the SDK's event loops, GC, the JIT compiler, the rest."""
    k = r.get("cores_by_kind")
    if not k:
        return ""
    sdk = f"SDK event loops {_n(k['sdk'], 3)}, " if k.get("sdk", 0) >= 0.0005 else ""
    return f" (tasks {_n(k['tasks'], 3)}, {sdk}GC {_n(k['gc'], 3)}, JIT {_n(k['jit'], 3)}, other {_n(k['other'], 3)})"


def _which_run(runs, of_two_middle):
    """Which of several runs a figure is: the median, or of an even count one of the middle two."""
    return f"the median of {runs}" if runs % 2 else f"the {of_two_middle} middle one of {runs}"


def figures(row, r):
    """The few figures that say what a row measured, as text, with the host's yardstick when taken."""
    return _figures(row, r) + _host(r)


def _host(r):
    """The host's yardstick over the measured window (see host_speed): of each run, when several."""
    if r.get("host_unit_ms") is None:
        return ""
    runs = r.get("host_unit_ms_runs")
    each = f" (runs: {', '.join(_n(x, 2) for x in runs)})" if runs and len(runs) > 1 else ""
    return f"; host yardstick {_n(r['host_unit_ms'], 2)} CPU-ms{each}"


def _figures(row, r):
    if "error" in r:
        return f"failed: {r['error']}"
    if row == "backend":
        return (
            f"{_n(r['endpoint_records_per_cpu_s'])} records per CPU-second of the endpoint "
            "(one event-loop thread); "
            f"client {_n(r['client_records_per_cpu_s'])}/CPU-s; {_n(r['records_per_s'])} records/s wall"
        )
    if row == "calls":
        ms, cpu = _n(r["ms_per_call"], 3), _n(r["cpu_ms_per_call"], 3)
        return f"**{ms} ms** a call, {cpu} ms of CPU, over {_n(r['calls'])} calls"
    if row in ("polling", "efo") or row.startswith("cold"):
        return _throughput(r)
    if row.startswith("limits"):
        return (
            f"{_n(r['mib_per_s_per_shard'], 2)} MiB/s per shard = **{_n(r['pct_of_2mib'], 1)}% of 2 MiB/s**, "
            f"throttle events {_n(r['throttle_events'])}"
        )
    if row in ("steady", "steady-efo"):
        spread = (
            f" ({_which_run(len(r['records_per_cpu_s_runs']), 'lower')} runs: "
            f"{', '.join(_n(x) for x in r['records_per_cpu_s_runs'])})"
            if "records_per_cpu_s_runs" in r
            else ""
        )
        ratio_range = (
            " (rounds {}x to {}x)".format(*(_n(x, 2) for x in r["records_per_cpu_s_vs_awslabs_range"]))
            if "records_per_cpu_s_vs_awslabs_range" in r
            else ""
        )
        vs = (
            f"; **{_n(r['records_per_cpu_s_vs_awslabs'], 2)}x** awslabs' records/CPU-s{ratio_range}"
            + (
                f", {_n(r['calls_per_record_vs_awslabs'], 2)}x its calls per record"
                if "calls_per_record_vs_awslabs" in r
                else ""
            )
            if "records_per_cpu_s_vs_awslabs" in r
            else ""
        )
        return (
            f"**{_n(r['records_per_cpu_s'])} records/CPU-s**{spread} "
            f"({_n(r['records_per_cpu_s_besides_jit'])} besides the JIT"
            + (f", {_n(r['besides_jit_vs_awslabs'], 2)}x awslabs'" if "besides_jit_vs_awslabs" in r else "")
            + f"), {_n(r['cores'], 3)} cores, "
            f"{_n(r['calls_per_1000_records'], 2)} calls per 1,000 records "
            f"({_n(r['records'])} records, {_n(r['calls'])} calls in {_n(r['seconds'])} s){_core_kinds(r)}{vs}"
        )
    if row == "latency-floor" or row.startswith("steady"):
        return f"**{_n(r['cores'], 3)} cores** at {_n(r['rows_per_s'])} rows/s, {_n(r['batches_per_s'], 1)} batches/s"
    if row.startswith("latency") or row.startswith("pipeline"):
        batches = f", {_n(r['batches_per_s'], 1)} batches/s" if "batches_per_s" in r else ""
        return (
            f"p50 **{_n(r['p50_ms'])} ms**, p90 {_n(r['p90_ms'])}, p99 **{_n(r['p99_ms'])}**, "
            f"max {_n(r['max_ms'])} ms "
            f"({_n(r['records'])} records); **{_n(r['cores'], 3)} cores**{_core_kinds(r)}{batches}"
        )
    if row in ("idle", "idle-efo"):
        runs = (
            f" ({_which_run(len(r['cores_runs']), 'costlier')} runs: {', '.join(_n(x, 3) for x in r['cores_runs'])})"
            if "cores_runs" in r
            else ""
        )
        added = (
            f"; against Spark alone, **{r['cores_over_spark_alone']:+.3f} cores**"
            + (" (the median of the rounds)" if "cores_runs" in r else "")
            if "cores_over_spark_alone" in r
            else ""
        )
        return f"**{_n(r['cores'], 3)} cores** with nothing to read{runs}{_core_kinds(r)}{added}"
    if row.startswith("scale"):
        waited = f" of which waiting for records {_n(r['idle_wait_ms'])}" if r.get("idle_wait_ms") else ""
        # Not in the driver figure: the batch's job (the noop sink's).
        added = f"; addBatch {_n(r['add_batch_ms'])}" if r.get("add_batch_ms") is not None else ""
        calls = (
            f"; GetRecords {_n(r['get_records_per_s_to_first'])}/s before the first batch "
            f"({_n(r['cpu_ms_per_get_records_to_first'], 2)} CPU ms a call), "
            f"{_n(r['get_records_per_s_after'])}/s after it ({_n(r['cpu_ms_per_get_records_after'], 2)})"
            if "get_records_per_s_to_first" in r
            else ""
        )
        return (
            f"driver **{_n(r['driver_ms_per_trigger'])} ms/trigger** (latestOffset {_n(r['latest_offset_ms'])}"
            f"{waited}, planning {_n(r['planning_ms'])}{added}), first batch after {_n(r['first_batch_s'], 1)} s, "
            f"driver heap {_n(r['driver_heap_mb'])} MB, {r['triggers']} triggers{calls}"
        )
    if row.startswith("memory"):
        return (
            f"peak block memory **{_n(r['peak_block_mb'], 1)} MB** with fetchBufferSize {r['fetch_buffer_mb']} MB; "
            f"peak heap {_n(r['peak_heap_mb'])} MB; {_n(r['records'])} records"
        )
    if row == "gsr-avro":
        return (
            f"from_gsr_avro **{_n(r['from_gsr_avro_rows_per_cpu_s'])} rows/CPU-s**, Spark's from_avro on the same "
            f"records without their header {_n(r['from_avro_rows_per_cpu_s'])}: **{_n(r['gsr_vs_plain'], 2)}x** "
            f"({_n(r['rows'])} rows each)"
        )
    if row.startswith("sink"):
        if "ratio" in r:
            return f"**{_n(r['ratio'], 1)}x the rows/s** of none, {_n(r['cpu_ratio'], 1)}x the rows per CPU-second"
        return (
            f"**{_n(r['records_per_s'])} rows/s**, {_n(r['records_per_cpu_s'])} rows/CPU-s; "
            f"{_n(r['records'])} rows in {_n(r['kinesis_records'])} Kinesis records, {_n(r['seconds'], 1)} s"
        )
    return json.dumps(r)


def setup_line(jars):
    """Where a run ran, and the builds it compared."""
    return (
        f"{platform.node()}, {os.cpu_count()} cores, Python {platform.python_version()}; "
        "Spark local[2] (unless a build names another master), "
        f"the benchmark Kinesis of benchmarks/ on loopback. Builds: "
        + ", ".join(f"`{label}` = {Path(path).name}" for label, path in jars)
        + "."
    )


def row_report(row, setup, started, results_dir):
    """Writes `<row>.md` (and `<row>.png` when the row has a chart panel) in results_dir,
    replacing the row's earlier results: one current file per row. Returns the .md's path."""
    out = results_dir / f"{row['row']}.md"
    lines = [
        f"# make bench, row `{row['row']}`, {started:%Y-%m-%d %H:%M} UTC",
        "",
        setup,
        "",
        "| row | build | figures | seconds | repeat with |",
        "|---|---|---|---|---|",
    ]
    for i, r in enumerate(row["results"]):
        lines.append(
            f"| {row['row'] if i == 0 else ''} | {r.get('build', '')} | {figures(row['row'], r)} | "
            f"{_n(row['seconds']) if i == 0 else ''} | {'`' + row['command'] + '`' if i == 0 else ''} |"
        )
    png = out.with_suffix(".png")
    png.unlink(missing_ok=True)  # an earlier run's chart of the row must not stay beside new figures
    drawn = chart([row], png)
    lines += [
        "",
        f"![chart]({png.name})" if drawn else "(this row has no chart panel)",
        "",
        "<details><summary>raw figures</summary>",
        "",
        "```json",
        json.dumps([row], indent=1),
        "```",
        "</details>",
        "",
    ]
    out.write_text("\n".join(lines))
    return out


def write_report(rows, jars, started, results_dir):
    """The results of the rows that ran, one current file per row (see row_report); rows
    that did not run keep their files. Returns the paths written, in the rows' order."""
    results_dir.mkdir(parents=True, exist_ok=True)
    setup = setup_line(jars)
    return [row_report(row, setup, started, results_dir) for row in rows]


# The chart's panels: (title, rows, what a result shows). A panel is drawn only when a row of
# its own ran, so a run of one row is one panel, not three with two empty.
THROUGHPUT = ("polling", "efo")
LATENCY = ("latency-default", "latency-low", "latency-realtime", "latency-realtime-efo")
CORES = LATENCY + ("latency-floor", "steady-noop", "steady-noop-floor", "idle", "idle-efo")
PANEL_WIDTH_PX = 450  # 5 inches at 90 dpi


def _label(row, r):
    return f"{row.replace('latency-', '')}\n{r.get('build', '')}"


def panels(rows):
    """The panels the rows that ran fill, each as (title, kind, [(label, value)])."""
    by_row = {row["row"]: [r for r in row["results"] if "error" not in r] for row in rows}
    found = []
    bars = [
        (_label(name, r), r["records_per_cpu_s"])
        for name in THROUGHPUT
        for r in by_row.get(name, [])
        if "records_per_cpu_s" in r
    ]
    if bars:
        found.append(("records per CPU-second (1 KB, 8 shards)", "bars", bars))
    lat = [(_label(name, r), r) for name in LATENCY for r in by_row.get(name, [])]
    if lat:
        found.append(("put to sink latency, ms (1,000 records/s)", "percentiles", lat))
    cores = [(_label(name, r), r["cores"]) for name in CORES for r in by_row.get(name, []) if "cores" in r]
    if cores:
        found.append(("cores used by the Spark JVM", "bars", cores))
    return found


def chart(rows, path):
    """One panel per kind of row that ran: records per CPU-second (with the ceiling), latency
    percentiles, cores used. Returns False, and writes nothing, when no row has a panel."""
    found = panels(rows)
    if not found:
        return False
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(found), figsize=(PANEL_WIDTH_PX / 90 * len(found), 4.5), squeeze=False)
    for ax, (title, kind, data) in zip(axes[0], found):
        if kind == "bars":
            _bars(ax, data)
        else:
            _percentiles(ax, data)
        ax.set_title(title)
    fig.tight_layout()
    fig.savefig(path, dpi=90)  # not bbox_inches="tight": the width stays panels x PANEL_WIDTH_PX
    plt.close(fig)
    return True


def _bars(ax, bars):
    ax.bar(range(len(bars)), [v for _, v in bars], color="#4878a8")
    ax.set_xticks(range(len(bars)), [label for label, _ in bars], fontsize=8, rotation=30 if len(bars) > 5 else 0)
    for i, (_, v) in enumerate(bars):
        ax.annotate(f"{v:,.0f}" if v >= 10 else f"{v:.2f}", (i, v), ha="center", va="bottom", fontsize=8)


def _percentiles(ax, lat):
    x = range(len(lat))
    for key, offset in (("p50_ms", -0.2), ("p99_ms", 0.2)):
        ax.bar([i + offset for i in x], [r[key] or 0 for _, r in lat], 0.4, label=key[:3])
    ax.set_xticks(list(x), [label for label, _ in lat], fontsize=8)
    ax.legend()


def raw_rows(results_md):
    """The rows a results file of write_report holds (its raw figures); none in a results file
    of another tool (`make bench-realtime`'s), so that the chart can be drawn from every file."""
    text = Path(results_md).read_text()
    if "```json\n" not in text:
        return []
    return json.loads(text.split("```json\n", 1)[1].split("\n```", 1)[0])


def main():
    """Draws one chart from the results of several runs, keeping the builds named, e.g. the
    chart of docs/performance.md from the runs it cites. A row in several files is taken from
    the last."""
    import argparse

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--out", required=True, help="the PNG to write")
    parser.add_argument(
        "--build",
        action="append",
        required=True,
        dest="builds",
        help="a build to keep, once per build (e.g. now, 'bare SDK ceiling')",
    )
    parser.add_argument("results", nargs="+", help="results files (<row>.md) of make bench")
    args = parser.parse_args()
    rows = [
        {**row, "results": [r for r in row["results"] if r.get("build") in args.builds]}
        for md in args.results
        for row in raw_rows(md)
    ]
    if not chart(rows, args.out):
        parser.error("none of these rows has a panel")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
