#pragma once
// Skipping a test for something missing on this machine (a server, a tool), but failing it in CI
// (KPROV_CI=1, set by scripts/test), where everything must be there and nothing may be skipped.

#include <cstdlib>
#include <gtest/gtest.h>
#include <string>

namespace kprov::testing {

inline bool ci_requires_everything_env() {
    const char* v = std::getenv("KPROV_CI");
    return v && std::string(v) == "1";
}

} // namespace kprov::testing

/// In a test body or SetUp: fails under KPROV_CI=1, else skips, with `reason` either way.
#define KPROV_SKIP_UNLESS_CI(reason)                                                               \
    do {                                                                                           \
        if (::kprov::testing::ci_requires_everything_env())                                        \
            FAIL() << "KPROV_CI=1 but: " << (reason);                                              \
        GTEST_SKIP() << (reason);                                                                  \
    } while (false)
