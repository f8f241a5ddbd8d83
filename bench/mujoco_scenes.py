"""MuJoCo models of tribo's benchmark scenes, built from `tribo-bench describe` JSON.

The description carries what the project says (root poses, initial joint positions, masses,
box sizes, the material table's coefficients, the joint-pattern gains and frames), so MuJoCo
runs the scene the project file defines:

- the floor (the scene's one fixed body, whose top is z = 0) is a MuJoCo plane at z = 0;
- a single-link free body of one box or sphere becomes a body with a free joint, its mass and
  inertia as given, the shape as a geom;
- SR1 (model file SR1.body) is loaded from share/choreonoid/model/SR1.urdf by MuJoCo's URDF
  compiler, with a floating joint added above its root link (URDF roots are welded to the world
  otherwise); the joint effort limits the URDF carries are dropped, as tribo's PD is unclamped;
- friction is the table's static coefficient of each link's material against the floor's; every
  geom carries it and the floor carries 0, so MuJoCo's max rule gives each pair the table's value
  (pairs between moving bodies get the larger of the two: the piles have one material);
- a `mode: position` joint pattern becomes position actuators (kp = P, kv = D) whose controls are
  the pattern resampled at every step; the integrator is `implicitfast` (implicit actuator
  damping, as tribo's engines evaluate the PD implicitly);
- solver settings are MuJoCo's defaults (Newton, pyramidal cones, 100 iterations, tolerance
  1e-8), self-collisions off as in the projects.
"""

import pathlib

import mujoco
import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
SR1_URDF = ROOT / "share" / "choreonoid" / "model" / "SR1.urdf"


class SceneError(Exception):
    """The description holds something these builders do not translate."""


def _friction(desc, material, floor_material):
    for pair in desc["contacts"]:
        if sorted(pair["materials"]) == sorted([material, floor_material]):
            return pair["static_friction"]
    raise SceneError(f"{desc['project']}: no contact entry for {material} / {floor_material}")


def _floor(desc):
    fixed = [b for b in desc["bodies"] if b["fixed"]]
    if len(fixed) != 1:
        raise SceneError(f"{desc['project']}: {len(fixed)} fixed bodies; these scenes have one floor")
    return fixed[0]


def _add_floor(spec, floor):
    spec.worldbody.add_geom(
        name="floor",
        type=mujoco.mjtGeom.mjGEOM_PLANE,
        size=[5.0, 5.0, 0.1],
        friction=[0.0, 0.0, 0.0],
    )


def _settings(spec, desc):
    spec.option.timestep = desc["time_step"]
    spec.option.gravity = desc["gravity"]
    spec.option.integrator = mujoco.mjtIntegrator.mjINT_IMPLICITFAST


def _free_body(spec, body, friction):
    (link,) = body["links"]
    if len(link["shapes"]) != 1:
        raise SceneError(f"body {body['name']}: one shape per free body here")
    shape = link["shapes"][0]
    geometry = shape["geometry"]
    pose = body["root_pose"]
    b = spec.worldbody.add_body(
        name=body["name"],
        pos=pose["translation"],
        quat=pose["quaternion"],
        mass=link["mass"],
        ipos=link["center_of_mass"],
        fullinertia=[
            link["inertia"][0][0],
            link["inertia"][1][1],
            link["inertia"][2][2],
            link["inertia"][0][1],
            link["inertia"][0][2],
            link["inertia"][1][2],
        ],
    )
    b.explicitinertial = True
    b.add_freejoint()
    kw = dict(pos=shape["pose"]["translation"], quat=shape["pose"]["quaternion"], friction=[friction, 0.005, 0.0001])
    if geometry["type"] == "box":
        b.add_geom(type=mujoco.mjtGeom.mjGEOM_BOX, size=[s / 2.0 for s in geometry["size"]], **kw)
    elif geometry["type"] == "sphere":
        b.add_geom(type=mujoco.mjtGeom.mjGEOM_SPHERE, size=[geometry["radius"], 0, 0], **kw)
    else:
        raise SceneError(f"body {body['name']}: shape {geometry['type']} is not translated")


