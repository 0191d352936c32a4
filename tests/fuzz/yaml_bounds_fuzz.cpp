// libFuzzer target for the bounded YAML check every reader runs first (src/yaml/yaml_check.cpp):
// a text it lets through within bounds must, once yaml-cpp has built it, be within those bounds
// when walked with every alias expanded (nodes, scalar bytes, depth), and must not be a cycle.
// It fails on a crash, a sanitizer report, or a walk beyond a bound the check said held.

#include "yaml/yaml_check.hpp"

#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <utility>
#include <vector>
#include <yaml-cpp/yaml.h>

namespace {

constexpr kprov::yaml::Bounds k_bounds{1u << 16, 16, 20'000, 1u << 20};

// Walks `root` with an explicit stack; aborts past a bound.
void walk(const YAML::Node& root, std::size_t& nodes, std::size_t& bytes) {
    std::vector<std::pair<YAML::Node, std::size_t>> stack{{root, 0}};
    while (!stack.empty()) {
        auto [node, depth] = stack.back();
        stack.pop_back();
        if (!node.IsDefined())
            continue;
        ++nodes;
        if (node.IsMap() || node.IsSequence())
            ++depth;
        if (nodes > k_bounds.max_nodes || bytes > k_bounds.max_expanded_bytes ||
            depth > k_bounds.max_depth)
            std::abort();
        if (node.IsScalar()) {
            bytes += node.Scalar().size();
        } else if (node.IsSequence()) {
            for (const auto& item : node)
                stack.emplace_back(item, depth);
        } else if (node.IsMap()) {
            for (const auto& item : node) {
                stack.emplace_back(item.first, depth);
                stack.emplace_back(item.second, depth);
            }
        }
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    if (kprov::yaml::syntax_problem(text, k_bounds))
        return 0;
    std::vector<YAML::Node> documents;
    try {
        documents = YAML::LoadAll(std::string(text));
    } catch (const YAML::Exception&) {
        return 0; // refused by yaml-cpp, with a message
    }
    std::size_t nodes = 0, bytes = 0;
    for (const auto& document : documents)
        walk(document, nodes, bytes);
    return 0;
}
