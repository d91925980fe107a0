#!/usr/bin/env python3
"""make bench, host half: bhscope jbd2 against bpftrace and an untraced run.

A RAM-backed ext4 (loop on /dev/shm) mounted -o dirsync, bhbench sync
writers, interleaved repeats. Prints the ratio table and writes JSON.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import abbench  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))


def sh(*argv):
    return subprocess.run(argv, check=True, capture_output=True, text=True).stdout.strip()


class RamExt4:
    """ext4 on a loop device over /dev/shm (tests/lib/loopfs.sh), mounted;
    undone on exit."""

    LOOPFS = os.path.join(ROOT, "tests/lib/loopfs.sh")

    def __init__(self, size_mb, opts):
        self.size_mb, self.opts = size_mb, opts

    def __enter__(self):
        self.mnt = tempfile.mkdtemp(prefix="bhscope-bench.")
        try:
            self.dev = sh(self.LOOPFS, "mount", "-o", self.opts, str(self.size_mb),
                          self.mnt, "-b", "4096", "-N", "150000")
        except BaseException:
            os.rmdir(self.mnt)
            raise
        return self

    def __exit__(self, *exc):
        subprocess.run([self.LOOPFS, "umount", self.mnt], check=True)
        os.rmdir(self.mnt)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--threads", type=int, default=8)
    ap.add_argument("--files", type=int, default=8000, help="files per thread")
    ap.add_argument("--smoke", action="store_true", help="one quick repeat")
    ap.add_argument("--out", default=os.path.join(ROOT, "build/bench/jbd2.json"))
    args = ap.parse_args()
    if args.smoke:
        args.reps, args.files = 1, 300

    bhscope = os.path.join(ROOT, "build/bhscope")
    bhbench = os.path.join(ROOT, "build/bhbench")
    with RamExt4(512, "dirsync") as fs:
        name = os.path.basename(fs.dev)

        def workload():
            out = sh(bhbench, "sync", "-D", fs.mnt, "-t", str(args.threads),
                     "-n", str(args.files), "--dirsync", "-q", "-j")
            return json.loads(out)["results"]["files_per_sec"]

        modes = [
            ("untraced", None),
            ("bhscope jbd2", abbench.Tracer("bhscope", [bhscope, "jbd2", "-d", name, "-j", "1"], 5)),
            ("bpftrace", abbench.Tracer("bpftrace", ["bpftrace", os.path.join(ROOT, "bench/jbd2.bt")], 5)),
        ]
        print(f"jbd2: {args.threads} dirsync writers x {args.files} files on {fs.dev}, "
              f"{args.reps} interleaved repeats")
        samples = abbench.run_interleaved(modes, workload, args.reps)
    rows = abbench.summarize(samples, "untraced")
    abbench.print_table(f"jbd2 on {os.uname().release}: bhbench sync files/s", rows,
                        "untraced", compare=("bhscope jbd2", "bpftrace"))
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump({"schema": "bhscope.bench/1", "part": "jbd2",
                   "kernel": os.uname().release, "params": vars(args),
                   "summary": rows, "samples": samples}, f, indent=1)
    print(f"results: {args.out}")


if __name__ == "__main__":
    main()
