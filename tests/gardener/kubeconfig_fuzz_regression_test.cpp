// Inputs kubeconfig_fuzz (tests/fuzz/README.md) found that made the kubeconfig reader throw
// something other than kprov's own Error: each must now be refused with a message.

#include "engine/error.hpp"
#include "gardener/kubeconfig.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kprov::gardener {
namespace {

using ::testing::HasSubstr;

std::string refusal(const std::string& text, KubeconfigOrigin origin) {
    try {
        (void)parse_kubeconfig(text, "fuzz", {}, {}, origin);
    } catch (const ConfigError& e) {
        return e.what();
    }
    ADD_FAILURE() << "not refused";
    return {};
}

// crash-932ffaa1: the only context is a scalar, and yaml-cpp's operator[] on a scalar throws
// YAML::BadSubscript (which reached std::terminate in the fuzzer).
TEST(KubeconfigFuzzRegression, AScalarAsTheOnlyContextIsRefused) {
    const std::string text = "apiVer-context: c\ncontexts:\n- siona:piVersion\n";
    for (auto origin : {KubeconfigOrigin::Local, KubeconfigOrigin::Remote})
        EXPECT_THAT(refusal(text, origin),
                    HasSubstr("current-context: missing, and no context was chosen"));
}

} // namespace
} // namespace kprov::gardener
