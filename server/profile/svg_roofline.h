// profile/svg_roofline.h: a standalone SVG roofline chart (log-log: arithmetic intensity against
// FLOP/s) with the DRAM roof, the compute roofs of the precisions in play, and the candidate and
// baseline points. Written beside `hone profile --json` output and shown in the editor's webview.
// Pure function; any thread.
#pragma once

#include <string>
#include <vector>

#include "profile/ceilings.h"
#include "profile/roofline.h"

namespace hone::profile {

struct PlotPoint {
  RooflinePoint point;
  bool baseline = false;  // drawn hollow
};

std::string roofline_svg(const std::vector<PlotPoint>& points, const Ceilings& ceilings, const std::string& title);

}  // namespace hone::profile
