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
- any other articulated body (the walker) is built link by link from the description: its root on
  a free joint, each other link a child body at its offset on a hinge (revolute) or slide
  (prismatic) joint carrying the joint's armature — a geared actuator's reflected inertia, rotor
  inertia × gear ratio², which tribo's engines add to the joint's inertia: without it the
  walker's joints have their links' inertia alone and it falls within two steps — and its boxes,
  spheres, cylinders and capsules (tribo's
  cylinder axis, the shape frame's +Y, turned onto MuJoCo's +Z); geoms touch the floor, not each
  other (self-collisions off, as in the projects);
- friction is the table's static coefficient of each link's material against the floor's; every
  geom carries it and the floor carries 0, so MuJoCo's max rule gives each pair the table's value
  (pairs between moving bodies get the larger of the two: the piles have one material);
- a `mode: position` joint pattern becomes position actuators (kp = P, kv = D) whose controls are
  the pattern resampled at every step; the integrator is `implicitfast` (implicit actuator
  damping, as tribo's engines evaluate the PD implicitly); a `mode: torque` pattern (tribo's
  `u = P (q_ref − q) + D (q̇_ref − q̇)` applied as an effort, both velocities finite differences
  over the step) becomes per joint a position actuator (kp = P, no damping) and a velocity
  actuator (kv = D), whose controls are the resampled pattern and its finite-difference rate —
  the same law, with MuJoCo's joint velocity for tribo's finite difference and its damping taken
  implicitly;
- a fixed body moved by a `kinematic_path` (gentle-grasp's palm) is a free body a million times
  its mass and inertia, gravity-compensated, whose position is set before every step to the
  path's at the step's start and whose velocity to the path's mean over the step (the motion
  tribo's engines are given): contacts cannot move it, and the contact solver sees it move (a
  mocap body would not: MuJoCo gives it no velocity, and the fingers would slide past what they
  hold). Its other links are child bodies on slide or hinge joints; a `joint_effort` becomes a
  motor actuator whose control is the effort within its time window;
