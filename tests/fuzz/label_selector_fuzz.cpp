// libFuzzer target for the -l selector parser (src/cli/label_selector.cpp). Every input is
// parsed; an accepted one is printed back in kubectl's syntax and parsed again, which must give
// the same requirements, and matched against a fixed set of labels. It fails on a crash, a
// sanitizer report, an exception other than InvalidSelector, or a round trip that differs.
// Crashes found become cases of tests/cli/label_selector_test.cpp.

#include "cli/label_selector.hpp"

#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

namespace {

using kprov::cli::LabelRequirement;
using kprov::cli::LabelSelector;

std::string value_set(const std::vector<std::string>& values) {
    std::string out = "(";
    for (std::size_t i = 0; i < values.size(); ++i)
        out += (i == 0 ? "" : ",") + values[i];
    return out + ")";
}

std::string printed(const LabelSelector& selector) {
    std::string out;
    for (const auto& r : selector) {
        if (!out.empty())
            out += ",";
        switch (r.op) {
        case LabelRequirement::Op::Exists:
            out += r.key;
            break;
        case LabelRequirement::Op::NotExists:
            out += "!" + r.key;
            break;
        case LabelRequirement::Op::Equals:
            out += r.key + "=" + r.values.front();
            break;
        case LabelRequirement::Op::NotEquals:
            out += r.key + "!=" + r.values.front();
            break;
        case LabelRequirement::Op::In:
            out += r.key + " in " + value_set(r.values);
            break;
        case LabelRequirement::Op::NotIn:
            out += r.key + " notin " + value_set(r.values);
            break;
        }
    }
    return out;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    LabelSelector selector;
    try {
        selector = kprov::cli::parse_label_selector(text);
    } catch (const kprov::cli::InvalidSelector&) {
        return 0;
    }
    if (kprov::cli::parse_label_selector(printed(selector)) != selector)
        std::abort();
    (void)kprov::cli::selector_matches(selector, R"({"team":"orders","tier":3,"in":"notin"})");
    return 0;
}
