// libFuzzer target for the one YAML reader (src/yaml/yaml_reader.cpp) and the bounded check
// (src/yaml/yaml_check.cpp). Every input is read within small bounds, typed and as written; it
// fails on a crash, a sanitizer report, an exception other than yaml::ReadError, a read tree
// beyond a bound (walked with an explicit stack: nodes, keys and scalars' bytes, depth), a tree
// that does not serialize as strict UTF-8 JSON, or a text the reader reads and the check refuses.

#include "yaml/yaml_check.hpp"
#include "yaml/yaml_reader.hpp"

#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string_view>
#include <utility>
#include <vector>

namespace {

constexpr kprov::yaml::Bounds k_bounds{1u << 16, 16, 20'000, 1u << 20};

// Walks `root` with an explicit stack; aborts past a bound.
void walk(const nlohmann::json& root, std::size_t& nodes, std::size_t& bytes) {
    std::vector<std::pair<const nlohmann::json*, std::size_t>> stack{{&root, 0}};
    while (!stack.empty()) {
        auto [node, depth] = stack.back();
        stack.pop_back();
        ++nodes;
        if (node->is_structured())
            ++depth;
        if (nodes > k_bounds.max_nodes || bytes > k_bounds.max_expanded_bytes ||
            depth > k_bounds.max_depth)
            std::abort();
        if (node->is_string()) {
            bytes += node->get_ref<const std::string&>().size();
        } else if (node->is_object()) {
            for (const auto& [key, value] : node->items()) {
                ++nodes; // the key
                bytes += key.size();
                stack.emplace_back(&value, depth);
            }
        } else if (node->is_array()) {
            for (const auto& item : *node)
                stack.emplace_back(&item, depth);
        }
    }
}

void read(std::string_view text, kprov::yaml::Scalars scalars) {
    kprov::yaml::ReadOptions options;
    options.bounds = k_bounds;
    options.scalars = scalars;
    options.record_marks = true;
    kprov::yaml::Documents read;
    try {
        read = kprov::yaml::read_documents(text, options);
    } catch (const kprov::yaml::ReadError&) {
        return; // refused, with a message
    }
    if (kprov::yaml::syntax_problem(text, k_bounds))
        std::abort(); // the check refuses what the reader read
    std::size_t nodes = 0, bytes = 0;
    for (const auto& document : read.documents) {
        walk(document, nodes, bytes);
        (void)document.dump(); // throws on invalid UTF-8: an uncaught exception fails the run
    }
    if (read.marks.size() != read.documents.size() ||
        read.value_marks.size() != read.documents.size() ||
        read.problems.size() > kprov::yaml::k_max_value_problems)
        std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    read(text, kprov::yaml::Scalars::Typed);
    read(text, kprov::yaml::Scalars::AsWritten);
    return 0;
}
