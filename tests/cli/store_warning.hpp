#pragma once
// What the CLI tests that check stderr set aside.

#include <string>

namespace kprov::cli {

// stderr without the warning every command gives for a password in --store: these tests pass
// a PostgreSQL URL with its password on the command line, as a user would be warned not to.
inline std::string without_store_warning(const std::string& err) {
    const std::string prefix = "kprov: warning: the --store URL carries a password";
    std::string out;
    std::size_t start = 0;
    while (start < err.size()) {
        const auto end = err.find('\n', start);
        const std::string line =
            err.substr(start, end == std::string::npos ? end : end - start + 1);
        if (line.rfind(prefix, 0) != 0)
            out += line;
        if (end == std::string::npos)
            break;
        start = end + 1;
    }
    return out;
}

} // namespace kprov::cli