def _sr1(desc, body, floor_material):
    """SR1 from its URDF, as the spec the rest of the scene is added to."""
    urdf = SR1_URDF.read_text()
    # A floating joint above WAIST: MuJoCo welds a URDF's root link to the world otherwise.
    urdf = urdf.replace(
        '<robot name="SR1">',
        '<robot name="SR1">\n<link name="tribo_world"/>\n'
        '<joint name="tribo_root" type="floating"><parent link="tribo_world"/><child link="WAIST"/></joint>',
        1,
    )
    robot = mujoco.MjSpec.from_string(urdf)
    frictions = {link["name"]: _friction(desc, link["material"], floor_material) for link in body["links"]}
    for geom in robot.geoms:
        mu = frictions.get(geom.parent.name)
        if mu is None:
            raise SceneError(f"SR1.urdf link {geom.parent.name} is not in {desc['project']}")
        geom.friction = [mu, 0.005, 0.0001]
        geom.contype = 1
        geom.conaffinity = 0  # no self-collisions; the floor (conaffinity 1) still collides
    for joint in robot.joints:
        joint.actfrclimited = mujoco.mjtLimited.mjLIMITED_FALSE
    return robot


def build(desc):
    """(MjModel, MjData, control schedule) for a description: the schedule maps a step index
    (from 0) to the actuator controls, or is None when the scene has no actuators."""
    floor = _floor(desc)
    floor_material = floor["links"][0]["material"]
    moving = [b for b in desc["bodies"] if not b["fixed"]]
    articulated = [b for b in moving if len(b["links"]) > 1]
    if len(articulated) > 1:
        raise SceneError(f"{desc['project']}: more than one articulated body")
    for body in articulated:
        if not body["model_file"].endswith("SR1.body"):
            raise SceneError(f"{desc['project']}: no MuJoCo model for {body['model_file']}")
    spec = _sr1(desc, articulated[0], floor_material) if articulated else mujoco.MjSpec()
    _settings(spec, desc)
    _add_floor(spec, floor)
    for body in moving:
        if len(body["links"]) == 1:
            _free_body(spec, body, _friction(desc, body["links"][0]["material"], floor_material))
    patterns = [c for c in desc["controllers"] if c["type"] == "joint_pattern"]
    for c in desc["controllers"]:
        if c["type"] != "joint_pattern" or c["mode"] != "position":
            raise SceneError(f"{desc['project']}: only position-mode joint patterns are translated")
    for c in patterns:
        for name, (kp, kd) in zip(c["joints"], c["gains"]):
            act = spec.add_actuator(name=f"pd_{name}", target=name, trntype=mujoco.mjtTrn.mjTRN_JOINT)
            act.set_to_position(kp=kp, kv=kd)
    model = spec.compile()
    data = mujoco.MjData(model)
    for body in articulated:
        _initial_pose(model, data, body)
    mujoco.mj_forward(model, data)
    schedule = _schedule(desc, patterns) if patterns else None
    return model, data, schedule


def _initial_pose(model, data, body):
    root = body["root_pose"]
    free = model.jnt_qposadr[mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_JOINT, "tribo_root")]
    data.qpos[free : free + 3] = root["translation"]
    data.qpos[free + 3 : free + 7] = root["quaternion"]
    for link in body["links"]:
        if link["joint"] in ("revolute", "prismatic"):
            j = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_JOINT, link["joint_name"])
            data.qpos[model.jnt_qposadr[j]] = link["initial_position"]


def _schedule(desc, patterns):
    """Controls per step: each pattern at t = k dt, linearly interpolated between frames at its
    own frame rate, the last frame held (tribo's joint_pattern resampling)."""
    (c,) = patterns
    frames = np.asarray(c["frames"], dtype=float)
    t = np.arange(desc["steps"]) * desc["time_step"]
    s = np.clip(t * c["frame_rate"], 0, len(frames) - 1)
    return np.stack([np.interp(s, np.arange(len(frames)), frames[:, j]) for j in range(frames.shape[1])], axis=1)
