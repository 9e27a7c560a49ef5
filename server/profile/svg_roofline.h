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

// `also_show`: compute roofs to draw besides the points' own precisions (e.g. the tensor-core
// roof of the task's dtype, the ceiling a suggestion points at).
std::string roofline_svg(const std::vector<PlotPoint>& points, const Ceilings& ceilings, const std::string& title,
                         const std::vector<Precision>& also_show = {});

}  // namespace hone::profile
