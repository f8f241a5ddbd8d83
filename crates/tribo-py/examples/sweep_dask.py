"""A sweep on Dask's distributed scheduler, timed: the same grid on N worker processes.

    python crates/tribo-py/examples/sweep_dask.py --workers 1 2
    python crates/tribo-py/examples/sweep_dask.py --scheduler tcp://HOST:8786   # a real cluster

By default: samples/ball/ball.yaml, drop_height × 50 values × rapier, pgs = 100 runs of 1 s of
simulated time each. Each worker count gets a fresh LocalCluster (processes, one thread each);
the script checks that every result equals the in-process sweep's and prints the wall times.
"""

import argparse
import os
import time
from pathlib import Path

import tribo

ROOT = Path(__file__).resolve().parents[3]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--project", default=str(ROOT / "samples" / "ball" / "ball.yaml"))
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--points", type=int, default=50)
    parser.add_argument("--engines", default="rapier,pgs")
    parser.add_argument("--time", type=float, default=1.0)
    parser.add_argument("--scheduler", help="address of a running Dask scheduler")
    args = parser.parse_args()

    from dask.distributed import Client, LocalCluster

    heights = [round(0.5 + i * (1.0 / args.points), 6) for i in range(args.points)]
    params = {"drop_height": heights}
    engines = args.engines.split(",")
    runs = len(heights) * len(engines)
    print(f"{runs} runs ({len(heights)} drop heights × {', '.join(engines)}), {args.time} s each")
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} at start")

    start = time.perf_counter()
    reference = tribo.sweep(args.project, params, engines, time=args.time, trajectory=False)
    print(f"in-process (threads): {time.perf_counter() - start:.2f} s")

    if args.scheduler:
        with Client(args.scheduler) as client:
            start = time.perf_counter()
            result = tribo.sweep(args.project, params, engines, client.get_executor(), time=args.time, trajectory=False)
            print(f"cluster {args.scheduler}: {time.perf_counter() - start:.2f} s, equal: {result.matches(reference)}")
        return
    for n in args.workers:
        with LocalCluster(n_workers=n, processes=True, threads_per_worker=1, dashboard_address=None) as cluster:
            with Client(cluster) as client:
                client.run(lambda: __import__("tribo"))  # import once per worker, outside the timing
                start = time.perf_counter()
                result = tribo.sweep(args.project, params, engines, client.get_executor(), time=args.time, trajectory=False)
                wall = time.perf_counter() - start
        print(f"dask, {n} worker process(es): {wall:.2f} s, equal to in-process: {result.matches(reference)}")


if __name__ == "__main__":
    main()
