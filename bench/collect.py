#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the guest's framed benchmark output into JSON records.

The guest (qemu/guest/bench.sh) prints, per measurement,
    BENCH-BEGIN cell job threads bs secs scheduler rep
    <fio JSON or dbench text>
    BENCH-END status=N
This reads that stream and appends one record per finished measurement to
results.jsonl, with the run's metadata. A measurement that failed, or whose
output cannot be read, gets a record with "failed" (the reason: the
guest's "failed: REASON" line, else what was wrong) and no figures, and
collection goes on; the exit status is then 1. A measurement whose END is
missing (the guest died) is dropped; the run is then marked incomplete.
"""
import argparse
import json
import re
import sys


def per_job_metrics(fio):
    """Throughput and worst latency per job name, summed over its clones.

    Jobs are named by role (reader, writer, nullb); fio numbers the clones
    of a numjobs group under the same name.  With several roles, total_kbps
    is their sum."""
    metrics = {}
    for job in fio.get("jobs", []):
        role = job["jobname"]
        kbps = 0.0
        iops = 0.0
        lat_max = 0.0
        for direction in ("read", "write"):
            d = job.get(direction, {})
            if not d.get("io_bytes"):
                continue
            kbps += d.get("bw", 0)
            iops += d.get("iops", 0)
            lat_max = max(lat_max, d.get("lat_ns", {}).get("max", 0) / 1e6)
        metrics[role + "_kbps"] = metrics.get(role + "_kbps", 0) + kbps
        metrics[role + "_iops"] = metrics.get(role + "_iops", 0) + iops
        key = role + "_lat_max_ms"
        metrics[key] = max(metrics.get(key, 0), lat_max)
    roles = [key for key in metrics if key.endswith("_kbps")]
    # Readers beside writers: what the disk moved for all of them.
    if len(roles) > 1:
        metrics["total_kbps"] = sum(metrics[key] for key in roles)
    return metrics


def seconds_per_loadfile(text):
    """Seconds one client needs for one pass of the load file, or None.

    A proxy: dbench 4.0 does not time passes, and on the model disks a
    pass (458k operations) takes minutes, longer than a run.  This is the
    time a pass would take at the pace the run kept over the part of the
    load file it got through: the once-a-second "execute" lines count the
    load-file lines each client has run so far (mean over the clients),
    and the load file's length (the job prints it first) is divided by
    the lines per second between the first and the last of them."""
    length = re.search(r"^loadfile (\d+) lines$", text, re.M)
    pace = re.findall(r"^ *\d+ +(\d+) +[0-9.]+ MB/sec +execute +(\d+) sec",
                      text, re.M)
    if not length or len(pace) < 2:
        return None
    (lines0, sec0), (lines1, sec1) = pace[0], pace[-1]
    if int(sec1) <= int(sec0) or int(lines1) <= int(lines0):
        return None
    lines_per_sec = (int(lines1) - int(lines0)) / (int(sec1) - int(sec0))
    return int(length.group(1)) / lines_per_sec


def dbench_metrics(text):
    """dbench's closing line: throughput and worst latency; the time per
    pass of the load file when the run shows its pace."""
    m = re.search(r"Throughput ([0-9.]+) MB/sec.*max_latency=([0-9.]+) ms",
                  text)
    if not m:
        return None
    metrics = {"dbench_mbps": float(m.group(1)),
               "dbench_lat_max_ms": float(m.group(2))}
    seconds = seconds_per_loadfile(text)
    if seconds is not None:
        metrics["seconds_per_loadfile"] = seconds
    return metrics


def completion_gaps(text):
    """The longest gap without a completed request, worst over the
    processes of each role and over all, from the job's "gap ROLE MS"
    lines (bench/jobs/lib.sh); {} when the job logs none."""
    metrics = {}
    for role, ms in re.findall(r"^gap (\S+) ([0-9.]+)$", text, re.M):
        for key in (role + "_gap_max_ms", "gap_max_ms"):
            metrics[key] = max(metrics.get(key, 0.0), float(ms))
    return metrics


def vmstat_deltas(text):
    """Kernel counters over the run, from the job's "vmstat NAME DELTA"
    lines (bench/jobs/lib.sh: the readahead counters); {} when none."""
    return {name: float(delta) for name, delta in
            re.findall(r"^vmstat (\S+) (-?[0-9]+)$", text, re.M)}


def disk_read_size(text):
    """Mean size in KiB of the read requests the device completed, from
    the job's "disk_reads REQUESTS SECTORS" line; {} without one, or
    when the device read nothing (a fully cached run)."""
    m = re.search(r"^disk_reads ([0-9]+) ([0-9]+)$", text, re.M)
    if not m or not int(m.group(1)):
        return {}
    return {"disk_read_req_kib": int(m.group(2)) / 2 / int(m.group(1))}


def readahead_window_size(text):
    """Mean size in KiB of the readahead windows the run issued, from the
    job's "ra_windows N KIB" line (make bench RA_TRACE=1); {} without one,
    or when no window was traced."""
    m = re.search(r"^ra_windows ([0-9]+) ([0-9]+)$", text, re.M)
    if not m or not int(m.group(1)):
        return {}
    return {"readahead_window_kib": int(m.group(2)) / int(m.group(1))}


def grown_window_sizes(text):
    """(Lower) median and largest KiB of the windows a reader's mark grew,
    from the job's "ra_grown N MEDIAN_KIB MAX_KIB" line (make bench
    RA_TRACE=1): a stream's windows settle at the largest it is given, so
    these show the limit that applied; {} without one."""
    m = re.search(r"^ra_grown [1-9][0-9]* ([0-9]+) ([0-9]+)$", text, re.M)
    if not m:
        return {}
    return {"readahead_grown_median_kib": float(m.group(1)),
            "readahead_grown_max_kib": float(m.group(2))}


def traced_decisions(text):
    """How many windows of each readahead decision the run traced, from
    the job's "ra_decided DECISION N" lines (make bench RA_TRACE=1), as
    ra_decided_DECISION; {} without them."""
    return {f"ra_decided_{decision}": float(n) for decision, n in
            re.findall(r"^ra_decided ([a-z]+) ([0-9]+)$", text, re.M)}


def read_amplification(text, fio):
    """Bytes the device read per byte the readers read, from the job's
    "disk_reads REQUESTS SECTORS" line and fio's read io_bytes: above 1,
    readahead read pages nobody used; {} without the line or reads."""
    m = re.search(r"^disk_reads ([0-9]+) ([0-9]+)$", text, re.M)
    read = sum(job.get("read", {}).get("io_bytes", 0)
               for job in fio.get("jobs", []))
    if not m or not read:
        return {}
    return {"read_amplification": int(m.group(2)) * 512 / read}


def system_cpu_per_gib(fio):
    """System CPU milliseconds per GiB read, per job name (fio gives each
    clone's system CPU as a percentage of its runtime)."""
    sys_ms, gib = {}, {}
    for job in fio.get("jobs", []):
        role = job["jobname"]
        sys_ms[role] = (sys_ms.get(role, 0.0) +
                        job.get("sys_cpu", 0) / 100 * job.get("job_runtime", 0))
        gib[role] = (gib.get(role, 0.0) +
                     job.get("read", {}).get("io_bytes", 0) / 2**30)
    return {role + "_sys_per_gib_ms": sys_ms[role] / gib[role]
            for role in sys_ms if gib[role]}


def tunables_set(text):
    """The tunables a label's @NAME=VALUE suffix set, as the guest read
    them back ("tunable NAME VALUE" lines)."""
    return dict(re.findall(r"^tunable (\S+) (\S+)$", text, re.M))


SCHED_SLICES = re.compile(r"^sched slices (sync|async) (\S+) slices (\d+) "
                          r"used_ms (\d+) dispatched (\d+)$", re.M)


def sched_slices(text):
    """mq-cfq's slices by how they ended ("sched slices" lines: the
    scheduler's sched/slices debugfs file after the run), as
    {"sync slice": {"slices": N, "used_ms": N, "dispatched": N}, ...}."""
    return {f"{sync} {why}": {"slices": int(n), "used_ms": int(used),
                              "dispatched": int(sent)}
            for sync, why, n, used, sent in SCHED_SLICES.findall(text)}


def fio_json(text):
    """The fio JSON document in @text (fio may print notes before it, the
    job its completion gaps after it)."""
    start = text.find("{")
    if start < 0:
        return None
    try:
        return json.JSONDecoder().raw_decode(text, start)[0]
    except json.JSONDecodeError:
        return None


def metrics_of(job, text):
    if job == "dbench":
        return dbench_metrics(text)
    fio = fio_json(text)
    if fio is None:
        return None
    metrics = per_job_metrics(fio)
    # IOPS matter for the CPU-cost and physics cells; elsewhere they
    # duplicate KB/s.
    if job not in ("nullblk-iops", "randread-iops", "device-read"):
        metrics = {k: v for k, v in metrics.items() if not k.endswith("_iops")}
    # On cached re-reads the cost of readahead is CPU time, not I/O.
    if job == "fileset-cached":
        metrics.update(system_cpu_per_gib(fio))
    metrics.update(completion_gaps(text))
    metrics.update(vmstat_deltas(text))
    metrics.update(disk_read_size(text))
    metrics.update(readahead_window_size(text))
    metrics.update(grown_window_sizes(text))
    metrics.update(traced_decisions(text))
    metrics.update(read_amplification(text, fio))
    return metrics


def measurements(lines):
    """Yield (fields of BEGIN, text of END, body text) per framed
    measurement."""
    begin = None
    body = []
    for line in lines:
        line = line.rstrip("\r\n")
        if line.startswith("BENCH-BEGIN "):
            begin = line.split()[1:]
            body = []
        elif line.startswith("BENCH-END ") and begin is not None:
            yield begin, line[len("BENCH-END "):], "\n".join(body)
            begin = None
        elif begin is not None:
            body.append(line)


class MeasurementFailed(Exception):
    """The measurement has no figures; the message says why."""


FIELDS = ("cell", "job", "threads", "bs", "secs", "scheduler", "rep")


def begin_fields(fields):
    """BENCH-BEGIN's fields by name."""
    if len(fields) != len(FIELDS):
        raise MeasurementFailed(f"BENCH-BEGIN has {len(fields)} fields, "
                                f"not {len(FIELDS)}")
    named = dict(zip(FIELDS, fields))
    try:
        named["rep"] = int(named["rep"])
        named["threads"] = (None if named["threads"] == "-"
                            else int(named["threads"]))
    except ValueError:
        raise MeasurementFailed("BENCH-BEGIN has a malformed number") from None
    return named


def check_status(end, body):
    """Raise unless BENCH-END says status=0."""
    m = re.fullmatch(r"status=(\d+)", end)
    if not m:
        raise MeasurementFailed(f"malformed BENCH-END \"{end}\"")
    if int(m.group(1)):
        said = re.findall(r"^failed: (.+)$", body, re.M)
        raise MeasurementFailed(said[-1] if said
                                else f"status {m.group(1)}")


def figures(job, body):
    """metrics_of(), with whatever the output lacks as the failure."""
    try:
        metrics = metrics_of(job, body)
    except (KeyError, TypeError, ValueError, AttributeError,
            ZeroDivisionError) as err:
        raise MeasurementFailed(f"unreadable output ({type(err).__name__}: "
                                f"{err})") from None
    if not metrics:
        raise MeasurementFailed("no figures in the output")
    return metrics


def record_of(fields, end, body, seeds, complete):
    """The record of one measurement; MeasurementFailed if it has none."""
    named = begin_fields(fields)
    check_status(end, body)
    record = {"cell": named["cell"], "seed": seeds.get(named["cell"], "-"),
              "title": f"{named['job']} {named['bs']}".strip(" -"),
              "threads": named["threads"], "bs": named["bs"],
              "scheduler": named["scheduler"], "rep": named["rep"],
              "metrics": figures(named["job"], body), "complete": complete}
    tunables = tunables_set(body)
    if tunables:
        record["tunables"] = tunables
    slices = sched_slices(body)
    if slices:
        record["sched_slices"] = slices
    rotational = re.search(r"^rotational ([01])$", body, re.M)
    if rotational:
        record["rotational"] = int(rotational.group(1))
    window = re.search(r"^read_ahead_kb ([0-9]+)$", body, re.M)
    if window:
        record["read_ahead_kb"] = int(window.group(1))
    return record


def failed_record(fields, reason):
    """What is known of a failed measurement, and why it failed."""
    record = {key: value for key, value in zip(FIELDS, fields)
              if key in ("cell", "scheduler", "rep", "bs")}
    if str(record.get("rep", "")).isdigit():
        record["rep"] = int(record["rep"])
    else:
        record.pop("rep", None)
    record["failed"] = reason
    return record


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("guest_output")
    ap.add_argument("--meta", required=True,
                    help="JSON object merged into every record")
    ap.add_argument("--seeds", required=True,
                    help="JSON object: cell -> seed")
    ap.add_argument("--incomplete", action="store_true")
    args = ap.parse_args()
    meta = json.loads(args.meta)
    seeds = json.loads(args.seeds)
    failed = 0
    with open(args.guest_output, errors="replace") as f:
        for fields, end, body in measurements(f):
            try:
                record = record_of(fields, end, body, seeds,
                                   not args.incomplete)
            except MeasurementFailed as why:
                print(f"collect: {' '.join(fields)}: failed: {why}",
                      file=sys.stderr)
                failed += 1
                record = failed_record(fields, str(why))
            print(json.dumps(dict(meta, **record), sort_keys=True))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
