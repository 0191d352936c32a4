#pragma once
// The CLI's name for engine::json_diff (engine/util/json_diff.hpp).

#include "engine/util/json_diff.hpp"

namespace kprov::cli {

using engine::json_diff;

} // namespace kprov::cli
