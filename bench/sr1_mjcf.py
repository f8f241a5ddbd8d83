"""Writes share/choreonoid/model/SR1.xml: Choreonoid's SR1 (SR1.urdf) as MuJoCo compiles and saves it.

MuJoCo's URDF compiler reads SR1.urdf with a floating joint added above its root link WAIST
(MuJoCo welds a URDF's root link to the world otherwise; tribo's SR1.body root is free), and
`MjSpec.to_xml` writes the compiled model as MJCF. MuJoCo writes numbers with six significant
digits (it has no option for more): every number SR1's dynamics read (positions, masses, centres
of mass, the unit inertias, joint axes) has at most six in SR1.urdf and is written unchanged;
the collision cylinders' orientations (from `rpy="1.57 0 0"`) and the joint ranges are rounded.

The file is tribo's fixture for the MJCF import: `crates/tribo-pgs/tests/mjcf_dynamics.rs`
checks that SR1 read from it has the dynamics of SR1.body. Re-run after changing SR1.urdf:

    python bench/sr1_mjcf.py          # needs the `mujoco` package (pip install mujoco)
"""

import pathlib

import mujoco

ROOT = pathlib.Path(__file__).resolve().parent.parent
MODEL = ROOT / "share" / "choreonoid" / "model"


def sr1_spec():
    urdf = (MODEL / "SR1.urdf").read_text()
    urdf = urdf.replace(
        '<robot name="SR1">',
        '<robot name="SR1">\n<link name="tribo_world"/>\n'
        '<joint name="tribo_root" type="floating"><parent link="tribo_world"/><child link="WAIST"/></joint>',
        1,
    )
    return mujoco.MjSpec.from_string(urdf)


def main():
    spec = sr1_spec()
    spec.compile()
    text = spec.to_xml()
    header = (
        "<!-- Choreonoid's SR1 robot (SR1.urdf, MIT licence: LICENSE in this folder) as MuJoCo "
        f"{mujoco.__version__} compiles and saves it; written by bench/sr1_mjcf.py. -->\n"
    )
    (MODEL / "SR1.xml").write_text(header + text)


if __name__ == "__main__":
    main()
