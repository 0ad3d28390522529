"""The thesis's Monte-Carlo results, Tables 5.1–5.6 of seed 003 (all numbers, as printed).

``THESIS_TABLES[(trajectory, features_per_step)]`` is ``(table number, {q_z: {(rate_hz, method): (δp, δθ)}})``
with δp the mean position error (m) and δθ the mean orientation error (rad) over 20 realisations;
``method`` is ``"ekf"``, ``"fej"`` (FE-EKF) or ``"reduced"``.

References
----------
Shen, X. (2019), PhD thesis, UCSD, Tables 5.1–5.6 (seed 003 lines 2555–2655; copied in
``shared/notes/003-ch3plus.md`` D.6, which agrees with the seed text).
"""

from __future__ import annotations

__all__ = ["Q_Z_VALUES", "RATES_HZ", "THESIS_TABLES", "thesis_value"]

Q_Z_VALUES: tuple[float, ...] = (1e-4, 2e-4, 4e-4)
RATES_HZ: tuple[float, ...] = (10.0, 20.0)
_METHODS = ("ekf", "fej", "reduced")

# rows: Q_z; columns: 10 Hz EKF, FE-EKF, Red, 20 Hz EKF, FE-EKF, Red; each (δp, δθ)
_RAW: dict[tuple[str, float], tuple[str, list[list[tuple[float, float]]]]] = {
    ("line", 20.0): ("5.1", [
        [(1.403, 0.0375), (1.539, 0.0421), (1.436, 0.0373), (1.365, 0.0308), (1.456, 0.0345), (1.300, 0.0282)],
        [(2.492, 0.0487), (2.525, 0.0552), (2.549, 0.0506), (2.395, 0.0411), (2.621, 0.057), (2.397, 0.0432)],
        [(4.332, 0.0752), (4.284, 0.0758), (4.449, 0.0773), (4.265, 0.0578), (4.283, 0.0677), (4.317, 0.0644)]]),
    ("line", 40.0): ("5.2", [
        [(1.303, 0.0269), (1.306, 0.027), (1.256, 0.0227), (1.21, 0.0167), (1.283, 0.0238), (1.258, 0.0208)],
        [(2.409, 0.0385), (2.459, 0.0446), (2.43, 0.0347), (2.331, 0.0279), (2.318, 0.0313), (2.386, 0.0345)],
        [(4.238, 0.047), (4.361, 0.0628), (4.386, 0.0613), (4.23, 0.0445), (4.353, 0.0558), (4.352, 0.0577)]]),
    ("circle", 20.0): ("5.3", [
        [(0.955, 0.0875), (1.063, 0.0936), (0.655, 0.0443), (0.746, 0.0657), (0.750, 0.0576), (0.532, 0.0342)],
        [(1.630, 0.152), (1.496, 0.119), (0.959, 0.0586), (1.35, 0.128), (1.549, 0.144), (0.982, 0.0667)],
        [(2.893, 0.2914), (2.721, 0.2585), (1.512, 0.1033), (2.295, 0.2256), (2.066, 0.2102), (1.469, 0.1003)]]),
    ("circle", 40.0): ("5.4", [
        [(0.816, 0.0643), (0.7972, 0.0627), (0.5815, 0.0359), (0.584, 0.0462), (0.681, 0.0530), (0.568, 0.0374)],
        [(1.276, 0.1193), (1.3061, 0.1091), (0.9403, 0.0591), (1.260, 0.1164), (1.2402, 0.1039), (0.9178, 0.0573)],
        [(2.593, 0.253), (2.428, 0.236), (1.752, 0.121), (2.4, 0.239), (2.397, 0.216), (1.631, 0.113)]]),
    ("spline", 25.0): ("5.5", [
        [(0.673, 0.0789), (0.635, 0.0803), (1.309, 0.1062), (0.6527, 0.0698), (0.5620, 0.0605), (0.4659, 0.0371)],
        [(1.388, 0.139), (1.143, 0.12), (1.23, 0.107), (1.2575, 0.1156), (0.9985, 0.0997), (0.8022, 0.0654)],
        [(2.459, 0.227), (2.111, 0.2267), (1.592, 0.1174), (2.3852, 0.2039), (1.8924, 0.1794), (1.4595, 0.1042)]]),
    ("spline", 50.0): ("5.6", [
        [(0.6039, 0.0609), (0.5815, 0.0636), (1.308, 0.1049), (0.5518, 0.0518), (0.4810, 0.0447), (0.4538, 0.0381)],
        [(1.2201, 0.1047), (0.9836, 0.0945), (1.0738, 0.0838), (1.1676, 0.1021), (0.9752, 0.0869), (0.73, 0.0611)],
        [(2.4264, 0.2126), (2.0421, 0.1904), (1.4674, 0.1121), (2.447, 0.2141), (1.8347, 0.145), (1.4322, 0.1165)]]),
}


def _build() -> dict[tuple[str, float], tuple[str, dict[float, dict[tuple[float, str], tuple[float, float]]]]]:
    out = {}
    for key, (table, rows) in _RAW.items():
        by_q = {}
        for q, row in zip(Q_Z_VALUES, rows):
            by_q[q] = {(rate, m): row[3 * i + j] for i, rate in enumerate(RATES_HZ) for j, m in enumerate(_METHODS)}
        out[key] = (table, by_q)
    return out


THESIS_TABLES = _build()


def thesis_value(trajectory: str, features_per_step: float, rate_hz: float, q_z: float,
                 method: str) -> tuple[float, float] | None:
    """The thesis's ``(δp, δθ)`` for one cell, or ``None`` if the thesis has no such cell."""
    entry = THESIS_TABLES.get((trajectory, float(features_per_step)))
    if entry is None:
        return None
    return entry[1].get(float(q_z), {}).get((float(rate_hz), method))
