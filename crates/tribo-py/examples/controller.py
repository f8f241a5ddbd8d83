"""Step an engine by hand with a controller written in Python, reading contact forces each step.

    python crates/tribo-py/examples/controller.py

The ball of samples/ball/ball.yaml falls; a PD law on its height, applied as a vertical force,
catches it at 0.5 m (its weight fed forward), and the script prints the floor contact it had
before the controller engaged.
"""

from pathlib import Path

import tribo

ROOT = Path(__file__).resolve().parents[3]
MASS, G = 0.5, 9.81


def main() -> None:
    sim = tribo.load(ROOT / "samples" / "ball" / "ball.yaml", set={"drop_height": 0.2}).simulator("pgs")
    peak = 0.0
    while sim.time < 3.0:
        link = sim.state["ball"]["links"]["Ball"]
        z, vz = link["position"][2], link["linear_velocity"][2]
        commands = None
        if sim.time > 1.0:  # after a second of bouncing, lift the ball to 0.5 m and hold it
            force = MASS * G + 40.0 * (0.5 - z) - 8.0 * vz
            commands = {"ball": {"wrench": {"link": "Ball", "force": [0.0, 0.0, force]}}}
        sim.step(commands)
        peak = max([peak] + [c.normal_force for c in sim.contacts])
    z = sim.state["ball"]["links"]["Ball"]["position"][2]
    print(f"t = {sim.time:.2f} s: ball centre at {z:.3f} m (target 0.5 m); peak floor force {peak:.1f} N")


if __name__ == "__main__":
    main()
