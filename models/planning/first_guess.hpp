#pragma once
// The closed form's verdict on a scenario's mean-wait targets: `plan`'s first guess.
#include <optional>

#include "models/spec/scenario.hpp"

namespace waitroom::models::planning {

// From point values (no interval), or none where no closed form applies or no target is a
// mean wait it gives; other targets are not judged. The scenario must have an sla block.
std::optional<bool> closed_form_holds(const scenario& s);

}  // namespace waitroom::models::planning
