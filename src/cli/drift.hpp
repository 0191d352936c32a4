#pragma once
// The CLI's name for the spec half of drift (engine/rules/drift.hpp), as `kprov adopt` compares an
// adopted shoot with what kprov would apply.

#include "engine/rules/drift.hpp"

namespace kprov::cli {

inline std::vector<std::string> shoot_drift(const engine::Runtime& runtime,
                                            const std::string& live_shoot_json,
                                            const engine::ShootOptions& options) {
    return engine::spec_drift(runtime, live_shoot_json, options);
}

} // namespace kprov::cli
