// libFuzzer target for what the installation-cr backend reads from outside: a release's
// kyma-installer-cluster.yaml (parse_installer_yaml, src/gardener/kyma_manifest.cpp: its
// documents read by src/yaml/'s bounded reader, the kind table) and the Installation CR a runtime
// cluster answers with (probe_of). Each input is tried as both. It fails on a crash, a sanitizer
// report, an exception other than kprov's own Error (every refusal must be one, with a message), or
// a parsed object without the members the installer relies on.

#include "engine/error.hpp"
#include "engine/kyma.hpp"
#include "kyma/kyma_objects.hpp"

#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        const auto manifest = kprov::gardener::parse_installer_yaml(text);
        for (const auto& object : manifest.resources)
            if (!object.is_object() || !object.contains("kind") || !object.contains("metadata"))
                std::abort();
        if (manifest.installation.size() > 1)
            std::abort();
    } catch (const kprov::Error&) {
        // refused, with a message
    }
    const auto cr = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (!cr.is_discarded()) {
        try {
            const auto probe = kprov::gardener::probe_of(cr);
            if (probe.error_log.size() > 1000)
                std::abort(); // bounded, whatever the server sends
        } catch (const kprov::Error&) {
        }
    }
    return 0;
}
