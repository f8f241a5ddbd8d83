"""The markdown tables of bench/anchors.py: medians over rounds of times and of per-round ratios."""

import statistics

ENGINE_COLUMNS = [("mujoco", "MuJoCo"), ("raw-rapier", "raw rapier"), ("pgs", "tribo pgs"), ("rapier", "tribo rapier"), ("cslc", "tribo cslc")]


def per_step(results, scene, engine, phase):
    """Per-round CPU seconds per step of (scene, engine, phase); None for a failed round."""
    return [r.get((scene, engine), {}).get(phase) for r in results]


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def ratio_median(numerators, denominators):
    """Median over rounds of the per-round ratio (rounds where either side failed are left out)."""
    return median([n / d for n, d in zip(numerators, denominators) if n is not None and d is not None and d > 0])


def rate(seconds):
    """Steps per second, rounded for a table."""
    if seconds is None:
        return "—"
    r = 1.0 / seconds
    return f"{r:,.0f}" if r >= 100 else f"{r:,.1f}"


def duration(seconds):
    if seconds is None:
        return "—"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds * 1e6:.1f} µs"


def fmt_ratio(x):
    return "—" if x is None else f"**{x:.2f}**"


def anchor_table(results, rows):
    """rows: (label, scene, phase, engines). Cells: median steps/s (and time per step) per engine;
    ratios: pgs ÷ MuJoCo in speed, tribo rapier ÷ raw rapier in time, cslc ÷ pgs and cslc ÷
    MuJoCo in time (the last is the CSLC paper's comparison: the lattice against its host's point
    contact, MuJoCo there)."""
    head = [label for _, label in ENGINE_COLUMNS]
    lines = [
        "| scene | steps | " + " | ".join(head) + " | pgs ÷ MuJoCo (speed) | tribo rapier ÷ raw rapier (time) | cslc ÷ pgs (time) | cslc ÷ MuJoCo (time) |",
        "|---|---|" + "---|" * len(head) + "---|---|---|---|",
    ]
    for label, scene, phase, engines in rows:
        cells = []
        for engine, _ in ENGINE_COLUMNS:
            if engine not in engines:
                cells.append("")
                continue
            t = median(per_step(results, scene, engine, phase))
            cells.append("—" if t is None else f"{rate(t)} ({duration(t)})")
        t = lambda e: per_step(results, scene, e, phase)
        pgs_vs_mujoco = ratio_median(t("mujoco"), t("pgs")) if {"mujoco", "pgs"} <= set(engines) else None
        rapier_vs_raw = ratio_median(t("rapier"), t("raw-rapier")) if {"rapier", "raw-rapier"} <= set(engines) else None
        cslc_vs_pgs = ratio_median(t("cslc"), t("pgs")) if {"cslc", "pgs"} <= set(engines) else None
        cslc_vs_mujoco = ratio_median(t("cslc"), t("mujoco")) if {"cslc", "mujoco"} <= set(engines) else None
        lines.append(
            f"| {label} | {phase.replace('-', '–')} | "
            + " | ".join(cells)
            + f" | {fmt_ratio(pgs_vs_mujoco)} | {fmt_ratio(rapier_vs_raw)} | {fmt_ratio(cslc_vs_pgs)} | {fmt_ratio(cslc_vs_mujoco)} |"
        )
    return "\n".join(lines)


def scaling_table(results, sizes, engines, phase, copies=None):
    """Time per step of each pile and its ratio to the smallest pile's (median of per-round
    ratios); the ideal ratio is the box-count ratio. `copies`, `(scene, count)`: a last row for
    the smallest pile stepped as `count` copies in turn (its ideal ratio is `count`)."""
    base = sizes[0]
    head = " | ".join(f"{label} | × {base}" for engine, label in ENGINE_COLUMNS if engine in engines)
    lines = [f"| boxes | ideal × {base} | {head} |", "|---|---|" + "---|---|" * len(engines)]

    def cells_of(scene):
        cells = []
        for engine, _ in ENGINE_COLUMNS:
            if engine not in engines:
                continue
            times = per_step(results, scene, engine, phase)
            cells.append(duration(median(times)))
            r = ratio_median(times, per_step(results, f"pile-{base}", engine, phase))
            cells.append("—" if r is None else f"{r:.1f}")
        return " | ".join(cells)

    for n in sizes:
        lines.append(f"| {n} | {n / base:.0f} | {cells_of(f'pile-{n}')} |")
    if copies is not None:
        scene, count = copies
        lines.append(f"| {count} × {base}, in turn | {count} | {cells_of(scene)} |")
    return "\n".join(lines)


def check_table(results, scenes):
    """The state each engine ends a scene in, in the last round: the highest free root (m) and the
    number of contacts — the worlds under comparison must agree."""
    last = results[-1]
    head = " | ".join(label for _, label in ENGINE_COLUMNS)
    lines = [f"| scene | {head} |", "|---|" + "---|" * len(ENGINE_COLUMNS)]
    for scene in scenes:
        cells = []
        for engine, _ in ENGINE_COLUMNS:
            run = (last.get((scene, engine)) or {}).get("_run")
            if run is None:
                cells.append("")
                continue
            top = run.get("top_height_at_end")
            cells.append(f"{top:.4f} m, {run.get('contacts_at_end')}" if top is not None else f"{run.get('contacts_at_end')}")
        lines.append(f"| {scene} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def setting_note(results, rows):
    """A sentence: what setting MuJoCo's inputs from Python before every step costs alone, per
    row whose scene sets any (`mujoco_time.py`'s `setting_per_step_s`, last round), which
    MuJoCo's times in the table include."""
    parts = []
    for label, scene, phase, engines in rows:
        run = (results[-1].get((scene, "mujoco")) or {}).get("_run") if "mujoco" in engines else None
        for p in (run or {}).get("phases", []):
            if p["steps"] == phase and p.get("setting_per_step_s", 0.0) > 0.0:
                parts.append(f"{label} {duration(p['setting_per_step_s'])}")
    if not parts:
        return ""
    return (
        "MuJoCo's times include setting its controls (a joint pattern, a joint effort) and its kinematic bodies' "
        "positions and velocities from Python before every step; that setting alone (last round): " + "; ".join(parts) + "."
    )
