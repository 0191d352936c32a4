// libFuzzer target for the plain-scalar scanners (src/yaml/yaml_scalars.cpp), checked against
// the regular expressions they replaced: std::regex is allowed here, in a test, on inputs the
// fuzzer keeps short (-max_len), where its recursion is harmless. A disagreement aborts.

#include "yaml/yaml_scalars.hpp"

#include <cstdint>
#include <cstdlib>
#include <regex>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size > 2048)
        return 0; // the reference matcher recurses per character
    const std::string s(reinterpret_cast<const char*>(data), size);
    static const std::regex decimal("[-+]?[0-9]+");
    static const std::regex octal("0o[0-7]+");
    static const std::regex hex("0x[0-9a-fA-F]+");
    static const std::regex number(R"([-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?)");
    static const std::regex special(
        R"(^(true|True|TRUE|false|False|FALSE|yes|Yes|YES|no|No|NO|on|On|ON|off|Off|OFF|y|Y|n|N|null|Null|NULL|~|[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?|0x[0-9a-fA-F]+|0o[0-7]+|[-+]?\.(inf|Inf|INF)|\.(nan|NaN|NAN))$)");
    using namespace kprov::yaml;
    if (is_decimal_integer(s) != std::regex_match(s, decimal) ||
        is_octal_integer(s) != std::regex_match(s, octal) ||
        is_hex_integer(s) != std::regex_match(s, hex) ||
        is_decimal_number(s) != std::regex_match(s, number) ||
        plain_reads_as_other_type(s) != (s.empty() || std::regex_match(s, special)))
        std::abort();
    return 0;
}
