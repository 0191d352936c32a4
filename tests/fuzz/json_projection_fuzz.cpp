// libFuzzer target for JsonProjection (src/gardener/json_projection.cpp), the parser of the
// shoot watch's events: every input is parsed by it and by nlohmann's parser. It fails on a
// crash, a sanitizer report, or a disagreement: a document nlohmann accepts must be accepted
// and projected exactly as nlohmann's tree projected afterwards; one nlohmann rejects as a
// syntax error must be rejected unless the broken part lies outside the projection and is
// invalid UTF-8 or a number out of range (JsonProjection checks neither where nothing is kept).
// Crashes found become cases of tests/gardener/json_projection_test.cpp.

#include "gardener/json_projection.hpp"

#include <cstdint>
#include <cstdlib>
#include <string_view>

namespace {

using kprov::gardener::JsonProjection;
using nlohmann::json;

const JsonProjection& projection() {
    static const JsonProjection p({"type", "object.metadata.name", "object.metadata.annotations",
                                   "object.status.lastOperation", "a.b", "a.c.d", "x"});
    return p;
}

bool ascii(std::string_view text) {
    for (const char c : text)
        if (static_cast<unsigned char>(c) >= 0x80)
            return false;
    return true;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const auto projected = projection().parse(text);
    // nlohmann's lexer takes a NUL byte for the end of the input and accepts "1\0x"; JSON has
    // no such rule, and JsonProjection rejects it. Such inputs are only run, not compared.
    if (text.find('\0') != std::string_view::npos)
        return 0;
    try {
        const json reference = json::parse(text);
        if (!projected || *projected != projection().project(reference))
            std::abort();
    } catch (const json::parse_error&) {
        if (projected && ascii(text))
            std::abort();
    } catch (const json::out_of_range&) {
        // a number nlohmann cannot hold: JsonProjection only range-checks kept values
    }
    return 0;
}
