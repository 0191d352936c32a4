#pragma once
// Running the scripts that check kprov against Debian's python3-graphql-core (a port of
// graphql-js). Debian's own /usr/bin/python3 is used: the python3 first on PATH may be another
// one, without the package.

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

namespace kprov::api::graphql::testing {

inline const char* const k_debian_python = "/usr/bin/python3";

inline bool python_graphql_core_available() {
    const std::string cmd = std::string(k_debian_python) + " -c 'import graphql' >/dev/null 2>&1";
    return std::system(cmd.c_str()) == 0;
}

/// Runs tests/graphql/<script> with the schema file and `input` (written to a temporary file)
/// as arguments; its standard output, and its exit status in `status`.
inline std::string run_python_check(const std::string& script, const std::string& input,
                                    int& status) {
    const auto path = std::filesystem::temp_directory_path() /
                      ("kprov-graphql-" + std::to_string(::getpid()) + "-" + script + ".json");
    {
        std::ofstream out(path);
        out << input;
    }
    const std::string cmd = std::string(k_debian_python) + " " + KPROV_SOURCE_DIR +
                            "/tests/graphql/" + script + " " + KPROV_SOURCE_DIR +
                            "/schemas/provisioner.graphql " + path.string();
    std::string text;
    status = -1;
    if (FILE* pipe = ::popen(cmd.c_str(), "r")) {
        std::array<char, 65536> buf{};
        std::size_t n = 0;
        while ((n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0)
            text.append(buf.data(), n);
        status = ::pclose(pipe);
    }
    std::filesystem::remove(path);
    return text;
}

} // namespace kprov::api::graphql::testing
