"""A ready ParaView state per run: ``paraview/<name>.pvsm`` opens the series as tubes of the physical section
radius (× the frame's ``display_scale``) coloured by ``moment_magnitude``, with arrow glyphs of the director
``d1``, the spatial axes and a colour legend.

The state is ParaView 5.11's own XML (``templates/tubes.pvsm``, saved by pvbatch from the recipe of
docs/output.md, ``make_template``); ``write_state`` fills in the series' absolute path and the tube radius
factor. File → Load State → the .pvsm (choose "Search files under specified directory" when the run folder
has moved).
"""

from __future__ import annotations

import logging
from pathlib import Path

from lgbeam.io.atomic import atomic_write_text

logger = logging.getLogger(__name__)

TEMPLATE = Path(__file__).with_name("templates") / "tubes.pvsm"
PVD_PLACEHOLDER = "@PVD_PATH@"
SCALE_PLACEHOLDER = "@RADIUS_FACTOR@"

#: the recipe as a pvpython script (also the generator of the template); run with pvbatch SCRIPT PVD [SCALE] [OUT]
RECIPE = '''
import sys
from paraview.simple import *
pvd, scale = sys.argv[1], float(sys.argv[2]) if len(sys.argv) > 2 else 1.0
reader = PVDReader(registrationName="series", FileName=pvd)
tube = Tube(registrationName="tubes", Input=reader)
tube.Scalars = ["POINTS", "radius"]
tube.VaryRadius = "By Absolute Scalar"
tube.Radius = 0.01
tube.RadiusFactor = scale
tube.NumberofSides = 24
glyph = Glyph(registrationName="d1", Input=reader, GlyphType="Arrow")
glyph.OrientationArray = ["POINTS", "d1"]
glyph.GlyphMode = "Every Nth Point"
glyph.Stride = 2
view = CreateView("RenderView")
view.OrientationAxesVisibility = 1
tube_display = Show(tube, view)
ColorBy(tube_display, ("POINTS", "moment_magnitude"))
tube_display.SetScalarBarVisibility(view, True)
bar = GetScalarBar(GetColorTransferFunction("moment_magnitude"), view)
bar.Title = "|moment| [N m]"
glyph_display = Show(glyph, view)
glyph_display.AmbientColor = glyph_display.DiffuseColor = [0.85, 0.1, 0.1]
view.ResetCamera()
'''


def write_state(pvd: Path, radius_factor: float = 1.0) -> Path | None:
    """Write ``<pvd stem>.pvsm`` beside ``pvd`` from the template; None (and a log line) without a template."""
    pvd = Path(pvd)
    if not TEMPLATE.is_file():
        logger.warning("no ParaView state template at %s; skipping the .pvsm", TEMPLATE)
        return None
    text = TEMPLATE.read_text(encoding="utf-8")
    text = text.replace(PVD_PLACEHOLDER, str(pvd.resolve())).replace(SCALE_PLACEHOLDER, repr(float(radius_factor)))
    out = pvd.with_suffix(".pvsm")
    atomic_write_text(out, text)
    return out
