// libFuzzer target for runtime and upgrade files: each input goes through the CLI's reader
// (read_runtime_text, src/cli/runtime_file.cpp: JSON or YAML, the size and nesting limits,
// UTF-8) and, when it reads, through the engine's three entry points (read_provision_input,
// read_upgrade_input, read_kyma_upgrade_input), and a document that reads is rendered as
// YAML (src/cli/yaml_output.cpp) as -o yaml would. It fails on a crash, a sanitizer report, an
// exception that is not kprov's own Error (every refusal must be one, with a message), or a
// document that reads but breaks the reader's contract: not an object, nested deeper than the
// limit, or not serializable as strict UTF-8 JSON.

#include "cli/runtime_file.hpp"
#include "cli/yaml_output.hpp"
#include "engine/error.hpp"
#include "engine/input/input_limits.hpp"
#include "engine/input/runtime_input.hpp"

#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

namespace {

template <typename Read> void attempt(Read read) {
    try {
        read();
    } catch (const kprov::Error&) {
        // refused, with a message
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    nlohmann::json document;
    try {
        document = kprov::cli::read_runtime_text(text, "fuzz.yaml");
    } catch (const kprov::Error&) {
        return 0;
    }
    if (!document.is_object() || kprov::input_bounds_problem(document, ""))
        std::abort();
    std::string compact;
    try {
        compact = document.dump(); // strict: throws on text that is not UTF-8
    } catch (const nlohmann::json::exception&) {
        std::abort();
    }
    attempt([&] { (void)kprov::cli::json_to_yaml(compact); });
    attempt([&] {
        const auto input = kprov::engine::read_provision_input(document, {"project", false, false});
        if (input.runtime.labels_json)
            (void)nlohmann::json::parse(*input.runtime.labels_json);
    });
    attempt([&] { (void)kprov::engine::read_upgrade_input(document); });
    attempt([&] { (void)kprov::engine::read_kyma_upgrade_input(document); });
    return 0;
}
