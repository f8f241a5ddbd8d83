"""A sweep on Ray through a ten-line ``concurrent.futures.Executor`` adapter.

    pip install ray && python crates/tribo-py/examples/sweep_ray.py [--address ray://HOST:10001]

Ray (2.x) has no ``concurrent.futures.Executor`` of its own, but every Ray task's result is an
``ObjectRef`` whose ``.future()`` is a ``concurrent.futures.Future`` — all ``tribo.sweep`` asks of
an executor is ``submit``. The script checks the Ray sweep against the in-process one.
"""

import argparse
import concurrent.futures
from pathlib import Path

import ray

import tribo

ROOT = Path(__file__).resolve().parents[3]


@ray.remote(num_cpus=1)
def _call(fn, *args, **kwargs):
    return fn(*args, **kwargs)


class RayExecutor(concurrent.futures.Executor):
    """``submit(fn, *args)`` as a Ray task (one CPU each); ``ray.init`` must have been called."""

    def submit(self, fn, /, *args, **kwargs):
        return _call.remote(fn, *args, **kwargs).future()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--address", help="a running Ray cluster (default: start one here)")
    parser.add_argument("--cpus", type=int, default=2, help="CPUs of the local Ray instance")
    args = parser.parse_args()
    project = ROOT / "samples" / "ball" / "ball.yaml"
    params = {"drop_height": [0.5, 0.75, 1.0]}
    engines = ["rapier", "pgs"]
    local = tribo.sweep(project, params, engines, time=1.5)
    if args.address:
        ray.init(address=args.address)
    else:
        ray.init(num_cpus=args.cpus, include_dashboard=False)
    try:
        on_ray = tribo.sweep(project, params, engines, RayExecutor(), time=1.5)
    finally:
        ray.shutdown()
    print(f"{len(on_ray.runs)} runs on Ray; equal to the in-process sweep: {on_ray.matches(local)}")
    print("first_apex on pgs:", on_ray.values("first_apex", "pgs"))


if __name__ == "__main__":
    main()
