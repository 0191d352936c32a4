#pragma once
// Where the engine's golden files live (tests/engine/golden/), for the shoot builder's and the
// shoot upgrade's tests.

#include <string>

namespace kprov::engine::golden {

inline std::string path(const std::string& name) {
    return KPROV_SOURCE_DIR "/tests/engine/golden/" + name;
}

} // namespace kprov::engine::golden