- solver settings are MuJoCo's defaults (Newton, pyramidal cones, 100 iterations, tolerance
  1e-8), self-collisions off as in the projects — but for a scene with a kinematic hand
  (gentle-grasp), `impratio` 10 (friction constraints ten times harder than the normal ones,
  MuJoCo's remedy for grasped objects creeping out of soft frictional contacts): with the
  default 1 the ball slides out of the fingers during the lift (52 mm), with 10 it slips 2.7 mm,
  on elliptic cones as much.

Friction: MuJoCo takes the larger of two geoms' coefficients. The free bodies' geoms carry their
material's coefficient against the floor, the floor 0, and a kinematic body's geoms their
material's coefficient against the free bodies' material; `build` checks that this gives every
pair of the scene's materials that can touch (free against anything) the table's coefficient.
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


def _kinematic_paths(desc):
    """{body name: its kinematic_path controller}."""
    return {c["body"]: c for c in desc["controllers"] if c["type"] == "kinematic_path"}


def _floor(desc):
    moved = _kinematic_paths(desc)
    fixed = [b for b in desc["bodies"] if b["fixed"] and b["name"] not in moved]
    if len(fixed) != 1:
        raise SceneError(f"{desc['project']}: {len(fixed)} fixed bodies not moved by a path; these scenes have one floor")
    return fixed[0]


def _floor_top(floor):
    """z of the floor's top face: its one box's top, in the world."""
    (link,) = floor["links"]
    (shape,) = link["shapes"]
    if shape["geometry"]["type"] != "box" or floor["root_pose"]["quaternion"] != [1.0, 0.0, 0.0, 0.0]:
        raise SceneError(f"floor {floor['name']}: one upright box expected")
    return floor["root_pose"]["translation"][2] + shape["pose"]["translation"][2] + shape["geometry"]["size"][2] / 2.0


def _add_floor(spec, floor):
    spec.worldbody.add_geom(
        name="floor",
        type=mujoco.mjtGeom.mjGEOM_PLANE,
        pos=[0.0, 0.0, _floor_top(floor)],
        size=[5.0, 5.0, 0.1],
        friction=[0.0, 0.0, 0.0],
    )


# tribo's cylinders and capsules lie along their shape frame's +Y (Choreonoid's convention), MuJoCo's
# along the geom frame's +Z: the geom frame is the shape frame turned by −90° about X, which takes
# +Z onto +Y.
Z_ONTO_Y = np.array([np.sqrt(0.5), -np.sqrt(0.5), 0.0, 0.0])


def _add_shape(body, name, shape, friction, **extra):
    geometry = shape["geometry"]
    quat = np.array(shape["pose"]["quaternion"], dtype=float)
    kw = dict(pos=shape["pose"]["translation"], friction=[friction, 0.005, 0.0001], **extra)
    if geometry["type"] == "box":
        body.add_geom(type=mujoco.mjtGeom.mjGEOM_BOX, size=[s / 2.0 for s in geometry["size"]], quat=quat, **kw)
    elif geometry["type"] == "sphere":
        body.add_geom(type=mujoco.mjtGeom.mjGEOM_SPHERE, size=[geometry["radius"], 0, 0], quat=quat, **kw)
    elif geometry["type"] in ("cylinder", "capsule"):
        # Both take the radius and the half-length of the cylindrical part (a tribo capsule's
        # `height` is that part alone).
        along = np.zeros(4)
        mujoco.mju_mulQuat(along, quat, Z_ONTO_Y)
        kind = mujoco.mjtGeom.mjGEOM_CYLINDER if geometry["type"] == "cylinder" else mujoco.mjtGeom.mjGEOM_CAPSULE
        body.add_geom(type=kind, size=[geometry["radius"], geometry["height"] / 2.0, 0], quat=along, **kw)
    else:
        raise SceneError(f"body {name}: shape {geometry['type']} is not translated")


def _inertial(link):
    i = link["inertia"]
    return dict(
        mass=link["mass"],
        ipos=link["center_of_mass"],
        fullinertia=[i[0][0], i[1][1], i[2][2], i[0][1], i[0][2], i[1][2]],
    )


# `impratio` of a scene with a kinematic hand (module docs).
GRASP_IMPRATIO = 10.0

# A kinematic body's mass and inertia over its own: contacts change its velocity within a step by
# a millionth of what they would change its own (and it is set again before the next step).
KINEMATIC_SCALE = 1e6


def _link_tree(spec, body, add_root, friction_of, **geom):
    """The links of `body` as MuJoCo bodies: its root link by `add_root(spec, body, link)` (which
    returns the MjsBody), every other link a child body at its offset on its joint (slide for
    prismatic, hinge for revolute, none for fixed), each with its mass, inertia and shapes."""
    bodies = []
    for k, link in enumerate(body["links"]):
        if link["parent"] is None:
            if k != 0:
                raise SceneError(f"body {body['name']}: one root link, listed first")
            b = add_root(spec, body, link)
        else:
            offset = link["offset"]
            b = bodies[link["parent"]].add_body(name=f"{body['name']}.{link['name']}", pos=offset["translation"], quat=offset["quaternion"], **_inertial(link))
            b.explicitinertial = True
            kinds = {"prismatic": mujoco.mjtJoint.mjJNT_SLIDE, "revolute": mujoco.mjtJoint.mjJNT_HINGE}
            if link["joint"] in kinds:
                b.add_joint(name=link["joint_name"], type=kinds[link["joint"]], axis=link["joint_axis"], ref=0.0, armature=link.get("armature", 0.0))
            elif link["joint"] != "fixed":
                raise SceneError(f"body {body['name']}: joint {link['joint']} of link {link['name']} is not translated")
        for shape in link["shapes"]:
            _add_shape(b, body["name"], shape, friction_of(link["material"]), **geom)
        bodies.append(b)


def _kinematic_root(spec, body, link):
    """A kinematic body's root: a heavy, gravity-compensated free body at the root pose (module
    docs)."""
    pose = body["root_pose"]
    heavy = _inertial(link)
    heavy["mass"] *= KINEMATIC_SCALE
    heavy["fullinertia"] = [KINEMATIC_SCALE * v for v in heavy["fullinertia"]]
    b = spec.worldbody.add_body(name=body["name"], pos=pose["translation"], quat=pose["quaternion"], gravcomp=1.0, **heavy)
    b.explicitinertial = True
    b.add_freejoint(name=f"{body['name']}.root")
    return b


def _floating_root(spec, body, link):
    """An articulated body's root link on a free joint named `tribo_root`, as the SR1 builder's
    (`_initial_pose` places it)."""
    if link["joint"] != "free":
        raise SceneError(f"body {body['name']}: a free root expected, not {link['joint']}")
    pose = body["root_pose"]
    b = spec.worldbody.add_body(name=body["name"], pos=pose["translation"], quat=pose["quaternion"], **_inertial(link))
    b.explicitinertial = True
    b.add_freejoint(name="tribo_root")
    return b


def _kinematic_body(spec, body, friction_of):
    """A fixed body moved by a path: its root a heavy free body (module docs), its other links
    child bodies on their joints."""
    _link_tree(spec, body, _kinematic_root, friction_of)


def _described_body(spec, body, friction_of):
    """An articulated body built from its description link by link (the walker): a floating root,
    child bodies on their joints, geoms that touch the floor but not each other (contype 1,
    conaffinity 0: self-collisions off, as in the projects)."""
    _link_tree(spec, body, _floating_root, friction_of, contype=1, conaffinity=0)


def _settings(spec, desc):
    spec.option.timestep = desc["time_step"]
    spec.option.gravity = desc["gravity"]
    spec.option.integrator = mujoco.mjtIntegrator.mjINT_IMPLICITFAST


def _free_body(spec, body, friction):
    (link,) = body["links"]
    if len(link["shapes"]) != 1:
        raise SceneError(f"body {body['name']}: one shape per free body here")
    shape = link["shapes"][0]
    pose = body["root_pose"]
    b = spec.worldbody.add_body(name=body["name"], pos=pose["translation"], quat=pose["quaternion"], **_inertial(link))
    b.explicitinertial = True
    b.add_freejoint()
    _add_shape(b, body["name"], shape, friction)


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


class Schedule:
    """What is set before each step (from 0): the actuator controls (`ctrl`, steps × nu, or None)
    and the kinematic bodies' free joints (`roots`: (qpos address, steps × 7 positions, dof
    address, steps × 6 velocities) each)."""

    def __init__(self, ctrl, roots):
        self.ctrl, self.roots = ctrl, roots

    def apply(self, data, k):
        if self.ctrl is not None:
            data.ctrl[:] = self.ctrl[k]
        for qadr, qpos, dadr, qvel in self.roots:
            data.qpos[qadr : qadr + 7] = qpos[k]
            data.qvel[dadr : dadr + 6] = qvel[k]


def _root_motion(desc, path):
    """A kinematic path's free-joint positions at each step's start and velocities over each
    step: linear in the world, angular in the body frame (MuJoCo's free joint)."""
    poses = path["poses"]
    dt = desc["time_step"]
    qpos = np.array([p["translation"] + p["quaternion"] for p in poses[:-1]])
    qvel = np.zeros((len(poses) - 1, 6))
    for k in range(len(poses) - 1):
        a, b = poses[k], poses[k + 1]
        qvel[k, :3] = (np.array(b["translation"]) - np.array(a["translation"])) / dt
        turn = np.zeros(3)
        mujoco.mju_subQuat(turn, np.array(b["quaternion"]), np.array(a["quaternion"]))
        qvel[k, 3:] = turn / dt
    return qpos, qvel


def _check_frictions(desc, geoms, floor_material):
    """Every pair of materials that can touch — a free body's against any geom's or the floor's —
    gets the table's coefficient from MuJoCo's larger-of-two rule with the geoms' `geoms`
    ({material: coefficient}); the floor carries 0."""
    free = {l["material"] for b in desc["bodies"] if not b["fixed"] for l in b["links"]}
    for a in free:
        for b in set(geoms) | {floor_material}:
            got = max(geoms[a], geoms.get(b, 0.0))
            want = _friction(desc, a, b)
            if abs(got - want) > 1e-12:
                raise SceneError(f"{desc['project']}: friction {a} / {b} would be {got} in MuJoCo, the table says {want}")


def build(desc):
    """(MjModel, MjData, Schedule or None): the schedule sets the controls and the kinematic
    bodies' positions and velocities before every step; None when the scene has neither."""
    floor = _floor(desc)
    floor_material = floor["links"][0]["material"]
    paths = _kinematic_paths(desc)
    moving = [b for b in desc["bodies"] if not b["fixed"]]
    kinematic = [b for b in desc["bodies"] if b["fixed"] and b["name"] in paths]
    articulated = [b for b in moving if len(b["links"]) > 1]
    if len(articulated) > 1:
        raise SceneError(f"{desc['project']}: more than one articulated body")
    sr1 = [b for b in articulated if b["model_file"].endswith("SR1.body")]
    spec = _sr1(desc, sr1[0], floor_material) if sr1 else mujoco.MjSpec()
    _settings(spec, desc)
    _add_floor(spec, floor)
    if not sr1:
        for body in articulated:
            _described_body(spec, body, lambda material: _friction(desc, material, floor_material))
    geoms = {}
    for body in moving:
        if len(body["links"]) == 1:
            material = body["links"][0]["material"]
            geoms[material] = _friction(desc, material, floor_material)
            _free_body(spec, body, geoms[material])
    if kinematic:
        spec.option.impratio = GRASP_IMPRATIO
        free = {b["links"][0]["material"] for b in moving if len(b["links"]) == 1}
        if len(free) != 1:
            raise SceneError(f"{desc['project']}: a kinematic body beside free bodies of {len(free)} materials")
        (held,) = free

        def friction_of(material):
            mu = _friction(desc, material, held) if material != held else geoms[held]
            geoms.setdefault(material, mu)
            return mu

        for body in kinematic:
            _kinematic_body(spec, body, friction_of)
        _check_frictions(desc, geoms, floor_material)
    patterns = [c for c in desc["controllers"] if c["type"] == "joint_pattern"]
    efforts = [c for c in desc["controllers"] if c["type"] == "joint_effort"]
    for c in desc["controllers"]:
        if c["type"] == "joint_pattern" and c["mode"] not in ("position", "torque"):
            raise SceneError(f"{desc['project']}: a {c['mode']}-mode joint pattern is not translated")
        if c["type"] not in ("joint_pattern", "joint_effort", "kinematic_path"):
            raise SceneError(f"{desc['project']}: a {c['type']} controller is not translated")
    for c in patterns:
        for name, (kp, kd) in zip(c["joints"], c["gains"]):
            act = spec.add_actuator(name=f"pd_{name}", target=name, trntype=mujoco.mjtTrn.mjTRN_JOINT)
            act.set_to_position(kp=kp, kv=kd if c["mode"] == "position" else 0.0)
        if c["mode"] == "torque":
            for name, (_, kd) in zip(c["joints"], c["gains"]):
                act = spec.add_actuator(name=f"pd_rate_{name}", target=name, trntype=mujoco.mjtTrn.mjTRN_JOINT)
                act.set_to_velocity(kv=kd)
    for c in efforts:
        spec.add_actuator(name=f"effort_{c['body']}_{c['joint']}", target=c["joint"], trntype=mujoco.mjtTrn.mjTRN_JOINT)
    model = spec.compile()
    data = mujoco.MjData(model)
    for body in articulated:
        _initial_pose(model, data, body)
    mujoco.mj_forward(model, data)
    ctrl = None
    if patterns or efforts:
        columns = [_pattern_controls(desc, patterns)] if patterns else []
        columns += [_effort_controls(desc, c)[:, None] for c in efforts]
        ctrl = np.concatenate(columns, axis=1)
    roots = []
    for body in kinematic:
        joint = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_JOINT, f"{body['name']}.root")
        qpos, qvel = _root_motion(desc, paths[body["name"]])
        roots.append((model.jnt_qposadr[joint], qpos, model.jnt_dofadr[joint], qvel))
        data.qpos[model.jnt_qposadr[joint] : model.jnt_qposadr[joint] + 7] = qpos[0]
    if roots:
        mujoco.mj_forward(model, data)
    schedule = Schedule(ctrl, roots) if ctrl is not None or roots else None
    return model, data, schedule


def _effort_controls(desc, c):
    """A joint effort's control per step: the effort within its window [start, end), else 0."""
    t = np.arange(desc["steps"]) * desc["time_step"]
    end = np.inf if c["end"] is None else c["end"]
    return np.where((t >= c["start"]) & (t < end), c["effort"], 0.0)


def _initial_pose(model, data, body):
    root = body["root_pose"]
    free = model.jnt_qposadr[mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_JOINT, "tribo_root")]
    data.qpos[free : free + 3] = root["translation"]
    data.qpos[free + 3 : free + 7] = root["quaternion"]
    for link in body["links"]:
        if link["joint"] in ("revolute", "prismatic"):
            j = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_JOINT, link["joint_name"])
            data.qpos[model.jnt_qposadr[j]] = link["initial_position"]


def _pattern_controls(desc, patterns):
    """Controls per step: each pattern at t = k dt, linearly interpolated between frames at its
    own frame rate, the last frame held (tribo's joint_pattern resampling); for a torque-mode
    pattern, beside them the reference rates `(q_ref(t_k) − q_ref(t_{k−1})) / dt` (0 at the first
    step), the finite differences tribo's controller takes."""
    (c,) = patterns
    frames = np.asarray(c["frames"], dtype=float)
    t = np.arange(desc["steps"]) * desc["time_step"]
    s = np.clip(t * c["frame_rate"], 0, len(frames) - 1)
    q_ref = np.stack([np.interp(s, np.arange(len(frames)), frames[:, j]) for j in range(frames.shape[1])], axis=1)
    if c["mode"] != "torque":
        return q_ref
    rates = np.zeros_like(q_ref)
    rates[1:] = np.diff(q_ref, axis=0) / desc["time_step"]
    return np.concatenate([q_ref, rates], axis=1)
